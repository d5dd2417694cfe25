"""Bake Deformation: the armature's animation skinned by the library - optimized centres of rotation (COR, Le &
Hodgins 2016), which Blender's Armature modifier does not offer (it does linear blend, or dual quaternions with
Preserve Volume), or LBS / DQS for comparison - into a PC2 point cache that a Mesh Cache modifier plays back in
place of the Armature modifier (left in the stack, disabled, to switch back).

The skinning matches the Armature modifier's inputs: deform bones only, groups named after them, weights
normalized per vertex (what the modifier does), object-space matrices (bridge.armature_to_skeleton with the mesh
as space), the modifier's Vertex Group scaling each vertex's deformation, so with method LBS the cache equals the
modifier's result (tests/addon/blender_test_addon.py). With DQS it equals Preserve Volume while the pose bones only
rotate and move; a scaled pose bone differs (CesiumMan, two bones scaled 1.2: 9.3e-3 of the model's size): the
library splits each matrix by polar decomposition and blends the stretches about the armature space's origin, where
Blender's mat4_to_dquat keeps the bone's Y axis and blends each scale about the bone's rest head. B-Bone segments and
bone envelopes are not baked: the report warns of them."""

import os
import time

import bpy
from bpy.props import BoolProperty, EnumProperty, IntProperty, StringProperty

# The last bake's report (level, message), for scripts and tests: bpy.ops in background mode returns none.
LAST_MESSAGE = []

_PC2_HEADER = "<12siiffi"  # "POINTCACHE2\0", version 1, points, start frame, sampling, samples


def _pc2_bytes(frames, start):
    """A PC2 file of (F, V, 3) float32 positions, one sample per frame from `start`."""
    import struct

    import numpy as np

    head = struct.pack(_PC2_HEADER, b"POINTCACHE2\0", 1, frames.shape[1], float(start), 1.0, frames.shape[0])
    return head + np.ascontiguousarray(frames, "<f4").tobytes()


def _write_atomic(api, path, data):
    """Replaces path with data through the library's atomic writer (temp file, fsync, rename)."""
    import ctypes

    buf = ctypes.create_string_buffer(data, len(data))
    api.library().sk_write_file_atomic(api._path_arg(path), ctypes.addressof(buf), len(data))


def _armature_modifier(obj):
    for i, mod in enumerate(obj.modifiers):
        if mod.type == "ARMATURE" and mod.object is not None and mod.object.type == "ARMATURE":
            return i, mod
    return None, None


def _default_path(obj, method):
    name = bpy.path.clean_name("%s_%s" % (obj.name, method)) + ".pc2"
    if bpy.data.filepath:
        return "//" + name
    return os.path.join(bpy.app.tempdir or os.path.dirname(os.path.abspath(bpy.app.binary_path)), name)


def modifier_mask(obj, mod):
    """(V,) float32 share of the deformation each vertex takes under the Armature modifier mod: its Vertex Group
    (inverted if asked; a vertex outside it takes none), or None when it has no such group. The modifier moves a
    vertex by its deformation times that share (Blender's armature_deform)."""
    import numpy as np

    from . import bridge

    group = obj.vertex_groups.get(mod.vertex_group) if mod.vertex_group else None
    if group is None:
        return None
    off, _jt, wt = bridge.vertex_groups_to_csr(obj, [group.index])
    share = np.zeros(len(off) - 1, np.float32)
    has = np.diff(off.astype(np.int64)) > 0
    share[has] = wt
    return 1.0 - share if mod.invert_vertex_group else share


def unbaked_features(obj, arm, mod):
    """What the Armature modifier mod does that the bake does not (names for a warning): B-Bone segments of
    deforming bones, bone envelopes, no vertex groups."""
    notes = []
    bent = [b.name for b in arm.data.bones if b.use_deform and b.bbone_segments > 1]
    if bent:
        notes.append("B-Bone segments of %d bone%s (%s) baked as straight bones" % (
            len(bent), "" if len(bent) == 1 else "s", ", ".join(bent[:3]) + (", ..." if len(bent) > 3 else "")))
    if mod.use_bone_envelopes:
        notes.append("bone envelopes not baked")
    if not mod.use_vertex_groups:
        notes.append("the modifier does not use vertex groups; the bake does")
    return notes


