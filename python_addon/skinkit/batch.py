"""skinkit.batch: validate, pack, convert, bind and edit weights of whole asset trees on a Dask cluster.

    python3 -m skinkit.batch validate TREE... [--scheduler tcp://HOST:8786] [--json OUT] [--jsonl DIR] [--resume]
    python3 -m skinkit.batch pack     TREE... --out DIR [--resume] [skinkit pack options]
    python3 -m skinkit.batch convert  TREE... --out DIR [--format glb|gltf|fbx|fbxa|dae] [convert options]
    python3 -m skinkit.batch bind     TREE... --out DIR [--method M] [bind options]
    python3 -m skinkit.batch weights  TREE... --out DIR [--normalize --limit 4 ...]

Without --scheduler a LocalCluster is started on this machine (--workers N); with one, the job runs on that
cluster (workers need the `skinkit` CLI: the client's path on a shared file system, SKINKIT_CLI, or PATH, and the
files at the same paths). The file list is the CLI's own (`skinkit validate --list`: same order, same skips, the
walk's errors as rows), cut into shards of many files; each shard is one Dask task that runs the `skinkit` CLI, which reads every file in its own
child process with a time limit. Options this front end does not know are passed to the CLI unchanged.

validate: the rows are the CLI's own `--jsonl` rows; the report (--json) is merged by `skinkit report`, so it
equals a single-machine `skinkit validate --json` of the same tree. Exit status as the CLI's: 0 clean, 1
findings, 2 errors. See docs/scaleout.md for the design, measurements and multi-machine set-up.

This module is not imported by the Blender addon (its __init__ never loads it); it needs python3-distributed.
"""
import argparse
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time

from . import batch_tasks as T

VERBS = ("validate", "pack", "convert", "bind", "weights")
FORMAT_EXT = {"glb": ".glb", "gltf": ".gltf", "fbx": ".fbx", "fbxa": ".fbx", "dae": ".dae"}
WRITABLE = (".glb", ".gltf", ".dae", ".vrm")  # .vrm: an edit of a VRM source


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


def cli_version(cli):
    """`skinkit --version`: recorded with --resume's pieces, so a different CLI redoes them."""
    rc, out, _err = T.run([cli, "--version"], None)
    return out.strip() if rc == 0 else "unknown"


# ------------------------------------------------------------------------------------------- collecting files
def list_files(cli, trees, timeout):
    """The file list of `skinkit validate TREE...`, from the CLI itself (`validate --list`: NUL-terminated records,
    'F' + path, or 'E' + the --jsonl row of a walk error: a folder not read, a broken link, a folder too deep), so
    the batch checks the files the CLI would check, in its order, and reports its walk errors as it does. Returns
    entries ("F", path) / ("E", row)."""
    cmd = [cli, "validate", "--list"] + (["--timeout", repr(float(timeout))] if timeout is not None else [])
    p = T.run_bytes(cmd + ["--"] + list(trees))
    sys.stderr.write(p[2].decode("utf-8", "replace"))  # the CLI's notes (skipped FIFOs, ...)
    if p[0] != 0:
        why = p[2].decode("utf-8", "replace").strip().split("\n")[-1] if p[2].strip() else "exit %s" % p[0]
        if "no files to check" in why:
            raise BatchError("no files to check")
        raise BatchError("`skinkit validate --list` failed: %s" % why)
    entries = []
    for rec in p[1].split(b"\0")[:-1]:
        if rec[:1] == b"F":
            entries.append(("F", os.fsdecode(rec[1:])))
        elif rec[:1] == b"E":
            entries.append(("E", rec[1:].decode("utf-8")))
        else:
            raise BatchError("`skinkit validate --list` printed a record this front end does not know")
    return entries


def root_of(path, trees):
    """The TREE argument a listed file was found under (its output name is relative to it): the first folder TREE
    whose walk names it (TREE/...), else the file's own folder (a file named as TREE)."""
    for t in trees:
        if path != t and path.startswith(t if t.endswith("/") else t + "/") and os.path.isdir(t):
            return t
    return os.path.dirname(path) or "."


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


