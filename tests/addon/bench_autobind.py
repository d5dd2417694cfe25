"""Benchmark (by hand, not in CI): skinkit.auto_bind vs Blender's own Automatic Weights
(bpy.ops.object.parent_set(type='ARMATURE_AUTO')) on the same >= 40k-vertex cylinder with a 3-bone armature.

    SKINKIT_LIBRARY=build/libskinkit.so blender -b --factory-startup --python tests/addon/bench_autobind.py \\
        -- [--segments 200] [--rings 200] [--repeat 3] [--method robust] [--cubes 0]

Uses the addon from python_addon/ of this checkout (registered in-process, nothing installed). Each of --repeat
rounds runs both once on a fresh scene, the two taking turns to go first; prints the median [min - max] wall
time of each and of the per-round ratio, our split (medians; transfer in: vertices/triangles/groups to numpy; bind:
sk_bind; write back: vertex groups, modifier, parent) and last `BENCH addon_autobind_speedup <ratio> ratio`
(the median of the rounds' Blender time / ours; > 1 means skinkit is faster).
"""

import os
import statistics
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
    ours, splits, theirs, unweighted = [], [], [], []
    nverts = ntris = 0
    for r in range(rep_n):  # one run of each a round, the two taking turns to go first
        for who in (("ours", "theirs") if r % 2 == 0 else ("theirs", "ours")):
            obj, arm = S.cylinder_rig(segments=seg, rings=rings, cubes=cubes)
            S.select_for_parenting([obj], arm)
            bpy.context.view_layer.update()  # the new scene evaluated before timing
            nverts, ntris = len(obj.data.vertices), len(obj.data.polygons)
            t = time.perf_counter()
            if who == "ours":
                res = bpy.ops.skinkit.auto_bind(method=method)
                ours.append(time.perf_counter() - t)
                if res != {"FINISHED"}:
                    raise SystemExit("skinkit.auto_bind returned %s" % res)
                rep = operators.LAST_BIND_REPORTS[0]
                splits.append((rep["transfer_in"], rep["bind"], rep["write_back"], rep["milliseconds"] / 1e3))
            else:
                bpy.ops.object.parent_set(type="ARMATURE_AUTO")
                theirs.append(time.perf_counter() - t)
                w = S.weight_matrix(obj, ["b0", "b1", "b2"])
                unweighted.append(int((w.sum(axis=1) <= 0).sum()))
    med = statistics.median
    ratio = [t / o for o, t in zip(ours, theirs)]  # per round
    tin, tbind, tout, tlib = (med(x[i] for x in splits) for i in range(4))

    def spread(v, fmt="%.3f"):
        return (fmt + " [" + fmt + " - " + fmt + "]") % (med(v), min(v), max(v))

    print("scene: %d vertices, %d triangles, 3 bones, %d loose cubes; %d rounds (median [min - max])"
          % (nverts, ntris, cubes, rep_n))
    print("skinkit.auto_bind (%s): %s s  [medians: transfer in %.3f s, bind %.3f s (sk_bind %.3f s), write back"
          " %.3f s]" % (method, spread(ours), tin, tbind, tlib, tout))
    print("Blender ARMATURE_AUTO:      %s s  (%d of %d vertices left unweighted)"
          % (spread(theirs), max(unweighted), nverts))
    print("speedup (Blender / ours, per round): %s" % spread(ratio, "%.2f"))
    print("BENCH addon_autobind_speedup %.2f ratio" % med(ratio))
    sys.stdout.flush()


main()
