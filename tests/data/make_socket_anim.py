# make_socket_anim.py - writes tests/data/socket_anim.glb with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_socket_anim.py -- tests/data/socket_anim.glb
# socket_rig.glb (the two-bone leg with the empty "WeaponSocket" parented to bone "shin") with the socket keyed alone:
# its location at frames 1, 10 and 20, no bone keyed, so the file's one clip keys a node no skin lists and nothing
# else (a prop swinging on its socket). Blender's glTF importer makes the socket an empty on the bone with that action.
import bpy, sys, os
import numpy
numpy.bool = bool
out = sys.argv[sys.argv.index("--") + 1]
here = os.path.dirname(os.path.abspath(__file__))
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=os.path.join(here, "socket_rig.glb"))
sock = bpy.data.objects["WeaponSocket"]
for frame, loc in ((1, (0.0, 0.0, 0.0)), (10, (0.3, 0.2, -0.1)), (20, (0.0, 0.4, 0.0))):
    sock.location = loc
    sock.keyframe_insert("location", frame=frame)
bpy.ops.export_scene.gltf(filepath=out, export_format="GLB")
