# make_spin_rig.py - writes tests/data/spin_rig.fbx with Blender 3.4: a machine animated without skins, an empty
# "Spinner" at (2, 0, 0) turning 90 degrees about Z over frames 1-25 (24 fps) with a cube "Blade" parented to it.
#   blender -b --factory-startup --python tests/data/make_spin_rig.py -- tests/data/spin_rig.fbx
import bpy, sys
out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
spinner = bpy.data.objects.new("Spinner", None)
bpy.context.scene.collection.objects.link(spinner)
spinner.location = (2, 0, 0)
bpy.ops.mesh.primitive_cube_add(size=0.5, location=(2, 1, 0))
blade = bpy.context.active_object
blade.name = "Blade"
m = blade.matrix_world.copy()
blade.parent = spinner
blade.matrix_world = m
spinner.rotation_euler = (0, 0, 0)
spinner.keyframe_insert("rotation_euler", frame=1)
spinner.rotation_euler = (0, 0, 1.5707963)
spinner.keyframe_insert("rotation_euler", frame=25)
bpy.ops.export_scene.fbx(filepath=out, bake_anim=True)
