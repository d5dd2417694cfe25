"""skinkit.batch: validate, pack, convert, bind and edit weights of whole asset trees on a Dask cluster.

    python3 -m skinkit.batch validate TREE... [--scheduler tcp://HOST:8786] [--json OUT] [--jsonl DIR] [--resume]
    python3 -m skinkit.batch pack     TREE... --out DIR [--resume] [skinkit pack options]
    python3 -m skinkit.batch convert  TREE... --out DIR [--format glb|gltf|fbx|fbxa|dae] [convert options]
    python3 -m skinkit.batch bind     TREE... --out DIR [--method M] [bind options]
    python3 -m skinkit.batch weights  TREE... --out DIR [--normalize --limit 4 ...]

Without --scheduler a LocalCluster is started on this machine (--workers N); with one, the job runs on that
cluster (workers need the `skinkit` CLI: the client's path on a shared file system, SKINKIT_CLI, or PATH, and the
files at the same paths). Files are found the way `skinkit validate` finds them (same order, same skips), cut into
shards of many files; each shard is one Dask task that runs the `skinkit` CLI, which reads every file in its own
child process with a time limit. Options this front end does not know are passed to the CLI unchanged.

validate: the rows are the CLI's own `--jsonl` rows; the report (--json) is merged by `skinkit report`, so it
equals a single-machine `skinkit validate --json` of the same tree. Exit status as the CLI's: 0 clean, 1
findings, 2 errors. See docs/scaleout.md for the design, measurements and multi-machine set-up.

This module is not imported by the Blender addon (its __init__ never loads it); it needs python3-distributed.
"""
import argparse
import json
import os
import shutil
import stat
import sys
import tempfile
import time

from . import batch_tasks as T

VERBS = ("validate", "pack", "convert", "bind", "weights")
FORMAT_EXT = {"glb": ".glb", "gltf": ".gltf", "fbx": ".fbx", "fbxa": ".fbx", "dae": ".dae"}
WRITABLE = (".glb", ".gltf", ".dae")


class BatchError(Exception):
    """A problem with the job itself (no CLI, bad arguments, no cluster): message for the user, exit 2."""


# ------------------------------------------------------------------------------------------- finding the tools
def find_cli(explicit=None):
    """The `skinkit` CLI: --skinkit, SKINKIT_CLI, the folder libskinkit is found in (the package's own search,
    _ctypes.find_library: SKINKIT_LIBRARY, the addon folder, <repo>/build), then PATH."""
    for cand in (explicit, os.environ.get("SKINKIT_CLI")):
        if cand:
            if os.path.isfile(cand) and os.access(cand, os.X_OK):
                return os.path.abspath(cand)
            raise BatchError("skinkit CLI not found at '%s'" % cand)
    try:
        from . import _ctypes as C

        lib_dir = os.path.dirname(C.find_library())
        cand = os.path.join(lib_dir, "skinkit")
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    except Exception:
        pass
    found = shutil.which("skinkit")
    if found:
        return os.path.abspath(found)
    raise BatchError("skinkit CLI not found: pass --skinkit PATH or set SKINKIT_CLI")


def extension_filter(cli):
    """sk_import_extension_supported of the library beside the CLI (or the package's usual search), the test the
    CLI applies to files found in folders."""
    from . import _ctypes as C

    lib_dir = os.path.dirname(cli)
    try:
        lib = C.load_library(lib_dir if any(os.path.isfile(os.path.join(lib_dir, n))
                                           for n in C._library_file_names()) else None)
    except C.SkinkitError as e:
        raise BatchError(e.message) from None
    cache = {}

    def supported(ext):
        if ext not in cache:
            cache[ext] = bool(lib.sk_import_extension_supported(os.fsencode(ext)))
        return cache[ext]

    return supported


