"""Headless Blender tests of the materials and images import_scene.skinkit_assimp makes (run by
run_blender_tests.sh):

    blender -b --factory-startup --python tests/addon/blender_test_import_materials.py --python-exit-code 1 -- ZIP

Each imported mesh has its file's material; embedded images are packed with the file's bytes, external ones loaded
from beside the model (not packed), both decoding to the pixels of the PNG; a missing image is a datablock pointing
at the expected path and a note; the Materials option off makes none. The round trip: materials.MaterialWriter (the
export direction) reads each imported material back to the factors, modes and image bytes the library read from the
file - over tests/data/textured_rig.fbx/.dae and a .glb built here with every glTF texture slot and factor - and to
what it reads from Blender's own glTF importer's material for the same .glb. Corpus files from SKINKIT_ASSETS when
set (skipped with one line otherwise). Prints `N passed, N failed` last; exits non-zero on failure.
"""

import os
import re
import shutil
import sys
import tempfile

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_harness import ASSETS, DATA, NOTES, Skip, close, expect, install_enable, run  # noqa: E402

CORPUS = ("collada/CesiumMan_blender.dae", "x/Testwuson.X", "b3d/character.b3d", "md5/drone.md5mesh",
          "ogre/Clonk/Graphics.mesh")
TMP = tempfile.mkdtemp(prefix="skinkit_impmat_")
LABEL_SLOTS = {"BASE COLOR": "base_color_image", "METALLIC ROUGHNESS": "metallic_roughness_image",
               "NORMALMAP": "normal_image", "EMISSIVE": "emissive_image", "OCCLUSION": "occlusion_image"}
SLOTS = ("base_color_image", "metallic_roughness_image", "normal_image", "emissive_image", "occlusion_image")


# ------------------------------------------------------------------------------------------- helpers
def reset_scene():
    if bpy.context.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj, do_unlink=True)
    for coll in (bpy.data.meshes, bpy.data.armatures, bpy.data.materials, bpy.data.images, bpy.data.node_groups):
        for block in list(coll):
            coll.remove(block)


def import_file(path, **kw):
    import skinkit

    expect(bpy.ops.import_scene.skinkit_assimp(filepath=path, **kw) == {"FINISHED"}, "%s: import" % path)
    return skinkit.io_scene.LAST_IMPORT


def library_view(path):
    """([material indices of each object's parts (None: none)], {material index: material_info}, [image_info]) as
    the library reads the file: what the importer is to make. An object is the meshes of one node name and one mesh
    name, all skinned or all not (Assimp reads an object of several materials as a mesh per material)."""
    from skinkit import api

    with api.Scene.load(path) as scene:
        objects, where, infos = [], {}, {}
        for m in range(scene.mesh_count):
            node = scene.mesh_node_name(m)  # a glTF mesh's primitives are "<mesh>-<k>"
            key = (node, re.sub(r"-\d+$", "", scene.mesh_name(m) or ""), scene.mesh_skin(m) is not None)
            if node and not node.startswith("<") and key in where:
                objects[where[key]].append(m)
            else:
                where[key] = len(objects)
                objects.append([m])
        per_object = []
        for ms in objects:
            if not sum(len(scene.mesh_positions(m) if scene.mesh_positions(m) is not None else ()) for m in ms):
                continue
            per_object.append([scene.mesh_material(m) for m in ms])
            for k in per_object[-1]:
                if k is not None:
                    infos[k] = scene.material_info(k)
        images = [scene.image_info(i) for i in range(scene.image_count)]
    return per_object, infos, images


def object_slots(info):
    """The material slots of each imported mesh object, in import order."""
    return [list(bpy.data.objects[name].data.materials) for name in info["meshes"]]


def mesh_materials(info):
    """The materials of the imported mesh objects' slots, in import order (None for an object without one)."""
    return [m for slots in object_slots(info) for m in (slots or [None])]


