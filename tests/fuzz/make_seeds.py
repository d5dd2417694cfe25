"""make_seeds.py - (re)writes the seed files of the in-process fuzz targets from inputs our own tests make.

Usage: /usr/bin/python3 tests/fuzz/make_seeds.py BUILD/skinkit [OUT_ROOT]   (OUT_ROOT default: tests/fuzz)

  seeds-fuzz_iqm/          the 3-joint IQM model of tests/unit/test_iqm.c (tests/hostile/iqm_writer.py), with and
                           without its animation, and with an empty second mesh (empty_mesh.iqm)
  seeds-fuzz_fbx_fixup/    the generated cylinder rig (`skinkit sample`) written by `skinkit convert` as binary FBX
                           (first byte 0: record repair, 1: with stop times and Euler unwrapping, 2: as ASCII text,
                           5: the frame declared) and ASCII FBX (3: the stacks' starts read); see
                           fuzz_fbx_fixup.c; merge_binary: tests/data/two_material_leg.glb as `assimp export` (Debian's
                           assimp-utils) writes it, two Mesh Models of one object for fbx_merge.c (mode 1);
                           lcl_scale_*, shape_anim_binary and merge_shapes_binary are not written here (kept as
                           made: see fuzz_fbx_fixup.c)
  seeds-fuzz_fbx_ascii/    the rig and tests/data/maya_style.fbx as skinkit's ASCII FBX (`convert --format fbxa`), and
                           tests/data/assimp_ascii.fbx (Assimp 5.2.5's own ASCII FBX) for the ASCII reader
  seeds-fuzz_fbx_edit/     tests/data/socket_rig.fbx as ASCII FBX (`convert --format fbxa`): Null Models under bones
  seeds-fuzz_skf_decode/   the rig packed by `skinkit pack` (8 and 16 bits, file order, no weld, --profile fast), first byte 0 (the
                           file as is; see fuzz_skf_decode.c)
  seeds-fuzz_collada_clips/ the same rig as .dae, and the two-clip rig of seeds-fuzz_import/collada_clips without its
                           extension byte (a <library_animation_clips>, renamed <node>s)
  seeds-fuzz_gltf_edit/    tests/data's three.js two-material cylinder, gltfpack meshopt and u8 rigs, Blender
                           two-material leg, weight_defects (a sparse WEIGHTS_0 with NaN, a second set to drop) and
                           twin_instances (two skinned nodes on one primitive), draco_recount (Draco accessors
                           declaring 2 vertices fewer than decoded: the edit writes the decoded counts) as .glb, and the rig and the three.js file as .gltf with data: URIs and a
                           1x1 PNG image (packed into a .glb by the editor), a one-node document with a bone link
                           (bit 5); first byte = skin change, weight type, limit, link
  seeds-fuzz_meshopt/      every meshopt ATTRIBUTES stream of tests/data's gltfpack fixtures (vertex codec versions 0
                           and 1, COLOR-filtered colours), behind fuzz_meshopt.c's 4-byte prefix (stride, count, filter)
  seeds-fuzz_md5/           not written here: quad.md5mesh, a two-joint quad written by hand (fuzz_md5.c)

The files are kept small (a coarse cylinder). They are committed; rerun after a change to the writers.
"""
import base64
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "hostile"))
from iqm_writer import write_iqm  # noqa: E402


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def cli(exe, *args):
    subprocess.run([exe] + list(args), check=True, stdout=subprocess.DEVNULL, timeout=120)


def glb_parts(path):
    with open(path, "rb") as f:
        b = f.read()
    n = struct.unpack("<I", b[12:16])[0]
    return json.loads(b[20:20 + n]), b[20 + n + 8:]


def gltf_edit_seeds(out):
    data = os.path.join(os.path.dirname(HERE), "data")
    for name, modes in (("three_multimaterial", (0, 15)), ("skinrig_meshopt", (0, 5, 10, 15)),
                        ("skinrig_u8n", (0, 5, 10, 15, 33)), ("two_material_leg", (0, 15)),
                        ("weight_defects", (0, 5, 15)), ("twin_instances", (0, 1, 15)),
                        ("draco_recount", (0, 5, 33))):
        with open(os.path.join(data, name + ".glb"), "rb") as f:
            b = f.read()
        for mode in modes:
            write(os.path.join(out, "%s_%d" % (name, mode)), bytes([mode]) + b)
    # bit 5 (a bone link on joint 0) on a document of one node and no mesh: a bare skeleton, linked with no weight
    # scope (skc_bone_links took a NULL scope for granted: fuzz_gltf_edit found it)
    bare = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"name": "bone0"}]}
    write(os.path.join(out, "bare_node_32"), bytes([32]) + json.dumps(bare, separators=(",", ":")).encode())
    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
    for name, src in (("skinrig_datauri", "skinrig.glb"), ("three_datauri", "three_multimaterial.glb")):
        j, chunk = glb_parts(os.path.join(data, src))
        j["buffers"][0]["uri"] = "data:application/octet-stream;base64," + \
            base64.b64encode(chunk[:j["buffers"][0]["byteLength"]]).decode()
        j.setdefault("images", []).append({"uri": "data:image/png;base64," + base64.b64encode(png).decode()})
        for mode in (0, 7):
            write(os.path.join(out, "%s_%d" % (name, mode)), bytes([mode]) + json.dumps(j, separators=(",", ":")).encode())


