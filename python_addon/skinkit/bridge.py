"""bpy <-> numpy: meshes, vertex groups (CSR), armatures (skeletons). No operators or UI here.

Bulk data moves with foreach_get/foreach_set. Vertex groups are read per vertex (Blender has no bulk reader
for them) and written in batches: one VertexGroup.add(indices, weight, 'REPLACE') per distinct
(group, weight value) and one VertexGroup.remove(indices) per group, never vertex by vertex.
"""

import numpy as np

# ------------------------------------------------------------------------------------------- meshes


def mesh_positions(mesh):
    """(V, 3) float32 object-space vertex positions."""
    out = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.vertices.foreach_get("co", out)
    return out.reshape(-1, 3)


def set_mesh_positions(mesh, positions):
    arr = np.ascontiguousarray(positions, np.float32).reshape(-1)
    if arr.size != len(mesh.vertices) * 3:
        raise ValueError("positions: %d values for %d vertices" % (arr.size, len(mesh.vertices)))
    mesh.vertices.foreach_set("co", arr)
    mesh.update()


def mesh_normals(mesh):
    """(V, 3) float32 vertex normals (Blender 3.4: MeshVertex.normal; 3.5+: Mesh.vertex_normals)."""
    out = np.empty(len(mesh.vertices) * 3, np.float32)
    coll = getattr(mesh, "vertex_normals", None)
    if coll is not None and len(coll) == len(mesh.vertices):
        coll.foreach_get("vector", out)
    else:
        mesh.vertices.foreach_get("normal", out)
    return out.reshape(-1, 3)


def mesh_triangles(mesh):
    """(T, 3) uint32 vertex indices of the loop triangles."""
    mesh.calc_loop_triangles()
    out = np.empty(len(mesh.loop_triangles) * 3, np.int32)
    mesh.loop_triangles.foreach_get("vertices", out)
    return out.reshape(-1, 3).astype(np.uint32)


def selected_vertex_mask(mesh):
    """uint8[V]: 1 for selected vertices (the Weight Paint vertex-selection mask)."""
    sel = np.zeros(len(mesh.vertices), bool)
    mesh.vertices.foreach_get("select", sel)
    return sel.astype(np.uint8)


def select_vertices(mesh, mask):
    """Selects exactly the vertices where mask is true (edges/faces follow)."""
    m = np.asarray(mask, bool)
    mesh.vertices.foreach_set("select", m)
    if len(mesh.edges):
        ev = np.empty(len(mesh.edges) * 2, np.int32)
        mesh.edges.foreach_get("vertices", ev)
        mesh.edges.foreach_set("select", m[ev.reshape(-1, 2)].all(axis=1))
    if len(mesh.polygons):
        counts = np.empty(len(mesh.polygons), np.int32)
        mesh.polygons.foreach_get("loop_total", counts)
        lv = np.empty(len(mesh.loops), np.int32)
        mesh.loops.foreach_get("vertex_index", lv)
        starts = np.empty(len(mesh.polygons), np.int32)
        mesh.polygons.foreach_get("loop_start", starts)
        all_sel = np.minimum.reduceat(m[lv].astype(np.int8), starts) if len(lv) else np.zeros(0, np.int8)
        mesh.polygons.foreach_set("select", all_sel.astype(bool))
    mesh.update()


# ------------------------------------------------------------------------------------------- vertex groups


def deform_group_indices(obj, subset="BONE_DEFORM"):
    """Indices of the vertex groups that act as joints.

    subset 'ALL': every group; 'BONE_DEFORM': groups named like a deforming bone of an armature that an
    Armature modifier of obj uses (all groups when obj has no such armature)."""
    groups = list(obj.vertex_groups)
    if subset == "ALL":
        return [g.index for g in groups]
    bones = set()
    for mod in obj.modifiers:
        if mod.type == "ARMATURE" and mod.object is not None and mod.object.type == "ARMATURE":
            bones.update(b.name for b in mod.object.data.bones if b.use_deform)
    if not bones and obj.parent is not None and obj.parent.type == "ARMATURE":
        bones.update(b.name for b in obj.parent.data.bones if b.use_deform)
    if not bones:
        return [g.index for g in groups]
    return [g.index for g in groups if g.name in bones]


def vertex_groups_to_csr(obj, group_indices=None):
    """CSR weights of obj's vertex groups: (offsets uint32[V+1], joints uint32[N], weights float32[N]) where
    joint k is group_indices[k] (default: every group, joint = group index). Groups outside the list are
    ignored. Entries keep Blender's per-vertex order."""
    mesh = obj.data
    if group_indices is None:
        group_indices = [g.index for g in obj.vertex_groups]
    remap = {int(g): k for k, g in enumerate(group_indices)}
    counts = np.zeros(len(mesh.vertices), np.uint32)
    joints, weights = [], []
    for v in mesh.vertices:
        n = 0
        for ge in v.groups:
            k = remap.get(ge.group)
            if k is not None:
                joints.append(k)
                weights.append(ge.weight)
                n += 1
        counts[v.index] = n
    offsets = np.zeros(len(mesh.vertices) + 1, np.uint32)
    np.cumsum(counts, out=offsets[1:])
    return offsets, np.array(joints, np.uint32), np.array(weights, np.float32)


