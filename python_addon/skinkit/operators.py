"""Operators. Ids are stable (scripts use them): skinkit.validate, skinkit.select_invalid, skinkit.normalize,
skinkit.limit_total, skinkit.clean, skinkit.quantize, skinkit.smooth, skinkit.remove_rogue, skinkit.mirror,
skinkit.transfer, skinkit.auto_bind (the file operators are in io_scene.py).

Every operator: bl_options REGISTER + UNDO, a poll, heavy imports (numpy, the ctypes layer) inside execute,
and failures reported with self.report({'ERROR'}, ...) + {'CANCELLED'}; nothing raises into the UI.
A new weight operator is a _WeightOp subclass with its properties (group_select_mode with Blender's default for
that tool) and an apply(api, skin, mask, locked, obj, groups) method returning the library's report dict (obj: the
mesh object, groups: the vertex-group index of each joint of skin; a "csr" entry replaces the skin's weights);
read_groups and lock_flags change which groups the library sees and keeps.
"""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty

from . import preferences

GROUP_SUBSET_ITEMS = (
    ("BONE_DEFORM", "Deform Bones", "Vertex groups named like deforming bones of the mesh's armature "
     "(all groups when the mesh has no armature)"),
    ("ALL", "All Groups", "Every vertex group"),
)

# The vertex-group subsets of Blender's own weight tools (object.vertex_group_* "group_select_mode"): same
# identifiers, labels and descriptions as Blender 3.4. Normalize All and Limit Total offer no Active Group (their
# default is All Groups); Clean, Quantize, Smooth... default to Active Group, as Blender's do.
_SELECT_ACTIVE = ("ACTIVE", "Active Group", "The active Vertex Group")
_SELECT_DEFORM = ("BONE_DEFORM", "Deform Pose Bones", "All Vertex Groups assigned to Deform Bones (every group "
                  "when the mesh has no armature)")
_SELECT_BONES = ("BONE_SELECT", "Selected Pose Bones", "All Vertex Groups assigned to Selection")
_SELECT_ALL = ("ALL", "All Groups", "All Vertex Groups")
# Blender lists Selected Pose Bones (and Deform Pose Bones) only while the mesh's armature is in Pose Mode (a
# dynamic enum); ours are static, in Blender's order, and Selected Pose Bones reads the bones' selection anyway.
GROUP_SELECT_ITEMS = (_SELECT_ACTIVE, _SELECT_BONES, _SELECT_DEFORM, _SELECT_ALL)
GROUP_SELECT_ITEMS_NO_ACTIVE = (_SELECT_BONES, _SELECT_DEFORM, _SELECT_ALL)


def _group_select_mode(default, with_active=True):
    return EnumProperty(name="Subset", description="Define which subset of groups shall be used",
                        items=GROUP_SELECT_ITEMS if with_active else GROUP_SELECT_ITEMS_NO_ACTIVE, default=default)

# Validation flags that make a vertex "invalid" for select_invalid (over_limit only counts with a limit).
_INVALID_FLAG_NAMES = ("sum_off", "unweighted", "nan", "negative", "bad_joint", "duplicate", "over_limit")


_PREFERENCE_READ = []  # [True] once _load_api has given api the preference's path


def _load_api(context):
    """The api module with the library loaded (preference path first). Raises SkinkitError/ImportError.
    The preference is read on the first call only: later edits reach api through its update callback (reading it
    cost ~45 us of a weight tool's ~1.5 ms in Blender, where the tools run cold: docs/addon.md, session 75)."""
    from . import api

    if not _PREFERENCE_READ:
        api.set_library_path(preferences.library_path(context))
        _PREFERENCE_READ.append(True)
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


# Modes the weight tools run in: Edit Mode acts on the selected vertices (like Blender's vertex-group tools).
_WEIGHT_MODES = {"OBJECT", "PAINT_WEIGHT", "EDIT_MESH"}


def _vertex_mask(context, obj, mode=None):
    """The vertices a tool may change, or None (all): Edit Mode's selected vertices; in Weight Paint the selected
    vertices with vertex selection masking on, the vertices of the selected faces with face selection masking.
    mode: the mode the tool was started in (default context.mode). For Edit Mode, call it after leaving for Object
    Mode (the mesh then holds the edit selection)."""
    from . import bridge

    mesh = obj.data
    mode = mode or context.mode
    if mode == "EDIT_MESH":
        return bridge.selected_vertex_mask(mesh)
    if mode == "PAINT_WEIGHT":
        if mesh.use_paint_mask_vertex:
            return bridge.selected_vertex_mask(mesh)
        if mesh.use_paint_mask:
            return bridge.selected_face_vertex_mask(mesh)
    return None


def _subset_group_indices(obj, mode):
    """Vertex-group indices of a group_select_mode / group_subset: ACTIVE (the active group), BONE_SELECT (groups
    of the selected bones of the mesh's armature), BONE_DEFORM, ALL."""
    from . import bridge

    if mode == "ACTIVE":
        if obj.vertex_groups.active_index < 0 or not obj.vertex_groups:
            raise ValueError("%s has no active vertex group (Subset: Active Group)" % obj.name)
        return [obj.vertex_groups.active_index]
    if mode == "BONE_SELECT" and bridge.mesh_armature(obj) is None:
        raise ValueError("%s has no armature (Subset: Selected Pose Bones)" % obj.name)
    return bridge.deform_group_indices(obj, mode)


def _object_skin(api, obj, subset, groups=None, with_csr=False):
    """(skin, group indices) of obj's vertex groups restricted to the subset (or the given group indices);
    (None, []) without groups. with_csr: (skin, group indices, the CSR the skin holds)."""
    from . import bridge

    if groups is None:
        groups = _subset_group_indices(obj, subset)
    if not groups:
        return (None, [], None) if with_csr else (None, [])
    csr = bridge.vertex_groups_to_csr(obj, groups)
    skin = api.Skin.from_csr(*csr, len(groups))
    return (skin, groups, csr) if with_csr else (skin, groups)


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


def _remove_groups(obj, names):
    for name in names:
        g = obj.vertex_groups.get(name)
        if g is not None:
            obj.vertex_groups.remove(g)


# A weight moving by at most this much is no change (below a float32 weight's precision near 1: 6e-8 .. 1e-7,
# with margin for a renormalization's rounding); the same bound as the library's rogue removal.
NO_CHANGE = 1e-6


def real_changes(before, after, eps=NO_CHANGE):
    """bool[V]: vertices whose CSR weights (offsets, joints, weights) differ between before and after by more
    than eps in some joint's weight, or in their joints or entry count. A vertex whose entries differ in order
    only (a tool that sorts them by weight) is compared again joint by joint."""
    import numpy as np

    diff = _changes_in_order(before, after, eps)
    o0, o1 = before[0], after[0]
    again = np.flatnonzero(diff & (np.diff(o0) == np.diff(o1)))
    if again.size:
        diff[again] = _changes_by_joint(before, after, again, eps)
    return diff


def _entries_by_joint(csr, rows):
    """(joints, weights) of the given rows' entries, each row's sorted by joint, and the rows' entry counts."""
    import numpy as np

    o, j, w = csr
    n = (o[rows + 1] - o[rows]).astype(np.int64)
    idx = np.repeat(o[rows].astype(np.int64) - np.cumsum(np.concatenate(([0], n[:-1]))), n) + np.arange(n.sum())
    order = np.lexsort((j[idx], np.repeat(np.arange(rows.size), n)))
    return j[idx][order], w[idx][order], n


