"""run_mutants.py - replays damaged files (gen_mutants.py) through every CLI command and checks that each one
fails cleanly.

Usage: /usr/bin/python3 tests/hostile/run_mutants.py BUILD/skinkit [--dir MUTANTS] [--count N] [--jobs J]
Environment: SKINKIT_HOSTILE_COUNT (mutants per seed file, default 6; 300 = the whole generated set),
SKINKIT_HOSTILE_TIMEOUT (seconds per command, default 20), SKINKIT_HOSTILE_SEED (mutation seed, default 1).

Every model mutant goes through `info`, `info --json`, `validate --json -`, `convert` to .glb and to .dae, `pack`,
`weights --normalize`, `bind` and `weights --smooth 1` to .dae and to .fbx (the in-place editors for Collada and
binary FBX inputs); every .skf mutant through `info`, `info --json`, `unpack` and `unpack --json`;
each with `--timeout 5` (the commands' own limit on reading the file in their contained child).
For each run:
  * no exit by a signal (Python's returncode < 0) and no exit code >= 128 (a shell's way of saying the same);
  * no hang: the command ends within the timeout;
  * valid JSON on stdout from every --json run that exits 0, and always from `validate --json -` (it reports
    unreadable files as error rows);
  * no partial output: the output file is either absent or a complete file that `skinkit info` loads, and no
    other file (a temporary) is left beside it.
Each failure prints one line: the command, the mutant (with the mutations that made it) and the exit; the
summary line is "N runs, N failed". Exit status 1 when any run failed.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

MODEL_COMMANDS = [
    ("info", ["info", "{in}"], None),
    ("info --json", ["info", "{in}", "--json"], None),
    ("validate --json -", ["validate", "{in}", "--json", "-"], None),
    ("convert .glb", ["convert", "{in}", "{out}"], "out.glb"),
    ("convert .dae", ["convert", "{in}", "{out}"], "out.dae"),
    ("pack", ["pack", "{in}", "-o", "{out}"], "out.skf"),
    ("weights --normalize", ["weights", "{in}", "{out}", "--normalize"], "out.glb"),
    ("bind", ["bind", "{in}", "{out}", "--json"], "out.glb"),
    # a Collada or binary FBX input written in its own format goes through the in-place editors (io/dae_edit.c,
    # io/fbx_edit.c) with weights that really change
    ("weights --smooth .dae", ["weights", "{in}", "{out}", "--smooth", "1"], "out.dae"),
    ("weights --smooth .fbx", ["weights", "{in}", "{out}", "--smooth", "1"], "out.fbx"),
]
SKF_COMMANDS = [
    ("info", ["info", "{in}"], None),
    ("info --json", ["info", "{in}", "--json"], None),
    ("unpack", ["unpack", "{in}"], None),
    ("unpack --json", ["unpack", "{in}", "--json"], None),
]


CHILD_TIMEOUT = 5  # seconds: the commands' own limit on reading one file (--timeout)


def run_one(exe, name, argv, out_name, path, timeout):
    """None when the run behaved, else the reason."""
    work = tempfile.mkdtemp(prefix="skinkit-hostile-")
    try:
        out = os.path.join(work, out_name) if out_name else None
        # every command reads its input in a contained child; --timeout bounds that read well inside ours
        args = [exe] + [a.format(**{"in": path, "out": out}) for a in argv] + ["--timeout", str(CHILD_TIMEOUT)]
        try:
            p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, cwd=work)
        except subprocess.TimeoutExpired:
            return "hang: no exit within %g s" % timeout
        why = None
        if p.returncode < 0:
            why = "killed by signal %d" % -p.returncode
        elif p.returncode >= 128:
            why = "exit %d (>= 128)" % p.returncode
        elif "--json" in argv and (p.returncode == 0 or name.startswith("validate")):
            try:
                json.loads(p.stdout.decode("utf-8"))
            except (ValueError, UnicodeDecodeError) as e:
                why = "exit %d with invalid JSON on stdout (%s): %r" % (p.returncode, e, p.stdout[:120])
        if why is None and out_name:
            why = check_output(exe, work, out, p.returncode, timeout)
        if why:
            tail = p.stderr.decode("utf-8", "replace").strip().splitlines()[-2:]
            return "%s; stderr: %s" % (why, " | ".join(tail))
        return None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_output(exe, work, out, rc, timeout):
    left = sorted(set(os.listdir(work)) - {os.path.basename(out)})
    if left:
        return "exit %d left other files beside the output: %s" % (rc, ", ".join(left))
    if not os.path.exists(out):
        return None
    try:
        p = subprocess.run([exe, "info", out, "--timeout", str(CHILD_TIMEOUT)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "exit %d left an output that `skinkit info` hangs on" % rc
    if p.returncode != 0:
        return "exit %d left an output that `skinkit info` cannot load (%s)" % (
            rc, p.stderr.decode("utf-8", "replace").strip()[-160:])
    return None


def load_manifest(d):
    m = {}
    path = os.path.join(d, "manifest.txt")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                rel, _, what = line.strip().partition(" ")
                m[rel] = what
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cli")
    ap.add_argument("--dir", help="mutants from gen_mutants.py (default: generated into a temporary folder)")
    ap.add_argument("--count", type=int, default=int(os.environ.get("SKINKIT_HOSTILE_COUNT", "6")))
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("SKINKIT_HOSTILE_TIMEOUT", "20")))
    a = ap.parse_args()
    exe = os.path.abspath(a.cli)
    tmp = None
    d = a.dir
    if not d:
        tmp = tempfile.mkdtemp(prefix="skinkit-mutants-")
        d = tmp
        seed = os.environ.get("SKINKIT_HOSTILE_SEED", "1")
        subprocess.run([sys.executable, os.path.join(HERE, "gen_mutants.py"), exe, d, "--count", str(a.count),
                        "--seed", seed], check=True)
    manifest = load_manifest(d)
    jobs = []
    for sub in sorted(os.listdir(d)):
        folder = os.path.join(d, sub)
        if not os.path.isdir(folder):
            continue
        files = sorted(f for f in os.listdir(folder) if "_seed." not in f)[:a.count]
        for f in files:
            commands = SKF_COMMANDS if f.endswith(".skf") else MODEL_COMMANDS
            for name, argv, out_name in commands:
                jobs.append((name, argv, out_name, os.path.join(folder, f), os.path.join(sub, f)))
    failed = 0
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
            futures = {pool.submit(run_one, exe, name, argv, out_name, path, a.timeout): (name, rel)
                       for name, argv, out_name, path, rel in jobs}
            for fut in concurrent.futures.as_completed(futures):
                why = fut.result()
                if why:
                    name, rel = futures[fut]
                    failed += 1
                    print("FAIL skinkit %s: %s (%s): %s" % (name, rel, manifest.get(rel, "?"), why), flush=True)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%d runs, %d failed" % (len(jobs), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
