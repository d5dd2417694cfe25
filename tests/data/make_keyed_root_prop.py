# make_keyed_root_prop.py - writes tests/data/keyed_root_prop.glb: a node "Mover" that no skin lists, keyed by a clip
# (translation and rotation), above the skin's joints J1 - J2 that bind a bar "Bar", and an unskinned box "Marker"
# that hangs from Mover (a ground marker on a root-motion node). Marker must move with Mover in every output; through
# .fbx / .dae it stood still at the root (session 55's random-scene sweep: 0.07-0.23 of the scene off in the clip).
# Run: /usr/bin/python3 tests/data/make_keyed_root_prop.py (numpy).
import json
import os
import struct

import numpy as np

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keyed_root_prop.glb")
def qaxis(ax, deg):
    ax = np.array(ax, float); ax /= np.linalg.norm(ax); h = np.radians(deg) / 2
    return np.r_[ax * np.sin(h), np.cos(h)]
BOX = [(0,1,3),(0,3,2),(4,6,7),(4,7,5),(0,4,5),(0,5,1),(2,3,7),(2,7,6),(0,2,6),(0,6,4),(1,5,7),(1,7,3)]
def box(c, h):
    return [(c[0] + x * h[0], c[1] + y * h[1], c[2] + z * h[2]) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
# Mover at (0.5, 0, 0), turned 30 degrees about z and scaled (1.5, 0.8, 1.2) (the inverse of that rest is a shear,
# which no FBX node holds: the marker's vertices go into Mover's space, not its node); J1 at Mover, J2 one unit up
# Mover's y; the bar's two boxes bound rigidly, one to each joint.
P = box((0.5, 0.4, 0), (0.1, 0.4, 0.1)) + box((0.5, 1.2, 0), (0.1, 0.4, 0.1))
J = [(0, 0, 0, 0)] * 8 + [(1, 0, 0, 0)] * 8
W = [(1, 0, 0, 0)] * 16
T = BOX + [(a + 8, b + 8, c + 8) for a, b, c in BOX]
RM = qaxis((0, 0, 1), 30)
x, y, z, w = RM
S = np.eye(4)
S[:3, :3] = np.array([[1-2*(y*y+z*z), 2*(x*y-z*w), 2*(x*z+y*w)], [2*(x*y+z*w), 1-2*(x*x+z*z), 2*(y*z-x*w)],
                      [2*(x*z-y*w), 2*(y*z+x*w), 1-2*(x*x+y*y)]]) @ np.diag([1.5, 0.8, 1.2])
def at(x, y, z):
    m = np.eye(4); m[:3, 3] = (x, y, z); return m
IB = [np.linalg.inv(at(0.5, 0, 0) @ S), np.linalg.inv(at(0.5, 0, 0) @ S @ at(0, 1, 0))]
MP = box((0.3, 0, 0.4), (0.2, 0.02, 0.2))  # Marker, in Mover's space
times = np.array([0.0, 1.0, 2.0], np.float32)
tk = np.array([[0.5, 0, 0], [1.5, 0, 0.5], [2.0, 0, -0.5]], np.float32)
def qmul(a, b):
    ax, ay, az, aw = a; bx, by, bz, bw = b
    return np.array([aw*bx+ax*bw+ay*bz-az*by, aw*by-ax*bz+ay*bw+az*bx, aw*bz+ax*by-ay*bx+az*bw, aw*bw-ax*bx-ay*by-az*bz])
rk = np.array([qmul(qaxis((0, 1, 0), a), RM) for a in (0, 60, 150)], np.float32)  # the first key is the rest
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
aJ = add(np.array(J, np.uint8), 5121, "VEC4", 34962)
aW = add(np.array(W, np.float32), 5126, "VEC4", 34962)
aI = add(np.array(T, np.uint16).ravel(), 5123, "SCALAR", 34963)
aMP = add(np.array(MP, np.float32), 5126, "VEC3", 34962, True)
aMI = add(np.array(BOX, np.uint16).ravel(), 5123, "SCALAR", 34963)
aIB = add(np.array([m.T.ravel() for m in IB], np.float32), 5126, "MAT4")
aT = add(times, 5126, "SCALAR", None, True)
aTK = add(tk, 5126, "VEC3"); aRK = add(rk, 5126, "VEC4")
doc = {"asset": {"version": "2.0", "generator": "skinkit tests/data/make_keyed_root_prop.py"}, "scene": 0,
       "scenes": [{"nodes": [0, 3]}],
       "nodes": [{"name": "Mover", "translation": [0.5, 0, 0], "rotation": RM.tolist(), "scale": [1.5, 0.8, 1.2], "children": [1, 4]},
                 {"name": "J1", "children": [2]},
                 {"name": "J2", "translation": [0, 1, 0]},
                 {"name": "Bar", "mesh": 0, "skin": 0},
                 {"name": "Marker", "mesh": 1}],
       "meshes": [{"name": "Bar", "primitives": [{"attributes": {"POSITION": aP, "JOINTS_0": aJ, "WEIGHTS_0": aW}, "indices": aI}]},
                  {"name": "Marker", "primitives": [{"attributes": {"POSITION": aMP}, "indices": aMI}]}],
       "skins": [{"joints": [1, 2], "inverseBindMatrices": aIB}],
       "animations": [{"name": "Move", "samplers": [{"input": aT, "output": aTK}, {"input": aT, "output": aRK}],
                       "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}},
                                    {"sampler": 1, "target": {"node": 0, "path": "rotation"}}]}],
       "accessors": accs, "bufferViews": views, "buffers": [{"byteLength": len(blob)}]}
while len(blob) % 4: blob.append(0)
doc["buffers"][0]["byteLength"] = len(blob)
text = json.dumps(doc).encode(); text += b" " * (-len(text) % 4)
open(out, "wb").write(struct.pack("<4sII", b"glTF", 2, 28 + len(text) + len(blob)) + struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", len(blob), b"BIN\0") + bytes(blob))
