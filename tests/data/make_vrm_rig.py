# make_vrm_rig.py - writes tests/data/vrm0_rig.vrm and tests/data/vrm1_rig.vrm from shape_key_leg.glb (plain Python):
#   python3 tests/data/make_vrm_rig.py
# A VRM avatar is a .glb whose humanoid map, expressions (blend shapes), look-at, spring bones and MToon materials are
# top-level extensions that name nodes, meshes, morph targets and materials by index: "VRM" in VRM 0.x (UniVRM,
# VRoid Studio until 2022), "VRMC_vrm" + "VRMC_springBone" + "VRMC_materials_mtoon" in VRM 1.0. The leg's two bones
# stand in for the humanoid's hips and spine (a real avatar maps ~50 bones: the indices are what matter here), its
# shape key "Bulge" for an expression, its shin for a spring chain. skinkit must read .vrm and write it back edited
# in place, every extension byte as it was (tests/unit/test_cli.c vrm_*).
import copy
import glb_json

doc, rest = glb_json.load("shape_key_leg.glb")
names = [n.get("name") for n in doc["nodes"]]
thigh, shin, leg = names.index("thigh"), names.index("shin"), names.index("Leg")
doc["materials"] = [{"name": "Skin", "pbrMetallicRoughness": {"baseColorFactor": [1.0, 0.8, 0.7, 1.0]}}]
for prim in doc["meshes"][0]["primitives"]:
    prim["material"] = 0

v0 = copy.deepcopy(doc)
v0["extensionsUsed"] = ["VRM"]
v0["extensions"] = {"VRM": {
    "exporterVersion": "skinkit-test-1.0",
    "specVersion": "0.0",
    "meta": {"title": "Leg", "version": "1", "author": "skinkit tests", "allowedUserName": "Everyone",
             "violentUssageName": "Disallow", "sexualUssageName": "Disallow", "commercialUssageName": "Allow",
             "licenseName": "CC0", "texture": -1},
    "humanoid": {"humanBones": [{"bone": "hips", "node": thigh, "useDefaultValues": True},
                                {"bone": "spine", "node": shin, "useDefaultValues": True}],
                 "armStretch": 0.05, "legStretch": 0.05, "upperArmTwist": 0.5, "lowerArmTwist": 0.5,
                 "upperLegTwist": 0.5, "lowerLegTwist": 0.5, "feetSpacing": 0, "hasTranslationDoF": False},
    "firstPerson": {"firstPersonBone": shin, "firstPersonBoneOffset": {"x": 0, "y": 0.06, "z": 0},
                    "meshAnnotations": [{"mesh": 0, "firstPersonFlag": "Auto"}], "lookAtTypeName": "Bone"},
    "blendShapeMaster": {"blendShapeGroups": [{"name": "Joy", "presetName": "joy", "isBinary": False,
                                               "binds": [{"mesh": 0, "index": 0, "weight": 100}],
                                               "materialValues": []}]},
    "secondaryAnimation": {"boneGroups": [{"comment": "shin", "stiffiness": 1, "gravityPower": 0,
                                           "gravityDir": {"x": 0, "y": -1, "z": 0}, "dragForce": 0.4, "center": -1,
                                           "hitRadius": 0.02, "bones": [shin], "colliderGroups": [0]}],
                           "colliderGroups": [{"node": thigh, "colliders": [{"offset": {"x": 0, "y": 0, "z": 0},
                                                                             "radius": 0.1}]}]},
    "materialProperties": [{"name": "Skin", "shader": "VRM/MToon", "renderQueue": 2000,
                            "floatProperties": {"_Cutoff": 0.5, "_ShadeToony": 0.9},
                            "vectorProperties": {"_Color": [1.0, 0.8, 0.7, 1.0], "_ShadeColor": [0.9, 0.6, 0.5, 1.0]},
                            "textureProperties": {}, "keywordMap": {}, "tagMap": {"RenderType": "Opaque"}}]}}
glb_json.save("vrm0_rig.vrm", v0, rest)

v1 = copy.deepcopy(doc)
v1["extensionsUsed"] = ["VRMC_vrm", "VRMC_springBone", "VRMC_materials_mtoon"]
v1["materials"][0]["extensions"] = {"VRMC_materials_mtoon": {
    "specVersion": "1.0", "shadeColorFactor": [0.9, 0.6, 0.5], "shadingToonyFactor": 0.9}}
v1["extensions"] = {
    "VRMC_vrm": {"specVersion": "1.0",
                 "meta": {"name": "Leg", "version": "1", "authors": ["skinkit tests"],
                          "licenseUrl": "https://vrm.dev/licenses/1.0/", "avatarPermission": "everyone",
                          "commercialUsage": "corporation", "creditNotation": "unnecessary",
                          "allowRedistribution": True, "modification": "allowModificationRedistribution"},
                 "humanoid": {"humanBones": {"hips": {"node": thigh}, "spine": {"node": shin}}},
                 "firstPerson": {"meshAnnotations": [{"node": leg, "type": "auto"}]},
                 "lookAt": {"type": "bone", "offsetFromHeadBone": [0, 0.06, 0]},
                 "expressions": {"preset": {"happy": {"morphTargetBinds": [{"node": leg, "index": 0, "weight": 1.0}],
                                                      "isBinary": False}}}},
    "VRMC_springBone": {"specVersion": "1.0",
                        "colliders": [{"node": thigh, "shape": {"sphere": {"offset": [0, 0, 0], "radius": 0.1}}}],
                        "colliderGroups": [{"name": "thigh", "colliders": [0]}],
                        "springs": [{"name": "shin", "joints": [{"node": shin, "hitRadius": 0.02, "stiffness": 1.0,
                                                                 "gravityPower": 0, "dragForce": 0.4}],
                                     "colliderGroups": [0]}]}}
glb_json.save("vrm1_rig.vrm", v1, rest)
