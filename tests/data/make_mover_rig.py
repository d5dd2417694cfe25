# make_mover_rig.py - writes tests/data/mover_rig.fbx, mover_rig.dae and mover_rig.glb with Blender 3.4: a character
# whose armature sits under transformed nodes, as a scene holding it as a prop or on a moving platform does, beside a
# mesh the file holds without skin. Empty "Mover" at (0.5, 0.1, 0.3), turned 15 degrees about Z, scaled 0.9; armature "Rig" under
# it at (0.2, 0.1, 0), turned (10, 0, 30) degrees, scaled 1.2; bones "root" (0,0,0)->(0,0,0.6), "spine" ->(0,0,1.2),
# "head" ->(0,0,1.5), connected, the head scaled 1.2 through the clip (so the file's rest pose, frame 1, is not its
# bind pose for the head: one rest-to-bind transform no longer fits every joint). Mesh "Body" (a 12-sided cylinder,
# radius 0.2, z 0..1.5, subdivided 3 times) parented to the armature with automatic weights; cube "Sword" (size 0.1)
# parented to the bone "spine"; cube "Crate" (size 0.5) at (2, 0.5, 0.25), parented to nothing and weighted to
# nothing. A clip "sway" turns the spine 50 degrees about X over frames 1-11. `skinkit bind` gives the Crate a skin;
# Blender's importers must then show it where it was (the audit of session 44: Blender's FBX importer put it 216
# units away, its glTF importer threw it 27 units off once the clip played).
#   blender -b --factory-startup --python tests/data/make_mover_rig.py -- tests/data/mover_rig
import math
import sys

import bpy

out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.object.empty_add(location=(0.5, 0.1, 0.3))
mover = bpy.context.active_object
mover.name = "Mover"
mover.rotation_euler = (0, 0, math.radians(15))
mover.scale = (0.9, 0.9, 0.9)
bpy.ops.object.armature_add(enter_editmode=True, location=(0, 0, 0))
arm = bpy.context.active_object
arm.name = "Rig"
eb = arm.data.edit_bones
root = eb[0]
root.name, root.head, root.tail = "root", (0, 0, 0), (0, 0, 0.6)
spine = eb.new("spine")
spine.head, spine.tail, spine.parent, spine.use_connect = (0, 0, 0.6), (0, 0, 1.2), root, True
head = eb.new("head")
head.head, head.tail, head.parent, head.use_connect = (0, 0, 1.2), (0, 0, 1.5), spine, True
bpy.ops.object.mode_set(mode="OBJECT")
bpy.ops.mesh.primitive_cylinder_add(vertices=12, radius=0.2, depth=1.5, location=(0, 0, 0.75))
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
bpy.ops.mesh.primitive_cube_add(size=0.5, location=(2, 0.5, 0.25))
bpy.context.active_object.name = "Crate"
bpy.ops.mesh.primitive_cube_add(size=0.1)
sword = bpy.context.active_object
sword.name = "Sword"
sword.parent, sword.parent_type, sword.parent_bone = arm, "BONE", "spine"
sword.location = (0.25, 0, 0)
arm.parent = mover
arm.location = (0.2, 0.1, 0)
arm.rotation_euler = (math.radians(10), 0, math.radians(30))
arm.scale = (1.2, 1.2, 1.2)
arm.animation_data_create()
arm.animation_data.action = bpy.data.actions.new("sway")
pb = arm.pose.bones["spine"]
pb.rotation_mode = "XYZ"
for frame, angle in ((1, 0.0), (11, 50.0)):
    pb.rotation_euler = (math.radians(angle), 0, 0)
    pb.keyframe_insert("rotation_euler", frame=frame)
hb = arm.pose.bones["head"]  # scaled in the clip: the file's rest pose (frame 1) is not its bind pose for the head
for frame in (1, 11):
    hb.scale = (1.2, 1.2, 1.2)
    hb.keyframe_insert("scale", frame=frame)
bpy.context.scene.frame_set(1)
bpy.ops.export_scene.fbx(filepath=out + ".fbx")
bpy.ops.wm.collada_export(filepath=out + ".dae", include_animations=True)
import numpy  # noqa: E402  Blender 3.4's glTF exporter uses np.bool, removed in Debian's numpy 1.24

numpy.bool = bool
bpy.ops.export_scene.gltf(filepath=out + ".glb", export_format="GLB")
