#!/usr/bin/python3
"""Every --json output of the skinkit CLI validates against its schema in docs/schema/ (docs/json.md).

    test_json_schema.py SKINKIT_CLI

Runs every command with --json (info, validate, validate --jsonl, report, unpack, bind, weights, convert, pack, demo,
sample) on files the test generates (`skinkit sample`) and, when SKINKIT_ASSETS is set, on corpus files; each
document must name its schema ("schema": "skinkit.<name>", "version": 1), validate against
docs/schema/<name>.schema.json, and follow the family's naming rules (no "file"/"input" keys, no *_ms timings,
"joints" always a list of objects, "meshes" always a list). --json FILE and --json=FILE must write the same document
stdout gets. The validator below implements the JSON Schema subset the schema files use (type, enum, required,
properties, additionalProperties, items, anyOf, $ref to a local $defs entry or a sibling file); Debian's
python3-jsonschema is not needed.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA_DIR = os.path.join(ROOT, "docs", "schema")
TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}
_schemas = {}


def load_schema(name):
    if name not in _schemas:
        with open(os.path.join(SCHEMA_DIR, name)) as f:
            _schemas[name] = json.load(f)
    return _schemas[name]


def type_ok(value, t):
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, TYPES[t])


def resolve(ref, root):
    if ref.startswith("#/$defs/"):
        return load_schema(root)["$defs"][ref[8:]], root
    return load_schema(ref), ref


def check(value, schema, root, where, errors):
    """Appends "where: problem" lines to errors; root is the schema file name (for $ref)."""
    if "$ref" in schema:
        sub, sub_root = resolve(schema["$ref"], root)
        check(value, sub, sub_root, where, errors)
    if "anyOf" in schema:
        if not any(not check(value, s, root, where, []) for s in schema["anyOf"]):
            errors.append("%s: matches none of anyOf" % where)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(type_ok(value, t) for t in types):
            errors.append("%s: %r is not %s" % (where, value, "/".join(types)))
            return errors
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: %r not in %r" % (where, value, schema["enum"]))
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                errors.append("%s: missing \"%s\"" % (where, key))
        for key, v in value.items():
            if key in props:
                check(v, props[key], root, "%s.%s" % (where, key), errors)
            elif schema.get("additionalProperties", True) is False:
                errors.append("%s: unexpected key \"%s\"" % (where, key))
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            check(v, schema["items"], root, "%s[%d]" % (where, i), errors)
    return errors


def naming_rules(value, where, errors):
    """The family's key names: the same thing has the same name everywhere."""
    if isinstance(value, dict):
        for key, v in value.items():
            w = "%s.%s" % (where, key)
            if key in ("file", "input", "mesh_list") or key.endswith("_ms") or key.endswith("_milliseconds"):
                errors.append("%s: old key name" % w)
            if key == "joints" and not (isinstance(v, list) and all(isinstance(j, dict) for j in v)):
                errors.append("%s: \"joints\" must be a list of objects" % w)
            if key == "meshes" and not isinstance(v, list):
                errors.append("%s: \"meshes\" must be a list" % w)
            if key == "seconds" and not type_ok(v, "number"):
                errors.append("%s: \"seconds\" must be a number" % w)
            naming_rules(v, w, errors)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            naming_rules(v, "%s[%d]" % (where, i), errors)
    return errors


class Run:
    def __init__(self, cli, tmp):
        self.cli, self.tmp, self.failures, self.documents = cli, tmp, [], {}

    def fail(self, msg):
        self.failures.append(msg)
        print("FAIL " + msg)

    def run(self, args, codes=(0,)):
        p = subprocess.run([self.cli] + args, cwd=self.tmp, capture_output=True, timeout=600)
        if p.returncode not in codes:
            self.fail("%s: exit %d, stderr: %s" % (" ".join(args), p.returncode, p.stderr.decode(errors="replace")[:400]))
            return None
        return p.stdout.decode("utf-8")

    def validate(self, label, doc, expect):
        name = doc.get("schema", "") if isinstance(doc, dict) else ""
        errors = []
        if name != "skinkit." + expect:
            errors.append("schema is %r, expected skinkit.%s" % (name, expect))
        else:
            errors = check(doc, load_schema(expect + ".schema.json"), expect + ".schema.json", "$", [])
        naming_rules(doc, "$", errors)
        if errors:
            self.fail("%s: %s" % (label, "; ".join(errors[:8])))
        self.documents[expect] = self.documents.get(expect, 0) + 1

    def json_of(self, args, expect, codes=(0,), lines=False):
        """Runs args (which include --json or --jsonl), validates each document; returns them."""
        out = self.run(args, codes)
        if out is None:
            return []
        label = "skinkit " + " ".join(args)
        try:
            docs = [json.loads(ln) for ln in out.splitlines() if ln.strip()] if lines else [json.loads(out)]
        except ValueError as e:
            self.fail("%s: not JSON (%s): %s" % (label, e, out[:200]))
            return []
        for d in docs:
            self.validate(label, d, expect)
        return docs

    def to_file(self, args, expect, name):
        """--json FILE.json and --json=FILE write what stdout gets (timings aside)."""
        strip = lambda d: {k: v for k, v in d.items() if "seconds" not in k and k != "meshes"}
        ref = self.json_of(args + ["--json"], expect)
        for form in ([name], ["--json=" + name]):
            path = os.path.join(self.tmp, name)
            if os.path.exists(path):
                os.unlink(path)
            argv = args + (["--json"] + form if not form[0].startswith("--json=") else form)
            if self.run(argv + (["--force"] if expect in ("convert", "pack", "bind", "weights", "sample") else [])) is None:
                continue
            try:
                got = json.load(open(path))
            except (OSError, ValueError) as e:
                self.fail("%s: FILE not written or not JSON: %s" % (" ".join(argv), e))
                continue
            self.validate(" ".join(argv), got, expect)
            if ref and strip(got) != strip(ref[0]):
                self.fail("%s: FILE differs from stdout" % " ".join(argv))


