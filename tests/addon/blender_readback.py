"""Blender reads back what skinkit writes: files exported by `skinkit convert` are imported with Blender's own
glTF and Collada importers and their vertex groups compared with the source weights.

Run: blender -b --factory-startup --python tests/addon/blender_readback.py --python-exit-code 1 -- SKINKIT_CLI WORKDIR
Prints `N passed, N failed` last; exit status 1 on any failure.
"""
import os
import subprocess
import sys

import bpy
import numpy

numpy.bool = bool  # Blender 3.4's bundled glTF importer uses np.bool, removed in Debian's numpy 1.24

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "..", "data", "cylinder_rig_drift.glb")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   %s" % name)
    else:
        failed += 1
        print("FAIL %s %s" % (name, detail))


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def skinned_mesh():
    meshes = [o for o in bpy.context.scene.objects if o.type == "MESH" and o.vertex_groups]
    return meshes[0] if meshes else None


def group_weights(obj):
    """{(rounded position), {group name: weight}} for every vertex of obj."""
    names = {g.index: g.name for g in obj.vertex_groups}
    out = {}
    for v in obj.data.vertices:
        key = tuple(round(c, 4) for c in v.co)
        out[key] = {names[g.group]: g.weight for g in v.groups if g.weight > 0.0}
    return out


def expected_normalized():
    """Weights of the drifted sample after normalization: each vertex's weights scaled to sum 1."""
    reset()
    bpy.ops.import_scene.gltf(filepath=SAMPLE)
    obj = skinned_mesh()
    src = group_weights(obj)
    return {k: {n: w / sum(ws.values()) for n, w in ws.items()} for k, ws in src.items() if ws}


def compare(name, got, want, tol):
    missing = [k for k in want if k not in got]
    worst = 0.0
    for k, ws in want.items():
        g = got.get(k, {})
        for n in set(ws) | set(g):
            worst = max(worst, abs(ws.get(n, 0.0) - g.get(n, 0.0)))
    check(name + ": every vertex present", not missing, "%d missing" % len(missing))
    check(name + ": weights within %g" % tol, worst <= tol, "worst difference %g" % worst)


def main(argv):
    cli, work = argv
    os.makedirs(work, exist_ok=True)
    want = expected_normalized()
    check("sample read by Blender's glTF importer", len(want) > 100, "%d weighted vertices" % len(want))
    for ext, importer in (("glb", lambda p: bpy.ops.import_scene.gltf(filepath=p)),
                          ("dae", lambda p: bpy.ops.wm.collada_import(filepath=p))):
        out = os.path.join(work, "readback." + ext)
        r = subprocess.run([cli, "convert", SAMPLE, out, "--normalize", "--force"], capture_output=True, text=True)
        check("convert to ." + ext, r.returncode == 0, r.stderr.strip())
        if r.returncode:
            continue
        reset()
        try:
            importer(out)
        except Exception as e:  # a file Blender cannot open is exactly what this test is for
            check("Blender imports ." + ext, False, repr(e))
            continue
        obj = skinned_mesh()
        check("Blender imports ." + ext + " with vertex groups", obj is not None)
        if obj is None:
            continue
        check("." + ext + " keeps both bone groups", sorted(g.name for g in obj.vertex_groups) == ["bone0", "bone1"],
              str([g.name for g in obj.vertex_groups]))
        arm = [o for o in bpy.context.scene.objects if o.type == "ARMATURE"]
        check("." + ext + " brings an armature", len(arm) == 1)
        got = group_weights(obj)
        # Collada keeps positions in the same frame here (identity roots), so vertices match by position.
        compare("." + ext + " normalized weights", got, want, 1e-3 if ext == "glb" else 1e-5)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    args = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if len(args) != 2:
        print("usage: blender -b --python blender_readback.py -- SKINKIT_CLI WORKDIR")
        sys.exit(2)
    sys.exit(main(args))
