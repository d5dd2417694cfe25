"""The self-contained addon zip (build/skinkit_addon_linux_x86_64.zip) needs nothing from the system but the C/C++
runtime. Usage: /usr/bin/python3 test_bundle.py ZIP DATA_DIR [BLENDER]

1. Closure: every library the zip's libskinkit.so and skinkit/libs/* ask for (readelf -d NEEDED) is in the
   bundle or is the C/C++ runtime (glibc, libm, libpthread, libdl, librt, the loader, libstdc++, libgcc_s).
2. load_order.txt lists every bundled file once, each after the bundled libraries it needs.
3. A Python process loads the unpacked addon's library and does real work through every dependency (an FBX
   through Assimp, a Draco glTF, a heat bind through CHOLMOD/OpenBLAS); every bundled
   library it maps comes from the bundle unless the process had it before (the host's copy).
4. The same process, and headless Blender with the addon installed from the zip, in a private mount namespace
   where each bundled library's system copy is replaced by an empty file (skipped when namespaces are not
   allowed): the Debian packages' libraries are out of reach, so only the bundle can serve them.
Prints `ok`/`FAIL` lines and `N passed, N failed` last.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

RUNTIME = re.compile(r"^(ld-linux-x86-64\.so\.2|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|"
                     r"libstdc\+\+\.so\.6|libgcc_s\.so\.1)$")
RESULTS = {"passed": 0, "failed": 0}


def check(cond, what):
    RESULTS["passed" if cond else "failed"] += 1
    print("%s %s" % ("ok  " if cond else "FAIL", what), flush=True)
    return cond


def needed(path):
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def check_closure(pkg):
    libs = os.path.join(pkg, "libs")
    bundled = sorted(f for f in os.listdir(libs) if f != "load_order.txt")
    outside = {}
    for f in [os.path.join(pkg, "libskinkit.so")] + [os.path.join(libs, b) for b in bundled]:
        for n in needed(f):
            if n not in bundled and not RUNTIME.match(n):
                outside.setdefault(os.path.basename(f), []).append(n)
    check(not outside, "closure: %d bundled libraries; nothing needed outside the bundle but the C/C++ runtime%s" %
          (len(bundled), (" (outside: %s)" % outside) if outside else ""))
    with open(os.path.join(libs, "load_order.txt")) as f:
        order = [ln.strip() for ln in f if ln.strip()]
    late = [(b, n) for i, b in enumerate(order) for n in needed(os.path.join(libs, b))
            if n in order and order.index(n) > i]
    check(sorted(order) == bundled and not late,
          "load_order.txt lists each bundled library once, after what it needs%s" % (" (late: %s)" % late if late else ""))
    return bundled


CHILD = r'''
import json, os, sys
pkg_parent, data = sys.argv[1], sys.argv[2]
sys.path.insert(0, pkg_parent)
from skinkit import _ctypes as C
from skinkit import _bundle
lib = C.load_library(os.path.join(pkg_parent, "skinkit", "libskinkit.so"))
sources = dict(_bundle.preload(os.path.join(pkg_parent, "skinkit")))
from skinkit import api  # numpy after the bundle: its libblas.so.3 is the bundled one (or the host's)
import numpy as np
api.set_library_path(lib.path)
done = []
s = api.Scene.load(os.path.join(data, "rigid_parts.fbx"))
done.append("fbx: %d meshes" % s.mesh_count)
d = api.Scene.load(os.path.join(data, "cylinder_rig_draco.glb"))
done.append("draco: %d vertices" % d.mesh_vertex_count(0))
skin, rep = api.bind(d.mesh_positions(0), d.mesh_triangles(0), skeleton=d.skeleton, method="heat")
done.append("heat bind: %d vertices" % skin.vertex_count)
maps = sorted({ln.split(None, 5)[5].strip() for ln in open("/proc/self/maps") if len(ln.split(None, 5)) == 6})
print(json.dumps({"sources": sources, "done": done, "maps": maps}))
'''


def run_child(pkg_parent, data, wrap=()):
    r = subprocess.run(list(wrap) + ["/usr/bin/python3", "-c", CHILD, pkg_parent, data], capture_output=True,
                       text=True, timeout=300)
    if r.returncode != 0:
        return None, (r.stderr.strip()[-800:] or "exit %d" % r.returncode)
    return json.loads(r.stdout.strip().splitlines()[-1]), None


def check_sources(res, libs, what):
    bad = []
    for name, src in res["sources"].items():
        mapped = [m for m in res["maps"] if os.path.basename(m) == name and m.startswith(libs)]
        if src == "bundle" and not mapped:
            bad.append(name)
    host = sorted(n for n, s in res["sources"].items() if s == "host")
    check(not bad, "%s: %s; every bundled library it maps is the bundle's (the host's own: %s)%s" %
          (what, ", ".join(res["done"]), ", ".join(host) or "none", (" wrong: %s" % bad) if bad else ""))


def system_copies(bundled):
    """Real files of the system's copies of the bundled libraries (what the loader would find without us)."""
    out = {}
    for name in bundled:
        for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/usr/lib"):
            p = os.path.join(d, name)
            if os.path.exists(p):
                out[name] = os.path.realpath(p)
                break
    return out


