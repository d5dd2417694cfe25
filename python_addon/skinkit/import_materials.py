"""skinkit (glTF metallic-roughness) materials as Blender materials, for import_scene.skinkit_assimp.

The import direction of materials.py: each material becomes a node tree of the shapes Blender 3.4's own glTF importer
builds, which materials.MaterialWriter reads back to the same values:

- Principled BSDF (IOR 1.5, glTF's) into a Material Output's Surface;
- Base Color: the factor, or an Image Texture (sRGB) whose Color feeds it, through a Mix node (RGBA, Multiply,
  factor 1) holding the factor when the factor is not white; Alpha: the factor's alpha, or the same image's Alpha
  (times a Math Multiply when the factor's alpha is not 1) - for MASK and BLEND only: glTF ignores alpha when OPAQUE,
  and so does Blender's importer;
- Metallic / Roughness: the factors, or an Image Texture (Non-Color) through Separate Color, Blue -> Metallic,
  Green -> Roughness, each through a Math Multiply holding its factor when that is not 1;
- Normal: an Image Texture (Non-Color) into a tangent-space Normal Map node whose Strength is the normal scale;
- Emission: the colour (Emission Strength 1), or an Image Texture (sRGB) whose colour is scaled by the factor: a grey
  factor as the Emission Strength, another through a Mix Multiply;
- Occlusion: an Image Texture (Non-Color) through Separate Color, Red -> the "Occlusion" input of the
  "glTF Material Output" group node (no effect on rendering; Blender's glTF exporter and materials.py read it);
- alpha mode: OPAQUE as is, MASK -> blend method Clip with the cutoff as Clip Threshold, BLEND -> Alpha Blend;
  double sided -> backface culling off; viewport display colour, metallic and roughness = the factors.

Images, one datablock per scene image: embedded bytes become a packed image (images.new + pack(data=...), as
Blender's glTF importer does); a file found beside the model is loaded (bpy.data.images.load, check_existing, not
packed, as Blender's FBX importer does); a file not found is an image datablock pointing at the path the model names
(Blender shows it pink until the file is there) and a note. Nothing here loops over pixels or vertices.
"""

import os
import re

import bpy

_GROUP_NAME = "glTF Material Output"  # Blender 3.4's glTF importer's settings group (older files: "glTF Settings")
_GROUP_NAMES = (_GROUP_NAME, "glTF Settings")
_GLTF_IOR = 1.5
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")


def _one(v):
    return abs(float(v) - 1.0) <= 1e-6


class _Tree:
    """Builds one material's nodes, laid out as Blender's glTF importer does: the BSDF at the right, one block of
    nodes per texture slot to its left, top to bottom."""

    def __init__(self, mat):
        self.nt = mat.node_tree
        self.y = 300

    def node(self, kind, x, y, label=None):
        n = self.nt.nodes.new(kind)
        n.location = x, y
        if label:
            n.label = label
        return n

    def link(self, to_socket, from_socket):
        self.nt.links.new(from_socket, to_socket)

    def block(self):
        """(x, y) of the next texture slot's block (its right edge), moving the next one down."""
        y = self.y
        self.y -= 320
        return -200, y

    def multiply_color(self, socket, rgb, x, y, label):
        """A Mix node (RGBA, Multiply, factor 1) feeding socket, its B the constant rgb; returns its A socket."""
        n = self.node("ShaderNodeMix", x - 140, y, label)
        n.data_type = "RGBA"
        n.blend_type = "MULTIPLY"
        n.inputs[0].default_value = 1.0
        n.inputs[7].default_value = tuple(rgb[:3]) + (1.0,)
        self.link(socket, n.outputs[2])
        return n.inputs[6]

    def multiply(self, socket, value, x, y, label):
        """A Math Multiply feeding socket, its second input the constant; returns its first input."""
        n = self.node("ShaderNodeMath", x - 140, y, label)
        n.operation = "MULTIPLY"
        n.inputs[1].default_value = float(value)
        self.link(socket, n.outputs[0])
        return n.inputs[0]

    def separate(self, x, y):
        return self.node("ShaderNodeSeparateColor", x - 150, y - 75)

    def texture(self, image, x, y, label):
        n = self.node("ShaderNodeTexImage", x - 240, y, label)
        n.image = image
        return n


