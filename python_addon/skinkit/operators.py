"""Operators. Ids are stable (scripts use them): skinkit.validate, skinkit.select_invalid, skinkit.normalize,
skinkit.limit_total, skinkit.clean, skinkit.quantize.

Every operator: bl_options REGISTER + UNDO, a poll, heavy imports (numpy, the ctypes layer) inside execute,
and failures reported with self.report({'ERROR'}, ...) + {'CANCELLED'}; nothing raises into the UI.
A new weight operator is a _WeightOp subclass with its properties and an apply(api, skin, mask, locked)
method returning the library's report dict.
"""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty

from . import preferences

GROUP_SUBSET_ITEMS = (
    ("BONE_DEFORM", "Deform Bones", "Vertex groups named like deforming bones of the mesh's armature "
     "(all groups when the mesh has no armature)"),
    ("ALL", "All Groups", "Every vertex group"),
)

# Validation flags that make a vertex "invalid" for select_invalid (over_limit only counts with a limit).
_INVALID_FLAG_NAMES = ("sum_off", "unweighted", "nan", "negative", "bad_joint", "duplicate", "over_limit")


def _load_api(context):
    """The api module with the library loaded (preference path first). Raises SkinkitError/ImportError."""
    from . import api

    api.set_library_path(preferences.library_path(context))
    api.library()
    return api


def _fail(op, exc):
    msg = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    op.report({"ERROR"}, "Skinkit: %s" % msg)
    return {"CANCELLED"}


def _mesh_targets(context, all_meshes=False):
    if all_meshes:
        return [o for o in context.scene.objects if o.type == "MESH"]
    objs = [o for o in (context.selected_objects or []) if o.type == "MESH"]
    act = context.active_object
    if act is not None and act.type == "MESH" and act not in objs:
        objs.insert(0, act)
    return objs


def _editable_mode(context):
    return context.mode in {"OBJECT", "PAINT_WEIGHT"}


def _vertex_mask(context, obj):
    """Selected-vertex mask when Weight Paint's vertex selection masking is on, else None (all)."""
    from . import bridge

    mesh = obj.data
    if context.mode == "PAINT_WEIGHT" and (mesh.use_paint_mask_vertex or mesh.use_paint_mask):
        return bridge.selected_vertex_mask(mesh)
    return None


def _object_skin(api, obj, subset):
    """(skin, group indices) of obj's vertex groups restricted to the subset; (None, []) without groups."""
    from . import bridge

    groups = bridge.deform_group_indices(obj, subset)
    if not groups:
        return None, []
    offsets, joints, weights = bridge.vertex_groups_to_csr(obj, groups)
    return api.Skin.from_csr(offsets, joints, weights, len(groups)), groups


def _validate_object(api, obj, subset, tolerance, max_influences):
    skin, groups = _object_skin(api, obj, subset)
    if skin is None:
        return None, None, groups
    with skin:
        rep, flags = skin.validate(tolerance=tolerance, max_influences=max_influences)
    return rep, flags, groups


class _ValidateProps:
    tolerance: FloatProperty(name="Tolerance", description="Largest accepted |weight sum - 1|", default=1e-3,
                             min=0.0, max=1.0, precision=5)
    max_influences: IntProperty(name="Max Influences", description="Flag vertices with more influences "
                                "(0 = no limit)", default=0, min=0, max=64)
    group_subset: EnumProperty(name="Groups", items=GROUP_SUBSET_ITEMS, default="BONE_DEFORM")


