# make_mirrored_joints.py - writes tests/data/mirrored_joints.glb: a skinned bar of three joints J0 - J1 - J2 whose
# J1 is mirrored by scale (1, -1, 1) and J2 by (-1, -1, 1) (a half turn held in the scale), and a clip "Wave" keying
# J0's translation and the rotations of J1 and J2 only (valid glTF: each keyed rotation joins the node's own scale).
# A prop box "Prop" (an unskinned mesh, scale (1, 1, -1)) hangs from J2 and the clip keys its node's rotation.
# A rest matrix's TRS is not unique (skc_mat4_to_trs folds a mirror into x): a writer that completes the rotation keys
# with another split of the rest turns the joint a half turn (session 44's audit: 1.3 of the bar's size off in .fbx
# and .dae). A second clip "Swing" keys J1's and J2's rotations with no key at the rest (nor at its half-turned split):
# only the file's scale tells how they join (session 55). Run: /usr/bin/python3 tests/data/make_mirrored_joints.py
# (numpy).
import json
import os
import struct

import numpy as np

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mirrored_joints.glb")
s1 = [1.0, -1.0, 1.0]
s2 = [-1.0, -1.0, 1.0]
sp = [1.0, 1.0, -1.0]
def qaxis(ax, deg):
    ax = np.array(ax, float); ax /= np.linalg.norm(ax); h = np.radians(deg) / 2
    return np.r_[ax * np.sin(h), np.cos(h)]
def qmul(a, b):
    ax, ay, az, aw = a; bx, by, bz, bw = b
    return np.array([aw*bx+ax*bw+ay*bz-az*by, aw*by-ax*bz+ay*bw+az*bx, aw*bz+ax*by-ay*bx+az*bw, aw*bw-ax*bx-ay*by-az*bz])
def q2m(q):
    x, y, z, w = q
    return np.array([[1-2*(y*y+z*z), 2*(x*y-z*w), 2*(x*z+y*w)], [2*(x*y+z*w), 1-2*(x*x+z*z), 2*(y*z-x*w)], [2*(x*z-y*w), 2*(y*z+x*w), 1-2*(x*x+y*y)]])
def trs(t, r, s):
    m = np.eye(4); m[:3, :3] = q2m(r) @ np.diag(s); m[:3, 3] = t; return m
# vertices: bar along x from 0 to 3, square section 0.2, 12 rings
P = []; Wj = []; Ww = []
ring = [(-0.1, -0.1), (0.1, -0.1), (0.1, 0.1), (-0.1, 0.1)]
for i in range(13):
    x = 3.0 * i / 12
    for (y, z) in ring: P.append((x, y, z))
T = []
for i in range(12):
    for k in range(4):
        a, b, c, d = 4*i+k, 4*i+(k+1) % 4, 4*(i+1)+(k+1) % 4, 4*(i+1)+k
        T += [(a, b, c), (a, c, d)]
R0 = qaxis((1, 0, 0), 20.0); R1 = qaxis((0, 1, 0), 10.0)
nodes_local = {0: trs([0, 0, 0], [0, 0, 0, 1], [1, 1, 1]), 1: trs([1, 0, 0], R0, s1)}
# J2 sits at x=2 in world: solve its local translation through J1's (mirrored) frame
W0 = nodes_local[0]; W1 = W0 @ nodes_local[1]
t2 = (np.linalg.inv(W1) @ np.array([2.0, 0, 0, 1]))[:3]
nodes_local[2] = trs(t2, R1, s2); W2 = W1 @ nodes_local[2]
worlds = [W0, W1, W2]
# mesh in bind space = world at rest: vertices as given; weights by distance along x
for (x, y, z) in P:
    if x <= 0.8: Wj.append((0, 0, 0, 0)); Ww.append((1, 0, 0, 0))
    elif x < 1.2: u = (x - 0.8) / 0.4; Wj.append((0, 1, 0, 0)); Ww.append((1 - u, u, 0, 0))
    elif x <= 1.8: Wj.append((1, 0, 0, 0)); Ww.append((1, 0, 0, 0))
    elif x < 2.2: u = (x - 1.8) / 0.4; Wj.append((1, 2, 0, 0)); Ww.append((1 - u, u, 0, 0))
    else: Wj.append((2, 0, 0, 0)); Ww.append((1, 0, 0, 0))