def _changes_by_joint(before, after, rows, eps):
    import numpy as np

    j0, w0, n = _entries_by_joint(before, rows)
    j1, w1, _n = _entries_by_joint(after, rows)
    d = (j0 != j1) | (np.abs(w0 - w1) > np.float32(eps))
    cs = np.concatenate(([0], np.cumsum(d, dtype=np.int64)))
    ends = np.cumsum(n)
    return cs[ends] != cs[ends - n]


def _changes_in_order(before, after, eps):
    import numpy as np

    o0, j0, w0 = before
    o1, j1, w1 = after
    c0, c1 = np.diff(o0), np.diff(o1)
    same = c0 == c1
    if same.all():  # same entry counts (most tools): every entry is compared
        e0 = e1 = slice(None)
        rows = o0
    else:  # entries of the vertices whose count did not change, and their rows among them
        e0, e1 = np.repeat(same, c0), np.repeat(same, c1)
        rows = np.concatenate(([0], np.cumsum(np.where(same, c0, 0), dtype=np.int64)))
    # float32 differences: exact for weights within a factor 2 of each other (Sterbenz), so the test against eps
    # only moves for differences within float rounding of eps itself
    d = (j0[e0] != j1[e1]) | (np.abs(w0[e0] - w1[e1]) > np.float32(eps))
    cs = np.concatenate(([0], np.cumsum(d, dtype=np.int64)))  # a row differs where its prefix sums do
    return ~same | (cs[rows[1:]] != cs[rows[:-1]])


# The last weight tool's report (level, message), for scripts and tests: bpy.ops in background mode returns none.
LAST_WEIGHT_MESSAGE = []


class _WeightOp(bpy.types.Operator):
    """Base of the operators that edit vertex-group weights through the library.

    group_select_mode picks the groups a tool edits, like Blender's own tools (each subclass sets Blender's
    default); the library sees only those groups unless read_groups says otherwise. In Edit Mode the tool leaves
    for Object Mode (vertex groups cannot be written meanwhile), edits the selected vertices and comes back.

    The path of a call (poll, execute, _run, _edit_in_place and the hooks they call) reads the operator's
    properties from self.properties and calls its methods through the class: bpy_types.Operator.__getattribute__
    looks every name read on self up among the RNA properties first, ~5 us a property and ~1.4 us a method in
    Blender 3.4, where the operator alone costs ~1 ms (docs/addon.md, session 73)."""

    bl_options = {"REGISTER", "UNDO"}

    group_select_mode: _group_select_mode("BONE_DEFORM", with_active=False)
    # Before group_select_mode (scripts may still pass it): when set, it wins.
    group_subset: EnumProperty(name="Groups", items=GROUP_SUBSET_ITEMS, default="BONE_DEFORM",
                               options={"HIDDEN", "SKIP_SAVE"})
    respect_locks: BoolProperty(name="Respect Locks", description="Never change locked vertex groups",
                                default=True)

    @classmethod
    def poll(cls, context):
        mode = context.mode  # (~5 us: read once)
        if mode not in _WEIGHT_MODES:
            cls.poll_message_set("Needs Object, Edit or Weight Paint mode")
            return False
        act = context.active_object  # a mesh there is always among mode_targets: the common case needs no list
        if act is not None and act.type == "MESH" and act.vertex_groups:
            return True
        if not any(o.vertex_groups for o in cls.mode_targets(context, mode)):
            cls.poll_message_set("No selected mesh with vertex groups")
            return False
        return True

    @staticmethod
    def mode_targets(context, mode=None):
        """Meshes in Edit Mode there, else the selected meshes and the active one. mode: context.mode, when read."""
        if (mode or context.mode) == "EDIT_MESH":
            return [o for o in (context.objects_in_mode or []) if o.type == "MESH"]
        return _mesh_targets(context)

    def subset(self):
        """The effective group_select_mode (the legacy group_subset wins when a script set it)."""
        p = self.properties
        if p.is_property_set("group_subset"):
            return p.group_subset
        return p.group_select_mode

    def apply(self, api, skin, mask, locked, obj, groups):  # pragma: no cover - overridden
        raise NotImplementedError

    def read_groups(self, obj):
        """(vertex-group indices the library sees, bool per group: editable). Default: the subset, all editable."""
        groups = _subset_group_indices(obj, type(self).subset(self))
        return groups, [True] * len(groups)

    def lock_flags(self, obj, groups):
        """uint8 per group: 1 = the library keeps it (Respect Locks: the groups' lock flags)."""
        import numpy as np

        if not self.properties.respect_locks:
            return np.zeros(len(groups), np.uint8)
        vgroups = obj.vertex_groups
        every = np.zeros(len(vgroups), bool)  # one call for all groups' flags
        vgroups.foreach_get("lock_weight", every)
        if len(groups) == every.size and groups[-1] == every.size - 1:  # every group, in order (All Groups)
            return every.view(np.uint8)
        return every[np.asarray(groups, np.int64)].view(np.uint8)

    def prepare(self, api, obj):
        """Hook run on each target before its weights are read; returns the names of vertex groups it created
        (removed again if the operation fails on that object)."""
        return []

    def targets(self, context, mode=None):
        """The mesh objects the operation edits (default: see mode_targets). mode: context.mode, when read."""
        return type(self).mode_targets(context, mode)

    def execute(self, context):
        mode = context.mode
        cls = type(self)  # methods through the class (see the class's docstring)
        targets = cls.targets(self, context, mode)
        if mode == "EDIT_MESH":  # vertex groups cannot be written in Edit Mode: leave it for the edit
            bpy.ops.object.mode_set(mode="OBJECT")
        try:
            return cls._run(self, context, mode, targets)
        finally:
            if mode == "EDIT_MESH":
                bpy.ops.object.mode_set(mode="EDIT")

    def records_calls(self, obj, groups, mask):
        """The tool as sk_records_edit calls [(op, params, mask)] (see bridge.edit_records), or None when it has
        no such form (then the general path runs: read, library call on a Skin, write)."""
        return None

    def _run(self, context, mode, targets):
        import numpy as np

        cls = type(self)
        try:
            api = _load_api(context)
            changed = failed = 0
            any_locked = False
            names, unselected = [], []
            for obj in targets:
                mask = _vertex_mask(context, obj, mode)
                if mask is not None and not np.any(mask):
                    unselected.append(obj.name)
                    continue
                done = cls._edit_in_place(self, api, obj, mask) or cls._edit(self, api, obj, mask)
                if done is None:
                    continue
                changed += done[0]
                failed += done[1]
                any_locked = any_locked or done[2]
                names.append(obj.name)
        except Exception as e:
            return _fail(self, e)
        if not names:
            if unselected:
                self.report({"WARNING"}, "Skinkit: no vertex selected in %s" % ", ".join(unselected))
            else:
                self.report({"WARNING"}, "Skinkit: no vertex groups to edit")
            return {"CANCELLED"}
        msg = "%s: %d vertices changed" % (", ".join(names), changed)
        if failed:
            msg += ", %d left unchanged (%s)" % (failed, cls.failed_reason(self, failed, any_locked))
        level = "WARNING" if failed else "INFO"
        LAST_WEIGHT_MESSAGE[:] = [(level, msg)]
        self.report({level}, msg)
        return {"FINISHED"}

    def failed_reason(self, failed, any_locked):
        """Why the report's failed vertices were left as they were."""
        return "locked groups or invalid weights" if any_locked else "invalid weights"

    def _edit_in_place(self, api, obj, mask):
        """The tool as library calls over Blender's own records (records_calls): (vertices changed, vertices
        failed, any group locked), or None (nothing done) where the tool or the mesh has no such path. Vertices
        a call defers (they need a new membership or lose every one) go through the general path after."""
        from . import bridge

        cls = type(self)
        groups, _editable = cls.read_groups(self, obj)
        calls = cls.records_calls(self, obj, groups, mask) if groups else None
        if not calls or not bridge.records_writable(obj):
            return None
        locked = cls.lock_flags(self, obj, groups)
        changed = failed = 0
        deferred = None
        for op, params, part in calls:
            res = bridge.edit_records(obj, groups, op, mask=part, locked=locked, no_change=NO_CHANGE, writable=True,
                                      **params)
            if res is None:
                if deferred is None:  # nothing written yet: the general path does the whole tool
                    return None
                raise RuntimeError("%s: vertex groups can no longer be edited in place" % obj.name)
            rep, left = res
            changed += rep["vertices_changed"] - rep["vertices_deferred"]
            failed += rep["vertices_failed"]
            if left is not None:
                deferred = left if deferred is None else deferred | left
            elif deferred is None:
                deferred = False  # something was edited in place, nothing deferred yet
        if deferred is not False and deferred.any():
            more = cls._edit(self, api, obj, deferred)
            changed += more[0] if more else 0
        return changed, failed, bool(locked.any())

    def _edit(self, api, obj, mask):
        """The general path on one object: its groups read into a Skin, apply(), the real changes written back.
        (vertices changed, vertices failed, any group locked), or None when it has no group to edit."""
        import numpy as np

        from . import bridge

        created = self.prepare(api, obj)
        try:
            groups, editable = self.read_groups(obj)
            skin, groups, before = _object_skin(api, obj, None, groups, with_csr=True)
        except BaseException:
            _remove_groups(obj, created)
            raise
        if skin is None:
            return None
        self._editable = np.asarray(editable, bool)
        with skin:  # before: the skin's CSR (sk_skin_set_csr stores it as given)
            locked = self.lock_flags(obj, groups)
            try:
                rep = self.apply(api, skin, mask, locked, obj, groups)
            except BaseException:
                _remove_groups(obj, created)
                raise
            after = rep.pop("csr", None) or skin.to_csr()
            write = real_changes(before, after)  # a change below float precision is no change
            if mask is not None:
                write &= np.asarray(mask, bool)
            if np.any(write):  # only the changed memberships (one call per group or per value)
                bridge.write_csr_changes(obj, before, after, groups, mask=write)
        return int(np.count_nonzero(write)), rep.get("vertices_failed", 0), bool(locked.any())


