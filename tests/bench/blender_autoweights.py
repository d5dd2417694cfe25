"""Blender side of build/bench_bind: Blender 3.4's own automatic weights (Ctrl+P > With Automatic Weights,
bpy.ops.object.parent_set(type='ARMATURE_AUTO')) on the benchmark meshes, timed and exported.

    blender -b --factory-startup --python tests/bench/blender_autoweights.py -- JOBS.json

bench_bind writes JOBS.json ({"jobs": [...]}) and reads back, for every job, OUT.json (and OUT.f32). Job kinds:
  - "mesh": a generated mesh in a raw file (uint32 vertex_count, triangle_count, bone_count; float32 positions
    [3 V]; uint32 triangles [3 T]; float32 heads [3 B], tails [3 B]; int32 parents [B]) built here with
    foreach_set (same vertex order as ours), plus an armature with bones b0..b{B-1} on the same segments;
    ARMATURE_AUTO runs `repeat` times on a fresh copy (bench_bind asks for one, a Blender process per round).
  - "import": a corpus file (glTF/GLB, FBX, Collada) read with Blender's importer ("speed_only": true: timed only,
    nothing exported - the rounds of bench_bind's speed comparison). Every mesh object deformed by
    an armature loses its vertex groups and armature modifiers, then all of them are parented to the armature with
    automatic weights (one timed call). The weights are exported for bench_bind's vertices (float32 file OURS,
    3 per vertex, the order of bench_bind's concatenated meshes): Blender's importers move vertices into their
    own axes and units and split or merge vertices, so each of our vertices takes the weights of the nearest
    Blender vertex (mathutils.kdtree) after a similarity transform chosen among the 48 axis permutations and
    sign flips, scaled by the bounding-box diagonals and centred on the bounding boxes, tried on Blender's
    world and local coordinates: the candidate with the smallest mean nearest distance over a sample of 512 of
    our vertices wins; the match figures (mean and max distance over all vertices, in % of our bounding-box
    diagonal) are reported.
OUT.json: {"ok": bool, "error": str, "seconds": [wall, per run], "cpu_seconds": [process CPU, per run],
"blender_vertices": n, "unweighted": n (Blender
vertices without any weight after the call), "groups": [names], "match_mean_pct", "match_max_pct",
"match_space"}; OUT.f32: float32 [our_vertex_count x len(groups)] raw Blender weights (rows: our vertices);
OUT.groups: the group names, one per line (the columns of OUT.f32).
"""

import itertools
import json
import os
import sys
import time
import traceback

import bpy
import numpy as np

if "bool" not in vars(np):  # Blender 3.4's bundled glTF importer uses np.bool, removed in numpy 1.24
    np.bool = bool

from mathutils import Vector  # noqa: E402
from mathutils.kdtree import KDTree  # noqa: E402


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def select_for_parenting(mesh_objs, arm_obj):
    for o in bpy.context.scene.objects:
        o.select_set(False)
    for o in mesh_objs:
        o.select_set(True)
    arm_obj.select_set(True)
    bpy.context.view_layer.objects.active = arm_obj


def timed_autoweights(mesh_objs, arm_obj, res):
    """Runs ARMATURE_AUTO once; appends its wall and process CPU time to res["seconds"] / res["cpu_seconds"]."""
    select_for_parenting(mesh_objs, arm_obj)
    c = time.process_time()
    t = time.perf_counter()
    ret = bpy.ops.object.parent_set(type="ARMATURE_AUTO")
    res["seconds"].append(time.perf_counter() - t)
    res["cpu_seconds"].append(time.process_time() - c)
    if ret != {"FINISHED"}:
        raise RuntimeError("parent_set(ARMATURE_AUTO) returned %s" % ret)


def unweighted_count(objs):
    n = 0
    for o in objs:
        for v in o.data.vertices:
            if not any(g.weight > 0.0 for g in v.groups):
                n += 1
    return n


# ------------------------------------------------------------------------------------------ generated meshes
def read_mesh_file(path):
    raw = open(path, "rb").read()
    nv, nt, nb = np.frombuffer(raw, np.uint32, 3)
    o = 12
    pos = np.frombuffer(raw, np.float32, 3 * nv, o).reshape(-1, 3)
    o += 12 * nv
    tri = np.frombuffer(raw, np.uint32, 3 * nt, o).reshape(-1, 3)
    o += 12 * nt
    heads = np.frombuffer(raw, np.float32, 3 * nb, o).reshape(-1, 3)
    o += 12 * nb
    tails = np.frombuffer(raw, np.float32, 3 * nb, o).reshape(-1, 3)
    o += 12 * nb
    parents = np.frombuffer(raw, np.int32, nb, o)
    return pos, tri, heads, tails, parents


