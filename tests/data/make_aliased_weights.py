# make_aliased_weights.py - writes tests/data/aliased_weights.glb: cylinder_rig.glb plus a second mesh "twin" on a
# node "Twin" (same skin) whose JOINTS_0 and WEIGHTS_0 are accessors of their own over the same buffer view bytes as
# the cylinder's (valid glTF: two meshes sharing their weights' bytes; the views get the byteStride that requires).
# An edit in place of one mesh's weights must not change the other's (the audit of session 44: `bind --meshes Twin`
# rewrote both).
# Plain Python (tests/data/glb_json.py): python3 tests/data/make_aliased_weights.py
import glb_json

doc, rest = glb_json.load("cylinder_rig.glb")
prim = doc["meshes"][0]["primitives"][0]
attrs = dict(prim["attributes"])
SIZE = {5121: 1, 5123: 2, 5126: 4}
for key in ("JOINTS_0", "WEIGHTS_0"):
    acc = doc["accessors"][attrs[key]]
    acc.pop("min", None), acc.pop("max", None)  # (optional here; an accessor with them is not edited in place)
    doc["bufferViews"][acc["bufferView"]].setdefault("byteStride", 4 * SIZE[acc["componentType"]])
    doc["accessors"].append(dict(acc))
    attrs[key] = len(doc["accessors"]) - 1
twin = {"attributes": attrs}
if "indices" in prim:
    twin["indices"] = prim["indices"]
doc["meshes"].append({"name": "twin", "primitives": [twin]})
skinned = next(nd for nd in doc["nodes"] if "skin" in nd)
doc["nodes"].append({"name": "Twin", "mesh": len(doc["meshes"]) - 1, "skin": skinned["skin"]})
scene = doc["scenes"][doc.get("scene", 0)]
scene["nodes"].append(len(doc["nodes"]) - 1)
glb_json.save("aliased_weights.glb", doc, rest)