class SKINKIT_OT_normalize(_WeightOp):
    """Scale each vertex's weights to sum 1 (locked groups kept; NaN/negative weights dropped if asked)"""

    bl_idname = "skinkit.normalize"
    bl_label = "Normalize Weights"

    group_select_mode: _group_select_mode("ALL", with_active=False)
    lock_active: BoolProperty(name="Lock Active", description="Keep the values of the active group while "
                              "normalizing others", default=True)
    drop_invalid: BoolProperty(name="Drop Invalid", description="Remove NaN/negative weights before normalizing "
                               "(otherwise such vertices are left unchanged)", default=True)
    tolerance: FloatProperty(name="Tolerance", default=1e-4, min=0.0, max=0.1, precision=6)

    def lock_flags(self, obj, groups):
        locked = _WeightOp.lock_flags(self, obj, groups)
        if self.properties.lock_active:
            active = obj.vertex_groups.active_index
            if active in groups:
                locked[groups.index(active)] = 1
        return locked

    def apply(self, api, skin, mask, locked, obj, groups):
        return api.normalize_weights(skin, mask=mask, locked=locked, drop_invalid=self.drop_invalid,
                                     tolerance=self.tolerance)

    def records_calls(self, obj, groups, mask):
        p = self.properties
        return [("normalize", dict(drop_invalid=p.drop_invalid, tolerance=p.tolerance), mask)]


class SKINKIT_OT_limit_total(_WeightOp):
    """Keep the largest influences of each vertex (then renormalize unless disabled)"""

    bl_idname = "skinkit.limit_total"
    bl_label = "Limit Total Influences"

    group_select_mode: _group_select_mode("ALL", with_active=False)
    limit: IntProperty(name="Limit", default=4, min=1, max=32)
    normalize: BoolProperty(name="Normalize", default=True)

    def apply(self, api, skin, mask, locked, obj, groups):
        return api.limit_weights(skin, self.limit, mask=mask, locked=locked, normalize=self.normalize)

    def records_calls(self, obj, groups, mask):
        p = self.properties
        return [("limit", dict(max_influences=p.limit, normalize=p.normalize), mask)]


class SKINKIT_OT_clean(_WeightOp):
    """Remove weights below a threshold (and zero weights)"""

    bl_idname = "skinkit.clean"
    bl_label = "Clean Weights"

    group_select_mode: _group_select_mode("ACTIVE")
    threshold: FloatProperty(name="Threshold", default=0.01, min=0.0, max=1.0, precision=4)
    keep_single: BoolProperty(name="Keep Single", description="Keep the largest weight of a vertex that would "
                              "lose all its influences (weights in groups outside the subset count as "
                              "influences, as in Blender)", default=True)
    normalize: BoolProperty(name="Normalize", default=False)

    def _parts(self, obj, groups, mask):
        """[(mask, keep_one)]: Keep Single protects only vertices with no weight outside the subset, so with a
        subset the selection splits by that (two calls)."""
        import numpy as np

        keep_single = self.properties.keep_single
        if not keep_single or len(groups) == len(obj.vertex_groups):
            return [(mask, keep_single)]
        from . import bridge

        others = [g.index for g in obj.vertex_groups if g.index not in set(groups)]
        off, _jt, _wt = bridge.vertex_groups_to_csr(obj, others)
        outside = np.diff(off.astype(np.int64)) > 0
        sel = np.ones(outside.size, bool) if mask is None else np.asarray(mask, bool)
        return [(part, keep) for part, keep in ((sel & ~outside, True), (sel & outside, False)) if part.any()]

    def apply(self, api, skin, mask, locked, obj, groups):
        total = {"vertices_failed": 0}
        for part, keep in self._parts(obj, groups, mask):
            rep = api.prune_weights(skin, self.threshold, mask=part, locked=locked, keep_one=keep,
                                    normalize=self.normalize)
            total["vertices_failed"] += rep.get("vertices_failed", 0)
        return total

    def records_calls(self, obj, groups, mask):
        p = self.properties
        return [("prune", dict(threshold=p.threshold, keep_one=keep, normalize=p.normalize), part)
                for part, keep in type(self)._parts(self, obj, groups, mask)]


