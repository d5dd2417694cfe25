# blender_leg.py - the two-bone leg the Blender fixture scripts start from (make_two_material_leg.py,
# make_vertex_colors.py): an empty scene, an armature "Rig" with "thigh" (z 2 -> 1) and a connected "shin"
# (z 1 -> 0), and a 12-sided cylinder "Leg" (radius 0.2, length 2) around them. Imported by those scripts (run
# with Blender 3.4), not run on its own.
import bpy


def leg_rig():
    """Returns (armature object, cylinder object); the cylinder is active, in object mode."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    arm_data = bpy.data.armatures.new("Rig")
    arm = bpy.data.objects.new("Rig", arm_data)
    bpy.context.scene.collection.objects.link(arm)
    bpy.context.view_layer.objects.active = arm
    bpy.ops.object.mode_set(mode="EDIT")
    b0 = arm_data.edit_bones.new("thigh"); b0.head = (0, 0, 2); b0.tail = (0, 0, 1)
    b1 = arm_data.edit_bones.new("shin"); b1.head = (0, 0, 1); b1.tail = (0, 0, 0)
    b1.parent = b0; b1.use_connect = True
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.mesh.primitive_cylinder_add(vertices=12, radius=0.2, depth=2, location=(0, 0, 1))
    leg = bpy.context.active_object
    leg.name = "Leg"
    return arm, leg