def check_assignment(path, info):
    """Each imported object has a slot per distinct material of its parts, in order, the material the library gives
    them, one Blender material per file material. Returns ({file material index: bpy material}, library infos,
    library images)."""
    per_object, infos, images = library_view(path)
    got = object_slots(info)
    expect(len(got) == len(per_object), "%d objects imported, library %d" % (len(got), len(per_object)))
    by_index = {}
    for ks, mats in zip(per_object, got):
        want = list(dict.fromkeys(k for k in ks if k is not None))
        expect(len(mats) == len(want), "%d material slots for the parts' materials %s" % (len(mats), want))
        for k, mat in zip(want, mats):
            expect(mat is not None, "a mesh of material %s got none" % infos[k]["name"])
            expect(by_index.setdefault(k, mat) == mat, "material %s made twice" % infos[k]["name"])
            expect(mat.name == infos[k]["name"] or mat.name.startswith(infos[k]["name"] + "."),
                   "material %s named %s" % (infos[k]["name"], mat.name))
    expect(len(set(m.name for m in by_index.values())) == len(by_index), "materials shared between file materials")
    expect(info["materials"] == [by_index[k].name for k in sorted(by_index)],
           "LAST_IMPORT materials %s" % info["materials"])
    return by_index, infos, images


def written(mat):
    """What materials.MaterialWriter (the export direction) reads from a Blender material: (material_info, {slot:
    image bytes or None}, notes)."""
    from skinkit import api, materials

    with api.Scene.create(None) as out:
        w = materials.MaterialWriter(out)
        info = out.material_info(w.material(mat))
        data = {s: out.image_info(info[s])["data"] if info[s] is not None else None for s in SLOTS}
        return info, data, list(w.notes)


def expect_same_material(got, want, label, alpha=True):
    """Two material_info dicts (images compared by bytes, in got["_data"] / want["_data"]) agree."""
    close(got["base_color"][:3], want["base_color"][:3], 1e-6, "%s: base colour" % label)
    expect(got["alpha_mode"] == want["alpha_mode"], "%s: alpha mode %s, want %s" % (label, got["alpha_mode"],
                                                                                    want["alpha_mode"]))
    if alpha:
        close(got["base_color"][3], want["base_color"][3], 1e-6, "%s: alpha" % label)
    if want["alpha_mode"] == "MASK":
        close(got["alpha_cutoff"], want["alpha_cutoff"], 1e-6, "%s: alpha cutoff" % label)
    close([got["metallic"], got["roughness"]], [want["metallic"], want["roughness"]], 1e-6,
          "%s: metallic, roughness" % label)
    close(got["emissive"], want["emissive"], 1e-6, "%s: emissive" % label)
    expect(got["double_sided"] == want["double_sided"], "%s: double sided %s" % (label, got["double_sided"]))
    if want["_data"]["normal_image"] is not None:
        close(got["normal_scale"], want["normal_scale"], 1e-6, "%s: normal scale" % label)
    for s in SLOTS:
        g, w = got["_data"][s], want["_data"][s]
        expect((g is None) == (w is None), "%s: %s %s, want %s" % (label, s, "set" if g is not None else "none",
                                                                   "set" if w is not None else "none"))
        expect(g == w, "%s: %s bytes differ (%d, want %d)" % (label, s, len(g or b""), len(w or b"")))


def expect_roundtrip(mat, want, images, label):
    """materials.py reads back from mat the factors and image bytes of want (a library material_info); an image the
    library did not find must be left out with a note."""
    got, data, notes = written(mat)
    got["_data"] = data
    expected = dict(want)
    expected["_data"] = {s: images[want[s]]["data"] if want[s] is not None else None for s in SLOTS}
    missing = [images[want[s]]["name"] for s in SLOTS if want[s] is not None and images[want[s]]["data"] is None]
    for name in missing:
        expect(any(name in n for n in notes), "%s: no note on missing image %s: %s" % (label, name, notes))
    if not missing:
        expect(not notes, "%s: materials.py notes %s" % (label, notes))
    # glTF ignores alpha when OPAQUE, so does the importer (as Blender's glTF importer)
    expect_same_material(got, expected, label, alpha=want["alpha_mode"] != "OPAQUE")
    return got