def stat_sig(path):
    """What --resume compares of an input: size, mtime and ctime in ns, inode and device (a copy that keeps an
    older mtime, `cp -p` / `rsync -a` / `tar x`, still changes the ctime). None when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]


def writable_dir(d, what):
    """Creates folder d (and its parents) for the job's output, or a BatchError naming it: before any work."""
    try:
        os.makedirs(d, exist_ok=True)
    except OSError as e:
        raise BatchError("cannot create %s %s: %s" % (what, d, e.strerror or e)) from None
    if not os.access(d, os.W_OK | os.X_OK):
        raise BatchError("cannot write %s %s: permission denied" % (what, d))


def check_output_folder(out, trees):
    """--out must not be an input tree, lie inside one or hold one: the batch would write over its inputs (a
    weights/convert output keeps the input's name when the format is the same) or take its own outputs as
    inputs next time."""
    o = os.path.realpath(out)
    for t in trees:
        if not os.path.isdir(t):
            continue
        r = os.path.realpath(t)
        if o == r or o.startswith(r.rstrip("/") + "/") or r.startswith(o.rstrip("/") + "/"):
            how = "is" if o == r else "is inside" if o.startswith(r.rstrip("/") + "/") else "holds"
            raise BatchError("--out %s %s the input tree %s: the outputs would replace or mix with the inputs; "
                             "choose a folder outside the inputs" % (out, how, t))


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


def piece_list(header, entries):
    """The text of a piece's .list: the run's header (CLI version and options), then one JSON line per entry: a
    file with its stat_sig as it was when the shard was handed out, or a walk error's row. --resume reuses a piece
    only when this text is the same now, so a changed option, CLI, file list or file redoes it."""
    lines = [json.dumps(header, sort_keys=True)]
    for kind, v in entries:
        lines.append(json.dumps([kind, v, stat_sig(v)] if kind == "F" else [kind, v]))
    return "".join(ln + "\n" for ln in lines)


def resumable(jsonl_dir, i, listing, count):
    """A piece is complete and up to date: both files there (written atomically, list first), the list the same
    text (piece_list), one row per entry."""
    piece, lst = shard_paths(jsonl_dir, i)
    try:
        with open(lst, encoding="utf-8", errors="surrogateescape") as f:
            if f.read() != listing:
                return None
        with open(piece, encoding="utf-8", errors="surrogateescape") as f:
            rows = [ln.rstrip("\n") for ln in f if ln.strip()]
        return rows if len(rows) == count else None
    except OSError:
        return None


def with_walk_errors(entries, rows):
    """The rows of a shard in entry order: the CLI's rows of its files, the walk errors' rows where they were found."""
    it = iter(rows)
    return [next(it) if kind == "F" else v for kind, v in entries]


