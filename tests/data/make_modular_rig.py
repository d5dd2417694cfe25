# make_modular_rig.py - modular_rig.glb: a modular character as Blender's glTF exporter writes one (session 76):
# one skin listing all 48 joints of a skeleton ("j0" the root, a spine "j1".."j7" along +Y, five chains of eight
# joints hanging off the spine) shared by 16 box meshes ("piece0".."piece15", 8 vertices each, on nodes
# "obj0".."obj15"), mesh m weighting only three joints of chain m mod 5 (0.7 / 0.3 per vertex). Converted to .fbx or
# .dae, each mesh should list as bones only those joints, plus one mesh carrying the rest of the skeleton once
# (test_fbx_binary, test_collada_clips):
#   /usr/bin/python3 tests/data/make_modular_rig.py
import json
import os
import struct

J, N = 48, 16
parents = [-1] + list(range(0, 7))  # j0, then the spine j1..j7
while len(parents) < J:
    start = len(parents)
    for k in range(8):
        parents.append(1 + (start // 8) % 7 if k == 0 else len(parents) - 1)
children = [[c for c in range(J) if parents[c] == j] for j in range(J)]
local = []
for j in range(J):
    if parents[j] < 0:
        local.append([0.0, 0.0, 0.0])
    elif j <= 7:
        local.append([0.0, 0.1, 0.0])
    else:
        local.append([0.05 if (j // 8) % 2 else -0.05, 0.02, 0.01 * (j % 3)])
world = []
for j in range(J):
    p = world[parents[j]] if parents[j] >= 0 else [0.0, 0.0, 0.0]
    world.append([p[c] + local[j][c] for c in range(3)])

binary, views, accessors = b"", [], []


def add(fmt, values, count, typ, comp, minmax=None, target=None):
    global binary
    data = struct.pack("<%d%s" % (len(values), fmt), *values)
    views.append({"buffer": 0, "byteOffset": len(binary), "byteLength": len(data)})
    if target:
        views[-1]["target"] = target
    binary += data + b"\0" * (-len(data) % 4)
    a = {"bufferView": len(views) - 1, "componentType": comp, "count": count, "type": typ}
    if minmax:
        a["min"], a["max"] = minmax
    accessors.append(a)
    return len(accessors) - 1


corners = [(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
tris = [0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3]
indices = add("H", tris, len(tris), "SCALAR", 5123, target=34963)
ibm = []
for j in range(J):
    ibm += [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -world[j][0], -world[j][1], -world[j][2], 1]
inverse_binds = add("f", ibm, J, "MAT4", 5126)
meshes, nodes = [], []
for j in range(J):
    n = {"name": "j%d" % j, "translation": local[j]}
    if children[j]:
        n["children"] = children[j]
    nodes.append(n)
for m in range(N):
    first = 8 + 8 * (m % 5) + 2 * ((m // 5) % 3)
    chain = [first, first + 1, first + 2]
    c = world[chain[0]]
    pos = [c[k] + 0.03 * corner[k] for corner in corners for k in range(3)]
    joints, weights = [], []
    for v in range(8):
        a, b = chain[v % len(chain)], chain[(v + 1) % len(chain)]
        joints += [a, b, 0, 0]
        weights += [0.7, 0.3, 0.0, 0.0]
    lo = [min(pos[k::3]) for k in range(3)]
    hi = [max(pos[k::3]) for k in range(3)]
    attributes = {"POSITION": add("f", pos, 8, "VEC3", 5126, (lo, hi), 34962),
                  "JOINTS_0": add("H", joints, 8, "VEC4", 5123, target=34962),
                  "WEIGHTS_0": add("f", weights, 8, "VEC4", 5126, target=34962)}
    meshes.append({"name": "piece%d" % m, "primitives": [{"attributes": attributes, "indices": indices}]})
    nodes.append({"name": "obj%d" % m, "mesh": m, "skin": 0})
doc = {
    "asset": {"version": "2.0", "generator": "skinkit tests/data/make_modular_rig.py"},
    "scene": 0, "scenes": [{"nodes": [0] + list(range(J, J + N))}], "nodes": nodes, "meshes": meshes,
    "skins": [{"joints": list(range(J)), "inverseBindMatrices": inverse_binds, "skeleton": 0}],
    "accessors": accessors, "bufferViews": views, "buffers": [{"byteLength": len(binary)}],
}


text = json.dumps(doc, separators=(",", ":")).encode()
text += b" " * (-len(text) % 4)
head = struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(text) + 8 + len(binary))
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "modular_rig.glb")
with open(out, "wb") as f:
    f.write(head + struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", len(binary), b"BIN\0") + binary)
