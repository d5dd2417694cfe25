# make_zero_second_set.py - writes tests/data/zero_second_set.glb: cylinder_rig.glb whose primitive also carries a
# JOINTS_1 / WEIGHTS_1 set holding only zeros (gltf-transform keeps such a set on an 8-influence mesh whose vertices
# use 4 or fewer). A no-op weight edit must leave the file byte for byte (the audit of session 44: the set was dropped
# and the file rewritten). Plain Python (json, struct): python3 tests/data/make_zero_second_set.py
import json
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))
data = open(os.path.join(here, "cylinder_rig.glb"), "rb").read()
n = struct.unpack_from("<I", data, 12)[0]
doc = json.loads(data[20:20 + n])
bn = struct.unpack_from("<I", data, 20 + n)[0]
bin_ = bytearray(data[28 + n:28 + n + bn])
prim = doc["meshes"][0]["primitives"][0]
V = doc["accessors"][prim["attributes"]["POSITION"]]["count"]
while len(bin_) % 16:
    bin_.append(0)
for key, size, ctype in (("JOINTS_1", 4, 5121), ("WEIGHTS_1", 16, 5126)):  # u8 joints, float weights: zeros
    start = len(bin_)
    bin_ += bytes(V * size)
    doc["bufferViews"].append({"buffer": 0, "byteOffset": start, "byteLength": V * size})
    doc["accessors"].append({"bufferView": len(doc["bufferViews"]) - 1, "componentType": ctype, "count": V,
                             "type": "VEC4"})
    prim["attributes"][key] = len(doc["accessors"]) - 1
doc["buffers"][0]["byteLength"] = len(bin_)
text = json.dumps(doc, separators=(",", ":")).encode()
text += b" " * (-len(text) % 4)
chunk = bytes(bin_)
out = struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(text) + 8 + len(chunk))
out += struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", len(chunk), b"BIN\0") + chunk
open(os.path.join(here, "zero_second_set.glb"), "wb").write(out)
