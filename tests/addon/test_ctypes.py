"""Binding completeness: python_addon/skinkit/_ctypes.py against plugin/skinkit.h (plain Python, no Blender).

  * every SK_API function of the header has a FUNCTIONS row with the same argument count, matching scalar
    widths/signedness and struct pointer types, and the right return kind;
  * every struct typedef of the header has a Structure mirror whose sizeof, field offsets and field sizes
    equal the C compiler's (a C program generated from the mirrors is compiled with `cc`; skipped with a
    message when no compiler exists);
  * every integer constant of the header (enumerators and #defines) is mirrored with the same value;
  * the built library exports every function of the header (needs the library; see SKINKIT_LIBRARY).

Run with /usr/bin/python3 (numpy not needed here); tests/addon/run_python_tests.py runs it with test_api.py.
"""

import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
HEADER = os.path.join(REPO, "plugin", "skinkit.h")
sys.path.insert(0, os.path.join(REPO, "python_addon"))

from skinkit import _ctypes as C  # noqa: E402


def _strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def header_text():
    with open(HEADER, encoding="utf-8") as f:
        return _strip_comments(f.read())


def parse_functions(text):
    """{name: (return type, [param types])} for every SK_API declaration."""
    out = {}
    for m in re.finditer(r"\bSK_API\s+([^;{]*?)\b(sk_\w+)\s*\(([^)]*)\)\s*;", text, flags=re.S):
        ret = " ".join(m.group(1).split())
        params = " ".join(m.group(3).split())
        types = []
        if params and params != "void":
            for p in params.split(","):
                p = p.strip()
                # drop the parameter name (last identifier), keep the type with its stars
                pm = re.match(r"^(.*?)(\w+)\s*(\[[^\]]*\])?$", p)
                t = pm.group(1).strip() if pm and pm.group(1).strip() else p
                if pm and pm.group(3):
                    t += "*"
                types.append(" ".join(t.replace("*", " * ").split()))
        out[m.group(2)] = (" ".join(ret.replace("*", " * ").split()), types)
    return out


def parse_structs(text):
    """Names of `typedef struct NAME { ... } NAME;` (struct definitions, not opaque handles)."""
    return sorted(set(re.findall(r"typedef\s+struct\s+(\w+)\s*\{", text)))


def parse_enum_types(text):
    return set(re.findall(r"typedef\s+enum\s+\w*\s*\{[^}]*\}\s*(\w+)\s*;", text, flags=re.S))


def parse_constants(text):
    """SK_* integer constants: #define NAME <int expr> and enumerators."""
    names = set()
    for m in re.finditer(r"^\s*#\s*define\s+(SK_\w+)\s+([^\n]+)$", text, flags=re.M):
        val = m.group(2).strip()
        if re.match(r"^[\(\-\d]", val) and not m.group(1).endswith("_H"):
            names.add(m.group(1))
    for body in re.findall(r"\benum\s*\w*\s*\{([^}]*)\}", text, flags=re.S):
        for item in body.split(","):
            em = re.match(r"\s*(SK_\w+)", item)
            if em:
                names.add(em.group(1))
    names = {n for n in names if not n.endswith("_MAX_ENUM")}
    return names


_SCALARS = {
    "uint8_t": ctypes.c_uint8, "int8_t": ctypes.c_int8, "uint16_t": ctypes.c_uint16, "int16_t": ctypes.c_int16,
    "uint32_t": ctypes.c_uint32, "int32_t": ctypes.c_int32, "uint64_t": ctypes.c_uint64,
    "int64_t": ctypes.c_int64, "size_t": ctypes.c_size_t, "int": ctypes.c_int, "unsigned": ctypes.c_uint,
    "unsigned int": ctypes.c_uint, "float": ctypes.c_float, "double": ctypes.c_double, "char": ctypes.c_char,
    "bool": ctypes.c_bool, "_Bool": ctypes.c_bool,
}
_SIGNED = {ctypes.c_int8, ctypes.c_int16, ctypes.c_int32, ctypes.c_int64, ctypes.c_int, ctypes.c_long,
           ctypes.c_longlong}
_FLOATS = {ctypes.c_float, ctypes.c_double}


def _kind(t):
    if t in _FLOATS:
        return "f"
    return "s" if t in _SIGNED else "u"


def _same_scalar(py, c):
    return py is not None and ctypes.sizeof(py) == ctypes.sizeof(c) and _kind(py) == _kind(c) or py is c


def _is_pointer_type(t):
    return t in (ctypes.c_void_p, ctypes.c_char_p) or (isinstance(t, type) and issubclass(t, ctypes._Pointer))


