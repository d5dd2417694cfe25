#!/usr/bin/python3
"""The --help text of every skinkit command and the flags it accepts agree.

    test_cli_help.py SKINKIT_CLI

One table, two directions:
  * documented -> accepted: every --flag (and -o) in `skinkit CMD --help` is accepted by CMD: run alone in an
    empty folder it never gets "unknown option" (it may need a value or an input file: that is not this test's
    business);
  * accepted -> documented: every flag the command's parser compares an argument with (the string literals in
    strcmp/strncmp calls of its source, plus what the dispatcher takes for it: -o/--output for writers, --json
    [FILE|-] for the JSON commands, --timeout/--max-memory/--no-isolate for the commands that read models) appears
    in its --help text;
  * README -> help: every flag README.md shows on a `skinkit CMD ...` line is in CMD's --help.
The command -> source table below is the only list kept by hand; a new command without a row fails here.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGIN = os.path.join(ROOT, "plugin")

# command -> [(source file, function whose body holds its parser, or None for the whole file)]
SOURCES = {
    "info": [("cli_info.c", None), ("cli_skf.c", "cli_skf_info")],
    "validate": [("cli_validate.c", None)],
    "convert": [("cli_convert.c", None)],
    "report": [("cli_report.c", None)],
    "sample": [("cli_demo.c", "cli_sample")],
    "demo": [("cli_demo.c", "cli_demo")],
    "pack": [("cli_skf.c", "cli_pack")],
    "unpack": [("cli_skf.c", "cli_unpack")],
    "weights": [("cli_weights.c", None)],
    "bind": [("cli_bind.c", None)],
}
WRITERS = {"convert", "bind", "weights", "sample", "pack"}  # cli_take_output (cli_args.c)
JSON_COMMANDS = {"info", "unpack", "bind", "weights", "convert", "pack", "demo", "sample"}  # cli_json.c
LOAD_FLAGS = ["--timeout", "--max-memory", "--no-isolate"]  # cli_load.c, for cli_is_loader commands
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-o)(?![\w-])")


def function_body(text, name):
    m = re.search(r"^int %s\(int argc, char\*\* argv\) \{\n(.*?)^\}\n" % name, text, re.S | re.M)
    if not m:
        raise SystemExit("test_cli_help: %s not found (update SOURCES)" % name)
    return m.group(1)


def parsed_flags(cmd):
    flags = set()
    for fname, func in SOURCES[cmd]:
        text = open(os.path.join(PLUGIN, fname)).read()
        if func:
            text = function_body(text, func)
        flags |= set(re.findall(r'strn?cmp\(\s*[\w\[\]]+\s*,\s*"(-[-a-z0-9]+)"', text))
    flags = {f for f in flags if FLAG.fullmatch(f)}  # values such as --mirror's "-x" are not flags
    if cmd in WRITERS:
        flags |= {"-o", "--output"}
    if cmd in JSON_COMMANDS:
        flags.add("--json")
    return flags


def readme_flags(cli):
    """Flags README.md shows after `skinkit CMD` (on the same line) that CMD's --help does not mention."""
    failures, helps, seen = [], {}, 0
    path = os.path.join(ROOT, "README.md")
    for no, line in enumerate(open(path, encoding="utf-8"), 1):
        for m in re.finditer(r"skinkit (\w+)([^`\n|;&]*)", line):
            cmd = m.group(1)
            if cmd not in SOURCES:
                continue
            if cmd not in helps:
                helps[cmd] = subprocess.run([cli, cmd, "--help"], capture_output=True, text=True).stdout
            for flag in FLAG.findall(m.group(2)):
                seen += 1
                if flag != "--help" and not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(flag), helps[cmd]):
                    failures.append("README.md:%d: skinkit %s %s is not in its --help" % (no, cmd, flag))
    print("README: %d flags on skinkit command lines" % seen)
    return failures


def commands(cli):
    out = subprocess.run([cli, "--help"], capture_output=True, text=True).stdout
    return re.findall(r"^  (\w+)\s{2,}", out.split("commands:")[1], re.M)


def main():
    cli = os.path.abspath(sys.argv[1])
    failures = []
    loaders = 0
    names = commands(cli)
    for extra in sorted(set(names) ^ set(SOURCES)):
        failures.append("%s: in `skinkit --help` or in SOURCES, not both" % extra)
    with tempfile.TemporaryDirectory(prefix="sk_help.") as tmp:
        for cmd in sorted(set(names) & set(SOURCES)):
            text = subprocess.run([cli, cmd, "--help"], capture_output=True, text=True).stdout
            own = re.sub(r"`skinkit [^`]*`", "", text)  # `skinkit validate --jsonl`: another command's flag
            documented = set(FLAG.findall(own)) - {"--help"}
            accepted = parsed_flags(cmd)
            if "--max-memory" in text:  # the reading options are appended to the help of loaders
                accepted |= set(LOAD_FLAGS)
                loaders += 1
            for flag in sorted(accepted - documented):
                failures.append("%s: accepts %s but its --help does not say so" % (cmd, flag))
            for flag in sorted(documented):
                p = subprocess.run([cli, cmd, flag], cwd=tmp, capture_output=True, text=True, timeout=60)
                if "unknown option " + flag in p.stderr:
                    failures.append("%s: --help documents %s, the command refuses it" % (cmd, flag))
            print("%-8s %2d flags documented, %2d parsed" % (cmd, len(documented), len(accepted)))
    failures += readme_flags(cli)
    if loaders < 5:
        failures.append("only %d commands show the reading options" % loaders)
    for f in failures:
        print("FAIL " + f)
    print("%d commands, %d failures" % (len(names), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
