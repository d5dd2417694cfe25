#!/usr/bin/python3
"""Every skinkit command refuses bad arguments the same way: exit 2, one or two lines on stderr, nothing written.

    test_cli_errors.py SKINKIT_CLI

Malformed numbers (text, decimal comma, nan, inf, out of range, negative, trailing text) for every numeric flag,
output files with an extension no writer knows, a --format that disagrees with OUT's extension, output and input
in folders that do not exist, and '-' where a command writes a file (never a file named '-'). Each case runs in a
fresh folder holding only the rig the test generated (`skinkit sample`), so "nothing written" is checked by
listing it.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

NUMBERS = ["abc", "0,1", "nan", "1e999", "-1", "3x", ""]
MISSING = "/nonexistent-skinkit-dir/x"

# command -> numeric flags (prefix arguments, flag); every bad number must be refused
NUMERIC = [
    (["validate", "rig.glb"], ["--tolerance", "--max-influences", "--jobs", "--timeout", "--max-memory"]),
    (["info", "rig.glb"], ["--timeout", "--max-memory"]),
    (["convert", "rig.glb", "out.glb"], ["--limit", "--prune", "--timeout"]),
    (["pack", "rig.glb", "-o", "out.skf"], ["--bits", "--max-influences", "--level"]),
    (["unpack", "rig.skf"], ["--max-vertices"]),
    (["sample", "out.glb"], ["--segments", "--rings", "--bones", "--drift"]),
    (["weights", "rig.glb", "out.glb"], ["--limit", "--prune", "--quantize", "--smooth"]),
    (["bind", "rig.glb", "out.glb"], ["--max-influences", "--timeout"]),
]

# other refusals: (arguments, what stderr must mention)
CASES = [
    # unknown options and missing values
    (["demo", "--frames"], "--frames"),
    (["report", "--bogus"], "--bogus"),
    (["info", "rig.glb", "--jsn"], "--jsn"),
    (["convert", "rig.glb", "out.glb", "--limit"], "--limit"),
    (["convert", "rig.glb"], "OUT"),
    (["bind", "rig.glb", "out.glb", "--method", "magic"], "magic"),
    # extensions no writer knows, --format against OUT's extension
    (["convert", "rig.glb", "out.xyz"], "out.xyz"),
    (["convert", "rig.glb", "out"], "out"),
    (["bind", "rig.glb", "out.txt", "--method", "nearest"], "out.txt"),
    (["weights", "rig.glb", "out.txt", "--normalize"], "out.txt"),
    (["sample", "out.txt"], "out.txt"),
    (["convert", "rig.glb", "out.fbx", "--format", "glb"], "--format"),
    (["convert", "rig.glb", "out.glb", "--format", "dae"], "--format"),
    (["convert", "rig.glb", "out.glb", "--format", "obj"], "--format"),
    (["convert", "rig.glb", "out.glb", "--weights-type", "u4"], "--weights-type"),
    # folders that do not exist: outputs
    (["convert", "rig.glb", MISSING + ".glb"], "does not exist"),
    (["convert", "rig.glb", "-o", MISSING + ".glb"], "does not exist"),
    (["bind", "rig.glb", MISSING + ".glb"], "does not exist"),
    (["weights", "rig.glb", "--output", MISSING + ".glb", "--normalize"], "does not exist"),
    (["sample", MISSING + ".glb"], "does not exist"),
    (["pack", "rig.glb", "-o", MISSING + ".skf"], "does not exist"),
    (["validate", "rig.glb", "--json", MISSING + ".json"], "does not exist"),
    (["report", "rig.glb", "--json", MISSING + ".json"], "does not exist"),
    (["info", "rig.glb", "--json=" + MISSING + ".json"], "does not exist"),
    (["unpack", "rig.skf", "--json", MISSING + ".json"], "does not exist"),
    (["demo", "--json=" + MISSING + ".json"], "does not exist"),
    (["convert", "rig.glb", "out.glb", "--json", MISSING + ".json"], "does not exist"),
    # inputs that do not exist
    (["info", MISSING + ".glb"], MISSING),
    (["validate", MISSING + ".glb"], MISSING),  # an ERROR row of its table (stdout), nothing on stderr
    (["convert", MISSING + ".glb", "out.glb"], MISSING),
    (["pack", MISSING + ".glb", "-o", "out.skf"], MISSING),
    (["unpack", MISSING + ".skf"], MISSING),
    (["weights", MISSING + ".glb", "out.glb", "--normalize"], MISSING),
    (["bind", MISSING + ".glb", "out.glb"], MISSING),
    (["report", MISSING + ".jsonl"], MISSING),
    # '-' where a file is written (stdout is for JSON and text only), or read where no stdin is taken
    (["convert", "rig.glb", "-"], "-"),
    (["convert", "rig.glb", "-o", "-"], "-"),
    (["bind", "rig.glb", "-"], "-"),
    (["weights", "rig.glb", "-", "--normalize"], "-"),
    (["sample", "-"], "-"),
    (["sample", "-o", "-"], "-"),
    (["pack", "rig.glb", "-o", "-"], "-"),
    (["info", "-"], "-"),
    (["unpack", "-"], "-"),
    (["convert", "-", "out.glb"], "-"),
    # the same output twice, JSON over an input
    (["convert", "rig.glb", "a.glb", "-o", "b.glb"], "argument"),
    (["pack", "rig.glb", "-o", "a.skf", "--output", "b.skf"], "twice"),
    (["info", "rig.glb", "--json=rig.glb"], "rig.glb"),
    (["validate", "rig.glb", "--json="], "--json="),
    (["report", "rig.glb", "--json="], "--json="),
    (["convert", "rig.glb", "out.glb", "--json="], "--json="),
]


def with_bad_joint(src, dst):
    """dst: src (a .glb) with vertex 0's first JOINTS_0 entry (a non-zero weight's) set past the skin's joints."""
    data = bytearray(open(src, "rb").read())
    jlen = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + jlen])
    bin_at = 20 + jlen + 8
    prim = next(p for m in doc["meshes"] for p in m["primitives"] if "JOINTS_0" in p["attributes"])
    acc = doc["accessors"][prim["attributes"]["JOINTS_0"]]
    view = doc["bufferViews"][acc["bufferView"]]
    at = bin_at + view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    if acc["componentType"] == 5121:
        data[at] = 250
    else:
        struct.pack_into("<H", data, at, 60000)
    open(dst, "wb").write(bytes(data))


