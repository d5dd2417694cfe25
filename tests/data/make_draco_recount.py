# make_draco_recount.py - writes tests/data/draco_recount.glb: cylinder_rig_draco.glb whose Draco attributes declare
# 1120 vertices where the Draco data decodes to 1122 points, as FBX2glTF 0.9.7 (`-d`) declares the vertex count before
# Draco's edgebreaker split vertices (424 declared, 426 decoded in textured_rig.fbx). It also gets one morph target
# outside the Draco stream, all zeros (an accessor without a view) with the decoded count 1122, as the extension's
# implementation note says uncompressed data should be written: that one maps onto the decoded points. test_gltf_draco
# reads it, and patches the target's count to the declared 1120 (FBX2glTF's shape_key_leg.fbx) for the case that
# cannot be mapped. Plain Python (tests/data/glb_json.py): /usr/bin/python3 tests/data/make_draco_recount.py
import glb_json

DECODED, DECLARED = 1122, 1120

doc, rest = glb_json.load("cylinder_rig_draco.glb")
prim = doc["meshes"][0]["primitives"][0]
for name in prim["extensions"]["KHR_draco_mesh_compression"]["attributes"]:
    acc = doc["accessors"][prim["attributes"][name]]
    assert acc["count"] == DECODED, (name, acc["count"])
    acc["count"] = DECLARED
doc["accessors"].append({"type": "VEC3", "componentType": 5126, "count": DECODED, "min": [0, 0, 0], "max": [0, 0, 0]})
prim["targets"] = [{"POSITION": len(doc["accessors"]) - 1}]
glb_json.save("draco_recount.glb", doc, rest)
