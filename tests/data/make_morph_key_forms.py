# make_morph_key_forms.py - from tests/data/shape_key_anim.glb (Blender 3.4's glTF export, make_shape_key_anim.py)
# writes shape_key_anim_step.glb and shape_key_anim_cubic.glb: the same file with its "weights" sampler made STEP
# (each value held until the next key) and CUBICSPLINE (each key's values between zero in- and out-tangents, as the
# spec lays them out: in-tangents, values, out-tangents of all targets per key), and shape_key_anim_short.glb, whose
# "weights" output accessor holds one value too few (a damaged channel: read without it). Plain Python:
#   python3 tests/data/make_morph_key_forms.py
import struct
import glb_json

doc, rest = glb_json.load("shape_key_anim.glb")
n = struct.unpack_from("<I", rest, 0)[0]
data = bytearray(rest[8:8 + n])


def weights_sampler(d):
    for anim in d["animations"]:
        for ch in anim["channels"]:
            if ch["target"]["path"] == "weights":
                return anim["samplers"][ch["sampler"]]
    raise SystemExit("no weights channel")


def save(name, d, payload):
    payload = bytes(payload) + b"\0" * (-len(payload) % 4)
    d["buffers"][0]["byteLength"] = len(payload)
    glb_json.save(name, d, struct.pack("<I4s", len(payload), b"BIN\0") + payload)


step = glb_json.json.loads(glb_json.json.dumps(doc))
weights_sampler(step)["interpolation"] = "STEP"
save("shape_key_anim_step.glb", step, data)

cubic = glb_json.json.loads(glb_json.json.dumps(doc))
s = weights_sampler(cubic)
keys = cubic["accessors"][s["input"]]["count"]
out = cubic["accessors"][s["output"]]
view = cubic["bufferViews"][out["bufferView"]]
at = view.get("byteOffset", 0) + out.get("byteOffset", 0)
values = struct.unpack_from("<%df" % out["count"], data, at)
T = out["count"] // keys
triplets = []
for k in range(keys):
    triplets += [0.0] * T + list(values[k * T:(k + 1) * T]) + [0.0] * T
payload = bytearray(data) + b"\0" * (-len(data) % 4)
offset = len(payload)
payload += struct.pack("<%df" % len(triplets), *triplets)
cubic["bufferViews"].append({"buffer": 0, "byteOffset": offset, "byteLength": 4 * len(triplets)})
cubic["accessors"].append({"bufferView": len(cubic["bufferViews"]) - 1, "componentType": 5126,
                           "count": len(triplets), "type": "SCALAR"})
s["output"] = len(cubic["accessors"]) - 1
s["interpolation"] = "CUBICSPLINE"
save("shape_key_anim_cubic.glb", cubic, payload)

short = glb_json.json.loads(glb_json.json.dumps(doc))
short["accessors"][weights_sampler(short)["output"]]["count"] -= 1
save("shape_key_anim_short.glb", short, data)
