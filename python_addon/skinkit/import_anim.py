"""The clips of a file read through the library, as Blender Actions (Import via skinkit, import_scene.skinkit_assimp).

One Action per clip, named after it (Blender makes the name unique with .001 when taken), with the fcurves of Blender's
own importers: ``pose.bones["<bone>"].location`` / ``rotation_quaternion`` (w, x, y, z) / ``scale``, grouped per bone
(one action group named after the bone), every key LINEAR (the library samples translation and scale linearly and
rotation by slerp between keys; a linear quaternion fcurve is Blender's normalized lerp of the same keys, which
differs from the slerp by the cube of the angle between keys: 3e-6 of the model's size at 4.8 degrees a key). The pose
bones that get a rotation fcurve are set to QUATERNION rotation.

Keys: at the clip's key times (``Scene.animation_key_times``, the union over its joints), frame = t * fps with
fps = ``scene.render.fps / scene.render.fps_base``, not rounded (a 30 fps clip in a 24 fps scene keys sub-frames).
A clip whose keys start at 0 s starts at frame 0, as Blender 3.4's glTF importer places its keys (t * fps); from an
FBX file at frame t * fps + 1, as Blender's FBX importer places them (its Animation Offset; Blender's FBX exporter
writes frame f at (f - 1) / fps from a scene starting at frame 1, and so does Export via skinkit); the scene's
frame range is left alone, as Blender's glTF and FBX importers leave it.

Values: the pose bones are posed so that a mesh bound at the skeleton's bind matrices deforms like the file's linear
blend skinning (the rule of bridge.armature_from_skeleton): posed bone matrix P_j = W_j B_j^-1 R_j (W_j the joint's
world matrix in the clip, B_j its bind matrix, R_j the bone's rest matrix), so the pose bone's matrix_basis is
inv(R_p^-1 R_j) P_p^-1 P_j, which simplifies to R_j^-1 B_p L_j B_j^-1 R_j (L_j the joint's local TRS in the clip,
B_p the parent's bind matrix, identity for a root): one fixed matrix product per joint, all keys at once in numpy,
then split into location, quaternion (sign-continuous from key to key: no flip) and scale. A pose with shear (a
non-uniform scale above a rotated joint) cannot be a pose bone's location / rotation / scale; its rotation and scale
are the closest ones and the note returned says how many bones were approximated.

Channels written: a bone's location, rotation or scale is left out of every clip when each clip holds it constant
(within 1e-6 of the model's size, or 1e-6 for quaternions and scale) at the bone's rest value (location 0, rotation
identity, scale 1) and the pose bone holds it there too; any other channel is written in every clip (all keys where
the clip varies it, one key where the clip holds it still), so switching the active action never leaves a bone where
another clip put it, and an action overrides the File Rest Pose's pose bone values while it plays. The library does
not say which joints a clip keys, so "constant" is judged on the sampled values.

Keeping the clips (Blender 3.4's glTF importer's convention): every action is also stashed on an NLA track of the
armature named after the clip, locked and muted, the first clip's on top, so each action has a user and survives a
save and reload (no fake user, as the glTF importer); the first clip is the armature's active action. The strips
start at the action's first frame (the glTF importer starts them at the scene's start frame, one frame after its keys
start at frame 0: unmuting one of ours plays it on the frames of its keys).
"""

import numpy as np

ROT_TOL = 1e-6  # quaternion components and scale factors: constant / at rest within this
LOC_TOL = 1e-6  # times the model's size (the extent of the bind matrices' origins, at least 1)


# ------------------------------------------------------------------------------------------- numpy math
def trs_to_matrices(trs):
    """(..., 10) TRS (t xyz, quaternion x y z w, s xyz) -> (..., 4, 4) float64 matrices T R S. The quaternion is
    normalized; a zero one counts as identity (as sk_pose_local_from_trs)."""
    trs = np.asarray(trs, np.float64)
    t, q, s = trs[..., 0:3], trs[..., 3:7], trs[..., 7:10]
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    q = np.where(n > 1e-12, q / np.maximum(n, 1e-300), np.array([0.0, 0.0, 0.0, 1.0]))
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    m = np.zeros(trs.shape[:-1] + (4, 4))
    m[..., 0, 0] = 1 - 2 * (y * y + z * z)
    m[..., 0, 1] = 2 * (x * y - z * w)
    m[..., 0, 2] = 2 * (x * z + y * w)
    m[..., 1, 0] = 2 * (x * y + z * w)
    m[..., 1, 1] = 1 - 2 * (x * x + z * z)
    m[..., 1, 2] = 2 * (y * z - x * w)
    m[..., 2, 0] = 2 * (x * z - y * w)
    m[..., 2, 1] = 2 * (y * z + x * w)
    m[..., 2, 2] = 1 - 2 * (x * x + y * y)
    m[..., :3, :3] *= s[..., None, :]
    m[..., :3, 3] = t
    m[..., 3, 3] = 1.0
    return m