class SKINKIT_OT_validate(_ValidateProps, bpy.types.Operator):
    """Report weight sums and other weight problems of the selected meshes (or all meshes)"""

    bl_idname = "skinkit.validate"
    bl_label = "Validate Weights"
    bl_options = {"REGISTER", "UNDO"}

    all_meshes: BoolProperty(name="All Meshes", description="Validate every mesh of the scene, not only the "
                             "selected ones", default=False)

    @classmethod
    def poll(cls, context):
        if not _mesh_targets(context, False) and not any(o.type == "MESH" for o in context.scene.objects):
            cls.poll_message_set("No mesh in the scene")
            return False
        return True

    def execute(self, context):
        targets = _mesh_targets(context, self.all_meshes)
        if not targets:
            self.report({"ERROR"}, "Skinkit: no mesh selected (enable All Meshes to validate every mesh)")
            return {"CANCELLED"}
        try:
            api = _load_api(context)
            lines, bad = [], 0
            for obj in targets:
                rep, flags, groups = _validate_object(api, obj, self.group_subset, self.tolerance,
                                                      self.max_influences)
                store = obj.skinkit_report
                store.valid = True
                store.tolerance = self.tolerance
                store.max_influence_limit = self.max_influences
                store.group_subset = self.group_subset
                if rep is None:
                    store.has_groups = False
                    store.vertex_count = len(obj.data.vertices)
                    store.findings = len(obj.data.vertices) > 0
                    store.unweighted = len(obj.data.vertices)
                    for k in ("off_tolerance", "nan", "negative", "bad_joint", "duplicate", "over_limit",
                              "max_influences", "invalid_vertices"):
                        setattr(store, k, 0)
                    store.weight_sum_min = store.weight_sum_max = 0.0
                    lines.append("%s: no vertex groups" % obj.name)
                    bad += store.findings
                    continue
                store.has_groups = True
                for k in ("vertex_count", "off_tolerance", "unweighted", "nan", "negative", "bad_joint",
                          "duplicate", "over_limit", "max_influences"):
                    setattr(store, k, int(rep[k]))
                store.weight_sum_min = rep["weight_sum_min"]
                store.weight_sum_max = rep["weight_sum_max"]
                store.findings = rep["findings"]
                store.invalid_vertices = int((flags != 0).sum())
                bad += rep["findings"]
                if rep["findings"]:
                    lines.append("%s: %d of %d vertices invalid (sum off %d, unweighted %d, NaN %d, negative %d, "
                                 "over limit %d; sums %.4g..%.4g)"
                                 % (obj.name, store.invalid_vertices, rep["vertex_count"], rep["off_tolerance"],
                                    rep["unweighted"], rep["nan"], rep["negative"], rep["over_limit"],
                                    rep["weight_sum_min"], rep["weight_sum_max"]))
                else:
                    lines.append("%s: %d vertices OK" % (obj.name, rep["vertex_count"]))
        except Exception as e:  # reported, never raised into the UI
            return _fail(self, e)
        level = {"WARNING"} if bad else {"INFO"}
        self.report(level, "; ".join(lines))
        return {"FINISHED"}


class SKINKIT_OT_select_invalid(_ValidateProps, bpy.types.Operator):
    """Select the vertices of the active mesh whose weights fail validation"""

    bl_idname = "skinkit.select_invalid"
    bl_label = "Select Invalid Vertices"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        obj = context.active_object
        if obj is None or obj.type != "MESH":
            cls.poll_message_set("Active object is not a mesh")
            return False
        if not _editable_mode(context):
            cls.poll_message_set("Needs Object or Weight Paint mode")
            return False
        return True

    def invoke(self, context, event):
        store = context.active_object.skinkit_report
        if store.valid:  # reuse the settings of the last validation
            self.tolerance = store.tolerance
            self.max_influences = store.max_influence_limit
            self.group_subset = store.group_subset
        return self.execute(context)

    def execute(self, context):
        from . import bridge

        obj = context.active_object
        try:
            api = _load_api(context)
            rep, flags, groups = _validate_object(api, obj, self.group_subset, self.tolerance, self.max_influences)
            import numpy as np

            if flags is None:
                mask = np.ones(len(obj.data.vertices), bool)
            else:
                mask = flags != 0
            bridge.select_vertices(obj.data, mask)
            if context.mode == "PAINT_WEIGHT":
                obj.data.use_paint_mask_vertex = True
        except Exception as e:
            return _fail(self, e)
        self.report({"INFO"}, "%s: %d invalid vertices selected" % (obj.name, int(mask.sum())))
        return {"FINISHED"}


