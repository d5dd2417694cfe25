"""bpy <-> numpy: meshes, vertex groups (CSR), armatures (skeletons), and the conversions of the file operators
(meshes and armatures built from a library scene, CSR merging/remapping). No operators or UI here; the pure numpy
helpers (merge_csr_duplicates, csr_take, bone_layout) need no Blender (tests/addon/test_bridge.py).

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


# ------------------------------------------------------------------------------------------- scenes (import/export)


def merge_csr_duplicates(offsets, joints, weights):
    """CSR with the repeated (vertex, joint) entries of a file summed into one (Blender holds one weight per vertex
    and group). Entries come out sorted by joint within each vertex."""
    off = np.asarray(offsets, np.int64)
    jt = np.asarray(joints, np.int64)
    wt = np.asarray(weights, np.float64)
    nverts = off.size - 1
    verts = np.repeat(np.arange(nverts, dtype=np.int64), np.diff(off))
    if not jt.size:
        return off.astype(np.uint32), jt.astype(np.uint32), wt.astype(np.float32)
    key = verts * (int(jt.max()) + 1) + jt
    uniq, inv = np.unique(key, return_inverse=True)
    summed = np.bincount(inv, weights=wt, minlength=uniq.size)
    width = int(jt.max()) + 1
    uv, uj = uniq // width, uniq % width
    new_off = np.zeros(nverts + 1, np.int64)
    np.cumsum(np.bincount(uv, minlength=nverts), out=new_off[1:])
    return new_off.astype(np.uint32), uj.astype(np.uint32), summed.astype(np.float32)


def csr_take(offsets, joints, weights, src):
    """CSR whose vertex k holds the entries of vertex src[k] (vertices split or reordered for an export)."""
    off = np.asarray(offsets, np.int64)
    src = np.asarray(src, np.int64)
    counts = off[src + 1] - off[src]
    new_off = np.zeros(src.size + 1, np.int64)
    np.cumsum(counts, out=new_off[1:])
    if new_off[-1] == 0:
        return new_off.astype(np.uint32), np.zeros(0, np.uint32), np.zeros(0, np.float32)
    starts = np.repeat(off[src], counts)
    within = np.arange(new_off[-1]) - np.repeat(new_off[:-1], counts)
    idx = starts + within
    return new_off.astype(np.uint32), np.asarray(joints)[idx], np.asarray(weights)[idx]


def mesh_from_arrays(name, positions, triangles, uv=None, normals=None):
    """New bpy mesh from (V, 3) positions, (T, 3) triangles, optional per-vertex (V, 2) UVs (one layer "UVMap")
    and (V, 3) normals (set as custom split normals). Vertices are kept one to one (none merged or removed);
    faces Blender cannot hold (a vertex twice) are dropped by Mesh.validate."""
    import bpy

    pos = np.ascontiguousarray(positions, np.float32).reshape(-1, 3)
    tri = np.ascontiguousarray(triangles, np.int64).reshape(-1, 3)
    if tri.size and (tri.min() < 0 or tri.max() >= len(pos)):
        raise ValueError("mesh %s: triangle index outside its %d vertices" % (name, len(pos)))
    keep = (tri[:, 0] != tri[:, 1]) & (tri[:, 1] != tri[:, 2]) & (tri[:, 0] != tri[:, 2])
    tri = tri[keep]
    me = bpy.data.meshes.new(name)
    me.vertices.add(len(pos))
    me.vertices.foreach_set("co", pos.reshape(-1))
    loops = tri.reshape(-1).astype(np.int32)
    me.loops.add(loops.size)
    me.loops.foreach_set("vertex_index", loops)
    me.polygons.add(len(tri))
    me.polygons.foreach_set("loop_start", np.arange(0, loops.size, 3, dtype=np.int32))
    me.polygons.foreach_set("loop_total", np.full(len(tri), 3, np.int32))
    if uv is not None and len(tri):
        uvs = np.ascontiguousarray(uv, np.float32).reshape(-1, 2)
        layer = me.uv_layers.new(name="UVMap")
        layer.data.foreach_set("uv", uvs[loops].reshape(-1))
    me.update(calc_edges=True)
    me.validate(clean_customdata=False)
    if normals is not None and len(me.loops):
        nrm = np.ascontiguousarray(normals, np.float32).reshape(-1, 3)
        if hasattr(me, "use_auto_smooth"):  # Blender < 4.1: custom normals need auto smooth
            me.use_auto_smooth = True
        me.normals_split_custom_set_from_vertices([tuple(n) for n in nrm.tolist()])
    return me


def _children(parents):
    kids = [[] for _ in parents]
    for j, p in enumerate(parents):
        if p >= 0:
            kids[int(p)].append(j)
    return kids


def bone_layout(parents, matrices, min_length=None):
    """(heads (J, 3), tails (J, 3), z axes (J, 3)) of Blender bones for joint world matrices (J, 4, 4): head = the
    matrix origin; tail toward the only child, or toward the child nearest the joint's +Y axis; a leaf (or a joint
    whose children sit on its head) points along its own +Y axis with half its parent's length. The z axis
    (for the roll) is the matrix's third column. Every bone gets at least min_length (Blender deletes zero-length
    bones; default 1e-3 of the skeleton's extent, at least 1e-4)."""
    m = np.asarray(matrices, np.float64)
    n = len(parents)
    heads = m[:, :3, 3].copy()
    extent = float(np.ptp(heads, axis=0).max()) if n > 1 else 0.0
    if min_length is None:
        min_length = max(1e-3 * extent, 1e-4)
    default_len = max(0.05 * extent, 10 * min_length)
    yaxis = m[:, :3, 1]
    ylen = np.linalg.norm(yaxis, axis=1)
    ydir = np.where(ylen[:, None] > 1e-12, yaxis / np.maximum(ylen, 1e-12)[:, None], [0.0, 0.0, 1.0])
    kids = _children(parents)
    tails = np.zeros_like(heads)
    lengths = np.zeros(n)
    for j in range(n):  # parents come first: a leaf can use its parent's length
        best = None
        for c in kids[j]:
            d = heads[c] - heads[j]
            dist = float(np.linalg.norm(d))
            if dist <= min_length:
                continue
            score = float(np.dot(d / dist, ydir[j]))
            if best is None or score > best[0]:
                best = (score, d, dist)
        if best is not None and (len(kids[j]) == 1 or best[0] > 0.0):
            tails[j] = heads[j] + best[1]
            lengths[j] = best[2]
            continue
        p = int(parents[j])
        length = 0.5 * lengths[p] if p >= 0 and lengths[p] > 0 else default_len
        length = max(length, min_length)
        tails[j] = heads[j] + ydir[j] * length
        lengths[j] = length
    zaxis = m[:, :3, 2]
    return heads.astype(np.float32), tails.astype(np.float32), zaxis.astype(np.float32)


