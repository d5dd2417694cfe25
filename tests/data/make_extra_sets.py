# make_extra_sets.py - writes tests/data/extra_sets.glb: colored_leg.glb (Blender 3.4's glTF export of a leg with two
# UV sets and vertex colours) with its primitives also given TEXCOORD_2, COLOR_1 and an application attribute
# "_FEATURE_ID_0" (the first UV set's, the colours' and the first UV set's accessors again: valid glTF). skinkit's
# scene carries two UV sets and one colour set: writing the file as .fbx / .dae must name what is left out, the
# in-place .glb keeps all of it. Plain Python:  python3 tests/data/make_extra_sets.py
import glb_json

doc, rest = glb_json.load("colored_leg.glb")
for mesh in doc["meshes"]:
    for prim in mesh["primitives"]:
        a = prim["attributes"]
        a["TEXCOORD_2"], a["COLOR_1"], a["_FEATURE_ID_0"] = a["TEXCOORD_0"], a["COLOR_0"], a["TEXCOORD_0"]
glb_json.save("extra_sets.glb", doc, rest)