class SKINKIT_OT_quantize(_WeightOp):
    """Round weights to 8- or 16-bit steps that sum exactly to 1 per vertex (what game exporters store)"""

    bl_idname = "skinkit.quantize"
    bl_label = "Quantize Weights"

    group_select_mode: _group_select_mode("ACTIVE")
    bits: EnumProperty(name="Bits", items=(("8", "8-bit", "Steps of 1/255"), ("16", "16-bit", "Steps of 1/65535")),
                       default="8")

    def apply(self, api, skin, mask, locked, obj, groups):
        if self.subset() != "ACTIVE":
            return api.quantize_weights(skin, int(self.bits), mask=mask, locked=locked)
        # one group: each weight rounded to the grid on its own, like Blender's Quantize (no sum to keep exact)
        import numpy as np

        off, jt, wt = skin.to_csr()
        steps = float((1 << int(self.bits)) - 1)
        verts = np.repeat(np.arange(off.size - 1), np.diff(off.astype(np.int64)))
        edit = ~np.asarray(locked, bool)[jt]
        if mask is not None:
            edit &= np.asarray(mask, bool)[verts]
        snapped = (np.floor(wt.astype(np.float64) * steps + 0.5) / steps).astype(np.float32)
        return {"csr": (off, jt, np.where(edit, snapped, wt)), "vertices_failed": 0}

    def records_calls(self, obj, groups, mask):
        cls = type(self)
        return [("quantize" if cls.subset(self) != "ACTIVE" else "round", dict(bits=int(self.properties.bits)), mask)]


def _object_geometry(obj):
    """(object-space positions (V, 3), triangles (T, 3)) of the mesh object's base mesh."""
    from . import bridge

    return bridge.mesh_positions(obj.data), bridge.mesh_triangles(obj.data)


class SKINKIT_OT_smooth(_WeightOp):
    """Smooth weights over the mesh edges (Laplacian; locked groups and unselected vertices kept)"""

    bl_idname = "skinkit.smooth"
    bl_label = "Smooth Weights"

    group_select_mode: _group_select_mode("ACTIVE")
    iterations: IntProperty(name="Iterations", default=1, min=1, max=200)
    factor: FloatProperty(name="Factor", description="Blend towards the neighbour average per iteration",
                          default=0.5, min=0.0, max=1.0)
    method: EnumProperty(name="Method", items=(
        ("uniform", "Uniform", "Every edge neighbour counts the same"),
        ("cotangent", "Cotangent", "Cotangent weights (follows the surface geometry)")), default="uniform")

    def read_groups(self, obj):
        """Active Group: the active group is smoothed, then each vertex is renormalized over its deform groups (they
        are read too; locked ones stay), so it still sums to 1 where Blender's Smooth leaves the sum as it falls."""
        if self.subset() != "ACTIVE":
            return _WeightOp.read_groups(self, obj)
        active = _subset_group_indices(obj, "ACTIVE")[0]
        groups = _subset_group_indices(obj, "BONE_DEFORM")
        if active not in groups:
            raise ValueError("the active group %s is not a deform group: Active Group smoothing renormalizes "
                             "against the deform groups (use All Groups)" % obj.vertex_groups[active].name)
        return groups, [g == active for g in groups]

    def apply(self, api, skin, mask, locked, obj, groups):
        import numpy as np

        if self.factor <= 0.0:  # Blender's Smooth at factor 0 changes nothing (the library reads 0 as its default)
            return {"vertices_failed": 0}
        from . import bridge

        if self.method == "cotangent":  # the surface's geometry: its triangles
            pos, tri = _object_geometry(obj)
        else:  # the mesh's own edges, as Blender's Smooth (a triangulated quad's diagonal is no edge of it)
            pos, tri = None, bridge.mesh_edge_triangles(obj.data)
        joints = None if self._editable.all() else np.nonzero(self._editable)[0].astype(np.uint32)
        return api.smooth_weights(skin, tri, positions=pos if self.method == "cotangent" else None,
                                  iterations=self.iterations, factor=self.factor, method=self.method, mask=mask,
                                  locked=locked, joints=joints)


class SKINKIT_OT_remove_rogue(_WeightOp):
    """Remove weights that are disconnected from the main region of their group (rogue vertices)"""

    bl_idname = "skinkit.remove_rogue"
    bl_label = "Remove Rogue Weights"

    group_select_mode: _group_select_mode("BONE_DEFORM")
    epsilon: FloatProperty(name="Epsilon", description="Weights at or below this count as zero when finding "
                           "connected regions", default=0.0, min=0.0, max=1.0, precision=4)
    per_component: BoolProperty(name="Per Mesh Part", description="Always on: each loose part keeps its own "
                                "regions; only small islands far from a group's main region on the same part go",
                                default=True)

    def apply(self, api, skin, mask, locked, obj, groups):
        pos, tri = _object_geometry(obj)
        return api.remove_rogue_weights(skin, tri, positions=pos, epsilon=self.epsilon,
                                        per_component=self.per_component, mask=mask, locked=locked)


_AXES = {"X": (1.0, 0.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0, 0.0), "Z": (0.0, 0.0, 1.0, 0.0)}


class SKINKIT_OT_mirror(_WeightOp):
    """Mirror weights across a local axis plane, renaming Left <-> Right groups (e.g. hand.L -> hand.R)"""

    bl_idname = "skinkit.mirror"
    bl_label = "Mirror Weights"

    axis: EnumProperty(name="Axis", items=(("X", "X", "Mirror across the local YZ plane"),
                                           ("Y", "Y", "Mirror across the local XZ plane"),
                                           ("Z", "Z", "Mirror across the local XY plane")), default="X")
    mode: EnumProperty(name="Mode", items=(
        ("+to-", "+ to -", "Copy the positive side onto the negative side"),
        ("-to+", "- to +", "Copy the negative side onto the positive side"),
        ("flip", "Flip", "Swap the two sides")), default="+to-")
    tolerance: FloatProperty(name="Tolerance", description="Largest distance between a vertex and its mirror "
                             "partner (0 = 1e-4 of the mesh size)", default=0.0, min=0.0, precision=5)
    create_groups: BoolProperty(name="Create Groups", description="Create the missing Left/Right counterpart "
                                "groups", default=True)

    def execute(self, context):
        self._unmatched = 0
        return _WeightOp.execute(self, context)

    def prepare(self, api, obj):
        if not self.create_groups:
            return []
        names = {g.name for g in obj.vertex_groups}
        created = []
        for gi in _subset_group_indices(obj, self.subset()):
            other = api.joint_mirror_name(obj.vertex_groups[gi].name)
            if other and other not in names:
                obj.vertex_groups.new(name=other)
                names.add(other)
                created.append(other)
        return created

    def read_groups(self, obj):
        """The subset's groups and their Left/Right counterparts: the copy lands in the counterpart even when it is
        outside the subset (a group Create Groups just made is no bone yet; without it there, arm.L's weights were
        copied onto the other side under arm.L)."""
        from . import api

        groups = list(_subset_group_indices(obj, self.subset()))
        index = {g.name: g.index for g in obj.vertex_groups}
        for gi in list(groups):
            other = index.get(api.joint_mirror_name(obj.vertex_groups[gi].name) or "")
            if other is not None and other not in groups:
                groups.append(other)
        return groups, [True] * len(groups)

    def apply(self, api, skin, mask, locked, obj, groups):
        names = [obj.vertex_groups[g].name for g in groups]
        pos, _tri = _object_geometry(obj)
        with api.Skeleton(names, [-1] * len(names)) as sk:
            rep = api.mirror_weights(skin, pos, mode=self.mode, skeleton=sk, plane=_AXES[self.axis],
                                     tolerance=self.tolerance, mask=mask, locked=locked)
        self._unmatched = getattr(self, "_unmatched", 0) + rep.get("unmatched", 0)
        return rep

    def failed_reason(self, failed, any_locked):
        unmatched = min(getattr(self, "_unmatched", 0), failed)
        parts = ["%d without a mirror partner within the tolerance" % unmatched] if unmatched else []
        if failed > unmatched:
            parts.append("%d: %s" % (failed - unmatched, _WeightOp.failed_reason(self, failed - unmatched,
                                                                                 any_locked)))
        return ", ".join(parts)


