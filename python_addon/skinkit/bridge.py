"""bpy <-> numpy: meshes, vertex groups (CSR), armatures (skeletons), and the conversions of the file operators
(meshes and armatures built from a library scene, CSR merging/remapping). No operators or UI here; the pure numpy
helpers (merge_csr_duplicates, csr_take, bone_layout) need no Blender (tests/addon/test_bridge.py).

Bulk data moves with foreach_get/foreach_set. Blender (3.4 .. 4.x) has no foreach reader or writer for vertex
groups, so they go through a throw-away Geometry Nodes modifier, which sees every vertex group as a float point
attribute: reading copies each group into a generic attribute of the evaluated mesh (foreach_get, one dense
float32 array per group); writing stores generic attributes (foreach_set) into the groups and applies the
modifier. Where that cannot run (shape keys block modifier_apply, no Geometry Nodes, a mismatched evaluated mesh)
or costs more (few distinct weights), vertex groups are written in batches - one VertexGroup.add(indices, weight,
'REPLACE') per distinct (group, weight value) - and read vertex by vertex. docs/addon.md has the measurements.
"""

import os

import numpy as np

# ------------------------------------------------------------------------------------------- meshes

_INT_DTYPES = {}


def int_dtype(struct, prop):
    """The numpy dtype foreach_get/foreach_set copy the integer property prop of bpy.types.<struct> with in one
    block: uint32 for an UNSIGNED-subtype property (indices, counts), int32 otherwise. With the other signedness
    Blender falls back to one Python object per item (Blender 3.4, CesiumMan's 14,016 loops: MeshLoop.vertex_index
    into int32 1.1 ms, into uint32 0.09 ms)."""
    dt = _INT_DTYPES.get((struct, prop))
    if dt is None:
        import bpy

        unsigned = getattr(bpy.types, struct).bl_rna.properties[prop].subtype == "UNSIGNED"
        dt = _INT_DTYPES[(struct, prop)] = np.uint32 if unsigned else np.int32
    return dt


def get_ints(coll, struct, prop, count):
    """foreach_get of an integer property into a new array of int_dtype (count values)."""
    out = np.empty(count, int_dtype(struct, prop))
    coll.foreach_get(prop, out)
    return out


def set_ints(coll, struct, prop, values):
    """foreach_set of an integer property from values (non-negative where the property is unsigned)."""
    coll.foreach_set(prop, np.ascontiguousarray(values, int_dtype(struct, prop)).reshape(-1))


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


def loop_normals(mesh):
    """(L, 3) float32 normals of the mesh's face corners as Blender shades them: flat faces, sharp edges, Auto Smooth
    and custom normals (Blender 3.4: calc_normals_split and MeshLoop.normal; 4.1+: Mesh.corner_normals)."""
    out = np.empty(len(mesh.loops) * 3, np.float32)
    coll = getattr(mesh, "corner_normals", None)
    if coll is not None and len(coll) == len(mesh.loops):
        coll.foreach_get("vector", out)
    else:
        mesh.calc_normals_split()
        mesh.loops.foreach_get("normal", out)
    return out.reshape(-1, 3)


def mesh_triangles(mesh):
    """(T, 3) uint32 vertex indices of the loop triangles."""
    mesh.calc_loop_triangles()
    tris = mesh.loop_triangles
    return get_ints(tris, "MeshLoopTriangle", "vertices", len(tris) * 3).reshape(-1, 3).astype(np.uint32, copy=False)


def mesh_edge_triangles(mesh):
    """(E, 3) uint32: each mesh edge (a, b) as the degenerate triangle (a, b, b), which the library's smoothing takes as
    the one edge a-b: the mesh's own edges, quads' and n-gons' sides and loose edges, as Blender's tools walk them."""
    ev = get_ints(mesh.edges, "MeshEdge", "vertices", len(mesh.edges) * 2).reshape(-1, 2).astype(np.uint32)
    return np.ascontiguousarray(np.column_stack((ev, ev[:, 1])))


def selected_vertex_mask(mesh):
    """uint8[V]: 1 for selected vertices (the Weight Paint vertex-selection mask)."""
    sel = np.zeros(len(mesh.vertices), bool)
    mesh.vertices.foreach_get("select", sel)
    return sel.astype(np.uint8)


def selected_face_vertex_mask(mesh):
    """uint8[V]: 1 for the vertices of selected faces (the Weight Paint face-selection mask)."""
    out = np.zeros(len(mesh.vertices), np.uint8)
    if not len(mesh.polygons):
        return out
    fsel = np.zeros(len(mesh.polygons), bool)
    mesh.polygons.foreach_get("select", fsel)
    counts = get_ints(mesh.polygons, "MeshPolygon", "loop_total", len(mesh.polygons))
    lv = get_ints(mesh.loops, "MeshLoop", "vertex_index", len(mesh.loops))
    out[lv[np.repeat(fsel, counts)]] = 1
    return out


def select_vertices(mesh, mask):
    """Selects exactly the vertices where mask is true (edges/faces follow)."""
    m = np.asarray(mask, bool)
    mesh.vertices.foreach_set("select", m)
    if len(mesh.edges):
        ev = get_ints(mesh.edges, "MeshEdge", "vertices", len(mesh.edges) * 2)
        mesh.edges.foreach_set("select", m[ev.reshape(-1, 2)].all(axis=1))
    if len(mesh.polygons):
        lv = get_ints(mesh.loops, "MeshLoop", "vertex_index", len(mesh.loops))
        starts = get_ints(mesh.polygons, "MeshPolygon", "loop_start", len(mesh.polygons)).astype(np.int64)
        all_sel = np.minimum.reduceat(m[lv].astype(np.int8), starts) if len(lv) else np.zeros(0, np.int8)
        mesh.polygons.foreach_set("select", all_sel.astype(bool))
    mesh.update()


