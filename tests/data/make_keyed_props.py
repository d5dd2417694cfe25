# make_keyed_props.py - writes tests/data/keyed_props.fbx with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_keyed_props.py -- tests/data/keyed_props.fbx
# An armature "Rig" (bones Base, Arm; Arm keyed in turn), a cylinder "Body" skinned to it, a cube "Fan" parented to
# the bone Arm with an action of its own (turning about z) and a cube "Crate" beside them keyed along x: two meshes
# whose own nodes the clip keys, that are no bones (session 54: the scene holds no channel for such a node, and the
# reader names them in its note).
import math
import sys

import bpy
from mathutils import Matrix

out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
sc = bpy.context.scene
sc.frame_start, sc.frame_end = 1, 25
arm_d = bpy.data.armatures.new("Rig")
arm = bpy.data.objects.new("Rig", arm_d)
sc.collection.objects.link(arm)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode="EDIT")
b0 = arm_d.edit_bones.new("Base")
b0.head, b0.tail = (0, 0, 0), (0, 0, 1)
b1 = arm_d.edit_bones.new("Arm")
b1.head, b1.tail, b1.parent, b1.use_connect = (0, 0, 1), (0, 0, 2), b0, True
bpy.ops.object.mode_set(mode="OBJECT")
bpy.ops.mesh.primitive_cylinder_add(vertices=8, radius=0.2, depth=2, location=(0, 0, 1))
body = bpy.context.object
body.name = "Body"
bpy.ops.object.mode_set(mode="EDIT")
bpy.ops.mesh.subdivide(number_cuts=2)
bpy.ops.object.mode_set(mode="OBJECT")
body.select_set(True)
arm.select_set(True)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
bpy.ops.mesh.primitive_cube_add(size=0.3, location=(0.5, 0, 2))
fan = bpy.context.object
fan.name = "Fan"
fan.parent, fan.parent_type, fan.parent_bone = arm, "BONE", "Arm"
fan.matrix_world = Matrix.Translation((0.5, 0, 2))
for f, a in ((1, 0), (13, 90), (25, 180)):
    fan.rotation_euler = (0, 0, math.radians(a))
    fan.keyframe_insert("rotation_euler", frame=f)
bpy.ops.mesh.primitive_cube_add(size=0.4, location=(2, 0, 0.2))
crate = bpy.context.object
crate.name = "Crate"
for f, x in ((1, 2), (13, 3), (25, 2.5)):
    crate.location = (x, 0, 0.2)
    crate.keyframe_insert("location", frame=f)
pb = arm.pose.bones["Arm"]
pb.rotation_mode = "XYZ"
for f, a in ((1, 0), (13, 45), (25, -30)):
    pb.rotation_euler = (math.radians(a), 0, 0)
    pb.keyframe_insert("rotation_euler", frame=f)
bpy.ops.export_scene.fbx(filepath=out, bake_anim_use_all_actions=False, bake_anim_use_nla_strips=False)
