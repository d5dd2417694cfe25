# make_shape_key_anim.py - writes tests/data/shape_key_anim.fbx or .glb with Blender 3.4 (the extension decides):
#   blender -b --factory-startup --python tests/data/make_shape_key_anim.py -- tests/data/shape_key_anim.fbx
#   blender -b --factory-startup --python-expr "import numpy; numpy.bool = bool" \
#       --python tests/data/make_shape_key_anim.py -- tests/data/shape_key_anim.glb
# The two-bone leg (blender_leg.py) with two materials (faces above and below the knee) and two animated shape keys:
# "Bulge" (the calf pushed out) keyed 0 at frame 1, 1 at frame 11 and 0.25 at frame 21, and "Thin" (the whole leg
# narrowed) keyed 0.5 at frame 5 and 0 at frame 15; the thigh bone turns between frames 1 and 21. Blender's FBX export
# writes the keys as DeformPercent curves of the shape channels in the armature's clip; its glTF export as a "weights"
# channel of the mesh node in a clip of its own ("KeyAction"), baked at every frame. The readers must give the shape
# keys back (tests/unit/test_morph_keys.c) and every writer that has blend shapes must keep them.
import bpy, sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_leg import leg_rig  # noqa: E402
out = sys.argv[sys.argv.index("--") + 1]
arm, leg = leg_rig()
bpy.ops.object.mode_set(mode="EDIT"); bpy.ops.mesh.select_all(action="SELECT")
bpy.ops.mesh.subdivide(number_cuts=3); bpy.ops.object.mode_set(mode="OBJECT")
for name in ("Trousers", "Boot"):
    leg.data.materials.append(bpy.data.materials.new(name))
for p in leg.data.polygons:
    p.material_index = 0 if p.center.z > 0 else 1
leg.shape_key_add(name="Basis")
bulge = leg.shape_key_add(name="Bulge")
for v in bulge.data:
    if 0.2 < v.co.z + 1.0 < 0.9:  # the calf (object space z -1..1, world 0..2)
        v.co.x *= 1.3; v.co.y *= 1.3
thin = leg.shape_key_add(name="Thin")
for v in thin.data:
    v.co.x *= 0.8
for key, frames in ((bulge, ((1, 0.0), (11, 1.0), (21, 0.25))), (thin, ((5, 0.5), (15, 0.0)))):
    for f, value in frames:
        key.value = value
        key.keyframe_insert("value", frame=f)
leg.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
thigh = arm.pose.bones["thigh"]
thigh.rotation_mode = "XYZ"
thigh.keyframe_insert("rotation_euler", frame=1)
thigh.rotation_euler[0] = 0.5
thigh.keyframe_insert("rotation_euler", frame=21)
bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 21
bpy.ops.object.select_all(action="SELECT")
if out.endswith(".fbx"):
    bpy.ops.export_scene.fbx(filepath=out, add_leaf_bones=False)
else:
    bpy.ops.export_scene.gltf(filepath=out)