IB = [np.linalg.inv(w) for w in worlds]
# prop: a small box under J2, mirrored by sp, at world (2.6, 0.4, 0)
PP = [(x, y, z) for x in (-0.05, 0.05) for y in (-0.05, 0.05) for z in (-0.05, 0.1)]
PT = [(0,1,3),(0,3,2),(4,6,7),(4,7,5),(0,4,5),(0,5,1),(2,3,7),(2,7,6),(0,2,6),(0,6,4),(1,5,7),(1,7,3)]
RP = qaxis((0, 0, 1), 30.0)
tp = (np.linalg.inv(W2) @ np.array([2.6, 0.4, 0, 1]))[:3]
times = np.array([0.0, 1.0, 2.0], np.float32)
k1 = [qmul(R0, qaxis((0, 0, 1), a)) for a in (0, 45, -30)]
k1[2] = qmul(R0, qaxis((0, 1, 0), 60))
k2 = [qmul(R1, qaxis((0, 0, 1), a)) for a in (0, -40, 25)]
kp = [qmul(RP, qaxis((1, 0, 0), a)) for a in (0, 90, 170)]
w1 = [qmul(R0, qaxis((0, 0, 1), 30)), qmul(R0, qaxis((0, 1, 0), -50)), qmul(R0, qaxis((1, 0, 0), 40))]
w2 = [qmul(R1, qaxis((1, 0, 0), 35)), qmul(R1, qaxis((0, 0, 1), -60)), qmul(R1, qaxis((0, 1, 0), 45))]
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
aP = add(np.array(P, np.float32), 5126, "VEC3", 34962, True)
aJ = add(np.array(Wj, np.uint8), 5121, "VEC4", 34962)
aW = add(np.array(Ww, np.float32), 5126, "VEC4", 34962)
aI = add(np.array(T, np.uint16).ravel(), 5123, "SCALAR", 34963)
aPP = add(np.array(PP, np.float32), 5126, "VEC3", 34962, True)
aPI = add(np.array(PT, np.uint16).ravel(), 5123, "SCALAR", 34963)
aIB = add(np.array([m.T.ravel() for m in IB], np.float32), 5126, "MAT4")
aT = add(times, 5126, "SCALAR", None, True)
aK1 = add(np.array(k1, np.float32), 5126, "VEC4"); aK2 = add(np.array(k2, np.float32), 5126, "VEC4"); aKP = add(np.array(kp, np.float32), 5126, "VEC4")
aW1 = add(np.array(w1, np.float32), 5126, "VEC4"); aW2 = add(np.array(w2, np.float32), 5126, "VEC4")
aK0 = add(np.array([[0, 0, 0], [0, 0.3, 0], [0, 0, 0.2]], np.float32), 5126, "VEC3")
doc = {"asset": {"version": "2.0", "generator": "skinkit tests/data/make_mirrored_joints.py"}, "scene": 0,
       "scenes": [{"nodes": [0, 3]}],
       "nodes": [{"name": "J0", "children": [1]},
                 {"name": "J1", "translation": [1, 0, 0], "rotation": R0.tolist(), "scale": s1, "children": [2]},
                 {"name": "J2", "translation": t2.tolist(), "rotation": R1.tolist(), "scale": s2, "children": [4]},
                 {"name": "Bar", "mesh": 0, "skin": 0},
                 {"name": "Prop", "mesh": 1, "translation": tp.tolist(), "rotation": RP.tolist(), "scale": sp}],
       "meshes": [{"name": "Bar", "primitives": [{"attributes": {"POSITION": aP, "JOINTS_0": aJ, "WEIGHTS_0": aW}, "indices": aI}]},
                  {"name": "Prop", "primitives": [{"attributes": {"POSITION": aPP}, "indices": aPI}]}],
       "skins": [{"joints": [0, 1, 2], "inverseBindMatrices": aIB, "skeleton": 0}],
       "animations": [{"name": "Wave", "samplers": [{"input": aT, "output": aK1}, {"input": aT, "output": aK2}, {"input": aT, "output": aKP}, {"input": aT, "output": aK0}],
                       "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}, {"sampler": 1, "target": {"node": 2, "path": "rotation"}},
                                    {"sampler": 2, "target": {"node": 4, "path": "rotation"}}, {"sampler": 3, "target": {"node": 0, "path": "translation"}}]},
                      {"name": "Swing", "samplers": [{"input": aT, "output": aW1}, {"input": aT, "output": aW2}],
                       "channels": [{"sampler": 0, "target": {"node": 1, "path": "rotation"}}, {"sampler": 1, "target": {"node": 2, "path": "rotation"}}]}],
       "accessors": accs, "bufferViews": views, "buffers": [{"byteLength": len(blob)}]}
while len(blob) % 4: blob.append(0)
doc["buffers"][0]["byteLength"] = len(blob)
text = json.dumps(doc).encode(); text += b" " * (-len(text) % 4)
open(out, "wb").write(struct.pack("<4sII", b"glTF", 2, 28 + len(text) + len(blob)) + struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", len(blob), b"BIN\0") + bytes(blob))
