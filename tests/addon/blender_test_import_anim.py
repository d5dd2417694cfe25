"""Headless Blender tests of Import via skinkit's clips as Actions (python_addon/skinkit/import_anim.py), run by
run_blender_tests.sh:

    blender -b --factory-startup --python tests/addon/blender_test_import_anim.py --python-exit-code 1 -- ZIP

Exactness: at key times, between keys, before the first and after the last key, each clip's action (made active in
turn) deforms the imported meshes (depsgraph-evaluated, world space) like an independent numpy linear blend skinning
of the file: the library's positions, weights (normalized per vertex, as Blender's Armature modifier does; a vertex
without weight stays put) and per-mesh inverse bind matrices, joint world matrices from sample_pose composed through
the parents, the importer's root transform applied; within 1e-4 of the model's size. Files: tests/data/
animated_objects.fbx (a rest pose that differs from the bind pose, with and without File Rest Pose), a generated glTF
of 100 joints x 2000 keys (also timed), and with SKINKIT_ASSETS set x/Testwuson.X (3 clips) and b3d/character.b3d
(skipped with one line when it is unset). Also: key times land on frame t * fps / fps_base (sub-frames kept, a
29.97 fps scene), LINEAR keys grouped per bone, quaternion sign continuity, the first clip active, every clip on a
muted NLA track and still there after a save and reload, Animations off imports no action, a file without clips
makes none. Prints `N passed, N failed` last; exits non-zero on failure.
"""

import base64
import json
import math
import os
import shutil
import sys
import tempfile
import time

import bpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blender_harness import reset_scene as _reset_scene  # noqa: E402
from blender_harness import ASSETS, DATA, NOTES, asset, evaluated_world, expect, install_enable, run  # noqa: E402

TMP = tempfile.mkdtemp(prefix="skinkit_anim_")


# ------------------------------------------------------------------------------------------- scene helpers
def reset_scene():
    """No objects, clips, materials, cameras or lights; the scene at 24 fps on frame 1 (tests change both)."""
    _reset_scene("actions", "materials", "cameras", "lights")
    r = bpy.context.scene.render
    r.fps, r.fps_base = 24, 1.0
    bpy.context.scene.frame_set(1)


def import_file(path, **kw):
    import skinkit

    reset_scene()
    t0 = time.perf_counter()
    res = bpy.ops.import_scene.skinkit_assimp(filepath=path, **kw)
    seconds = time.perf_counter() - t0
    expect(res == {"FINISHED"}, "%s: import did not finish (%s)" % (path, res))
    info = dict(skinkit.io_scene.LAST_IMPORT)
    info["seconds"] = seconds
    FRAME_OFFSET[0] = info.get("frame_offset", 0.0)
    return info


def fps():
    r = bpy.context.scene.render
    return r.fps / r.fps_base


FRAME_OFFSET = [0.0]  # the last import's frame of 0 s (1 for FBX: Blender's FBX convention)


def set_time(t):
    f = t * fps() + FRAME_OFFSET[0]
    whole = math.floor(f)
    bpy.context.scene.frame_set(int(whole), subframe=float(f - whole))


