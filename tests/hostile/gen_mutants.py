"""gen_mutants.py - damaged model files for the CLI replay test (tests/hostile/run_mutants.py).

Usage: /usr/bin/python3 tests/hostile/gen_mutants.py BUILD/skinkit OUT_DIR [--count N] [--seed S]

Seed files are made by our own tools only: tests/data/cylinder_rig.glb, the sample rig (`skinkit sample`, small)
written by `skinkit convert` as .glb, .gltf (buffer embedded as a data URI, so one file is the whole model), .dae,
binary .fbx and ASCII .fbx, the IQM model of tests/unit/test_iqm.c (iqm_writer.py) and `skinkit pack` output
(.skf). From each, N mutants (default 300) are written as OUT_DIR/<seed>/<seed>_<k>.<ext>, the same for the same
seed value S (default 1): every mutant is a pure function of (seed file, S, k).

Mutations (one to three per file): bit flips, bytes set to 0x00/0xff, truncation, a 4-byte little-endian field
set to a huge count (0xffffffff, 0x7fffffff, 0x80000000, 0x10000000) or to a float NaN / Inf / -1e38, a region
duplicated or deleted; for text (.dae, .gltf, ASCII .fbx, the JSON chunk of .glb with the chunk lengths fixed up)
also numbers replaced by -1, 0, 4294967296, 1e308, nan, inf, 99999999999, and attributes / lines dropped.
OUT_DIR/manifest.txt lists "<file> <mutations>" per mutant.
"""
import argparse
import base64
import json
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from iqm_writer import write_iqm  # noqa: E402

HUGE = [0xffffffff, 0x7fffffff, 0x80000000, 0x10000000, 0xfffffff0, 65536]
FLOATS = [float("nan"), float("inf"), float("-inf"), -1e38, 1e38]
NUMBERS = [b"-1", b"0", b"4294967296", b"4294967295", b"1e308", b"-1e308", b"nan", b"inf", b"99999999999",
           b"2147483648", b"-0", b"0.0000001", b"65536"]
NUMBER_RE = re.compile(rb"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


# ---- binary mutations ------------------------------------------------------------------------------------------
def flip_bits(rng, d):
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(d))
        d[i] ^= 1 << rng.randrange(8)
    return "flip"


def set_bytes(rng, d):
    i = rng.randrange(len(d))
    n = min(rng.randint(1, 16), len(d) - i)
    d[i:i + n] = bytes([rng.choice((0, 0xff))]) * n
    return "set@%d" % i


def truncate(rng, d):
    n = rng.randrange(len(d))
    del d[n:]
    return "trunc@%d" % n


