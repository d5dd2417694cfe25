"""What every headless Blender test script here shares (blender_test_*.py, run by run_blender_tests.sh as
`blender -b --factory-startup --python SCRIPT --python-exit-code 1 -- ZIP`): the zip argument, check / expect /
close, the addon's install, and the runner that prints `N passed, N failed` last and exits non-zero on failure.
SKINKIT_TEST_ONLY=<substring> runs only the tests whose names contain it (and the install)."""

import os
import sys
import traceback

import bpy

ARGV = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
ZIP = os.path.abspath(ARGV[0]) if ARGV else None
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "data"))
ASSETS = os.environ.get("SKINKIT_ASSETS") or None

RESULTS = []
NOTES = []


class Skip(Exception):
    pass


def check(name, fn):
    try:
        fn()
        RESULTS.append((name, True))
        print("PASS %s" % name)
    except Skip as s:
        print("SKIP %s: %s" % (name, s))
    except Exception:
        RESULTS.append((name, False))
        print("FAIL %s\n%s" % (name, traceback.format_exc()))


def expect(cond, msg):
    if not cond:
        raise AssertionError(msg)


def close(a, b, tol, msg):
    import numpy as np

    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    err = float(np.abs(a - b).max()) if a.size and a.shape == b.shape else 0.0
    expect(a.shape == b.shape and err <= tol, "%s: max error %.3g > %.3g (shapes %s, %s)"
           % (msg, err, tol, a.shape, b.shape))


def asset(rel):
    """The corpus file rel under SKINKIT_ASSETS; Skip when it is unset or lacks the file."""
    if not ASSETS:
        raise Skip("SKINKIT_ASSETS not set (%s)" % rel)
    path = os.path.join(ASSETS, rel)
    if not os.path.isfile(path):
        raise Skip("no %s" % path)
    return path


def reset_scene(*kinds):
    """Object mode, no objects, meshes or armatures, nor the data blocks of kinds (names of bpy.data collections:
    "actions", "materials", ...)."""
    if bpy.context.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj, do_unlink=True)
    for coll in [bpy.data.meshes, bpy.data.armatures] + [getattr(bpy.data, k) for k in kinds]:
        for block in list(coll):
            coll.remove(block)


def dense_groups(obj, names):
    """(V, len(names)) float64 weights of obj's vertex groups named names."""
    import numpy as np

    col = {g.index: names.index(g.name) for g in obj.vertex_groups if g.name in names}
    out = np.zeros((len(obj.data.vertices), len(names)))
    for v in obj.data.vertices:
        for ge in v.groups:
            k = col.get(ge.group)
            if k is not None:
                out[v.index, k] = ge.weight
    return out


def evaluated_world(obj):
    """(V, 3) float64 world positions of obj's evaluated mesh (modifiers and pose applied)."""
    import numpy as np

    dg = bpy.context.evaluated_depsgraph_get()
    ev = obj.evaluated_get(dg)
    me = ev.to_mesh()
    try:
        co = np.empty(len(me.vertices) * 3, np.float32)
        me.vertices.foreach_get("co", co)
    finally:
        ev.to_mesh_clear()
    mw = np.array(ev.matrix_world, np.float64)
    return co.reshape(-1, 3).astype(np.float64) @ mw[:3, :3].T + mw[:3, 3]


def install_enable():
    """Installs the zip given after `--` into the throw-away user scripts folder and enables it."""
    expect(ZIP and os.path.isfile(ZIP), "zip path argument missing or not a file: %r" % ZIP)
    bpy.ops.preferences.addon_install(filepath=ZIP, overwrite=True)
    bpy.ops.preferences.addon_enable(module="skinkit")
    expect("skinkit" in bpy.context.preferences.addons, "skinkit not enabled")


def run(tests, first=None, cleanup=None):
    """Runs tests (functions) in order; when `first` (the install test) fails, none after it. Prints the notes and
    `N passed, N failed`, calls cleanup, exits 1 on any failure."""
    import numpy

    if not hasattr(numpy, "bool"):  # Blender 3.4's bundled addons use np.bool, removed in numpy 1.24
        numpy.bool = bool
    only = os.environ.get("SKINKIT_TEST_ONLY")
    for t in tests:
        if only and t is not first and only not in t.__name__:
            continue
        check(t.__name__, t)
        if t is first and not RESULTS[-1][1]:
            break
    for n in NOTES:
        print("note: " + n)
    if cleanup is not None:
        cleanup()
    passed = sum(1 for _n, ok in RESULTS if ok)
    failed = len(RESULTS) - passed
    print("%d passed, %d failed" % (passed, failed))
    sys.stdout.flush()
    if failed:
        sys.exit(1)