def _transfer_source(context):
    """(source mesh object or None, message): the one selected mesh with vertex groups other than the active one."""
    act = context.active_object
    if act is None or act.type != "MESH":
        return None, "Active object is not a mesh (the target)"
    others = [o for o in (context.selected_objects or []) if o.type == "MESH" and o != act and o.vertex_groups]
    if not others:
        return None, "Select a source mesh with vertex groups besides the active target mesh"
    if len(others) > 1:
        return None, "Select one source mesh (%d selected: %s)" % (len(others), ", ".join(o.name for o in others))
    return others[0], ""


def _world_geometry(obj):
    """(world-space base-mesh positions (V, 3) float32, loop triangles (T, 3)). Under a mirroring matrix (negative
    determinant) the triangles' winding is reversed, so their normals still face out in world space."""
    import numpy as np

    from . import bridge

    pos = bridge.mesh_positions(obj.data).astype(np.float64)
    m = np.array(obj.matrix_world, np.float64)
    tri = bridge.mesh_triangles(obj.data)
    if np.linalg.det(m[:3, :3]) < 0.0:
        tri = np.ascontiguousarray(tri[:, ::-1])
    return (pos @ m[:3, :3].T + m[:3, 3]).astype(np.float32), tri


_GEOMETRY_MODIFIERS = {"MIRROR", "SUBSURF", "ARRAY", "SOLIDIFY", "BEVEL", "MULTIRES", "BOOLEAN", "SCREW", "SKIN",
                       "REMESH", "DECIMATE", "TRIANGULATE", "WELD", "EDGE_SPLIT", "WIREFRAME", "BUILD", "MASK"}


class SKINKIT_OT_transfer(_WeightOp):
    """Transfer weights from the selected source mesh onto the active mesh: closest surface point within a distance
    and normal angle, Laplacian inpainting elsewhere (Abdrashitov et al. 2023); locked groups and the vertex
    selection mask of the target are honoured"""

    bl_idname = "skinkit.transfer"
    bl_label = "Transfer Weights"

    distance: FloatProperty(name="Max Distance", description="Largest distance to the source surface for a direct "
                            "match (world units; 0 = 5% of the source's bounding-box diagonal)", default=0.0,
                            min=0.0, precision=4)
    angle: FloatProperty(name="Max Angle", description="Largest angle between the normals for a direct match "
                         "(degrees; 0 = 30)", default=0.0, min=0.0, max=180.0)
    allow_flipped: BoolProperty(name="Allow Flipped Normals", description="Accept source normals pointing the "
                                "opposite way", default=False)
    max_influences: IntProperty(name="Max Influences", description="Keep the N largest weights per vertex (0 = all)",
                                default=4, min=0, max=32)
    smooth_iterations: IntProperty(name="Smooth", description="Smoothing iterations of the inpainted weights",
                                   default=0, min=0, max=100)

    @classmethod
    def poll(cls, context):
        if context.mode not in _WEIGHT_MODES:
            cls.poll_message_set("Needs Object, Edit or Weight Paint mode")
            return False
        src, msg = _transfer_source(context)
        if src is None:
            cls.poll_message_set(msg)
            return False
        return True

    def targets(self, context, mode=None):
        return [context.active_object]

    def read_groups(self, obj):
        """The subset's groups that the source has too, and the locked ones (Respect Locks: the transferred weights
        fill what they leave). The others (a prop's or a corrective's group the source lacks) are not seen by the
        transfer and keep their weights, as Blender's Data Transfer leaves them."""
        src = self._source
        groups, self._kept = [], []
        for g in _subset_group_indices(obj, self.subset()):
            vg = obj.vertex_groups[g]
            if vg.name in src.vertex_groups or (self.respect_locks and vg.lock_weight):
                groups.append(g)
            else:
                self._kept.append(vg.name)
        return groups, [True] * len(groups)

    def failed_reason(self, failed, any_locked):
        return ("locked groups, or no source weight to transfer" if any_locked
                else "no source weight to transfer there")

    def execute(self, context):
        src, msg = _transfer_source(context)
        if src is None:
            self.report({"ERROR"}, "Skinkit: " + msg)
            return {"CANCELLED"}
        self._source = src
        wm = context.window_manager
        wm.progress_begin(0, 1)
        try:
            return _WeightOp.execute(self, context)
        finally:
            wm.progress_end()

    def prepare(self, api, obj):
        """Creates the target groups named like the source's weight groups that the target lacks."""
        from . import bridge

        src = self._source
        names = {g.name for g in obj.vertex_groups}
        created = []
        for gi in bridge.deform_group_indices(src, self.subset()):
            name = src.vertex_groups[gi].name
            if name not in names:
                obj.vertex_groups.new(name=name)
                names.add(name)
                created.append(name)
        return created

    def apply(self, api, skin, mask, locked, obj, groups):
        import numpy as np

        from . import bridge

        src = self._source
        names = [obj.vertex_groups[g].name for g in groups]
        present = [(k, src.vertex_groups[n].index) for k, n in enumerate(names) if n in src.vertex_groups]
        if not present:
            raise ValueError("source %s has no vertex group named like a group of %s" % (src.name, obj.name))
        off, jt, wt = bridge.vertex_groups_to_csr(src, [gi for _k, gi in present])
        if not np.any(wt > 0):
            raise ValueError("source %s has no weights in the groups %s" % (src.name, ", ".join(
                names[k] for k, _gi in present)))
        col = np.array([k for k, _gi in present], np.uint32)
        spos, stri = _world_geometry(src)
        tpos, ttri = _world_geometry(obj)
        with api.Skin.from_csr(off, col[jt] if jt.size else jt, wt, len(names)) as src_skin:
            rep = api.transfer_weights(spos, stri, src_skin, tpos, ttri, skin, mask=mask, locked=locked,
                                       distance_threshold=self.distance, angle_threshold=self.angle,
                                       max_influences=self.max_influences, allow_flipped=self.allow_flipped,
                                       smooth_iterations=self.smooth_iterations)
        status = rep["vertex_status"]
        written = np.isin(status, [c for c, n in api.TRANSFER_STATUS_NAMES.items()
                                   if n in ("matched", "inpainted", "fallback")])
        rep["vertex_flags"] = np.where(written, api.WFLAG_CHANGED, 0).astype(np.uint8)
        rep["vertices_changed"] = int(written.sum())
        rep["vertices_failed"] = int(rep["failed"])
        self.report({"INFO"}, "%s <- %s: %d matched, %d inpainted, %d fallback, %d failed (distance %.4g)"
                    % (obj.name, src.name, rep["matched"], rep["inpainted"], rep["fallback"], rep["failed"],
                       rep["distance_threshold"]))
        if self._kept:
            self.report({"INFO"}, "%s: kept %d group%s the source has not: %s" % (
                obj.name, len(self._kept), "" if len(self._kept) == 1 else "s", ", ".join(self._kept[:8])
                + (", ..." if len(self._kept) > 8 else "")))
        mods = [m.name for m in src.modifiers if m.type in _GEOMETRY_MODIFIERS and m.show_viewport]
        if mods:
            self.report({"WARNING"}, "Skinkit: transferred from %s's base mesh; its modifiers %s are not applied"
                        % (src.name, ", ".join(mods)))
        return rep


