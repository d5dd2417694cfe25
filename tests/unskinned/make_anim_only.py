# make_anim_only.py - writes tests/unskinned/anim_only.{fbx,dae,glb} with Blender 3.4: an armature and its clip,
# no mesh at all (an animation library file, Mixamo's "without skin" download):
#   blender -b --factory-startup --python tests/unskinned/make_anim_only.py -- tests/unskinned/anim_only.fbx
# An armature object "Armature" with bones Hips (z 1 .. 1.3) and Spine (z 1.3 .. 1.7, connected), the action "Bend":
# Spine turned about X by 0, 0.6, 0 rad at frames 1, 12, 24.
import bpy, sys, os
out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
arm_data = bpy.data.armatures.new("Armature")
arm = bpy.data.objects.new("Armature", arm_data)
bpy.context.scene.collection.objects.link(arm)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode="EDIT")
b0 = arm_data.edit_bones.new("Hips"); b0.head = (0, 0, 1); b0.tail = (0, 0, 1.3)
b1 = arm_data.edit_bones.new("Spine"); b1.head = (0, 0, 1.3); b1.tail = (0, 0, 1.7); b1.parent = b0; b1.use_connect = True
bpy.ops.object.mode_set(mode="POSE")
pb = arm.pose.bones["Spine"]
pb.rotation_mode = "XYZ"
for f, a in ((1, 0.0), (12, 0.6), (24, 0.0)):
    pb.rotation_euler = (a, 0, 0); pb.keyframe_insert("rotation_euler", frame=f)
bpy.ops.object.mode_set(mode="OBJECT")
arm.animation_data.action.name = "Bend"
bpy.context.scene.frame_end = 24
base = os.path.splitext(out)[0]
bpy.ops.export_scene.fbx(filepath=base + ".fbx", add_leaf_bones=False)
bpy.ops.wm.collada_export(filepath=base + ".dae")
import numpy; numpy.bool = bool
bpy.ops.export_scene.gltf(filepath=base + ".glb", export_format="GLB")