# ------------------------------------------------------------------------------------------- collecting files
class Walker:
    """The file list of `skinkit validate PATH...` (plugin/cli_validate.c: walk, walk_entry, add_path): hidden
    names skipped, folders at most 64 deep, a folder or file reached twice (links) taken once, FIFOs and devices
    skipped with a note, each folder's files (its subfolders' included) sorted by byte order of the full path."""

    def __init__(self, supported):
        self.supported = supported
        self.dirs = set()
        self.files = set()
        self.roots = {}  # path -> the TREE argument it was found under (output names are relative to it)

    def _seen(self, bag, st):
        key = (st.st_dev, st.st_ino)
        if key in bag:
            return True
        bag.add(key)
        return False

    def walk(self, d, depth, root):
        if depth > 64:
            return []
        local = []
        try:
            entries = list(os.scandir(d))
        except OSError:
            return []
        for e in entries:
            if e.name.startswith("."):
                continue
            p = d + "/" + e.name
            try:
                st = os.stat(p)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                if not self._seen(self.dirs, st):
                    local += self.walk(p, depth + 1, root)
            elif stat.S_ISREG(st.st_mode):
                dot = e.name.rfind(".")
                if dot >= 0 and self.supported(e.name[dot:]) and not self._seen(self.files, st):
                    local.append(p)
                    self.roots[p] = root
            else:
                print("note: skipped %s: not a regular file" % p, file=sys.stderr)
        local.sort(key=os.fsencode)
        return local

    def add(self, p):
        try:
            st = os.stat(p)
        except OSError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            return [] if self._seen(self.dirs, st) else self.walk(p, 0, p)
        if st is not None and stat.S_ISREG(st.st_mode) and self._seen(self.files, st):
            return []
        self.roots[p] = os.path.dirname(p) or "."
        return [p]


def collect(trees, supported):
    w = Walker(supported)
    files = []
    for t in trees:
        files += w.add(t)
    return files, w.roots


def shards_of(items, size):
    return [items[i:i + size] for i in range(0, len(items), size)]


