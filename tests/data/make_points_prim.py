# make_points_prim.py - writes tests/data/points_prim.glb: cylinder_rig.glb whose mesh also draws its vertices as a
# POINTS primitive with the same attributes (JOINTS_0 / WEIGHTS_0 included). The reader reads triangles only; an
# edit of the weights must give the points the new weights too (the audit of session 44: they kept the old ones).
# Plain Python (json, struct): python3 tests/data/make_points_prim.py
import json
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))
data = open(os.path.join(here, "cylinder_rig.glb"), "rb").read()
n = struct.unpack_from("<I", data, 12)[0]
doc = json.loads(data[20:20 + n])
rest = data[20 + n:]  # the BIN chunk, header included
prim = doc["meshes"][0]["primitives"][0]
doc["meshes"][0]["primitives"].append({"attributes": dict(prim["attributes"]), "mode": 0})
text = json.dumps(doc, separators=(",", ":")).encode()
text += b" " * (-len(text) % 4)
out = struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(text) + len(rest)) + struct.pack("<I4s", len(text), b"JSON") + text
open(os.path.join(here, "points_prim.glb"), "wb").write(out + rest)
