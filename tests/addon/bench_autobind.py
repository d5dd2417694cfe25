"""Benchmark (by hand, not in CI): skinkit.auto_bind vs Blender's own Automatic Weights
(bpy.ops.object.parent_set(type='ARMATURE_AUTO')) on the same >= 40k-vertex cylinder with a 3-bone armature.

    SKINKIT_LIBRARY=build/libskinkit.so blender -b --factory-startup --python tests/addon/bench_autobind.py \\
        -- [--segments 200] [--rings 200] [--repeat 3] [--method robust] [--cubes 0]

Uses the addon from python_addon/ of this checkout (registered in-process, nothing installed). Prints the best
wall time of each (fresh scene per run), our split (transfer in: vertices/triangles/groups to numpy; bind:
sk_bind; write back: vertex groups, modifier, parent) and last `BENCH addon_autobind_speedup <ratio> ratio`
(Blender's time / ours; > 1 means skinkit is faster).
"""

import os
import sys
import time

import bpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python_addon"))

import bpy_scenes as S  # noqa: E402


def arg(name, default, cast=int):
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    return cast(argv[argv.index(name) + 1]) if name in argv else default


def main():
    import numpy

    if not hasattr(numpy, "bool"):  # Blender 3.4's bundled addons use np.bool, removed in numpy 1.24
        numpy.bool = bool
    import skinkit

    skinkit.register()
    from skinkit import api, operators

    seg, rings, rep_n = arg("--segments", 200), arg("--rings", 200), arg("--repeat", 3)
    method, cubes = arg("--method", "robust", str), arg("--cubes", 0)
    print("library %s (%s), Blender %s" % (api.library().path, api.cpu_kernel(), bpy.app.version_string))
    ours, splits, theirs = [], [], []
    for _ in range(rep_n):
        obj, arm = S.cylinder_rig(segments=seg, rings=rings, cubes=cubes)
        S.select_for_parenting([obj], arm)
        t = time.perf_counter()
        res = bpy.ops.skinkit.auto_bind(method=method)
        ours.append(time.perf_counter() - t)
        if res != {"FINISHED"}:
            raise SystemExit("skinkit.auto_bind returned %s" % res)
        r = operators.LAST_BIND_REPORTS[0]
        splits.append((r["transfer_in"], r["bind"], r["write_back"], r["milliseconds"] / 1e3))
    nverts = len(obj.data.vertices)
    for _ in range(rep_n):
        obj, arm = S.cylinder_rig(segments=seg, rings=rings, cubes=cubes)
        S.select_for_parenting([obj], arm)
        t = time.perf_counter()
        bpy.ops.object.parent_set(type="ARMATURE_AUTO")
        theirs.append(time.perf_counter() - t)
    w = S.weight_matrix(obj, ["b0", "b1", "b2"])
    best = min(range(rep_n), key=lambda i: ours[i])
    tin, tbind, tout, tlib = splits[best]
    print("scene: %d vertices, %d triangles, 3 bones, %d loose cubes; %d runs each (best shown)"
          % (nverts, len(obj.data.polygons), cubes, rep_n))
    print("skinkit.auto_bind (%s): %.3f s  [transfer in %.3f s, bind %.3f s (sk_bind %.3f s), write back %.3f s;"
          " operator overhead %.3f s]" % (method, ours[best], tin, tbind, tlib, tout, ours[best] - tin - tbind - tout))
    print("Blender ARMATURE_AUTO:      %.3f s  (%d of %d vertices left unweighted)"
          % (min(theirs), int((w.sum(axis=1) <= 0).sum()), nverts))
    print("BENCH addon_autobind_speedup %.2f ratio" % (min(theirs) / ours[best]))
    sys.stdout.flush()


main()
