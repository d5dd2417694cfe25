# make_animated_objects.py - writes tests/data/animated_objects.fbx with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_animated_objects.py -- tests/data/animated_objects
# The skinned two-bone leg of blender_leg.py (its shin bent over frames 1-40) in a shot whose camera and lights move
# too: a camera "DollyCam" keyed in place and turn, an empty "Dolly" keyed along a path with a camera "RigCam"
# riding it, a spot light "Follow" keyed in turn and an empty "Spinner" keyed in turn and scale. One clip, frames
# 1-40 at 24 fps. Prints each object's world matrix at frames 1, 13, 27 and 40 (WORLD lines).
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


def add(name, data, loc, rot):
    o = bpy.data.objects.new(name, data)
    scene.collection.objects.link(o)
    o.location = loc
    o.rotation_euler = [math.radians(a) for a in rot]
    return o


def key(o, frame, loc=None, rot=None, scale=None):
    scene.frame_set(frame)
    if loc is not None:
        o.location = loc
        o.keyframe_insert("location", frame=frame)
    if rot is not None:
        o.rotation_euler = [math.radians(a) for a in rot]
        o.keyframe_insert("rotation_euler", frame=frame)
    if scale is not None:
        o.scale = scale
        o.keyframe_insert("scale", frame=frame)


shin = arm.pose.bones["shin"]
for f, a in ((1, 0.0), (20, 50.0), (40, 10.0)):
    shin.rotation_mode = "XYZ"
    shin.rotation_euler = (math.radians(a), 0, 0)
    shin.keyframe_insert("rotation_euler", frame=f)
cam = add("DollyCam", bpy.data.cameras.new("DollyCam"), (4, -5, 3), (63, 0, 38))
key(cam, 1, (4, -5, 3), (63, 0, 38)); key(cam, 20, (1, -6, 2), (75, 0, 10)); key(cam, 40, (-3, -4, 2.5), (70, 0, -35))
dolly = add("Dolly", None, (0, -8, 0), (0, 0, 0))
key(dolly, 1, (0, -8, 0), (0, 0, 0)); key(dolly, 40, (6, -6, 0.5), (0, 0, 60))
rig_cam = add("RigCam", bpy.data.cameras.new("RigCam"), (0, 0, 1.5), (85, 0, 0))
rig_cam.parent = dolly
spot_data = bpy.data.lights.new("Follow", "SPOT"); spot_data.energy = 300.0
spot = add("Follow", spot_data, (-3, 0.5, 5), (30, -20, 10))
key(spot, 1, rot=(30, -20, 10)); key(spot, 40, rot=(10, 25, -30))
spin = add("Spinner", None, (1.5, 1, 0.5), (0, 0, 0))
key(spin, 1, rot=(0, 0, 0), scale=(1, 1, 1)); key(spin, 40, rot=(0, 0, 180), scale=(2, 2, 2))
for o in (cam, dolly, spot, spin):
    for fc in o.animation_data.action.fcurves:
        for kp in fc.keyframe_points:
            kp.interpolation = "LINEAR"
for f in (1, 13, 27, 40):
    scene.frame_set(f)
    for o in scene.objects:
        if o.type in ("CAMERA", "LIGHT", "EMPTY"):
            m = o.matrix_world
            print("WORLD", f, o.name, " ".join("%.6f" % m[r][c] for r in range(3) for c in range(4)))
scene.frame_set(1)
bpy.ops.object.select_all(action="SELECT")
bpy.ops.export_scene.fbx(filepath=base + ".fbx", bake_anim_use_all_actions=False, bake_anim_use_nla_strips=False)