class MaterialReader:
    """Blender materials and images for a skinkit Scene's materials, each made once (``material(i)``); ``notes``
    says what could not be carried (for the operator's report), ``missing`` names the images not found."""

    def __init__(self, scene, source_path):
        self.scene = scene
        self.folder = os.path.dirname(os.path.abspath(source_path)) if source_path else ""
        self.materials = {}  # scene material index -> bpy.types.Material
        self.images = {}  # scene image index -> bpy.types.Image, or None when there is nothing to show
        self.data_images = set()  # scene image indices read as data (Non-Color)
        self.created = []  # datablocks made here (discard removes them again)
        self.missing = []
        self.notes = []

    def note(self, text):
        if text not in self.notes:
            self.notes.append(text)

    @property
    def names(self):
        """Names of the Blender materials made, in scene material order."""
        return [self.materials[k].name for k in sorted(self.materials)]

    def material(self, i):
        """The Blender material of scene material i (made on first use); None for i None."""
        if i is None:
            return None
        i = int(i)
        if i not in self.materials:
            self.materials[i] = self._build(self.scene.material_info(i), i)
        return self.materials[i]

    def discard(self):
        """Removes the materials and images made here that nothing else uses (after a failed import)."""
        for block in reversed(self.created):
            try:
                coll = bpy.data.materials if isinstance(block, bpy.types.Material) else bpy.data.images
                if block.users == 0:
                    coll.remove(block)
            except ReferenceError:
                pass
        self.created.clear()

    # ---------------------------------------------------------------------------------------------- materials
    def _build(self, info, index):
        mat = bpy.data.materials.new(info["name"] or "Material_%d" % index)
        self.created.append(mat)
        base = tuple(float(c) for c in info["base_color"])
        mode = info["alpha_mode"]
        mat.use_backface_culling = not info["double_sided"]
        if mode == "BLEND":
            mat.blend_method = "BLEND"
        elif mode == "MASK":
            mat.blend_method = "CLIP"
            mat.alpha_threshold = float(info["alpha_cutoff"])
        mat.diffuse_color = base
        mat.metallic = float(info["metallic"])
        mat.roughness = float(info["roughness"])
        mat.use_nodes = True
        nt = mat.node_tree
        while nt.nodes:
            nt.nodes.remove(nt.nodes[0])
        t = _Tree(mat)
        bsdf = t.node("ShaderNodeBsdfPrincipled", 10, 300)
        bsdf.inputs["IOR"].default_value = _GLTF_IOR
        out = t.node("ShaderNodeOutputMaterial", 320, 300)
        t.link(out.inputs["Surface"], bsdf.outputs[0])
        self._base_color(t, bsdf, info, base, mode != "OPAQUE")
        self._metallic_roughness(t, bsdf, info)
        self._emission(t, bsdf, info)
        self._normal(t, bsdf, info)
        self._occlusion(t, info)
        return mat

    def _base_color(self, t, bsdf, info, base, use_alpha):
        color, alpha = bsdf.inputs["Base Color"], bsdf.inputs["Alpha"] if use_alpha else None
        image = self._image(info["base_color_image"], False)
        if image is None:
            color.default_value = base[:3] + (1.0,)
            if alpha is not None:
                alpha.default_value = base[3]
            return
        x, y = t.block()
        if not all(_one(c) for c in base[:3]):
            color = t.multiply_color(color, base, x, y, "Color Factor")
        if alpha is not None and not _one(base[3]):
            alpha = t.multiply(alpha, base[3], x, y - 200, "Alpha Factor")
        tex = t.texture(image, x - 200, y, "BASE COLOR")
        t.link(color, tex.outputs["Color"])
        if alpha is not None:
            t.link(alpha, tex.outputs["Alpha"])

    def _metallic_roughness(self, t, bsdf, info):
        metal, rough = bsdf.inputs["Metallic"], bsdf.inputs["Roughness"]
        mf, rf = float(info["metallic"]), float(info["roughness"])
        image = self._image(info["metallic_roughness_image"], True)
        if image is None:
            metal.default_value, rough.default_value = mf, rf
            return
        x, y = t.block()
        if not _one(mf):
            metal = t.multiply(metal, mf, x, y, "Metallic Factor")
        if not _one(rf):
            rough = t.multiply(rough, rf, x, y - 200, "Roughness Factor")
        sep = t.separate(x - 200, y)
        t.link(metal, sep.outputs["Blue"])
        t.link(rough, sep.outputs["Green"])
        tex = t.texture(image, x - 400, y, "METALLIC ROUGHNESS")
        t.link(sep.inputs[0], tex.outputs["Color"])

    def _emission(self, t, bsdf, info):
        color = bsdf.inputs.get("Emission Color") or bsdf.inputs["Emission"]  # "Emission" before Blender 4.0
        strength = bsdf.inputs["Emission Strength"]
        e = tuple(float(c) for c in info["emissive"])
        image = self._image(info["emissive_image"], False)
        strength.default_value = 1.0
        if image is None:
            color.default_value = e + (1.0,)
            return
        x, y = t.block()
        if e[0] == e[1] == e[2]:  # a grey factor is the strength, as Blender's glTF importer sets it
            strength.default_value = e[0]
        else:
            color = t.multiply_color(color, e, x, y, "Emissive Factor")
        tex = t.texture(image, x - 200, y, "EMISSIVE")
        t.link(color, tex.outputs["Color"])

    def _normal(self, t, bsdf, info):
        image = self._image(info["normal_image"], True)
        if image is None:
            return
        x, y = t.block()
        nmap = t.node("ShaderNodeNormalMap", x - 150, y - 40)
        nmap.space = "TANGENT"
        nmap.inputs["Strength"].default_value = float(info["normal_scale"])
        t.link(bsdf.inputs["Normal"], nmap.outputs["Normal"])
        tex = t.texture(image, x - 350, y, "NORMALMAP")
        t.link(nmap.inputs["Color"], tex.outputs["Color"])

    def _occlusion(self, t, info):
        image = self._image(info["occlusion_image"], True)
        if image is None:
            return
        group = t.node("ShaderNodeGroup", 40, -370)
        group.node_tree = _settings_group()
        group.width = 180
        x, y = t.block()
        sep = t.separate(x, y)
        t.link(group.inputs["Occlusion"], sep.outputs["Red"])
        tex = t.texture(image, x - 200, y, "OCCLUSION")
        t.link(sep.inputs[0], tex.outputs["Color"])

    # ---------------------------------------------------------------------------------------------- images
    def _image(self, i, data):
        """The Blender image of scene image i (made on first use), None for none or nothing to show; data: read as
        data (normal, metallic-roughness, occlusion), so Non-Color."""
        if i is None:
            return None
        i = int(i)
        if i not in self.images:
            self.images[i] = self._make_image(self.scene.image_info(i), i)
        img = self.images[i]
        if img is not None and data and i not in self.data_images:
            self.data_images.add(i)
            try:
                img.colorspace_settings.name = "Non-Color"
            except TypeError:  # a colour management configuration without it
                img.colorspace_settings.is_data = True
        return img

    def _make_image(self, info, i):
        name = info["name"] or os.path.basename((info["uri"] or "").replace("\\", "/")) or "Image_%d" % i
        data, path = info["data"], info["path"]
        if info["mime"] == "image/ktx2":
            self.note("image %s is KTX2, which Blender does not display: kept packed" % name)
        if data is not None and (info["embedded"] or not path):
            img = bpy.data.images.new(name, 8, 8)
            img.pack(data=data, data_len=len(data))
            img.source = "FILE"
            self.created.append(img)
            return img
        if path:
            path = os.path.abspath(path)
            count = len(bpy.data.images)
            try:
                img = bpy.data.images.load(_file_path(path), check_existing=True)
            except RuntimeError as e:
                self.note("image %s: %s, left out" % (name, e))
                return None
            if len(bpy.data.images) != count:
                self.created.append(img)
            return img
        if info["embedded"]:
            self.note("embedded image %s could not be read, left out" % name)
            return None
        # not found: a datablock pointing where the model says (pink until the file is there)
        want = self._expected_path(info["uri"] or name)
        img = bpy.data.images.new(name, 128, 128)
        img.filepath = _file_path(want)
        img.source = "FILE"
        self.created.append(img)
        self.missing.append(name)
        self.note("image %s not found (%s): its image datablock points there" % (name, want))
        return img

    def _expected_path(self, uri):
        """Where the model's path for an image points: relative to the model's folder, or as written when absolute."""
        p = uri.replace("\\", "/")
        if p.startswith("file://"):
            p = p[7:]
        if os.path.isabs(p) or _DRIVE.match(p):
            return p
        return os.path.normpath(os.path.join(self.folder, p))