def build_generated(pos, tri, heads, tails, parents):
    reset()
    me = bpy.data.meshes.new("bench")
    me.vertices.add(len(pos))
    me.vertices.foreach_set("co", pos.reshape(-1))
    me.loops.add(tri.size)
    me.loops.foreach_set("vertex_index", tri.reshape(-1).astype(np.int32))
    me.polygons.add(len(tri))
    me.polygons.foreach_set("loop_start", np.arange(0, tri.size, 3, dtype=np.int32))
    me.polygons.foreach_set("loop_total", np.full(len(tri), 3, np.int32))
    me.update(calc_edges=True)
    me.validate()
    obj = bpy.data.objects.new("BenchMesh", me)
    bpy.context.scene.collection.objects.link(obj)
    arm = bpy.data.armatures.new("rig")
    arm_obj = bpy.data.objects.new("Rig", arm)
    bpy.context.scene.collection.objects.link(arm_obj)
    for o in bpy.context.scene.objects:
        o.select_set(False)
    bpy.context.view_layer.objects.active = arm_obj
    bpy.ops.object.mode_set(mode="EDIT")
    ebs = []
    for i in range(len(heads)):
        eb = arm.edit_bones.new("b%d" % i)
        eb.head = tuple(float(c) for c in heads[i])
        eb.tail = tuple(float(c) for c in tails[i])
        if parents[i] >= 0:
            eb.parent = ebs[parents[i]]
        ebs.append(eb)
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.context.view_layer.update()
    return obj, arm_obj


def run_mesh_job(job, res):
    pos, tri, heads, tails, parents = read_mesh_file(job["mesh"])
    for _ in range(int(job.get("repeat", 1))):
        obj, arm_obj = build_generated(pos, tri, heads, tails, parents)
        timed_autoweights([obj], arm_obj, res)
        res["unweighted"] = unweighted_count([obj])
    res["blender_vertices"] = len(pos)


# ------------------------------------------------------------------------------------------ corpus files
def import_file(path):
    ext = os.path.splitext(path)[1].lower()
    if ext in (".glb", ".gltf"):
        bpy.ops.import_scene.gltf(filepath=path)
    elif ext == ".fbx":
        bpy.ops.import_scene.fbx(filepath=path)
    elif ext == ".dae":
        bpy.ops.wm.collada_import(filepath=path)
    else:
        raise RuntimeError("Blender has no importer for %s" % ext)


def deformed_meshes():
    """(mesh objects deformed by an armature, that armature object)."""
    meshes, arm = [], None
    for o in bpy.context.scene.objects:
        if o.type != "MESH":
            continue
        mods = [m for m in o.modifiers if m.type == "ARMATURE" and m.object is not None]
        if mods or (o.parent is not None and o.parent.type == "ARMATURE" and o.vertex_groups):
            meshes.append(o)
            if arm is None:
                arm = mods[0].object if mods else o.parent
    if arm is None:
        arms = [o for o in bpy.context.scene.objects if o.type == "ARMATURE"]
        arm = arms[0] if arms else None
    return meshes, arm


def strip_weights(objs):
    for o in objs:
        for m in [m for m in o.modifiers if m.type == "ARMATURE"]:
            o.modifiers.remove(m)
        o.vertex_groups.clear()


def blender_points(objs, world):
    chunks = []
    for o in objs:
        n = len(o.data.vertices)
        co = np.empty(3 * n, np.float64)
        o.data.vertices.foreach_get("co", co)
        co = co.reshape(-1, 3)
        if world:
            m = np.array(o.matrix_world)
            co = co @ m[:3, :3].T + m[:3, 3]
        chunks.append(co)
    return np.concatenate(chunks) if chunks else np.zeros((0, 3))


def dense_weights(objs):
    """(V_blender x G) float32 raw weights over the union of group names, and the names."""
    names = []
    for o in objs:
        for g in o.vertex_groups:
            if g.name not in names:
                names.append(g.name)
    col = {n: i for i, n in enumerate(names)}
    total = sum(len(o.data.vertices) for o in objs)
    w = np.zeros((total, len(names)), np.float32)
    base = 0
    for o in objs:
        gmap = {g.index: col[g.name] for g in o.vertex_groups}
        for v in o.data.vertices:
            for ge in v.groups:
                w[base + v.index, gmap[ge.group]] = ge.weight
        base += len(o.data.vertices)
    return w, names