def pixels(img):
    import numpy as np

    w, h = img.size
    expect(w > 0 and h > 0, "image %s does not decode (size %s)" % (img.name, tuple(img.size)))
    buf = np.empty(w * h * img.channels, np.float32)
    img.pixels.foreach_get(buf)
    return buf


def expect_pixels_of(img, png_path):
    """img decodes to the pixels Blender decodes from png_path."""
    ref = bpy.data.images.load(png_path, check_existing=False)
    try:
        expect(tuple(img.size) == tuple(ref.size), "%s: size %s, file %s" % (img.name, tuple(img.size),
                                                                              tuple(ref.size)))
        close(pixels(img), pixels(ref), 0.0, "%s: pixels against %s" % (img.name, os.path.basename(png_path)))
    finally:
        bpy.data.images.remove(ref)


def texture_images(mat):
    """{Image Texture label: image} of an imported material."""
    return {n.label: n.image for n in mat.node_tree.nodes if n.type == "TEX_IMAGE"}


def png_file(name, rgba_of):
    """Writes a 4 x 4 PNG (rgba_of(x, y) -> RGBA 0..1) with Blender; returns (path, bytes)."""
    img = bpy.data.images.new(name, 4, 4, alpha=True)
    px = []
    for y in range(4):
        for x in range(4):
            px += rgba_of(x, y)
    img.pixels = px
    path = os.path.join(TMP, name + ".png")
    img.filepath_raw = path
    img.file_format = "PNG"
    img.save()
    bpy.data.images.remove(img)
    with open(path, "rb") as f:
        return path, f.read()


# ------------------------------------------------------------------------------------------- tests
def test_install_enable():
    install_enable()


def test_materials_option():
    prop = bpy.ops.import_scene.skinkit_assimp.get_rna_type().properties.get("materials")
    expect(prop is not None and prop.type == "BOOLEAN" and prop.default is True, "no Materials option (default on)")


def test_fbx_embedded_images():
    """textured_rig.fbx: "Skin" (embedded albedo + normal PNGs) and "Paint" (a colour) on the right meshes; the
    images packed with the file's bytes, decoding to the PNGs' pixels; materials.py reads back the same material."""
    reset_scene()
    path = os.path.join(DATA, "textured_rig.fbx")
    info = import_file(path)
    by_index, infos, images = check_assignment(path, info)
    expect(sorted(m.name for m in by_index.values()) == ["Paint", "Skin"], "materials %s" % info["materials"])
    expect(len(bpy.data.images) == 2, "%d images for the file's 2" % len(bpy.data.images))
    expect(not info["material_notes"], "notes: %s" % info["material_notes"])
    for k, mat in by_index.items():
        expect_roundtrip(mat, infos[k], images, mat.name)
    skin = next(m for m in by_index.values() if m.name == "Skin")
    tex = texture_images(skin)
    expect(set(tex) == {"BASE COLOR", "NORMALMAP"}, "Skin's textures: %s" % sorted(tex))
    for label, png, space in (("BASE COLOR", "textured_rig_albedo.png", "sRGB"),
                              ("NORMALMAP", "textured_rig_normal.png", "Non-Color")):
        img = tex[label]
        with open(os.path.join(DATA, png), "rb") as f:
            raw = f.read()
        expect(img.packed_file is not None and bytes(img.packed_file.data) == raw,
               "%s: not packed with the bytes of %s" % (img.name, png))
        expect(img.colorspace_settings.name == space, "%s: colour space %s" % (img.name,
                                                                              img.colorspace_settings.name))
        expect_pixels_of(img, os.path.join(DATA, png))
    paint = next(m for m in by_index.values() if m.name == "Paint")
    close(paint.diffuse_color, (0.8, 0.2, 0.1, 1.0), 1e-6, "Paint's viewport colour")
    expect(not texture_images(paint), "Paint has image textures")