class Reference:
    """The file's linear blend skinning, from the library alone (no addon code): per mesh with vertices, rest
    positions, dense normalized weights and the mesh's inverse bind matrices; joint world matrices of a clip at a
    time from sample_pose -> sk_pose_local_from_trs, composed through the parents in float64."""

    def __init__(self, path):
        import numpy as np

        from skinkit import api

        self.scene = api.Scene.load(path, skeleton_from_nodes=True)
        self.scene.weld()  # as Import via skinkit does (Merge Vertices)
        sk = self.scene.skeleton
        self.parents = [int(p) for p in sk.parents]
        self.meshes = []
        for m in range(self.scene.mesh_count):
            pos = self.scene.mesh_positions(m)
            if pos is None or not len(pos):
                continue
            skin = self.scene.mesh_skin(m)
            dense = None
            ib = None
            if skin is not None:
                off, jt, wt = skin.to_csr()
                dense = np.zeros((len(pos), sk.joint_count))
                rows = np.repeat(np.arange(len(pos)), np.diff(off.astype(np.int64)))
                np.add.at(dense, (rows, jt.astype(np.int64)), wt.astype(np.float64))
                sums = dense.sum(axis=1, keepdims=True)
                dense = np.where(sums > 0, dense / np.where(sums > 0, sums, 1.0), 0.0)
                ib = self.scene.mesh_inverse_binds(m)[0].astype(np.float64)
            self.meshes.append((pos.astype(np.float64), dense, ib))

    def world(self, a, t):
        import numpy as np

        from skinkit import api

        local = api.pose_local_from_trs(self.scene.sample_pose(a, t)).astype(np.float64)
        world = np.empty_like(local)
        for j, p in enumerate(self.parents):
            world[j] = local[j] if p < 0 else world[p] @ local[j]
        return world

    def positions(self, a, t, root):
        """[(V, 3)] world positions of the meshes at time t of clip a, root = the armature's world matrix."""
        import numpy as np

        world = self.world(a, t)
        out = []
        for pos, dense, ib in self.meshes:
            if dense is None:
                p = pos
            else:
                skinning = world @ ib  # (J, 4, 4)
                moved = np.einsum("jab,vb->vja", skinning[:, :3, :3], pos) + skinning[None, :, :3, 3]
                p = np.einsum("vj,vja->va", dense, moved)
                p = np.where(dense.sum(axis=1, keepdims=True) > 0, p, pos)
            out.append(p @ root[:3, :3].T + root[:3, 3])
        return out

    def close(self):
        self.scene.close()


