# make_leg_thigh_only.py - writes tests/data/leg_thigh_only.dae with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_leg_thigh_only.py -- tests/data/leg_thigh_only.dae
# two_material_leg.fbx and a copy of its leg beside it ("Guard", 3 units along +x, bound to the same armature) whose
# shin vertex group is removed and every vertex put in the thigh's at 1: Blender's Collada exporter then lists only
# "thigh" in the copy's skin controller (it names the mesh's groups that are bones) and both bones in the leg's.
# For test_dae_edit.c: weight given to the copy's shin must be added to its controller.
import os
import sys

import bpy

out = sys.argv[sys.argv.index("--") + 1]
here = os.path.dirname(os.path.abspath(__file__))
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.fbx(filepath=os.path.join(here, "two_material_leg.fbx"))
leg = next(o for o in bpy.data.objects if o.type == "MESH")
guard = leg.copy()
guard.data = leg.data.copy()
guard.name = "Guard"
bpy.context.scene.collection.objects.link(guard)
guard.data.transform(__import__("mathutils").Matrix.Translation((3.0, 0.0, 0.0)))
guard.vertex_groups.remove(guard.vertex_groups["shin"])
guard.vertex_groups["thigh"].add(range(len(guard.data.vertices)), 1.0, "REPLACE")
bpy.ops.object.select_all(action="SELECT")
bpy.ops.wm.collada_export(filepath=out)
