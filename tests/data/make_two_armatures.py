# make_two_armatures.py - writes tests/data/two_armatures.fbx with Blender 3.4: two characters in one scene, each its
# own armature object: "Knight" at the origin (bones Knight_b0..b2, a 3-unit chain along +Z) and "Horse" at x = 1
# (Horse_b0..b1), each with a 12-sided cylinder body (radius 0.3, subdivided twice) parented with automatic weights.
# Converted to glTF, each skin must list its own character's joints only, or Blender's glTF importer merges both into
# one armature (test_object_names). With "scaled" after the path, the Horse's armature object is turned a quarter
# turn about Z and scaled 1.2 (tests/data/two_armatures_scaled.fbx: the writer's rigid-rest case no longer holds).
#   blender -b --factory-startup --python tests/data/make_two_armatures.py -- tests/data/two_armatures.fbx
#   blender -b --factory-startup --python tests/data/make_two_armatures.py -- tests/data/two_armatures_scaled.fbx scaled
import math
import sys

import bpy

args = sys.argv[sys.argv.index("--") + 1:]
out = args[0]
bpy.ops.wm.read_factory_settings(use_empty=True)


def character(name, x, bones):
    bpy.ops.object.armature_add(enter_editmode=True, location=(x, 0, 0))
    arm = bpy.context.active_object
    arm.name = name
    arm.data.name = name + "_data"
    eb = arm.data.edit_bones
    prev = eb[0]
    prev.name, prev.head, prev.tail = name + "_b0", (0, 0, 0), (0, 0, 1)
    for i in range(1, bones):
        b = eb.new(name + "_b%d" % i)
        b.head, b.tail, b.parent, b.use_connect = prev.tail, (0, 0, i + 1), prev, True
        prev = b
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.mesh.primitive_cylinder_add(vertices=12, radius=0.3, depth=bones, location=(x, 0, bones / 2))
    body = bpy.context.active_object
    body.name = name + "_body"
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.subdivide(number_cuts=2)
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.object.select_all(action="DESELECT")
    body.select_set(True)
    arm.select_set(True)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.parent_set(type="ARMATURE_AUTO")


character("Knight", 0, 3)
character("Horse", 1.0, 2)
if "scaled" in args[1:]:
    horse = bpy.data.objects["Horse"]
    horse.rotation_euler = (0.0, 0.0, math.pi / 2)
    horse.scale = (1.2, 1.2, 1.2)
    bpy.context.view_layer.update()
bpy.ops.export_scene.fbx(filepath=out)