def csr_to_vertex_groups(obj, offsets, joints, weights, group_indices=None, mask=None):
    """Writes CSR weights back into vertex groups, replacing the memberships of the listed groups for the
    vertices in mask (all vertices when None). Zero weights are written as memberships of weight 0 only if
    present in the CSR. Returns the number of VertexGroup.add calls (one per distinct (group, weight))."""
    if group_indices is None:
        group_indices = [g.index for g in obj.vertex_groups]
    groups = [obj.vertex_groups[int(g)] for g in group_indices]
    offsets = np.asarray(offsets, np.int64)
    joints = np.asarray(joints, np.int64)
    weights = np.asarray(weights, np.float32)
    nverts = offsets.size - 1
    if nverts != len(obj.data.vertices):
        raise ValueError("CSR has %d vertices, mesh %s has %d" % (nverts, obj.name, len(obj.data.vertices)))
    if joints.size and (joints.min() < 0 or joints.max() >= len(groups)):
        raise ValueError("CSR joint index outside the %d written groups" % len(groups))
    verts = np.repeat(np.arange(nverts, dtype=np.int64), np.diff(offsets))
    if mask is None:
        touched = np.arange(nverts)
    else:
        sel = np.asarray(mask, bool)
        touched = np.nonzero(sel)[0]
        keep = sel[verts]
        verts, joints, weights = verts[keep], joints[keep], weights[keep]
    touched_list = touched.tolist()
    for g in groups:
        g.remove(touched_list)
    calls = 0
    if verts.size:
        order = np.lexsort((verts, weights, joints))
        j, w, v = joints[order], weights[order], verts[order]
        brk = np.nonzero((j[1:] != j[:-1]) | (w[1:] != w[:-1]))[0] + 1
        starts = np.concatenate(([0], brk))
        ends = np.concatenate((brk, [j.size]))
        for s, e in zip(starts.tolist(), ends.tolist()):
            groups[int(j[s])].add(v[s:e].tolist(), float(w[s]), "REPLACE")
            calls += 1
    obj.data.update()
    return calls


# ------------------------------------------------------------------------------------------- armatures


def _np_matrix(m):
    return np.array([list(row) for row in m], np.float32)


def armature_bones(arm_obj, deform_only=False):
    """Bones of an armature object with parents before children (Blender's order is usually that already)."""
    bones = [b for b in arm_obj.data.bones if b.use_deform or not deform_only]
    index = {b.name: i for i, b in enumerate(bones)}
    done, order = set(), []

    def visit(b):
        if b.name in done:
            return
        if b.parent is not None and b.parent.name in index:
            visit(b.parent)
        done.add(b.name)
        order.append(b)

    for b in bones:
        visit(b)
    return order


def _space_matrix(arm_obj, space_obj):
    """Matrix from the armature's object space into space_obj's object space (world when None)."""
    m = _np_matrix(arm_obj.matrix_world)
    if space_obj is not None:
        m = np.linalg.inv(_np_matrix(space_obj.matrix_world).astype(np.float64)).astype(np.float32) @ m
    return m


def armature_to_skeleton_arrays(arm_obj, space_obj=None, deform_only=False):
    """(names, parents int32[J], rest_world (J, 4, 4)) of an armature. rest_world = space^-1 * armature
    object matrix * bone.matrix_local, i.e. rest matrices in space_obj's object space (world when None)."""
    bones = armature_bones(arm_obj, deform_only)
    index = {b.name: i for i, b in enumerate(bones)}
    names = [b.name for b in bones]
    parents = np.array([index.get(b.parent.name, -1) if b.parent is not None else -1 for b in bones], np.int32)
    space = _space_matrix(arm_obj, space_obj)
    rest = np.stack([space @ _np_matrix(b.matrix_local) for b in bones]) if bones else np.zeros((0, 4, 4), np.float32)
    return names, parents, rest


def rest_local_from_world(parents, world):
    """Local rest matrices (parent^-1 * world) from world matrices."""
    world = np.asarray(world, np.float64)
    local = world.copy()
    for j, p in enumerate(parents):
        if p >= 0:
            local[j] = np.linalg.inv(world[p]) @ world[j]
    return local.astype(np.float32)


def armature_to_skeleton(arm_obj, space_obj=None, deform_only=False):
    """api.Skeleton of an armature in space_obj's object space (see armature_to_skeleton_arrays); its bind
    matrices are the rest matrices, so the skeleton's palette maps the mesh like Blender's Armature modifier."""
    from . import api

    names, parents, rest = armature_to_skeleton_arrays(arm_obj, space_obj, deform_only)
    return api.Skeleton(names, parents, rest_local=rest_local_from_world(parents, rest), bind=rest)


def armature_pose_world(arm_obj, space_obj=None, deform_only=False):
    """(J, 4, 4) posed bone matrices (pose_bone.matrix) in space_obj's object space, in armature_bones order."""
    space = _space_matrix(arm_obj, space_obj)
    bones = armature_bones(arm_obj, deform_only)
    return np.stack([space @ _np_matrix(arm_obj.pose.bones[b.name].matrix) for b in bones])
