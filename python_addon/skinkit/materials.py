"""Blender materials as skinkit (glTF metallic-roughness) materials, for export_scene.skinkit_assimp.

A material is read the way Blender's own glTF exporter reads the common case: the Principled BSDF linked to the
active Material Output's Surface. Each of its inputs is its default value, or an Image Texture linked to it - directly,
through Separate Color / Separate RGB (Metallic = blue, Roughness = green, Occlusion = red: glTF's packing), or
multiplied by a constant (a Mix node set to Multiply, a Math node Multiply), which is the factor: exactly the nodes
Blender's glTF importer builds, so a .glb read by Blender is written back with its materials. Normal: a tangent-space
Normal Map node over an Image Texture. Occlusion: the "Occlusion" input of the importer's "glTF Material Output"
(or "glTF Settings") group. Anything else linked to an input leaves the input's default value and a note, which
the operator reports. A material without nodes: its viewport display colour, metallic and roughness.

Images are the bytes of the image's file: packed, else the file on disk; PNG, JPEG, WebP or KTX2 (the library
refuses anything else), else left out with a note.
"""

import os
from collections import namedtuple

import bpy
import numpy as np

from . import bridge

# An input's source: image_node (an Image Texture, or None for a constant), channel (the image's "Color" or
# "Alpha", or the separated "R", "G", "B"), factor (the constant: a float or an RGBA tuple).
Source = namedtuple("Source", "image_node channel factor")

_SEPARATED = {"Red": "R", "Green": "G", "Blue": "B", "R": "R", "G": "G", "B": "B"}
_GLTF_GROUPS = ("glTF Material Output", "glTF Settings")
_ALPHA_MODES = {"OPAQUE": "OPAQUE", "CLIP": "MASK", "HASHED": "BLEND", "BLEND": "BLEND"}
_MAGIC = ((b"\x89PNG", ".png"), (b"\xff\xd8\xff", ".jpg"), (b"\xabKTX 20", ".ktx2"))
_EXTENSIONS = (".png", ".jpg", ".jpeg", ".webp", ".ktx2", ".tga", ".bmp", ".tif", ".tiff", ".exr", ".hdr")


def _link(socket):
    """(from_node, from_socket) of the unmuted link into socket, through reroutes; None when unlinked."""
    while socket is not None and socket.is_linked:
        links = [lk for lk in socket.links if not getattr(lk, "is_muted", False)]
        if not links:
            return None
        node, out = links[0].from_node, links[0].from_socket
        if node.type != "REROUTE":
            return node, out
        socket = node.inputs[0]
    return None


def _value(socket):
    v = socket.default_value
    return tuple(v) if hasattr(v, "__len__") else float(v)


def _image_source(socket):
    """Source of an image read directly or through a Separate Color / Separate RGB node; None otherwise."""
    found = _link(socket)
    if found is None:
        return None
    node, out = found
    if node.type == "TEX_IMAGE" and node.image is not None and out.name in ("Color", "Alpha"):
        return Source(node, out.name, 1.0)
    if node.type in ("SEPARATE_COLOR", "SEPRGB") and getattr(node, "mode", "RGB") == "RGB":
        inner = _link(node.inputs[0])
        if inner and inner[0].type == "TEX_IMAGE" and inner[0].image is not None and inner[1].name == "Color":
            return Source(inner[0], _SEPARATED.get(out.name), 1.0)
    return None


def _multiplied(node):
    """(the two factor sockets) of a node multiplying two inputs - Mix (RGBA, Multiply, factor 1), MixRGB
    (Multiply, factor 1) or Math (Multiply) - else None."""
    if node.type == "MIX" and node.data_type == "RGBA" and node.blend_type == "MULTIPLY":
        fac, a, b = node.inputs[0], node.inputs[6], node.inputs[7]
    elif node.type == "MIX_RGB" and node.blend_type == "MULTIPLY":
        fac, a, b = node.inputs["Fac"], node.inputs["Color1"], node.inputs["Color2"]
    elif node.type == "MATH" and node.operation == "MULTIPLY":
        return node.inputs[0], node.inputs[1]
    else:
        return None
    return (a, b) if not fac.is_linked and abs(fac.default_value - 1.0) < 1e-6 else None


