# make_custom_props.py - writes tests/data/custom_props.fbx or .glb with Blender 3.4 (the extension decides):
#   blender -b --factory-startup --python tests/data/make_custom_props.py -- tests/data/custom_props.fbx
#   blender -b --factory-startup --python-expr "import numpy; numpy.bool = bool" \
#       --python tests/data/make_custom_props.py -- tests/data/custom_props.glb
# The two-bone leg (blender_leg.py, automatic weights) with custom properties on the leg object (an integer, a float,
# a string, a bool and a colour) and on the armature object, exported with Custom Properties on (FBX user
# properties; the .glb: the nodes' extras). Converting the .fbx to .glb must give them back as the nodes' "extras"
# (Blender's glTF importer makes them custom properties again), the .glb to .fbx as user properties (Blender's FBX
# importer's custom properties); .dae names them as not written; the in-place .fbx and .glb keep them.
import bpy, sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_leg import leg_rig  # noqa: E402
out = sys.argv[sys.argv.index("--") + 1]
arm, leg = leg_rig()
leg["hp"] = 42
leg["speed"] = 1.5
leg["tag"] = "metal \"plate\""
leg["breakable"] = True
leg["tint"] = [1.0, 0.5, 0.25]
arm["rig_version"] = 3
leg.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
bpy.ops.object.select_all(action="SELECT")
if out.endswith(".fbx"):
    bpy.ops.export_scene.fbx(filepath=out, add_leaf_bones=False, use_custom_props=True)
else:  # the nodes' extras
    bpy.ops.export_scene.gltf(filepath=out, export_extras=True)
