"""Worker side of skinkit.batch: the functions a Dask worker runs on one shard of files.

Only the standard library is used, and skinkit.batch ships this module to the workers by value (cloudpickle), so a
worker machine needs the `skinkit` command line tool but not this Python package. Every file is handled by the
`skinkit` CLI, which reads each file in its own child process with a time limit (plugin/cli_load.c,
plugin/cli_validate.c): an importer crash or hang on one file becomes one error row and the shard goes on.

Results are returned to the client (rows as JSON text); outputs of pack/convert/bind/weights are written to a
private temporary folder inside the output folder and renamed into place, so a task that Dask reruns after its
worker died (or an orphaned CLI process of the dead worker that still finishes) leaves exactly one whole file.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

TMP_DIR = ".skbatch-tmp"  # inside each output folder; removed by the client at the end of a job
VALIDATE_TIMEOUT = 300.0  # `skinkit validate`'s per-file limit without --timeout (plugin/cli_validate.c)


def resolve_cli(client_cli, explicit=False):
    """The CLI on this machine: the client's --skinkit PATH when one was given (it wins everywhere), else
    SKINKIT_CLI of the worker's environment, else the client's path when it exists here (shared file system, same
    install), else `skinkit` on PATH."""
    if explicit:
        return client_cli
    env = os.environ.get("SKINKIT_CLI")
    if env:
        return env
    if client_cli and os.path.isfile(client_cli):
        return client_cli
    return shutil.which("skinkit") or client_cli


def jobs_here(host_threads=None):
    """CLI --jobs for one task: this machine's cores shared among the task threads of every worker on this host
    (host_threads: host -> threads, from the client's view of the cluster; a LocalCluster of N workers on one
    machine must not start N x cores readers)."""
    threads = 1
    try:
        from distributed import get_worker

        w = get_worker()
        threads = getattr(getattr(w, "state", None), "nthreads", None) or getattr(w, "nthreads", 1) or 1
        host = w.address.split("://")[-1].rsplit(":", 1)[0]
        threads = max(threads, (host_threads or {}).get(host, 0))
    except Exception:  # not inside a worker (tests, benchmarks): the whole machine
        pass
    return max(1, (os.cpu_count() or 1) // max(1, int(threads)))


def _groups():
    """The process groups of the CLI runs going on in this process, kept on the sys module: this module reaches the
    workers by value (cloudpickle), so each task has its own copy of the module's globals, but one sys."""
    if not hasattr(sys, "_skinkit_batch_groups"):
        sys._skinkit_batch_groups = (set(), threading.Lock())
    return sys._skinkit_batch_groups


def kill_groups():
    """SIGKILLs every CLI run going on in this process (its readers too): the client calls it on every worker
    (Client.run) when the job is interrupted; also run when the worker process exits."""
    groups, lock = _groups()
    with lock:
        pgids = list(groups)
    for g in pgids:
        try:
            os.killpg(g, signal.SIGKILL)
        except OSError:
            pass
    return len(pgids)


def _die_with_parent(cmd):
    """cmd run through util-linux's setpriv --pdeathsig KILL when it is here (Linux): the CLI gets SIGKILL when the
    worker thread that started it dies (a worker killed with SIGKILL runs no clean-up). A wrapper, not a preexec_fn:
    that runs Python between fork and exec, which can deadlock in a worker's threads. Elsewhere cmd as it is (the
    CLI's own time limits end it)."""
    setpriv = shutil.which("setpriv") if sys.platform.startswith("linux") else None
    return [setpriv, "--pdeathsig", "KILL", "--"] + list(cmd) if setpriv else list(cmd)


