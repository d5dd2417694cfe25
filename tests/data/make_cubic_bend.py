# make_cubic_bend.py - writes tests/data/cubic_bend.glb with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_cubic_bend.py -- tests/data/cubic_bend.glb
# An armature "Rig" (bones Root, Arm), a tube "Tube" bound by automatic weights, an action "Bend" keyed at frames 1,
# 25 and 50 with Blender's default Bezier keys, exported with "Always Sample Animations" off: CUBICSPLINE samplers
# (zero tangents: ease in and out between keys). Read as the keys' values alone, every interval became a straight
# line (0.097 of the model's size off between keys after `convert` to .fbx / .dae; session 55).
import math
import sys

import bmesh
import bpy

out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
arm = bpy.data.armatures.new("Rig"); rig = bpy.data.objects.new("Rig", arm); bpy.context.collection.objects.link(rig)
bpy.context.view_layer.objects.active = rig; bpy.ops.object.mode_set(mode="EDIT")
b0 = arm.edit_bones.new("Root"); b0.head = (0, 0, 0); b0.tail = (0, 0, 1)
b1 = arm.edit_bones.new("Arm"); b1.head = (0, 0, 1); b1.tail = (0, 0, 2); b1.parent = b0; b1.use_connect = True
bpy.ops.object.mode_set(mode="OBJECT")
me = bpy.data.meshes.new("Tube"); bm = bmesh.new(); rings = []
for i in range(21):
    z = i * 0.1; rings.append([bm.verts.new((0.15 * math.cos(a * math.pi / 4), 0.15 * math.sin(a * math.pi / 4), z)) for a in range(8)])
for i in range(20):
    for a in range(8): bm.faces.new((rings[i][a], rings[i][(a + 1) % 8], rings[i + 1][(a + 1) % 8], rings[i + 1][a]))
bm.to_mesh(me); tube = bpy.data.objects.new("Tube", me); bpy.context.collection.objects.link(tube)
tube.select_set(True); rig.select_set(True); bpy.context.view_layer.objects.active = rig
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
rig.animation_data_create(); act = bpy.data.actions.new("Bend"); rig.animation_data.action = act
pb = rig.pose.bones["Arm"]; pr = rig.pose.bones["Root"]
for f, ang, loc in ((1, 0, 0.0), (25, 80, 0.3), (50, -30, -0.2)):
    pb.rotation_quaternion = (math.cos(math.radians(ang) / 2), math.sin(math.radians(ang) / 2), 0, 0)
    pb.keyframe_insert("rotation_quaternion", frame=f)
    pr.location = (loc, 0, 0); pr.keyframe_insert("location", frame=f)
bpy.context.scene.frame_end = 50
bpy.ops.export_scene.gltf(filepath=out, export_format="GLB", export_force_sampling=False, export_animations=True)