def armature_from_skeleton(name, names, parents, bind_world, pose_world=None):
    """New armature object (linked to the active collection) whose edit bones sit at the joint world matrices
    bind_world (J, 4, 4; heads, tails and rolls from bone_layout, parents from `parents`). pose_world (J, 4, 4),
    optional: the pose bones are set so that each joint frame moves from bind_world[j] to pose_world[j] (posed bone
    matrix = pose_world[j] * bind_world[j]^-1 * bone.matrix_local), which skins a mesh bound at bind_world exactly
    like the file's LBS (used for a file whose rest pose differs from its bind pose). Leaves Object mode active.
    Returns (the object, the bone names as Blender stored them)."""
    import bpy
    from mathutils import Matrix, Vector

    heads, tails, zaxis = bone_layout(parents, bind_world)
    arm = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, arm)
    bpy.context.collection.objects.link(obj)
    prev_active = bpy.context.view_layer.objects.active
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    try:
        ebs = []
        for j, nm in enumerate(names):
            eb = arm.edit_bones.new(nm)
            eb.head = Vector(heads[j].tolist())
            eb.tail = Vector(tails[j].tolist())
            if float(np.linalg.norm(zaxis[j])) > 1e-12:
                eb.align_roll(Vector(zaxis[j].tolist()))
            ebs.append(eb)
        for j, p in enumerate(parents):
            if p >= 0:
                ebs[j].parent = ebs[int(p)]
        # edit bones may rename on clashes with Blender's limits (63 bytes): keep the final names
        final = [eb.name for eb in ebs]
    finally:
        bpy.ops.object.mode_set(mode="OBJECT")
    if pose_world is not None:
        bind = np.asarray(bind_world, np.float64)
        pose = np.asarray(pose_world, np.float64)
        rest = np.stack([np.array(arm.bones[nm].matrix_local, np.float64) for nm in final])
        # posed bone matrix P_j = pose_j * bind_j^-1 * rest_j (the bone frame moved with its joint)
        posed = np.einsum("jab,jbc,jcd->jad", pose, np.linalg.inv(bind), rest)
        for j, nm in enumerate(final):
            p = int(parents[j])
            if p >= 0:
                local_rest = np.linalg.inv(rest[p]) @ rest[j]
                basis = np.linalg.inv(local_rest) @ np.linalg.inv(posed[p]) @ posed[j]
            else:
                basis = np.linalg.inv(rest[j]) @ posed[j]
            obj.pose.bones[nm].matrix_basis = Matrix(basis.tolist())
    bpy.context.view_layer.objects.active = prev_active if prev_active is not None else obj
    return obj, final


def mesh_armature(obj):
    """The armature object deforming obj: its first Armature modifier's object, else an armature parent, else None."""
    for mod in obj.modifiers:
        if mod.type == "ARMATURE" and mod.object is not None and mod.object.type == "ARMATURE":
            return mod.object
    if obj.parent is not None and obj.parent.type == "ARMATURE":
        return obj.parent
    return None


def vertex_groups_to_bone_csr(obj, bone_names):
    """CSR weights of obj over the bones (joint j = bone_names[j]); groups not named after a bone are ignored.
    Returns (offsets, joints, weights, ignored group names)."""
    index = {n: j for j, n in enumerate(bone_names)}
    groups = [g.index for g in obj.vertex_groups if g.name in index]
    ignored = [g.name for g in obj.vertex_groups if g.name not in index]
    joint_of = np.array([index[obj.vertex_groups[g].name] for g in groups], np.uint32)
    off, jt, wt = vertex_groups_to_csr(obj, groups)
    return off, (joint_of[jt] if jt.size else jt), wt, ignored