def generated(r):
    r.json_of(["sample", "rig.glb", "--json"], "sample")
    r.json_of(["sample", "-o", "drift.glb", "--drift", "0.1", "--bones", "3", "--json", "-"], "sample")
    r.json_of(["sample", "rig.dae", "--json"], "sample")
    models = ["rig.glb", "drift.glb", "rig.dae"]
    for m in models:
        r.json_of(["info", m, "--json"], "info")
    r.json_of(["info"] + models + ["--json"], "info", lines=True)
    r.json_of(["validate", "rig.glb", "drift.glb", "--json", "-"], "validate", codes=(1,))
    rows = r.json_of(["validate", "rig.glb", "drift.glb", "--jsonl"], "validate.file", codes=(1,), lines=True)
    with open(os.path.join(r.tmp, "rows.jsonl"), "w") as f:
        f.writelines(json.dumps(x, separators=(",", ":"), ensure_ascii=False) + "\n" for x in rows)
    r.json_of(["report", "rows.jsonl", "--json", "-"], "validate", codes=(1,))
    r.json_of(["report", "rows.jsonl"], "validate", codes=(1,))
    r.json_of(["validate", "rig.glb", "--json", "--jobs", "1"], "validate")  # bare --json: stdout
    r.json_of(["report", "rows.jsonl", "--json"], "validate", codes=(1,))
    for argv in (["validate", "rig.glb", "--json=v.json"], ["report", "--json=v.json", "rows.jsonl"]):
        if r.run(argv, (0, 1)) is not None:
            r.validate(" ".join(argv), json.load(open(os.path.join(r.tmp, "v.json"))), "validate")
    r.json_of(["convert", "drift.glb", "fixed.glb", "--normalize", "--json"], "convert")
    r.json_of(["convert", "rig.glb", "-o", "rig2.dae", "--json"], "convert")
    r.json_of(["pack", "rig.glb", "-o", "rig.skf", "--json"], "pack")
    r.json_of(["pack", "drift.glb", "--output", "drift.skf", "--bits", "16", "--file-order", "--json"], "pack")
    r.json_of(["info", "rig.skf", "--json"], "info")
    r.json_of(["unpack", "rig.skf", "--indices-from", "rig.glb", "--json", "-"], "unpack")
    r.json_of(["unpack", "drift.skf", "--json", "--max-vertices", "3"], "unpack")
    for method in ("nearest", "capsule", "robust"):
        r.json_of(["bind", "rig.glb", "b-%s.glb" % method, "--method", method, "--json"], "bind")
    r.json_of(["weights", "drift.glb", "-o", "w.glb", "--normalize", "--prune", "0.01", "--limit", "2", "--json"],
              "weights")
    r.json_of(["weights", "drift.glb", "w2.glb", "--remove-rogue", "--smooth", "2", "--quantize", "8", "--json"],
              "weights")
    leg = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "two_material_leg.glb")
    r.json_of(["weights", leg, "leg-w.glb", "--smooth", "2", "--mirror", "+x", "--json"], "weights")  # one surface
    r.json_of(["bind", leg, "leg-b.glb", "--json"], "bind")
    # cameras, lights and empty nodes listed from an FBX (Assimp) and from the .glb written from it (glTF reader)
    objs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "scene_objects.fbx")
    r.run(["convert", objs, "objs.glb"], (0,))
    for m in (objs, "objs.glb"):
        for doc in r.json_of(["info", m, "--json"], "info"):
            got = sorted((o["kind"], o["name"], o["parent"]) for o in doc.get("objects", []))
            held = ("light", "KneeLamp", "thigh") in got and ("empty", "MarkerChild", "Marker") in got
            if len(got) != 9 or not held:
                r.fail("info %s: objects %r" % (m, got))
            mat = doc["meshes"][0].get("material")  # none, as Blender shows it (not Assimp's "DefaultMaterial")
            if doc.get("materials") or mat is not None:
                r.fail("info %s: materials %r, mesh material %r" % (m, doc.get("materials"), mat))
    tex = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "textured_rig.fbx")
    for doc in r.json_of(["info", tex, "--json"], "info"):  # a material of the file's own: listed, the mesh's
        if [x.get("name") for x in doc.get("materials") or []][:1] != ["Skin"] or doc["meshes"][0].get("material") != 0:
            r.fail("info %s: materials %r" % (tex, doc.get("materials")))
    unskinned = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unskinned")  # files without skins
    for m in ("bare_rig.dae", "anim_only.glb"):
        r.json_of(["info", os.path.join(unskinned, m), "--json"], "info")
    r.json_of(["bind", os.path.join(unskinned, "bare_rig.glb"), "bare.glb", "--meshes", "Body", "--json"], "bind")
    r.json_of(["convert", os.path.join(unskinned, "anim_only.fbx"), "anim.glb", "--json"], "convert")
    r.json_of(["demo", "--json"], "demo")
    r.to_file(["info", "rig.glb"], "info", "info.json")
    r.to_file(["unpack", "rig.skf", "--indices-from", "rig.glb"], "unpack", "unpack.json")
    r.to_file(["convert", "rig.glb", "c.glb"], "convert", "convert.json")
    r.to_file(["pack", "rig.glb", "-o", "p.skf"], "pack", "pack.json")
    r.to_file(["bind", "rig.glb", "b.glb", "--method", "nearest"], "bind", "bind.json")
    r.to_file(["weights", "drift.glb", "w3.glb", "--normalize"], "weights", "weights.json")
    r.to_file(["sample", "s.glb"], "sample", "sample.json")


