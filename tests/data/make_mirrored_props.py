# make_mirrored_props.py - writes tests/data/mirrored_props.glb and mirrored_props.fbx with Blender 3.4 (session 75):
# a rig whose props are mirrored, one sheared, and whose skinned body's object origin is off the armature's.
# Armature "Rig" at (0.3, -0.2, 0): bones "root" (0,0,0)->(0,0,0.5), "spine" ->(0,0,1.2), "hand.L" (0.2,0,1.1)->
# (0.6,0,1.1) and "hand.R" mirrored, both under spine. Mesh "Body" (an 8-sided cylinder, radius 0.2, z 0..1.4, cut
# once) skinned with automatic weights, its object origin moved to (0.65, 0.23, 0.3) and turned 20 degrees about Z
# (the vertices staying). Wedges (an asymmetric closed prism, so a mirror shows): "PropM" at the top at (2, 1, 0.4),
# turned (0.2, 0.1, 0.5) rad, scale (-0.5, 0.7, 1); "Holster" under the armature object at (-0.5, 0.3, 0.6), scale
# (1, -1, 1); "ShieldL" under bone hand.L, scale (-1, 1, 1); "Sheared" under the empty "Stretch" (scale (1, 2, 1)),
# turned 0.5 rad about X: its world matrix is sheared. A clip "act" turns spine 40 degrees about X and hand.L 60
# degrees about Z over frames 1-21.
#   blender -b --factory-startup --python tests/data/make_mirrored_props.py -- tests/data/mirrored_props [--all]
# (--all also writes .dae and .blend, for the Blender comparisons of docs/formats.md session 75)
import math
import sys

import bpy
from mathutils import Matrix

args = sys.argv[sys.argv.index("--") + 1:]
out = args[0]
bpy.ops.wm.read_factory_settings(use_empty=True)


def wedge(name, size):
    me = bpy.data.meshes.new(name)
    v = [(0, 0, 0), (1, 0, 0), (0, 0.5, 0), (0, 0, 0.3), (1, 0, 0.3), (0, 0.5, 0.3)]
    v = [((x + 0.2) * size, (y + 0.1) * size, z * size) for x, y, z in v]
    me.from_pydata(v, [], [(0, 2, 1), (3, 4, 5), (0, 1, 4, 3), (1, 2, 5, 4), (2, 0, 3, 5)])
    me.update()
    ob = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(ob)
    return ob


bpy.ops.object.armature_add(enter_editmode=True, location=(0.3, -0.2, 0))
arm = bpy.context.active_object
arm.name = "Rig"
eb = arm.data.edit_bones
root = eb[0]
root.name, root.head, root.tail = "root", (0, 0, 0), (0, 0, 0.5)
spine = eb.new("spine")
spine.head, spine.tail, spine.parent, spine.use_connect = (0, 0, 0.5), (0, 0, 1.2), root, True
hl = eb.new("hand.L")
hl.head, hl.tail, hl.parent = (0.2, 0, 1.1), (0.6, 0, 1.1), spine
hr = eb.new("hand.R")
hr.head, hr.tail, hr.parent = (-0.2, 0, 1.1), (-0.6, 0, 1.1), spine
bpy.ops.object.mode_set(mode="OBJECT")

bpy.ops.mesh.primitive_cylinder_add(vertices=8, radius=0.2, depth=1.4, location=(0.3, -0.2, 0.7))
body = bpy.context.active_object
body.name = "Body"
bpy.ops.object.mode_set(mode="EDIT")
bpy.ops.mesh.subdivide(number_cuts=1)
bpy.ops.object.mode_set(mode="OBJECT")
origin = Matrix.Translation((0.65, 0.23, 0.3)) @ Matrix.Rotation(math.radians(20), 4, "Z")
body.data.transform(origin.inverted() @ body.matrix_world)
body.matrix_world = origin
bpy.ops.object.select_all(action="DESELECT")
body.select_set(True)
arm.select_set(True)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")

prop = wedge("PropM", 0.6)
prop.location, prop.rotation_euler, prop.scale = (2, 1, 0.4), (0.2, 0.1, 0.5), (-0.5, 0.7, 1.0)
hol = wedge("Holster", 0.3)
hol.parent = arm
hol.location, hol.rotation_euler, hol.scale = (-0.5, 0.3, 0.6), (0, 0.3, 0), (1, -1, 1)
sh = wedge("ShieldL", 0.25)
sh.parent, sh.parent_type, sh.parent_bone = arm, "BONE", "hand.L"
sh.location, sh.rotation_euler, sh.scale = (0.05, 0, 0.02), (0, 0, 0.4), (-1, 1, 1)
bpy.ops.object.empty_add(location=(-1.5, 0.5, 0.5))
st = bpy.context.active_object
st.name = "Stretch"
st.scale = (1, 2, 1)
shr = wedge("Sheared", 0.4)
shr.parent = st
shr.location, shr.rotation_euler = (0.2, 0, 0), (0.5, 0, 0)

arm.animation_data_create()
arm.animation_data.action = bpy.data.actions.new("act")
for bone, axis, angle in (("spine", 0, 40.0), ("hand.L", 2, 60.0)):
    pb = arm.pose.bones[bone]
    pb.rotation_mode = "XYZ"
    for frame, a in ((1, 0.0), (21, angle)):
        r = [0.0, 0.0, 0.0]
        r[axis] = math.radians(a)
        pb.rotation_euler = r
        pb.keyframe_insert("rotation_euler", frame=frame)
bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, 21
bpy.context.scene.frame_set(1)
bpy.ops.export_scene.fbx(filepath=out + ".fbx")
if "--all" in args:
    bpy.ops.wm.save_as_mainfile(filepath=out + ".blend")
    bpy.ops.wm.collada_export(filepath=out + ".dae", include_animations=True)
import numpy  # noqa: E402  Blender 3.4's glTF exporter uses np.bool, removed in Debian's numpy 1.24

numpy.bool = bool
bpy.ops.export_scene.gltf(filepath=out + ".glb", export_format="GLB")
