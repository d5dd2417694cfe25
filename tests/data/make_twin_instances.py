# make_twin_instances.py - writes tests/data/twin_instances.glb: cylinder_rig.glb plus a second armature
# (bone0b -> bone1b, 2 units along z) and a second node, cylinder_b, that instances the same mesh with a skin of its
# own: two characters sharing one primitive's weights. An edit that treats them alike keeps one primitive; one that
# does not (--lock bone0 locks the first character's bone only) must not write one instance's weights over the
# other's. Plain Python (tests/data/glb_json.py): python3 tests/data/make_twin_instances.py
import glb_json

doc, rest = glb_json.load("cylinder_rig.glb")
n = len(doc["nodes"])
doc["nodes"].append({"name": "bone0b", "translation": [0, 0, 2], "children": [n + 1, n + 2]})
doc["nodes"].append({"name": "bone1b", "translation": [1, 0, 0]})
doc["nodes"].append({"name": "cylinder_b", "mesh": 0, "skin": 1})
doc["skins"].append({"name": "skin_b", "joints": [n, n + 1], "inverseBindMatrices": doc["skins"][0]["inverseBindMatrices"]})
doc["scenes"][0]["nodes"].append(n)
glb_json.save("twin_instances.glb", doc, rest)