def corpus(r, assets):
    picks = []
    for sub, exts in (("gltf", (".glb", ".gltf")), ("fbx", (".fbx",)), ("collada", (".dae",))):
        folder = os.path.join(assets, sub)
        if os.path.isdir(folder):
            names = sorted(n for n in os.listdir(folder) if n.lower().endswith(exts))
            picks += [os.path.join(folder, n) for n in names[:3]]
    for i, path in enumerate(picks):
        r.json_of(["info", path, "--json"], "info")
        r.json_of(["validate", path, "--json", "-"], "validate", codes=(0, 1))
        r.json_of(["validate", path, "--jsonl"], "validate.file", codes=(0, 1), lines=True)
        r.json_of(["convert", path, "c%d.glb" % i, "--json"], "convert")
        if r.json_of(["pack", path, "-o", "c%d.skf" % i, "--json"], "pack", codes=(0, 2)):
            r.json_of(["info", "c%d.skf" % i, "--json"], "info")
            r.json_of(["unpack", "c%d.skf" % i, "--indices-from", path, "--json", "--max-vertices", "4"], "unpack")
        r.json_of(["weights", path, "cw%d.glb" % i, "--normalize", "--json"], "weights", codes=(0, 2))
        r.json_of(["bind", path, "cb%d.glb" % i, "--method", "nearest", "--json"], "bind", codes=(0, 2))
    r.json_of(["validate", os.path.join(assets, "gltf"), "--json", "-"], "validate", codes=(0, 1, 2))
    return len(picks)


def self_test():
    """The validator rejects what it should: a missing key, a wrong type, an unknown key, a bad enum, a bad item."""
    good = {"schema": "skinkit.sample", "version": 1, "output": "a.glb", "seconds": 0.1, "joint_count": 2,
            "meshes": [{"name": "m", "vertex_count": 3, "triangle_count": 1}]}
    sch = load_schema("sample.schema.json")
    assert not check(good, sch, "sample.schema.json", "$", []), "a good document fails"
    bad = [dict(good, version=2), dict(good, joint_count="2"), dict(good, extra=1), dict(good, meshes=[{"name": "m"}]),
           {k: v for k, v in good.items() if k != "output"}, dict(good, joint_count=True)]
    for b in bad:
        assert check(b, sch, "sample.schema.json", "$", []), "not rejected: %r" % b
    assert naming_rules({"joints": 3, "load_ms": 1.0}, "$", []), "naming rules"


def main():
    self_test()
    cli = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="sk_json_schema.") as tmp:
        r = Run(cli, tmp)
        generated(r)
        assets = os.environ.get("SKINKIT_ASSETS", "")
        if assets and os.path.isdir(assets):
            print("corpus: %d files" % corpus(r, assets))
        else:
            print("SKINKIT_ASSETS not set: corpus tests skipped")
    names = sorted(n[:-12] for n in os.listdir(SCHEMA_DIR) if n.endswith(".schema.json"))
    missing = [n for n in names if n not in r.documents and n != "report"]
    if missing:
        r.fail("no output checked against: %s" % ", ".join(missing))
    total = sum(r.documents.values())
    print("%d documents checked (%s), %d failures" % (total, ", ".join("%s %d" % kv for kv in sorted(r.documents.items())),
                                                      len(r.failures)))
    return 1 if r.failures else 0


if __name__ == "__main__":
    sys.exit(main())
