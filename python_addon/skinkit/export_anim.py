"""The armature's actions as clips of a library scene (Export via skinkit, export_scene.skinkit_assimp; ABI 1.13
Scene.add_animation), the reverse of import_anim.py.

Which actions (Blender 3.4's glTF exporter's default "Actions" mode): the armature object's active action, then the
actions of the strips of its NLA tracks, each action once, skipping muted strips (a muted track still counts, as in
the glTF exporter: Import via skinkit stashes every clip on a muted track). Order: the active action first, then the
tracks from the top one down (strips in time order), so that an import -> export keeps the file's clip order (the
importer makes the first clip active and puts it on the top track); the glTF exporter sorts by name instead, and
skips tracks with more than one unmuted strip, whose actions are written here too. An action without fcurves is left
out (named in a note). Clip name = action name.

Sampling: every whole frame of the action's frame range (action.frame_range: its keys' extent, or its manual Frame
Range), plus the range's ends and every keyframe of its fcurves inside it (the sub-frame keys Import via skinkit
makes for a clip whose rate is not the scene's): samples closer than 1e-4 frame are one, the key's frame kept. Key
time = frame / fps with fps = render.fps / render.fps_base, from frame 0 (not from the range's start), which is what
the importer wrote (frame = t * fps), so import -> export -> import keeps the clip's times; Blender's glTF exporter
also writes frame / fps (ignoring fps_base). An FBX file takes (frame - 1) / fps, Blender's FBX convention (its
exporter from a scene starting at frame 1; its importer adds one frame), which the importer reads back so too. A clip whose range starts before frame 0 is shifted to start at 0 s (a
note says so): the library takes no negative times.

Values: per sample, scene.frame_set(frame, subframe) evaluates the scene with the action assigned to the armature
(NLA off, as the glTF exporter does: the action alone; drivers and constraints included), every pose bone's matrix
is read at once (pose.bones.foreach_get("matrix"): 0.003 ms for 39 bones, against 0.6 ms for a list comprehension)
and each exported joint's world matrix is armature.matrix_world @ pose_bone.matrix (the armature object's own
animation goes into the roots). In numpy then: local = inverse(world of the exported parent) @ world (a root's local
is its world: with Only Deform Bones, a bone whose parent is not exported is a root), split into translation, unit
quaternion (signs continuous from key to key) and scale (import_anim.decompose). A local with shear (a non-uniform
scale above a rotated bone, or a bone that does not inherit its parent's scale) has no TRS: its rotation and scale
are the closest ones and a note counts the joints. Before each action every pose bone is put at rest (location 0,
rotation identity, scale 1; the glTF exporter's "Reset pose bones between actions"), so what one action leaves on a
bone it does not key is not baked into the next.

Joints no clip moves (every sample of every clip has the joint's local matrix within 1e-6 of its rest local matrix:
translation relative to the model's size, the 3x3 part relative to its largest entry) are left unkeyed (keyed=False:
the file has no channel for them and readers keep them at rest); a joint any clip moves, or holds still off its
rest, is keyed in every clip, as Import via skinkit writes channels: a player that switches clips without resetting
the pose (Blender's glTF importer's actions) never keeps a joint where another clip put it. When no clip moves any
joint, the roots are keyed (a clip needs a channel).

Speed: frame_set evaluates the whole scene, and the meshes the armature deforms were re-skinned at every sample
(Testwuson.X's 11,196 vertices: 3-3.6 ms a frame, CesiumMan_subdiv2's 92,569: 125-145 ms). They are hidden
(hide_viewport) while sampling, which leaves them out of the depsgraph: 0.2-0.3 ms a frame, the pose bone matrices
bit-identical (whole export of Testwuson.X 1.06 -> 0.10 s, of CesiumMan_subdiv2 6.7 -> 0.43 s). A mesh the armature
depends on (a target of one of its constraints or drivers, or its parent chain) is not hidden.

Everything changed is restored, also on error: the active action, NLA use and tweak mode, the pose bones' location /
rotations / scale, the meshes' visibility and the scene's frame and subframe.
"""