class FunctionTable(unittest.TestCase):
    def setUp(self):
        text = header_text()
        self.funcs = parse_functions(text)
        self.enums = parse_enum_types(text)
        self.table = {name: (r, a) for name, r, a in C.FUNCTIONS}

    def test_header_parsed(self):
        # guards the parser itself: these exist since ABI 1.0
        for name in ("sk_version", "sk_skin_create", "sk_deform_run", "sk_skeleton_create"):
            self.assertIn(name, self.funcs)
        self.assertGreaterEqual(len(self.funcs), 35)

    def test_every_function_bound(self):
        missing = sorted(set(self.funcs) - set(self.table))
        self.assertEqual(missing, [], "skinkit.h functions without a FUNCTIONS row in _ctypes.py")

    def test_no_stale_rows(self):
        stale = sorted(set(self.table) - set(self.funcs))
        self.assertEqual(stale, [], "FUNCTIONS rows for functions no longer in skinkit.h")

    def test_no_duplicate_rows(self):
        names = [n for n, _r, _a in C.FUNCTIONS]
        self.assertEqual(len(names), len(set(names)))

    def _check_type(self, where, ctype, py):
        stars = ctype.count("*")
        base = ctype.replace("*", " ").replace("const", " ")
        base = " ".join(base.split())
        if stars == 0:
            if base in self.enums:
                self.assertIn(py, (ctypes.c_int32, ctypes.c_uint32), "%s: enum %s needs a 32-bit int" % (where, base))
                return
            self.assertIn(base, _SCALARS, "%s: unknown scalar type %s (extend the test)" % (where, base))
            self.assertTrue(_same_scalar(py, _SCALARS[base]),
                            "%s: C %s but binding %s" % (where, ctype, getattr(py, "__name__", py)))
            return
        self.assertTrue(_is_pointer_type(py), "%s: C %s needs a pointer type, binding has %s" % (where, ctype, py))
        if stars == 1 and base == "sk_error":
            self.assertIs(py, C.ERR, "%s: sk_error* must be ERR" % where)
        elif stars == 1 and base in C.STRUCTS:
            self.assertIs(py, ctypes.POINTER(C.STRUCTS[base]), "%s: %s* must be POINTER(%s)"
                          % (where, base, C.STRUCTS[base].__name__))
        elif stars == 2:
            self.assertTrue(py is ctypes.c_void_p or issubclass(py, ctypes._Pointer), where)

    def test_signatures_match(self):
        for name, (ret, params) in sorted(self.funcs.items()):
            if name not in self.table:
                continue
            restype, argtypes = self.table[name]
            with self.subTest(function=name):
                self.assertEqual(len(argtypes), len(params), "%s: %d C parameters, %d argtypes"
                                 % (name, len(params), len(argtypes)))
                for i, (ct, py) in enumerate(zip(params, argtypes)):
                    self._check_type("%s arg %d" % (name, i), ct, py)
                if ret == "sk_result":
                    self.assertIs(restype, C.RESULT, "%s returns sk_result: restype must be RESULT" % name)
                elif ret == "void":
                    self.assertIsNone(restype, name)
                elif ret == "const char *":
                    self.assertIs(restype, ctypes.c_char_p, name)
                else:
                    self._check_type("%s return" % name, ret, restype)


class ConstantsAndStructs(unittest.TestCase):
    def test_every_struct_mirrored(self):
        structs = parse_structs(header_text())
        self.assertIn("sk_deform_job", structs)
        missing = [s for s in structs if s not in C.STRUCTS]
        self.assertEqual(missing, [], "skinkit.h structs without a Structure in _ctypes.STRUCTS")

    def test_every_constant_mirrored(self):
        names = parse_constants(header_text())
        self.assertIn("SK_VFLAG_OVER_LIMIT", names)
        missing = sorted(n for n in names if n not in C.CONSTANTS)
        self.assertEqual(missing, [], "skinkit.h constants not mirrored in _ctypes.py")

    def test_size_fields_filled(self):
        for name, st in C.STRUCTS.items():
            if st._fields_[0][0] == "size":
                self.assertEqual(C.new(st).size, ctypes.sizeof(st), name)

    @unittest.skipUnless(shutil.which("cc"), "no C compiler `cc`: struct layout cross-check skipped")
    def test_layout_matches_compiler(self):
        lines = ["#include <stdio.h>", "#include <stddef.h>", '#include "skinkit.h"', "int main(void) {"]
        for cname, st in sorted(C.STRUCTS.items()):
            lines.append('  printf("S %s %%zu\\n", sizeof(%s));' % (cname, cname))
            for fname, _t in st._fields_:
                lines.append('  printf("O %s.%s %%zu %%zu\\n", offsetof(%s, %s), sizeof(((%s*)0)->%s));'
                             % (cname, fname, cname, fname, cname, fname))
        for const in sorted(C.CONSTANTS):
            lines.append('  printf("C %s %%lld\\n", (long long)(%s));' % (const, const))
        lines += ["  return 0;", "}"]
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "layout.c")
            exe = os.path.join(tmp, "layout")
            with open(src, "w") as f:
                f.write("\n".join(lines) + "\n")
            cc = subprocess.run(["cc", "-std=c11", "-I", os.path.dirname(HEADER), src, "-o", exe],
                                capture_output=True, text=True)
            self.assertEqual(cc.returncode, 0, "layout program does not compile (a mirrored field or constant "
                             "is not in skinkit.h?):\n" + cc.stderr)
            out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
        seen = 0
        for line in out.splitlines():
            kind, rest = line.split(" ", 1)
            if kind == "S":
                cname, n = rest.split()
                self.assertEqual(ctypes.sizeof(C.STRUCTS[cname]), int(n), "sizeof(%s)" % cname)
            elif kind == "O":
                key, off, sz = rest.split()
                cname, fname = key.split(".")
                field = getattr(C.STRUCTS[cname], fname)
                self.assertEqual((field.offset, field.size), (int(off), int(sz)), "offset/size of %s" % key)
            else:
                name, val = rest.split()
                self.assertEqual(getattr(C, name), int(val), "value of %s" % name)
            seen += 1
        self.assertGreater(seen, 50)


