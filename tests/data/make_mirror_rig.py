# make_mirror_rig.py - mirror_rig.glb: a grid of 7 x 4 vertices across the X = 0 plane (x -3..3, z 0..3) skinned to
# "Root" (at the origin), "LeftArm" (x = 1) and "RightArm" (x = -1): the +X vertices carry LeftArm 0.75 and Root 0.25,
# the -X ones Root 1 and the x = 0 column Root 1 - what a rig weighted on one side holds before `weights --mirror +x`.
# mirror_rig_gltfpack.glb is gltfpack's default output of it (KHR_mesh_quantization: integer positions, the
# dequantization moved into the mesh's node and the inverse binds), whose X = 0 plane is not the model's:
#   /usr/bin/python3 tests/data/make_mirror_rig.py
#   gltfpack -i tests/data/mirror_rig.glb -o tests/data/mirror_rig_gltfpack.glb   (gltfpack 1.3, npm)
# unweighted_vertex.glb: the same grid with vertex 0's weights all 0 (invalid glTF: what a convert must not pass on
# in silence). set_gap.glb: the grid with a second influence set named JOINTS_2 / WEIGHTS_2 (no set 1: the Khronos
# validator's MESH_PRIMITIVE_INDEXED_SEMANTIC_CONTINUITY).
import json
import os
import struct

xs, zs = range(-3, 4), range(0, 4)
pos, joints, weights = [], [], []
for z in zs:
    for x in xs:
        pos += [float(x), 0.0, float(z)]
        joints += [1, 0, 0, 0] if x > 0 else [0, 0, 0, 0]
        weights += [0.75, 0.25, 0.0, 0.0] if x > 0 else [1.0, 0.0, 0.0, 0.0]
idx = []
for z in range(len(zs) - 1):
    for x in range(len(xs) - 1):
        a = z * len(xs) + x
        idx += [a, a + 1, a + len(xs), a + 1, a + len(xs) + 1, a + len(xs)]
ibm = []
for tx in (0.0, 1.0, -1.0):  # inverse of a translation along x
    ibm += [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -tx, 0, 0, 1]
blobs = [struct.pack("<%df" % len(pos), *pos), struct.pack("<%dB" % len(joints), *joints),
         struct.pack("<%df" % len(weights), *weights), struct.pack("<%dH" % len(idx), *idx),
         struct.pack("<%df" % len(ibm), *ibm)]
views, binary = [], b""
for b in blobs:
    views.append({"buffer": 0, "byteOffset": len(binary), "byteLength": len(b)})
    binary += b + b"\0" * ((4 - len(b) % 4) % 4)
n = len(pos) // 3
doc = {
    "asset": {"version": "2.0", "generator": "skinkit tests/data/make_mirror_rig.py"},
    "scene": 0, "scenes": [{"nodes": [0, 3]}],
    "nodes": [{"name": "Root", "children": [1, 2]}, {"name": "LeftArm", "translation": [1, 0, 0]},
              {"name": "RightArm", "translation": [-1, 0, 0]}, {"name": "Grid", "mesh": 0, "skin": 0}],
    "meshes": [{"name": "Grid", "primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2},
                                                "indices": 3}]}],
    "skins": [{"joints": [0, 1, 2], "inverseBindMatrices": 4, "skeleton": 0}],
    "accessors": [
        {"bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3",
         "min": [min(pos[0::3]), min(pos[1::3]), min(pos[2::3])], "max": [max(pos[0::3]), max(pos[1::3]), max(pos[2::3])]},
        {"bufferView": 1, "componentType": 5121, "count": n, "type": "VEC4"},
        {"bufferView": 2, "componentType": 5126, "count": n, "type": "VEC4"},
        {"bufferView": 3, "componentType": 5123, "count": len(idx), "type": "SCALAR"},
        {"bufferView": 4, "componentType": 5126, "count": 3, "type": "MAT4"}],
    "bufferViews": views, "buffers": [{"byteLength": len(binary)}],
}


def write(name, binary):
    js = json.dumps(doc, separators=(",", ":")).encode()
    js += b" " * ((4 - len(js) % 4) % 4)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    with open(out, "wb") as f:
        f.write(struct.pack("<III", 0x46546C67, 2, 12 + 8 + len(js) + 8 + len(binary)))
        f.write(struct.pack("<II", len(js), 0x4E4F534A) + js + struct.pack("<II", len(binary), 0x004E4942) + binary)


write("mirror_rig.glb", binary)
at = views[2]["byteOffset"]  # vertex 0's four float weights
write("unweighted_vertex.glb", binary[:at] + struct.pack("<4f", 0, 0, 0, 0) + binary[at + 16:])
doc["meshes"][0]["primitives"][0]["attributes"].update({"JOINTS_2": 1, "WEIGHTS_2": 2})
write("set_gap.glb", binary)
