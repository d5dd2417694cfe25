# make_two_scenes.py - writes tests/data/two_scenes.glb: cylinder_rig.glb plus a second glTF scene holding one node
# "Crate" that draws the cylinder's positions and triangles without a skin (a mesh "crate" of its own). A skin's
# joints must be in the scene of the node that uses it (Khronos validator: NODE_SKIN_NO_SCENE), so `skinkit bind`
# leaves that mesh as it is. Plain Python (glb_json.py): python3 tests/data/make_two_scenes.py
import glb_json

doc, rest = glb_json.load("cylinder_rig.glb")
prim = doc["meshes"][0]["primitives"][0]
crate = {"attributes": {"POSITION": prim["attributes"]["POSITION"]}}
if "indices" in prim:
    crate["indices"] = prim["indices"]
doc["meshes"].append({"name": "crate", "primitives": [crate]})
doc["nodes"].append({"name": "Crate", "mesh": len(doc["meshes"]) - 1, "translation": [3.0, 0.0, 0.0]})
doc.setdefault("scenes", [{"nodes": [0]}]).append({"name": "Other", "nodes": [len(doc["nodes"]) - 1]})
glb_json.save("two_scenes.glb", doc, rest)
