# make_material_props.py - writes tests/data/material_props.fbx or .glb with Blender 3.4 (the extension decides):
#   blender -b --factory-startup --python tests/data/make_material_props.py -- tests/data/material_props.fbx
#   blender -b --factory-startup --python-expr "import numpy; numpy.bool = bool" \
#       --python tests/data/make_material_props.py -- tests/data/material_props.glb
# The two-bone leg (blender_leg.py, automatic weights) with a material "Steel" carrying custom properties (a string, a
# float and an integer) and its mesh one (lod_group 2), exported with Custom Properties on: the FBX Material's and
# Geometry's user properties, the .glb material's and mesh's "extras". Converting the .fbx to .glb must give them back as the material's "extras" (Blender's glTF importer makes
# them the material's custom properties again), the .glb to .fbx as the Material's user properties (Blender's FBX
# importer's); .dae names them as not written.
import bpy, sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_leg import leg_rig  # noqa: E402
out = sys.argv[sys.argv.index("--") + 1]
arm, leg = leg_rig()
mat = bpy.data.materials.new("Steel")
mat.diffuse_color = (0.6, 0.6, 0.65, 1.0)
mat["shader_tag"] = "metal"
mat["wear"] = 0.25
mat["layer"] = 3
leg.data.materials.append(mat)
leg.data["lod_group"] = 2  # a mesh data custom property: the FBX Geometry's user property, the glTF mesh's extras
leg.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
bpy.ops.object.select_all(action="SELECT")
if out.endswith(".fbx"):
    bpy.ops.export_scene.fbx(filepath=out, add_leaf_bones=False, use_custom_props=True)
else:  # the material's extras
    bpy.ops.export_scene.gltf(filepath=out, export_extras=True)