def source(socket):
    """What feeds a BSDF input (see Source); None when other nodes do."""
    found = _link(socket)
    if found is None:
        return Source(None, None, _value(socket))
    direct = _image_source(socket)
    if direct is not None:
        return direct
    pair = _multiplied(found[0])
    if pair is None:
        return None
    for img, const in (pair, pair[::-1]):
        s = _image_source(img)
        if s is not None and not const.is_linked:
            return Source(s.image_node, s.channel, _value(const))
    return None


def _input(node, *names):
    for n in names:
        s = node.inputs.get(n)
        if s is not None:
            return s
    return None


def _rgb(factor):
    return tuple(factor[:3]) if isinstance(factor, tuple) else (factor,) * 3


def _scalar(factor):
    return float(np.mean(factor[:3])) if isinstance(factor, tuple) else float(factor)


def surface_bsdf(mat):
    """The Principled BSDF linked to the Surface of the material's active output, or None."""
    if not mat.use_nodes or mat.node_tree is None:
        return None
    out = mat.node_tree.get_output_node("ALL")
    found = _link(out.inputs["Surface"]) if out is not None else None
    return found[0] if found and found[0].type == "BSDF_PRINCIPLED" else None


class MaterialWriter:
    """Adds Blender materials and their images to a skinkit Scene, each once; collects notes on what was not
    carried (``notes``, for the operator's warning)."""

    def __init__(self, scene):
        self.scene = scene
        self.materials = {}  # Blender material name_full -> skinkit index
        self.images = {}  # Blender image name_full -> skinkit index, -1 when left out
        self.file_names = set()
        self.notes = []

    def note(self, text):
        if text not in self.notes:
            self.notes.append(text)

    def material(self, mat):
        """skinkit index of a Blender material (added on first use)."""
        key = mat.name_full
        if key not in self.materials:
            bsdf = surface_bsdf(mat)
            if bsdf is None and mat.use_nodes and mat.node_tree is not None:
                self.note("material %s: its surface is not a Principled BSDF, written from its viewport display "
                          "colour" % mat.name)
            desc = self._from_bsdf(mat, bsdf) if bsdf is not None else self._from_viewport(mat)
            desc.update(self._blend(mat))
            self.materials[key] = self.scene.add_material(name=mat.name, **desc)
            self._custom_props(mat)
        return self.materials[key]

    def _custom_props(self, mat):
        """The material's custom properties (ABI 1.18: the glTF material's extras, the binary FBX Material's user
        properties), as Blender's exporters write them; keys starting with "_" and add-ons' own left out."""
        for key in mat.keys():
            if key.startswith("_") or key in ("cycles", "glTF2ExportSettings"):
                continue
            value = mat[key]
            if hasattr(value, "to_list"):
                value = value.to_list()
            self.scene.add_material_prop(mat.name, key, value)

    # ---------------------------------------------------------------------------------------------- reading
    def _from_viewport(self, mat):
        return dict(base_color=tuple(mat.diffuse_color), metallic=mat.metallic, roughness=mat.roughness)

    @staticmethod
    def _blend(mat):
        mode = _ALPHA_MODES.get(getattr(mat, "blend_method", "OPAQUE"), "OPAQUE")
        return dict(alpha_mode=mode, alpha_cutoff=getattr(mat, "alpha_threshold", 0.5),
                    double_sided=not mat.use_backface_culling)

    def _source(self, mat, bsdf, names, channels):
        """Source of the first input among names whose image channel is one of channels; the input's default value
        (and a note) when other nodes feed it."""
        socket = _input(bsdf, *names)
        if socket is None:
            return None
        s = source(socket)
        if s is None or (s.image_node is not None and s.channel not in channels):
            self.note("material %s: %s comes from nodes, written as its value" % (mat.name, socket.name))
            return Source(None, None, _value(socket))
        return s

    def _from_bsdf(self, mat, bsdf):
        base = self._source(mat, bsdf, ("Base Color",), ("Color",))
        alpha = self._source(mat, bsdf, ("Alpha",), ("Alpha",))
        image = None if base.image_node is None else base.image_node.image
        if alpha.image_node is not None and alpha.image_node.image != image:
            self.note("material %s: Alpha comes from another image than Base Color, written as its value" % mat.name)
            alpha = Source(None, None, _value(_input(bsdf, "Alpha")))
        desc = dict(base_color=_rgb(base.factor) + (_scalar(alpha.factor),), base_color_image=self._image(mat, base))
        desc.update(self._metallic_roughness(mat, bsdf))
        desc.update(self._emission(mat, bsdf))
        desc.update(self._normal(mat, bsdf))
        desc["occlusion_image"] = self._occlusion(mat)
        return desc

    def _metallic_roughness(self, mat, bsdf):
        metal = self._source(mat, bsdf, ("Metallic",), ("B",))
        rough = self._source(mat, bsdf, ("Roughness",), ("G",))
        out = dict(metallic=_scalar(metal.factor), roughness=_scalar(rough.factor))
        images = {s.image_node.image.name_full: s for s in (metal, rough) if s.image_node is not None}
        if len(images) > 1:
            self.note("material %s: Metallic and Roughness come from two images, written as their values"
                      % mat.name)
            return dict(metallic=_value(_input(bsdf, "Metallic")), roughness=_value(_input(bsdf, "Roughness")))
        if images:
            out["metallic_roughness_image"] = self._image(mat, next(iter(images.values())))
        return out

    def _emission(self, mat, bsdf):
        color = self._source(mat, bsdf, ("Emission Color", "Emission"), ("Color",))
        strength = self._source(mat, bsdf, ("Emission Strength",), ())
        s = 1.0 if strength is None else _scalar(strength.factor)
        want = np.asarray(_rgb(color.factor) if color is not None else (0.0, 0.0, 0.0), np.float64) * s
        got = np.clip(want, 0.0, 1.0)
        if (want > 1.0 + 1e-6).any():
            self.note("material %s: emission brighter than 1 (strength %.3g), written clamped to 1" % (mat.name, s))
        return dict(emissive=tuple(got.tolist()), emissive_image=self._image(mat, color))

    def _normal(self, mat, bsdf):
        found = _link(bsdf.inputs["Normal"]) if "Normal" in bsdf.inputs else None
        if found is None:
            return {}
        node = found[0]
        if node.type == "NORMAL_MAP" and _link(node.inputs["Color"]) is None:
            return {}  # its flat default colour: no normal map (what Blender's FBX importer builds)
        img = _image_source(node.inputs["Color"]) if node.type == "NORMAL_MAP" else None
        if img is None or img.channel != "Color" or node.space != "TANGENT" or node.inputs["Strength"].is_linked:
            self.note("material %s: Normal comes from nodes other than a tangent-space Normal Map of an image, left "
                      "out" % mat.name)
            return {}
        return dict(normal_image=self._image(mat, img), normal_scale=node.inputs["Strength"].default_value)

    def _occlusion(self, mat):
        for node in mat.node_tree.nodes:
            tree = getattr(node, "node_tree", None) if node.type == "GROUP" else None
            socket = node.inputs.get("Occlusion") if tree is not None and tree.name in _GLTF_GROUPS else None
            if socket is not None and socket.is_linked:
                s = _image_source(socket)
                if s is None or s.channel != "R":
                    self.note("material %s: Occlusion comes from nodes, left out" % mat.name)
                    return -1
                return self._image(mat, s)
        return -1

    # ---------------------------------------------------------------------------------------------- images
    def _image(self, mat, src):
        """skinkit index of the image a Source reads (added on first use), -1 for none or an image left out."""
        if src is None or src.image_node is None:
            return -1
        node = src.image_node
        uv = _link(node.inputs["Vector"])
        if uv is not None and uv[0].type != "UVMAP":
            self.note("material %s: the texture coordinates of image %s come from nodes, written on the UV map"
                      % (mat.name, node.image.name))
        img = node.image
        key = img.name_full
        if key not in self.images:
            self.images[key] = self._add_image(img)
        return self.images[key]

    def _add_image(self, img):
        data, why = image_bytes(img)
        if data is None:
            self.note("image %s: %s, left out" % (img.name, why))
            return -1
        try:
            return self.scene.add_image(data, self._file_name(img, data))
        except Exception as e:  # SkinkitError: not PNG/JPEG/WebP/KTX2, or too large
            self.note("image %s (%s): %s, left out" % (img.name, img.file_format,
                                                       getattr(e, "message", None) or e))
            return -1

    def _file_name(self, img, data):
        """A file name for the image (for writers that put images beside the model), unique in the scene: its file's
        or its own name, with the extension its bytes call for."""
        stem = os.path.basename(img.filepath) or img.name
        if os.path.splitext(stem)[1].lower() in _EXTENSIONS:
            stem = os.path.splitext(stem)[0]
        stem, ext = bpy.path.clean_name(stem) or "image", _extension(data)
        name, k = stem + ext, 1
        while name.lower() in self.file_names:
            name, k = "%s_%d%s" % (stem, k, ext), k + 1
        self.file_names.add(name.lower())
        return name


