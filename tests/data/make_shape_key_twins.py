# make_shape_key_twins.py - writes tests/data/shape_key_twins.fbx with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_shape_key_twins.py -- tests/data/shape_key_twins.fbx
# The two-bone leg (blender_leg.py, automatic weights) with a shape key "Key 1" at 0.3 and a cube "Box" beside it with
# a shape key of the same name at 0.7: Blender names every object's first shape key "Key 1", so a character's body and
# clothes hold keys of one name at different values. Each must read back at its own value (scene_import.c
# fbx_shape_values matches the key's object too; by name alone the two disagreeing values left both at 0).
import bpy, sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_leg import leg_rig  # noqa: E402
out = sys.argv[sys.argv.index("--") + 1]
arm, leg = leg_rig()
bpy.ops.mesh.primitive_cube_add(size=0.4, location=(0.8, 0, 1))
box = bpy.context.active_object
box.name = "Box"
for obj, value in ((leg, 0.3), (box, 0.7)):
    obj.shape_key_add(name="Basis")
    key = obj.shape_key_add(name="Key 1")
    for v in key.data:
        v.co.x *= 1.2
    key.value = value
leg.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
bpy.ops.object.select_all(action="SELECT")
bpy.ops.export_scene.fbx(filepath=out, add_leaf_bones=False)