def test_dae_external_images():
    """textured_rig.dae: its albedo beside it is loaded from there (not packed), one datablock shared by a second
    import; pixels and round trip as the file's."""
    reset_scene()
    path = os.path.join(DATA, "textured_rig.dae")
    albedo = os.path.join(DATA, "textured_rig_albedo.png")
    info = import_file(path)
    by_index, infos, images = check_assignment(path, info)
    expect(not info["material_notes"], "notes: %s" % info["material_notes"])
    for k, mat in by_index.items():
        expect_roundtrip(mat, infos[k], images, mat.name)
    skin = next(m for m in by_index.values() if m.name == "Skin")
    img = texture_images(skin)["BASE COLOR"]
    expect(img.packed_file is None, "external image packed")
    expect(os.path.normpath(bpy.path.abspath(img.filepath)) == albedo, "image file %s" % img.filepath)
    expect_pixels_of(img, albedo)
    n_images = len(bpy.data.images)
    info = import_file(path)  # again: new materials, the same image
    mats = mesh_materials(info)
    expect(all(m is not None and m not in list(by_index.values()) for m in mats), "second import reused materials")
    expect(len(bpy.data.images) == n_images, "second import loaded the image again")
    again = next(m for m in mats if m.name.startswith("Skin"))
    expect(texture_images(again)["BASE COLOR"] == img, "second import: another image datablock")


def test_missing_image():
    """The .dae without its PNGs: a note naming the image and a datablock pointing at where the file should be."""
    reset_scene()
    folder = os.path.join(TMP, "lonely")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "textured_rig.dae")
    shutil.copy(os.path.join(DATA, "textured_rig.dae"), path)
    info = import_file(path)
    notes = info["material_notes"]
    expect(len(notes) == 1 and "textured_rig_albedo.png" in notes[0] and "not found" in notes[0], "notes %s" % notes)
    skin = next(m for m in mesh_materials(info) if m is not None and m.name == "Skin")
    img = texture_images(skin)["BASE COLOR"]
    expect(img is not None and img.source == "FILE" and img.packed_file is None, "placeholder %s" % img)
    want = os.path.join(folder, "textured_rig_albedo.png")
    expect(os.path.normpath(bpy.path.abspath(img.filepath)) == want, "placeholder path %s, want %s"
           % (img.filepath, want))
    expect(tuple(img.size) == (0, 0), "placeholder has pixels")
    _per_mesh, infos, images = library_view(path)
    k = next(k for k, v in infos.items() if v["name"] == "Skin")
    expect_roundtrip(skin, infos[k], images, "Skin without its image")
    shutil.copy(os.path.join(DATA, "textured_rig_albedo.png"), want)  # the file arrives: the datablock shows it
    img.reload()
    expect_pixels_of(img, want)


def test_materials_off():
    reset_scene()
    info = import_file(os.path.join(DATA, "textured_rig.fbx"), materials=False)
    expect(info["meshes"] and all(m is None for m in mesh_materials(info)), "meshes got materials")
    expect(info["materials"] == [] and info["material_notes"] == [], "LAST_IMPORT %s" % info)
    expect(not len(bpy.data.materials) and not len(bpy.data.images), "materials or images made: %s %s"
           % (list(bpy.data.materials), list(bpy.data.images)))


