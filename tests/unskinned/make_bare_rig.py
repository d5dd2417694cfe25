# make_bare_rig.py - writes tests/unskinned/bare_rig.{fbx,dae,glb} with Blender 3.4: an armature and the mesh it is
# meant to deform, with no weights at all (what a modeller hands over for binding):
#   blender -b --factory-startup --python tests/unskinned/make_bare_rig.py -- tests/unskinned/bare_rig.fbx
# An armature object "Rig" (turned and scaled, so that world and armature space differ) with a chain of three bones
# along its +Z (upper 0..1, lower 1..2, hand 2..2.5), a cylinder "Body" (radius 0.2, z 0..2.5, 12 sides, 11 rings)
# parented to it with an empty Armature modifier (parent_set type ARMATURE: no vertex groups), and a cube "Crate"
# beside them that belongs to neither. Prints each bone's world head and tail for the test.
import bpy, sys, os
out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
arm_data = bpy.data.armatures.new("Rig")
arm = bpy.data.objects.new("Rig", arm_data)
bpy.context.scene.collection.objects.link(arm)
arm.location = (1.0, 2.0, 0.0)
arm.rotation_euler = (0.4, 0.0, 0.5)
arm.scale = (1.5, 1.5, 1.5)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode="EDIT")
b0 = arm_data.edit_bones.new("upper"); b0.head = (0, 0, 0); b0.tail = (0, 0, 1)
b1 = arm_data.edit_bones.new("lower"); b1.head = (0, 0, 1); b1.tail = (0, 0, 2); b1.parent = b0; b1.use_connect = True
b2 = arm_data.edit_bones.new("hand"); b2.head = (0, 0, 2); b2.tail = (0, 0, 2.5); b2.parent = b1; b2.use_connect = True
bpy.ops.object.mode_set(mode="OBJECT")
import math
verts, faces, S, R = [], [], 12, 11
for r in range(R):
    for k in range(S):
        a = 2 * math.pi * k / S
        verts.append((0.2 * math.cos(a), 0.2 * math.sin(a), 2.5 * r / (R - 1)))
for r in range(R - 1):
    for k in range(S):
        i, j = r * S + k, r * S + (k + 1) % S
        faces.append((i, j, j + S, i + S))
faces.append(tuple(range(S - 1, -1, -1)))
faces.append(tuple((R - 1) * S + k for k in range(S)))
me = bpy.data.meshes.new("Body"); me.from_pydata(verts, [], faces); me.update()
cyl = bpy.data.objects.new("Body", me); bpy.context.scene.collection.objects.link(cyl)
cyl.matrix_world = arm.matrix_world.copy()
cyl.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE")
assert len(cyl.vertex_groups) == 0
bpy.ops.object.select_all(action="DESELECT")
bpy.ops.mesh.primitive_cube_add(size=0.5, location=(-2.0, 0.0, 0.25))
bpy.context.active_object.name = "Crate"
bpy.ops.object.select_all(action="SELECT")
base = os.path.splitext(out)[0]
bpy.ops.export_scene.fbx(filepath=base + ".fbx", add_leaf_bones=False)
bpy.ops.wm.collada_export(filepath=base + ".dae")
import numpy; numpy.bool = bool
bpy.ops.export_scene.gltf(filepath=base + ".glb", export_format="GLB")
for b in arm.data.bones:
    h = arm.matrix_world @ b.head_local; t = arm.matrix_world @ b.tail_local
    print("BONE", b.name, "%.5f %.5f %.5f" % tuple(h), "%.5f %.5f %.5f" % tuple(t))