def _extension(data):
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return ".webp"
    return next((ext for magic, ext in _MAGIC if data.startswith(magic)), ".bin")


def image_bytes(img):
    """(bytes of the image's file, None) - packed, else read from disk - or (None, why not)."""
    if img.packed_file is not None:
        return bytes(img.packed_file.data), None
    if img.source != "FILE" or not img.filepath:
        return None, "not saved to a file (%s)" % img.source.lower()
    path = bpy.path.abspath(img.filepath, library=img.library)
    if not os.path.isfile(path):
        return None, "file %s not found" % path
    if img.is_dirty:
        return None, "has unsaved changes"
    with open(path, "rb") as f:
        return f.read(), None


# -------------------------------------------------------------------------------------------------- parts
def triangle_materials(obj, triangle_count):
    """(materials, int64[T] index into them per loop triangle) of a mesh object, materials being the Blender
    materials (None for an empty slot) its triangles use, one entry per distinct material; None when no slot holds
    a material. The triangles are mesh.loop_triangles (the order of bridge.mesh_triangles and the export's UV
    split)."""
    slots = [s.material for s in obj.material_slots]
    if not any(slots) or not triangle_count:
        return None
    me = obj.data
    me.calc_loop_triangles()
    if len(me.loop_triangles) != triangle_count:
        raise ValueError("%s: %d loop triangles for %d triangles" % (obj.name, len(me.loop_triangles),
                                                                    triangle_count))
    slot = bridge.get_ints(me.loop_triangles, "MeshLoopTriangle", "material_index", triangle_count)
    slot = np.clip(slot.astype(np.int64), 0, len(slots) - 1)  # as Blender draws an index past the last slot
    keys = [None if m is None else m.name_full for m in slots]
    first = {k: i for i, k in reversed(list(enumerate(keys)))}  # slots holding one material share its first slot
    of_slot = np.array([first[k] for k in keys], np.int64)[slot]
    used, inverse = np.unique(of_slot, return_inverse=True)
    return [slots[i] for i in used.tolist()], inverse.reshape(-1)


def split_parts(triangles, part_of_triangle, part_count, vertex_count):
    """[(kept vertices int64[], triangles over them uint32[T', 3])] per part: each part's triangles with its
    vertices compacted (in their order); vertices no triangle uses go with part 0, so none is lost."""
    tri = np.asarray(triangles, np.int64).reshape(-1, 3)
    used = np.zeros(vertex_count, bool)
    used[tri.reshape(-1)] = True
    out = []
    for p in range(part_count):
        t = tri[part_of_triangle == p]
        keep = np.zeros(vertex_count, bool)
        keep[t.reshape(-1)] = True
        if p == 0:
            keep |= ~used
        kept = np.flatnonzero(keep)
        remap = np.full(vertex_count, -1, np.int64)
        remap[kept] = np.arange(kept.size)
        out.append((kept, remap[t].astype(np.uint32)))
    return out