def _all_slots_glb():
    """A .glb (written by the library) with a material using every texture slot and factor, one masked, one plain and
    a mesh without material. Returns (path, {image name: (png path, bytes)})."""
    from skinkit import api

    pngs = {
        "albedo": png_file("all_albedo", lambda x, y: [x / 3.0, y / 3.0, 0.25, 0.5 + x / 6.0]),
        "orm": png_file("all_orm", lambda x, y: [0.9, x / 3.0, y / 3.0, 1.0]),
        "normal": png_file("all_normal", lambda x, y: [0.5, 0.5 + 0.1 * ((x + y) % 2), 1.0, 1.0]),
        "emissive": png_file("all_emissive", lambda x, y: [1.0, 0.5, y / 3.0, 1.0]),
    }
    cyl = api.cylinder(segments=8, rings=4, bones=2)
    path = os.path.join(TMP, "all_slots.glb")
    with api.Scene.create(None) as scene:
        img = {k: scene.add_image(data, k + ".png") for k, (_p, data) in pngs.items()}
        full = scene.add_material("Full", base_color=(0.8, 0.2, 0.1, 0.5), metallic=0.3, roughness=0.6,
                                  emissive=(0.5, 0.4, 0.3), normal_scale=0.7, alpha_mode="BLEND", double_sided=True,
                                  base_color_image=img["albedo"], metallic_roughness_image=img["orm"],
                                  normal_image=img["normal"], emissive_image=img["emissive"],
                                  occlusion_image=img["orm"])
        masked = scene.add_material("Masked", base_color=(1.0, 1.0, 1.0, 0.6), metallic=1.0, roughness=1.0,
                                    emissive=(0.25, 0.25, 0.25), alpha_mode="MASK", alpha_cutoff=0.3,
                                    base_color_image=img["albedo"], metallic_roughness_image=img["orm"],
                                    emissive_image=img["emissive"])
        plain = scene.add_material("Plain", base_color=(0.1, 0.6, 0.3, 1.0), metallic=0.0, roughness=0.4,
                                   emissive=(0.0, 0.2, 0.9))
        for k, mat in enumerate((full, masked, plain, None)):
            pos = cyl.positions + [0.0, 1.0 * k, 0.0]
            m = scene.add_mesh(pos, cyl.triangles, name="part%d" % k, uv0=cyl.positions[:, :2] * 0.5)
            scene.set_mesh_material(m, mat)
        scene.save(path, overwrite=True)
    return path, pngs


