# make_keyed_crate.py - writes tests/unskinned/keyed_crate.glb with Blender 3.4:
#   blender -b --factory-startup --python tests/unskinned/make_keyed_crate.py -- tests/unskinned/keyed_crate.glb
# No armature, no skin: a cube "Crate" keyed along x (frames 1, 13, 25) and a cube "Lid" parented to it, keyed in turn
# about z (frames 1, 25); Blender's glTF exporter writes each object's action as a clip of its own. Read as `convert`
# reads (animated_nodes), the keyed mesh nodes are joints their meshes hang from, so .fbx and .dae keep the motion
# (session 54: the reader skipped channels of mesh nodes and both outputs held the cubes still).
import math
import sys

import bpy
import numpy

numpy.bool = bool
out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
sc = bpy.context.scene
sc.frame_start, sc.frame_end = 1, 25
bpy.ops.mesh.primitive_cube_add(size=0.4, location=(2, 0, 0.2))
crate = bpy.context.object
crate.name = "Crate"
for f, x in ((1, 2), (13, 3), (25, 2.5)):
    crate.location = (x, 0, 0.2)
    crate.keyframe_insert("location", frame=f)
bpy.ops.mesh.primitive_cube_add(size=0.3, location=(0, 0, 1))
lid = bpy.context.object
lid.name = "Lid"
lid.parent = crate
lid.matrix_parent_inverse = crate.matrix_world.inverted()
for f, a in ((1, 0), (25, 90)):
    lid.rotation_euler = (0, 0, math.radians(a))
    lid.keyframe_insert("rotation_euler", frame=f)
bpy.ops.export_scene.gltf(filepath=out, export_animations=True)