def kdtree(points):
    kd = KDTree(len(points))
    for i, p in enumerate(points):
        kd.insert(Vector(p), i)
    kd.balance()
    return kd


def best_transform(ours, theirs, kd):
    """Similarity (axis permutation with signs, uniform scale, translation) taking our points to Blender's:
    (mean nearest distance over a sample, function mapping (N, 3) arrays)."""
    lo_o, hi_o = ours.min(0), ours.max(0)
    lo_t, hi_t = theirs.min(0), theirs.max(0)
    c_o, c_t = (lo_o + hi_o) / 2, (lo_t + hi_t) / 2
    d_o, d_t = np.linalg.norm(hi_o - lo_o), np.linalg.norm(hi_t - lo_t)
    s = d_t / d_o if d_o > 0 else 1.0
    rng = np.random.default_rng(1)
    sample = ours[rng.choice(len(ours), min(len(ours), 512), replace=False)]
    best = (np.inf, None)
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1.0, -1.0), repeat=3):
            r = np.zeros((3, 3))
            for i in range(3):
                r[i, perm[i]] = signs[i]

            def f(p, r=r):
                return (p - c_o) @ r.T * s + c_t

            mapped = f(sample)
            dist = np.mean([kd.find(Vector(p))[2] for p in mapped])
            if dist < best[0]:
                best = (dist, f)
    return best


def run_import_job(job, res):
    reset()
    import_file(job["file"])
    objs, arm = deformed_meshes()
    if not objs or arm is None:
        raise RuntimeError("no armature-deformed mesh after import")
    strip_weights(objs)
    timed_autoweights(objs, arm, res)
    res["unweighted"] = unweighted_count(objs)
    res["blender_vertices"] = sum(len(o.data.vertices) for o in objs)
    if job.get("speed_only"):  # a round of bench_bind's speed comparison: the time is all it needs
        return
    w, names = dense_weights(objs)
    res["groups"] = names
    ours = np.fromfile(job["ours"], np.float32).reshape(-1, 3).astype(np.float64)
    diag = float(np.linalg.norm(ours.max(0) - ours.min(0))) or 1.0
    best = None
    for space in ("world", "local"):
        theirs = blender_points(objs, space == "world")
        kd = kdtree(theirs)
        dist, f = best_transform(ours, theirs, kd)
        if best is None or dist < best[0]:
            best = (dist, f, kd, space, theirs)
    _, f, kd, space, theirs = best
    mapped = f(ours)
    idx = np.empty(len(ours), np.int64)
    dist = np.empty(len(ours))
    for i, p in enumerate(mapped):
        _, idx[i], dist[i] = kd.find(Vector(p))
    # distances in our units: undo the scale of the transform
    scale = np.linalg.norm(theirs.max(0) - theirs.min(0)) / diag
    dist /= scale if scale > 0 else 1.0
    res["match_space"] = space
    res["match_mean_pct"] = float(100.0 * dist.mean() / diag)
    res["match_max_pct"] = float(100.0 * dist.max() / diag)
    np.ascontiguousarray(w[idx], np.float32).tofile(job["out"] + ".f32")
    with open(job["out"] + ".groups", "w", encoding="utf-8") as fh:
        fh.write("".join(n.replace("\n", " ") + "\n" for n in names))


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    jobs = json.load(open(argv[0]))["jobs"]
    print("blender_autoweights: Blender %s, %d job(s)" % (bpy.app.version_string, len(jobs)))
    for job in jobs:
        res = {"ok": False, "error": "", "seconds": [], "cpu_seconds": [], "groups": [], "unweighted": 0}
        try:
            (run_mesh_job if job["kind"] == "mesh" else run_import_job)(job, res)
            res["ok"] = True
        except Exception as e:  # one job's failure is reported, the others still run
            traceback.print_exc()
            res["error"] = "%s: %s" % (type(e).__name__, e)
        with open(job["out"] + ".json", "w") as fh:
            json.dump(res, fh)
        print("blender_autoweights: %s %s %s" % (job["name"], "ok" if res["ok"] else "FAILED " + res["error"],
                                                 " ".join("%.3f s" % t for t in res["seconds"])))
        sys.stdout.flush()


main()
