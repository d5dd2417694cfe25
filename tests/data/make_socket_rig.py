# make_socket_rig.py - writes tests/data/socket_rig.{fbx,glb} with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_socket_rig.py -- tests/data/socket_rig
# The two-bone leg of blender_leg.py (subdivided, skinned with automatic weights) and two empties a game uses as
# attachment points: "WeaponSocket" parented to bone "shin" (parent_type BONE) and "HeadSocket" parented to that
# socket. The armature object is then moved and turned (the leg follows it), so that it is no identity node. The FBX
# is written with Blender's default leaf bones on (a "shin_end" LimbNode past the last bone).
import bpy, sys, os
import numpy
numpy.bool = bool
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_leg import leg_rig  # noqa: E402
base = sys.argv[sys.argv.index("--") + 1]
arm, leg = leg_rig()
bpy.ops.object.mode_set(mode="EDIT"); bpy.ops.mesh.subdivide(number_cuts=2); bpy.ops.object.mode_set(mode="OBJECT")
leg.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
sock = bpy.data.objects.new("WeaponSocket", None)
bpy.context.scene.collection.objects.link(sock)
sock.parent = arm; sock.parent_type = "BONE"; sock.parent_bone = "shin"
sock.location = (0.3, -0.5, 0.1); sock.rotation_euler = (0.4, 0.0, 0.2)
head = bpy.data.objects.new("HeadSocket", None)
bpy.context.scene.collection.objects.link(head)
head.parent = sock; head.location = (0.0, 0.25, 0.0)
arm.location = (1.0, 2.0, 0.0); arm.rotation_euler = (0.0, 0.0, 0.5236)
bpy.context.view_layer.update()
for o in (sock, head):
    print("WORLD", o.name, "%.6f %.6f %.6f" % tuple(o.matrix_world.translation))
bpy.ops.object.select_all(action="SELECT")
bpy.ops.export_scene.fbx(filepath=base + ".fbx")
bpy.ops.export_scene.gltf(filepath=base + ".glb", export_format="GLB")