import math

import numpy as np

MOVE_TOL = 1e-6  # a joint at rest within this (translation: times the model's size)
SHEAR_TOL = 1e-4  # a local matrix whose rotation and scale are approximated by more than this gets a note
FRAME_EPS = 1e-4  # samples closer than this (frames) are one

# The last write_clips run (the tests and the timing figures read it)
LAST_STATS = {}

_POSE_PROPS = (("location", 3), ("rotation_quaternion", 4), ("rotation_euler", 3), ("rotation_axis_angle", 4),
               ("scale", 3))
_REST_VALUES = {"location": (0.0, 0.0, 0.0), "rotation_quaternion": (1.0, 0.0, 0.0, 0.0),
                "rotation_euler": (0.0, 0.0, 0.0), "rotation_axis_angle": (0.0, 0.0, 1.0, 0.0),
                "scale": (1.0, 1.0, 1.0)}


# ------------------------------------------------------------------------------------------- which, when
def clip_actions(arm):
    """(actions to write, notes): the active action, then each unmuted NLA strip's action from the top track down,
    each once; actions without fcurves are left out (named in the notes)."""
    ad = arm.animation_data
    if ad is None:
        return [], []
    found = [ad.action] if ad.action is not None else []
    for track in reversed(list(ad.nla_tracks)):
        for strip in sorted(track.strips, key=lambda s: s.frame_start):
            if strip.action is not None and not strip.mute and strip.action not in found:
                found.append(strip.action)
    empty = [a.name for a in found if not len(a.fcurves)]
    notes = ["actions without keys not written: %s" % ", ".join(empty)] if empty else []
    return [a for a in found if len(a.fcurves)], notes


def _key_frames(action):
    out = []
    for fc in action.fcurves:
        n = len(fc.keyframe_points)
        if n:
            co = np.empty(2 * n, np.float32)
            fc.keyframe_points.foreach_get("co", co)
            out.append(co[0::2].astype(np.float64))
    return np.concatenate(out) if out else np.zeros(0)


def sample_frames(action):
    """Ascending frames at which to sample an action: its frame range's whole frames and ends and its keyframes
    inside the range, those closer than FRAME_EPS merged (a key's frame wins over a whole frame)."""
    start, end = (float(v) for v in action.frame_range)
    end = max(end, start)
    keys = _key_frames(action)
    exact = np.unique(np.concatenate([[start, end], keys[(keys >= start - FRAME_EPS) & (keys <= end + FRAME_EPS)]]))
    exact = np.clip(exact, start, end)
    exact = exact[np.r_[True, np.diff(exact) > FRAME_EPS]]
    whole = np.arange(math.ceil(start), math.floor(end) + 1, dtype=np.float64)
    if whole.size:
        i = np.searchsorted(exact, whole)
        lo = np.abs(whole - exact[np.maximum(i - 1, 0)])
        hi = np.abs(exact[np.minimum(i, exact.size - 1)] - whole)
        whole = whole[np.minimum(lo, hi) > FRAME_EPS]
    return np.sort(np.concatenate([exact, whole]))


