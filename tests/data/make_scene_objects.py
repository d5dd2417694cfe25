# make_scene_objects.py - writes tests/data/scene_objects.{fbx,dae} with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_scene_objects.py -- tests/data/scene_objects
# The two-bone leg of blender_leg.py skinned with automatic weights, in a scene that also holds what a level or a
# shot around a character has: a perspective camera "ShotCam" (35 mm lens, clip 0.2-150) and an orthographic
# "OrthoCam" (scale 6), a point light "Lamp", a spot light "Spot" (60 degrees, blend 0.2), a sun "Sun", an empty
# "Marker" with a child empty "MarkerChild", an empty "PropAnchor" parented to the mesh object, and a point light
# "KneeLamp" parented to the bone "thigh". Prints each object's world matrix (WORLD lines) for the tests' figures.
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


def add(name, data, loc, rot):
    o = bpy.data.objects.new(name, data)
    scene.collection.objects.link(o)
    o.location = loc
    o.rotation_euler = [math.radians(a) for a in rot]
    return o


cam = bpy.data.cameras.new("ShotCam"); cam.lens = 35.0; cam.clip_start = 0.2; cam.clip_end = 150.0
add("ShotCam", cam, (4.0, -5.0, 3.0), (63.0, 0.0, 38.0))
ortho = bpy.data.cameras.new("OrthoCam"); ortho.type = "ORTHO"; ortho.ortho_scale = 6.0
add("OrthoCam", ortho, (0.0, -10.0, 1.0), (90.0, 0.0, 0.0))
lamp = bpy.data.lights.new("Lamp", "POINT"); lamp.energy = 800.0; lamp.color = (1.0, 0.8, 0.6)
add("Lamp", lamp, (2.0, 2.0, 4.0), (0.0, 0.0, 0.0))
spot = bpy.data.lights.new("Spot", "SPOT"); spot.energy = 500.0; spot.spot_size = math.radians(60.0)
spot.spot_blend = 0.2
add("Spot", spot, (-3.0, 0.5, 5.0), (30.0, -20.0, 10.0))
sun = bpy.data.lights.new("Sun", "SUN"); sun.energy = 3.0
add("Sun", sun, (0.0, 0.0, 10.0), (40.0, 10.0, 70.0))
marker = add("Marker", None, (1.5, 1.0, 0.0), (0.0, 0.0, 45.0))
child = add("MarkerChild", None, (0.0, 0.5, 0.25), (10.0, 0.0, 0.0))
child.parent = marker
anchor = add("PropAnchor", None, (0.3, 0.0, 1.2), (0.0, 15.0, 0.0))
anchor.parent = leg
knee = bpy.data.lights.new("KneeLamp", "POINT"); knee.energy = 50.0
knee_lamp = add("KneeLamp", knee, (0.0, 0.4, 0.1), (0.0, 0.0, 0.0))
knee_lamp.parent = arm; knee_lamp.parent_type = "BONE"; knee_lamp.parent_bone = "thigh"
bpy.context.view_layer.update()
for o in scene.objects:
    if o.type in ("CAMERA", "LIGHT", "EMPTY"):
        m = o.matrix_world
        print("WORLD", o.name, " ".join("%.6f" % m[r][c] for r in range(3) for c in range(4)))
bpy.ops.object.select_all(action="SELECT")
bpy.ops.export_scene.fbx(filepath=base + ".fbx")
bpy.ops.wm.collada_export(filepath=base + ".dae")