def run_validate(args, cli, entries, extra):
    template = RowTemplate(cli, extra)
    cwd = os.getcwd()
    pieces, listings = {}, {}
    header = {"cli": cli_version(cli), "options": extra, "timeout": args.timeout}
    client, cluster = open_client(args)
    state = {"pieces": pieces, "shards": None}
    try:
        size = args.shard_size or auto_shard_size(len(entries), worker_count(client))
        shards = shards_of(entries, size)
        state["shards"] = shards
        announce(args, client, len(entries), len(shards), size)
        prog = Progress(len(entries), args.progress)
        hosts = host_threads(client)
        run = Runner(client)
        submit = lambda tag, paths: run.submit(tag, T.validate_shard, cli, args.explicit_cli, cwd, paths, extra,
                                               args.timeout, hosts)
        for i, ents in enumerate(shards):
            listings[i] = piece_list(header, ents) if args.jsonl else None
            rows = resumable(args.jsonl, i, listings[i], len(ents)) if args.jsonl and args.resume else None
            paths = [v for kind, v in ents if kind == "F"]
            if rows is None and not paths:  # walk errors only: nothing to check
                rows = with_walk_errors(ents, [])
                finish_piece(args, pieces, i, listings[i], rows)
            elif rows is not None:
                pieces[i] = rows
            else:
                submit(("shard", i), paths)
                continue
            prog.add(len(ents))
        singles = {}
        for tag, fn, a, res, exc, alone in run.results():
            paths = a[3]
            rows = res["rows"] if res else None
            if rows is None and tag[0] == "shard" and len(paths) > 1:  # split: one task per file
                singles[tag[1]] = [None] * len(paths)
                for k, p in enumerate(paths):
                    submit(("file", tag[1], k), [p])
                continue
            if rows is None and not alone and death_note(args, exc, alone):  # maybe only beside the culprit
                run.defer(tag, fn, *a)
                continue
            if rows is None:
                why = death_note(args, exc, alone) or (
                    "task failed: %s" % (exc if exc is not None else (T.reason(res["stderr"])[-300:] or
                                                                      "no result (exit %s)" % res["rc"])))
                rows = [template.error(p, why) for p in paths]
            i = tag[1]
            if tag[0] == "file":
                singles[i][tag[2]] = rows[0]
                prog.add(1)
                if all(r is not None for r in singles[i]):
                    prog.add(len(shards[i]) - len(singles[i]))
                    finish_piece(args, pieces, i, listings[i], with_walk_errors(shards[i], singles.pop(i)))
            else:
                prog.add(len(shards[i]))
                finish_piece(args, pieces, i, listings[i], with_walk_errors(shards[i], rows))
        prog.close()
    except BaseException:
        stop_cli_processes(client)
        if args.jsonl and isinstance(sys.exc_info()[1], (KeyboardInterrupt, Interrupted)):
            print("skinkit.batch: interrupted: %d of %s piece(s) kept in %s (--resume goes on from them)" %
                  (len(pieces), len(state["shards"]) if state["shards"] is not None else "?", args.jsonl),
                  file=sys.stderr)
        raise
    finally:
        close(client, cluster)
    if args.jsonl:  # pieces of an earlier, longer file list would be merged by `skinkit report DIR/*.jsonl`
        for name in os.listdir(args.jsonl):
            if name.startswith("shard-") and name[6:12].isdigit() and int(name[6:12]) >= len(shards):
                os.unlink(os.path.join(args.jsonl, name))
    return merge_report(cli, args, [r for i in range(len(shards)) for r in pieces[i]], len(shards))


def finish_piece(args, pieces, i, listing, rows):
    pieces[i] = rows
    if args.jsonl:
        piece, lst = shard_paths(args.jsonl, i)
        atomic_write(lst, listing)
        atomic_write(piece, "".join(r + "\n" for r in rows))


def merge_report(cli, args, rows, shard_count):
    """`skinkit report - --json OUT`: the CLI's own merge of --jsonl rows into the summary a single `skinkit
    validate --json` writes. Its exit status (0 clean, 1 findings, 2 errors) is the job's. Its last line counts the
    job's pieces (the rows reach it as one stream)."""
    out = args.json or "-"  # without --json the report goes to stdout and is dropped (never to /dev/null: the
    rc, stdout, err = T.run([cli, "report", "-", "--json", out], None, "".join(r + "\n" for r in rows))
    if args.json == "-":  # CLI replaces its output file atomically, which a device must not be)
        sys.stdout.write(stdout)
    sys.stderr.write(re.sub(r"^\d+ piece\(s\), ", "%d piece(s), " % shard_count, err, flags=re.M))
    return 2 if rc is None else rc


# ------------------------------------------------------------------------------------------- pack/convert/...
MANIFEST = ".skinkit-batch-resume.json"  # in --out: what --resume compares (the run's header, each output's input)


def probe_verb(cli, verb, extra, fmt):
    """`skinkit VERB MISSING OUT OPTIONS` in a scratch folder: a typo in the options is refused here, once, with the
    CLI's own reason, before a cluster starts (the CLI checks its arguments before reading the input)."""
    d = tempfile.mkdtemp(prefix="skbatch-probe-")
    try:
        missing, out = os.path.join(d, "missing.glb"), os.path.join(d, "out")
        out += ".skf" if verb == "pack" else FORMAT_EXT.get(fmt or "glb", ".glb")
        cmd = [cli, "pack", missing, "-o", out] if verb == "pack" else [cli, verb, missing, out]
        _rc, _out, err = T.run(cmd + list(extra), None)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if "see skinkit %s --help" % verb in err:
        raise BatchError("`skinkit %s` refused the options %s: %s" % (verb, " ".join(extra), T.reason(err)))


def error_row(path, out, why):
    return {"path": path, "output": out, "status": "error", "error": "%s: %s" % (path, why)}


