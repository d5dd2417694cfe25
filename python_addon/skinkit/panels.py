"""UI: the "Skinkit" tab of the 3D View sidebar (N panel), the stored validation report, the Weight Paint
▸ Weights menu entries, the Object ▸ Parent entry and the Ctrl+P menu (appended in register, removed in
unregister; the File ▸ Import/Export entries are io_scene.MENUS)."""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty

from .operators import GROUP_SUBSET_ITEMS


class SkinkitReport(bpy.types.PropertyGroup):
    """Last skinkit.validate result of an object (Object.skinkit_report)."""

    valid: BoolProperty(default=False, description="A validation has been run")
    has_groups: BoolProperty(default=False)
    findings: BoolProperty(default=False)
    vertex_count: IntProperty()
    invalid_vertices: IntProperty()
    off_tolerance: IntProperty()
    unweighted: IntProperty()
    nan: IntProperty()
    negative: IntProperty()
    bad_joint: IntProperty()
    duplicate: IntProperty()
    over_limit: IntProperty()
    max_influences: IntProperty()
    weight_sum_min: FloatProperty()
    weight_sum_max: FloatProperty()
    tolerance: FloatProperty(default=1e-3)
    max_influence_limit: IntProperty()
    group_subset: StringProperty(default="BONE_DEFORM")


class SkinkitSettings(bpy.types.PropertyGroup):
    """Scene-wide defaults the panel passes to the operators (Scene.skinkit)."""

    tolerance: FloatProperty(name="Tolerance", default=1e-3, min=0.0, max=1.0, precision=5)
    max_influences: IntProperty(name="Max Influences", default=4, min=0, max=64,
                                description="Limit for validation and Limit Total (0 = no limit when validating)")
    group_subset: EnumProperty(name="Groups", items=GROUP_SUBSET_ITEMS, default="BONE_DEFORM")
    clean_threshold: FloatProperty(name="Clean Below", default=0.01, min=0.0, max=1.0, precision=4)
    quantize_bits: EnumProperty(name="Bits", items=(("8", "8-bit", ""), ("16", "16-bit", "")), default="8")
    smooth_iterations: IntProperty(name="Iterations", default=1, min=1, max=200)
    smooth_factor: FloatProperty(name="Factor", default=0.5, min=0.0, max=1.0)
    smooth_method: EnumProperty(name="Method", items=(("uniform", "Uniform", ""), ("cotangent", "Cotangent", "")),
                                default="uniform")
    mirror_axis: EnumProperty(name="Axis", items=(("X", "X", ""), ("Y", "Y", ""), ("Z", "Z", "")), default="X")
    mirror_mode: EnumProperty(name="Mode", items=(("+to-", "+ to -", ""), ("-to+", "- to +", ""),
                                                  ("flip", "Flip", "")), default="+to-")