def sample_times(times, count=6):
    """Key times (first, middle, last), points between keys (a quarter and half way) and times before the first and
    after the last key."""
    import numpy as np

    times = np.asarray(times, np.float64)
    out = [times[0], times[len(times) // 2], times[-1], times[0] - 0.05, times[-1] + 0.1]
    if len(times) > 1:
        idx = np.linspace(0, len(times) - 2, count).astype(int)
        for i in idx:
            for frac in (0.25, 0.5):
                out.append(times[i] + frac * (times[i + 1] - times[i]))
    return sorted(set(float(t) for t in out))


def check_exact(path, label, tol=1e-4, clips=None, **kw):
    """Imports path and compares every clip (or the clip indices given) at sample_times; returns the import info
    and the worst error relative to the model's size."""
    import numpy as np

    info = import_file(path, **kw)
    arm = bpy.data.objects[info["armature"]]
    objs = [bpy.data.objects[n] for n in info["meshes"]]
    ref = Reference(path)
    worst = 0.0
    try:
        n = ref.scene.animation_count
        expect(len(info["actions"]) == n, "%s: %d actions for %d clips" % (label, len(info["actions"]), n))
        expect(len(objs) == len(ref.meshes), "%s: %d mesh objects, %d meshes" % (label, len(objs), len(ref.meshes)))
        root = np.array(info["root"], np.float64)  # the file's frame -> Blender's world (the armature object: the
        # file's armature node there)
        for a in (range(n) if clips is None else clips):
            arm.animation_data.action = bpy.data.actions[info["actions"][a]]
            for bone in info["bones"]:  # no quaternion sign flip between consecutive keys
                q, _f = rotation_keys(arm.animation_data.action, bone)
                expect(q is None or np.all(np.einsum("ki,ki->k", q[1:], q[:-1]) >= 0),
                       "%s clip %d: sign flip between keys of %s" % (label, a, bone))
            times = ref.scene.animation_key_times(a)
            for t in sample_times(times):
                set_time(t)
                want = ref.positions(a, min(max(t, times[0]), times[-1]), root)
                allp = np.concatenate(want)
                size = max(float(np.linalg.norm(allp.max(axis=0) - allp.min(axis=0))), 1e-9)
                for obj, w in zip(objs, want):
                    got = evaluated_world(obj)
                    expect(got.shape == w.shape, "%s: %s has %d vertices, file %d" % (label, obj.name, len(got),
                                                                                      len(w)))
                    err = float(np.abs(got - w).max()) / size
                    worst = max(worst, err)
                    expect(err <= tol, "%s clip %d (%s) t=%.4f s: %s off by %.3g of the model's size (%.3g)"
                           % (label, a, info["actions"][a], t, obj.name, err, size))
    finally:
        ref.close()
    NOTES.append("%s: import %.3f s, %d clips, worst deviation %.2g of the model's size"
                 % (label, info["seconds"], len(info["actions"]), worst))
    return info, worst


def rotation_keys(action, bone):
    """(K, 4) keys of a bone's rotation_quaternion fcurves (w, x, y, z), and their frames."""
    import numpy as np

    fcs = [action.fcurves.find('pose.bones["%s"].rotation_quaternion' % bone, index=i) for i in range(4)]
    if any(fc is None for fc in fcs):
        return None, None
    cols, frames = [], None
    for fc in fcs:
        co = np.empty(2 * len(fc.keyframe_points), np.float32)
        fc.keyframe_points.foreach_get("co", co)
        cols.append(co[1::2])
        frames = co[0::2]
    return np.stack(cols, axis=1).astype(np.float64), frames


# ------------------------------------------------------------------------------------------- generated file
def write_big_gltf(path, chains=10, depth=10, keys=2000, rate=30.0, seed=7):
    """A .gltf of chains x depth joints (each chain from one root joint) with a mesh whose vertices sit along the
    bones, two influences each, and one clip of `keys` keys per joint (smooth rotations, the root translating and
    spinning turn after turn, some joints scaling uniformly)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    joints = 1 + chains * depth
    parents = [-1]
    trans = [np.zeros(3)]
    for c in range(chains):
        ang = 2 * math.pi * c / chains
        prev = 0
        for d in range(depth):
            parents.append(prev)
            prev = len(parents) - 1
            trans.append(np.array([math.cos(ang), 0.2, math.sin(ang)]) * 0.3 if d == 0 else np.array([0.0, 0.25, 0.0]))
    trans = np.array(trans)
    world = np.zeros((joints, 3))
    for j, p in enumerate(parents):
        world[j] = trans[j] + (world[p] if p >= 0 else 0)
    # mesh: 4 vertices around each bone's middle, weighted to the joint and its parent
    verts, jts, wts, tris = [], [], [], []
    for j in range(1, joints):
        p = parents[j]
        mid = 0.5 * (world[j] + world[p])
        base = len(verts)
        for k in range(4):
            a = k * math.pi / 2
            verts.append(mid + 0.05 * np.array([math.cos(a), 0.0, math.sin(a)]))
            w = 0.3 + 0.4 * rng.random()
            jts.append([j, p, 0, 0])
            wts.append([w, 1 - w, 0, 0])
        tris += [[base, base + 1, base + 2], [base, base + 2, base + 3]]
    verts = np.array(verts, np.float32)
    ibm = np.zeros((joints, 4, 4), np.float32)
    for j in range(joints):
        m = np.eye(4)
        m[:3, 3] = -world[j]
        ibm[j] = m.T  # column-major
    t = (np.arange(keys) / rate).astype(np.float32)
    phase = rng.random((joints, 3)) * 2 * math.pi
    freq = 0.3 + rng.random((joints, 3))
    rot = np.zeros((joints, keys, 4), np.float32)
    for j in range(joints):
        ax = np.stack([np.sin(freq[j, i] * t + phase[j, i]) for i in range(3)], 1) * 0.6
        angle = np.linalg.norm(ax, axis=1, keepdims=True)
        axis = ax / np.maximum(angle, 1e-9)
        rot[j] = np.concatenate([axis * np.sin(angle / 2), np.cos(angle / 2)], 1)
    spin = 2 * math.pi * 0.4 * t  # the root turns about +Y, 0.4 turns a second: w changes sign every 1.25 s
    rot[0] = np.stack([0 * t, np.sin(spin / 2), 0 * t, np.cos(spin / 2)], 1)
    root_t = np.stack([0.5 * np.sin(0.5 * t), 0.1 * np.sin(2 * t), 0.5 * np.cos(0.5 * t)], 1).astype(np.float32)
    scaled = list(range(5, joints, 17))
    scales = {j: np.repeat((1 + 0.2 * np.sin(0.7 * t + j))[:, None], 3, 1).astype(np.float32) for j in scaled}

    blob = bytearray()
    views, accessors = [], []

    def add(arr, comp, typ, count, target=None, minmax=False):
        data = np.ascontiguousarray(arr).tobytes()
        while len(blob) % 4:
            blob.append(0)
        view = {"buffer": 0, "byteOffset": len(blob), "byteLength": len(data)}
        if target:
            view["target"] = target
        blob.extend(data)
        views.append(view)
        acc = {"bufferView": len(views) - 1, "componentType": comp, "count": count, "type": typ}
        if minmax:
            a = np.asarray(arr).reshape(count, -1)
            acc["min"], acc["max"] = a.min(0).tolist(), a.max(0).tolist()
        accessors.append(acc)
        return len(accessors) - 1

    a_pos = add(verts, 5126, "VEC3", len(verts), 34962, True)
    a_j = add(np.array(jts, np.uint16), 5123, "VEC4", len(verts), 34962)
    a_w = add(np.array(wts, np.float32), 5126, "VEC4", len(verts), 34962)
    a_i = add(np.array(tris, np.uint32).reshape(-1), 5125, "SCALAR", len(tris) * 3, 34963)
    a_ibm = add(ibm, 5126, "MAT4", joints)
    a_t = add(t, 5126, "SCALAR", keys, minmax=True)
    nodes = []
    for j in range(joints):
        kids = [k for k, p in enumerate(parents) if p == j]
        nd = {"name": "joint%03d" % j, "translation": trans[j].tolist()}
        if kids:
            nd["children"] = kids
        nodes.append(nd)
    nodes.append({"name": "Mesh", "mesh": 0, "skin": 0})
    channels, samplers = [], []
    for j in range(joints):
        out = add(rot[j], 5126, "VEC4", keys)
        samplers.append({"input": a_t, "output": out, "interpolation": "LINEAR"})
        channels.append({"sampler": len(samplers) - 1, "target": {"node": j, "path": "rotation"}})
    tr = np.repeat(trans[None], keys, 0).astype(np.float32)
    tr[:, 0] += root_t
    out = add(tr[:, 0], 5126, "VEC3", keys)
    samplers.append({"input": a_t, "output": out, "interpolation": "LINEAR"})
    channels.append({"sampler": len(samplers) - 1, "target": {"node": 0, "path": "translation"}})
    for j, s in scales.items():
        out = add(s, 5126, "VEC3", keys)
        samplers.append({"input": a_t, "output": out, "interpolation": "LINEAR"})
        channels.append({"sampler": len(samplers) - 1, "target": {"node": j, "path": "scale"}})
    doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0, joints]}], "nodes": nodes,
           "meshes": [{"name": "Mesh", "primitives": [{"attributes": {"POSITION": a_pos, "JOINTS_0": a_j,
                                                                       "WEIGHTS_0": a_w}, "indices": a_i}]}],
           "skins": [{"joints": list(range(joints)), "inverseBindMatrices": a_ibm, "skeleton": 0}],
           "animations": [{"name": "Wave", "channels": channels, "samplers": samplers}],
           "buffers": [{"byteLength": len(blob),
                        "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(blob)).decode()}],
           "bufferViews": views, "accessors": accessors}
    with open(path, "w") as f:
        json.dump(doc, f)
    return joints, keys, 4 * joints + 3 + 3 * len(scales)  # fcurves: every rotation, the root's location, scales


# ------------------------------------------------------------------------------------------- tests
def test_install_enable():
    install_enable()
    props = bpy.ops.import_scene.skinkit_assimp.get_rna_type().properties
    expect("animations" in props and props["animations"].default is True, "no Animations option (default on)")


def test_numpy_math():
    """import_anim's TRS -> matrix agrees with the library's sk_pose_local_from_trs, decompose inverts it, and
    continuous_signs leaves no negative dot product."""
    import numpy as np

    from skinkit import api, import_anim

    rng = np.random.default_rng(3)
    trs = np.zeros((200, 10), np.float32)
    trs[:, 0:3] = rng.normal(size=(200, 3))
    trs[:, 3:7] = rng.normal(size=(200, 4))
    trs[:, 7:10] = np.repeat(rng.uniform(0.2, 3.0, size=(200, 1)), 3, 1)
    trs[:5, 7:10] = rng.uniform(0.2, 3.0, size=(5, 3))  # non-uniform, no shear on its own
    m = import_anim.trs_to_matrices(trs)
    expect(np.abs(m - api.pose_local_from_trs(trs)).max() < 1e-5, "TRS -> matrix differs from the library's")
    loc, q, s, res = import_anim.decompose(m)
    expect(res.max() < 1e-9, "decompose residual %.3g" % res.max())
    back = import_anim.trs_to_matrices(np.concatenate([loc, q[:, [1, 2, 3, 0]], s], 1))
    expect(np.abs(back - m).max() < 1e-9, "decompose does not invert: %.3g" % np.abs(back - m).max())
    qs = rng.normal(size=(50, 3, 4))
    qs /= np.linalg.norm(qs, axis=-1, keepdims=True)
    c = import_anim.continuous_signs(qs)
    expect(np.all(np.einsum("kji,kji->kj", c[1:], c[:-1]) >= 0), "a sign flip left")
    expect(np.allclose(np.abs(np.einsum("kji,kji->kj", c, qs)), 1.0), "continuous_signs changed a rotation")
    shear = np.eye(4)
    shear[0, 1] = 0.3  # a non-uniform scale above a rotation: no T R S holds it
    _l, _q, _s, res = import_anim.decompose(shear[None])
    expect(res[0] > 1e-2, "shear not reported (residual %.3g)" % res[0])


def test_fbx_exact_file_rest_pose():
    """animated_objects.fbx: bind pose != rest pose (the armature is posed in the file's rest pose), cm, one clip."""
    info, _worst = check_exact(os.path.join(DATA, "animated_objects.fbx"), "animated_objects.fbx")
    expect(info["actions"] == ["Scene"], "actions %s" % info["actions"])


def test_fbx_exact_without_file_rest_pose():
    """The same with File Rest Pose off: the action alone must pose every bone (the rest-pose channels it holds)."""
    check_exact(os.path.join(DATA, "animated_objects.fbx"), "animated_objects.fbx (no File Rest Pose)",
                file_rest_pose=False)


def test_fbx_bind_correction_matters():
    """Sensitivity: the same comparison against a reference that skips the bind correction (skinning = world
    matrices, no inverse bind) must fail - the exactness check can tell a wrong pose from a right one."""
    import numpy as np

    path = os.path.join(DATA, "animated_objects.fbx")
    info = import_file(path)
    arm = bpy.data.objects[info["armature"]]
    obj = bpy.data.objects[info["meshes"][0]]
    ref = Reference(path)
    try:
        pos, dense, ib = ref.meshes[0]
        ref.meshes[0] = (pos, dense, np.repeat(np.eye(4)[None], len(ib), 0))
        t = 0.8
        set_time(t)
        want = ref.positions(0, t, np.array(arm.matrix_world, np.float64))[0]
        size = float(np.linalg.norm(want.max(0) - want.min(0)))
        err = float(np.abs(evaluated_world(obj) - want).max()) / max(size, 1e-9)
        expect(err > 1e-2, "a reference without inverse binds matched too (%.3g)" % err)
    finally:
        ref.close()


def test_keys_frames_groups_signs():
    """Key frames = t * fps / fps_base (+ 1 for FBX, Blender's FBX convention) at 29.97 fps (sub-frames kept), LINEAR, one group per bone named after it,
    QUATERNION rotation mode, no quaternion sign flip, first clip active, NLA tracks."""
    import numpy as np

    from skinkit import api

    path = os.path.join(DATA, "animated_objects.fbx")
    reset_scene()
    r = bpy.context.scene.render
    r.fps, r.fps_base = 30, 1.001
    import skinkit

    expect(bpy.ops.import_scene.skinkit_assimp(filepath=path) == {"FINISHED"}, "import")
    info = dict(skinkit.io_scene.LAST_IMPORT)
    arm = bpy.data.objects[info["armature"]]
    with api.Scene.load(path) as sc:
        want = sc.animation_key_times(0) * (30 / 1.001) + FRAME_OFFSET[0]  # an FBX's 0 s is frame 1
    act = arm.animation_data.action
    expect(act is not None and act.name == info["actions"][0], "active action %s, want %s" % (act, info["actions"]))
    animated = 0
    linear = bpy.types.Keyframe.bl_rna.properties["interpolation"].enum_items["LINEAR"].value
    for fc in act.fcurves:
        n = len(fc.keyframe_points)
        co = np.empty(2 * n, np.float32)
        fc.keyframe_points.foreach_get("co", co)
        ipo = np.empty(n, np.int32)
        fc.keyframe_points.foreach_get("interpolation", ipo)
        expect(np.all(ipo == linear), "%s: keys not LINEAR" % fc.data_path)
        bone = fc.data_path.split('"')[1]
        expect(fc.group is not None and fc.group.name == bone, "%s: group %s" % (fc.data_path, fc.group))
        if n > 1:
            animated += 1
            expect(n == len(want) and np.abs(co[0::2] - want).max() < 1e-3,
                   "%s: frames %s..., want %s..." % (fc.data_path, co[0:8:2], want[:4]))
        else:
            expect(abs(co[0] - want[0]) < 1e-3, "%s: single key at %s, want %s" % (fc.data_path, co[0], want[0]))
    expect(animated >= 4, "only %d fcurves with several keys" % animated)
    expect(any(abs(f - round(f)) > 0.01 for f in want), "no sub-frame key in the check")
    q, _f = rotation_keys(act, "shin")
    expect(q is not None and len(q) == len(want), "shin has no rotation track")
    expect(np.all(np.einsum("ki,ki->k", q[1:], q[:-1]) >= 0), "sign flip between shin's keys")
    for pb in arm.pose.bones:
        if act.fcurves.find('pose.bones["%s"].rotation_quaternion' % pb.name) is not None:
            expect(pb.rotation_mode == "QUATERNION", "%s rotation mode %s" % (pb.name, pb.rotation_mode))
    tracks = arm.animation_data.nla_tracks
    expect([t.name for t in tracks] == ["Scene"], "tracks %s" % [t.name for t in tracks])
    expect(tracks[0].mute and tracks[0].lock and tracks[0].strips[0].action == act, "track not a muted stash")
    start = tracks[0].strips[0].frame_start
    expect(abs(start - want[0]) < 1e-3, "strip starts at %s" % start)


def test_animations_off_and_no_clips():
    import skinkit

    info = import_file(os.path.join(DATA, "animated_objects.fbx"), animations=False)
    arm = bpy.data.objects[info["armature"]]
    expect(info["actions"] == [] and not bpy.data.actions, "actions made with Animations off: %s"
           % [a.name for a in bpy.data.actions])
    expect(arm.animation_data is None or arm.animation_data.action is None, "armature has an action")
    info = import_file(os.path.join(DATA, "cylinder_rig.glb"))
    expect(info["armature"] and info["actions"] == [] and not bpy.data.actions, "actions from a file without clips")
    expect(skinkit.io_scene.LAST_IMPORT.get("clip_note") is None, "clip note without clips")


def test_big_generated():
    """100+ joints x 2000 keys: exact at a few times (one clip), and the time the clips take is noted."""
    import numpy as np

    from skinkit import api, import_anim

    path = os.path.join(TMP, "big.gltf")
    joints, keys, fcurves = write_big_gltf(path)
    info, _worst = check_exact(path, "big.gltf (%d joints x %d keys)" % (joints, keys))
    arm = bpy.data.objects[info["armature"]]
    act = arm.animation_data.action
    q, _f = rotation_keys(act, info["bones"][1])
    expect(q is not None and len(q) == keys, "joint 1 rotation: %s keys" % (None if q is None else len(q)))
    expect(np.all(np.einsum("ki,ki->k", q[1:], q[:-1]) >= 0), "sign flip")
    expect(len(act.fcurves) == fcurves, "%d fcurves, want %d (channels the clip never moves left out)"
           % (len(act.fcurves), fcurves))
    # the clip step alone, on the imported armature (its first action removed first)
    arm.animation_data_clear()
    for a in list(bpy.data.actions):
        bpy.data.actions.remove(a)
    with api.Scene.load(path) as sc:
        t0 = time.perf_counter()
        acts, _note = import_anim.import_clips(bpy.context, sc, arm, info["bones"])
        seconds = time.perf_counter() - t0
    nf = sum(len(a.fcurves) for a in acts)
    NOTES.append("big.gltf: import_clips %.3f s (%d joints x %d keys, %d fcurves), whole import %.3f s"
                 % (seconds, joints, keys, nf, info["seconds"]))


def test_corpus_testwuson():
    info, _w = check_exact(asset("x/Testwuson.X"), "Testwuson.X")
    expect(info["actions"] == ["Wuson_Run", "Wuson_Walk", "Wuson_Bind"], "actions %s" % info["actions"])
    arm = bpy.data.objects[info["armature"]]
    tracks = arm.animation_data.nla_tracks
    expect([t.name for t in reversed(tracks)] == info["actions"], "tracks (top first) %s"
           % [t.name for t in reversed(tracks)])
    expect(all(t.mute and t.lock for t in tracks), "a track neither muted nor locked")
    expect([t.strips[0].action.name for t in reversed(tracks)] == info["actions"], "strip actions")


def test_corpus_character_b3d():
    """Keys from 1/60 s: the action and its stashed strip start on a sub-frame (0.4 at 24 fps), unstretched."""
    from skinkit import api

    path = asset("b3d/character.b3d")
    info, _w = check_exact(path, "character.b3d")
    with api.Scene.load(path) as sc:
        first = sc.animation_key_times(0)[0] * fps()
    arm = bpy.data.objects[info["armature"]]
    act = bpy.data.actions[info["actions"][0]]
    strip = arm.animation_data.nla_tracks[0].strips[0]
    expect(abs(first - 0.4) < 1e-3 and abs(act.frame_range[0] - first) < 1e-3, "first key at frame %s, want %s"
           % (act.frame_range[0], first))
    expect(abs(strip.frame_start - first) < 1e-3 and abs(strip.scale - 1) < 1e-6
           and abs(strip.frame_end - act.frame_range[1]) < 1e-3, "strip %s-%s (scale %s), action %s"
           % (strip.frame_start, strip.frame_end, strip.scale, tuple(act.frame_range)))


def _shape_values(frames):
    """{(object, shape): [value at each frame]} of every shape key of every mesh object, as the active actions and
    NLA give them (the depsgraph evaluates the Key datablocks)."""
    out = {}
    for f in frames:
        bpy.context.scene.frame_set(int(f), subframe=float(f) - int(f))
        for o in bpy.data.objects:
            if o.type != "MESH" or not o.data.shape_keys:
                continue
            for kb in o.data.shape_keys.key_blocks[1:]:
                out.setdefault((o.name.split(".")[0], kb.name), []).append(kb.value)
    return out


def test_shape_key_clips():
    """tests/data/shape_key_anim.glb and .fbx (make_shape_key_anim.py: Bulge and Thin keyed over frames 1-21, a leg
    of two materials): Import via skinkit makes per clip a shape key action "<clip>_<object>" on the object's shape
    keys (id_root KEY, a LINEAR fcurve per shape, on a muted NLA track named after the clip; the first clip's
    active), and the shape key values it plays at frames 1 to 21 and between are those Blender's own importer of
    the file plays, within 1e-4. Animations off: none."""
    frames = [1, 3.5, 5, 8, 11, 14.25, 17, 21, 23]
    for name, own in (("shape_key_anim.glb", lambda p: bpy.ops.import_scene.gltf(filepath=p)),
                      ("shape_key_anim.fbx", lambda p: bpy.ops.import_scene.fbx(filepath=p))):
        path = os.path.join(DATA, name)
        reset_scene()
        own(path)
        for o in bpy.data.objects:  # Blender's glTF importer stashes every clip: play the shape keys' one
            sk = o.data.shape_keys if o.type == "MESH" else None
            if sk and sk.animation_data and not sk.animation_data.action and sk.animation_data.nla_tracks:
                sk.animation_data.action = sk.animation_data.nla_tracks[0].strips[0].action
        want = _shape_values(frames)
        info = import_file(path)
        got = _shape_values(frames)
        shape_actions = info.get("shape_actions", [])
        expect(len(shape_actions) == 1, "%s: shape key actions %s" % (name, shape_actions))
        expect(sorted(k[1] for k in got) == ["Bulge", "Thin"], "%s: shapes %s" % (name, sorted(got)))
        obj = next(o for o in bpy.data.objects if o.type == "MESH" and o.data.shape_keys)
        ad = obj.data.shape_keys.animation_data
        act = bpy.data.actions[shape_actions[0]]
        expect(act.id_root == "KEY" and ad.action == act and act.name.endswith("_" + obj.name),
               "%s: action %s on %s" % (name, act.name, ad.action))
        expect(sorted(fc.data_path for fc in act.fcurves) == ['key_blocks["Bulge"].value', 'key_blocks["Thin"].value']
               and all(k.interpolation == "LINEAR" for fc in act.fcurves for k in fc.keyframe_points),
               "%s: fcurves %s" % (name, [fc.data_path for fc in act.fcurves]))
        expect([t.name for t in ad.nla_tracks] and all(t.mute for t in ad.nla_tracks), "%s: NLA tracks" % name)
        for shape in ("Bulge", "Thin"):
            w = next(v for k, v in want.items() if k[1] == shape)
            g = next(v for k, v in got.items() if k[1] == shape)
            worst = max(abs(a - b) for a, b in zip(w, g))
            expect(worst < 1e-4, "%s: %s differs from Blender's import by %.3g: %s vs %s" % (name, shape, worst, g, w))
            if shape == "Bulge":
                expect(abs(g[4] - 1.0) < 1e-4 and abs(g[0]) < 1e-4, "%s: Bulge %s" % (name, g))
    info = import_file(os.path.join(DATA, "shape_key_anim.glb"), animations=False)
    expect(not info.get("shape_actions") and not bpy.data.actions, "Animations off: %s" % list(bpy.data.actions))


def test_save_reload_keeps_clips():
    """Every clip survives a save and reload (runs last: it replaces the open file)."""
    path = os.path.join(DATA, "animated_objects.fbx")
    rel = "x/Testwuson.X"
    if ASSETS and os.path.isfile(os.path.join(ASSETS, rel)):
        path = os.path.join(ASSETS, rel)
    info = import_file(path)
    names = info["actions"] + info.get("object_actions", [])  # (animated_objects.fbx: its objects' actions too)
    blend = os.path.join(TMP, "clips.blend")
    bpy.ops.wm.save_as_mainfile(filepath=blend)
    bpy.ops.wm.open_mainfile(filepath=blend)
    expect(sorted(a.name for a in bpy.data.actions) == sorted(names), "after reload: %s, want %s"
           % ([a.name for a in bpy.data.actions], names))
    arm = bpy.data.objects[info["armature"]]
    expect(arm.animation_data.action.name == names[0], "active action after reload: %s" % arm.animation_data.action)


def main():
    tests = [test_install_enable, test_numpy_math, test_fbx_exact_file_rest_pose,
             test_fbx_exact_without_file_rest_pose, test_fbx_bind_correction_matters, test_keys_frames_groups_signs,
             test_animations_off_and_no_clips, test_big_generated, test_corpus_testwuson, test_corpus_character_b3d,
             test_shape_key_clips, test_save_reload_keeps_clips]
    run(tests, first=test_install_enable, cleanup=lambda: shutil.rmtree(TMP, ignore_errors=True))


main()