# ------------------------------------------------------------------------------------------- vertex groups


def deform_group_indices(obj, subset="BONE_DEFORM"):
    """Indices of the vertex groups that act as joints.

    subset 'ALL': every group; 'BONE_DEFORM': groups named like a deforming bone of an armature that an
    Armature modifier of obj uses (all groups when obj has no such armature); 'BONE_SELECT': groups named like a
    selected bone of obj's armature (mesh_armature; none without one), deforming or not, as Blender's Selected Pose
    Bones."""
    if subset == "ALL":  # a group's index is its place in the list
        return list(range(len(obj.vertex_groups)))
    groups = list(obj.vertex_groups)
    if subset == "BONE_SELECT":
        arm = mesh_armature(obj)
        sel = {b.name for b in arm.data.bones if b.select} if arm is not None else set()
        return [g.index for g in groups if g.name in sel]
    bones = set()
    for mod in obj.modifiers:
        if mod.type == "ARMATURE" and mod.object is not None and mod.object.type == "ARMATURE":
            bones.update(b.name for b in mod.object.data.bones if b.use_deform)
    if not bones and obj.parent is not None and obj.parent.type == "ARMATURE":
        bones.update(b.name for b in obj.parent.data.bones if b.use_deform)
    if not bones:
        return [g.index for g in groups]
    return [g.index for g in groups if g.name in bones]


# Batches of VertexGroup.add above which the Geometry Nodes writer is faster (measured in Blender 3.4: an add
# call costs ~15 us, the node writer ~50 ms plus ~1 ms per group on 92k vertices; docs/addon.md).
GN_WRITE_MIN_BATCHES = 4000
# Which vertex-group paths run: "auto" (in place where it can, else Geometry Nodes where it pays, see above),
# "direct" (in place only), "indirect" (auto without the in-place path), "gn", or "loop" (vertex loop and batched
# adds); env SKINKIT_BRIDGE overrides, for the benchmark.
BRIDGE_PATH = os.environ.get("SKINKIT_BRIDGE", "auto")
# Statistics of the last read/write ("direct", "gn" or "loop"/"add"/"diff"), for the benchmark and the tests.
LAST_PATH = {"read": None, "write": None}

# ------------------------------------------------------------------------------------------- groups in place
# Blender keeps a mesh's vertex groups as one MDeformVert record per vertex ({MDeformWeight *dw; int totweight;
# int flag}, 16 bytes) pointing at {uint def_nr; float weight} pairs - a layout unchanged since 2.5. Python has no
# bulk access to them, and reading them through a scene evaluation (the Geometry Nodes path) tags the object, so
# the update after the operator re-evaluates its modifiers even when nothing changed (docs/addon.md). The record
# array is found here without trusting any struct layout: VertexGroupElement.as_pointer() gives the address of
# a vertex's first pair, so the array is the address P at which the records of sample vertices hold exactly those
# addresses and counts; P is looked for among the pointers in the Mesh struct and one level below (the vertex
# CustomData's layer array), every read going through /proc/self/mem, which fails with an error, never a crash,
# on an unmapped address. The library then reads (sk_records_read) or edits (sk_records_update) the records.

_RECORD = 16  # sizeof(MDeformVert) on 64-bit
_SAMPLES = 16  # vertices whose records identify the array when the path to it is looked for
_CHECKS = 4  # and that confirm the path found before on another call (the pointer, the count: 12 bytes each)
_MEM = {}     # "fd": /proc/self/mem, "path": (offset in Mesh, offset in the block it points to or None), "state"


def _mem_fd():
    import sys

    if "fd" not in _MEM:
        ok = sys.platform.startswith("linux") and sys.byteorder == "little" and np.dtype(np.intp).itemsize == 8
        try:
            _MEM["fd"] = os.open("/proc/self/mem", os.O_RDONLY) if ok else None
        except OSError:
            _MEM["fd"] = None
    return _MEM["fd"]


def _peek(addr, n):
    """n bytes at addr of this process, or None where they are not mapped."""
    if not 0x10000 <= addr < 1 << 47:
        return None
    try:
        b = os.pread(_mem_fd(), n, addr)
    except OSError:
        return None
    return b if len(b) == n else None


def _word(block, off):
    return int.from_bytes(block[off:off + 8], "little")


