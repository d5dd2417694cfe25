# make_two_rigs_anim.py - writes tests/data/two_rigs_anim.fbx and .glb with Blender 3.4: the two characters of
# make_two_armatures.py ("Knight", 3 bones at the origin; "Horse", 2 bones at x = 1, turned a quarter turn about Z
# and scaled 1.2), each armature with its own action ("Knight_Swing": Knight_b1 bends 60 degrees about X over frames
# 1-20; "Horse_Nod": Horse_b1 bends -45 degrees about Y), an empty "Lance" on bone Knight_b2 and a cube "Saddle"
# parented to bone Horse_b0, so that a file holds two armatures, each with its clip, a socket and a prop.
#   blender -b --factory-startup --python tests/data/make_two_rigs_anim.py -- tests/data/two_rigs_anim
import math
import os
import sys

import bpy
import numpy

numpy.bool = bool
base = sys.argv[sys.argv.index("--") + 1]
sys.argv = [sys.argv[0], "--", "/dev/null"]  # make_two_armatures.py writes nothing useful to /dev/null
here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "make_two_armatures.py")).read().replace("bpy.ops.export_scene.fbx(filepath=out)", "")
exec(compile(src, "make_two_armatures.py", "exec"))
horse = bpy.data.objects["Horse"]
horse.rotation_euler = (0.0, 0.0, math.pi / 2)
horse.scale = (1.2, 1.2, 1.2)


def bend(arm_name, bone, axis, angle, action_name):
    arm = bpy.data.objects[arm_name]
    pb = arm.pose.bones[bone]
    pb.rotation_mode = "XYZ"
    for frame, a in ((1, 0.0), (10, angle / 2), (20, angle)):
        pb.rotation_euler = [a if k == axis else 0.0 for k in range(3)]
        pb.keyframe_insert("rotation_euler", frame=frame)
    arm.animation_data.action.name = action_name


bend("Knight", "Knight_b1", 0, math.radians(60), "Knight_Swing")
bend("Horse", "Horse_b1", 1, math.radians(-45), "Horse_Nod")
lance = bpy.data.objects.new("Lance", None)
bpy.context.scene.collection.objects.link(lance)
knight = bpy.data.objects["Knight"]
lance.parent, lance.parent_type, lance.parent_bone = knight, "BONE", "Knight_b2"
lance.location = (0.2, 0.1, 0.0)
bpy.ops.mesh.primitive_cube_add(size=0.3)
saddle = bpy.context.active_object
saddle.name = "Saddle"
saddle.parent, saddle.parent_type, saddle.parent_bone = horse, "BONE", "Horse_b0"
saddle.location = (0.3, 0.0, 0.0)
bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 20
bpy.context.scene.frame_set(1)
bpy.ops.object.select_all(action="SELECT")
bpy.ops.export_scene.fbx(filepath=base + ".fbx")
bpy.ops.export_scene.gltf(filepath=base + ".glb", export_format="GLB")
