# make_textured_rig.py - writes tests/data/textured_rig.{fbx,dae} and the two 16x16 PNG textures beside them with
# Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_textured_rig.py -- tests/data/textured_rig.fbx
# An armature of 2 bones and a skinned cylinder (automatic weights) with two materials: "Skin" (Principled BSDF,
# base colour from textured_rig_albedo.png, normal map textured_rig_normal.png) on the faces below z = 1 and "Paint"
# (base colour 0.8 0.2 0.1 1, no texture) on the others. The .fbx embeds the PNG files (path_mode COPY,
# embed_textures); the .dae refers to them by relative path.
import bpy, sys, os
out = sys.argv[sys.argv.index("--") + 1]
base = os.path.splitext(out)[0]
folder = os.path.dirname(os.path.abspath(out))
bpy.ops.wm.read_factory_settings(use_empty=True)

def png(name, fn):
    img = bpy.data.images.new(name, 16, 16, alpha=True)
    px = []
    for y in range(16):
        for x in range(16):
            px += fn(x, y)
    img.pixels = px
    img.filepath_raw = os.path.join(folder, name + ".png")
    img.file_format = "PNG"
    img.save()
    return img

albedo = png("textured_rig_albedo", lambda x, y: [x / 15.0, y / 15.0, 0.5, 1.0])
normal = png("textured_rig_normal", lambda x, y: [0.5, 0.5 + 0.2 * ((x + y) % 2), 1.0, 1.0])

arm_data = bpy.data.armatures.new("Rig")
arm = bpy.data.objects.new("Rig", arm_data)
bpy.context.scene.collection.objects.link(arm)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode="EDIT")
b0 = arm_data.edit_bones.new("upper"); b0.head = (0, 0, 0); b0.tail = (0, 0, 1)
b1 = arm_data.edit_bones.new("lower"); b1.head = (0, 0, 1); b1.tail = (0, 0, 2); b1.parent = b0; b1.use_connect = True
bpy.ops.object.mode_set(mode="OBJECT")
bpy.ops.mesh.primitive_cylinder_add(vertices=12, radius=0.2, depth=2, location=(0, 0, 1))
cyl = bpy.context.active_object; cyl.name = "Body"
bpy.ops.object.mode_set(mode="EDIT"); bpy.ops.mesh.subdivide(number_cuts=2); bpy.ops.object.mode_set(mode="OBJECT")

skin = bpy.data.materials.new("Skin"); skin.use_nodes = True
nt = skin.node_tree; bsdf = nt.nodes["Principled BSDF"]
tex = nt.nodes.new("ShaderNodeTexImage"); tex.image = albedo
nt.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
ntex = nt.nodes.new("ShaderNodeTexImage"); ntex.image = normal; ntex.image.colorspace_settings.name = "Non-Color"
nmap = nt.nodes.new("ShaderNodeNormalMap")
nt.links.new(ntex.outputs["Color"], nmap.inputs["Color"])
nt.links.new(nmap.outputs["Normal"], bsdf.inputs["Normal"])
paint = bpy.data.materials.new("Paint"); paint.use_nodes = True
paint.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.8, 0.2, 0.1, 1.0)
paint.diffuse_color = (0.8, 0.2, 0.1, 1.0)
cyl.data.materials.append(skin); cyl.data.materials.append(paint)
for p in cyl.data.polygons:
    p.material_index = 0 if p.center.z < 1.0 else 1

cyl.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
bpy.ops.object.select_all(action="SELECT")
bpy.ops.export_scene.fbx(filepath=base + ".fbx", add_leaf_bones=False, path_mode="COPY", embed_textures=True)
bpy.ops.wm.collada_export(filepath=base + ".dae", use_texture_copies=False)
# Blender writes the images' absolute paths into the .dae: make them relative (the PNGs sit beside it)
dae = open(base + ".dae").read().replace(folder + "/", "")
open(base + ".dae", "w").write(dae)
