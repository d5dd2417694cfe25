# make_shape_key_dae.py - writes tests/data/shape_key_leg.dae with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_shape_key_dae.py -- tests/data/shape_key_leg.fbx \
#       tests/data/shape_key_leg.dae
# Our shape_key_leg.fbx (make_shape_key_leg.py) imported and written by Blender's Collada exporter with its shape
# key ("Include Shape Keys"): a morph controller "Leg-morph" (Bulge at 0.3) beside the skin controller, which
# Assimp 5.2.5's reader refuses on its own (tests/unit/test_io.c: the file must read, the morph noted).
import bpy, sys
import numpy
numpy.bool = bool  # Blender 3.4's importers use np.bool, gone from numpy 1.24
src, out = sys.argv[sys.argv.index("--") + 1:][:2]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.fbx(filepath=src)
ob = next(o for o in bpy.context.scene.objects if o.type == "MESH")
ob.data.shape_keys.key_blocks["Bulge"].value = 0.3
bpy.ops.wm.collada_export(filepath=out, include_shapekeys=True, selected=False)
