# make_two_skin_frames.py - writes tests/data/two_skin_frames.glb: a chain J0 - J1 - J2 and two skinned boxes whose
# skins are in different frames, as a quantizer writes them (gltf-transform quantize, gltfpack: each mesh's
# positions stored scaled and offset, its dequantization D folded into its own skin's inverse binds, IB(j) D). "Arm"
# lists J1 and J2; "Sleeve", after it, lists J0, J1 and J2, so the skeleton's one inverse bind per joint holds Arm's
# frame for J1 and J2 and Sleeve's for J0, and the Assimp writers refused the file ("no single mesh transform
# explains"; session 55's sweep). Run: /usr/bin/python3 tests/data/make_two_skin_frames.py (numpy).
import json
import os
import struct

import numpy as np

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "two_skin_frames.glb")
BOX = [(0,1,3),(0,3,2),(4,6,7),(4,7,5),(0,4,5),(0,5,1),(2,3,7),(2,7,6),(0,2,6),(0,6,4),(1,5,7),(1,7,3)]
def box(c, h):
    return [(c[0] + x * h[0], c[1] + y * h[1], c[2] + z * h[2]) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
def at(x, y, z, s=1.0):
    m = np.diag([s, s, s, 1.0]); m[:3, 3] = (x, y, z); return m
world = [at(0, 0, 0), at(0, 1, 0), at(0, 2, 0)]  # J0, J1 one up, J2 two up (rest = bind)
IB = [np.linalg.inv(w) for w in world]
# Arm: around J1 and J2, plain (no dequantization)
PA = box((0, 1.5, 0), (0.1, 0.5, 0.1)) + box((0, 2.5, 0), (0.1, 0.5, 0.1))
JA = [(0, 0, 0, 0)] * 8 + [(1, 0, 0, 0)] * 8  # skin [J1, J2]
# Sleeve: around J0 .. J2, stored as q = D^-1 p with D = at(0.2, 1.2, -0.1, 0.01) (the quantizer's scale and offset)
D = at(0.2, 1.2, -0.1, 0.01)
PS = box((0, 0.5, 0), (0.15, 0.5, 0.15)) + box((0, 1.5, 0), (0.15, 0.5, 0.15)) + box((0, 2.5, 0), (0.15, 0.5, 0.15))
QS = [tuple((np.linalg.inv(D) @ np.r_[p, 1.0])[:3]) for p in PS]
JS = [(0, 0, 0, 0)] * 8 + [(1, 0, 0, 0)] * 8 + [(2, 0, 0, 0)] * 8  # skin [J0, J1, J2]
W = [(1, 0, 0, 0)]
blob = bytearray(); views = []; accs = []
def add(arr, ctype, typ, target=None, minmax=False):
    arr = np.ascontiguousarray(arr); b = arr.tobytes()
    while len(blob) % 4: blob.append(0)
    v = {"buffer": 0, "byteOffset": len(blob), "byteLength": len(b)}
    if target: v["target"] = target
    blob.extend(b); views.append(v)
    a = {"bufferView": len(views) - 1, "componentType": ctype, "count": len(arr), "type": typ}
    if minmax: a["min"] = np.atleast_1d(arr.min(0)).tolist(); a["max"] = np.atleast_1d(arr.max(0)).tolist()
    accs.append(a); return len(accs) - 1
def prim(P, J):
    return {"attributes": {"POSITION": add(np.array(P, np.float32), 5126, "VEC3", 34962, True),
                           "JOINTS_0": add(np.array(J, np.uint8), 5121, "VEC4", 34962),
                           "WEIGHTS_0": add(np.array(W * len(P), np.float32), 5126, "VEC4", 34962)},
            "indices": add(np.array([[a + 8 * k, b + 8 * k, c + 8 * k] for k in range(len(P) // 8) for a, b, c in BOX],
                                    np.uint16).ravel(), 5123, "SCALAR", 34963)}
pa, ps = prim(PA, JA), prim(QS, JS)
ibA = add(np.array([IB[1].T.ravel(), IB[2].T.ravel()], np.float32), 5126, "MAT4")
ibS = add(np.array([(m @ D).T.ravel() for m in IB], np.float32), 5126, "MAT4")
doc = {"asset": {"version": "2.0", "generator": "skinkit tests/data/make_two_skin_frames.py"}, "scene": 0,
       "scenes": [{"nodes": [0, 3, 4]}],
       "nodes": [{"name": "J0", "children": [1]}, {"name": "J1", "translation": [0, 1, 0], "children": [2]},
                 {"name": "J2", "translation": [0, 1, 0]},
                 {"name": "Arm", "mesh": 0, "skin": 0}, {"name": "Sleeve", "mesh": 1, "skin": 1}],
       "meshes": [{"name": "Arm", "primitives": [pa]}, {"name": "Sleeve", "primitives": [ps]}],
       "skins": [{"joints": [1, 2], "inverseBindMatrices": ibA}, {"joints": [0, 1, 2], "inverseBindMatrices": ibS}],
       "accessors": accs, "bufferViews": views, "buffers": [{"byteLength": len(blob)}]}
while len(blob) % 4: blob.append(0)
doc["buffers"][0]["byteLength"] = len(blob)
text = json.dumps(doc).encode(); text += b" " * (-len(text) % 4)
open(out, "wb").write(struct.pack("<4sII", b"glTF", 2, 28 + len(text) + len(blob)) + struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", len(blob), b"BIN\0") + bytes(blob))
