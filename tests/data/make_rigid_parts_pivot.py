# make_rigid_parts_pivot.py - rigid_parts.glb with its scene under a new root node "Pivot" (translation (1, 2, 3),
# 90 degrees about Y), as `gltf-transform center` or an exporter that wraps the armature object in an empty writes
# it: the armature object "Rig" then stands at a transform of its own. Run: /usr/bin/python3 tests/data/make_rigid_parts_pivot.py
import math

import glb_json

doc, rest = glb_json.load("rigid_parts.glb")
scene = doc["scenes"][doc.get("scene", 0)]
s = math.sqrt(0.5)
doc["nodes"].append({"name": "Pivot", "translation": [1.0, 2.0, 3.0], "rotation": [0.0, s, 0.0, s],
                     "children": list(scene["nodes"])})
scene["nodes"] = [len(doc["nodes"]) - 1]
glb_json.save("rigid_parts_pivot.glb", doc, rest)
