# make_walker_rig.py - writes tests/data/walker_rig.fbx with Blender 3.4: a character saved in a frame of its walk, as
# Blender's FBX export of any animated scene is. The file's rest pose (the node transforms) is the pose of frame 1,
# where the root bone has moved (0.12, -0.05, -0.15) and turned 20 degrees about Z, 8 about X; its bind pose (the
# clusters' TransformLink) is the armature's rest. Armature "Rig" at (0.3, 0.2, 0) turned 25 degrees about Z; bones
# "hips" (0,0,0.9)->(0,0,1.1), "spine" ->(0,0,1.5), "head" ->(0,0,1.8), connected; mesh "Body" (a 12-sided cylinder,
# radius 0.2, z 0.8..1.8, subdivided 3 times) parented to the armature with automatic weights, and mesh "Hat" (a cube
# of 0.2 at z 1.9, its object turned and scaled: a node of its own) weighted to "head". A clip "walk" moves the hips
# over frames 1-13 and bends the spine. Blender's importers put the body at rest where its bind pose says; a
# writer that took the root's saved pose for its bind moved the whole body by the root's motion (session 52: a Blender
# FBX export of CesiumMan came out of `convert` as .glb 3.5 cm off at rest).
#   blender -b --factory-startup --python tests/data/make_walker_rig.py -- tests/data/walker_rig
import math
import sys

import bpy

out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.object.armature_add(enter_editmode=True, location=(0, 0, 0))
arm = bpy.context.active_object
arm.name = "Rig"
eb = arm.data.edit_bones
hips = eb[0]
hips.name, hips.head, hips.tail = "hips", (0, 0, 0.9), (0, 0, 1.1)
spine = eb.new("spine")
spine.head, spine.tail, spine.parent, spine.use_connect = (0, 0, 1.1), (0, 0, 1.5), hips, True
head = eb.new("head")
head.head, head.tail, head.parent, head.use_connect = (0, 0, 1.5), (0, 0, 1.8), spine, True
bpy.ops.object.mode_set(mode="OBJECT")
bpy.ops.mesh.primitive_cylinder_add(vertices=12, radius=0.2, depth=1.0, location=(0, 0, 1.3))
body = bpy.context.active_object
body.name = "Body"
bpy.ops.object.mode_set(mode="EDIT")
bpy.ops.mesh.subdivide(number_cuts=3)
bpy.ops.object.mode_set(mode="OBJECT")
bpy.ops.object.select_all(action="DESELECT")
body.select_set(True)
arm.select_set(True)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
bpy.ops.mesh.primitive_cube_add(size=0.2, location=(0, 0, 1.9))
hat = bpy.context.active_object
hat.name = "Hat"
hat.rotation_euler = (0.3, 0.2, 0.5)
hat.scale = (1.5, 1.0, 0.5)
hat.vertex_groups.new(name="head").add(list(range(len(hat.data.vertices))), 1.0, "REPLACE")
hat.parent = arm
hat.modifiers.new("Armature", "ARMATURE").object = arm
arm.location = (0.3, 0.2, 0)
arm.rotation_euler = (0, 0, math.radians(25))
arm.animation_data_create()
arm.animation_data.action = bpy.data.actions.new("walk")
pb = arm.pose.bones["hips"]
pb.rotation_mode = "XYZ"
for frame, loc, rot in ((1, (0.12, -0.05, -0.15), (8, 0, 20)), (7, (0.05, 0.3, -0.05), (0, 0, 0)),
                        (13, (0.12, 0.6, -0.15), (8, 0, 20))):
    pb.location = loc
    pb.rotation_euler = tuple(math.radians(a) for a in rot)
    pb.keyframe_insert("location", frame=frame)
    pb.keyframe_insert("rotation_euler", frame=frame)
sb = arm.pose.bones["spine"]
sb.rotation_mode = "XYZ"
for frame, angle in ((1, 10.0), (13, -15.0)):
    sb.rotation_euler = (math.radians(angle), 0, 0)
    sb.keyframe_insert("rotation_euler", frame=frame)
bpy.context.scene.frame_set(1)
bpy.ops.export_scene.fbx(filepath=out + ".fbx")
