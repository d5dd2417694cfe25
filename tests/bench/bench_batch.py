"""Throughput of skinkit.batch (issue 19): files/s of `skinkit validate` on one machine, of
`python3 -m skinkit.batch validate` on a LocalCluster of 1 and 2 workers, and Dask's scheduling cost per task.

    /usr/bin/python3 tests/bench/bench_batch.py SKINKIT_CLI [--files N] [--shard-size S]

The tree is tests/batch/batch_tree.py's (tests/data copies, a tenth truncated/random/empty; corpus copies when
SKINKIT_ASSETS is set). SKINKIT_LIBRARY names the library. Figures and the 1,000,000-file estimate built from them
are in docs/scaleout.md.
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "batch"))
sys.path.insert(0, os.path.join(REPO, "python_addon"))
import batch_tree  # noqa: E402

ENV = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python_addon"), PYTHONWARNINGS="ignore")


CPU = {}
LOAD = 0.0


def timed(cmd):
    """Wall seconds of cmd; CPU["last"] gets the CPU seconds (user + system) of it and its children."""
    t0 = time.monotonic()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, env=ENV, capture_output=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU["last"] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if r.returncode not in (0, 1, 2):
        sys.exit("failed (%d): %s\n%s" % (r.returncode, " ".join(cmd), r.stderr.decode()[-2000:]))
    return time.monotonic() - t0


def task_overhead(n=2000):
    """Seconds per task of a LocalCluster (1 worker, 1 thread) for a task that does nothing: submit, schedule,
    run, send the result back, as the front end's Runner does (as_completed)."""
    from distributed import Client, LocalCluster, as_completed

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=40) as cl, Client(cl) as c:
        c.submit(abs, -1).result()  # warm
        t0 = time.monotonic()
        fs = [c.submit(abs, -i, pure=False) for i in range(n)]
        for f in as_completed(fs):
            f.result()
        return (time.monotonic() - t0) / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--shard-size", type=int, default=0)
    a = ap.parse_args()
    cli = os.path.abspath(a.cli)
    global LOAD
    LOAD = os.getloadavg()[0]
    tmp = tempfile.mkdtemp(prefix="skbatch-bench-")
    try:
        tree = os.path.join(tmp, "tree")
        n = batch_tree.make_tree(tree, a.files, corpus_copies=1)
        out = os.path.join(tmp, "r.json")
        shard = ["--shard-size", str(a.shard_size)] if a.shard_size else []
        t1 = timed([cli, "validate", tree, "--jobs", "1", "--json", out])
        cpu1 = CPU["last"]
        tc = timed([cli, "validate", tree, "--json", out])
        one = os.path.join(tmp, "one")
        os.makedirs(one)
        shutil.copy(batch_tree.data_models()[0], one)
        start = timed([sys.executable, "-m", "skinkit.batch", "validate", one, "--workers", "1", "--skinkit", cli])
        tw = {}
        for w in (1, 2):
            tw[w] = timed([sys.executable, "-m", "skinkit.batch", "validate", tree, "--workers", str(w), "--skinkit",
                           cli, "--json", out] + shard)
        ovh = task_overhead()
        cores = os.cpu_count() or 1
        print("files: %d (cores: %d)" % (n, cores))
        print("CLI validate --jobs 1       %7.2f s  %7.1f files/s  (%.2f ms CPU per file, user + system)" %
              (t1, n / t1, 1e3 * cpu1 / n))
        print("load average before: %.2f (the machine is shared: wall figures move with it)" % LOAD)
        print("CLI validate (all cores)    %7.2f s  %7.1f files/s" % (tc, n / tc))
        print("batch, 1-file job (start-up, cluster + report) %.2f s" % start)
        for w in (1, 2):
            print("batch LocalCluster %d worker%s %7.2f s  %7.1f files/s  (%.1f files/s without the %.1f s start-up)" %
                  (w, " " if w == 1 else "s", tw[w], n / tw[w], n / max(1e-9, tw[w] - start), start))
        print("Dask scheduling overhead    %.2f ms per task (no-op tasks, 1 worker)" % (1e3 * ovh))
        per_file = cpu1 / n
        need = 1e6 / 600.0
        print("1,000,000 files in 10 min: %.0f files/s = %.0f cores at %.2f ms/file (+%.3f ms/file of scheduling "
              "at 256 files/task)" % (need, need * per_file, 1e3 * per_file, 1e3 * ovh / 256))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
