# make_control_root.py - writes tests/data/control_root.glb and control_root.fbx with Blender 3.4 (session 73):
#   blender -b --factory-startup --python-expr "import numpy; numpy.bool = bool" \
#       --python tests/data/make_control_root.py -- tests/data/control_root.glb
# (the .fbx is written beside it). The two-bone leg (blender_leg.py, automatic weights on "thigh" and "shin") under a
# non-deform control bone "root" at the origin (0, 0, 0) -> (0, 0.5, 0), as production rigs and Unreal's mannequin
# have one: no vertex weights it, and both of Blender's exporters list it as a joint (glTF skin, FBX cluster).
# Blender's importers read it back as a bone of the armature "Rig"; Import via skinkit made "root" the armature object
# and the file's "Rig" an empty above it (blender_test_io.py test_import_keeps_a_control_root_bone).
import bpy, sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_leg import leg_rig  # noqa: E402
out = sys.argv[sys.argv.index("--") + 1]
arm, leg = leg_rig()
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode="EDIT")
root = arm.data.edit_bones.new("root")
root.head, root.tail, root.use_deform = (0, 0, 0), (0, 0.5, 0), False
arm.data.edit_bones["thigh"].parent = root
bpy.ops.object.mode_set(mode="OBJECT")
leg.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
bpy.ops.object.select_all(action="SELECT")
base = os.path.splitext(out)[0]
bpy.ops.export_scene.gltf(filepath=base + ".glb")
bpy.ops.export_scene.fbx(filepath=base + ".fbx", add_leaf_bones=False)
