# make_extra_sets_fbx.py - writes tests/data/extra_sets.fbx with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_extra_sets_fbx.py -- tests/data/extra_sets.fbx
# The two-bone leg (blender_leg.py, automatic weights) with three UV maps and two colour layers. skinkit's scene carries two UV sets and
# one colour set: converting the file to another format must name what is left out (the in-place .fbx keeps all).
import bpy, sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_leg import leg_rig  # noqa: E402
out = sys.argv[sys.argv.index("--") + 1]
arm, leg = leg_rig()
me = leg.data
for name in ("UVMap", "Lightmap", "Detail"):
    if name not in me.uv_layers:
        me.uv_layers.new(name=name)
for name in ("Col", "Dirt"):
    layer = me.vertex_colors.new(name=name)
    for i, d in enumerate(layer.data):
        d.color = (i % 3 / 2.0, 0.5, 1.0 - i % 5 / 4.0, 1.0)
leg.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
bpy.ops.object.select_all(action="SELECT")
bpy.ops.export_scene.fbx(filepath=out, add_leaf_bones=False)