# ------------------------------------------------------------------------------------------- numpy
def affine_inverse(m):
    """(..., 4, 4) affine matrices (last row 0 0 0 1) -> their inverses: the 3x3 part's by cross products (its
    adjugate over its determinant; 10x faster than np.linalg.inv on a stack of 4x4s). A singular one (a bone scaled
    to 0 to hide what hangs from it) gets its pseudo-inverse: its child's local then still gives the child's world,
    which is collapsed with it."""
    m = np.asarray(m, np.float64)
    a, b, c = m[..., :3, 0], m[..., :3, 1], m[..., :3, 2]
    bc, ca, ab = np.cross(b, c), np.cross(c, a), np.cross(a, b)
    det = np.einsum("...i,...i->...", a, bc)
    big = np.maximum(np.abs(m[..., :3, :3]).max(axis=(-2, -1)), 1e-300)
    singular = np.abs(det) <= 1e-12 * big ** 3
    det = np.where(singular, 1.0, det)
    inv3 = np.stack([bc, ca, ab], axis=-2) / det[..., None, None]
    out = np.zeros(m.shape)
    out[..., :3, :3] = inv3
    out[..., :3, 3] = -np.einsum("...ij,...j->...i", inv3, m[..., :3, 3])
    out[..., 3, 3] = 1.0
    if np.any(singular):
        out[singular] = np.linalg.pinv(m[singular])
    return out


def locals_from_worlds(worlds, parents):
    """(K, J, 4, 4) world matrices -> local ones: inverse(parent's world) @ world, a root's = its world."""
    worlds = np.asarray(worlds, np.float64)
    parents = np.asarray(parents, np.int64)
    local = worlds.copy()
    child = np.nonzero(parents >= 0)[0]
    if child.size:
        used = np.unique(parents[child])  # each parent inverted once
        inv = np.empty(worlds.shape[:1] + (worlds.shape[1], 4, 4))
        inv[:, used] = affine_inverse(worlds[:, used])
        local[:, child] = inv[:, parents[child]] @ worlds[:, child]
    return local


def trs_from_locals(local):
    """(K, J, 4, 4) local matrices -> ((K, J, 10) float32 TRS as Scene.add_animation takes it: translation,
    quaternion x y z w with signs continuous along K, scale; (K, J) residual of the sheared ones, else 0)."""
    from .import_anim import continuous_signs, decompose

    loc, q, s, res = decompose(local)
    q = continuous_signs(q)
    trs = np.concatenate([loc, q[..., [1, 2, 3, 0]], s], axis=-1)
    return trs.astype(np.float32), res


def moving_joints(local, rest_local, size):
    """(J,) bools: the joints whose local matrix leaves its rest one at some sample (module docstring)."""
    rest = np.asarray(rest_local, np.float64)
    d = np.abs(np.asarray(local, np.float64) - rest[None])
    t_tol = MOVE_TOL * max(float(size), float(np.abs(rest[:, :3, 3]).max()) if len(rest) else 0.0)
    m_tol = MOVE_TOL * np.maximum(np.abs(rest[:, :3, :3]).max(axis=(1, 2)), 1.0)
    return (d[..., :3, 3].max(axis=(0, 2)) > t_tol) | (d[..., :3, :3].max(axis=(0, 2, 3)) > m_tol)


# ------------------------------------------------------------------------------------------- bpy state
def _armature_inputs(arm):
    """Names of the objects (and data) the armature's evaluation reads: constraint targets, driver targets, its
    parent chain."""
    names = set()
    cons = list(arm.constraints) + [c for pb in arm.pose.bones for c in pb.constraints]
    for c in cons:
        for attr in ("target", "pole_target"):
            t = getattr(c, attr, None)
            if t is not None:
                names.add(t.name)
        for tg in getattr(c, "targets", None) or ():
            if getattr(tg, "target", None) is not None:
                names.add(tg.target.name)
    for owner in (arm, arm.data):
        ad = owner.animation_data
        for d in (ad.drivers if ad is not None else ()):
            for v in d.driver.variables:
                for t in v.targets:
                    if t.id is not None:
                        names.add(t.id.name)
    p = arm.parent
    while p is not None:
        names.add(p.name)
        p = p.parent
    return names


def deformed_meshes(context, arm):
    """The scene's visible meshes the armature deforms (Armature modifier on it, or armature parent) that it does
    not read: hidden while sampling."""
    inputs = _armature_inputs(arm)
    out = []
    for o in context.scene.objects:
        if o.type != "MESH" or o.hide_viewport or o.name in inputs or (o.data is not None and o.data.name in inputs):
            continue
        by_mod = any(m.type == "ARMATURE" and m.object == arm for m in o.modifiers)
        if by_mod or (o.parent == arm and o.parent_type == "ARMATURE"):
            out.append(o)
    return out