def quaternions_from_rotations(r):
    """(..., 3, 3) rotation matrices -> (..., 4) unit quaternions (w, x, y, z), Shepperd's method (the largest of
    w, x, y, z is found first, so no division by a small number)."""
    r = np.asarray(r, np.float64)
    m00, m11, m22 = r[..., 0, 0], r[..., 1, 1], r[..., 2, 2]
    tr = m00 + m11 + m22
    cands = np.stack([1 + tr, 1 + m00 - m11 - m22, 1 - m00 + m11 - m22, 1 - m00 - m11 + m22], -1)
    k = np.argmax(cands, -1)
    q = np.empty(r.shape[:-2] + (4,))
    d = {  # per case: the four components times 4 * the largest
        0: (cands[..., 0], r[..., 2, 1] - r[..., 1, 2], r[..., 0, 2] - r[..., 2, 0], r[..., 1, 0] - r[..., 0, 1]),
        1: (r[..., 2, 1] - r[..., 1, 2], cands[..., 1], r[..., 0, 1] + r[..., 1, 0], r[..., 0, 2] + r[..., 2, 0]),
        2: (r[..., 0, 2] - r[..., 2, 0], r[..., 0, 1] + r[..., 1, 0], cands[..., 2], r[..., 1, 2] + r[..., 2, 1]),
        3: (r[..., 1, 0] - r[..., 0, 1], r[..., 0, 2] + r[..., 2, 0], r[..., 1, 2] + r[..., 2, 1], cands[..., 3]),
    }
    for case, comps in d.items():
        sel = k == case
        if not np.any(sel):
            continue
        scale = 0.5 / np.sqrt(np.maximum(cands[..., case][sel], 1e-300))
        for i, c in enumerate(comps):
            q[..., i][sel] = c[sel] * scale
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    return q


def decompose(m):
    """(..., 4, 4) matrices -> (location (..., 3), quaternion (..., 4) w x y z, scale (..., 3), residual (...)):
    m = T R S as Blender composes a pose bone's matrix_basis. A negative determinant negates the scale; residual is
    the largest difference between m's 3x3 part and R S over the largest scale factor where m has shear (its scaled
    columns are not orthogonal within 1e-5; there R is the nearest rotation, the polar factor), else 0."""
    m = np.asarray(m, np.float64)
    loc = m[..., :3, 3].copy()
    a = m[..., :3, :3]
    s = np.linalg.norm(a, axis=-2)
    det = np.einsum("...i,...i->...", a[..., :, 0], np.cross(a[..., :, 1], a[..., :, 2]))
    s = np.where(det[..., None] < 0, -s, s)
    s_safe = np.where(np.abs(s) > 1e-300, s, 1.0)
    rot = a / s_safe[..., None, :]
    # a sheared matrix: the nearest rotation (polar factor, by SVD) for those only - R S gives orthonormal columns,
    # up to the float32 rounding of Blender's bone matrices (~1e-7), which the quaternion's normalization absorbs
    c0, c1, c2 = rot[..., :, 0], rot[..., :, 1], rot[..., :, 2]
    dots = [np.abs(np.einsum("...i,...i->...", x, y)) for x, y in ((c0, c1), (c0, c2), (c1, c2))]
    off = np.maximum(np.maximum(dots[0], dots[1]), dots[2]) > 1e-5
    residual = np.zeros(a.shape[:-2])
    if np.any(off):
        u, _sv, vt = np.linalg.svd(rot[off])
        rot[off] = u @ vt
        back = rot[off] * s[off][..., None, :]
        residual[off] = np.abs(back - a[off]).max(axis=(-2, -1)) / np.maximum(np.abs(s[off]).max(axis=-1), 1e-300)
    return loc, quaternions_from_rotations(rot), s, residual


