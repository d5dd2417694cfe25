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
    p = subprocess.Popen(cmd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
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


def batch_tree_files(tree):
    exts = (".glb", ".gltf", ".fbx", ".dae", ".b3d", ".md5mesh", ".mesh", ".x")
    return [os.path.join(d, f) for d, _ds, fs in os.walk(tree) for f in fs if f.lower().endswith(exts)]


def main():
    cli = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="skbatch-test-")
    cl = Cluster(tmp)
    t0 = time.monotonic()
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
