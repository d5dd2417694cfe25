# make_bone_keyed_light.py - writes tests/data/bone_keyed_light.fbx with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_bone_keyed_light.py -- tests/data/bone_keyed_light
# The skinned two-bone leg of blender_leg.py, its shin bent over frames 1-40, with a point light "Anklet" parented to
# the bone "shin" (parent type Bone) and keyed in place along it (frames 1-40, linear): an object that both follows a
# bone and moves on it, in one clip at 24 fps.
import bpy, sys, os, math
import numpy
numpy.bool = bool
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_leg import leg_rig  # noqa: E402
base = sys.argv[sys.argv.index("--") + 1]
arm, leg = leg_rig()
leg.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 40
shin = arm.pose.bones["shin"]
shin.rotation_mode = "XYZ"
for f, a in ((1, 0.0), (20, 50.0), (40, 10.0)):
    shin.rotation_euler = (math.radians(a), 0, 0)
    shin.keyframe_insert("rotation_euler", frame=f)
light_data = bpy.data.lights.new("Anklet", "POINT")
light_data.energy = 50.0
light = bpy.data.objects.new("Anklet", light_data)
scene.collection.objects.link(light)
light.parent = arm
light.parent_type = "BONE"
light.parent_bone = "shin"
for f, loc in ((1, (0.3, -0.8, 0.0)), (20, (0.0, -0.4, 0.3)), (40, (-0.3, -0.1, 0.0))):
    scene.frame_set(f)
    light.location = loc
    light.keyframe_insert("location", frame=f)
for o in (arm, light):
    for fc in o.animation_data.action.fcurves:
        for kp in fc.keyframe_points:
            kp.interpolation = "LINEAR"
scene.frame_set(1)
bpy.ops.object.select_all(action="SELECT")
bpy.ops.export_scene.fbx(filepath=base + ".fbx", bake_anim_use_all_actions=False, bake_anim_use_nla_strips=False)
