# make_points_prim.py - writes tests/data/points_prim.glb: cylinder_rig.glb whose mesh also draws its vertices as a
# POINTS primitive with the same attributes (JOINTS_0 / WEIGHTS_0 included). The reader reads triangles only; an
# edit of the weights must give the points the new weights too (the audit of session 44: they kept the old ones).
# Plain Python (tests/data/glb_json.py): python3 tests/data/make_points_prim.py
import glb_json

doc, rest = glb_json.load("cylinder_rig.glb")
prim = doc["meshes"][0]["primitives"][0]
doc["meshes"][0]["primitives"].append({"attributes": dict(prim["attributes"]), "mode": 0})
glb_json.save("points_prim.glb", doc, rest)
