# make_weight_defects.py - writes tests/data/weight_defects.glb: cylinder_rig.glb with defects a repair must clear.
# WEIGHTS_0 becomes a sparse accessor over the original view whose substitutions give three two-influence vertices a
# NaN, a -inf and a -0.25 weight; a second set JOINTS_1 (u8) / WEIGHTS_1 (float) holds no weight but a NaN on one
# vertex and names joint 200 (the skin has 2) with weight 0 on another. `skinkit weights --normalize` must write a
# file the Khronos validator accepts: the invalid entries removed and the vertices renormalized, the WEIGHTS_0
# accessor declared anew on the new data (a sparse accessor left in the file keeps its NaN for validators to find),
# the unneeded second set dropped with its accessors retired. Plain Python: python3 tests/data/make_weight_defects.py
import struct

import glb_json

doc, rest = glb_json.load("cylinder_rig.glb")
chunk_len = struct.unpack_from("<I", rest, 0)[0]
bin_ = bytearray(rest[8:8 + chunk_len])
views, accs = doc["bufferViews"], doc["accessors"]
prim = doc["meshes"][0]["primitives"][0]
V = accs[prim["attributes"]["POSITION"]]["count"]
wv = views[accs[prim["attributes"]["WEIGHTS_0"]]["bufferView"]]
rows = [list(struct.unpack_from("<4f", bin_, wv["byteOffset"] + 16 * v)) for v in range(V)]
two = [v for v in range(V) if sum(1 for w in rows[v] if w > 0) == 2][:3]
bad = [float("nan"), float("-inf"), -0.25]


def add_view(data, target=None):
    while len(bin_) % 4:
        bin_.append(0)
    views.append({"buffer": 0, "byteOffset": len(bin_), "byteLength": len(data)})
    if target:
        views[-1]["target"] = target
    bin_.extend(data)
    return len(views) - 1


# WEIGHTS_0: sparse over the original view
values = b"".join(struct.pack("<4f", b, *rows[v][1:]) for v, b in zip(two, bad))
ia = add_view(struct.pack("<3H", *two))
va = add_view(values)
w0 = accs[prim["attributes"]["WEIGHTS_0"]]
w0.pop("min", None), w0.pop("max", None)
w0["sparse"] = {"count": 3, "indices": {"bufferView": ia, "componentType": 5123}, "values": {"bufferView": va}}
# a second set without weight but a NaN (vertex 7) and joint 200 with weight 0 (vertex 3)
j1 = bytearray(4 * V)
j1[3 * 4 + 2] = 200
w1 = bytearray(16 * V)
struct.pack_into("<f", w1, 7 * 16, float("nan"))
accs.append({"bufferView": add_view(bytes(j1), 34962), "componentType": 5121, "count": V, "type": "VEC4"})
prim["attributes"]["JOINTS_1"] = len(accs) - 1
accs.append({"bufferView": add_view(bytes(w1), 34962), "componentType": 5126, "count": V, "type": "VEC4"})
prim["attributes"]["WEIGHTS_1"] = len(accs) - 1
while len(bin_) % 4:
    bin_.append(0)
doc["buffers"][0]["byteLength"] = len(bin_)
glb_json.save("weight_defects.glb", doc, struct.pack("<I4s", len(bin_), b"BIN\0") + bytes(bin_))