def run_bytes(cmd, cwd=None, stdin=None, limit=None):
    """Runs cmd in its own process group (a session), recorded for kill_groups; on `limit` seconds kills the whole
    group (the CLI's children too). Returns (returncode or None when killed, stdout bytes, stderr bytes)."""
    groups, lock = _groups()
    if not getattr(sys, "_skinkit_batch_atexit", False):
        import atexit

        atexit.register(kill_groups)
        sys._skinkit_batch_atexit = True
    p = subprocess.Popen(_die_with_parent(cmd), cwd=cwd if cwd and os.path.isdir(cwd) else None,
                         start_new_session=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with lock:
        groups.add(p.pid)
    try:
        try:
            out, err = p.communicate(stdin, limit)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, err = p.communicate()
            return None, out, err
        return p.returncode, out, err
    finally:
        with lock:
            groups.discard(p.pid)


def run(cmd, cwd, stdin_text=None, limit=None):
    """run_bytes with text in and out: (returncode or None when killed, stdout text, stderr text)."""
    rc, out, err = run_bytes(cmd, cwd, stdin_text.encode("utf-8", "surrogateescape") if stdin_text else None, limit)
    return rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def shard_limit(per_file, count, jobs):
    """Hard limit for a whole validate shard: every file at its own time limit (the CLI's default of 300 s when
    none is given: the CLI kills a reader past it, so a shard over this is stuck, not slow), `jobs` at once, plus
    start-up slack. None with --timeout 0 (no limit asked for)."""
    per_file = VALIDATE_TIMEOUT if per_file is None else per_file
    if not per_file:
        return None
    return per_file * (count + jobs - 1) / jobs + 60.0


def validate_shard(cli, explicit, cwd, paths, extra, timeout, host_threads=None):
    """`skinkit validate --files0-from - --jsonl` over paths (NUL-separated: any file name). Returns {"rows": [line,
    ...] | None, "rc", "stderr"}: rows are the CLI's own JSON lines, one per path in order, or None when the CLI did
    not answer for every file (then the client checks the files one task each)."""
    cli = resolve_cli(cli, explicit)
    jobs = min(jobs_here(host_threads), max(1, len(paths)))
    cmd = [cli, "validate", "--files0-from", "-", "--jsonl", "--jobs", str(jobs)] + list(extra)
    if timeout is not None:
        cmd += ["--timeout", repr(float(timeout))]
    rc, out, err = run_bytes(cmd, cwd, b"".join(os.fsencode(p) + b"\0" for p in paths),
                             shard_limit(timeout, len(paths), jobs))
    out, err = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    rows = [line for line in out.split("\n") if line.strip()]
    if rc is None or rc not in (0, 1, 2) or len(rows) != len(paths):
        rows = None
    return {"rows": rows, "rc": rc, "stderr": err[-2000:]}


def _commit(tmpdir, final):
    """Renames everything the CLI wrote in tmpdir into final's folder, final itself last (so its presence means
    the whole set, e.g. a .gltf with its .bin, is in place)."""
    dest = os.path.dirname(final)
    main = os.path.basename(final)
    names = sorted(os.listdir(tmpdir), key=lambda n: (n == main, n))
    for n in names:
        os.replace(os.path.join(tmpdir, n), os.path.join(dest, n))


def reason(text):
    """The CLI's reason from its stderr: its lines but the "see skinkit CMD --help" pointer, joined."""
    lines = [ln.strip() for ln in text.strip().split("\n") if ln.strip() and not ln.startswith("see skinkit ")]
    return "; ".join(lines)[-1000:]


def file_task(cli, cwd, verb, path, out, extra, timeout):
    """One `skinkit VERB` run for one file, output through a private temporary folder. Returns a row dict."""
    out_abs = os.path.join(cwd, out) if cwd and not os.path.isabs(out) else out
    tmpdir = os.path.join(os.path.dirname(out_abs), TMP_DIR, uuid.uuid4().hex)
    os.makedirs(tmpdir)
    tmp_out = os.path.join(tmpdir, os.path.basename(out_abs))
    if verb == "pack":
        cmd = [cli, "pack", path, "-o", tmp_out, "--force"]
    else:
        cmd = [cli, verb, path, tmp_out, "--force"]
    cmd += list(extra)
    limit = None
    if timeout is not None:
        cmd += ["--timeout", repr(float(timeout))]
        limit = 2.0 * timeout + 30.0 if timeout else None  # reading is bounded by the CLI; writing/binding too
    try:
        rc, _out, err = run(cmd, cwd, None, limit)
        if rc is None:
            error = "%s: gave up after the time limit (the %s run did not finish)" % (path, verb)
        elif rc < 0:
            error = "%s: skinkit %s was killed by signal %d" % (path, verb, -rc)
        elif rc in (0, 1) and os.path.isfile(tmp_out):
            _commit(tmpdir, out_abs)
            error = None
        else:
            error = reason(err) or "%s: skinkit %s failed (exit %d)" % (path, verb, rc)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    return {"path": path, "output": out, "status": "error" if error else "ok", "error": error}


def file_shard(cli, explicit, cwd, verb, items, extra, timeout, host_threads=None):
    """file_task over (path, out) pairs; returns the rows as JSON lines, in order."""
    cli = resolve_cli(cli, explicit)
    with ThreadPoolExecutor(min(jobs_here(host_threads), max(1, len(items)))) as pool:  # each file is its own CLI process
        rows = list(pool.map(lambda it: file_task(cli, cwd, verb, it[0], it[1], extra, timeout), items))
    return [json.dumps(r, separators=(",", ":"), ensure_ascii=False) for r in rows]