def plan(verb, entries, trees, out_dir, fmt):
    """(items, rows): items[k] = (input, output) per entry ((None, None) for a walk error); rows holds the rows known
    before any work: walk errors, outputs two inputs would share, outputs that are inputs."""
    items, rows = [], {}
    for kind, v in entries:
        if kind == "E":
            row = json.loads(v)
            rows[len(items)] = {"path": row.get("path"), "output": None, "status": "error", "error": row.get("error")}
            items.append((None, None))
        else:
            items.append((v, output_name(verb, v, root_of(v, trees), out_dir, fmt)))
    by_out = {}
    for k, (p, out) in enumerate(items):
        if p is not None:
            by_out.setdefault(os.path.abspath(out), []).append(k)
    for ks in (ks for ks in by_out.values() if len(ks) > 1):  # a.fbx and a.fbx.glb -> a.fbx.glb; two TREEs' x.glb
        for k in ks:
            others = ", ".join(items[j][0] for j in ks if j != k)
            rows[k] = error_row(items[k][0], items[k][1], "its output %s would also be written for %s: written for "
                                "neither (rename one)" % (items[k][1], others))
    inputs = {tuple(sig[3:]) for sig in (stat_sig(p) for p, _o in items if p is not None) if sig}
    real = {os.path.realpath(p) for p, _o in items if p is not None}
    for k, (p, out) in enumerate(items):
        sig = stat_sig(out) if p is not None else None
        if p is not None and k not in rows and (os.path.realpath(out) in real or (sig and tuple(sig[3:]) in inputs)):
            rows[k] = error_row(p, out, "its output %s is one of the inputs: not written over" % out)
    return items, rows


def load_manifest(out_dir, header):
    try:
        with open(os.path.join(out_dir, MANIFEST), encoding="utf-8", errors="surrogateescape") as f:
            data = json.load(f)
        return data["outputs"] if data.get("header") == header else {}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def save_manifest(out_dir, header, outputs):
    try:
        atomic_write(os.path.join(out_dir, MANIFEST), json.dumps({"header": header, "outputs": outputs}) + "\n")
    except OSError as e:
        print("skinkit.batch: warning: --resume state not saved: %s" % e, file=sys.stderr)