WEIGHT_OPERATORS = (SKINKIT_OT_normalize, SKINKIT_OT_limit_total, SKINKIT_OT_clean, SKINKIT_OT_quantize,
                    SKINKIT_OT_smooth, SKINKIT_OT_remove_rogue, SKINKIT_OT_mirror, SKINKIT_OT_transfer)


# ------------------------------------------------------------------------------------------- automatic binding
_BIND_MODES = {"OBJECT", "POSE", "PAINT_WEIGHT", "EDIT_MESH"}


def _bind_targets(context):
    """(armature, meshes). Object and Pose Mode: the active armature and the selected meshes. Weight Paint / Edit
    mode: the active mesh and a selected armature (else the armature of its Armature modifier or parent)."""
    act = context.active_object
    if context.mode in {"OBJECT", "POSE"}:
        if act is None or act.type != "ARMATURE":
            return None, []
        return act, [o for o in (context.selected_objects or []) if o.type == "MESH"]
    if act is None or act.type != "MESH":
        return None, []
    from . import bridge

    arms = [o for o in (context.selected_objects or []) if o.type == "ARMATURE"]
    arm = arms[0] if len(arms) == 1 else bridge.mesh_armature(act)
    return arm, [act]


def _bind_mask(context, obj, only_selected):
    """Vertex mask of the bind: Edit mode's vertex selection, Weight Paint's selection when its vertex or face
    selection masking is on; None (every vertex) in Object mode or when only_selected is off."""
    if not only_selected:
        return None
    from . import bridge

    if context.mode == "EDIT_MESH":
        obj.update_from_editmode()
        return bridge.selected_vertex_mask(obj.data)
    return _vertex_mask(context, obj)


def _armature_space_positions(obj, arm):
    """Base-mesh positions in the armature's object space (where bone.head_local / tail_local live)."""
    import numpy as np

    from . import bridge

    pos = bridge.mesh_positions(obj.data).astype(np.float64)
    m = np.array(arm.matrix_world.inverted() @ obj.matrix_world, np.float64)
    return (pos @ m[:3, :3].T + m[:3, 3]).astype(np.float32)


def _bone_visible(arm, bone):
    """Not hidden and on a visible layer (Blender < 4.0) or in a visible bone collection (4.x), or in none."""
    layers = getattr(arm.data, "layers", None)
    if layers is not None and hasattr(bone, "layers"):
        if not any(a and b for a, b in zip(layers, bone.layers)):
            return False
    colls = list(getattr(bone, "collections", None) or [])
    if colls and not any(getattr(c, "is_visible", True) for c in colls):
        return False
    return not bone.hide


def bind_targets(arm, deform_only=True, selected_bones=False, bbone_segments=True):
    """The bind targets of an armature, in armature space: a dict with the bones (arm.data.bones order), names,
    bones' deform flags (bool[B]: deforming, and selected and visible with selected_bones, like Blender's Assign
    Automatic From Bones), and the targets the library binds to: heads/tails float32[T, 3] and owner int64[T]
    (the bone of each target), and parents int32[T] (the target each hangs from: a segment's previous segment, a
    bone's first target the last one of its parent bone; -1 for roots; None when a parent bone comes after its
    child in arm.data.bones). A deforming B-Bone with bbone_segments > 1 gives one target per segment along its
    rest-pose curve (PoseBone.bbone_segment_matrix(k, rest=True), as Blender's Automatic Weights does); others one."""
    import numpy as np

    bones = list(arm.data.bones)
    deform = np.array([(b.use_deform or not deform_only) and (not selected_bones or (b.select and
                                                                                      _bone_visible(arm, b)))
                       for b in bones], bool)
    heads, tails, owner, parents, last = [], [], [], [], {}
    for j, b in enumerate(bones):
        pb = arm.pose.bones.get(b.name) if arm.pose is not None else None
        nseg = int(getattr(b, "bbone_segments", 1)) if bbone_segments and deform[j] and pb is not None else 1
        up = -1 if b.parent is None else last.get(b.parent.name, None)
        if parents is not None and up is None:
            parents = None  # a parent listed after its child: no hierarchy for the library
        if parents is not None:
            parents.extend([up] + list(range(len(heads), len(heads) + max(nseg, 1) - 1)))
        last[b.name] = len(heads) + max(nseg, 1) - 1
        if nseg <= 1:
            heads.append(tuple(b.head_local))
            tails.append(tuple(b.tail_local))
            owner.append(j)
            continue
        pts = [tuple((b.matrix_local @ pb.bbone_segment_matrix(k, rest=True)).translation) for k in range(nseg)]
        pts.append(tuple(b.tail_local))
        heads.extend(pts[:-1])
        tails.extend(pts[1:])
        owner.extend([j] * nseg)
    return {"bones": bones, "names": [b.name for b in bones], "deform": deform,
            "heads": np.array(heads, np.float32).reshape(-1, 3), "tails": np.array(tails, np.float32).reshape(-1, 3),
            "owner": np.array(owner, np.int64),
            "parents": None if parents is None else np.array(parents, np.int32)}


def _merge_segments(api, off, jt, wt, owner, nbones, max_influences, locked, mask):
    """CSR over the bones from a CSR over the bind targets: each B-Bone's segment weights summed onto its bone,
    then at most max_influences bones per vertex (largest kept, renormalized; locked bones kept) on the bound
    vertices."""
    import numpy as np

    from . import bridge

    off, jt, wt = bridge.merge_csr_duplicates(off, owner[jt], wt)
    if int(np.diff(off.astype(np.int64)).max(initial=0)) <= max_influences:
        return off, jt, wt
    with api.Skin.from_csr(off, jt, wt, nbones) as skin:
        api.limit_weights(skin, max_influences, mask=mask, locked=locked if locked.any() else None, normalize=True)
        return skin.to_csr()


