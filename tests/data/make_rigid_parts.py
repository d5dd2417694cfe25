# make_rigid_parts.py - writes tests/data/rigid_parts.{fbx,glb,dae} with Blender 3.4 (the .dae is not kept: Blender's
# Collada exporter writes a bone-parented object relative to the bone tail, which its own importer misreads too):
#   blender -b --factory-startup --python tests/data/make_rigid_parts.py -- tests/data/rigid_parts.dae
# An armature of 3 bones, a skinned cylinder on the first two (automatic weights), and two rigid parts:
# a cube parented to bone "hand" (parent_type BONE) and a cone parented to the armature object with an offset.
import bpy, sys, os
out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
arm_data = bpy.data.armatures.new("Rig")
arm = bpy.data.objects.new("Rig", arm_data)
bpy.context.scene.collection.objects.link(arm)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode="EDIT")
b0 = arm_data.edit_bones.new("upper"); b0.head = (0, 0, 0); b0.tail = (0, 0, 1)
b1 = arm_data.edit_bones.new("lower"); b1.head = (0, 0, 1); b1.tail = (0, 0, 2); b1.parent = b0; b1.use_connect = True
b2 = arm_data.edit_bones.new("hand"); b2.head = (0, 0, 2); b2.tail = (0.5, 0, 2.5); b2.parent = b1; b2.use_connect = True
bpy.ops.object.mode_set(mode="OBJECT")
bpy.ops.mesh.primitive_cylinder_add(vertices=12, radius=0.2, depth=2, location=(0, 0, 1))
cyl = bpy.context.active_object; cyl.name = "Body"
bpy.ops.object.mode_set(mode="EDIT"); bpy.ops.mesh.subdivide(number_cuts=2); bpy.ops.object.mode_set(mode="OBJECT")
cyl.select_set(True); arm.select_set(True); bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
bpy.ops.object.select_all(action="DESELECT")
bpy.ops.mesh.primitive_cube_add(size=0.3, location=(0.6, 0.1, 2.6), rotation=(0.3, 0.2, 0.1))
cube = bpy.context.active_object; cube.name = "Gauntlet"
mat = bpy.data.materials.new("Steel"); mat.use_nodes = True; cube.data.materials.append(mat)
m = cube.matrix_world.copy()
cube.parent = arm; cube.parent_type = "BONE"; cube.parent_bone = "hand"; cube.matrix_world = m
bpy.ops.mesh.primitive_cone_add(radius1=0.2, depth=0.4, location=(1.5, 0, 0.5))
cone = bpy.context.active_object; cone.name = "Prop"
m = cone.matrix_world.copy(); cone.parent = arm; cone.matrix_world = m
bpy.ops.object.select_all(action="SELECT")
base = os.path.splitext(out)[0]
bpy.ops.wm.collada_export(filepath=base + ".dae")
bpy.ops.export_scene.fbx(filepath=base + ".fbx", add_leaf_bones=False)
import numpy; numpy.bool = bool
bpy.ops.export_scene.gltf(filepath=base + ".glb", export_format="GLB")
# world positions of the rigid parts' first vertex, for the test
for o in (cube, cone):
    v = o.matrix_world @ o.data.vertices[0].co
    print("WORLD", o.name, "%.6f %.6f %.6f" % tuple(v))
