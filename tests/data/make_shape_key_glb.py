# make_shape_key_glb.py - writes tests/data/shape_key_leg.glb with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_shape_key_glb.py -- tests/data/shape_key_leg.glb
# tests/data/shape_key_leg.fbx (the two-bone leg with the shape key "Bulge") read by Blender's FBX importer and written
# by its glTF exporter: the shape key becomes a morph target (POSITION and NORMAL offsets, extras.targetNames). The
# glTF reader reads it as a blend shape (test_gltf_write `gltf_morph_targets_are_read`).
import bpy, sys, os
import numpy
numpy.bool = bool
out = sys.argv[sys.argv.index("--") + 1]
here = os.path.dirname(os.path.abspath(__file__))
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
bpy.ops.import_scene.fbx(filepath=os.path.join(here, "shape_key_leg.fbx"))
bpy.ops.export_scene.gltf(filepath=out, export_format="GLB", export_morph=True, export_morph_normal=True)