def continuous_signs(q):
    """(K, ..., 4) quaternions along keys (axis 0) with signs chosen so that consecutive keys have a non-negative
    dot product (the shortest way between them), the first key with w >= 0."""
    q = np.array(q, np.float64)
    if not len(q):
        return q
    first = np.where(q[0, ..., :1] < 0, -1.0, 1.0)
    q[0] *= first
    if len(q) > 1:
        d = np.einsum("k...i,k...i->k...", q[1:], q[:-1])
        flips = np.cumprod(np.where(d < 0, -1.0, 1.0), axis=0)
        q[1:] *= flips[..., None]
    return q


def basis_factors(parents, bind, rest_bones):
    """(A (J, 4, 4), C (J, 4, 4)) with matrix_basis_j = A_j L_j C_j for the joint's local matrix L_j (module
    docstring): A_j = R_j^-1 B_p (R_j^-1 for a root), C_j = B_j^-1 R_j."""
    bind = np.asarray(bind, np.float64)
    rest = np.asarray(rest_bones, np.float64)
    inv_rest = np.linalg.inv(rest)
    parent_bind = np.stack([bind[p] if p >= 0 else np.eye(4) for p in parents]) if len(parents) else bind
    return inv_rest @ parent_bind, np.linalg.inv(bind) @ rest


def kept_locals(local, parents, kept):
    """(K, len(kept), 4, 4) local matrices of the joints that are bones: a bone whose parent joint is no bone (the
    armature node or a root above it, left out by the importer) takes its world in the clip, so the motion of the
    joints above it is kept."""
    world = {}
    out = local[:, kept].copy()
    bone = set(kept)
    for j, p in enumerate(parents):
        if j not in bone:
            world[j] = local[:, j] if p < 0 else world[p] @ local[:, j]
    for k, j in enumerate(kept):
        p = parents[j]
        if p >= 0 and p not in bone:
            out[:, k] = world[p] @ local[:, j]
    return out


def clip_tracks(scene, a, factors, parents=None, kept=None):
    """(times (K,), location (K, J, 3), quaternion (K, J, 4), scale (K, J, 3), residual (K, J)) of clip a, one
    sample_pose per key time, for the joints kept (all when None; parents: the skeleton's). K = 0 when the clip keys
    no joint."""
    times = np.asarray(scene.animation_key_times(a), np.float64)
    if not times.size:
        return times, None, None, None, None
    trs = np.stack([scene.sample_pose(a, float(t)) for t in times])
    local = trs_to_matrices(trs)
    if kept is not None:
        local = kept_locals(local, parents, kept)
    basis = factors[0][None] @ local @ factors[1][None]
    loc, q, s, res = decompose(basis)
    return times, loc, continuous_signs(q), s, res


# ------------------------------------------------------------------------------------------- bpy
_CHANNELS = (("location", 3), ("rotation_quaternion", 4), ("scale", 3))
_IDENTITY = (np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]), np.ones(3))


def _channel_state(values, ident, tol, quaternion=False):
    """(varies (J,), off_rest (J,)) of one channel's values (K, J, n) of a clip."""
    varies = np.abs(values - values[:1]).max(axis=(0, 2)) > tol
    first = values[0]
    dev = np.abs(first - ident).max(axis=-1)
    if quaternion:  # q and -q are the same rotation
        dev = np.minimum(dev, np.abs(first + ident).max(axis=-1))
    return varies, dev > tol


def _write_fcurve(action, path, index, group, frames, values, linear):
    fc = action.fcurves.new(path, index=index, action_group=group)
    n = len(frames)
    fc.keyframe_points.add(n)
    co = np.empty(2 * n, np.float32)
    co[0::2] = frames
    co[1::2] = values
    fc.keyframe_points.foreach_set("co", co)
    fc.keyframe_points.foreach_set("interpolation", np.full(n, linear, np.int32))
    fc.update()
    return fc


def _unique_names(names):
    seen, out = {}, []
    for i, n in enumerate(names):
        n = n or "clip%d" % i
        base, k = n, 1
        while n in seen:
            n = "%s.%03d" % (base, k)
            k += 1
        seen[n] = True
        out.append(n)
    return out


