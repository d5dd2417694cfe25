"""skinkit.batch on a real Dask cluster (issue 19): `dask scheduler` + two `dask worker` processes on 127.0.0.1.

  1. validate a generated tree of >= 2,000 files (tests/data copies, corpus copies when SKINKIT_ASSETS is set,
     truncated / random / empty files), SIGKILL one worker mid-run: the job completes, its report equals the
     single-machine `skinkit validate --json` of the same tree row for row (and byte for byte), every file is in
     exactly one --jsonl piece, no temporary file is left; --resume reuses every piece, redoes a touched one;
  2. a file whose task kills its worker (a test double of the CLI) becomes one error row, not an endless retry;
  3. pack and convert a ~100-file tree, SIGKILL a worker mid-run each time: every file the CLI handles has exactly
     one output, byte-identical to the CLI's own, the others an error row and no output; nothing partial left.

Usage: /usr/bin/python3 tests/batch/test_batch.py SKINKIT_CLI   (SKINKIT_LIBRARY: the library; needs
python3-distributed). Prints what it checked and `N passed, N failed` last; exit 1 on a failure.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import batch_tree  # noqa: E402

PY = sys.executable
ENV = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python_addon"), PYTHONWARNINGS="ignore")
RESULTS = {"passed": 0, "failed": 0}


def check(cond, what):
    RESULTS["passed" if cond else "failed"] += 1
    print("%s %s" % ("ok  " if cond else "FAIL", what), flush=True)
    return cond


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dask_cmd(role):
    exe = shutil.which("dask")
    return [exe, role] if exe else [PY, "-m", "distributed.cli.dask_" + role]


class Cluster:
    """`dask scheduler` and `dask worker` processes (no nanny: SIGKILL of a worker's pid kills the worker)."""

    def __init__(self, tmp):
        self.tmp = tmp
        port = free_port()
        self.addr = "tcp://127.0.0.1:%d" % port
        self.log = open(os.path.join(tmp, "cluster.log"), "ab")
        self.sched = subprocess.Popen(dask_cmd("scheduler") + ["--host", "127.0.0.1", "--port", str(port),
                                      "--dashboard-address", "127.0.0.1:%d" % free_port()],
                                      stdout=self.log, stderr=self.log, env=ENV)
        self.workers = []

    def add_worker(self):
        w = subprocess.Popen(dask_cmd("worker") + [self.addr, "--nthreads", "1", "--no-nanny", "--host", "127.0.0.1",
                             "--no-dashboard", "--local-directory", self.tmp],
                             stdout=self.log, stderr=self.log, env=ENV)
        self.workers.append(w)
        return w

    def wait(self, n):
        from distributed import Client

        with Client(self.addr, timeout="60s") as c:
            c.wait_for_workers(n, timeout=120)

    def close(self):
        for p in self.workers + [self.sched]:
            if p.poll() is None:
                p.terminate()
        for p in self.workers + [self.sched]:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.log.close()


def batch(args, wait=True, **kw):
    cmd = [PY, "-m", "skinkit.batch"] + args
    kw.setdefault("env", ENV)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    if not wait:
        return p
    out, err = p.communicate()
    return p.returncode, out.decode(), err.decode()


def kill_when(p, count_fn, at, worker, what):
    """SIGKILLs worker once count_fn() >= at while the batch p still runs; True when it did so mid-run."""
    while p.poll() is None:
        if count_fn() >= at:
            worker.send_signal(signal.SIGKILL)
            worker.wait()
            return check(p.poll() is None, "%s: a worker was SIGKILLed mid-run (after %d done)" % (what, count_fn()))
        time.sleep(0.05)
    return check(False, "%s: the job ended before the worker could be killed" % what)


def path_key(row):
    """The key of a `validate` row that holds the file's path (found, not assumed: the JSON schema may evolve)."""
    return next(k for k, v in row.items() if isinstance(v, str) and os.path.isfile(v))


def leftovers(root):
    return [os.path.join(d, n) for d, ds, fs in os.walk(root) for n in fs + ds
            if n.startswith(".skbatch") or ".skbatch-tmp" in d]


# ------------------------------------------------------------------------------------------- validate
def test_validate(cli, cl, tmp):
    tree = os.path.join(tmp, "tree")
    n = batch_tree.make_tree(tree, 2100, corpus_copies=2)
    check(n >= 2000, "generated a tree of %d files" % n)
    t0 = time.monotonic()
    ref = subprocess.run([cli, "validate", tree, "--json", os.path.join(tmp, "ref.json")], capture_output=True)
    t_cli = time.monotonic() - t0
    pieces = os.path.join(tmp, "pieces")
    out = os.path.join(tmp, "batch.json")
    t0 = time.monotonic()
    p = batch(["validate", tree, "--scheduler", cl.addr, "--json", out, "--jsonl", pieces, "--shard-size", "25",
               "--skinkit", cli], wait=False)
    count = lambda: len([f for f in os.listdir(pieces) if f.endswith(".jsonl")]) if os.path.isdir(pieces) else 0
    kill_when(p, count, 10, cl.workers[0], "validate")
    so, se = p.communicate()
    t_batch = time.monotonic() - t0
    print("single-machine CLI %.1f s, batch on the cluster (one worker killed) %.1f s" % (t_cli, t_batch))
    check(p.returncode == ref.returncode, "exit status %d equals the CLI's %d" % (p.returncode, ref.returncode))
    check("dashboard http" in se.decode(), "the dashboard address is printed")
    a, b = json.load(open(out)), json.load(open(os.path.join(tmp, "ref.json")))
    same_rows = len(a["files"]) == len(b["files"]) and all(x == y for x, y in zip(a["files"], b["files"]))
    if not same_rows:
        bad = next((i for i, (x, y) in enumerate(zip(a["files"], b["files"])) if x != y), None)
        print("first difference at row %s: %s\n  vs %s" % (bad, a["files"][bad] if bad is not None else len(a["files"]),
                                                            b["files"][bad] if bad is not None else len(b["files"])))
    check(same_rows, "the merged report equals the single-machine one row for row (%d rows)" % len(b["files"]))
    check(a == b, "the whole report (summary included) is equal")
    check(open(out, "rb").read() == open(os.path.join(tmp, "ref.json"), "rb").read(), "... and byte-identical")
    key = path_key(b["files"][0])
    paths = []
    for name in sorted(os.listdir(pieces)):
        if name.endswith(".jsonl"):
            paths += [json.loads(ln)[key] for ln in open(os.path.join(pieces, name)) if ln.strip()]
    check(paths == [r[key] for r in b["files"]], "every file in exactly one piece, in order (%d)" % len(paths))
    check(not leftovers(pieces), "no temporary file left in the pieces folder")
    # --resume: nothing redone; a touched file redoes its shard only
    stamp = {f: os.stat(os.path.join(pieces, f)).st_mtime_ns for f in os.listdir(pieces)}
    victim = b["files"][len(b["files"]) // 2][key]
    os.utime(victim, None)
    rc, _so, se2 = batch(["validate", tree, "--scheduler", cl.addr, "--json", out, "--jsonl", pieces, "--shard-size",
                          "25", "--skinkit", cli, "--resume"])
    changed = [f for f in os.listdir(pieces) if os.stat(os.path.join(pieces, f)).st_mtime_ns != stamp.get(f)]
    check(rc == ref.returncode and json.load(open(out)) == b, "--resume: same report and exit status")
    check(len(changed) == 2 and "shard-%06d.jsonl" % ((len(b["files"]) // 2) // 25) in changed,
          "--resume redid only the shard of the touched file (%s)" % ", ".join(sorted(changed)))


def test_killer(cli, tmp, workers):
    """A test double of the CLI kills the worker running any shard that lists a file named *killer*. With one
    worker every file of the split shard is queued on the worker the killer takes down, so each of them has "died"
    once: only the one that kills its worker when running alone may become an error row."""
    tree = os.path.join(tmp, "ktree%d" % workers)
    os.makedirs(tree)
    models = batch_tree.data_models()
    for i in range(11):
        src = models[i % len(models)]
        shutil.copyfile(src, os.path.join(tree, "f%02d_%s" % (i, os.path.basename(src))))
    shutil.copyfile(models[0], os.path.join(tree, "f05_killer.glb"))
    fake = os.path.join(tmp, "fake-skinkit")
    with open(fake, "w") as f:
        f.write('#!/bin/sh\ntmp=$(mktemp)\ncat > "$tmp"\n'
                'if [ "$1" = validate ] && grep -q killer "$tmp"; then rm -f "$tmp"; kill -9 $PPID; exit 1; fi\n'
                '"%s" "$@" < "$tmp"; rc=$?; rm -f "$tmp"; exit $rc\n' % cli)
    os.chmod(fake, 0o755)
    out = os.path.join(tmp, "k%d.json" % workers)
    t0 = time.monotonic()
    rc, _so, se = batch(["validate", tree, "--workers", str(workers), "--allowed-failures", "0", "--shard-size", "4",
                         "--skinkit", fake, "--json", out])
    ref = subprocess.run([cli, "validate", tree, "--json", "-"], capture_output=True)
    if not check(os.path.exists(out), "%d worker(s): the report was written (exit %d)" % (workers, rc)):
        print(se[-3000:], flush=True)
        return
    a, b = json.load(open(out)), json.loads(ref.stdout)
    key = path_key(b["files"][0])
    rows = {r[key]: r for r in a["files"]}
    killer = os.path.join(tree, "f05_killer.glb")
    text = json.dumps(rows.get(killer))
    check(rc == 2 and '"error"' in text and "died" in text,
          "%d worker(s): a file that kills its worker is an error row (%s) after %.1f s" %
          (workers, text, time.monotonic() - t0))
    others = [r for r in a["files"] if r[key] != killer]
    check(others == [r for r in b["files"] if r[key] != killer] and len(a["files"]) == len(b["files"]),
          "%d worker(s): every other file of that shard has the CLI's row" % workers)


# ------------------------------------------------------------------------------------------- pack / convert
def cli_reference(cli, verb, src, dst, extra):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    cmd = [cli, "pack", src, "-o", dst] if verb == "pack" else [cli, verb, src, dst]
    return subprocess.run(cmd + extra, capture_output=True).returncode in (0, 1) and os.path.isfile(dst)


def test_files(cli, cl, tmp, verb, extra, ext):
    tree = os.path.join(tmp, "small")
    if not os.path.isdir(tree):
        batch_tree.make_tree(tree, 100, corpus_copies=1)
    out = os.path.join(tmp, verb + "-out")
    cl.add_worker()
    cl.wait(2)
    p = batch([verb, tree, "--out", out, "--scheduler", cl.addr, "--shard-size", "4", "--skinkit", cli,
               "--json", os.path.join(tmp, verb + ".json")] + extra, wait=False)
    count = lambda: sum(len(fs) for d, _ds, fs in os.walk(out) if ".skbatch-tmp" not in d) if os.path.isdir(out) else 0
    kill_when(p, count, 12, [w for w in cl.workers if w.poll() is None][0], verb)
    p.communicate()
    rows = json.load(open(os.path.join(tmp, verb + ".json")))["files"]
    good = bad = 0
    wrong = []
    for r in rows:
        want = os.path.join(tmp, verb + "-ref", os.path.relpath(r["output"], out))
        made = cli_reference(cli, verb, r["path"], want, extra)
        if made and r["status"] == "ok" and open(want, "rb").read() == open(r["output"], "rb").read():
            good += 1
        elif not made and r["status"] == "error" and not os.path.exists(r["output"]):
            bad += 1
        else:
            wrong.append(r)
    check(not wrong, "%s: %d outputs byte-identical to the CLI's, %d error rows with no output%s" %
          (verb, good, bad, (" (wrong: %s)" % wrong[:3]) if wrong else ""))
    expect = sorted(r["output"] for r in rows if r["status"] == "ok")
    found = sorted(os.path.join(d, f) for d, _ds, fs in os.walk(out) for f in fs if f.endswith(ext))
    check(found == expect, "%s: exactly one output per good file (%d), none extra" % (verb, len(found)))
    check(not leftovers(out), "%s: no temporary file or folder left" % verb)
    check(len({r["path"] for r in rows}) == len(rows) == len(set(batch_tree_files(tree))),
          "%s: one row per input file (%d)" % (verb, len(rows)))


def test_outcome_of_lost_results():
    """Runner.outcome on futures in the states a loaded cluster leaves them in. A worker that dies after finishing a
    task takes its result along: the future turns "lost" (exception() then waits and gives None) until the scheduler
    has computed it again, and only result() yields the rows. Before, such shards came out as "task failed: None"
    error rows (convert), or ended validate with a TypeError and no report (a one-file task: its message read the
    stderr of a result that was None); seen once each, in a CI run and in a run beside two Blender tests."""
    sys.path.insert(0, os.path.join(REPO, "python_addon"))
    from skinkit.batch import Runner

    class Lost:
        status = "lost"

        def exception(self):
            return None

        def result(self):
            return ["row"]

    class KilledWorker(Exception):
        pass

    class Killed(Lost):
        status = "error"

        def result(self):
            raise KilledWorker("worker died")

    res, exc = Runner.outcome(Lost())
    check(res == ["row"] and exc is None, "a lost result is waited for, not taken for a failure")
    res, exc = Runner.outcome(Killed())
    check(res is None and type(exc).__name__ == "KilledWorker", "a task whose worker died gives its KilledWorker")


def test_no_scheduler(cli, tmp):
    """A scheduler address where none answers: exit 2 and one line saying so, no traceback, no report."""
    out = os.path.join(tmp, "none.json")
    rc, _so, se = batch(["validate", os.path.join(REPO, "tests", "data"), "--scheduler", "tcp://127.0.0.1:%d" % free_port(),
                         "--connect-timeout", "3s", "--skinkit", cli, "--json", out])
    check(rc == 2 and "could not connect to the Dask scheduler" in se and "Traceback" not in se
          and not os.path.exists(out), "no scheduler at the address: exit 2, %r" % se.strip()[-200:])


# ------------------------------------------------------------------------------------------- edge cases (session 68)
def same_as_cli(cli, tree, tmp, name):
    """batch validate TREE --json and `skinkit validate TREE --json`: (same bytes, same exit status, batch stderr)."""
    ref, out = os.path.join(tmp, name + ".cli.json"), os.path.join(tmp, name + ".b.json")
    r = subprocess.run([cli, "validate", tree, "--json", ref], capture_output=True)
    rc, _so, se = batch(["validate", tree, "--json", out, "--workers", "1", "--skinkit", cli])
    same = os.path.exists(out) and open(out, "rb").read() == open(ref, "rb").read()
    return same and rc == r.returncode, rc, r.returncode, se


def test_walk_is_the_clis(cli, tmp):
    """The batch's file list is the CLI's (`validate --list`): a non-mesh .xml is not checked, a broken link and a
    folder deeper than 64 levels are error rows, in the batch's report as in the CLI's (byte for byte)."""
    d = os.path.join(tmp, "walk")
    os.makedirs(d)
    shutil.copyfile(os.path.join(REPO, "tests", "data", "skinrig.glb"), os.path.join(d, "a.glb"))
    open(os.path.join(d, "settings.xml"), "w").write("<config/>\n")
    os.symlink("/nonexistent/x.glb", os.path.join(d, "broken.glb"))
    deep = os.path.join(d, *["d%d" % i for i in range(1, 70)])
    os.makedirs(deep)
    shutil.copyfile(os.path.join(REPO, "tests", "data", "weight_defects.glb"), os.path.join(deep, "bad.glb"))
    same, rc, ref_rc, se = same_as_cli(cli, d, tmp, "walk")
    summary = json.load(open(os.path.join(tmp, "walk.b.json")))["summary"] if same else {}
    check(same and rc == 2 and summary.get("file_count") == 3 and summary.get("error_count") == 2,
          "walk: batch report byte-identical to the CLI's, broken link and too-deep folder are rows (exit %s/%s, %s)"
          % (rc, ref_rc, summary or se[-300:]))


def test_never_over_inputs(cli, tmp):
    d = os.path.join(tmp, "inplace")
    os.makedirs(d)
    shutil.copyfile(os.path.join(REPO, "tests", "data", "weight_defects.glb"), os.path.join(d, "d.glb"))
    before = open(os.path.join(d, "d.glb"), "rb").read()
    for out in (d, os.path.join(d, "sub"), os.path.dirname(d)):
        rc, _so, se = batch(["weights", d, "--out", out, "--workers", "1", "--skinkit", cli, "--normalize"])
        check(rc == 2 and len(se.strip().split("\n")) == 1 and "input tree" in se and "Traceback" not in se,
              "weights --out %s: refused up front (exit %d, %r)" % (os.path.relpath(out, tmp), rc, se.strip()[-160:]))
    check(open(os.path.join(d, "d.glb"), "rb").read() == before and os.listdir(d) == ["d.glb"],
          "the input tree is untouched")


def test_collisions(cli, tmp):
    d, out = os.path.join(tmp, "col"), os.path.join(tmp, "col-out")
    os.makedirs(d)
    shutil.copyfile(os.path.join(REPO, "tests", "data", "walker_rig.fbx"), os.path.join(d, "a.fbx"))
    shutil.copyfile(os.path.join(REPO, "tests", "data", "skinrig.glb"), os.path.join(d, "a.fbx.glb"))
    rc, _so, se = batch(["convert", d, "--out", out, "--workers", "1", "--skinkit", cli, "--json", out + ".json"])
    rows = json.load(open(out + ".json"))["files"] if os.path.exists(out + ".json") else []
    check(rc == 2 and len(rows) == 2 and all(r["status"] == "error" and "would also be written" in r["error"]
                                             for r in rows) and not os.path.exists(os.path.join(out, "a.fbx.glb")),
          "convert a.fbx + a.fbx.glb: two error rows naming each other, nothing written (exit %d)" % rc)


def test_resume_is_not_stale(cli, tmp):
    d, pieces = os.path.join(tmp, "rs"), os.path.join(tmp, "rs-pieces")
    for sub in ("a", "b"):
        os.makedirs(os.path.join(d, sub))
        for i in range(6):
            shutil.copyfile(os.path.join(REPO, "tests", "data", "skinrig.glb"), os.path.join(d, sub, "f%d.glb" % i))
    common = ["validate", d, "--jsonl", pieces, "--workers", "1", "--shard-size", "6", "--skinkit", cli]
    rc0, _so, _se = batch(common + ["--json", os.path.join(tmp, "rs0.json")])
    rc1, _so, _se = batch(common + ["--json", os.path.join(tmp, "rs1.json"), "--resume", "--max-influences", "1"])
    s1 = json.load(open(os.path.join(tmp, "rs1.json")))["summary"]
    check(rc0 == 0 and rc1 == 1 and s1["findings_count"] == 12,
          "--resume with another option redoes every piece (%s)" % s1)
    victim = os.path.join(d, "a", "f2.glb")
    st = os.stat(victim)
    shutil.copyfile(os.path.join(REPO, "tests", "data", "weight_defects.glb"), victim)
    os.utime(victim, ns=(st.st_atime_ns, st.st_mtime_ns - 10 ** 9))  # as `cp -p` of an older file
    rc2, _so, _se = batch(common + ["--json", os.path.join(tmp, "rs2.json"), "--resume"])
    same, _rc, _ref, _se = same_as_cli(cli, d, tmp, "rs-ref")
    check(open(os.path.join(tmp, "rs2.json"), "rb").read() == open(os.path.join(tmp, "rs-ref.cli.json"), "rb").read(),
          "--resume after a content change with an older mtime equals a fresh CLI run (exit %d)" % rc2)


def test_options_and_cli(cli, tmp):
    d = os.path.join(REPO, "tests", "data", "skinrig.glb")
    t0 = time.monotonic()
    rc, _so, se = batch(["pack", d, "--out", os.path.join(tmp, "typo"), "--bogus", "--workers", "1", "--skinkit", cli])
    check(rc == 2 and "unknown option --bogus" in se and "dashboard" not in se and not os.path.exists(
        os.path.join(tmp, "typo")), "pack --bogus: refused before a cluster starts, with the CLI's reason (%.1f s)" %
          (time.monotonic() - t0))
    log = os.path.join(tmp, "logcli.log")
    double = os.path.join(tmp, "logcli")
    with open(double, "w") as f:
        f.write('#!/bin/sh\necho "$@" >> "%s"\nexec "%s" "$@"\n' % (log, cli))
    os.chmod(double, 0o755)
    env = dict(ENV, SKINKIT_CLI=double)
    rc, _so, _se = batch(["validate", d, "--workers", "1", "--skinkit", cli], env=env)
    check(rc == 0 and not os.path.exists(log), "--skinkit wins over the workers' SKINKIT_CLI")
    rc, _so, se = batch(["pack", d, "--out", os.path.join(d, "sub"), "--workers", "1", "--skinkit", cli])
    check(rc == 2 and "Traceback" not in se and len(se.strip().split("\n")) == 1,
          "an output folder that cannot be made: one line, exit 2 (%r)" % se.strip()[-160:])
    sys.path.insert(0, os.path.join(REPO, "python_addon"))
    from skinkit import batch_tasks

    check(batch_tasks.shard_limit(None, 1, 1) == 360.0 and batch_tasks.shard_limit(0, 5, 1) is None,
          "a validate shard has a hard limit without --timeout too (the CLI's 300 s per file)")


def test_interrupted_driver(cli, tmp):
    """SIGTERM / SIGINT to the driver while a shard's CLI hangs: no traceback, exit 128+N, no CLI process left."""
    d = os.path.join(tmp, "hang")
    os.makedirs(d)
    for n in ("hang_me.glb", "ok.glb"):
        shutil.copyfile(os.path.join(REPO, "tests", "data", "skinrig.glb"), os.path.join(d, n))
    double = os.path.join(tmp, "hangcli")
    with open(double, "w") as f:
        f.write('#!/bin/bash\nif [ "$1" = validate ] && [ "$2" = --files0-from ]; then\n'
                '  in=$(tr "\\0" "\\n"); grep -q hang <<<"$in" && sleep 431.25; exit 3; fi\nexec "%s" "$@"\n' % cli)
    os.chmod(double, 0o755)
    for sig in (signal.SIGTERM, signal.SIGINT):
        p = batch(["validate", d, "--workers", "1", "--skinkit", double], wait=False)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 60 and subprocess.run(["pgrep", "-f", "sleep 431.25"],
                                                            capture_output=True).returncode:
            time.sleep(0.2)
        p.send_signal(sig)
        _so, se = p.communicate(timeout=60)
        time.sleep(1)
        left = subprocess.run(["pgrep", "-f", "sleep 431.25"], capture_output=True).stdout.split()
        for pid in left:
            os.kill(int(pid), signal.SIGKILL)
        check(p.returncode == 128 + sig and not left and b"Traceback" not in se,
              "%s to the driver: exit %d, no traceback, %d CLI process(es) left" %
              (signal.Signals(sig).name, p.returncode, len(left)))


def test_report_line_and_empty_folders(cli, tmp):
    d = os.path.join(tmp, "mixed")
    os.makedirs(os.path.join(d, "bad"))
    os.makedirs(os.path.join(d, "good"))
    for i in range(3):
        shutil.copyfile(os.path.join(REPO, "tests", "data", "skinrig.glb"), os.path.join(d, "good", "g%d.glb" % i))
    open(os.path.join(d, "bad", "zero.glb"), "wb").close()
    rc, _so, se = batch(["validate", d, "--workers", "1", "--shard-size", "2", "--skinkit", cli])
    check(se.strip().split("\n")[-1].startswith("2 piece(s), 4 file(s)"), "the last line counts the job's pieces: %r"
          % se.strip().split("\n")[-1])
    out = os.path.join(tmp, "mixed-out")
    rc, _so, se = batch(["pack", d, "--out", out, "--workers", "1", "--skinkit", cli])
    check(rc == 2 and not os.path.exists(os.path.join(out, "bad")) and len(os.listdir(os.path.join(out, "good"))) == 3,
          "no empty output folder for inputs that failed (%s)" % sorted(os.listdir(out)))


EDGE_TESTS = (test_walk_is_the_clis, test_never_over_inputs, test_collisions, test_resume_is_not_stale,
              test_options_and_cli, test_interrupted_driver, test_report_line_and_empty_folders)


def batch_tree_files(tree):
    exts = (".glb", ".gltf", ".fbx", ".dae", ".b3d", ".md5mesh", ".mesh", ".x")
    return [os.path.join(d, f) for d, _ds, fs in os.walk(tree) for f in fs if f.lower().endswith(exts)]


def main():
    cli = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="skbatch-test-")
    t0 = time.monotonic()
    try:
        for t in EDGE_TESTS:
            t(cli, tmp)
    finally:
        if sys.argv[2:] == ["--edges"]:  # only these (a LocalCluster each, ~1 min)
            shutil.rmtree(tmp, ignore_errors=True)
    if sys.argv[2:] == ["--edges"]:
        print("%.0f s; %d passed, %d failed" % (time.monotonic() - t0, RESULTS["passed"], RESULTS["failed"]))
        return 1 if RESULTS["failed"] else 0
    cl = Cluster(tmp)
    try:
        test_outcome_of_lost_results()
        test_no_scheduler(cli, tmp)
        cl.add_worker()
        cl.add_worker()
        cl.wait(2)
        test_validate(cli, cl, tmp)
        test_files(cli, cl, tmp, "pack", [], ".skf")
        test_files(cli, cl, tmp, "convert", ["--format", "glb"], ".glb")
        test_killer(cli, tmp, 2)
        test_killer(cli, tmp, 1)
    finally:
        cl.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%.0f s; %d passed, %d failed" % (time.monotonic() - t0, RESULTS["passed"], RESULTS["failed"]))
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
