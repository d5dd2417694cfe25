# make_normal_strength.py - writes tests/data/normal_strength.fbx with Blender 3.4 (session 73):
#   blender -b --factory-startup --python tests/data/make_normal_strength.py -- tests/data/normal_strength.fbx
# A 2 x 2 plane "Panel" with one material "Bumpy": a Principled BSDF whose Normal input comes from a Normal Map node of
# Strength 0.6 on tests/data/textured_rig_normal.png (Non-Color), embedded in the file. Blender's FBX exporter writes
# the strength as the material's BumpFactor; test_materials reads it back as the normal map's scale.
import bpy, sys, os
out = sys.argv[sys.argv.index("--") + 1]
here = os.path.dirname(os.path.abspath(__file__))
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_plane_add(size=2)
panel = bpy.context.active_object
panel.name = "Panel"
mat = bpy.data.materials.new("Bumpy")
mat.use_nodes = True
nt = mat.node_tree
img = bpy.data.images.load(os.path.join(here, "textured_rig_normal.png"))
img.colorspace_settings.name = "Non-Color"
tex = nt.nodes.new("ShaderNodeTexImage")
tex.image = img
nmap = nt.nodes.new("ShaderNodeNormalMap")
nmap.inputs["Strength"].default_value = 0.6
nt.links.new(tex.outputs["Color"], nmap.inputs["Color"])
nt.links.new(nmap.outputs["Normal"], nt.nodes["Principled BSDF"].inputs["Normal"])
panel.data.materials.append(mat)
bpy.ops.object.select_all(action="SELECT")
bpy.ops.export_scene.fbx(filepath=out, path_mode="COPY", embed_textures=True)