def stash_on_nla(obj, entries):
    """entries [(track name, start frame, action)] in clip order: each action on a locked, muted NLA track of obj
    named after its clip (the first clip's on top, Blender's glTF importer's convention), its strip starting at the
    action's first key; the first action is obj's active one."""
    ad = obj.animation_data or obj.animation_data_create()
    for name, start, action in reversed(entries):
        track = ad.nla_tracks.new(prev=None)
        track.name = name
        strip = track.strips.new(action.name, int(np.floor(start)), action)
        if strip.frame_start != start:  # a clip whose keys start between frames
            strip.frame_end += start - strip.frame_start
            strip.frame_start = start
        track.lock = True
        track.mute = True
    ad.action = entries[0][2]


def write_transform_keys(action, frames, loc, quat, scale, group, prefix=""):
    """LINEAR keys of location (K, 3), rotation_quaternion (K, 4: w x y z) and scale (K, 3) at frames (K,) into
    action, under data paths prefix + "location" and so on, in action group `group`."""
    import bpy

    linear = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items["LINEAR"].value
    for path, vals in (("location", loc), ("rotation_quaternion", quat), ("scale", scale)):
        for i in range(vals.shape[1]):
            _write_fcurve(action, prefix + path, i, group, frames, vals[:, i], linear)


def _channels_to_write(pbones, clips, tols):
    """Per channel (location, rotation, scale) a bool per bone: written when some clip varies it or holds it off
    rest, or the pose bone is off rest now."""
    current = (np.array([tuple(pb.location) for pb in pbones], np.float64).reshape(-1, 3),
               np.array([tuple(pb.rotation_quaternion) if pb.rotation_mode == "QUATERNION"
                         else tuple(pb.matrix_basis.to_quaternion()) for pb in pbones], np.float64).reshape(-1, 4),
               np.array([tuple(pb.scale) for pb in pbones], np.float64).reshape(-1, 3))
    write = []
    for c, (_path, _n) in enumerate(_CHANNELS):
        quat = c == 1
        _v, off = _channel_state(current[c][None], _IDENTITY[c], tols[c], quat)
        w = off.copy()
        for _name, _times, vals, _res in clips:
            varies, off = _channel_state(vals[c], _IDENTITY[c], tols[c], quat)
            w |= varies | off
        write.append(w)
    return write


