# make_quad_leg_dae.py - writes tests/data/quad_leg.dae with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_quad_leg_dae.py -- tests/data/quad_leg.dae
# two_material_leg.fbx imported and exported by Blender's Collada exporter without triangulation: one <polylist> per
# material of quads and the caps' 48-gons over one position list (Assimp triangulates them without adding vertices),
# for test_dae_edit.c.
import os
import sys

import bpy

out = sys.argv[sys.argv.index("--") + 1]
here = os.path.dirname(os.path.abspath(__file__))
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.fbx(filepath=os.path.join(here, "two_material_leg.fbx"))
bpy.ops.object.select_all(action="SELECT")
bpy.ops.wm.collada_export(filepath=out, triangulate=False)