class _WeightOp(bpy.types.Operator):
    """Base of the operators that edit vertex-group weights through the library."""

    bl_options = {"REGISTER", "UNDO"}

    group_subset: EnumProperty(name="Groups", items=GROUP_SUBSET_ITEMS, default="BONE_DEFORM")
    respect_locks: BoolProperty(name="Respect Locks", description="Never change locked vertex groups",
                                default=True)

    @classmethod
    def poll(cls, context):
        if not _editable_mode(context):
            cls.poll_message_set("Needs Object or Weight Paint mode")
            return False
        if not any(o.vertex_groups for o in _mesh_targets(context)):
            cls.poll_message_set("No selected mesh with vertex groups")
            return False
        return True

    def apply(self, api, skin, mask, locked):  # pragma: no cover - overridden
        raise NotImplementedError

    def execute(self, context):
        import numpy as np

        from . import bridge

        try:
            api = _load_api(context)
            changed = failed = 0
            names = []
            for obj in _mesh_targets(context):
                skin, groups = _object_skin(api, obj, self.group_subset)
                if skin is None:
                    continue
                with skin:
                    mask = _vertex_mask(context, obj)
                    locked = None
                    if self.respect_locks:
                        locked = np.array([obj.vertex_groups[g].lock_weight for g in groups], np.uint8)
                    rep = self.apply(api, skin, mask, locked)
                    flags = rep.get("vertex_flags")
                    write = mask
                    if flags is not None:
                        write = (flags & api.WFLAG_CHANGED) != 0
                    if write is None or np.any(write):
                        bridge.csr_to_vertex_groups(obj, *skin.to_csr(), group_indices=groups, mask=write)
                changed += rep.get("vertices_changed", 0)
                failed += rep.get("vertices_failed", 0)
                names.append(obj.name)
        except Exception as e:
            return _fail(self, e)
        if not names:
            self.report({"WARNING"}, "Skinkit: no vertex groups to edit")
            return {"CANCELLED"}
        msg = "%s: %d vertices changed" % (", ".join(names), changed)
        if failed:
            msg += ", %d left unchanged (locked groups or invalid weights)" % failed
            self.report({"WARNING"}, msg)
        else:
            self.report({"INFO"}, msg)
        return {"FINISHED"}


class SKINKIT_OT_normalize(_WeightOp):
    """Scale each vertex's weights to sum 1 (locked groups kept; NaN/negative weights dropped if asked)"""

    bl_idname = "skinkit.normalize"
    bl_label = "Normalize Weights"

    drop_invalid: BoolProperty(name="Drop Invalid", description="Remove NaN/negative weights before normalizing "
                               "(otherwise such vertices are left unchanged)", default=True)
    tolerance: FloatProperty(name="Tolerance", default=1e-4, min=0.0, max=0.1, precision=6)

    def apply(self, api, skin, mask, locked):
        return api.normalize_weights(skin, mask=mask, locked=locked, drop_invalid=self.drop_invalid,
                                     tolerance=self.tolerance)


class SKINKIT_OT_limit_total(_WeightOp):
    """Keep the largest influences of each vertex (then renormalize unless disabled)"""

    bl_idname = "skinkit.limit_total"
    bl_label = "Limit Total Influences"

    limit: IntProperty(name="Limit", default=4, min=1, max=32)
    normalize: BoolProperty(name="Normalize", default=True)

    def apply(self, api, skin, mask, locked):
        return api.limit_weights(skin, self.limit, mask=mask, locked=locked, normalize=self.normalize)


class SKINKIT_OT_clean(_WeightOp):
    """Remove weights below a threshold (and zero weights)"""

    bl_idname = "skinkit.clean"
    bl_label = "Clean Weights"

    threshold: FloatProperty(name="Threshold", default=0.01, min=0.0, max=1.0, precision=4)
    keep_single: BoolProperty(name="Keep Single", description="Keep the largest weight of a vertex that would "
                              "lose all its influences", default=True)
    normalize: BoolProperty(name="Normalize", default=False)

    def apply(self, api, skin, mask, locked):
        return api.prune_weights(skin, self.threshold, mask=mask, locked=locked, keep_one=self.keep_single,
                                 normalize=self.normalize)


class SKINKIT_OT_quantize(_WeightOp):
    """Round weights to 8- or 16-bit steps that sum exactly to 1 per vertex (what game exporters store)"""

    bl_idname = "skinkit.quantize"
    bl_label = "Quantize Weights"

    bits: EnumProperty(name="Bits", items=(("8", "8-bit", "Steps of 1/255"), ("16", "16-bit", "Steps of 1/65535")),
                       default="8")

    def apply(self, api, skin, mask, locked):
        return api.quantize_weights(skin, int(self.bits), mask=mask, locked=locked)


WEIGHT_OPERATORS = (SKINKIT_OT_normalize, SKINKIT_OT_limit_total, SKINKIT_OT_clean, SKINKIT_OT_quantize)

classes = (SKINKIT_OT_validate, SKINKIT_OT_select_invalid) + WEIGHT_OPERATORS