def skinned_frames(api, obj, arm, frames, method, mask=None):
    """(F, V, 3) float32 object-space positions of obj skinned by arm at each frame (the scene is moved to each
    frame and back). Vertices without deform-bone weight keep their rest position, as with the modifier; mask (V,)
    (modifier_mask) scales each vertex's deformation."""
    import numpy as np

    from . import bridge

    scene = bpy.context.scene
    skel = bridge.armature_to_skeleton(arm, space_obj=obj, deform_only=True)
    with skel:
        off, jt, wt, _ignored = bridge.vertex_groups_to_bone_csr(obj, skel.names)
        rest = bridge.mesh_positions(obj.data)
        still = np.bincount(np.repeat(np.arange(rest.shape[0]), np.diff(off.astype(np.int64))),
                            weights=np.maximum(wt, 0.0), minlength=rest.shape[0]) <= 0.0
        out = np.empty((len(frames), rest.shape[0], 3), np.float32)
        with api.Skin.from_csr(off, jt, wt, len(skel.names)) as skin:
            centers = api.cor_centers(rest, bridge.mesh_triangles(obj.data), skin) if method == "cor" else None
            current = scene.frame_current
            try:
                for k, f in enumerate(frames):
                    scene.frame_set(f)
                    palette = skel.palette_from_world(bridge.armature_pose_world(arm, obj, deform_only=True))
                    out[k] = api.deform(rest, None, palette, skin, method=method, flags=("normalize",),
                                        centers=centers).positions
            finally:
                scene.frame_set(current)
        out[:, still] = rest[still]
    if mask is not None:
        out = (rest + (out - rest) * mask[None, :, None]).astype(np.float32)
    return out


class SKINKIT_OT_bake_deformation(bpy.types.Operator):
    """Bake the armature's animation of the active mesh, skinned with optimized centres of rotation (no candy
    wrapper at twists, no bulge at bends), into a point cache played by a Mesh Cache modifier"""

    bl_idname = "skinkit.bake_deformation"
    bl_label = "Bake Deformation (COR)"
    bl_options = {"REGISTER", "UNDO"}

    method: EnumProperty(name="Method", items=(
        ("cor", "Centres of Rotation", "Optimized centres of rotation (Le & Hodgins 2016)"),
        ("dqs", "Dual Quaternion", "Dual quaternion skinning, as Blender's Preserve Volume for rotating bones (a "
         "scaled pose bone's scale is blended about the armature's origin, not about its own head as Blender does)"),
        ("lbs", "Linear Blend", "Linear blend skinning (Blender's default)")), default="cor")
    use_scene_range: BoolProperty(name="Scene Frame Range", default=True)
    frame_start: IntProperty(name="Start", default=1)
    frame_end: IntProperty(name="End", default=250)
    filepath: StringProperty(name="Cache File", subtype="FILE_PATH", description="PC2 file to write (empty: "
                             "<object>_<method>.pc2 beside the .blend file, or in the temporary folder)")

    @classmethod
    def poll(cls, context):
        obj = context.active_object
        if context.mode != "OBJECT" or obj is None or obj.type != "MESH":
            cls.poll_message_set("Needs a mesh as the active object, in Object Mode")
            return False
        if _armature_modifier(obj)[1] is None:
            cls.poll_message_set("The mesh has no Armature modifier with an armature")
            return False
        return True

    def execute(self, context):
        from .operators import _fail, _load_api

        obj = context.active_object
        index, mod = _armature_modifier(obj)
        scene = context.scene
        start, end = (scene.frame_start, scene.frame_end) if self.use_scene_range else (self.frame_start,
                                                                                       self.frame_end)
        if end < start:
            self.report({"ERROR"}, "Skinkit: the frame range %d..%d is empty" % (start, end))
            return {"CANCELLED"}
        before = [m.name for m in obj.modifiers[:index] if m.show_viewport]
        if before:
            self.report({"ERROR"}, "Skinkit: the Armature modifier must come first (before it: %s)" % ", ".join(before))
            return {"CANCELLED"}
        path = self.filepath or _default_path(obj, self.method)
        t0 = time.perf_counter()
        try:
            api = _load_api(context)
            mod.show_viewport = False  # the frames are evaluated for the bones only
            frames = skinned_frames(api, obj, mod.object, range(start, end + 1), self.method,
                                    mask=modifier_mask(obj, mod))
            _write_atomic(api, bpy.path.abspath(path), _pc2_bytes(frames, start))
        except Exception as e:
            mod.show_viewport = True
            return _fail(self, e)
        cache = obj.modifiers.new("Skinkit %s" % self.method.upper(), "MESH_CACHE")
        cache.cache_format, cache.filepath = "PC2", path
        cache.time_mode, cache.play_mode, cache.deform_mode = "FRAME", "SCENE", "OVERWRITE"
        cache.frame_start, cache.interpolation = start, "LINEAR"
        with context.temp_override(object=obj, active_object=obj):
            bpy.ops.object.modifier_move_to_index(modifier=cache.name, index=index)
        mod.show_render = False
        notes = unbaked_features(obj, mod.object, mod)
        if obj.data.shape_keys:
            notes.append("shape keys: the cache starts from the basis shape")
        notes = " (%s)" % "; ".join(notes) if notes else ""
        level = "WARNING" if notes else "INFO"
        LAST_MESSAGE[:] = [(level, "Skinkit: baked %d frames of %d vertices (%s) to %s in %.2f s%s" % (
            frames.shape[0], frames.shape[1], self.method.upper(), path, time.perf_counter() - t0, notes))]
        self.report({level}, LAST_MESSAGE[0][1])
        return {"FINISHED"}

    def invoke(self, context, event):
        return context.window_manager.invoke_props_dialog(self)


classes = (SKINKIT_OT_bake_deformation,)