class VIEW3D_PT_skinkit(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Skinkit"
    bl_label = "Skinkit"

    def draw(self, context):
        layout = self.layout
        settings = context.scene.skinkit
        col = layout.column(align=True)
        col.prop(settings, "group_subset")
        col.prop(settings, "tolerance")
        col.prop(settings, "max_influences")
        row = layout.row(align=True)
        op = row.operator("skinkit.validate", icon="CHECKMARK")
        op.tolerance, op.max_influences, op.group_subset = (settings.tolerance, settings.max_influences,
                                                            settings.group_subset)
        op = row.operator("skinkit.validate", text="All", icon="SCENE_DATA")
        op.tolerance, op.max_influences, op.group_subset = (settings.tolerance, settings.max_influences,
                                                            settings.group_subset)
        op.all_meshes = True

        obj = context.active_object
        if obj is not None and obj.type == "MESH":
            rep = obj.skinkit_report
            box = layout.box()
            if not rep.valid:
                box.label(text="%s: not validated" % obj.name)
            elif not rep.has_groups:
                box.label(text="%s: no vertex groups" % obj.name, icon="ERROR")
            else:
                box.label(text="%s: %s" % (obj.name, "problems found" if rep.findings else "OK"),
                          icon="ERROR" if rep.findings else "CHECKMARK")
                grid = box.grid_flow(columns=2, align=True)
                for label, value in (("Vertices", rep.vertex_count), ("Invalid", rep.invalid_vertices),
                                     ("Sum off", rep.off_tolerance), ("Unweighted", rep.unweighted),
                                     ("NaN/Inf", rep.nan), ("Negative", rep.negative),
                                     ("Over limit", rep.over_limit), ("Max infl.", rep.max_influences)):
                    grid.label(text="%s: %d" % (label, value))
                box.label(text="Sums: %.4g .. %.4g" % (rep.weight_sum_min, rep.weight_sum_max))
                if rep.invalid_vertices or not rep.has_groups:
                    box.operator("skinkit.select_invalid", icon="RESTRICT_SELECT_OFF")

        col = layout.column(align=True)
        col.label(text="Fix Weights")
        # the Blender-like tools keep Blender's Subset default (Adjust Last Operation changes it)
        col.operator("skinkit.normalize")
        op = col.operator("skinkit.limit_total")
        op.limit = max(1, settings.max_influences)
        row = col.row(align=True)
        op = row.operator("skinkit.clean")
        op.threshold = settings.clean_threshold
        row.prop(settings, "clean_threshold", text="")
        row = col.row(align=True)
        op = row.operator("skinkit.quantize")
        op.bits = settings.quantize_bits
        row.prop(settings, "quantize_bits", text="")

        col = layout.column(align=True)
        col.label(text="Edit Weights")
        row = col.row(align=True)
        op = row.operator("skinkit.smooth")
        op.iterations, op.factor, op.method = settings.smooth_iterations, settings.smooth_factor, \
            settings.smooth_method
        row.prop(settings, "smooth_iterations", text="")
        row = col.row(align=True)
        row.prop(settings, "smooth_factor")
        row.prop(settings, "smooth_method", text="")
        col.operator("skinkit.remove_rogue").group_select_mode = settings.group_subset
        col.operator("skinkit.transfer").group_select_mode = settings.group_subset
        row = col.row(align=True)
        op = row.operator("skinkit.mirror")
        op.axis, op.mode, op.group_select_mode = settings.mirror_axis, settings.mirror_mode, settings.group_subset
        row.prop(settings, "mirror_axis", text="")
        row.prop(settings, "mirror_mode", text="")

        col = layout.column(align=True)
        col.label(text="Bind")
        col.operator("skinkit.auto_bind", icon="ARMATURE_DATA")
        col.operator("skinkit.bake_deformation", icon="MOD_MESHDEFORM")


def menu_weights(self, context):
    """Entries of Weight Paint ▸ Weights."""
    layout = self.layout
    layout.separator()
    layout.operator("skinkit.validate", text="Skinkit: Validate Weights")
    layout.operator("skinkit.select_invalid", text="Skinkit: Select Invalid Vertices")
    layout.operator("skinkit.normalize", text="Skinkit: Normalize")
    layout.operator("skinkit.limit_total", text="Skinkit: Limit Total")
    layout.operator("skinkit.clean", text="Skinkit: Clean")
    layout.operator("skinkit.quantize", text="Skinkit: Quantize")
    layout.operator("skinkit.smooth", text="Skinkit: Smooth")
    layout.operator("skinkit.remove_rogue", text="Skinkit: Remove Rogue Weights")
    layout.operator("skinkit.mirror", text="Skinkit: Mirror")
    layout.operator("skinkit.transfer", text="Skinkit: Transfer Weights (from selected)")
    layout.operator("skinkit.auto_bind", text="Skinkit: Auto Bind (selection)")
    layout.operator("skinkit.auto_bind", text="Skinkit: Assign Automatic From Bones").only_selected_bones = True


def menu_parent(self, context):
    """Entry of Object ▸ Parent."""
    layout = self.layout
    layout.separator()
    layout.operator("skinkit.auto_bind", text="Auto Bind (skinkit)")


def _parent_children(context):
    """Object types among the selected objects other than the active one (the would-be children)."""
    act = context.active_object
    return {o.type for o in (context.selected_editable_objects or []) if o != act}


def _parent_type_name(ident):
    return bpy.ops.object.parent_set.get_rna_type().properties["type"].enum_items[ident].name


def draw_parent_set(layout, context):
    """Blender's own "Set Parent To" popup for an armature parent (object.parent_set's menu, built in C by
    parent_set_invoke_menu in Blender 3.4 .. 4.x, mirrored entry for entry) with Auto Bind (skinkit) after
    "With Automatic Weights"."""
    kinds = _parent_children(context)
    gpencil = bool(kinds & {"GPENCIL", "GREASEPENCIL"})
    layout.operator_context = "EXEC_DEFAULT"
    op = layout.operator("object.parent_set", text="Object")
    op.type, op.keep_transform = "OBJECT", False
    op = layout.operator("object.parent_set", text="Object (Keep Transform)")
    op.type, op.keep_transform = "OBJECT", True
    layout.operator_context = "INVOKE_DEFAULT"
    noinv = bpy.ops.object.parent_no_inverse_set.get_rna_type().properties
    op = layout.operator("object.parent_no_inverse_set", text="Object (Without Inverse)")
    if "keep_transform" in noinv:  # Blender 3.5+
        op.keep_transform = False
        op = layout.operator("object.parent_no_inverse_set", text="Object (Keep Transform Without Inverse)")
        op.keep_transform = True
    types = ["ARMATURE", "ARMATURE_NAME"]
    if not gpencil:
        types.append("ARMATURE_ENVELOPE")
    if "MESH" in kinds or gpencil:
        types.append("ARMATURE_AUTO")
    types += ["BONE", "BONE_RELATIVE"]
    for t in types:
        layout.operator("object.parent_set", text=_parent_type_name(t)).type = t
        if t == "ARMATURE_AUTO" and "MESH" in kinds:
            layout.operator("skinkit.auto_bind", text="   With Automatic Weights (skinkit)")


class SKINKIT_MT_parent_set(bpy.types.Menu):
    """Ctrl+P in Object Mode with an active armature and selected meshes: Blender's "Set Parent To" entries for
    that selection plus Auto Bind (skinkit). Opened by SKINKIT_OT_parent_set_menu; in any other selection Ctrl+P
    stays Blender's own popup."""

    bl_idname = "SKINKIT_MT_parent_set"
    bl_label = "Set Parent To"

    def draw(self, context):
        draw_parent_set(self.layout, context)


class SKINKIT_OT_parent_set_menu(bpy.types.Operator):
    """Set the object's parenting (Blender's Set Parent To menu, plus skinkit's Auto Bind for meshes)"""

    bl_idname = "skinkit.parent_set_menu"
    bl_label = "Set Parent To"

    @classmethod
    def poll(cls, context):
        # False lets Ctrl+P through to Blender's own object.parent_set popup (the next keymap item)
        act = context.active_object
        return (context.mode == "OBJECT" and act is not None and act.type == "ARMATURE"
                and "MESH" in _parent_children(context))

    def invoke(self, context, event):
        context.window_manager.popup_menu(lambda menu, ctx: draw_parent_set(menu.layout, ctx),
                                          title=SKINKIT_MT_parent_set.bl_label)
        return {"FINISHED"}

    def execute(self, context):
        return {"PASS_THROUGH"}


_keymap_items = []


def register_keymap():
    """Ctrl+P in Object Mode runs SKINKIT_OT_parent_set_menu before Blender's own Ctrl+P (addon keymap items come
    first); it polls true only for an active armature with selected meshes, so every other Ctrl+P is Blender's
    untouched. No-op without a window manager key configuration (background mode)."""
    wm = bpy.context.window_manager
    kc = wm.keyconfigs.addon if wm else None
    if kc is None:
        return
    km = kc.keymaps.new(name="Object Mode", space_type="EMPTY")
    kmi = km.keymap_items.new(SKINKIT_OT_parent_set_menu.bl_idname, "P", "PRESS", ctrl=True)
    _keymap_items.append((km, kmi))


def unregister_keymap():
    for km, kmi in _keymap_items:
        km.keymap_items.remove(kmi)
    _keymap_items.clear()


# (menu type name, draw function): appended in register(), removed in unregister().
MENUS = (("VIEW3D_MT_paint_weight", menu_weights), ("VIEW3D_MT_object_parent", menu_parent))

classes = (SkinkitReport, SkinkitSettings, VIEW3D_PT_skinkit, SKINKIT_MT_parent_set, SKINKIT_OT_parent_set_menu)

# (bpy type, attribute, property group): pointer properties added after the classes are registered.
POINTERS = (("Object", "skinkit_report", SkinkitReport), ("Scene", "skinkit", SkinkitSettings))