def bind_object(api, obj, arm, method="robust", max_influences=4, deform_only=True, respect_locks=True,
                vertex_mask=None, selected_bones=False, bbone_segments=True, positions=None):
    """Binds one mesh object to an armature object (weights, Armature modifier, parent). Returns a dict with
    the library's report plus timings (seconds: transfer_in, bind, write_back) and the bone names.
    vertex_mask (bool/uint8[V], optional): only these vertices are bound; the others keep their weights.
    selected_bones: only the selected (visible) deforming bones are targets and only their groups are written (the
    other groups untouched: Blender's Assign Automatic From Bones). bbone_segments: a B-Bone binds as its curved
    chain of segments, whose weights are summed back onto the bone's group (bind_targets).
    The base mesh (obj.data, the Basis shape) is bound, not the evaluated one: the vertex groups belong to it.
    positions: its _armature_space_positions when the caller has them already (bind_fit's).
    Raises SkinkitError/ValueError before touching the object when the library refuses the input."""
    import time

    import numpy as np

    from . import bridge

    t0 = time.perf_counter()
    if not len(arm.data.bones):
        raise ValueError("armature %s has no bones" % arm.name)
    tg = bind_targets(arm, deform_only, selected_bones, bbone_segments)
    names, deform, owner = tg["names"], tg["deform"], tg["owner"]
    if not deform.any():
        raise ValueError("armature %s has no %sdeforming bone%s" % (
            arm.name, "selected visible " if selected_bones else "",
            " (select bones in Pose Mode)" if selected_bones else " (disable Only Deform Bones)"))
    pos = _armature_space_positions(obj, arm) if positions is None else positions
    tri = bridge.mesh_triangles(obj.data)
    if np.linalg.det(np.array(arm.matrix_world.inverted() @ obj.matrix_world)[:3, :3]) < 0.0:
        tri = tri[:, [0, 2, 1]]  # mirrored into the armature's space: the faces' winding turns inside out with it
    if pos.shape[0] == 0:
        raise ValueError("mesh %s has no vertices" % obj.name)
    locked = np.zeros(len(names), np.uint8)
    existing = {g.name: g for g in obj.vertex_groups}
    if respect_locks:
        for j, n in enumerate(names):
            g = existing.get(n)
            locked[j] = bool(g is not None and g.lock_weight)
    mask = None
    if vertex_mask is not None:
        mask = np.asarray(vertex_mask).astype(bool).reshape(-1)
        if mask.size != pos.shape[0]:
            raise ValueError("vertex mask has %d entries for %d vertices" % (mask.size, pos.shape[0]))
        if not mask.any():
            raise ValueError("no vertex selected in %s (the bind acts on the vertex selection)" % obj.name)
    ntg = owner.size
    first = np.full(len(names), -1, np.int64)  # each bone's first target: kept weights start there
    first[owner[::-1]] = np.arange(ntg)[::-1]
    skin = None
    # starting skin: locked groups keep their weights, and with a mask every bound group of the unmasked vertices
    keep_joints = [j for j, n in enumerate(names) if n in existing and (locked[j] or mask is not None)
                   and (deform[j] or not selected_bones)]
    if keep_joints:
        keep_groups = [existing[names[j]].index for j in keep_joints]
        off, jt, wt = bridge.vertex_groups_to_csr(obj, keep_groups)
        skin = api.Skin.from_csr(off, first[np.array(keep_joints, np.int64)][jt].astype(np.uint32), wt, ntg)
    segmented = ntg != len(names)
    bind_max = min(32, max_influences * int(np.bincount(owner).max())) if segmented else max_influences
    t1 = time.perf_counter()
    try:
        skin, rep = api.bind(pos, tri, heads=tg["heads"], tails=tg["tails"], method=method, max_influences=bind_max,
                             deform=deform[owner], locked=locked[owner] if locked.any() else None, vertex_mask=mask,
                             skin=skin, parents=tg.get("parents"))
        with skin:
            off, jt, wt = skin.to_csr()
    except BaseException:
        if skin is not None:
            skin.close()
        raise
    if segmented:
        off, jt, wt = _merge_segments(api, off, jt, wt, owner, len(names), max_influences, locked, mask)
        rep["joint_vertex_counts"] = np.bincount(jt.astype(np.int64), minlength=len(names)).astype(np.uint64)
    rep["targets"] = ntg
    t2 = time.perf_counter()
    # write back the bound groups (deforming, unlocked bones): create them, replace all their weights
    bound = [j for j in range(len(names)) if deform[j] and not locked[j]]
    remap = np.full(len(names), -1, np.int64)
    remap[bound] = np.arange(len(bound))
    groups, created = [], []
    for j in bound:
        g = obj.vertex_groups.get(names[j])
        if g is None:
            g = obj.vertex_groups.new(name=names[j])
            created.append(g.index)
        groups.append(g.index)
    keep = remap[jt] >= 0
    verts = np.repeat(np.arange(off.size - 1), np.diff(off.astype(np.int64)))
    new_off = np.zeros(off.size, np.int64)
    np.cumsum(np.bincount(verts[keep], minlength=off.size - 1), out=new_off[1:])
    bridge.csr_to_vertex_groups(obj, new_off, remap[jt[keep]], wt[keep], group_indices=groups, mask=mask,
                                new_groups=created)
    rep["modifier_note"] = _armature_modifier_for(obj, arm)
    if obj.parent != arm or obj.parent_type != "OBJECT":
        # a mesh parented to a bone (or with Armature-type parenting) would follow the armature twice: through its
        # parent and through the modifier. Blender's With Automatic Weights makes it an Object parent too.
        world = obj.matrix_world.copy()
        obj.parent = arm
        obj.parent_type = "OBJECT"
        obj.matrix_parent_inverse = arm.matrix_world.inverted()
        obj.matrix_basis = world
    t3 = time.perf_counter()
    rep.update(names=names, transfer_in=t1 - t0, bind=t2 - t1, write_back=t3 - t2, vertex_count=int(pos.shape[0]))
    return rep


def _armature_modifier_for(obj, arm):
    """Leaves exactly one Armature modifier on obj, deforming with arm: the one already using arm, else the first
    Armature modifier retargeted to arm (its place in the stack and its settings kept), else a new one. Any other
    Armature modifier goes (the mesh would deform twice). Returns what was replaced, '' when nothing was."""
    mods = [m.name for m in obj.modifiers if m.type == "ARMATURE"]
    keep = next((n for n in mods if obj.modifiers[n].object == arm), None)
    notes = []
    if keep is None and mods:
        keep = mods[0]
        old = obj.modifiers[keep].object
        obj.modifiers[keep].object = arm
        notes.append("Armature modifier %s retargeted from %s to %s" % (keep, old.name if old else "no object",
                                                                        arm.name))
    if keep is None:
        obj.modifiers.new(name=arm.name, type="ARMATURE").object = arm
    for n in mods:
        if n != keep:
            old = obj.modifiers[n].object
            obj.modifiers.remove(obj.modifiers[n])
            notes.append("Armature modifier %s (%s) removed" % (n, old.name if old else "no object"))
    return "; ".join(notes)


_FIT_HINTS = {"scale": "the bones' size is off: a unit mismatch (cm vs m)?",
              "axis": "the bones fit once turned 90 degrees about X: a Y-up / Z-up mix-up?",
              "offset": "the armature is moved away from the mesh, or belongs to another character"}


