# make_walker_gltf.py - writes tests/data/walker_current.glb with Blender 3.4: walker_rig.fbx (make_walker_rig.py)
# read by Blender's FBX importer and written by its glTF exporter with "Use Current Frame" at frame 7 of the walk, so
# the nodes hold that pose (the hips moved and turned) while the inverse binds hold the bind pose, and the skin names
# no "skeleton" node: Blender's glTF importer then binds the root bone at its node's pose and the others relative to
# it. A .glb of a scene saved in a pose. `convert` wrote it as .fbx with the node pose taken as the bind (2.5e-2 of
# the model off at rest in Blender before session 53).
#   blender -b --factory-startup --python tests/data/make_walker_gltf.py -- tests/data
import os
import sys

import bpy
import numpy

numpy.bool = bool  # Blender 3.4's glTF add-on still uses the alias numpy 1.24 removed

out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.fbx(filepath=os.path.join(out, "walker_rig.fbx"))
bpy.context.scene.frame_set(7)
bpy.ops.export_scene.gltf(filepath=os.path.join(out, "walker_current.glb"), export_format="GLB",
                          export_current_frame=True, export_animations=True)