def hide_wrapper(files):
    """argv prefix running a command in a private mount namespace with each file replaced by an empty one."""
    script = "".join("mount --bind /dev/null '%s' || exit 97\n" % f for f in sorted(set(files))) + 'exec "$@"\n'
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "hide"]


def namespaces_allowed():
    try:
        return subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                               "mount --bind /dev/null /dev/null"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def ldd_names(exe):
    out = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    return {ln.split()[0] for ln in out.splitlines() if ln.strip()}


BLENDER_SCRIPT = r'''
import os, sys, bpy
zip_path, data = sys.argv[sys.argv.index("--") + 1:][:2]
bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
bpy.ops.preferences.addon_enable(module="skinkit")
from skinkit import api, _bundle
lib = api.library()
d = api.Scene.load(os.path.join(data, "cylinder_rig_draco.glb"))
skin, rep = api.bind(d.mesh_positions(0), d.mesh_triangles(0), skeleton=d.skeleton, method="heat")
s = api.Scene.load(os.path.join(data, "rigid_parts.fbx"))
src = dict(_bundle.preload(os.path.dirname(lib.path)))
print("BUNDLE-OK %s %d %d %s" % (lib.path, skin.vertex_count, s.mesh_count,
      ",".join(sorted(n for n, v in src.items() if v == "bundle"))))
'''


def check_blender(blender, zip_path, data, bundled, tmp):
    copies = system_copies(bundled)
    mine = {n: f for n, f in copies.items() if n not in ldd_names(blender)}
    script = os.path.join(tmp, "bundle_blender.py")
    with open(script, "w") as f:
        f.write(BLENDER_SCRIPT)
    env = dict(os.environ, BLENDER_USER_SCRIPTS=os.path.join(tmp, "user_scripts"), SKINKIT_LIBRARY="")
    env.pop("SKINKIT_LIBRARY")
    r = subprocess.run(hide_wrapper(mine.values()) + [blender, "-b", "--factory-startup", "--python", script, "--",
                                                      zip_path, data], capture_output=True, text=True, env=env,
                       timeout=600)
    line = next((ln for ln in r.stdout.splitlines() if ln.startswith("BUNDLE-OK")), None)
    inside = line is not None and os.path.join(tmp, "user_scripts") in line
    check(r.returncode == 0 and inside,
          "Blender with the system copies of %d bundled libraries hidden (%s) installs the zip and loads, binds "
          "(heat) and reads FBX/Draco through it: %s" % (len(mine), ", ".join(sorted(mine)),
                                                          line or r.stderr.strip()[-600:] or r.stdout[-600:]))


def main():
    zip_path, data = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    blender = sys.argv[3] if len(sys.argv) > 3 and os.path.isfile(sys.argv[3]) else None
    tmp = tempfile.mkdtemp(prefix="skbundle-")
    try:
        with zipfile.ZipFile(zip_path) as z:
            z.extractall(tmp)
        pkg = os.path.join(tmp, "skinkit")
        for root, _dirs, files in os.walk(pkg):  # zip entries carry no mode bits here: make the libraries loadable
            for f in files:
                os.chmod(os.path.join(root, f), 0o755)
        bundled = check_closure(pkg)
        libs = os.path.join(pkg, "libs")
        res, err = run_child(tmp, data)
        if check(res is not None, "the unpacked addon's library loads in /usr/bin/python3%s" % (": " + err if err else "")):
            check_sources(res, libs, "python3")
        if not namespaces_allowed():
            print("skip namespace checks: unshare -m / mount --bind not allowed here")
        else:
            copies = system_copies(bundled)
            hide = {n: f for n, f in copies.items() if n not in ldd_names("/usr/bin/python3")}
            res, err = run_child(tmp, data, hide_wrapper(hide.values()))
            if check(res is not None, "python3 with the system copies of %d bundled libraries hidden loads it%s" %
                     (len(hide), (": " + err) if err else "")):
                check_sources(res, libs, "python3, system copies hidden")
            if blender:
                check_blender(blender, zip_path, data, bundled, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (RESULTS["passed"], RESULTS["failed"]))
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