def run_files(args, cli, verb, entries, extra):
    fmt = getattr(args, "format", None)
    if verb == "convert" and fmt:
        if fmt.lower() not in FORMAT_EXT:
            raise BatchError("--format takes %s, not '%s'" % (", ".join(FORMAT_EXT), fmt))
        extra = ["--format", fmt] + extra
    if verb == "bind" and args.method:
        extra = ["--method", args.method] + extra
    probe_verb(cli, verb, extra, fmt.lower() if fmt else None)
    writable_dir(args.out, "the output folder")
    cwd = os.getcwd()
    items, rows = plan(verb, entries, args.trees, args.out, fmt.lower() if fmt else None)
    header = {"verb": verb, "cli": cli_version(cli), "options": extra, "timeout": args.timeout}
    done = load_manifest(args.out, header)
    sig_in = {k: stat_sig(p) for k, (p, _o) in enumerate(items) if p is not None and k not in rows}
    todo = []
    for k in sig_in:
        p, out = items[k]
        if args.resume and done.get(out) == [sig_in[k], stat_sig(out)]:
            rows[k] = {"path": p, "output": out, "status": "ok", "error": None, "resumed": True}
        else:
            todo.append(k)
    made = missing_folders(args.out, [items[k][1] for k in todo])
    client, cluster = open_client(args)
    try:
        size = args.shard_size or max(4, min(64, -(-len(todo) // max(1, 8 * worker_count(client)))))
        shards = shards_of(todo, size)
        announce(args, client, len(todo), len(shards), size)
        prog = Progress(len(todo), args.progress)
        hosts = host_threads(client)
        run = Runner(client)
        task = (T.file_shard, cli, args.explicit_cli, cwd, verb)
        for s in shards:
            run.submit(tuple(s), *task, [items[k] for k in s], extra, args.timeout, hosts)
        for tag, fn, a, res, exc, alone in run.results():
            if res is not None:
                for k, line in zip(tag, res):
                    rows[k] = json.loads(line)
                prog.add(len(tag))
            elif len(tag) > 1 and exc is not None and is_killed_worker(exc):
                for k in tag:
                    run.submit((k,), *task, [items[k]], extra, args.timeout, hosts)
            elif not alone and death_note(args, exc, alone):  # maybe only beside the culprit: run it alone later
                run.defer(tag, fn, *a)
            else:
                why = death_note(args, exc, alone) or "task failed: %s" % exc
                for k in tag:
                    rows[k] = error_row(items[k][0], items[k][1], why)
                prog.add(len(tag))
        prog.close()
    except BaseException:
        stop_cli_processes(client)
        raise
    finally:
        close(client, cluster)
        sweep_tmp(items, made)
        for k in todo:
            if k in rows and rows[k]["status"] == "ok":
                done[items[k][1]] = [sig_in[k], stat_sig(items[k][1])]
        save_manifest(args.out, header, done)
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


def missing_folders(out_dir, outputs):
    """The folders between out_dir and the outputs that do not exist yet (the tasks create them as they write)."""
    top = os.path.abspath(out_dir)
    found = set()
    for o in outputs:
        d = os.path.dirname(os.path.abspath(o))
        while d.startswith(top + "/") and d not in found and not os.path.isdir(d):
            found.add(d)
            d = os.path.dirname(d)
    return found


def sweep_tmp(items, made=()):
    """Removes the private temporary folders (left by a task whose worker was killed mid-write), then the folders
    this run created that stayed empty (every input under them failed)."""
    for d in sorted({os.path.dirname(o) for _p, o in items if o is not None}):
        shutil.rmtree(os.path.join(d, T.TMP_DIR), ignore_errors=True)
    for d in sorted(made, key=len, reverse=True):
        try:
            os.rmdir(d)
        except OSError:
            pass  # it holds outputs


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


class Interrupted(Exception):
    """SIGTERM (or SIGHUP) to the driver: unwinds like Ctrl-C, so the CLI processes are stopped and the cluster closed."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def on_signal(signum, _frame):
    raise Interrupted(signum)


def stop_cli_processes(client):
    """Kills the process group of every CLI run still going on the workers (an interrupted or failed job): the CLI
    runs in a session of its own (so a time limit can kill its readers too), which a worker's shutdown does not
    reach. Best effort, a few seconds at most."""
    if client is None:
        return
    try:
        client.run(T.kill_groups)
    except BaseException as e:  # a lost worker, a second Ctrl-C: the CLI's own limits still end them
        print("skinkit.batch: warning: could not stop the CLI processes on every worker: %s" %
              (str(e) or type(e).__name__), file=sys.stderr)


def main(argv=None):
    args, extra = parser().parse_known_args(argv)
    args.explicit_cli = bool(args.skinkit)  # --skinkit wins on every worker too (over the worker's SKINKIT_CLI)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    try:
        if args.resume and args.verb == "validate" and not args.jsonl:
            raise BatchError("--resume for validate needs --jsonl DIR (where the finished pieces are kept)")
        cli = find_cli(args.skinkit)
        if args.json and args.json != "-" and not os.path.isdir(os.path.dirname(os.path.abspath(args.json))):
            raise BatchError("cannot write %s: the folder %s does not exist" %
                             (args.json, os.path.dirname(os.path.abspath(args.json))))
        if args.verb == "validate" and args.jsonl:
            writable_dir(args.jsonl, "the pieces folder")
        if args.verb != "validate":
            check_output_folder(args.out, args.trees)
        entries = list_files(cli, args.trees, args.timeout)
        if args.verb == "validate":
            return run_validate(args, cli, entries, extra)
        return run_files(args, cli, args.verb, entries, extra)
    except BatchError as e:
        print("skinkit.batch: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:  # an output that cannot be written mid-run (disk full, permissions changed)
        print("skinkit.batch: %s%s" % (e.strerror or e, (": " + e.filename) if e.filename else ""), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("skinkit.batch: interrupted (SIGINT)", file=sys.stderr)
        return 130
    except Interrupted as e:
        print("skinkit.batch: interrupted (%s)" % signal.Signals(e.signum).name, file=sys.stderr)
        return 128 + e.signum


if __name__ == "__main__":
    sys.exit(main())
