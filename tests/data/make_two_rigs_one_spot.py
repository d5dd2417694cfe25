# make_two_rigs_one_spot.py - writes tests/data/two_rigs_one_spot.glb: cylinder_rig.glb's rig twice at one spot - a
# second armature ("rig2_bone0", "rig2_bone1", its own skin) and a second cylinder "cylinder2" drawing the same
# positions through its own accessors' copies - two characters standing in one place. The weight tools and bind must
# keep each on its own bones (the audit of session 44: smoothing, mirroring and binding took the two as one surface
# and weighted both to all four joints). Plain Python (glb_json.py): python3
# tests/data/make_two_rigs_one_spot.py
import glb_json

doc, rest = glb_json.load("cylinder_rig.glb")
nodes, skin = doc["nodes"], doc["skins"][0]
mesh_node = next(i for i, nd in enumerate(nodes) if "mesh" in nd)
base = len(nodes)
copy = {j: base + k for k, j in enumerate(skin["joints"])}
for j in skin["joints"]:
    nd = {k: v for k, v in nodes[j].items() if k != "children"}
    nd["name"] = "rig2_" + nodes[j]["name"]
    kids = [copy[c] for c in nodes[j].get("children", []) if c in copy]
    if kids:
        nd["children"] = kids
    nodes.append(nd)
doc["skins"].append({"name": "skin2", "joints": [copy[j] for j in skin["joints"]],
                     "inverseBindMatrices": skin["inverseBindMatrices"]})
prim = dict(doc["meshes"][nodes[mesh_node]["mesh"]]["primitives"][0])
prim["attributes"] = dict(prim["attributes"])
for key in ("JOINTS_0", "WEIGHTS_0"):  # accessors of its own (the same bytes: read only, the edit appends)
    doc["accessors"].append(dict(doc["accessors"][prim["attributes"][key]]))
    prim["attributes"][key] = len(doc["accessors"]) - 1
doc["meshes"].append({"name": "cylinder2", "primitives": [prim]})
nodes.append({"name": "cylinder2", "mesh": len(doc["meshes"]) - 1, "skin": len(doc["skins"]) - 1})
scene = doc["scenes"][doc.get("scene", 0)]
roots = [j for j in skin["joints"] if not any(j in nd.get("children", []) for nd in nodes)]
scene["nodes"] += [copy[r] for r in roots] + [len(nodes) - 1]
SIZE = {5121: 1, 5123: 2, 5126: 4}
for key in ("JOINTS_0", "WEIGHTS_0"):  # two accessors on one vertex view need its byteStride
    acc = doc["accessors"][prim["attributes"][key]]
    doc["bufferViews"][acc["bufferView"]].setdefault("byteStride", 4 * SIZE[acc["componentType"]])
glb_json.save("two_rigs_one_spot.glb", doc, rest)
