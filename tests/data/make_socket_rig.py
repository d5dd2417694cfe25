# make_socket_rig.py - writes tests/data/socket_rig.{fbx,glb} with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_socket_rig.py -- tests/data/socket_rig
# An armature "Rig" of two bones, a cylinder skinned to them (automatic weights) and two empties a game uses as
# attachment points: "WeaponSocket" parented to bone "lower" (parent_type BONE) and "HeadSocket" parented to that
# socket. The armature object is then moved and turned (the body follows it), so that it is no identity node. The FBX
# is written with Blender's default leaf bones on (a "lower_end" LimbNode past the last bone).
import bpy, sys
import numpy
numpy.bool = bool
base = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
arm_data = bpy.data.armatures.new("Rig")
arm = bpy.data.objects.new("Rig", arm_data)
bpy.context.scene.collection.objects.link(arm)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode="EDIT")
b0 = arm_data.edit_bones.new("upper"); b0.head = (0, 0, 0); b0.tail = (0, 0, 1)
b1 = arm_data.edit_bones.new("lower"); b1.head = (0, 0, 1); b1.tail = (0, 0, 2); b1.parent = b0; b1.use_connect = True
bpy.ops.object.mode_set(mode="OBJECT")
bpy.ops.mesh.primitive_cylinder_add(vertices=8, radius=0.2, depth=2, location=(0, 0, 1))
cyl = bpy.context.active_object; cyl.name = "Body"
bpy.ops.object.mode_set(mode="EDIT"); bpy.ops.mesh.subdivide(number_cuts=2); bpy.ops.object.mode_set(mode="OBJECT")
cyl.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
sock = bpy.data.objects.new("WeaponSocket", None)
bpy.context.scene.collection.objects.link(sock)
sock.parent = arm; sock.parent_type = "BONE"; sock.parent_bone = "lower"
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
