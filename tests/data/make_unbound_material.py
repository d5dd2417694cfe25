# make_unbound_material.py - unbound_material.dae: what Blender 3.4's Collada exporter writes for meshes without a
# material beside one with: "Painted" (material Red), "Plain" (none: its <triangles> names no material and its
# <instance_geometry> binds none) and "Skin", skinned to a one-bone armature, without material (an
# <instance_controller> without <bind_material>). Assimp 5.2 gives both the document's first material (Red); Blender
# shows none. Run: blender -b --factory-startup --python tests/data/make_unbound_material.py
import os

import bpy

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_cube_add(location=(0, 0, 0))
painted = bpy.context.active_object
painted.name = "Painted"
painted.data.materials.append(bpy.data.materials.new("Red"))
bpy.ops.mesh.primitive_cube_add(location=(3, 0, 0))
bpy.context.active_object.name = "Plain"
bpy.ops.mesh.primitive_cube_add(location=(0, 3, 0))
skin = bpy.context.active_object
skin.name = "Skin"
arm = bpy.data.objects.new("Rig", bpy.data.armatures.new("Rig"))
bpy.context.scene.collection.objects.link(arm)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode="EDIT")
bone = arm.data.edit_bones.new("Bone")
bone.head, bone.tail = (0, 3, -1), (0, 3, 1)
bpy.ops.object.mode_set(mode="OBJECT")
skin.vertex_groups.new(name="Bone").add(list(range(len(skin.data.vertices))), 1.0, "REPLACE")
skin.modifiers.new("Armature", "ARMATURE").object = arm
skin.parent = arm
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "unbound_material.dae")
bpy.ops.wm.collada_export(filepath=out)