def conversion_notes(cli, seed, base):
    """What convert says when it cannot write what was asked as asked: an existing OUT (exit 1, the CLI's --force,
    OUT untouched) and weights the reader had to drop (a warning, not a silent vertex without weights)."""
    problems = []
    work = os.path.join(base, "notes")
    shutil.copytree(seed, work)
    open(os.path.join(work, "out.glb"), "w").write("keep")
    p = subprocess.run([cli, "convert", "rig.glb", "out.glb"], cwd=work, capture_output=True, text=True, timeout=120)
    if p.returncode != 1 or "--force" not in p.stderr or "set overwrite" in p.stderr or \
            open(os.path.join(work, "out.glb")).read() != "keep":
        problems.append("convert onto an existing OUT: exit %d, %r" % (p.returncode, p.stderr.strip()[:200]))
    with_bad_joint(os.path.join(work, "rig.glb"), os.path.join(work, "bad.glb"))
    p = subprocess.run([cli, "convert", "bad.glb", "bad_out.glb"], cwd=work, capture_output=True, text=True,
                       timeout=120)
    if p.returncode != 0 or "cannot be kept" not in p.stderr or "1 vertices are left with no weight" not in p.stderr:
        problems.append("convert of a weight on a joint past the skin: exit %d, %r" % (p.returncode,
                                                                                     p.stderr.strip()[:300]))
    return problems