def meshopt_seeds(out):
    data = os.path.join(os.path.dirname(HERE), "data")
    for name in ("skinrig_meshopt", "skinrig_meshopt_khr", "skinrig_meshopt_noq_cz", "skinrig_color_cz"):
        j, chunk = glb_parts(os.path.join(data, name + ".glb"))
        for i, view in enumerate(j["bufferViews"]):
            ext = view.get("extensions", {})
            m = ext.get("KHR_meshopt_compression") or ext.get("EXT_meshopt_compression")
            if not m or m["mode"] != "ATTRIBUTES":
                continue
            o = m.get("byteOffset", 0)
            head = bytes([m["byteStride"] // 4 - 1, m["count"] & 255, m["count"] >> 8, m.get("filter") == "COLOR"])
            write(os.path.join(out, "%s_%d" % (name, i)), head + chunk[o:o + m["byteLength"]])


def image_seeds(out):
    """fuzz_image: the TGA, BMP and DDS fixtures of tests/data/images (tests/data/make_images.py; BC1-BC7 and BC6H
    DDS among them) behind their selector byte (1: named .tga, 0: a BMP or DDS, found by its magic)"""
    images = os.path.join(HERE, "..", "data", "images")
    for name in sorted(os.listdir(images)):
        if name.endswith((".tga", ".bmp", ".dds")):
            with open(os.path.join(images, name), "rb") as f:
                write(os.path.join(out, name.replace(".", "_")), bytes([name.endswith(".tga")]) + f.read())


def main():
    exe = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else HERE
    write(os.path.join(root, "seeds-fuzz_iqm", "model_anim.iqm"), write_iqm(anim=True))
    write(os.path.join(root, "seeds-fuzz_iqm", "model_static.iqm"), write_iqm(anim=False))
    write(os.path.join(root, "seeds-fuzz_iqm", "empty_mesh.iqm"), write_iqm(anim=True, empty_mesh=True))
    with tempfile.TemporaryDirectory() as tmp:
        rig = os.path.join(tmp, "rig.glb")
        cli(exe, "sample", rig, "--segments", "4", "--rings", "3", "--bones", "3")
        fbx, fbxa, dae = (os.path.join(tmp, n) for n in ("rig.fbx", "rig_ascii.fbx", "rig.dae"))
        cli(exe, "convert", rig, fbx)
        cli(exe, "convert", rig, fbxa, "--format", "fbxa")
        cli(exe, "convert", rig, dae)
        out = os.path.join(root, "seeds-fuzz_fbx_fixup")
        for name, src, mode in (("binary", fbx, 0), ("binary_opts", fbx, 1), ("binary_text", fbx, 2),
                                ("ascii_stacks", fbxa, 3), ("binary_frame", fbx, 5)):
            with open(src, "rb") as f:
                write(os.path.join(out, name), bytes([mode]) + f.read())
        # an object of two materials as Assimp's own FBX writer leaves it (two Mesh Models of one name), for
        # fbx_merge.c: `skinkit convert` merges them, so its output exercises no merge
        raw = os.path.join(tmp, "two_material_leg.fbx")
        if shutil.which("assimp") and subprocess.run(
                ["assimp", "export", os.path.join(HERE, "..", "data", "two_material_leg.glb"), raw, "-ffbx"],
                capture_output=True).returncode == 0:
            with open(raw, "rb") as f:
                write(os.path.join(out, "merge_binary"), bytes([1]) + f.read())
        # the ASCII FBX reader (fuzz_fbx_ascii): skinkit's text of the rig and of maya_style.fbx (geometric
        # transforms, pivots, a clip), and Assimp 5.2.5's own ASCII FBX (tests/data/assimp_ascii.fbx)
        out = os.path.join(root, "seeds-fuzz_fbx_ascii")
        maya = os.path.join(tmp, "maya_style_ascii.fbx")
        cli(exe, "convert", os.path.join(HERE, "..", "data", "maya_style.fbx"), maya, "--format", "fbxa")
        for name, src in (("rig_ascii", fbxa), ("maya_style_ascii", maya),
                          ("assimp_ascii", os.path.join(HERE, "..", "data", "assimp_ascii.fbx"))):
            with open(src, "rb") as f:
                write(os.path.join(out, name), f.read())
        # ASCII FBX with Null Models under bones (tests/data/socket_rig.fbx's sockets as Assimp's ASCII writer puts
        # them), for fuzz_fbx_edit's skio_fbx_null_names
        sock = os.path.join(tmp, "socket_rig_ascii.fbx")
        cli(exe, "convert", os.path.join(HERE, "..", "data", "socket_rig.fbx"), sock, "--format", "fbxa")
        with open(sock, "rb") as f:
            write(os.path.join(root, "seeds-fuzz_fbx_edit", "socket_rig_ascii.fbx"), f.read())
        out = os.path.join(root, "seeds-fuzz_collada_clips")
        with open(dae, "rb") as f:
            write(os.path.join(out, "rig.dae"), f.read())
        out = os.path.join(root, "seeds-fuzz_skf_decode")
        for name, extra in (("rig8", []), ("rig16", ["--bits", "16"]), ("rig_file_order", ["--file-order"]),
                            ("rig_no_weld", ["--no-weld", "--file-order"]), ("rig_fast", ["--profile", "fast"])):
            skf = os.path.join(tmp, name + ".skf")
            cli(exe, "pack", rig, "-o", skf, *extra)
            with open(skf, "rb") as f:
                write(os.path.join(out, name), b"\0" + f.read())  # even first byte: the file as is
    gltf_edit_seeds(os.path.join(root, "seeds-fuzz_gltf_edit"))
    meshopt_seeds(os.path.join(root, "seeds-fuzz_meshopt"))
    image_seeds(os.path.join(root, "seeds-fuzz_image"))
    with open(os.path.join(HERE, "seeds-fuzz_import", "collada_clips"), "rb") as f:
        write(os.path.join(root, "seeds-fuzz_collada_clips", "two_clips.dae"), f.read()[1:])


if __name__ == "__main__":
    main()