class _Saved:
    """What sampling changes, saved at construction and put back by restore (each step on its own: one that
    fails does not keep the others from running)."""

    def __init__(self, context, arm):
        self.scene = context.scene
        self.arm = arm
        self.frame = (self.scene.frame_current, self.scene.frame_subframe)
        ad = arm.animation_data
        self.tweak = ad.use_tweak_mode
        self.action = ad.action
        self.use_nla = ad.use_nla
        pbs = arm.pose.bones
        self.pose = {}
        for prop, n in _POSE_PROPS:
            buf = np.empty(len(pbs) * n, np.float32)
            pbs.foreach_get(prop, buf)
            self.pose[prop] = buf
        self.hidden = []

    def begin(self):
        """Leaves NLA tweak mode (the action would be read-only), notes the active action, turns NLA off."""
        ad = self.arm.animation_data
        if self.tweak:
            ad.use_tweak_mode = False
        self.action = ad.action
        ad.use_nla = False

    def hide(self, objs):
        """Hides objs in the viewports; restore shows them again, selected as they were (hiding deselects: a second
        export of the same selection found no mesh)."""
        for o in objs:
            try:
                selected = o.select_get()
                o.hide_viewport = True
                self.hidden.append((o, selected))
            except (AttributeError, RuntimeError, TypeError):  # a linked object: left visible
                pass

    def rest_pose(self):
        pbs = self.arm.pose.bones
        for prop, _n in _POSE_PROPS:
            pbs.foreach_set(prop, np.tile(np.array(_REST_VALUES[prop], np.float32), len(pbs)))
        self.arm.update_tag()  # the evaluated copy takes the rest values, whatever assigning the action tags

    def restore(self):
        ad = self.arm.animation_data
        steps = [lambda: ad.action != self.action and setattr(ad, "action", self.action),
                 lambda: setattr(ad, "use_nla", self.use_nla)]
        if self.tweak:
            steps.append(lambda: setattr(ad, "use_tweak_mode", True))
        pbs = self.arm.pose.bones
        steps += [(lambda p=p: pbs.foreach_set(p, self.pose[p])) for p, _n in _POSE_PROPS]
        steps += [(lambda o=o: setattr(o, "hide_viewport", False)) for o, _sel in self.hidden]
        steps += [(lambda o=o, sel=sel: o.select_set(sel)) for o, sel in self.hidden]
        steps.append(lambda: self.scene.frame_set(self.frame[0], subframe=self.frame[1]))
        first = None
        for step in steps:
            try:
                step()
            except Exception as e:  # keep restoring; the first failure is raised at the end
                first = first or e
        if first is not None:
            raise first


def _sample_worlds(bscene, arm, index, frames):
    """(K, J, 4, 4) float64 world matrices of the pose bones `index` (positions in arm.pose.bones; -1: the armature
    object itself) at frames."""
    pbs = arm.pose.bones
    buf = np.empty(len(pbs) * 16, np.float32)
    out = np.empty((len(frames), len(index), 4, 4))
    itself = index < 0
    for k, f in enumerate(frames):
        whole = math.floor(f)
        bscene.frame_set(int(whole), subframe=float(f - whole))
        pbs.foreach_get("matrix", buf)
        mats = buf.reshape(-1, 4, 4)[index].transpose(0, 2, 1).astype(np.float64)  # foreach_get: column by column
        mats[itself] = np.identity(4)
        out[k] = np.array(arm.matrix_world, np.float64) @ mats
    return out


