# make_two_material_leg.py - writes tests/data/two_material_leg.{fbx,glb,dae} with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_two_material_leg.py -- tests/data/two_material_leg.fbx
# A cylinder (12 segments, subdivided with 3 cuts) skinned to two bones with Blender's automatic weights, its faces
# below z = 0.9 given a second material: Blender's FBX exporter and Assimp make that two meshes, its glTF exporter
# two primitives with their own vertices, and both repeat the vertices of the ring between the materials. skinkit
# binds and smooths the two as one surface (plugin/cli_surface.c): tests/unit/test_cli_bind.c. Its Collada exporter
# writes one <polylist> of quads (and the caps' n-gons) per material over one position list (test_dae_edit.c).
import bpy, sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bmesh  # noqa: F401
from blender_leg import leg_rig  # noqa: E402
out = sys.argv[sys.argv.index("--") + 1]
arm, cyl = leg_rig()
bpy.ops.object.mode_set(mode="EDIT"); bpy.ops.mesh.select_all(action="SELECT")
bpy.ops.mesh.subdivide(number_cuts=3); bpy.ops.object.mode_set(mode="OBJECT")
for n in ("Trousers", "Boot"):
    m = bpy.data.materials.new(n); m.use_nodes = True; cyl.data.materials.append(m)
# faces below z = 0.9 (world) get the boot material: the seam sits just below the knee
for p in cyl.data.polygons:
    p.material_index = 1 if (cyl.matrix_world @ p.center).z < 0.9 else 0
cyl.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
bpy.ops.object.select_all(action="SELECT")
base = os.path.splitext(out)[0]
bpy.ops.export_scene.fbx(filepath=base + ".fbx", add_leaf_bones=False)
import numpy; numpy.bool = bool
bpy.ops.export_scene.gltf(filepath=base + ".glb", export_format="GLB")
bpy.ops.wm.collada_export(filepath=base + ".dae")
