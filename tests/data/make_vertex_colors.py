# make_vertex_colors.py - writes tests/data/colored_leg.{fbx,glb} with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_vertex_colors.py -- tests/data/colored_leg.fbx
# A 12-sided cylinder skinned to two bones with Blender's automatic weights, with a second UV map "Lightmap" (a
# pattern per face corner) and a byte colour attribute "Col" per face corner (sRGB steps of 1/6, 1/4 and 1/2), as a
# user's game character carries baked lighting and paint masks. Blender's FBX exporter writes the colours as sRGB
# values, its glTF exporter as linear COLOR_0; both keep the two UV sets. skinkit keeps both streams through its
# readers and writers (tests/unit/test_vertex_streams.c).
import bpy, sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_leg import leg_rig  # noqa: E402
out = sys.argv[sys.argv.index("--") + 1]
arm, leg = leg_rig()
me = leg.data
me.uv_layers.new(name="Lightmap")
for i, l in enumerate(me.uv_layers["Lightmap"].data):
    l.uv = (0.01 * (i % 50), 0.02 * (i % 37))
col = me.color_attributes.new("Col", "BYTE_COLOR", "CORNER")
for i, c in enumerate(col.data):
    c.color_srgb = ((i % 7) / 6.0, (i % 5) / 4.0, (i % 3) / 2.0, 1.0)
leg.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
bpy.ops.object.select_all(action="SELECT")
base = os.path.splitext(out)[0]
bpy.ops.export_scene.fbx(filepath=base + ".fbx", add_leaf_bones=False)
import numpy; numpy.bool = bool
bpy.ops.export_scene.gltf(filepath=base + ".glb", export_format="GLB", export_colors=True)
