# make_two_scenes.py - writes tests/data/two_scenes.glb: cylinder_rig.glb plus a second glTF scene holding one node
# "Crate" that draws the cylinder's positions and triangles without a skin (a mesh "crate" of its own). A skin's
# joints must be in the scene of the node that uses it (Khronos validator: NODE_SKIN_NO_SCENE), so `skinkit bind`
# leaves that mesh as it is. Plain Python (json, struct): python3 tests/data/make_two_scenes.py
import json
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))
data = open(os.path.join(here, "cylinder_rig.glb"), "rb").read()
n = struct.unpack_from("<I", data, 12)[0]
doc = json.loads(data[20:20 + n])
rest = data[20 + n:]  # the BIN chunk, header included
prim = doc["meshes"][0]["primitives"][0]
crate = {"attributes": {"POSITION": prim["attributes"]["POSITION"]}}
if "indices" in prim:
    crate["indices"] = prim["indices"]
doc["meshes"].append({"name": "crate", "primitives": [crate]})
doc["nodes"].append({"name": "Crate", "mesh": len(doc["meshes"]) - 1, "translation": [3.0, 0.0, 0.0]})
doc.setdefault("scenes", [{"nodes": [0]}]).append({"name": "Other", "nodes": [len(doc["nodes"]) - 1]})
text = json.dumps(doc, separators=(",", ":")).encode()
text += b" " * (-len(text) % 4)
out = struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(text) + len(rest)) + struct.pack("<I4s", len(text), b"JSON") + text
open(os.path.join(here, "two_scenes.glb"), "wb").write(out + rest)