def huge_count(rng, d):
    i = rng.randrange(max(len(d) // 4, 1)) * 4
    if i + 4 > len(d):
        return "none"
    v = rng.choice(HUGE)
    d[i:i + 4] = struct.pack("<I", v)
    return "u32@%d=%#x" % (i, v)


def bad_float(rng, d):
    i = rng.randrange(max(len(d) // 4, 1)) * 4
    if i + 4 > len(d):
        return "none"
    v = rng.choice(FLOATS)
    d[i:i + 4] = struct.pack("<f", v)
    return "f32@%d=%r" % (i, v)


def dup_region(rng, d):
    i = rng.randrange(len(d))
    n = min(rng.randint(1, 256), len(d) - i)
    d[i:i] = d[i:i + n]
    return "dup@%d+%d" % (i, n)


def del_region(rng, d):
    i = rng.randrange(len(d))
    n = min(rng.randint(1, 256), len(d) - i)
    del d[i:i + n]
    return "del@%d+%d" % (i, n)


BINARY = [flip_bits, set_bytes, truncate, huge_count, huge_count, bad_float, bad_float, dup_region, del_region]


# ---- text mutations --------------------------------------------------------------------------------------------
def replace_number(rng, d):
    spans = [m.span() for m in NUMBER_RE.finditer(d)]
    if not spans:
        return "none"
    out = []
    for _ in range(rng.randint(1, 4)):
        a, b = rng.choice(spans)
        v = rng.choice(NUMBERS)
        d[a:b] = v
        spans = [m.span() for m in NUMBER_RE.finditer(d)]
        out.append(v.decode())
    return "num=" + ",".join(out)


def drop_line(rng, d):
    lines = bytes(d).split(b"\n")
    if len(lines) < 2:
        return "none"
    k = rng.randrange(len(lines))
    del lines[k]
    d[:] = b"\n".join(lines)
    return "dropline%d" % k


def drop_attr(rng, d):
    spans = [m.span() for m in re.finditer(rb'\s\w+="[^"]*"', d)]
    if not spans:
        return "none"
    a, b = rng.choice(spans)
    del d[a:b]
    return "dropattr@%d" % a


TEXT = [replace_number, replace_number, replace_number, drop_line, drop_attr, truncate, flip_bits, dup_region,
        del_region]


# ---- .glb: mutate the JSON chunk as text and fix the lengths ---------------------------------------------------
def glb_json(rng, d):
    if len(d) < 20 or d[:4] != b"glTF":
        return "none"
    jlen = struct.unpack_from("<I", d, 12)[0]
    j = bytearray(d[20:20 + jlen])
    rest = d[20 + jlen:]
    what = rng.choice([replace_number, replace_number, drop_attr_json])(rng, j)
    j += b" " * (-len(j) % 4)
    d[:] = d[:12] + struct.pack("<I", len(j)) + d[16:20] + j + rest
    struct.pack_into("<I", d, 8, len(d))
    return "json:" + what


def drop_attr_json(rng, d):
    spans = [m.span() for m in re.finditer(rb'"\w+"\s*:\s*-?\d+\s*,', d)]
    if not spans:
        return "none"
    a, b = rng.choice(spans)
    del d[a:b]
    return "dropkey@%d" % a


def mutate(rng, data, kind):
    d = bytearray(data)
    ops = TEXT if kind == "text" else BINARY + ([glb_json] * 4 if kind == "glb" else [])
    done = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        if not d:
            break
        done.append(rng.choice(ops)(rng, d))
    return bytes(d), "+".join(done)


# ---- seed files --------------------------------------------------------------------------------------------------
def cli(exe, *args):
    subprocess.run([exe] + list(args), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=120)


def embed_gltf(path):
    """The .gltf with its buffers inlined as data URIs (one self-contained text file)."""
    with open(path, "rb") as f:
        doc = json.load(f)
    for buf in doc.get("buffers", []):
        uri = buf.get("uri")
        if uri and not uri.startswith("data:"):
            with open(os.path.join(os.path.dirname(path), uri), "rb") as f:
                buf["uri"] = "data:application/octet-stream;base64," + base64.b64encode(f.read()).decode()
    return json.dumps(doc, indent=1).encode()


def make_seeds(exe, tmp):
    """[(name, ext, bytes, kind)] of the seed files."""
    def read(p):
        with open(p, "rb") as f:
            return f.read()

    rig = os.path.join(tmp, "rig.glb")
    cli(exe, "sample", rig, "--segments", "6", "--rings", "4", "--bones", "3")
    seeds = [("cylinder_rig", "glb", read(os.path.join(REPO, "tests", "data", "cylinder_rig.glb")), "glb"),
             ("rig", "glb", read(rig), "glb")]
    for name, ext, extra, kind in (("rig_gltf", "gltf", [], "text"), ("rig_dae", "dae", [], "text"),
                                   ("rig_fbx", "fbx", [], "binary"), ("rig_fbxa", "fbx", ["--format", "fbxa"], "text")):
        out = os.path.join(tmp, name + "." + ext)
        cli(exe, "convert", rig, out, *extra)
        seeds.append((name, ext, embed_gltf(out) if ext == "gltf" else read(out), kind))
    seeds.append(("model_iqm", "iqm", write_iqm(anim=True), "binary"))
    skf = os.path.join(tmp, "rig.skf")
    cli(exe, "pack", rig, "-o", skf, "--file-order", "--no-weld")
    seeds.append(("rig_skf", "skf", read(skf), "binary"))
    return seeds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cli")
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    manifest = []
    with tempfile.TemporaryDirectory() as tmp:
        seeds = make_seeds(a.cli, tmp)
    for name, ext, data, kind in seeds:
        d = os.path.join(a.out, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "%s_seed.%s" % (name, ext)), "wb") as f:
            f.write(data)
        for k in range(a.count):
            rng = random.Random("%s/%d/%d" % (name, a.seed, k))
            mutant, what = mutate(rng, data, kind)
            rel = os.path.join(name, "%s_%03d.%s" % (name, k, ext))
            with open(os.path.join(a.out, rel), "wb") as f:
                f.write(mutant)
            manifest.append("%s %s" % (rel, what))
    with open(os.path.join(a.out, "manifest.txt"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    print("%d seed files, %d mutants each in %s" % (len(seeds), a.count, a.out))


if __name__ == "__main__":
    main()
