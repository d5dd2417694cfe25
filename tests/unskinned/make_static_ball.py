# make_static_ball.py - writes tests/unskinned/static_ball.{fbx,dae} with Blender 3.4: a mesh and nothing else (no
# armature, no skin), with a shape key, the file a prop modeller hands over:
#   blender -b --factory-startup --python tests/unskinned/make_static_ball.py -- tests/unskinned/static_ball.fbx
# A UV sphere "Ball" (radius 0.3, 8 segments, 6 rings) with a shape key "Squash" (z halved, value 0.5). The Collada
# copy holds the shape key as a morph controller (which Assimp 5.2.5 refuses on its own: collada_morphs.c).
import bpy, sys
out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_uv_sphere_add(radius=0.3, segments=8, ring_count=6)
ob = bpy.context.object
ob.name = "Ball"
ob.shape_key_add(name="Basis")
key = ob.shape_key_add(name="Squash")
key.value = 0.5
for v in key.data:
    v.co.z *= 0.5
bpy.ops.export_scene.fbx(filepath=out)
bpy.ops.wm.collada_export(filepath=out[:-4] + ".dae", include_shapekeys=True)