def import_clips(context, scene, arm_obj, bone_names, arm_world=None, binds=None, frame_offset=0.0, suffix="",
                 keyed=None, only=None):
    """Creates one Action per clip of `scene` (an open api.Scene whose skeleton built arm_obj, bone_names[j] the bone
    of joint j, None for a joint that is no bone) on the armature object (module docstring). arm_world: the armature
    object's matrix in the file's frame (the armature node's rest world; identity when None), which the bones' rest
    matrices are relative to; binds: the joints' bind matrices in that frame (the skeleton's when None);
    frame_offset: added to every key's frame (1 for an FBX file, as Blender's FBX importer places keys); suffix: added
    to each action's name (one armature of several); keyed: a list the names of the clips made actions are appended
    to; only: the indices of the clips to consider (all when None; the others are not noted). Returns (actions in clip order, note or None: what was left out or approximated). A failure removes the
    actions made so far and raises."""
    import bpy

    sk = scene.skeleton
    all_parents = [int(p) for p in sk.parents]
    kept = [j for j, nm in enumerate(bone_names) if nm is not None]
    index = {j: k for k, j in enumerate(kept)}
    parents = [index.get(all_parents[j], -1) for j in kept]
    bone_names = [bone_names[j] for j in kept]
    bind = (sk.bind if binds is None else np.asarray(binds)).astype(np.float64)[kept]
    space = np.identity(4) if arm_world is None else np.asarray(arm_world, np.float64)
    rest_bones = np.stack([space @ np.array(arm_obj.data.bones[nm].matrix_local, np.float64) for nm in bone_names])
    extent = max(float(np.ptp(bind[:, :3, 3], axis=0).max()) if len(bind) else 0.0, 1.0)
    tols = (LOC_TOL * extent, ROT_TOL, ROT_TOL)
    factors = basis_factors(parents, bind, rest_bones)
    rs = context.scene.render
    fps = rs.fps / rs.fps_base

    clips, skipped = [], []
    for a in range(scene.animation_count) if only is None else sorted(only):
        times, loc, q, s, res = clip_tracks(scene, a, factors, all_parents, kept)
        name = scene.animation_name(a)
        if not times.size:
            skipped.append(name or "clip%d" % a)
            continue
        clips.append((name, times, (loc, q, s), res))
        if keyed is not None:
            keyed.append(name or "clip%d" % a)
    notes = []
    if skipped:
        notes.append("clips that key no bone left out: %s" % ", ".join(skipped))
    if not clips:
        return [], "; ".join(notes) or None

    pbones = [arm_obj.pose.bones[nm] for nm in bone_names]
    write = _channels_to_write(pbones, clips, tols)
    sheared = set()
    for _name, _times, _vals, res in clips:
        sheared.update(np.nonzero((res > 1e-4).any(axis=0))[0].tolist())
    if sheared:
        notes.append("%d bones have sheared poses (a non-uniform scale above a rotated joint), approximated by "
                     "rotation and scale" % len(sheared))

    for j in np.nonzero(write[1])[0]:
        pbones[j].rotation_mode = "QUATERNION"
    linear = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items["LINEAR"].value
    paths = [['pose.bones["%s"].%s' % (bpy.utils.escape_identifier(nm), p) for p, _n in _CHANNELS]
             for nm in bone_names]
    actions = []
    try:
        for name, (_clip, times, vals, _res) in zip(_unique_names([c[0] for c in clips]), clips):
            action = bpy.data.actions.new(name + suffix)
            action.id_root = "OBJECT"
            actions.append(action)
            frames = (times * fps + frame_offset).astype(np.float64)
            for j, bone in enumerate(bone_names):
                for c, (_p, n) in enumerate(_CHANNELS):
                    if not write[c][j]:
                        continue
                    v = vals[c][:, j]
                    varies = np.abs(v - v[:1]).max() > tols[c]
                    f, v = (frames, v) if varies else (frames[:1], v[:1])
                    for i in range(n):
                        _write_fcurve(action, paths[j][c], i, bone, f, v[:, i], linear)
        stash_on_nla(arm_obj, [(clip_name or action.name, float(times[0] * fps + frame_offset), action)
                               for (clip_name, times, _v, _r), action in zip(clips, actions)])
    except BaseException:
        for act in actions:
            try:
                bpy.data.actions.remove(act)
            except ReferenceError:
                pass
        raise
    return actions, "; ".join(notes) or None


def import_shape_key_clips(context, scene, shaped, frame_offset=0.0):
    """The clips' keys of blend shape weights (api.Scene.mesh_morph_keys) as shape key Actions, as Blender 3.4's glTF
    importer makes them: per clip and object one Action "<clip>_<object>" (id_root KEY) with an fcurve
    ``key_blocks["<shape>"].value`` per shape (group "ShapeKeys", LINEAR keys at t * fps + frame_offset, the clips'
    frames), stashed on muted NLA tracks of the object's shape keys named after the clips, the first one active.
    shaped: [(object, the scene meshes it was made of)], its shape keys a "Basis" then the file's shapes in order.
    Returns the actions made."""
    import bpy

    rs = context.scene.render
    fps = rs.fps / rs.fps_base
    linear = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items["LINEAR"].value
    made = []
    for obj, meshes in shaped:
        key = obj.data.shape_keys
        if key is None or len(key.key_blocks) < 2:
            continue
        entries = []
        for a in range(scene.animation_count):
            got = next((k for k in (scene.mesh_morph_keys(m, a) for m in meshes) if k is not None), None)
            if got is None:
                continue
            times, weights = got
            clip = scene.animation_name(a) or "clip%d" % a
            action = bpy.data.actions.new("%s_%s" % (clip, obj.name))
            action.id_root = "KEY"
            made.append(action)
            frames = times * fps + frame_offset
            for t, kb in enumerate(key.key_blocks[1:1 + weights.shape[1]]):
                path = 'key_blocks["%s"].value' % bpy.utils.escape_identifier(kb.name)
                _write_fcurve(action, path, 0, "ShapeKeys", frames, weights[:, t], linear)
                kb.slider_min = min(kb.slider_min, float(weights[:, t].min()))
                kb.slider_max = max(kb.slider_max, float(weights[:, t].max()))
            entries.append((clip, float(frames[0]), action))
        if entries:
            stash_on_nla(key, entries)
    return made