# ------------------------------------------------------------------------------------------- the export step
def write_clips(context, scene, arm, wrapped=False, frame_zero=0.0, own=None):
    """Adds the armature's actions (module docstring) to `scene` (an api.Scene whose skeleton was made from arm's
    bones, in Blender's world frame; wrapped: its first joint is the armature object, the object's own motion its
    keys; frame_zero: the frame written at 0 s, 1 for FBX as Blender's FBX exporter writes a scene starting at frame
    1 and its importer reads it). own: (first joint, count) when the skeleton holds several armatures' joints, arm's
    those (the first its object's when wrapped); the others stay at rest in arm's clips. Returns (clip names written,
    notes)."""
    import time

    LAST_STATS.clear()
    sk = scene.skeleton
    if sk is None or arm is None or arm.animation_data is None:
        return [], []
    if not arm.animation_data.use_tweak_mode:  # nothing to write: leave the scene alone (no re-evaluation)
        actions, notes = clip_actions(arm)
        if not actions:
            return [], notes
    names = sk.names
    parents = np.asarray(sk.parents, np.int64)
    rest_local = sk.rest_local.astype(np.float64)
    rest_world = sk.rest_world.astype(np.float64)
    size = float(np.ptp(rest_world[:, :3, 3], axis=0).max()) if len(rest_world) else 0.0
    bscene = context.scene
    rs = bscene.render
    fps = rs.fps / rs.fps_base
    pose_index = {pb.name: i for i, pb in enumerate(arm.pose.bones)}
    first, count = own if own is not None else (0, len(names))
    mine = np.zeros(len(names), bool)
    mine[first:first + count] = True
    index = np.array([-1 if wrapped and j == first else pose_index[n] if mine[j] else -1
                      for j, n in enumerate(names)], np.int64)

    t0 = time.perf_counter()
    saved = _Saved(context, arm)
    clips, notes, sheared, hidden = [], [], set(), []
    keyed = np.zeros(len(names), bool)
    try:
        saved.begin()
        actions, notes = clip_actions(arm)
        if not actions:
            return [], notes
        hidden = deformed_meshes(context, arm)
        saved.hide(hidden)
        ad = arm.animation_data
        for action in actions:
            frames = sample_frames(action)
            saved.rest_pose()
            ad.action = action
            worlds = _sample_worlds(bscene, arm, index, frames)
            worlds[:, ~mine] = rest_world[~mine]  # another armature's joints: at rest
            local = locals_from_worlds(worlds, parents)
            trs, res = trs_from_locals(local)
            keyed |= moving_joints(local, rest_local, size)
            sheared.update(names[j] for j in np.nonzero((res > SHEAR_TOL).any(axis=0))[0])
            if frames[0] < frame_zero:
                notes.append("%s starts at frame %g: written from 0 s%s" % (
                    action.name, frames[0], " (frame %g in this format)" % frame_zero if frame_zero else ""))
                frames = frames - frames[0] + frame_zero
            clips.append((action.name, (frames - frame_zero) / fps, trs))
    finally:
        saved.restore()
    keyed &= mine
    if not keyed.any():
        keyed = (parents < 0) & mine
    for name, times, trs in clips:
        scene.add_animation(name, times, trs, keyed)
    written = [c[0] for c in clips]
    samples = sum(len(c[1]) for c in clips)
    if sheared:
        notes.append("%d joints have sheared poses in the clips (a non-uniform scale above a rotated bone), "
                     "written with the closest rotation and scale" % len(sheared))
    LAST_STATS.update(clips=list(written), samples=samples, seconds=time.perf_counter() - t0,
                      hidden=[o.name for o in hidden], keyed=[n for n, k in zip(names, keyed) if k])
    return written, notes