def _file_path(path):
    """path relative to the .blend when it is saved and the preferences ask for relative paths (as Blender's glTF
    importer stores it), else as given."""
    try:
        if bpy.data.is_saved and bpy.context.preferences.filepaths.use_relative_paths:
            return bpy.path.relpath(path)
    except ValueError:  # another drive
        pass
    return path


def _settings_group():
    """The "glTF Material Output" node group (made as Blender's glTF importer makes it when missing): an Occlusion
    input that only exporters read."""
    for name in _GROUP_NAMES:
        group = bpy.data.node_groups.get(name)
        if group is not None and group.bl_idname == "ShaderNodeTree" and "Occlusion" in _group_inputs(group):
            return group
    group = bpy.data.node_groups.new(_GROUP_NAME, "ShaderNodeTree")
    _group_input(group, "NodeSocketFloat", "Occlusion")
    _group_input(group, "NodeSocketFloat", "Thickness").default_value = 0.0
    group.nodes.new("NodeGroupOutput")
    group.nodes.new("NodeGroupInput").location = -200, 0
    _group_input(group, "NodeSocketFloat", "Specular").default_value = 1.0
    _group_input(group, "NodeSocketColor", "Specular Color").default_value = (1.0, 1.0, 1.0, 1.0)
    return group


def _group_inputs(group):
    """Names of a node group's input sockets (Blender 3.x and 4.x)."""
    if hasattr(group, "interface"):
        return [i.name for i in group.interface.items_tree if getattr(i, "in_out", None) == "INPUT"]
    return [i.name for i in group.inputs]


def _group_input(group, kind, name):
    """A new input socket of a node group: group.inputs before Blender 4.0, its interface from 4.0 on."""
    if hasattr(group, "interface"):
        return group.interface.new_socket(name, in_out="INPUT", socket_type=kind)
    return group.inputs.new(kind, name)