def test_glb_every_slot_roundtrip():
    """Every slot and factor of glTF's material through the importer: the node trees read back by materials.py to
    the library's values and image bytes; alpha / blend modes, backface culling, colour spaces as glTF's."""
    reset_scene()
    path, pngs = _all_slots_glb()
    info = import_file(path)
    by_index, infos, images = check_assignment(path, info)
    expect(sorted(m.name for m in by_index.values()) == ["Full", "Masked", "Plain"], "materials %s"
           % info["materials"])
    expect(mesh_materials(info)[-1] is None, "the mesh without material got one")
    expect(not info["material_notes"], "notes: %s" % info["material_notes"])
    expect(len(bpy.data.images) == 4, "%d images for the file's 4" % len(bpy.data.images))
    mats = {m.name: m for m in by_index.values()}
    for k, mat in by_index.items():
        expect_roundtrip(mat, infos[k], images, mat.name)
    full, masked, plain = mats["Full"], mats["Masked"], mats["Plain"]
    expect(full.blend_method == "BLEND" and not full.use_backface_culling, "Full: %s, culling %s"
           % (full.blend_method, full.use_backface_culling))
    expect(masked.blend_method == "CLIP" and abs(masked.alpha_threshold - 0.3) < 1e-6 and masked.use_backface_culling,
           "Masked: %s %s" % (masked.blend_method, masked.alpha_threshold))
    expect(plain.blend_method == "OPAQUE", "Plain: %s" % plain.blend_method)
    close(plain.diffuse_color, (0.1, 0.6, 0.3, 1.0), 1e-6, "Plain's viewport colour")
    tex = texture_images(full)
    expect(set(tex) == {"BASE COLOR", "METALLIC ROUGHNESS", "NORMALMAP", "EMISSIVE", "OCCLUSION"},
           "Full's textures %s" % sorted(tex))
    expect(tex["METALLIC ROUGHNESS"] == tex["OCCLUSION"], "one image for metallic-roughness and occlusion")
    for label, key, space in (("BASE COLOR", "albedo", "sRGB"), ("METALLIC ROUGHNESS", "orm", "Non-Color"),
                              ("NORMALMAP", "normal", "Non-Color"), ("EMISSIVE", "emissive", "sRGB")):
        img = tex[label]
        expect(img.packed_file is not None and bytes(img.packed_file.data) == pngs[key][1],
               "%s: not packed with the bytes of %s" % (label, key))
        expect(img.colorspace_settings.name == space, "%s: %s" % (label, img.colorspace_settings.name))
        expect_pixels_of(img, pngs[key][0])
    bsdf = next(n for n in masked.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    close(bsdf.inputs["Emission Strength"].default_value, 0.25, 1e-6, "Masked: grey emissive as the strength")


def test_glb_as_blenders_gltf_importer():
    """The same .glb through Blender's own glTF importer: materials.py reads its materials to the same values as
    ours (the node shapes are the same conventions)."""
    reset_scene()
    path, _pngs = _all_slots_glb()
    info = import_file(path)
    ours = {m.name: m for m in mesh_materials(info) if m is not None}
    names = set(bpy.data.materials.keys())
    expect(bpy.ops.import_scene.gltf(filepath=path) == {"FINISHED"}, "Blender's glTF import")
    theirs = {m.name.rsplit(".", 1)[0]: m for m in bpy.data.materials if m.name not in names}
    expect(set(theirs) == set(ours), "Blender's importer made %s, ours %s" % (sorted(theirs), sorted(ours)))
    for name, mat in ours.items():
        got, data, notes = written(mat)
        want, wdata, wnotes = written(theirs[name])
        expect(not notes and not wnotes, "%s: notes %s / %s" % (name, notes, wnotes))
        got["_data"], want["_data"] = data, wdata
        expect_same_material(got, want, "%s (ours vs Blender's)" % name, alpha=want["alpha_mode"] != "OPAQUE")


def _corpus_test(rel):
    def test():
        if ASSETS is None:
            raise Skip("SKINKIT_ASSETS not set")
        path = os.path.join(ASSETS, rel)
        if not os.path.isfile(path):
            raise Skip("%s missing" % path)
        reset_scene()
        info = import_file(path)
        by_index, infos, images = check_assignment(path, info)
        expect(by_index, "%s: no material imported" % rel)
        for k, mat in by_index.items():
            expect_roundtrip(mat, infos[k], images, "%s %s" % (rel, mat.name))
            for label, img in texture_images(mat).items():
                src = images[infos[k][LABEL_SLOTS[label]]]
                if src["data"] is None:
                    expect(any(src["name"] in n for n in info["material_notes"]), "%s: no note on %s"
                           % (rel, src["name"]))
                    NOTES.append("%s: missing image %s -> %s" % (rel, src["name"], img.filepath))
                else:
                    expect(min(img.size) > 0, "%s: image %s does not decode" % (rel, img.name))
                    if src["path"]:
                        expect(img.packed_file is None and os.path.samefile(bpy.path.abspath(img.filepath),
                                                                            src["path"]),
                               "%s: image %s not loaded from %s" % (rel, img.name, src["path"]))
        NOTES.append("%s: materials %s, images %s" % (rel, info["materials"], sorted(bpy.data.images.keys())))

    test.__name__ = "test_corpus_" + os.path.splitext(os.path.basename(rel))[0]
    return test


def main():
    tests = [test_install_enable, test_materials_option, test_fbx_embedded_images, test_dae_external_images,
             test_missing_image, test_materials_off, test_glb_every_slot_roundtrip,
             test_glb_as_blenders_gltf_importer]
    tests += [_corpus_test(rel) for rel in CORPUS]
    if ASSETS is None:
        print("SKIP corpus: SKINKIT_ASSETS not set (%s)" % ", ".join(CORPUS))
        tests = [t for t in tests if not t.__name__.startswith("test_corpus_")]
    run(tests, first=test_install_enable, cleanup=lambda: shutil.rmtree(TMP, ignore_errors=True))


main()