def with_name(src, dst, name):
    """dst: src (a .glb) with its first node renamed (the JSON chunk rewritten, padded to 4 bytes)."""
    data = open(src, "rb").read()
    jlen = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + jlen])
    doc["nodes"][0]["name"] = name
    js = json.dumps(doc).encode()
    js += b" " * (-len(js) % 4)
    rest = data[20 + jlen:]
    out = struct.pack("<III", 0x46546C67, 2, 12 + 8 + len(js) + len(rest)) + struct.pack("<II", len(js), 0x4E4F534A)
    open(dst, "wb").write(out + js + rest)


def on_terminal(cmd, cwd):
    """stdout and stderr of cmd run on a pseudo-terminal (bytes)."""
    import pty
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=slave, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    p.wait(timeout=120)
    return out


def terminal_escapes(cli, seed, base):
    """A name holding terminal controls (ESC sequences, BEL, DEL, a C1 CSI, a carriage return) is shown as \\xHH when
    the output is a terminal, on stdout and in stderr's messages; through a pipe the bytes are as the file has them."""
    problems = []
    work = os.path.join(base, "term")
    shutil.copytree(seed, work)
    evil = "evil\x1b]0;pwned\x07\x1b[2J\x7f\x9b31m\rX"
    with_name(os.path.join(work, "rig.glb"), os.path.join(work, "evil.glb"), evil)
    shown = on_terminal([cli, "info", "evil.glb"], work)
    if b"evil\\x1b]0;pwned\\x07\\x1b[2J\\x7f\\xc2\\x9b31m\\x0dX" not in shown or b"\x1b" in shown or b"\x07" in shown:
        problems.append("info on a terminal shows the name as %r" % shown[:400])
    shown = on_terminal([cli, "info", "nothere\x1b[2J.glb"], work)
    if b"nothere\\x1b[2J.glb" not in shown or b"\x1b" in shown:
        problems.append("an error on a terminal shows the path as %r" % shown[:300])
    p = subprocess.run([cli, "info", "evil.glb"], cwd=work, capture_output=True, timeout=120)
    if evil.encode() not in p.stdout:
        problems.append("info through a pipe changed the name: %r" % p.stdout[:400])
    return problems


def main():
    cli = os.path.abspath(sys.argv[1])
    failures, runs = [], 0
    with tempfile.TemporaryDirectory(prefix="sk_errors.") as base:
        seed = os.path.join(base, "seed")
        os.mkdir(seed)
        for args in (["sample", "rig.glb"], ["pack", "rig.glb", "-o", "rig.skf"]):
            subprocess.run([cli] + args, cwd=seed, check=True, capture_output=True)
        before = sorted(os.listdir(seed))
        cases = [(pre + [flag, bad], flag) for pre, flags in NUMERIC for flag in flags for bad in NUMBERS]
        for n, (args, needle) in enumerate(cases + CASES):
            work = os.path.join(base, "c%d" % n)
            shutil.copytree(seed, work)
            p = subprocess.run([cli] + args, cwd=work, capture_output=True, text=True, timeout=120)
            runs += 1
            lines = p.stderr.strip("\n").split("\n") if p.stderr.strip() else []
            label = "skinkit " + " ".join("'%s'" % a if not a or " " in a else a for a in args)
            problems = []
            if p.returncode != 2:
                problems.append("exit %d (expected 2)" % p.returncode)
            table = args[0] == "validate" and needle == MISSING  # validate reports unreadable files in its table
            if not (1 <= len(lines) <= 2 or (table and not lines)):
                problems.append("%d stderr lines" % len(lines))
            if needle not in (p.stdout + p.stderr if table else p.stderr):
                problems.append("stderr does not mention %r" % needle)
            after = sorted(os.listdir(work))
            if after != before:
                problems.append("wrote %s" % sorted(set(after) - set(before)))
            if problems:
                failures.append("%s: %s\n    stderr: %s" % (label, "; ".join(problems), p.stderr.strip()[:300]))
        failures += conversion_notes(cli, seed, base)
        failures += terminal_escapes(cli, seed, base)
        runs += 5
    for f in failures:
        print("FAIL " + f)
    print("%d refusals checked, %d failures" % (runs, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