def auto_shard_size(count, workers):
    """Tasks of many files (scheduling costs ~ms per task, see docs/scaleout.md) but enough tasks to balance:
    about 8 per worker, between 16 and 512 files each."""
    return max(16, min(512, -(-count // max(1, 8 * workers))))


# ------------------------------------------------------------------------------------------- output files
def atomic_write(path, text):
    """Writes text to a temporary name in path's folder, then renames it over path."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".skbatch-", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def newest_mtime(paths):
    m = 0.0
    for p in paths:
        try:
            m = max(m, os.stat(p).st_mtime)
        except OSError:
            return float("inf")  # a file that vanished: redo
    return m


def output_name(verb, path, root, out_dir, fmt):
    """OUT/<path relative to its TREE>: pack appends .skf (as `skinkit pack` does); convert/bind/weights keep the
    name when the extension is the output's, else append the output extension (a.fbx -> a.fbx.glb: unique)."""
    rel = os.path.relpath(path, root)
    if verb == "pack":
        return os.path.join(out_dir, rel + ".skf")
    base, ext = os.path.splitext(rel)
    want = FORMAT_EXT[fmt] if fmt else (ext.lower() if ext.lower() in WRITABLE else ".glb")
    return os.path.join(out_dir, rel if ext.lower() == want else rel + want)


# ------------------------------------------------------------------------------------------- error rows
class RowTemplate:
    """An error row in the CLI's own format, learnt at run time from `skinkit validate MISSING --jsonl` (so a
    renamed or versioned key set follows the CLI): the key holding the path, the status key and value, the
    error key."""

    def __init__(self, cli, extra):
        """Also checks the options passed through (extra): a typo fails here, once, not in every shard."""
        probe = os.path.join(tempfile.gettempdir(), "skbatch-probe-%d-missing.glb" % os.getpid())
        rc, out, err = T.run([cli, "validate", probe, "--jsonl"] + list(extra), None)
        line = next((ln for ln in out.split("\n") if ln.strip()), "")
        try:
            row = json.loads(line)
        except ValueError:
            why = err.strip()[-500:]
            raise BatchError("`skinkit validate %s` refused (exit %s): %s" % (" ".join(extra), rc, why)) from None
        self.row = row
        self.path_key = next(k for k, v in row.items() if v == probe)
        self.status_key = next((k for k, v in row.items() if v == "error"), "status")
        self.error_key = next((k for k, v in row.items() if isinstance(v, str) and probe in v and k != self.path_key),
                              "error")

    def error(self, path, message):
        row = dict(self.row)
        row[self.path_key] = path
        row[self.status_key] = "error"
        row[self.error_key] = "%s: %s" % (path, message)
        return json.dumps(row, separators=(",", ":"), ensure_ascii=False)


# ------------------------------------------------------------------------------------------- progress
class Progress:
    """A bar on stderr when it is a terminal; otherwise silent."""

    def __init__(self, total, enabled):
        self.total, self.done, self.t0 = total, 0, time.monotonic()
        self.enabled = enabled
        self.last = 0.0

    def add(self, n):
        self.done += n
        now = time.monotonic()
        if self.enabled and (now - self.last > 0.2 or self.done >= self.total):
            self.last = now
            bar = int(40 * self.done / max(1, self.total))
            rate = self.done / max(1e-9, now - self.t0)
            sys.stderr.write("\r[%-40s] %d/%d files %.0f/s" % ("#" * bar, self.done, self.total, rate))
            sys.stderr.flush()

    def close(self):
        if self.enabled:
            sys.stderr.write("\r%75s\r" % "")
            sys.stderr.flush()


# ------------------------------------------------------------------------------------------- the cluster
def open_client(args):
    """A distributed.Client: to --scheduler, or to a new LocalCluster of --workers processes."""
    try:
        import dask
        import cloudpickle
        from distributed import Client, LocalCluster
    except ImportError as e:
        raise BatchError("Dask is missing (%s): apt-get install python3-distributed" % e) from None
    try:  # ship the worker functions by value: workers need the skinkit CLI, not this package
        cloudpickle.register_pickle_by_value(T)
    except AttributeError:
        pass
    dask.config.set({"distributed.scheduler.allowed-failures": args.allowed_failures})
    if args.scheduler:
        try:
            return Client(args.scheduler, timeout=args.connect_timeout), None
        except Exception as e:  # no scheduler there, or it did not answer in --connect-timeout
            raise BatchError("could not connect to the Dask scheduler %s: %s" %
                             (args.scheduler, str(e) or type(e).__name__)) from None
    try:
        import importlib

        importlib.import_module("bokeh")  # the dashboard needs it
        dash = ":0"
    except ImportError:
        dash = None
    try:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=dash,
                               host="127.0.0.1", silence_logs=40)
    except Exception as e:  # workers that did not come up in time on a loaded machine, no free port, ...
        raise BatchError("could not start a local Dask cluster of %d worker(s): %s" %
                         (args.workers, str(e) or type(e).__name__)) from None
    try:
        return Client(cluster, timeout=args.connect_timeout), cluster
    except Exception as e:
        close_quietly(cluster.close, "the local cluster")
        raise BatchError("could not connect to the local Dask cluster: %s" % (str(e) or type(e).__name__)) from None


def dashboard_of(client):
    try:
        if "dashboard" in client.scheduler_info().get("services", {}):
            return client.dashboard_link
    except Exception:
        pass
    return None


def host_threads(client):
    """host -> task threads of all its workers (the tasks split the host's cores by it)."""
    out = {}
    try:
        for w in client.scheduler_info().get("workers", {}).values():
            out[w.get("host")] = out.get(w.get("host"), 0) + int(w.get("nthreads", 1))
    except Exception:
        pass
    return out


def worker_count(client):
    try:
        return max(1, len(client.scheduler_info().get("workers", {})))
    except Exception:
        return 1


def is_killed_worker(exc):
    return type(exc).__name__ == "KilledWorker"


class Runner:
    """Submits shard tasks and yields (tag, fn, args, result, exception, alone) as they finish. A shard whose worker
    died more than the scheduler's allowed-failures times (KilledWorker) is split into one task per file by the
    caller. A single file whose worker died may only have shared that worker with the file that killed it, so it is
    deferred: once everything else is done, deferred files run one at a time, alone in the cluster, and only a file
    that kills its worker there is reported (alone=True). Nothing is retried forever, nothing is dropped."""

    def __init__(self, client):
        from distributed import as_completed

        self.client = client
        self.ac = as_completed([], with_results=False)
        self.tags = {}
        self.deferred = []
        self.alone_key = None

    def submit(self, tag, fn, *a):
        f = self.client.submit(fn, *a, pure=False)
        self.tags[f.key] = (tag, fn, a)
        self.ac.add(f)
        return f

    def defer(self, tag, fn, *a):
        self.deferred.append((tag, fn, a))

    def results(self):
        while True:
            for f in self.ac:
                tag, fn, a = self.tags.pop(f.key)
                res, exc = self.outcome(f)
                yield tag, fn, a, res, exc, f.key == self.alone_key
                f.release()
            if not self.deferred:
                return
            tag, fn, a = self.deferred.pop(0)
            self.alone_key = self.submit(tag, fn, *a).key

    @staticmethod
    def outcome(f):
        """(result, None) or (None, exception) of a done future. Through result(), not the status: a worker that dies
        after finishing a task takes its result with it, and the future is "lost" until the scheduler has computed it
        again: result() waits for that, while exception() then gives None (read by status, such tasks came out as
        "task failed: None" rows on a loaded machine, docs/scaleout.md)."""
        try:
            return f.result(), None
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # the task's own error, KilledWorker, cancelled
            return None, e


def death_note(args, exc, alone):
    if exc is None or not is_killed_worker(exc):
        return None
    if alone:
        return "the worker running this file alone died; not retried again"
    return "the worker running this file died (%d time(s)); not retried again" % (args.allowed_failures + 1)


# ------------------------------------------------------------------------------------------- validate
def shard_paths(jsonl_dir, i):
    return os.path.join(jsonl_dir, "shard-%06d.jsonl" % i), os.path.join(jsonl_dir, "shard-%06d.list" % i)


def resumable(jsonl_dir, i, paths):
    """A piece is complete and up to date: both files there (written atomically, list first), the list the same
    files, one row per file, newer than every file."""
    piece, lst = shard_paths(jsonl_dir, i)
    try:
        with open(lst, encoding="utf-8", errors="surrogateescape") as f:
            if f.read() != "".join(p + "\n" for p in paths):
                return None
        with open(piece, encoding="utf-8", errors="surrogateescape") as f:
            rows = [ln.rstrip("\n") for ln in f if ln.strip()]
        if len(rows) != len(paths) or os.stat(piece).st_mtime < newest_mtime(paths):
            return None
        return rows
    except OSError:
        return None


def run_validate(args, cli, files, extra):
    template = RowTemplate(cli, extra)
    cwd = os.getcwd()
    pieces = {}
    if args.jsonl:
        os.makedirs(args.jsonl, exist_ok=True)
    client, cluster = open_client(args)
    try:
        size = args.shard_size or auto_shard_size(len(files), worker_count(client))
        shards = shards_of(files, size)
        announce(args, client, len(files), len(shards), size)
        prog = Progress(len(files), args.progress)
        hosts = host_threads(client)
        run = Runner(client)
        for i, paths in enumerate(shards):
            rows = resumable(args.jsonl, i, paths) if args.jsonl and args.resume else None
            if rows is not None:
                pieces[i] = rows
                prog.add(len(paths))
            else:
                run.submit(("shard", i), T.validate_shard, cli, cwd, paths, extra, args.timeout, hosts)
        singles = {}
        for tag, fn, a, res, exc, alone in run.results():
            paths = a[2]
            rows = res["rows"] if res else None
            if rows is None and tag[0] == "shard" and len(paths) > 1:  # split: one task per file
                singles[tag[1]] = [None] * len(paths)
                for k, p in enumerate(paths):
                    run.submit(("file", tag[1], k), fn, cli, cwd, [p], extra, args.timeout, hosts)
                continue
            if rows is None and not alone and death_note(args, exc, alone):  # maybe only beside the culprit
                run.defer(tag, fn, *a)
                continue
            if rows is None:
                why = death_note(args, exc, alone) or (
                    "task failed: %s" % (exc if exc is not None else (res["stderr"].strip()[-300:] or
                                                                      "no result (exit %s)" % res["rc"])))
                rows = [template.error(paths[0], why)] if len(paths) == 1 else [template.error(p, why) for p in paths]
            if tag[0] == "file":
                i = tag[1]
                singles[i][tag[2]] = rows[0]
                prog.add(1)
                if all(r is not None for r in singles[i]):
                    finish_piece(args, pieces, i, shards[i], singles.pop(i))
            else:
                prog.add(len(paths))
                finish_piece(args, pieces, tag[1], paths, rows)
        prog.close()
    finally:
        close(client, cluster)
    if args.jsonl:  # pieces of an earlier, longer file list would be merged by `skinkit report DIR/*.jsonl`
        for name in os.listdir(args.jsonl):
            if name.startswith("shard-") and name[6:12].isdigit() and int(name[6:12]) >= len(shards):
                os.unlink(os.path.join(args.jsonl, name))
    return merge_report(cli, args, [r for i in range(len(shards)) for r in pieces[i]])


def finish_piece(args, pieces, i, paths, rows):
    pieces[i] = rows
    if args.jsonl:
        piece, lst = shard_paths(args.jsonl, i)
        atomic_write(lst, "".join(p + "\n" for p in paths))
        atomic_write(piece, "".join(r + "\n" for r in rows))


def merge_report(cli, args, rows):
    """`skinkit report - --json OUT`: the CLI's own merge of --jsonl rows into the summary a single `skinkit
    validate --json` writes. Its exit status (0 clean, 1 findings, 2 errors) is the job's."""
    out = args.json or "-"  # without --json the report goes to stdout and is dropped (never to /dev/null: the
    rc, stdout, err = T.run([cli, "report", "-", "--json", out], None, "".join(r + "\n" for r in rows))
    if args.json == "-":  # CLI replaces its output file atomically, which a device must not be)
        sys.stdout.write(stdout)
    sys.stderr.write(err)
    return 2 if rc is None else rc


# ------------------------------------------------------------------------------------------- pack/convert/...
def run_files(args, cli, verb, files, roots, extra):
    fmt = getattr(args, "format", None)
    if verb == "convert" and fmt:
        if fmt.lower() not in FORMAT_EXT:
            raise BatchError("--format takes %s, not '%s'" % (", ".join(FORMAT_EXT), fmt))
        extra = ["--format", fmt] + extra
    if verb == "bind" and args.method:
        extra = ["--method", args.method] + extra
    cwd = os.getcwd()
    items, rows, todo = [], {}, []
    for p in files:
        out = output_name(verb, p, roots[p], args.out, fmt.lower() if fmt else None)
        items.append((p, out))
    for k, (p, out) in enumerate(items):
        os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
        if args.resume and os.path.isfile(out) and os.stat(out).st_mtime >= newest_mtime([p]):
            rows[k] = {"path": p, "output": out, "status": "ok", "error": None, "resumed": True}
        else:
            todo.append(k)
    client, cluster = open_client(args)
    try:
        size = args.shard_size or max(4, min(64, -(-len(todo) // max(1, 8 * worker_count(client)))))
        shards = shards_of(todo, size)
        announce(args, client, len(todo), len(shards), size)
        prog = Progress(len(todo), args.progress)
        hosts = host_threads(client)
        run = Runner(client)
        for s in shards:
            run.submit(tuple(s), T.file_shard, cli, cwd, verb, [items[k] for k in s], extra, args.timeout, hosts)
        for tag, fn, a, res, exc, alone in run.results():
            if res is not None:
                for k, line in zip(tag, res):
                    rows[k] = json.loads(line)
                prog.add(len(tag))
            elif len(tag) > 1 and exc is not None and is_killed_worker(exc):
                for k in tag:
                    run.submit((k,), fn, cli, cwd, verb, [items[k]], extra, args.timeout, hosts)
            elif not alone and death_note(args, exc, alone):  # maybe only beside the culprit: run it alone later
                run.defer(tag, fn, *a)
            else:
                why = death_note(args, exc, alone) or "task failed: %s" % exc
                for k in tag:
                    p, out = items[k]
                    rows[k] = {"path": p, "output": out, "status": "error", "error": "%s: %s" % (p, why)}
                prog.add(len(tag))
        prog.close()
    finally:
        close(client, cluster)
    sweep_tmp(items)
    ordered = [rows[k] for k in range(len(items))]
    ok = sum(r["status"] == "ok" for r in ordered)
    report = {"files": ordered, "summary": {"files": len(ordered), "ok": ok, "errors": len(ordered) - ok}}
    if args.json == "-":
        sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
    elif args.json:
        atomic_write(args.json, json.dumps(report, ensure_ascii=False) + "\n")
    for r in ordered:
        if r["status"] != "ok":
            print("ERROR    %s" % r["error"], file=sys.stderr)
    print("%d file(s): %d ok, %d error(s)" % (len(ordered), ok, len(ordered) - ok), file=sys.stderr)
    return 2 if ok != len(ordered) else 0


def sweep_tmp(items):
    """Removes the private temporary folders (left by a task whose worker was killed mid-write)."""
    for d in sorted({os.path.dirname(o) for _p, o in items}):
        shutil.rmtree(os.path.join(d, T.TMP_DIR), ignore_errors=True)


# ------------------------------------------------------------------------------------------- main
def announce(args, client, files, shards, size):
    link = dashboard_of(client)
    print("skinkit.batch: %d file(s) in %d task(s) of up to %d on %d worker(s)%s" %
          (files, shards, size, worker_count(client), ("; dashboard " + link) if link else ""), file=sys.stderr)


def close_quietly(fn, what):
    """Runs a shutdown step; a failure is a warning on stderr: the work is done and its report must still be written."""
    try:
        fn()
    except Exception as e:
        print("skinkit.batch: warning: closing %s: %s" % (what, str(e) or type(e).__name__), file=sys.stderr)


def close(client, cluster):
    """The client, then a LocalCluster of ours. A cluster slow to stop (a worker being restarted after it died, on a
    loaded machine) must not turn a finished job into a lost report."""
    close_quietly(client.close, "the Dask client")
    if cluster is not None:
        close_quietly(cluster.close, "the local cluster")


def parser():
    p = argparse.ArgumentParser(prog="python3 -m skinkit.batch",
                                description="skinkit on a Dask cluster: whole trees, sharded, resumable. Options "
                                "not listed here are passed to the skinkit CLI.")
    sub = p.add_subparsers(dest="verb", required=True)
    for verb in VERBS:
        s = sub.add_parser(verb)
        s.add_argument("trees", nargs="+", metavar="TREE")
        s.add_argument("--scheduler", help="tcp://HOST:8786 of a running `dask scheduler` (default: a LocalCluster)")
        s.add_argument("--workers", type=int, default=max(1, os.cpu_count() or 1), help="LocalCluster workers")
        s.add_argument("--shard-size", type=int, default=0, help="files per task (default: automatic)")
        s.add_argument("--timeout", type=float, default=None, help="per-file time limit in s (the CLI's default)")
        s.add_argument("--allowed-failures", type=int, default=2,
                       help="times a task may lose its worker before its files are retried alone / reported")
        s.add_argument("--connect-timeout", default="30s")
        s.add_argument("--skinkit", help="the skinkit CLI (default: SKINKIT_CLI, beside libskinkit, PATH)")
        s.add_argument("--resume", action="store_true", help="skip outputs that are complete and up to date")
        s.add_argument("--json", help="report JSON to this file ('-' = stdout)")
        s.add_argument("--progress", action=argparse.BooleanOptionalAction, default=sys.stderr.isatty())
        if verb == "validate":
            s.add_argument("--jsonl", metavar="DIR", help="keep the per-shard `--jsonl` pieces here (--resume)")
        else:
            s.add_argument("--out", required=True, metavar="DIR")
        if verb == "convert":
            s.add_argument("--format", default="glb")
        if verb in ("bind", "weights"):
            s.add_argument("--format", default=None, help="output format (default: the input's when writable)")
        if verb == "bind":
            s.add_argument("--method")
    return p


def main(argv=None):
    args, extra = parser().parse_known_args(argv)
    try:
        if args.resume and args.verb == "validate" and not args.jsonl:
            raise BatchError("--resume for validate needs --jsonl DIR (where the finished pieces are kept)")
        cli = find_cli(args.skinkit)
        files, roots = collect(args.trees, extension_filter(cli))
        if not files:
            raise BatchError("no files to check")
        if args.verb == "validate":
            return run_validate(args, cli, files, extra)
        return run_files(args, cli, args.verb, files, roots, extra)
    except BatchError as e:
        print("skinkit.batch: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