# ------------------------------------------------------------------------------------------- shape key clips
def _key_actions(key):
    """[(action, the name of an NLA track holding it or None)] of a Key datablock (shape keys): its active action,
    then each unmuted strip's action from the top track down, each once, as clip_actions takes an armature's."""
    ad = key.animation_data
    if ad is None:
        return []
    tracks = [(strip.action, track.name) for track in reversed(list(ad.nla_tracks))
              for strip in sorted(track.strips, key=lambda s: s.frame_start) if strip.action is not None]
    found = [(ad.action, next((t for a, t in tracks if a == ad.action), None))] if ad.action is not None else []
    for track in reversed(list(ad.nla_tracks)):
        for strip in sorted(track.strips, key=lambda s: s.frame_start):
            if strip.action is not None and not strip.mute and all(strip.action != a for a, _ in found):
                found.append((strip.action, track.name))
    return [(a, t) for a, t in found if any(fc.data_path.startswith("key_blocks[") for fc in a.fcurves)]


def _clip_of(action, track, obj_name, clips):
    """The clip (index in clips: name -> index) a shape key action belongs to: the one its NLA track is named after,
    else the one its name is "<clip>_<object>" of (Import via skinkit's and Blender's glTF importer's names), else
    the one named as the action itself; None when no clip is."""
    if track in clips:
        return clips[track]
    suffix = "_" + obj_name
    if action.name.endswith(suffix) and action.name[:-len(suffix)] in clips:
        return clips[action.name[:-len(suffix)]]
    return clips.get(action.name)


def _shape_weights(action, blocks, frames):
    """(len(frames), len(blocks)) float32: each shape key's value at the frames - its fcurve in action, evaluated,
    else its current value."""
    curves = {fc.data_path: fc for fc in action.fcurves if fc.array_index == 0}
    out = np.empty((len(frames), len(blocks)), np.float32)
    for t, kb in enumerate(blocks):
        fc = curves.get('key_blocks["%s"].value' % kb.name.replace("\\", "\\\\").replace('"', '\\"'))
        out[:, t] = [fc.evaluate(float(f)) for f in frames] if fc is not None else kb.value
    return out


def write_shape_key_clips(context, scene, shaped, frame_zero=0.0):
    """The shape key actions of the exported objects as the scene's blend shape keys (api.Scene.set_mesh_morph_keys,
    ABI 1.17). shaped: [(object, the scene meshes written of it)], whose shapes are its shape keys but the Basis and
    the muted ones (io_scene._shape_keys). An action goes to the clip _clip_of finds, sampled at that clip's key
    times; one that belongs to no clip becomes a clip of its own (named after its NLA track, else after it; no joint keyed), sampled at its
    frames as write_clips samples an armature's action. Times are frame / fps counted from frame_zero. Returns
    (names of the clips added, notes)."""
    rs = context.scene.render
    fps = rs.fps / rs.fps_base
    clips = {scene.animation_name(a): a for a in range(scene.animation_count)}
    added, notes = [], []
    for obj, meshes in shaped:
        key = obj.data.shape_keys
        if key is None or not meshes:
            continue
        blocks = [kb for kb in key.key_blocks if kb != kb.relative_key and not kb.mute]
        for action, track in _key_actions(key):
            a = _clip_of(action, track, obj.name, clips)
            if a is None and scene.skeleton is None:
                notes.append("shape key action %s not written: a clip needs an armature here" % action.name)
                continue
            if a is None:
                frames = sample_frames(action)
                times = np.maximum(frames - frame_zero, 0.0) / fps
                times, first = np.unique(times, return_index=True)
                frames = frames[first]
                rest = np.broadcast_to(scene.skeleton.rest_local, (len(times),) + scene.skeleton.rest_local.shape)
                name = track or action.name
                a = scene.add_animation(name, times, trs_from_locals(rest.astype(np.float64))[0],
                                        np.zeros(scene.skeleton.joint_count, bool))
                clips[name] = a
                added.append(name)
            else:
                times = scene.animation_key_times(a)
                frames = times * fps + frame_zero
            if not len(times):
                continue
            weights = _shape_weights(action, blocks, frames)
            for m in meshes:
                scene.set_mesh_morph_keys(m, a, times, weights)
    return added, notes
