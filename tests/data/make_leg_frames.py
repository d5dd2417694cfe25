# make_leg_frames.py - writes tests/data/leg_zup_m.fbx and tests/data/leg_xup_cm.fbx with Blender 3.4:
#   blender -b --factory-startup --python tests/data/make_leg_frames.py -- tests/data
# two_material_leg.fbx (a 2 m leg along +Z in Blender) read by Blender's FBX importer and written again in other FBX
# frames: Z up with the unit in the file (GlobalSettings UpAxis 2, UnitScaleFactor 100: metres, objects unscaled), and
# X up in centimetres (UpAxis 0, UnitScaleFactor 1, the x100 and the axis turn on the top-level objects). Every
# reader that honours GlobalSettings (Blender's, skinkit's writers of glTF and Collada) puts the three files' leg in
# the same place; test_frames checks that skinkit's .glb of each is that place.
import bpy, sys, os
out = sys.argv[sys.argv.index("--") + 1]
here = os.path.dirname(os.path.abspath(__file__))
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
bpy.ops.import_scene.fbx(filepath=os.path.join(here, "two_material_leg.fbx"))
bpy.ops.object.select_all(action="SELECT")
bpy.ops.export_scene.fbx(filepath=os.path.join(out, "leg_zup_m.fbx"), add_leaf_bones=False, axis_up="Z",
                         axis_forward="Y", apply_scale_options="FBX_SCALE_UNITS")
bpy.ops.export_scene.fbx(filepath=os.path.join(out, "leg_xup_cm.fbx"), add_leaf_bones=False, axis_up="X",
                         axis_forward="-Z", apply_scale_options="FBX_SCALE_NONE")