class RangeChecks(unittest.TestCase):
    """Counts, indices and strings that ctypes would silently truncate are refused before any native call."""

    def test_limits(self):
        self.assertEqual(C.int_limits(ctypes.c_uint32), (0, 2**32 - 1))
        self.assertEqual(C.int_limits(ctypes.c_int32), (-2**31, 2**31 - 1))
        self.assertEqual(C.int_limits(ctypes.c_size_t), (0, 2**(8 * ctypes.sizeof(ctypes.c_size_t)) - 1))
        self.assertIsNone(C.int_limits(ctypes.c_float))
        self.assertIsNone(C.int_limits(ctypes.c_char_p))

    def test_check_value(self):
        for ctype, bad in ((ctypes.c_uint32, 2**32 + 5), (ctypes.c_uint32, -1), (ctypes.c_int32, 2**31),
                           (ctypes.c_size_t, -3), (ctypes.c_uint64, 2**64)):
            with self.assertRaises(ValueError, msg="%s %d" % (ctype.__name__, bad)) as cm:
                C.check_value(ctype, bad, "x")
            self.assertIsInstance(cm.exception, C.SkinkitError)
            self.assertEqual(cm.exception.code, C.SK_ERR_INVALID_ARGUMENT)
        for ctype, good in ((ctypes.c_uint32, 2**32 - 1), (ctypes.c_int32, -2**31), (ctypes.c_size_t, 0)):
            C.check_value(ctype, good, "x")
        with self.assertRaises(ValueError):
            C.check_value(ctypes.c_char_p, b"a\0b", "path")
        C.check_value(ctypes.c_char_p, b"ab", "path")
        C.check_value(ctypes.c_char_p, None, "path")

    def test_struct_fields_checked(self):
        with self.assertRaises(ValueError):
            C.new(C.SkPackedDesc, influences=2**32 + 4)
        d = C.new(C.SkPackedDesc, influences=4)
        with self.assertRaises(ValueError):
            d.joints_stride = -1
        with self.assertRaises(ValueError):
            d.joint_type = 2**31
        self.assertEqual(d.influences, 4)
        with self.assertRaises(ValueError):
            C.new(C.SkSaveOptions, format=b"glb\0x")
        arr = (C.SkSkfMesh * 2)()
        with self.assertRaises(ValueError):
            arr[1].index_count = -5

    def test_every_integer_argument_checked(self):
        """Each FUNCTIONS row: an out-of-range integer or a NUL in a char* raises ValueError on call (no library
        call is made, so a fake function that fails the test if reached stands in for the native one)."""

        class Fake:
            argtypes = None

            def __call__(self, *args):
                raise AssertionError("native function reached")

        class FakeLib(C.Library):
            def __init__(self):
                self.path, self.missing, self.raw = "fake", [], None

        lib = FakeLib()
        checked = 0
        for name, restype, argtypes in C.FUNCTIONS:
            fn = Fake()
            lib.raw = type("Raw", (), {name: fn})()
            lib._bind(name, restype, argtypes)
            for i, t in enumerate(argtypes):
                bad = None
                if C.int_limits(t) is not None:
                    bad = C.int_limits(t)[1] + 1
                elif t is ctypes.c_char_p:
                    bad = b"x\0y"
                if bad is None:
                    continue
                args = [None] * len(argtypes)
                args[i] = bad
                with self.assertRaises(ValueError, msg="%s argument %d" % (name, i + 1)):
                    getattr(lib, name)(*args)
                checked += 1
        self.assertGreater(checked, 40)


class LibraryExports(unittest.TestCase):
    def test_library_exports_header(self):
        try:
            lib = C.load_library()
        except C.SkinkitError as e:
            self.fail("library not loadable (set SKINKIT_LIBRARY): %s" % e)
        funcs = parse_functions(header_text())
        missing = sorted(n for n in funcs if not hasattr(lib.raw, n))
        self.assertEqual(missing, [], "declared in skinkit.h but not exported by %s" % lib.path)
        self.assertEqual(lib.missing, [])


if __name__ == "__main__":
    unittest.main()