def bind_fit(api, meshes, arm, deform_only=True, positions=None):
    """The library's fit check (sk_bind_fit_check) of arm's deform bones against all the meshes together (the rest
    pose, armature space, like the bind; positions: each mesh's _armature_space_positions, when the caller has
    them). Returns its dict plus "message": '' when the armature fits."""
    import numpy as np

    bones = list(arm.data.bones)
    deform = np.array([b.use_deform or not deform_only for b in bones], bool)
    if not bones or not deform.any() or not api.library().has("sk_bind_fit_check"):
        return {"ok": True, "message": ""}
    heads = np.array([tuple(b.head_local) for b in bones], np.float32)
    tails = np.array([tuple(b.tail_local) for b in bones], np.float32)
    if positions is None:
        positions = [_armature_space_positions(o, arm) for o in meshes]
    pos = np.concatenate(positions)
    if pos.shape[0] == 0:
        return {"ok": True, "message": ""}
    fit = api.bind_fit_check(pos, heads, tails, deform)
    fit["message"] = ""
    if not fit["ok"]:
        fit["message"] = ("armature %s may not fit %s: %.0f%% of the bone points lie in the mesh (75%% needed), "
                          "the bones span %.2fx the mesh's size (0.1-3x expected); %s. Bound anyway"
                          % (arm.name, ", ".join(o.name for o in meshes), 100 * fit["inside_share"],
                             fit["scale_ratio"], _FIT_HINTS.get(fit["hint"], "hint %s" % fit["hint"])))
    return fit


# Reports of the last skinkit.auto_bind run, one dict per mesh (bind_object's), its fit check (bind_fit's) and the
# (level, message) reports it made: read by tests and the benchmark.
LAST_BIND_REPORTS = []
LAST_BIND_FIT = {}
LAST_BIND_MESSAGES = []


class SKINKIT_OT_auto_bind(bpy.types.Operator):
    """Parent the selected meshes to the active armature with automatic weights computed by skinkit"""

    bl_idname = "skinkit.auto_bind"
    bl_label = "Auto Bind (skinkit)"
    bl_options = {"REGISTER", "UNDO"}

    method: EnumProperty(name="Method", items=(
        ("robust", "Robust", "Bone heat that also copes with loose parts, holes and overlapping geometry: parts "
         "no bone sees follow the body under them, and weight two limbs pull on one vertex goes to the body "
         "bone it lies against (the joint they hang from, or the spine above or past it)"),
        ("heat", "Heat", "Bone heat diffusion over the surface (like Blender's Automatic Weights)"),
        ("nearest", "Nearest", "Distance to the nearest bones only"),
        ("capsule", "Capsule", "A capsule around each bone (radius estimated from the mesh), smooth falloff "
         "outside it, smoothed over the mesh edges"),
        ("delaunay", "Delaunay", "Graph distance to the bones over a Delaunay tetrahedralization of the vertices "
         "and bone samples (Shin & Shin 2000): respects the volume, not only straight-line distance")),
        default="robust")
    max_influences: IntProperty(name="Max Influences", default=4, min=1, max=32)
    only_deform: BoolProperty(name="Only Deform Bones", description="Bind only to bones with Deform enabled",
                              default=True)
    respect_locks: BoolProperty(name="Respect Locked Groups", description="Vertex groups that are locked keep "
                                "their weights; the new weights fill the rest", default=True)
    only_selected_bones: BoolProperty(name="Only Selected Bones", description="Bind only to the selected (visible) "
                                      "deforming bones; the other bones' groups stay untouched (Blender's Weight "
                                      "Paint > Assign Automatic From Bones)", default=False)
    bbone_segments: BoolProperty(name="B-Bone Segments", description="A B-Bone with several segments binds as its "
                                 "curved chain of segments (rest pose), their weights summed onto the bone's group, "
                                 "like Blender's Automatic Weights", default=True)
    only_selected: BoolProperty(name="Only Selected Vertices", description="In Edit mode, and in Weight Paint with "
                                "selection masking, bind only the selected vertices (the others keep their weights)",
                                default=True)

    @classmethod
    def poll(cls, context):
        if context.mode not in _BIND_MODES:
            cls.poll_message_set("Needs Object, Pose, Edit or Weight Paint mode")
            return False
        arm, meshes = _bind_targets(context)
        if arm is None:
            if context.mode in {"OBJECT", "POSE"}:
                cls.poll_message_set("Active object is not an armature")
            else:
                cls.poll_message_set("Active object is not a mesh with an armature (select one or add an Armature "
                                     "modifier)")
            return False
        if not meshes:
            cls.poll_message_set("No mesh selected")
            return False
        return True

    def execute(self, context):
        arm, meshes = _bind_targets(context)
        if arm is None or not meshes:
            self.report({"ERROR"}, "Skinkit: select meshes and make an armature active")
            return {"CANCELLED"}
        wm = context.window_manager
        lines = []
        mode = context.mode
        masks = [_bind_mask(context, obj, self.only_selected) for obj in meshes]
        if mode == "EDIT_MESH":  # vertex groups cannot be written in Edit mode: leave it for the bind
            bpy.ops.object.mode_set(mode="OBJECT")
        wm.progress_begin(0, len(meshes))
        LAST_BIND_REPORTS.clear()
        LAST_BIND_FIT.clear()
        LAST_BIND_MESSAGES.clear()
        notes = []
        try:
            api = _load_api(context)
            spaces = [_armature_space_positions(o, arm) for o in meshes]  # the fit check's and the binds'
            LAST_BIND_FIT.update(bind_fit(api, meshes, arm, self.only_deform, spaces))
            if LAST_BIND_FIT["message"]:
                self._report("WARNING", "Skinkit: " + LAST_BIND_FIT["message"])
            for i, obj in enumerate(meshes):
                rep = bind_object(api, obj, arm, self.method, self.max_influences, self.only_deform,
                                  self.respect_locks, vertex_mask=masks[i], selected_bones=self.only_selected_bones,
                                  bbone_segments=self.bbone_segments, positions=spaces[i])
                wm.progress_update(i + 1)
                LAST_BIND_REPORTS.append(rep)
                used = ", ".join("%s %d" % (n, c) for n, c in zip(rep["names"], rep["joint_vertex_counts"].tolist())
                                 if c)
                extra = ""
                if rep["fallback_vertices"]:
                    extra = ", %d by nearest-bone fallback" % rep["fallback_vertices"]
                if rep["modifier_note"]:
                    notes.append("%s: %s" % (obj.name, rep["modifier_note"]))
                    extra += "; " + rep["modifier_note"]
                lines.append("%s: %d vertices bound (%s%s) in %.0f ms (read %.0f, bind %.0f, write %.0f)"
                             % (obj.name, rep["bound_vertices"], used, extra,
                                1e3 * (rep["transfer_in"] + rep["bind"] + rep["write_back"]),
                                1e3 * rep["transfer_in"], 1e3 * rep["bind"], 1e3 * rep["write_back"]))
        except Exception as e:
            return _fail(self, e)
        finally:
            wm.progress_end()
            if mode == "EDIT_MESH":
                bpy.ops.object.mode_set(mode="EDIT")
        self._report("WARNING" if notes else "INFO", "; ".join(lines))
        return {"FINISHED"}

    def _report(self, level, msg):
        LAST_BIND_MESSAGES.append((level, msg))
        self.report({level}, msg)


classes = (SKINKIT_OT_validate, SKINKIT_OT_select_invalid) + WEIGHT_OPERATORS + (SKINKIT_OT_auto_bind,)
