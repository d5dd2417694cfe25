"""Scenes built in code for the Blender addon tests and the Auto Bind benchmark (needs bpy and numpy).

cylinder_rig(): a closed cylinder along +Z (segments x rings vertices plus 2 cap centres) and an armature with
`bones` connected bones along the axis, both objects at the same world location; optional loose 1 mm cubes
scattered around the surface (the case where Blender's bone heat gives up).
"""

import bpy
import numpy as np


def reset_scene():
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj, do_unlink=True)
    for coll in (bpy.data.meshes, bpy.data.armatures):
        for block in list(coll):
            coll.remove(block)


def cylinder_arrays(segments=200, rings=200, radius=0.5, length=3.0):
    """(positions (V, 3), triangles (T, 3)) of a closed cylinder from z = 0 to z = length."""
    a = np.linspace(0.0, 2.0 * np.pi, segments, endpoint=False)
    z = np.linspace(0.0, length, rings)
    ring = np.stack([radius * np.cos(a), radius * np.sin(a)], axis=1)
    pos = np.concatenate([np.column_stack([np.tile(ring, (rings, 1)), np.repeat(z, segments)]),
                          [[0.0, 0.0, 0.0], [0.0, 0.0, length]]])
    r, s = np.meshgrid(np.arange(rings - 1), np.arange(segments), indexing="ij")
    v00 = r * segments + s
    v01 = r * segments + (s + 1) % segments
    v10 = v00 + segments
    v11 = v01 + segments
    quads = np.concatenate([np.stack([v00, v01, v11], -1).reshape(-1, 3), np.stack([v00, v11, v10], -1).reshape(-1, 3)])
    bottom, top = rings * segments, rings * segments + 1
    s1 = np.arange(segments)
    s2 = (s1 + 1) % segments
    caps = np.concatenate([np.column_stack([np.full(segments, bottom), s2, s1]),
                           np.column_stack([np.full(segments, top), (rings - 1) * segments + s1,
                                            (rings - 1) * segments + s2])])
    return pos.astype(np.float32), np.concatenate([quads, caps]).astype(np.int64)


def cube_arrays(centers, size=0.001):
    """Loose axis-aligned cubes (8 vertices, 12 triangles each) of edge `size` at the centers."""
    corners = (np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], np.float64) - 0.5) * size
    faces = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                      [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]])
    pos = np.concatenate([c + corners for c in np.asarray(centers, np.float64)]) if len(centers) else np.zeros((0, 3))
    tri = np.concatenate([faces + 8 * i for i in range(len(centers))]) if len(centers) else np.zeros((0, 3), int)
    return pos.astype(np.float32), tri


def cylinder_rig(segments=200, rings=200, bones=3, length=3.0, radius=0.5, cubes=0, location=(1.0, -0.5, 0.25),
                 seed=7, rotated=False):
    """Mesh object "Cylinder" (unparented, no groups) and armature object "Rig" with bones b0..b{n-1} along
    world +Z. rotated: the armature object is turned 90 degrees about X (its bones run along its local +Y) and
    the mesh object 30 degrees about Z, so mesh and armature spaces differ. Returns (mesh, armature object)."""
    reset_scene()
    pos, tri = cylinder_arrays(segments, rings, radius, length)
    if cubes:
        rng = np.random.default_rng(seed)
        ang = rng.uniform(0, 2 * np.pi, cubes)
        hz = rng.uniform(0.1 * length, 0.9 * length, cubes)
        rad = radius + rng.uniform(0.01, 0.05, cubes)
        cpos, ctri = cube_arrays(np.column_stack([rad * np.cos(ang), rad * np.sin(ang), hz]))
        tri = np.concatenate([tri, ctri + len(pos)])
        pos = np.concatenate([pos, cpos])
    me = bpy.data.meshes.new("cyl")
    me.vertices.add(len(pos))
    me.vertices.foreach_set("co", pos.reshape(-1))
    me.loops.add(tri.size)
    me.loops.foreach_set("vertex_index", tri.reshape(-1).astype(np.int32))
    me.polygons.add(len(tri))
    me.polygons.foreach_set("loop_start", np.arange(0, tri.size, 3, dtype=np.int32))
    me.polygons.foreach_set("loop_total", np.full(len(tri), 3, np.int32))
    me.update(calc_edges=True)
    me.validate()
    obj = bpy.data.objects.new("Cylinder", me)
    obj.location = location
    if rotated:
        obj.rotation_euler = (0.0, 0.0, np.pi / 6)
    bpy.context.scene.collection.objects.link(obj)

    arm = bpy.data.armatures.new("rig")
    arm_obj = bpy.data.objects.new("Rig", arm)
    arm_obj.location = location
    if rotated:
        arm_obj.rotation_euler = (np.pi / 2, 0.0, 0.0)  # local +Y -> world +Z
    bpy.context.scene.collection.objects.link(arm_obj)
    for o in bpy.context.scene.objects:
        o.select_set(False)
    bpy.context.view_layer.objects.active = arm_obj
    bpy.ops.object.mode_set(mode="EDIT")
    seg = length / bones
    prev = None
    for i in range(bones):
        eb = arm.edit_bones.new("b%d" % i)
        eb.head = (0, i * seg, 0) if rotated else (0, 0, i * seg)
        eb.tail = (0, (i + 1) * seg, 0) if rotated else (0, 0, (i + 1) * seg)
        if prev is not None:
            eb.parent = prev
            eb.use_connect = True
        prev = eb
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.context.view_layer.update()
    return obj, arm_obj


def select_for_parenting(mesh_objs, arm_obj):
    """Selects the meshes and the armature, armature active (what Ctrl+P expects)."""
    for o in bpy.context.scene.objects:
        o.select_set(False)
    for o in mesh_objs:
        o.select_set(True)
    arm_obj.select_set(True)
    bpy.context.view_layer.objects.active = arm_obj


def weight_matrix(obj, names):
    """(V, len(names)) float64 dense weights of the named groups (missing groups: zero columns)."""
    idx = {g.index: k for k, g in enumerate(obj.vertex_groups) if g.name in names}
    col = {g.index: names.index(g.name) for g in obj.vertex_groups if g.name in names}
    out = np.zeros((len(obj.data.vertices), len(names)))
    for v in obj.data.vertices:
        for ge in v.groups:
            if ge.group in idx:
                out[v.index, col[ge.group]] = ge.weight
    return out
