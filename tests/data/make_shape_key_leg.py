# make_shape_key_leg.py - writes tests/data/shape_key_leg.fbx with Blender 3.4 (and, with a value after the path,
# tests/data/shape_key_leg_valued.fbx: "Bulge" at 0.4, which the file keeps as its DeformPercent 40):
#   blender -b --factory-startup --python tests/data/make_shape_key_leg.py -- tests/data/shape_key_leg.fbx
#   blender -b --factory-startup --python tests/data/make_shape_key_leg.py -- tests/data/shape_key_leg_valued.fbx 0.4
# The two-bone leg (blender_leg.py) with quads, a shape key "Bulge" (the calf pushed out) and every vertex on
# "thigh" alone: "shin" has no vertex group, so Blender's exporter writes no cluster for it. Editing the weights of
# this file in place must add shin's cluster and keep the quads and the shape key (tests/unit/test_fbx_edit.c), which
# Assimp's FBX writer does not (it triangulates and drops blend shapes).
import bpy, sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_leg import leg_rig  # noqa: E402
args = sys.argv[sys.argv.index("--") + 1:]
out = args[0]
arm, leg = leg_rig()
bpy.ops.object.mode_set(mode="EDIT"); bpy.ops.mesh.select_all(action="SELECT")
bpy.ops.mesh.subdivide(number_cuts=3); bpy.ops.object.mode_set(mode="OBJECT")
leg.shape_key_add(name="Basis")
bulge = leg.shape_key_add(name="Bulge")
for v in bulge.data:
    if 0.2 < v.co.z + 1.0 < 0.9:  # the calf (object space z -1..1, world 0..2)
        v.co.x *= 1.3; v.co.y *= 1.3
if len(args) > 1:
    bulge.value = float(args[1])
leg.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_NAME")  # empty groups named after the bones
leg.vertex_groups["thigh"].add(range(len(leg.data.vertices)), 1.0, "REPLACE")
leg.vertex_groups.remove(leg.vertex_groups["shin"])
bpy.ops.object.select_all(action="SELECT")
bpy.ops.export_scene.fbx(filepath=out, add_leaf_bones=False)