def _record_samples(mesh, quick=False, count=_SAMPLES):
    """[(vertex, address of its first MDeformWeight, count)] of up to count vertices with groups, spread over the
    mesh and including the last one that has any; [] when no vertex has a group (quick: when none of the
    4 * count + 64 vertices probed has one; sparse weights elsewhere are possible)."""
    verts = mesh.vertices
    n = len(verts)
    if not n:
        return []
    picks = [(n - 1) * k // (4 * count - 1) for k in range(4 * count)]  # spread evenly, ends included
    out = []
    # every fourth pick first (spread over the mesh), the others only where those lack groups: a skinned mesh's
    # samples then cost count lookups, not 4 * count (each a few microseconds of RNA)
    for i in dict.fromkeys(picks[::4] + picks):
        g = verts[i].groups
        if len(g):
            out.append((i, g[0].as_pointer(), len(g)))
            if len(out) == count - 1:
                break
    for i in range(n - 1, -1, -1):  # the array must reach the end: a sample near it
        g = verts[i].groups
        if len(g):
            return out + [(i, g[0].as_pointer(), len(g))]
        if i < n - 64 and (out or quick):
            break
    return out


def _holds_samples(p, samples):
    for i, dw, count in samples:
        b = _peek(p + _RECORD * i, 12)
        if b is None or b != dw.to_bytes(8, "little") + count.to_bytes(4, "little"):
            return False
    return True


def _follow(base, path):
    blk = _peek(base + path[0], 8)
    p = blk and _word(blk, 0)
    if p and path[1] is not None:
        blk = _peek(p + path[1], 8)
        p = blk and _word(blk, 0)
    return p


def _search_records(base, samples):
    """(address, path) of the record array among the pointers of the Mesh struct at base and of the blocks they
    point to, or (None, None)."""
    blk = _peek(base, 2048) or _peek(base, 1024)
    for off in range(0, len(blk or b""), 8):
        p = _word(blk, off)
        if p % 8 or _peek(p, 8) is None:
            continue
        if _holds_samples(p, samples):
            return p, (off, None)
        sub = _peek(p, 1024)
        for o2 in range(0, len(sub or b""), 8):
            q = _word(sub, o2)
            if q % 8 == 0 and _holds_samples(q, samples):
                return q, (off, o2)
    return None, None


def mesh_records(obj, quick=False, lib=None):
    """(address of obj's MDeformVert array or 0 when no vertex has a group, vertex count), or None when the groups
    cannot be reached in place (Edit Mode, no /proc/self/mem, a library without sk_records_read). quick: 0 may
    also mean that no group was found without a scan of every vertex (see _record_samples). lib: api.library(),
    when the caller has it."""
    mesh = obj.data
    # Object and Weight Paint Mode only: Edit Mode (and dynamic-topology Sculpt) keep the mesh in a BMesh meanwhile
    if BRIDGE_PATH not in ("auto", "direct") or obj.mode not in ("OBJECT", "WEIGHT_PAINT") or mesh.is_editmode \
            or not _mem_fd():
        return None
    if lib is None:
        from . import api

        lib = api.library()
    if not lib.has("sk_records_read"):
        return None
    path = _MEM.get("path")
    p = _follow(mesh.as_pointer(), path) if path else None
    if p:  # the path found before: _CHECKS samples confirm it (each costs a page lookup in the kernel)
        samples = _record_samples(mesh, quick, _CHECKS)
        if not samples:
            return 0, len(mesh.vertices)
        if _holds_samples(p, samples):
            return p, len(mesh.vertices)
    samples = _record_samples(mesh, quick)
    if not samples:
        return 0, len(mesh.vertices)
    p, path = _search_records(mesh.as_pointer(), samples)
    if p is None:
        return None
    _MEM["path"] = path
    return p, len(mesh.vertices)


def records_writable(obj):
    """Whether the records may be edited in place: before Blender 3.6 a mesh's arrays belong to it alone (3.6's
    implicit sharing lets the evaluated mesh and undo steps share them)."""
    import bpy

    if bpy.app.version >= (3, 6) or BRIDGE_PATH not in ("auto", "direct"):
        return False
    mesh = obj.data
    # linked data: Blender's API refuses, as it should
    return mesh.is_editable if hasattr(mesh, "is_editable") else mesh.library is None


_GROUP_MAPS = {}  # (group count, listed groups) -> the map: the last few, read-only (the library takes a const map)


def _group_map(obj, group_indices):
    """int32 per vertex group of obj: the joint (place in group_indices) it maps to, or -1. Don't modify it."""
    key = (len(obj.vertex_groups), tuple(group_indices))
    gmap = _GROUP_MAPS.get(key)
    if gmap is None:
        gmap = np.full(max(key[0], 1), -1, np.int32)
        gmap[np.asarray(group_indices, np.int64)] = np.arange(len(group_indices), dtype=np.int32)
        gmap.flags.writeable = False
        if len(_GROUP_MAPS) >= 8:
            _GROUP_MAPS.clear()
        _GROUP_MAPS[key] = gmap
    return gmap


def _read_records(obj, group_indices):
    """CSR of the listed groups read in place (Blender's per-vertex order, zero memberships kept), or None."""
    from . import api

    where = mesh_records(obj)
    if where is None:
        return None
    addr, nverts = where
    if not addr:
        return np.zeros(nverts + 1, np.uint32), np.zeros(0, np.uint32), np.zeros(0, np.float32)
    return api.records_read(addr, nverts, _group_map(obj, group_indices))


def _write_records(obj, after, group_indices, mask, new_groups=()):
    """Makes the listed groups of the vertices in mask (all when None) hold exactly `after` (CSR over
    group_indices; a zero weight is a membership of weight 0), in place: sk_records_update rewrites weights and
    removes memberships; the vertices whose membership set must grow (or empty: Blender then frees the array) get
    their memberships from Blender first - one VertexGroup.remove and one VertexGroup.add(weight 0) per group that
    differs, for those vertices only - and their weights in place after. new_groups: the listed groups the caller
    has just created (no member yet, so nothing to remove from them). Returns the number of such calls, or None
    when the groups cannot be written in place (nothing done)."""
    from . import api

    where = records_writable(obj) and mesh_records(obj, quick=True)
    if not where:
        return None
    addr, nverts = where
    gmap = _group_map(obj, group_indices)
    if addr:
        deferred, changed = api.records_update(addr, nverts, gmap, *after, mask=mask)
    else:  # no group found in a quick look (Blender may not even have the records): every vertex through the API
        deferred, changed = (np.ones(nverts, bool) if mask is None else np.asarray(mask, bool).copy()), 0
    calls = 0
    if deferred.any():
        before = _read_records(obj, group_indices) if addr else None
        calls = _set_memberships(obj, before, after, group_indices, deferred, new_groups)
        addr, nverts = mesh_records(obj, quick=True) or (0, nverts)
        if addr:
            left, more = api.records_update(addr, nverts, gmap, *after, mask=deferred)
            changed += more
            if left.any():
                raise RuntimeError("%s: %d vertices kept other vertex groups than written"
                                   % (obj.name, int(np.count_nonzero(left))))
    LAST_PATH["deferred"] = int(np.count_nonzero(deferred))
    if changed or calls:
        _tag_written(obj)
    return calls


def _tag_written(obj):
    """What Blender's own weight tools tag after editing groups (Mesh.update() would also mark the normals dirty)."""
    obj.update_tag(refresh={"DATA"})
    if obj.data.users > 1:  # the other objects using the mesh see the change too
        obj.data.update_tag()


def edit_records(obj, group_indices, op, mask=None, locked=None, no_change=0.0, writable=False, **params):
    """Runs a weight operation (api.records_edit: normalize, limit, prune, quantize, round) over the listed groups
    straight in Blender's records, one library call: (report dict, deferred bool[V] or None when none is) - the
    deferred vertices need a new membership or lose every one, so they were left untouched for the caller's general
    path - or None when the groups cannot be edited in place (nothing done). writable: the caller has seen
    records_writable(obj) true."""
    from . import api

    lib = api.library()
    if BRIDGE_PATH not in ("auto", "direct") or not lib.has("sk_records_edit"):
        return None
    where = (writable or records_writable(obj)) and mesh_records(obj, lib=lib)
    if not where or not where[0]:
        return None
    addr, nverts = where
    rep, state = api.records_edit(addr, nverts, _group_map(obj, group_indices), op, mask=mask, locked=locked,
                                  no_change=no_change, state=_state_buffer(nverts), flags=False, lib=lib, **params)
    LAST_PATH["read"] = LAST_PATH["write"] = "direct"
    ndef = rep["vertices_deferred"]
    LAST_PATH["deferred"] = ndef
    if rep["vertices_changed"] > ndef:  # the changed count includes the deferred vertices: some record was written
        _tag_written(obj)
    return rep, (state == 2 if ndef else None)


def _state_buffer(n):
    """edit_records' per-vertex state array, kept between calls (a fresh one per call costs page faults)."""
    buf = _MEM.get("state")
    if buf is None or buf.size < n:
        buf = _MEM["state"] = np.zeros(max(n, 1), np.uint8)
    return buf


def _write_in_place(obj, csr, group_indices, mask, path, new_groups=()):
    """_write_records when path and BRIDGE_PATH allow it: its call count, or None to go on with the other writers
    (path "direct" raises instead)."""
    if path not in (None, "direct") or BRIDGE_PATH not in ("auto", "direct"):
        return None
    calls = _write_records(obj, csr, group_indices, mask, new_groups)
    if calls is not None:
        LAST_PATH["write"] = "direct"
    elif path == "direct":
        raise RuntimeError("%s: vertex groups cannot be written in place" % obj.name)
    return calls


def _set_memberships(obj, before, after, group_indices, verts, new_groups=()):
    """Gives the vertices in verts (bool[V]) the memberships `after` lists among the listed groups and no others
    (`before`: the memberships they have, None when unknown), through Blender's API: per group one remove and one
    add of weight 0, each for the vertices that differ (unknown: a remove of every vertex in verts, except from the
    new_groups, which have no member). Returns the number of calls."""
    groups = [obj.vertex_groups[int(g)] for g in group_indices]
    ng = max(len(groups), 1)
    k1 = _csr_keys(*after, ng, verts)[0]
    calls = 0
    if before is None:
        calls = _remove_members(groups, group_indices, np.flatnonzero(verts).tolist(), new_groups)
        k0 = k1[:0]
    else:
        k0 = _csr_keys(*before, ng, verts)[0]
    for k, vs in _per_group(k0[~_in_sorted(k0, k1)[0]], ng):
        groups[k].remove(vs)
        calls += 1
    for k, vs in _per_group(k1[~_in_sorted(k1, k0)[0]], ng):
        groups[k].add(vs, 0.0, "REPLACE")
        calls += 1
    return calls


def _remove_members(groups, group_indices, vertices, new_groups):
    """VertexGroup.remove(vertices) on each of groups (indices group_indices) but the new_groups, which the caller
    has just created and so have no member. Returns the number of calls."""
    new = {int(g) for g in new_groups}
    calls = 0
    for gi, g in zip(group_indices, groups):
        if int(gi) not in new:
            g.remove(vertices)
            calls += 1
    return calls


def _per_group(keys, ng):
    """(group position, ascending vertex list) for each group among (vertex * ng + group) keys."""
    if not keys.size:
        return
    j, v = keys % ng, keys // ng
    order = np.argsort(j, kind="stable")
    j, v = j[order], v[order]
    cuts = np.flatnonzero(np.diff(j)) + 1
    for lo, hi in zip(np.concatenate(([0], cuts)).tolist(), np.concatenate((cuts, [j.size])).tolist()):
        yield int(j[lo]), v[lo:hi].tolist()


def _node_tree(name, pairs):
    """A Geometry Nodes tree copying, for each (src, dst) in pairs, the float point attribute src into dst
    (Named Attribute -> Store Named Attribute, chained)."""
    import bpy

    tree = bpy.data.node_groups.new(name, "GeometryNodeTree")
    gin, gout = tree.nodes.new("NodeGroupInput"), tree.nodes.new("NodeGroupOutput")
    if hasattr(tree, "interface"):  # Blender 4.0+
        tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
        tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    else:
        tree.inputs.new("NodeSocketGeometry", "Geometry")
        tree.outputs.new("NodeSocketGeometry", "Geometry")
    prev = gin.outputs[0]
    for src, dst in pairs:
        get = tree.nodes.new("GeometryNodeInputNamedAttribute")
        get.data_type = "FLOAT"
        get.inputs[0].default_value = src
        put = tree.nodes.new("GeometryNodeStoreNamedAttribute")
        put.data_type, put.domain = "FLOAT", "POINT"
        put.inputs["Name"].default_value = dst
        tree.links.new(prev, put.inputs["Geometry"])
        tree.links.new(_socket(get.outputs, "VALUE"), _socket(put.inputs, "VALUE", "Value"))
        prev = put.outputs[0]
    tree.links.new(prev, gout.inputs[0])
    return tree


def _socket(sockets, kind, name=None):
    return next(s for s in sockets if s.type == kind and (name is None or s.name == name) and s.enabled)


class _Muted:
    """Context: obj's other modifiers hidden from the viewport evaluation (the evaluated mesh keeps obj.data's
    vertices) and a temporary Geometry Nodes modifier running `tree` added; all undone on exit."""

    def __init__(self, obj, tree):
        self.obj, self.tree, self.mod, self.shown, self.smooth = obj, tree, None, [], False

    def __enter__(self):
        self.shown = [m for m in self.obj.modifiers if m.show_viewport]
        for m in self.shown:
            m.show_viewport = False
        self.smooth = getattr(self.obj.data, "use_auto_smooth", False)  # no split normals to compute meanwhile
        if self.smooth:
            self.obj.data.use_auto_smooth = False
        self.mod = self.obj.modifiers.new("skinkit_bridge", "NODES")
        self.mod.node_group = self.tree
        return self.mod

    def __exit__(self, *exc):
        import bpy

        if self.mod is not None and self.mod.name in self.obj.modifiers:
            self.obj.modifiers.remove(self.mod)
        for m in self.shown:
            m.show_viewport = True
        if self.smooth:
            self.obj.data.use_auto_smooth = True
        bpy.data.node_groups.remove(self.tree)
        return False


def _dense_read_gn(obj, names):
    """(G, V) float32 weights of the named vertex groups (0 where a vertex is not in the group) through a
    Geometry Nodes evaluation, or None when the evaluated mesh does not match obj.data."""
    import bpy

    nverts = len(obj.data.vertices)
    tmp = ["skinkit_r%d" % k for k in range(len(names))]
    tree = _node_tree("skinkit_read", list(zip(names, tmp)))
    dense = np.empty((len(names), nverts), np.float32)
    with _Muted(obj, tree):
        evobj = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
        # the evaluated object's data is the evaluated mesh (Blender 2.91+): read it in place, without the copy
        # to_mesh makes (0.07-0.13 s on 92k vertices); to_mesh when it does not hold the attributes
        if _read_attributes(evobj.data, tmp, nverts, dense):
            return dense
        ev = evobj.to_mesh()
        try:
            return dense if _read_attributes(ev, tmp, nverts, dense) else None
        finally:
            evobj.to_mesh_clear()


def _read_attributes(mesh, names, nverts, out):
    """Fills out[k] with the float point attribute names[k] of mesh; False when one is missing or mismatched."""
    if mesh is None or getattr(mesh, "vertices", None) is None or len(mesh.vertices) != nverts:
        return False
    attrs = [mesh.attributes.get(nm) for nm in names]
    if any(a is None or a.domain != "POINT" or a.data_type != "FLOAT" or len(a.data) != nverts for a in attrs):
        return False
    for k, a in enumerate(attrs):
        a.data.foreach_get("value", out[k])
    return True


# The last bulk read (a write under a mask right after it reuses it for the unmasked vertices instead of reading
# again); popped by that write, replaced by each read.
_LAST_DENSE = {}


def _dense_key(obj, names):
    return (obj.data.as_pointer(), len(obj.data.vertices), tuple(names))


def dense_to_csr(dense):
    """CSR (offsets, joints, weights) of a (G, V) dense weight array: per vertex its nonzero groups in order."""
    ngroups, nverts = dense.shape
    flat = np.ascontiguousarray(dense.T, np.float32).reshape(-1)  # (V, G) row-major: vertex, then group order
    idx = np.flatnonzero(flat)
    offsets = np.zeros(nverts + 1, np.uint32)
    if ngroups:
        np.cumsum(np.bincount(idx // ngroups, minlength=nverts), out=offsets[1:])
        return offsets, (idx % ngroups).astype(np.uint32), flat[idx]
    return offsets, np.zeros(0, np.uint32), np.zeros(0, np.float32)


def vertex_groups_to_csr(obj, group_indices=None, path=None):
    """CSR weights of obj's vertex groups: (offsets uint32[V+1], joints uint32[N], weights float32[N]) where
    joint k is group_indices[k] (default: every group, joint = group index). Groups outside the list are
    ignored. path: "gn" (bulk, Geometry Nodes; entries sorted by joint, memberships of weight 0 left out),
    "direct" (in place, mesh_records: Blender's per-vertex order, zero memberships kept), "loop" (vertex by
    vertex, as direct but slower) or None (direct, else gn, else loop)."""
    if group_indices is None:
        group_indices = [g.index for g in obj.vertex_groups]
    path = path or (None if BRIDGE_PATH in ("auto", "indirect") else BRIDGE_PATH)
    if path in (None, "direct") and group_indices and len(obj.data.vertices):
        csr = _read_records(obj, group_indices)
        if csr is not None:
            LAST_PATH["read"] = "direct"
            return csr
        if path == "direct":
            raise RuntimeError("%s: vertex groups cannot be read in place" % obj.name)
    if path not in ("loop", "direct") and group_indices and len(obj.data.vertices):
        dense = None
        try:
            dense = _dense_read_gn(obj, [obj.vertex_groups[int(g)].name for g in group_indices])
        except Exception:
            if path == "gn":
                raise
        if dense is not None:
            LAST_PATH["read"] = "gn"
            _LAST_DENSE.update(key=_dense_key(obj, [obj.vertex_groups[int(g)].name for g in group_indices]),
                               dense=dense)
            return dense_to_csr(dense)
    LAST_PATH["read"] = "loop"
    return _vertex_groups_to_csr_loop(obj, group_indices)


def _vertex_groups_to_csr_loop(obj, group_indices):
    mesh = obj.data
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


def _gn_write_ok(obj):
    import bpy

    return (obj.data.shape_keys is None and obj.data.users == 1
            and bpy.context.mode in {"OBJECT", "PAINT_WEIGHT", "POSE"}
            and hasattr(bpy.types, "GeometryNodeStoreNamedAttribute"))


def _call_op(idname, **kw):
    """Runs an operator without the view-layer updates bpy.ops wraps around each call from Python (each one
    re-evaluates the scene: ~0.2-0.5 s on a 92k-vertex mesh); falls back to bpy.ops."""
    import bpy

    try:
        from _bpy import ops as _ops

        ret = _ops.call(idname, None, kw)
    except (ImportError, AttributeError, TypeError):
        mod, name = idname.split(".")
        ret = getattr(getattr(bpy.ops, mod), name)(**kw)
    if "FINISHED" not in ret:
        raise RuntimeError("%s returned %s" % (idname, ret))


def _dense_write_gn(obj, names, dense, mask):
    """Stores the (G, V) dense weights into the named vertex groups (for the vertices in mask, every vertex when
    None) by applying a temporary Geometry Nodes modifier. A zero weight adds no membership, but a membership the
    vertex had stays, with weight 0 (what the gn reader does not see; the loop and direct readers do). Returns False
    (nothing written) when the current weights outside the mask cannot be read in bulk."""
    import bpy

    mesh = obj.data
    if mask is not None:  # Blender 3.4's Store Named Attribute has no selection: keep the others' weights
        cached = _LAST_DENSE.pop("key", None), _LAST_DENSE.pop("dense", None)
        old = cached[1] if cached[0] == _dense_key(obj, names) else _dense_read_gn(obj, names)
        if old is None:
            return False
        keep = ~np.asarray(mask, bool)
        dense[:, keep] = old[:, keep]
    tmp = ["skinkit_w%d" % k for k in range(len(names))]
    made = []
    try:
        for k, nm in enumerate(tmp):
            attr = mesh.attributes.new(nm, "FLOAT", "POINT")
            made.append(nm)
            attr.data.foreach_set("value", np.ascontiguousarray(dense[k], np.float32))
        tree = _node_tree("skinkit_write", list(zip(tmp, names)))
        with _Muted(obj, tree) as mod:
            with bpy.context.temp_override(object=obj, active_object=obj):
                if len(obj.modifiers) > 1:  # first in the stack: no "modifier was not first" report
                    _call_op("object.modifier_move_to_index", modifier=mod.name, index=0)
                _call_op("object.modifier_apply", modifier=mod.name, report=False)
    finally:
        for nm in made:
            attr = mesh.attributes.get(nm)
            if attr is not None:
                mesh.attributes.remove(attr)
    return True


def csr_to_vertex_groups(obj, offsets, joints, weights, group_indices=None, mask=None, path=None, new_groups=()):
    """Writes CSR weights back into vertex groups, replacing the memberships of the listed groups for the
    vertices in mask (all vertices when None). path None or "direct": in place where the groups allow it
    (_write_records: memberships through two calls per group at most, weights in Blender's records; a zero weight
    is a membership of weight 0); otherwise, or with "add" ("indirect": None without the in-place path): one
    VertexGroup.add per distinct (group, weight),
    zero weights in the CSR written as memberships of weight 0; "gn": one Geometry Nodes apply, zero weights
    leave no membership; None: gn when there are many batches and it can run (no shape keys, Object, Weight
    Paint or Pose mode). new_groups: indices of listed groups the caller has just created (no member, nothing to
    remove). Returns the number of VertexGroup.add calls (0 on the gn path)."""
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
    calls = _write_in_place(obj, (offsets.astype(np.uint32), joints.astype(np.uint32), weights), group_indices,
                            mask, path, new_groups)
    if calls is not None:
        return calls
    verts = np.repeat(np.arange(nverts, dtype=np.int64), np.diff(offsets))
    if mask is None:
        touched = np.arange(nverts)
    else:
        sel = np.asarray(mask, bool)
        touched = np.nonzero(sel)[0]
        keep = sel[verts]
        verts, joints, weights = verts[keep], joints[keep], weights[keep]
    path = path or {"auto": None, "indirect": None, "loop": "add"}.get(BRIDGE_PATH, BRIDGE_PATH)
    if path != "add" and groups and (path == "gn" or _gn_write_ok(obj)):
        if path == "gn" or np.unique(joints.astype(np.uint64) << np.uint64(32)
                                     | weights.view(np.uint32)).size >= GN_WRITE_MIN_BATCHES:
            dense = np.zeros((len(groups), nverts), np.float32)
            dense[joints, verts] = weights
            if _dense_write_gn(obj, [g.name for g in groups], dense, mask):
                LAST_PATH["write"] = "gn"
                return 0
    LAST_PATH["write"] = "add"
    _remove_members(groups, group_indices, touched.tolist(), new_groups)
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


def _csr_keys(offsets, joints, weights, ngroups, mask):
    """(key = vertex * ngroups + joint int64[N], weights) of the CSR entries of the vertices in mask, sorted by key."""
    off = np.asarray(offsets, np.int64)
    verts = np.repeat(np.arange(off.size - 1, dtype=np.int64), np.diff(off))
    key = verts * ngroups + np.asarray(joints, np.int64)
    w = np.asarray(weights, np.float32)
    if mask is not None:
        keep = np.asarray(mask, bool)[verts]
        key, w = key[keep], w[keep]
    order = np.argsort(key, kind="stable")
    return key[order], w[order]


def _in_sorted(keys, sorted_keys):
    """(found bool[N], index into sorted_keys) of each key in an ascending array."""
    if not sorted_keys.size:
        return np.zeros(keys.size, bool), np.zeros(keys.size, np.int64)
    pos = np.minimum(np.searchsorted(sorted_keys, keys), sorted_keys.size - 1)
    return sorted_keys[pos] == keys, pos


def write_csr_changes(obj, before, after, group_indices, mask=None, path=None):
    """Writes `after` (CSR over group_indices) into the vertex groups of the vertices in mask (all when None),
    touching only what differs from `before` (the CSR those groups hold now, e.g. the read the tool started from):
    one VertexGroup.remove per group that loses memberships, one VertexGroup.add per distinct (group, weight) of
    the entries that are new or changed. Limit Total and Clean only remove; Quantize's weights fall on few distinct
    values. When the changed entries still make >= max(GN_WRITE_MIN_BATCHES, V/8) batches (continuous weights:
    Normalize, Smooth), csr_to_vertex_groups writes the masked vertices in bulk (Geometry Nodes) instead. Zero
    weights in `after` are written as memberships of weight 0 on the batched path (as csr_to_vertex_groups's).
    Before all that, where the groups can be edited in place (mesh_records, records_writable), _write_records does
    the whole write instead: changed weights and removed memberships straight into Blender's records, and only the
    vertices whose membership set grows or empties through one remove / add call per group (path "diff": never in
    place).
    Returns the number of calls (removes + adds) made, 0 on the bulk path."""
    calls = _write_in_place(obj, after, group_indices, mask, path)
    if calls is not None:
        return calls
    if path == "diff":  # the calls below, not in place (tests)
        path = None
    groups = [obj.vertex_groups[int(g)] for g in group_indices]
    ng = max(len(groups), 1)
    k0, w0 = _csr_keys(*before, ng, mask)
    k1, w1 = _csr_keys(*after, ng, mask)
    found, pos = _in_sorted(k1, k0)
    changed = ~found | (w0[pos] != w1 if w0.size else True)
    gone = ~_in_sorted(k0, k1)[0]
    sk, sw = k1[changed], w1[changed]
    path = path or {"auto": None, "indirect": None, "loop": "add"}.get(BRIDGE_PATH, BRIDGE_PATH)
    # one key per (group, weight) batch
    batch = (sk % ng).astype(np.uint64) << np.uint64(32) | sw.view(np.uint32).astype(np.uint64)
    # the bulk write costs a modifier evaluation that grows with the mesh (~0.45 s at 92k vertices, ~0.04 s at 3k):
    # below ~V/8 batches the calls are cheaper (Quantize 8-bit, 92k vertices: 4.8k batches)
    limit = max(GN_WRITE_MIN_BATCHES, len(obj.data.vertices) // 8)
    if path != "add" and sk.size and (path == "gn" or _gn_write_ok(obj)):
        sample = batch[:: max(1, batch.size // (4 * limit))]  # enough distinct ones in a sample: no full sort
        if path == "gn" or (sk.size >= limit and np.unique(sample).size >= limit):
            return csr_to_vertex_groups(obj, *after, group_indices=group_indices, mask=mask, path="gn")
    order = np.argsort(batch, kind="stable")  # stable: vertices stay ascending within a batch
    batch = batch[order]
    cuts = np.flatnonzero(batch[1:] != batch[:-1]) + 1
    if path != "add" and cuts.size + 1 >= limit and _gn_write_ok(obj):
        return csr_to_vertex_groups(obj, *after, group_indices=group_indices, mask=mask, path="gn")
    LAST_PATH["write"] = "diff"
    calls = 0
    rk = k0[gone]
    if rk.size:  # (its own sort and cuts: order and cuts above belong to the adds below)
        rj, rv = rk % ng, rk // ng
        rorder = np.argsort(rj, kind="stable")
        rj, rv = rj[rorder], rv[rorder]
        rcuts = np.flatnonzero(np.diff(rj)) + 1
        for lo, hi in zip(np.concatenate(([0], rcuts)).tolist(), np.concatenate((rcuts, [rj.size])).tolist()):
            groups[int(rj[lo])].remove(rv[lo:hi].tolist())
            calls += 1
    if sk.size:
        j, w, v = (sk % ng)[order], sw[order], (sk // ng)[order].tolist()
        for lo, hi in zip(np.concatenate(([0], cuts)).tolist(), np.concatenate((cuts, [j.size])).tolist()):
            groups[int(j[lo])].add(v[lo:hi], float(w[lo]), "REPLACE")
            calls += 1
    if calls:
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
    and group): the finite ones added, a NaN or infinite entry kept only for a joint with no finite one (a valid 1.0
    and a NaN repeat summed to NaN: the weight was lost). Entries come out sorted by joint within each vertex."""
    off = np.asarray(offsets, np.int64)
    jt = np.asarray(joints, np.int64)
    wt = np.asarray(weights, np.float64)
    nverts = off.size - 1
    verts = np.repeat(np.arange(nverts, dtype=np.int64), np.diff(off))
    if not jt.size:
        return off.astype(np.uint32), jt.astype(np.uint32), wt.astype(np.float32)
    key = verts * (int(jt.max()) + 1) + jt
    uniq, inv = np.unique(key, return_inverse=True)
    finite = np.isfinite(wt)
    summed = np.bincount(inv[finite], weights=wt[finite], minlength=uniq.size)
    if not finite.all():
        has = np.bincount(inv[finite], minlength=uniq.size) > 0
        bad = np.nonzero(~finite)[0][::-1]  # the first non-finite value of each joint wins (written last)
        odd = np.full(uniq.size, np.nan)
        odd[inv[bad]] = wt[bad]
        summed = np.where(has, summed, odd)
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


def mesh_from_arrays(name, positions, triangles, uv=None, normals=None, uv1=None, colors=None, slots=None):
    """New bpy mesh from (V, 3) positions, (T, 3) triangles, optional per-vertex (V, 2) UVs (layer "UVMap"), a
    second set uv1 ("UVMap.001", as Blender's glTF importer names them), (V, 4) linear RGBA colours (a float
    colour attribute "Col" on the vertices, the active and render one), (V, 3) normals (set as custom split
    normals) and (T,) material slot indices of the triangles. Vertices are kept one to one (none merged or
    removed); faces Blender cannot hold (a vertex twice) are dropped by Mesh.validate."""
    import bpy

    pos = np.ascontiguousarray(positions, np.float32).reshape(-1, 3)
    tri = np.ascontiguousarray(triangles, np.int64).reshape(-1, 3)
    if tri.size and (tri.min() < 0 or tri.max() >= len(pos)):
        raise ValueError("mesh %s: triangle index outside its %d vertices" % (name, len(pos)))
    keep = (tri[:, 0] != tri[:, 1]) & (tri[:, 1] != tri[:, 2]) & (tri[:, 0] != tri[:, 2])
    tri = tri[keep]
    slots = None if slots is None else np.asarray(slots, np.int32).reshape(-1)[keep]
    me = bpy.data.meshes.new(name)
    me.vertices.add(len(pos))
    me.vertices.foreach_set("co", pos.reshape(-1))
    loops = tri.reshape(-1).astype(np.int32)
    me.loops.add(loops.size)
    set_ints(me.loops, "MeshLoop", "vertex_index", loops)
    me.polygons.add(len(tri))
    set_ints(me.polygons, "MeshPolygon", "loop_start", np.arange(0, loops.size, 3))
    set_ints(me.polygons, "MeshPolygon", "loop_total", np.full(len(tri), 3))
    if slots is not None and len(tri):
        me.polygons.foreach_set("material_index", slots)
    for layer_name, data in (("UVMap", uv), ("UVMap.001", uv1)):
        if data is not None and len(tri):
            uvs = np.ascontiguousarray(data, np.float32).reshape(-1, 2)
            layer = me.uv_layers.new(name=layer_name)
            layer.data.foreach_set("uv", uvs[loops].reshape(-1))
    if colors is not None and len(pos):
        col = me.color_attributes.new("Col", "FLOAT_COLOR", "POINT")
        col.data.foreach_set("color", np.ascontiguousarray(colors, np.float32).reshape(-1))
        _make_color_active(me, col)
    me.update(calc_edges=True)
    me.validate(clean_customdata=False)
    if normals is not None and len(me.loops):
        nrm = np.ascontiguousarray(normals, np.float32).reshape(-1, 3)
        # Blender shades flat faces with their face normal whatever the custom normals say (new faces are flat)
        me.polygons.foreach_set("use_smooth", np.ones(len(me.polygons), bool))
        if hasattr(me, "use_auto_smooth"):  # Blender < 4.1: custom normals need auto smooth
            me.use_auto_smooth = True
        me.normals_split_custom_set_from_vertices([tuple(n) for n in nrm.tolist()])
    return me


def _make_color_active(me, attr):
    """attr the active and the render colour attribute (Blender 3.4 names them in more than one way)."""
    ca = me.color_attributes
    names = [a.name for a in ca]
    for prop, value in (("active_color", attr), ("active_color_index", names.index(attr.name)),
                        ("render_color_index", names.index(attr.name))):
        if hasattr(ca, prop):
            try:
                setattr(ca, prop, value)
            except (AttributeError, TypeError):
                pass


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


def armature_from_skeleton(name, names, parents, bind_world, pose_world=None, tails_local=None):
    """New armature object (linked to the active collection) whose edit bones sit at the joint world matrices
    bind_world (J, 4, 4; heads, tails and rolls from bone_layout, parents from `parents`; tails_local (J, 3), optional:
    the file's own tails in each joint's frame, NaN where none, taken over bone_layout's). pose_world (J, 4, 4),
    optional: the pose bones are set so that each joint frame moves from bind_world[j] to pose_world[j] (posed bone
    matrix = pose_world[j] * bind_world[j]^-1 * bone.matrix_local), which skins a mesh bound at bind_world exactly
    like the file's LBS (used for a file whose rest pose differs from its bind pose). Leaves Object mode active.
    Returns (the object, the bone names as Blender stored them)."""
    import bpy
    from mathutils import Matrix, Vector

    heads, tails, zaxis = bone_layout(parents, bind_world)
    if tails_local is not None:
        t = np.asarray(tails_local, np.float64).reshape(-1, 3)
        known = np.isfinite(t).all(axis=1)
        m = np.asarray(bind_world, np.float64)
        placed = np.einsum("jab,jb->ja", m[:, :3, :3], t) + m[:, :3, 3]
        tails[known] = placed[known]
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
        # what Export via skinkit writes as the skeleton's rest (export_attach.written_rest): the file's rest pose,
        # with the bind it was recorded against (a bone whose rest is edited later no longer takes it)
        arm[FILE_REST_KEY] = {nm: posed[j].ravel().tolist() + rest[j].ravel().tolist() for j, nm in enumerate(final)}
    bpy.context.view_layer.objects.active = prev_active if prev_active is not None else obj
    return obj, final


FILE_REST_KEY = "skinkit_file_rest"  # armature data property: bone name -> 16 floats pose matrix + 16 floats rest


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

