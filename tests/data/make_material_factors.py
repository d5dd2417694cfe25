# make_material_factors.py - writes tests/data/material_factors.fbx or .glb with Blender 3.4 (the extension decides):
#   blender -b --factory-startup --python tests/data/make_material_factors.py -- tests/data/material_factors.fbx
#   blender -b --factory-startup --python-expr "import numpy; numpy.bool = bool" \
#       --python tests/data/make_material_factors.py -- tests/data/material_factors.glb
# The two-bone leg (blender_leg.py, automatic weights) with two materials on the halves of its faces - "Brass"
# (metallic 0.8, roughness 0.3, emission (0.5, 0.25, 0.1)) and "Rubber" (metallic 0, roughness 1) - and a mesh custom
# property (lod_group 2). Blender's FBX exporter writes metallic as ReflectionFactor, roughness as Shininess
# ((1 - r) * 10)^2, emission as EmissiveColor; its glTF exporter writes the mesh as one mesh with two primitives.
# Converting the .fbx to .glb must give the factors back, the .glb to .fbx the factors, the mesh's name and property.
import bpy, sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_leg import leg_rig  # noqa: E402
out = sys.argv[sys.argv.index("--") + 1]
arm, leg = leg_rig()
for name, metal, rough, emit in (("Brass", 0.8, 0.3, (0.5, 0.25, 0.1)), ("Rubber", 0.0, 1.0, None)):
    mat = bpy.data.materials.new(name); mat.use_nodes = True
    bsdf = mat.node_tree.nodes["Principled BSDF"]
    bsdf.inputs["Base Color"].default_value = (0.7, 0.5, 0.2, 1.0) if emit else (0.1, 0.1, 0.1, 1.0)
    bsdf.inputs["Metallic"].default_value = metal
    bsdf.inputs["Roughness"].default_value = rough
    if emit:
        bsdf.inputs["Emission"].default_value = emit + (1.0,)
    leg.data.materials.append(mat)
for p in leg.data.polygons:
    p.material_index = 0 if p.center.z > 0.0 else 1  # mesh space: z in [-1, 1]
leg.data["lod_group"] = 2
leg.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
bpy.ops.object.select_all(action="SELECT")
if out.endswith(".fbx"):
    bpy.ops.export_scene.fbx(filepath=out, add_leaf_bones=False, use_custom_props=True)
else:
    bpy.ops.export_scene.gltf(filepath=out, export_extras=True)
