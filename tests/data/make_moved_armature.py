# make_moved_armature.py - writes tests/data/moved_armature.dae and moved_armature.glb with Blender 3.4: one
# character whose armature object is not at the origin, as in a scene holding several characters.
# Armature "Walker" at (1.5, -0.5, 0.25), turned 30 degrees about Z, scaled 1.25; bones "hip" (0,0,0)->(0,0,1), "knee"
# ->(0,0,2), "foot" ->(0,0,2.5), connected. Mesh object "Leg" (a 12-sided cylinder, radius 0.25, z 0..2.5 in the
# armature's space, subdivided 4 times) parented to the armature with automatic weights, then placed at (0.1, 0,
# 1.25) in the armature's space (its own transform relative to the armature object). A clip "bend" turns the knee
# 60 degrees about X over frames 1-11. Cubes parented to bones: "Sword" to "knee" (its tail is the connected foot's
# head) and "Cap" to the leaf "foot" (its tail in Blender's <extra> tip). Blender's Collada exporter writes the
# skin's bind shape matrix relative to the armature object and the inverse binds in world space, and a bone child's
# matrix relative to the bone's tail under the joint's node; its glTF exporter writes the same scene as glTF defines
# it: the two files must read to the same places (test_scene_rigid).
#   blender -b --factory-startup --python tests/data/make_moved_armature.py -- tests/data/moved_armature
import math
import sys

import bpy

out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.object.armature_add(enter_editmode=True, location=(0, 0, 0))
arm = bpy.context.active_object
arm.name = "Walker"
eb = arm.data.edit_bones
hip = eb[0]
hip.name, hip.head, hip.tail = "hip", (0, 0, 0), (0, 0, 1)
knee = eb.new("knee")
knee.head, knee.tail, knee.parent, knee.use_connect = (0, 0, 1), (0, 0, 2), hip, True
foot = eb.new("foot")
foot.head, foot.tail, foot.parent, foot.use_connect = (0, 0, 2), (0, 0, 2.5), knee, True
bpy.ops.object.mode_set(mode="OBJECT")
bpy.ops.mesh.primitive_cylinder_add(vertices=12, radius=0.25, depth=2.5, location=(0, 0, 1.25))
leg = bpy.context.active_object
leg.name = "Leg"
bpy.ops.object.mode_set(mode="EDIT")
bpy.ops.mesh.subdivide(number_cuts=4)
bpy.ops.object.mode_set(mode="OBJECT")
bpy.ops.object.select_all(action="DESELECT")
leg.select_set(True)
arm.select_set(True)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
for name, bone, place in (("Sword", "knee", (0.3, 0.2, 0)), ("Cap", "foot", (0, 0.1, 0.2))):
    bpy.ops.mesh.primitive_cube_add(size=0.2)
    prop = bpy.context.active_object
    prop.name = name
    prop.parent, prop.parent_type, prop.parent_bone = arm, "BONE", bone
    prop.location = place
arm.location = (1.5, -0.5, 0.25)
arm.rotation_euler = (0, 0, math.radians(30))
arm.scale = (1.25, 1.25, 1.25)
leg.location = (0.1, 0, 1.25)
arm.animation_data_create()
arm.animation_data.action = bpy.data.actions.new("bend")
pb = arm.pose.bones["knee"]
pb.rotation_mode = "XYZ"
for frame, angle in ((1, 0.0), (11, 60.0)):
    pb.rotation_euler = (math.radians(angle), 0, 0)
    pb.keyframe_insert("rotation_euler", frame=frame)
bpy.context.scene.frame_set(1)
bpy.ops.wm.collada_export(filepath=out + ".dae", include_animations=True)
bpy.ops.export_scene.gltf(filepath=out + ".glb", export_format="GLB")
