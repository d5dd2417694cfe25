# make_blender_tips.py - writes tests/data/blender_tips.dae and blender_tips.fbx with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_blender_tips.py -- tests/data/blender_tips.dae [OUT.json]
# A rig whose bones do not point at their children, so that only the file can say where their tails are: a hip
# bone pointing up (its connected child the spine, its other children the legs and a tail), a head bone longer than
# the neck distance and not in the spine's direction, a tail bone pointing sideways, rolled bones; the armature
# object moved, turned 30 degrees and scaled 1.5; a cylinder parented with envelope weights. Blender's Collada
# exporter writes each leaf bone's tip (tail - head in armature space) and each connected bone's connect flag in the
# node's <extra>; its FBX exporter (default options) adds a leaf bone "<bone>_end" at each leaf's tail. The optional
# JSON gets the world heads and tails Blender has (test_bone_segments compares).
import json
import math
import sys

import bpy
from mathutils import Vector

argv = sys.argv[sys.argv.index("--") + 1 :]
out_dae, out_json = argv[0], argv[1] if len(argv) > 1 else None
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_cylinder_add(vertices=8, radius=0.3, depth=2.0, location=(0, 0, 1.0))
body = bpy.context.object
body.name = "Body"
bpy.ops.object.mode_set(mode="EDIT")
bpy.ops.mesh.subdivide(number_cuts=3)
bpy.ops.object.mode_set(mode="OBJECT")
bpy.ops.object.armature_add(location=(0, 0, 0))
arm = bpy.context.object
arm.name = "Rig"
bpy.ops.object.mode_set(mode="EDIT")
eb = arm.data.edit_bones
eb.remove(eb[0])


def bone(name, head, tail, parent=None, roll=0.0, connect=False):
    b = eb.new(name)
    b.head, b.tail, b.roll = Vector(head), Vector(tail), roll
    if parent:
        b.parent = eb[parent]
        b.use_connect = connect
    return b


bone("hips", (0, 0, 0.9), (0, 0.05, 1.25))                      # up and a little forward; children are the legs
bone("spine", (0, 0.05, 1.25), (0, 0, 1.6), "hips", connect=True, roll=0.4)
bone("head", (0, 0, 1.6), (0, -0.1, 2.0), "spine", connect=True)  # a leaf 0.41 long, not the parent's direction
bone("leg.L", (0.15, 0, 0.85), (0.2, 0.02, 0.45), "hips", roll=-0.3)
bone("shin.L", (0.2, 0.02, 0.45), (0.2, -0.05, 0.02), "leg.L", connect=True)
bone("leg.R", (-0.15, 0, 0.85), (-0.2, 0.02, 0.45), "hips", roll=0.3)
bone("shin.R", (-0.2, 0.02, 0.45), (-0.2, -0.05, 0.02), "leg.R", connect=True)
bone("tail", (0, 0.25, 0.95), (0.3, 0.45, 0.95), "hips")        # sideways, away from its parent's direction
bpy.ops.object.mode_set(mode="OBJECT")
arm.location = (0.5, -0.25, 0.1)
arm.rotation_euler = (0.0, 0.0, math.radians(30))
arm.scale = (1.5, 1.5, 1.5)
bpy.context.view_layer.update()
body.select_set(True)
arm.select_set(True)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_ENVELOPE")
bpy.ops.wm.collada_export(filepath=out_dae)
bpy.ops.export_scene.fbx(filepath=out_dae[:-4] + ".fbx")
mw = arm.matrix_world
bones = {b.name: {"head": list(mw @ b.head_local), "tail": list(mw @ b.tail_local)} for b in arm.data.bones}
if out_json:
    json.dump(bones, open(out_json, "w"), indent=1)
print("wrote", out_dae, out_json)
