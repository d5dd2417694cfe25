"""Pythonic layer over libskinkit: numpy arrays in and out, handle objects that free themselves. Never imports bpy.

Conventions (differences from the C ABI are handled here, nowhere else):
  * Matrices are numpy arrays of shape (J, 4, 4) in math layout, ``m[row, col]``, translation in ``m[:3, 3]``
    (numpy's and Blender's ``Matrix`` convention). The C ABI is column-major; conversion happens in this module.
  * A TRS pose is (J, 10) float32: t[3], r[4] (x, y, z, w), s[3].
  * Weights are CSR (offsets[V+1], joints, weights) or packed fixed-K arrays of shape (V, K).
  * Every failure raises :class:`SkinkitError` (``code``, ``message``); a bad array shape raises
    :class:`ShapeError`, which is both a SkinkitError and a ValueError.
  * Objects (Skeleton, Skin) free their native handle on ``close()``, on leaving a ``with`` block, or when
    garbage-collected.
"""

import ctypes
import os
import threading
from collections import namedtuple
from ctypes import byref, c_char_p, c_size_t, c_uint32, c_uint64, c_void_p

import numpy as np

from . import _ctypes as C
from ._ctypes import SkinkitError

__all__ = ["SkinkitError", "ShapeError", "library", "set_library_path", "version", "cpu_kernel", "Skeleton", "Skin",
           "deform", "Deformed", "hierarchy_order", "pose_local_from_trs", "matrices_to_c", "matrices_from_c",
           "FLAG_NAMES", "cylinder", "Cylinder", "Scene",
           "import_extensions", "import_extension_supported", "normalize_weights", "limit_weights", "prune_weights",
           "quantize_weights", "smooth_weights", "remove_rogue_weights", "mirror_weights", "brush_weights",
           "joint_mirror_name", "bind", "skf_encode", "skf_peek", "skf_mesh_info",
           "skf_position_hash", "skf_decode_skeleton", "skf_decode", "skf_chunks", "WFLAG_CHANGED", "WFLAG_FAILED", "WFLAG_NAMES"]


class ShapeError(SkinkitError, ValueError):
    """An array argument has the wrong shape, size or type (checked before any native call)."""

    def __init__(self, message):
        SkinkitError.__init__(self, C.SK_ERR_INVALID_ARGUMENT, message)


# ------------------------------------------------------------------------------------------- library
_library_path = None


def set_library_path(path):
    """Explicit library file or folder used by :func:`library` (None = normal lookup). The addon preference."""
    global _library_path
    _library_path = path or None


_last = [None, None]  # (lookup key, Library) of the last library() call


def library(path=None):
    """The loaded libskinkit (see _ctypes.candidate_paths for the lookup order). Raises SkinkitError."""
    # the lookup stats a dozen paths (~0.1-1 ms): a weight tool makes several calls, so the answer is kept while
    # the inputs of the lookup stay the same
    key = (path or _library_path, os.environ.get("SKINKIT_LIBRARY"))
    if _last[0] != key or _last[1] is None:
        _last[1] = C.load_library(key[0])
        _last[0] = key
    return _last[1]


def version():
    return library().version_string


def cpu_kernel():
    return library().sk_cpu_kernel().decode()


# ------------------------------------------------------------------------------------------- array helpers
def _ptr(a):
    return None if a is None else a.ctypes.data


def _text(raw):
    """A C string from the library as str: bytes that are not UTF-8 (a joint name from a Latin-1 FBX) become
    U+FFFD instead of raising UnicodeDecodeError. None stays None."""
    return None if raw is None else raw.decode("utf-8", "replace")


def _path_arg(path):
    """A file path (str, bytes or os.PathLike) as the bytes the library opens; a NUL byte raises ValueError
    (ArgumentRangeError) instead of opening the part before it."""
    raw = os.fsencode(path)
    C.check_value(c_char_p, raw, "path")
    return raw


def _arr(x, dtype, name, shape=None, size=None):
    """Contiguous copy/view of x with the dtype; checks the shape (None entries are free) or total size."""
    try:
        a = np.ascontiguousarray(x, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise ShapeError("%s: cannot convert to %s (%s)" % (name, np.dtype(dtype).name, e)) from None
    if shape is not None:
        if a.ndim != len(shape) or any(s is not None and s != d for s, d in zip(shape, a.shape)):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
            raise ShapeError("%s: expected shape %s, got %s" % (name, want, a.shape))
    if size is not None and a.size != size:
        raise ShapeError("%s: expected %d values, got %d" % (name, size, a.size))
    return a


def matrices_to_c(m, count, name="matrices"):
    """(count, 4, 4) math-layout matrices -> contiguous column-major float32 (count * 16)."""
    a = np.asarray(m, dtype=np.float32)
    if a.shape == (4, 4) and count == 1:
        a = a[None]
    if a.shape != (count, 4, 4):
        raise ShapeError("%s: expected shape (%d, 4, 4), got %s" % (name, count, a.shape))
    return np.ascontiguousarray(a.transpose(0, 2, 1))


def matrices_from_c(flat, count):
    """Column-major float32 (count * 16) -> (count, 4, 4) math layout."""
    return np.ascontiguousarray(np.asarray(flat, dtype=np.float32).reshape(count, 4, 4).transpose(0, 2, 1))


_JOINT_TYPES = {np.dtype(np.uint8): C.SK_TYPE_U8, np.dtype(np.uint16): C.SK_TYPE_U16,
                np.dtype(np.uint32): C.SK_TYPE_U32}
_WEIGHT_TYPES = {np.dtype(np.float32): C.SK_TYPE_F32, np.dtype(np.uint8): C.SK_TYPE_U8,
                 np.dtype(np.uint16): C.SK_TYPE_U16}


class _Handle:
    """Owner of one native object; subclasses set _destroy to the sk_*_destroy name."""

    _destroy = None

    def __init__(self, lib, handle):
        self._lib = lib
        self._h = handle

    @property
    def closed(self):
        return not self._h

    @classmethod
    def _borrow(cls, lib, handle, owner):
        """Wrapper of a handle owned by another object (e.g. a Scene's skin): never destroyed here, and it
        keeps the owner alive. Closing the owner invalidates it."""
        obj = cls.__new__(cls)
        _Handle.__init__(obj, lib, handle)
        obj._owner = owner
        return obj

    @property
    def handle(self):
        owner = getattr(self, "_owner", None)
        if not self._h or (owner is not None and owner.closed):
            raise SkinkitError(C.SK_ERR_INVALID_ARGUMENT, "%s is closed" % type(self).__name__)
        return self._h

    def close(self):
        h, self._h = getattr(self, "_h", None), None
        if h and getattr(self, "_owner", None) is None:
            getattr(self._lib, self._destroy)(h)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


# ------------------------------------------------------------------------------------------- skeleton
class Skeleton(_Handle):
    """Joint hierarchy with rest and bind matrices (sk_skeleton).

    names: joint names (None = "joint<i>"); parents: -1 or the index of an earlier joint; rest_local: (J, 4, 4)
    rest transforms relative to the parent (None = identity); bind / inverse_bind: (J, 4, 4) bind matrices B
    or B^-1 (give either; neither = world rest transforms)."""

    _destroy = "sk_skeleton_destroy"

    def __init__(self, names, parents, rest_local=None, bind=None, inverse_bind=None, lib=None):
        lib = lib or library()
        par = _arr(parents, np.int32, "parents", shape=(None,))
        n = int(par.size)
        if n == 0:
            raise ShapeError("a skeleton needs at least one joint")
        desc = C.new(C.SkSkeletonDesc, joint_count=n)
        keep = [par]
        if names is not None:
            names = list(names)
            if len(names) != n:
                raise ShapeError("names: %d names for %d parents" % (len(names), n))
            enc = [s.encode("utf-8") if isinstance(s, str) else bytes(s) for s in names]
            for i, e in enumerate(enc):
                C.check_value(c_char_p, e, "names[%d]" % i)
            arr = (c_char_p * n)(*enc)
            keep += [enc, arr]
            desc.names = arr
        desc.parents = _ptr(par)
        for field, m in (("rest_local", rest_local), ("bind", bind), ("inverse_bind", inverse_bind)):
            if m is not None:
                cm = matrices_to_c(m, n, field)
                keep.append(cm)
                setattr(desc, field, _ptr(cm))
        out = c_void_p()
        lib.sk_skeleton_create(byref(desc), byref(out))
        super().__init__(lib, out.value)

    @property
    def joint_count(self):
        return int(self._lib.sk_skeleton_joint_count(self.handle))

    def __len__(self):
        return self.joint_count

    @property
    def names(self):
        h = self.handle
        return [_text(self._lib.sk_skeleton_joint_name(h, i)) for i in range(self.joint_count)]

    @property
    def parents(self):
        h = self.handle
        return np.array([self._lib.sk_skeleton_joint_parent(h, i) for i in range(self.joint_count)], np.int32)

    def find(self, name):
        """Index of the joint with this name, or None."""
        j = c_uint32()
        try:
            self._lib.sk_skeleton_find_joint(self.handle, name.encode("utf-8"), byref(j))
        except SkinkitError as e:
            if e.code == C.SK_ERR_NOT_FOUND:
                return None
            raise
        return int(j.value)

    def _matrices(self, fn):
        n = self.joint_count
        out = np.empty(16 * n, np.float32)
        getattr(self._lib, fn)(self.handle, _ptr(out))
        return matrices_from_c(out, n)

    @property
    def rest_local(self):
        return self._matrices("sk_skeleton_get_rest_local")

    @property
    def rest_world(self):
        return self._matrices("sk_skeleton_get_rest_world")

    @property
    def bind(self):
        return self._matrices("sk_skeleton_get_bind")

    @property
    def inverse_bind(self):
        return self._matrices("sk_skeleton_get_inverse_bind")

    @property
    def tails(self):
        """(J, 3) float32: each bone's tail as the file gives it (Blender's Collada tips, `_end` leaf bones), a point
        in the joint's own frame; NaN where the file says nothing (sk_skeleton_get_tails)."""
        out = np.empty((self.joint_count, 3), np.float32)
        self._lib.sk_skeleton_get_tails(self.handle, _ptr(out))
        return out

    def rest_trs(self, allow_shear=False):
        """Rest pose as (J, 10) TRS. A sheared rest transform raises SK_ERR_UNSUPPORTED unless allow_shear."""
        out = np.empty((self.joint_count, 10), np.float32)
        try:
            self._lib.sk_skeleton_get_rest_trs(self.handle, _ptr(out))
        except SkinkitError as e:
            if not (allow_shear and e.code == C.SK_ERR_UNSUPPORTED):
                raise
        return out

    def world(self, local, root=None):
        """Forward kinematics: (J, 4, 4) local matrices -> (J, 4, 4) world matrices (root: optional 4x4)."""
        n = self.joint_count
        lc = matrices_to_c(local, n, "local")
        rc = None if root is None else matrices_to_c(root, 1, "root")
        out = np.empty(16 * n, np.float32)
        self._lib.sk_skeleton_world(self.handle, _ptr(lc), _ptr(rc), _ptr(out))
        return matrices_from_c(out, n)

    def palette(self, trs=None, inverse_bind=None):
        """Skinning palette (J, 4, 4) for a TRS pose ((J, 10); None = rest pose). inverse_bind overrides the
        skeleton's (a mesh bound with other bind matrices)."""
        n = self.joint_count
        t = None if trs is None else _arr(trs, np.float32, "trs", shape=(n, 10))
        ib = None if inverse_bind is None else matrices_to_c(inverse_bind, n, "inverse_bind")
        out = np.empty(16 * n, np.float32)
        self._lib.sk_skeleton_palette_from_trs(self.handle, _ptr(t), _ptr(ib), _ptr(out))
        return matrices_from_c(out, n)

    def palette_from_world(self, world, inverse_bind=None):
        """Skinning palette from (J, 4, 4) world matrices: world_j * inverse_bind_j."""
        n = self.joint_count
        w = matrices_to_c(world, n, "world")
        ib = None if inverse_bind is None else matrices_to_c(inverse_bind, n, "inverse_bind")
        out = np.empty(16 * n, np.float32)
        self._lib.sk_palette_compute(self.handle, _ptr(w), _ptr(ib), _ptr(out))
        return matrices_from_c(out, n)

    def bone_segments(self, space="bind"):
        """(heads (J, 3), tails (J, 3)) bone segments in the skin's bind space ("bind", default) or in the rest
        pose ("rest"); see sk_skeleton_bone_segments."""
        n = self.joint_count
        heads = np.empty((n, 3), np.float32)
        tails = np.empty((n, 3), np.float32)
        spaces = {"bind": C.SK_BONE_SPACE_BIND, "rest": C.SK_BONE_SPACE_REST}
        if space not in spaces:
            raise ValueError("space must be 'bind' or 'rest', not %r" % (space,))
        self._lib.sk_skeleton_bone_segments(self.handle, spaces[space], _ptr(heads), _ptr(tails))
        return heads, tails

    def mirror_map(self):
        """uint32[J]: index of each joint's Left <-> Right counterpart (itself when none)."""
        out = np.empty(self.joint_count, np.uint32)
        mapped = c_uint32()
        self._lib.sk_skeleton_mirror_map(self.handle, _ptr(out), byref(mapped))
        return out


def hierarchy_order(parents):
    """Order putting parents before children: order[k] = old index of the k-th joint."""
    lib = library()
    par = _arr(parents, np.int32, "parents", shape=(None,))
    out = np.empty(par.size, np.uint32)
    lib.sk_hierarchy_order(_ptr(par), par.size, _ptr(out))
    return out


def pose_local_from_trs(trs):
    """(J, 10) TRS -> (J, 4, 4) local matrices."""
    lib = library()
    t = _arr(trs, np.float32, "trs", shape=(None, 10))
    n = t.shape[0]
    out = np.empty(16 * n, np.float32)
    lib.sk_pose_local_from_trs(_ptr(t), n, _ptr(out))
    return matrices_from_c(out, n)


# ------------------------------------------------------------------------------------------- skin
FLAG_NAMES = {
    C.SK_VFLAG_SUM_OFF: "sum_off",
    C.SK_VFLAG_UNWEIGHTED: "unweighted",
    C.SK_VFLAG_NAN: "nan",
    C.SK_VFLAG_NEGATIVE: "negative",
    C.SK_VFLAG_BAD_JOINT: "bad_joint",
    C.SK_VFLAG_DUPLICATE: "duplicate",
    C.SK_VFLAG_OVER_LIMIT: "over_limit",
}


def _csr_arrays(offsets, joints, weights, vertex_count=None):
    off = _arr(offsets, np.uint32, "offsets", shape=(None,))
    if off.size == 0:
        raise ShapeError("offsets: needs vertex_count + 1 entries (at least 1)")
    if vertex_count is not None and off.size != vertex_count + 1:
        raise ShapeError("offsets: expected %d entries (vertex_count + 1), got %d" % (vertex_count + 1, off.size))
    if off[0] != 0 or (off.size > 1 and np.any(off[1:] < off[:-1])):
        raise ShapeError("offsets: must start at 0 and never decrease")
    total = int(off[-1])
    jt = _arr(joints, np.uint32, "joints", shape=(None,))
    wt = _arr(weights, np.float32, "weights", shape=(None,))
    if jt.size != total or wt.size != total:
        raise ShapeError("joints/weights: expected offsets[-1] = %d entries, got %d and %d" % (total, jt.size, wt.size))
    return off, jt, wt


class Skin(_Handle):
    """Variable-length skin weights (sk_skin, CSR) of vertex_count vertices over joint_count joints."""

    _destroy = "sk_skin_destroy"

    def __init__(self, vertex_count, joint_count, lib=None, _handle=None):
        lib = lib or library()
        if _handle is None:
            out = c_void_p()
            lib.sk_skin_create(int(vertex_count), int(joint_count), byref(out))
            _handle = out.value
        super().__init__(lib, _handle)

    @classmethod
    def from_csr(cls, offsets, joints, weights, joint_count, lib=None):
        off, jt, wt = _csr_arrays(offsets, joints, weights)
        skin = cls(off.size - 1, joint_count, lib=lib)
        try:
            skin._lib.sk_skin_set_csr(skin.handle, _ptr(off), _ptr(jt), _ptr(wt))
        except BaseException:
            skin.close()
            raise
        return skin

    @classmethod
    def from_packed(cls, joints, weights, joint_count, lib=None):
        """From (V, K) packed joint and weight arrays (K 1..8); zero weights are dropped."""
        jt = np.ascontiguousarray(joints)
        wt = np.ascontiguousarray(weights)
        if jt.ndim != 2 or wt.shape != jt.shape:
            raise ShapeError("joints and weights: expected equal (V, K) shapes, got %s and %s" % (jt.shape, wt.shape))
        if jt.dtype not in _JOINT_TYPES:
            jt = _arr(jt, np.uint32, "joints")
        if wt.dtype not in _WEIGHT_TYPES:
            wt = _arr(wt, np.float32, "weights")
        skin = cls(jt.shape[0], joint_count, lib=lib)
        desc = C.new(C.SkPackedDesc, influences=jt.shape[1], joint_type=_JOINT_TYPES[jt.dtype],
                     weight_type=_WEIGHT_TYPES[wt.dtype], joints=_ptr(jt), weights=_ptr(wt))
        try:
            skin._lib.sk_skin_from_packed(skin.handle, byref(desc))
        except BaseException:
            skin.close()
            raise
        return skin

    @property
    def vertex_count(self):
        return int(self._lib.sk_skin_vertex_count(self.handle))

    def __len__(self):
        return self.vertex_count

    @property
    def joint_count(self):
        return int(self._lib.sk_skin_joint_count(self.handle))

    @property
    def influence_count(self):
        return int(self._lib.sk_skin_influence_count(self.handle))

    def clone(self):
        out = c_void_p()
        self._lib.sk_skin_clone(self.handle, byref(out))
        return Skin(0, 0, lib=self._lib, _handle=out.value)

    def set_csr(self, offsets, joints, weights):
        off, jt, wt = _csr_arrays(offsets, joints, weights, self.vertex_count)
        self._lib.sk_skin_set_csr(self.handle, _ptr(off), _ptr(jt), _ptr(wt))

    def to_csr(self):
        """(offsets uint32[V+1], joints uint32[N], weights float32[N])."""
        off = np.empty(self.vertex_count + 1, np.uint32)
        n = self.influence_count
        jt = np.empty(n, np.uint32)
        wt = np.empty(n, np.float32)
        self._lib.sk_skin_get_csr(self.handle, _ptr(off), _ptr(jt), _ptr(wt))
        return off, jt, wt

    def vertex(self, v):
        """(joints, weights) of vertex v."""
        h = self.handle
        if not 0 <= int(v) < self.vertex_count:
            raise SkinkitError(C.SK_ERR_OUT_OF_RANGE, "vertex %d out of range (%d vertices)" % (v, self.vertex_count))
        n = int(self._lib.sk_skin_get_vertex(h, int(v), None, None, 0))
        jt = np.empty(n, np.uint32)
        wt = np.empty(n, np.float32)
        self._lib.sk_skin_get_vertex(h, int(v), _ptr(jt), _ptr(wt), n)
        return jt, wt

    def set_vertex(self, v, joints, weights):
        jt = _arr(joints, np.uint32, "joints", shape=(None,))
        wt = _arr(weights, np.float32, "weights", size=jt.size)
        self._lib.sk_skin_set_vertex(self.handle, int(v), _ptr(jt), _ptr(wt), jt.size)

    def to_packed(self, k=4, joint_dtype=np.uint16, weight_dtype=np.float32):
        """(joints (V, k), weights (V, k)): the k largest weights per vertex, sorted, renormalized to 1
        (integer weight types sum to exactly 255 / 65535)."""
        jd, wd = np.dtype(joint_dtype), np.dtype(weight_dtype)
        if jd not in _JOINT_TYPES:
            raise ShapeError("joint_dtype must be uint8, uint16 or uint32, not %s" % jd)
        if wd not in _WEIGHT_TYPES:
            raise ShapeError("weight_dtype must be float32, uint8 or uint16, not %s" % wd)
        v = self.vertex_count
        jt = np.zeros((v, int(k)), jd)
        wt = np.zeros((v, int(k)), wd)
        desc = C.new(C.SkPackedDesc, influences=int(k), joint_type=_JOINT_TYPES[jd], weight_type=_WEIGHT_TYPES[wd],
                     joints=_ptr(jt), weights=_ptr(wt))
        self._lib.sk_skin_to_packed(self.handle, byref(desc))
        return jt, wt

    def partition(self):
        """Vertices ordered by influence count for deformation (sk_skin_partition): (order uint32[V] - order[new]
        = old vertex -, ranges [(first, count, K)] with K in 1, 2, 4, 8, joints uint16[N], weights float32[N]); range
        r's vertices are order[first:first + count], their K packed slots at joints[entry: entry + count * K] in the
        range order, entry the sum of count * K over the ranges before."""
        rg = (C.SkPartitionRange * C.SK_PARTITION_MAX_RANGES)()
        nr, n = c_uint32(), C.c_size_t()
        self._lib.sk_skin_partition(self.handle, None, rg, byref(nr), None, None, byref(n))
        order = np.empty(self.vertex_count, np.uint32)
        jt = np.empty(n.value, np.uint16)
        wt = np.empty(n.value, np.float32)
        self._lib.sk_skin_partition(self.handle, _ptr(order), rg, byref(nr), _ptr(jt), _ptr(wt), byref(n))
        ranges = [(int(r.first), int(r.count), int(r.influences)) for r in rg[:nr.value]]
        return order, ranges, jt, wt

    def validate(self, tolerance=1e-3, max_influences=0):
        """(report dict, per-vertex flags uint8[V] of SK_VFLAG_* bits; see FLAG_NAMES)."""
        opts = C.new(C.SkValidateOptions, tolerance=float(tolerance), max_influences=int(max_influences))
        rep = C.new(C.SkSkinReport)
        flags = np.zeros(self.vertex_count, np.uint8)
        self._lib.sk_skin_validate(self.handle, byref(opts), byref(rep), _ptr(flags))
        return _report_dict(rep), flags


def _report_dict(rep):
    """sk_skin_report -> dict (histogram as a list, findings as bool)."""
    d = {}
    for name, _t in C.SkSkinReport._fields_:
        if name in ("size", "reserved"):
            continue
        val = getattr(rep, name)
        if name == "histogram":
            val = [int(x) for x in val]
        elif name.startswith("weight_sum"):
            val = float(val)
        elif name == "findings":
            val = bool(val)
        else:
            val = int(val)
        d[name] = val
    return d


# ------------------------------------------------------------------------------------------- deform
Deformed = namedtuple("Deformed", "positions normals tangents")

_METHODS = {"lbs": C.SK_DEFORM_LBS, "dqs": C.SK_DEFORM_DQS, "rigid": C.SK_DEFORM_RIGID, "cor": C.SK_DEFORM_COR}
_FLAGS = {"additive": C.SK_DEFORM_ADDITIVE, "normalize": C.SK_DEFORM_NORMALIZE_WEIGHTS,
          "normal_fast": C.SK_DEFORM_NORMAL_FAST, "no_renormalize": C.SK_DEFORM_NO_RENORMALIZE}


def _flag_bits(flags):
    if isinstance(flags, int):
        return flags
    bits = 0
    for f in flags:
        if f not in _FLAGS:
            raise ShapeError("unknown deform flag %r (use %s)" % (f, ", ".join(sorted(_FLAGS))))
        bits |= _FLAGS[f]
    return bits


def cor_centers(positions, triangles, skin, sigma=0.0, threads=0):
    """Centres of rotation for deform(method='cor') (sk_cor_compute, Le & Hodgins 2016): positions (V, 3) and
    triangles (T, 3) of the rest mesh, skin a :class:`Skin` over it. sigma 0 = the paper's 0.1. Returns (V, 3)
    float32; a vertex with one joint (or nothing similar) keeps its own position."""
    pos = _arr(positions, np.float32, "positions", shape=(None, 3))
    tri = _arr(triangles, np.uint32, "triangles", shape=(None, 3))
    if skin.vertex_count != pos.shape[0]:
        raise ShapeError("skin has %d vertices, positions %d" % (skin.vertex_count, pos.shape[0]))
    off, jt, wt = skin.to_csr()
    out = np.empty_like(pos)
    skin._lib.sk_cor_compute(_ptr(pos), pos.shape[0], _ptr(tri), tri.shape[0], _ptr(off), _ptr(jt), _ptr(wt),
                             skin.joint_count, float(sigma), int(threads), _ptr(out))
    return out


def deform(positions, normals, palette, weights, method="lbs", flags=(), tangents=None, threads=0, centers=None):
    """Skins positions (V, 3) and optional normals (V, 3) / tangents (V, 3 or 4) with a (J, 4, 4) palette.

    weights: a :class:`Skin` (CSR) or a (joints (V, K), weights (V, K)) pair of packed arrays.
    method: 'lbs', 'dqs', 'rigid' or 'cor' (optimized centres of rotation: needs centers (V, 3) from
    cor_centers); flags: names from 'additive', 'normalize', 'normal_fast', 'no_renormalize' (or the
    SK_DEFORM_* bits). Returns Deformed(positions, normals, tangents) (None for streams not given)."""
    lib = weights._lib if isinstance(weights, Skin) else library()
    if method not in _METHODS:
        raise ShapeError("method must be one of %s, not %r" % (", ".join(sorted(_METHODS)), method))
    pos = _arr(positions, np.float32, "positions", shape=(None, 3))
    v = pos.shape[0]
    cen = None
    if method == "cor":
        if centers is None:
            raise ShapeError("method 'cor' needs centers (V, 3) from cor_centers()")
        cen = _arr(centers, np.float32, "centers", shape=(v, 3))
    pal = np.asarray(palette, dtype=np.float32)
    if pal.ndim != 3 or pal.shape[1:] != (4, 4):
        raise ShapeError("palette: expected shape (J, 4, 4), got %s" % (pal.shape,))
    jcount = pal.shape[0]
    pal = matrices_to_c(pal, jcount, "palette")
    job = C.new(C.SkDeformJob, method=_METHODS[method], flags=_flag_bits(flags), threads=int(threads),
                vertex_count=v, palette=_ptr(pal), joint_count=jcount)
    keep = [pal, pos]
    if cen is not None:
        keep.append(cen)
        job.centers = _ptr(cen)
    if isinstance(weights, Skin):
        if weights.vertex_count != v:
            raise ShapeError("skin has %d vertices, positions %d" % (weights.vertex_count, v))
        off, jt, wt = weights.to_csr()
        keep += [off, jt, wt]
        job.influences = 0
        job.csr_offsets, job.csr_joints, job.csr_weights = _ptr(off), _ptr(jt), _ptr(wt)
    else:
        try:
            pj, pw = weights
        except (TypeError, ValueError):
            raise ShapeError("weights: expected a Skin or a (joints, weights) pair of (V, K) arrays") from None
        pj, pw = np.ascontiguousarray(pj), np.ascontiguousarray(pw)
        if pj.dtype not in _JOINT_TYPES:
            pj = _arr(pj, np.uint32, "joints")
        if pw.dtype not in _WEIGHT_TYPES:
            pw = _arr(pw, np.float32, "weights")
        if pj.ndim != 2 or pj.shape[0] != v or pw.shape != pj.shape:
            raise ShapeError("packed joints/weights: expected (%d, K) each, got %s and %s" % (v, pj.shape, pw.shape))
        keep += [pj, pw]
        job.influences = pj.shape[1]
        job.joint_type, job.weight_type = _JOINT_TYPES[pj.dtype], _WEIGHT_TYPES[pw.dtype]
        job.joints, job.weights = _ptr(pj), _ptr(pw)
    out_pos = np.empty_like(pos)
    job.in_positions, job.out_positions = _ptr(pos), _ptr(out_pos)
    out_nrm = out_tan = None
    if normals is not None:
        nrm = _arr(normals, np.float32, "normals", shape=(v, 3))
        out_nrm = np.empty_like(nrm)
        keep.append(nrm)
        job.in_normals, job.out_normals = _ptr(nrm), _ptr(out_nrm)
    if tangents is not None:
        tan = _arr(tangents, np.float32, "tangents", shape=(v, None))
        if tan.shape[1] not in (3, 4):
            raise ShapeError("tangents: expected (V, 3) or (V, 4), got %s" % (tan.shape,))
        out_tan = np.empty_like(tan)
        keep.append(tan)
        job.in_tangents, job.out_tangents = _ptr(tan), _ptr(out_tan)
        job.tangent_components = tan.shape[1]
    lib.sk_deform_run(byref(job))
    return Deformed(out_pos, out_nrm, out_tan)


# ------------------------------------------------------------------------------------------- sample geometry
Cylinder = namedtuple("Cylinder", "positions normals triangles skin")


def cylinder(segments=0, rings=0, bones=0, radius=0.0, length=0.0, blend=0.0, joint_count=None):
    """The library's rigged sample cylinder along +X (zero = the library default for each parameter).
    Returns Cylinder(positions (V, 3), normals (V, 3), triangles (T, 3) uint32, skin) with the skin over
    joint_count joints (default: bones, or 2 when bones is 0)."""
    lib = library()
    desc = C.new(C.SkCylinderDesc, segments=int(segments), rings=int(rings), bones=int(bones), radius=float(radius),
                 length=float(length), blend=float(blend))
    nv, nt = C.c_size_t(), C.c_size_t()
    lib.sk_mesh_cylinder(byref(desc), byref(nv), byref(nt), None, None, None, None)
    v, t = int(nv.value), int(nt.value)
    pos = np.empty((v, 3), np.float32)
    nrm = np.empty((v, 3), np.float32)
    tri = np.empty((t, 3), np.uint32)
    skin = Skin(v, joint_count or (bones or 2), lib=lib)
    lib.sk_mesh_cylinder(byref(desc), byref(nv), byref(nt), _ptr(pos), _ptr(nrm), _ptr(tri), skin.handle)
    return Cylinder(pos, nrm, tri, skin)


# ------------------------------------------------------------------------------------------- scenes (io)
def import_extensions():
    """Extensions the importer reads, as a list like ['*.fbx', '*.gltf', ...]."""
    return [e for e in _text(library().sk_import_extensions()).split(";") if e]


def import_extension_supported(ext):
    return bool(library().sk_import_extension_supported(ext.encode("utf-8")))


class Scene(_Handle):
    """A file loaded through Assimp (sk_scene): meshes, one skeleton, per-mesh skins, animations.

    ``Scene.load(path)``; ``scene.skeleton`` and ``scene.mesh_skin(m)`` are borrowed wrappers valid while the
    scene is open (editing a mesh skin edits the scene, so ``scene.save`` writes the edit)."""

    _destroy = "sk_scene_destroy"

    @classmethod
    def load(cls, path, join_vertices=False, validate_structure=False, isolate=False, timeout_seconds=0.0,
             skeleton_from_nodes=False, lib=None, max_memory_mb=0):
        """isolate: parse once in a child process first so an importer crash/hang on a damaged file becomes
        SK_ERR_FORMAT (timeout_seconds bounds it, max_memory_mb the child's memory); use it for untrusted files.
        skeleton_from_nodes: a file whose meshes reference no bone (an armature beside an unweighted mesh) gets its
        node tree as skeleton."""
        lib = lib or library()
        opts = C.new(C.SkLoadOptions, join_vertices=int(bool(join_vertices)),
                     validate_structure=int(bool(validate_structure)), isolate=int(bool(isolate)),
                     timeout_seconds=float(timeout_seconds), max_memory_mb=int(max_memory_mb),
                     skeleton_from_nodes=int(bool(skeleton_from_nodes)))
        out = c_void_p()
        lib.sk_scene_load(_path_arg(path), byref(opts), byref(out))
        return cls(lib, out.value)

    @classmethod
    def create(cls, skeleton=None, lib=None):
        """An empty scene over a skeleton (copied; None = no skeleton), filled with add_mesh, written with save."""
        lib = lib or (skeleton._lib if skeleton is not None else library())
        out = c_void_p()
        lib.sk_scene_create(skeleton.handle if skeleton is not None else None, byref(out))
        return cls(lib, out.value)

    def add_mesh(self, positions, triangles=None, name=None, normals=None, tangents=None, uv0=None, skin=None,
                 inverse_bind=None, node_name=None, uv1=None, colors=None):
        """Appends a mesh (all data copied); returns its index. skin: a Skin over the scene skeleton's joints.
        node_name: the node the mesh hangs from (None = one node of its own, named after it); the writers put the
        meshes of one node name under one node (one object whose parts have their own materials). uv1: (V, 2) second
        texture coordinates, colors: (V, 4) linear RGBA vertex colours."""
        pos = _arr(positions, np.float32, "positions", shape=(None, 3))
        v = pos.shape[0]
        keep = [pos]
        desc = C.new(C.SkMeshDesc, name=name.encode("utf-8") if name else None, vertex_count=v, positions=_ptr(pos),
                     node_name=node_name.encode("utf-8") if node_name else None)
        for field, arr, width in (("normals", normals, 3), ("tangents", tangents, 4), ("uv0", uv0, 2),
                                  ("uv1", uv1, 2), ("colors", colors, 4)):
            if arr is not None:
                a = _arr(arr, np.float32, field, shape=(v, width))
                keep.append(a)
                setattr(desc, field, _ptr(a))
        if triangles is not None:
            ix = _arr(triangles, np.uint32, "triangles").reshape(-1)
            keep.append(ix)
            desc.indices, desc.index_count = _ptr(ix), ix.size
        if skin is not None:
            desc.skin = skin.handle
        if inverse_bind is not None:
            sk = self.skeleton
            if sk is None:
                raise SkinkitError(C.SK_ERR_NO_SKIN, "inverse_bind given but the scene has no skeleton")
            ib = matrices_to_c(inverse_bind, sk.joint_count, "inverse_bind")
            keep.append(ib)
            desc.inverse_bind = _ptr(ib)
        idx = c_uint32()
        self._lib.sk_scene_add_mesh(self.handle, byref(desc), byref(idx))
        return int(idx.value)

    def add_image(self, data, name=None):
        """Appends an image (the bytes of a PNG, JPEG, WebP or KTX2 file, copied); returns its index for
        add_material. name: its file name where a writer puts images beside the model (None = "image<i>").
        Other bytes raise SkinkitError SK_ERR_UNSUPPORTED."""
        raw = bytes(data)
        idx = c_uint32()
        self._lib.sk_scene_add_image(self.handle, name.encode("utf-8") if name else None, raw, len(raw), byref(idx))
        return int(idx.value)

    def add_image_file(self, path, name=None):
        """add_image of a file's bytes, named after the file unless name is given."""
        with open(path, "rb") as f:
            data = f.read()
        return self.add_image(data, name or os.path.basename(os.fsdecode(path)))

    def add_material(self, name=None, base_color=(1.0, 1.0, 1.0, 1.0), metallic=1.0, roughness=1.0,
                     emissive=(0.0, 0.0, 0.0), alpha_mode="OPAQUE", alpha_cutoff=0.5, double_sided=False,
                     normal_scale=1.0, base_color_image=-1, metallic_roughness_image=-1, normal_image=-1,
                     emissive_image=-1, occlusion_image=-1):
        """Appends a glTF metallic-roughness material; returns its index for set_mesh_material. Colours are linear
        (base_color RGBA multiplies the base colour image), alpha_mode "OPAQUE", "MASK" (alpha_cutoff) or "BLEND";
        the *_image arguments are add_image indices (-1 or None = none)."""
        modes = {"OPAQUE": C.SK_ALPHA_OPAQUE, "MASK": C.SK_ALPHA_MASK, "BLEND": C.SK_ALPHA_BLEND}
        if alpha_mode not in modes:
            raise SkinkitError(C.SK_ERR_INVALID_ARGUMENT, "alpha_mode: %r is not one of %s" % (alpha_mode,
                                                                                            ", ".join(modes)))
        rgba = _arr(base_color, np.float32, "base_color", size=4)
        rgb = _arr(emissive, np.float32, "emissive", size=3)
        desc = C.new(C.SkMaterialDesc, alpha_mode=modes[alpha_mode], name=name.encode("utf-8") if name else None,
                     metallic=float(metallic), roughness=float(roughness), alpha_cutoff=float(alpha_cutoff),
                     double_sided=int(bool(double_sided)), normal_scale=float(normal_scale))
        desc.base_color[:] = rgba.tolist()
        desc.emissive[:] = rgb.tolist()
        for field, image in (("base_color_image", base_color_image), ("metallic_roughness_image",
                             metallic_roughness_image), ("normal_image", normal_image),
                             ("emissive_image", emissive_image), ("occlusion_image", occlusion_image)):
            setattr(desc, field, -1 if image is None else int(image))
        idx = c_uint32()
        self._lib.sk_scene_add_material(self.handle, byref(desc), byref(idx))
        return int(idx.value)

    def set_mesh_material(self, mesh, material):
        """The material of a mesh: an add_material index (or of the file's own materials), None = none."""
        m = 0xFFFFFFFF if material is None else int(material)
        self._lib.sk_scene_mesh_set_material(self.handle, self._mesh_index(mesh), m)

    @property
    def material_count(self):
        """Materials the scene holds: the file's, then those added."""
        return int(self._lib.sk_scene_material_count(self.handle))

    @property
    def image_count(self):
        return int(self._lib.sk_scene_image_count(self.handle))

    @property
    def material_names(self):
        """The scene's material names in index order (ABI 1.12)."""
        return [(self._lib.sk_scene_material_name(self.handle, i) or b"").decode("utf-8", "replace")
                for i in range(self.material_count)]

    _ALPHA_MODES = {0: "OPAQUE", 1: "MASK", 2: "BLEND"}

    def material_info(self, i):
        """Material i as a dict with add_material's arguments (name, base_color, metallic, roughness, emissive,
        alpha_mode, alpha_cutoff, double_sided, normal_scale, *_image indices into image_info, None: none)
        (ABI 1.13)."""
        d = C.new(C.SkMaterialDesc)
        self._lib.sk_scene_material_info(self.handle, int(i), byref(d))
        out = dict(name=_text(d.name), base_color=tuple(d.base_color), metallic=d.metallic, roughness=d.roughness,
                   emissive=tuple(d.emissive), alpha_mode=self._ALPHA_MODES.get(d.alpha_mode, "OPAQUE"),
                   alpha_cutoff=d.alpha_cutoff, double_sided=bool(d.double_sided), normal_scale=d.normal_scale)
        for field in ("base_color_image", "metallic_roughness_image", "normal_image", "emissive_image",
                      "occlusion_image"):
            v = int(getattr(d, field))
            out[field] = None if v < 0 else v
        return out

    def image_info(self, i):
        """Image i as a dict: name, uri (the path the model names, None when embedded), path (the file read, or
        None), data (bytes, or None when neither embedded nor found), mime, embedded (ABI 1.13)."""
        d = C.new(C.SkImageInfo)
        self._lib.sk_scene_image_info(self.handle, int(i), byref(d))
        data = ctypes.string_at(d.data, d.data_size) if d.data and d.data_size else None
        return dict(name=_text(d.name), uri=_text(d.uri), path=_text(d.path), data=data, mime=_text(d.mime) or "",
                    embedded=bool(d.embedded))

    def object_info(self, i):
        """Camera, light or empty node i as a dict (ABI 1.13): name, kind ("camera", "light", "empty"),
        parent_object (an index, None), parent_joint / parent_mesh (names, None), world (4, 4) at rest in the
        scene's frame (a camera or light looks down its -Z), parent_world (4, 4): the rest world of the file node it
        hangs from, which object_sample is relative to; camera: orthographic, yfov, aspect, xmag, ymag, znear,
        zfar; light: light_type ("SUN", "POINT", "SPOT"), color, intensity (candela; lux for a sun), inner_cone,
        outer_cone (half-angles)."""
        d = C.new(C.SkObjectInfo)
        self._lib.sk_scene_object_info(self.handle, int(i), byref(d))
        out = dict(name=_text(d.name) or "", kind=self._OBJECT_KINDS.get(int(d.kind), "unknown"),
                   parent_object=None if d.parent_object < 0 else int(d.parent_object),
                   parent_joint=_text(d.parent_joint), parent_mesh=_text(d.parent_mesh),
                   world=matrices_from_c(np.ctypeslib.as_array(d.world), 1)[0],
                   parent_world=matrices_from_c(np.ctypeslib.as_array(d.parent_world), 1)[0])
        if d.kind == C.SK_OBJECT_CAMERA:
            out.update(orthographic=bool(d.orthographic), yfov=d.yfov, aspect=d.aspect, xmag=d.xmag, ymag=d.ymag,
                       znear=d.znear, zfar=d.zfar)
        elif d.kind == C.SK_OBJECT_LIGHT:
            out.update(light_type={0: "SUN", 1: "POINT", 2: "SPOT"}.get(int(d.light_type), "POINT"),
                       color=tuple(d.color), intensity=d.intensity, inner_cone=d.inner_cone,
                       outer_cone=d.outer_cone)
        return out

    _KINDS = {"empty": 0, "camera": 1, "light": 2}
    _LIGHT_TYPES = {"SUN": 0, "POINT": 1, "SPOT": 2}

    def add_object(self, kind, name, world, parent_object=None, parent_joint=None, parent_mesh=None, **params):
        """Appends a camera, light or empty (ABI 1.13) to a scene made with create or read through Assimp; returns its
        index. kind "camera", "light" or "empty"; world (4, 4) in the scene's frame (a camera or light looks down its
        -Z); parent_object an index added before, or parent_joint a joint's name, or parent_mesh a mesh node's name.
        params as object_info gives them: orthographic, yfov, aspect, xmag, ymag, znear, zfar; light_type ("SUN",
        "POINT", "SPOT"), color, intensity (candela; lux for a sun), inner_cone, outer_cone."""
        if kind not in self._KINDS:
            raise SkinkitError(C.SK_ERR_INVALID_ARGUMENT, "kind: %r is not camera, light or empty" % (kind,))
        d = C.new(C.SkObjectInfo, kind=self._KINDS[kind], name=name.encode("utf-8") if name else None,
                  parent_object=-1 if parent_object is None else int(parent_object),
                  parent_joint=parent_joint.encode("utf-8") if parent_joint else None,
                  parent_mesh=parent_mesh.encode("utf-8") if parent_mesh else None, light_type=-1)
        d.world[:] = matrices_to_c(np.asarray(world, np.float32).reshape(1, 4, 4), 1, "world").reshape(-1).tolist()
        for key in ("yfov", "aspect", "xmag", "ymag", "znear", "zfar", "intensity", "inner_cone", "outer_cone"):
            if key in params:
                setattr(d, key, float(params[key]))
        d.orthographic = int(bool(params.get("orthographic", False)))
        if kind == "light":
            d.light_type = self._LIGHT_TYPES.get(params.get("light_type", "POINT"), 1)
            d.color[:] = [float(c) for c in params.get("color", (1.0, 1.0, 1.0))][:3]
        idx = c_uint32()
        self._lib.sk_scene_add_object(self.handle, byref(d), byref(idx))
        return int(idx.value)

    def mesh_node_name(self, m):
        """The name of the node mesh m hangs from in its file (the object's name; Assimp splits an object of several
        materials into meshes of one node), or None."""
        return _text(self._lib.sk_scene_mesh_node_name(self.handle, self._mesh_index(m)))

    def mesh_material(self, m):
        """Index of mesh m's material, or None (ABI 1.12)."""
        i = int(self._lib.sk_scene_mesh_material(self.handle, self._mesh_index(m)))
        return None if i < 0 else i

    _OBJECT_KINDS = {0: "empty", 1: "camera", 2: "light"}

    @property
    def objects(self):
        """The file's cameras, lights and empty nodes as (name, kind, parent) tuples, kind "camera", "light" or
        "empty", parent the name of the object or joint it hangs from or None (ABI 1.12)."""
        out = []
        for i in range(int(self._lib.sk_scene_object_count(self.handle))):
            parent = self._lib.sk_scene_object_parent(self.handle, i)
            out.append(((self._lib.sk_scene_object_name(self.handle, i) or b"").decode("utf-8", "replace"),
                        self._OBJECT_KINDS.get(int(self._lib.sk_scene_object_kind(self.handle, i)), "unknown"),
                        parent.decode("utf-8", "replace") if parent is not None else None))
        return out

    @property
    def note(self):
        """What of the source the reader could not take, or None (ABI 1.12)."""
        n = self._lib.sk_scene_note(self.handle)
        return n.decode("utf-8", "replace") if n is not None else None

    def require_skin(self):
        self._lib.sk_scene_require_skin(self.handle)

    @property
    def load_seconds(self):
        return float(self._lib.sk_scene_load_seconds(self.handle))

    def set_frame(self, unit_metres, axes=(2, 3, 1)):
        """Declares the frame of the scene's numbers (metres per unit; up, front, coord as signed axis numbers,
        coord 0 = the right-handed one): the glTF and Collada writers convert from it, the FBX writer declares it.
        Blender's world is (scale_length, (3, -2, 1)): Z up, a character facing -Y."""
        import ctypes as _c
        ax = (_c.c_int32 * 3)(*[int(a) for a in axes])
        self._lib.sk_scene_set_frame(self.handle, float(unit_metres), _c.addressof(ax))

    def frame(self):
        """The unit and axes the file declares (an FBX's GlobalSettings), which the scene's numbers keep:
        (declared, metres per unit, (up, front, coord) as signed axis numbers 1=X 2=Y 3=Z, 4x4 column-major
        matrix into glTF's frame). A scene from any other format is in glTF's frame (declared False)."""
        import ctypes as _c
        unit = _c.c_double(0.0)
        axes = (_c.c_int32 * 3)()
        mat = (_c.c_float * 16)()
        declared = self._lib.sk_scene_frame(self.handle, _c.addressof(unit), _c.addressof(axes), _c.addressof(mat))
        return declared == 1, float(unit.value), tuple(int(a) for a in axes), tuple(float(m) for m in mat)

    @property
    def mesh_count(self):
        return int(self._lib.sk_scene_mesh_count(self.handle))

    def _mesh_index(self, m):
        if not 0 <= int(m) < self.mesh_count:
            raise SkinkitError(C.SK_ERR_OUT_OF_RANGE, "mesh %d out of range (%d meshes)" % (m, self.mesh_count))
        return int(m)

    def mesh_name(self, m):
        return self._lib.sk_scene_mesh_name(self.handle, self._mesh_index(m)).decode("utf-8", "replace")

    @property
    def mesh_names(self):
        return [self.mesh_name(m) for m in range(self.mesh_count)]

    def mesh_vertex_count(self, m):
        return int(self._lib.sk_scene_mesh_vertex_count(self.handle, self._mesh_index(m)))

    def _stream(self, fn, m, width, dtype=np.float32):
        m = self._mesh_index(m)
        f = getattr(self._lib, fn)
        n = int(f(self.handle, m, None, 0))
        if n == 0:
            return None
        out = np.empty(n, dtype)
        f(self.handle, m, _ptr(out), n)
        return out.reshape(-1, width)

    def mesh_positions(self, m):
        return self._stream("sk_scene_mesh_positions", m, 3)

    def mesh_normals(self, m):
        return self._stream("sk_scene_mesh_normals", m, 3)

    def mesh_tangents(self, m):
        return self._stream("sk_scene_mesh_tangents", m, 4)

    def mesh_uv0(self, m):
        return self._stream("sk_scene_mesh_uv0", m, 2)

    def mesh_uv1(self, m):
        """(V, 2) second texture coordinate set, or None (ABI 1.9)."""
        return self._stream("sk_scene_mesh_uv1", m, 2)

    def mesh_colors(self, m):
        """(V, 4) vertex colour set 0, linear RGBA, or None (ABI 1.9)."""
        return self._stream("sk_scene_mesh_colors", m, 4)

    def mesh_morphs(self, m):
        """Mesh m's blend shapes as [(name, default weight, (V, 3) whole positions)] (ABI 1.13)."""
        m = self._mesh_index(m)
        out = []
        for k in range(int(self._lib.sk_scene_mesh_morph_count(self.handle, m))):
            n = int(self._lib.sk_scene_mesh_morph_positions(self.handle, m, k, None, 0))
            pos = np.empty(n, np.float32)
            self._lib.sk_scene_mesh_morph_positions(self.handle, m, k, _ptr(pos), n)
            out.append((_text(self._lib.sk_scene_mesh_morph_name(self.handle, m, k)) or "shape%d" % k,
                        float(self._lib.sk_scene_mesh_morph_weight(self.handle, m, k)), pos.reshape(-1, 3)))
        return out

    def set_mesh_morphs(self, m, shapes, normals=None):
        """Replaces mesh m's blend shapes (ABI 1.14): shapes = [(name, default weight, (V, 3) whole positions)], as
        mesh_morphs gives them ([] removes them); normals: None or one (V, 3) array per shape. glTF writes them as
        morph targets; Collada and FBX cannot (the save note says so)."""
        m = self._mesh_index(m)
        k = len(shapes)
        v = int(self._lib.sk_scene_mesh_positions(self.handle, m, None, 0)) // 3
        pos = np.ascontiguousarray(np.stack([_arr(p, np.float32, "positions", shape=(v, 3)) for _n, _w, p in shapes])
                                   if k else np.zeros(0, np.float32), np.float32)
        nrm = None
        if normals is not None and k:
            if len(normals) != k:
                raise ShapeError("normals: expected %d arrays (one per shape), got %d" % (k, len(normals)))
            nrm = np.ascontiguousarray(np.stack([_arr(x, np.float32, "normals", shape=(v, 3)) for x in normals]))
        names = (c_char_p * max(k, 1))(*[(n or "").encode("utf-8") for n, _w, _p in shapes])
        weights = np.array([float(w) for _n, w, _p in shapes] or [0.0], np.float32)
        self._lib.sk_scene_mesh_set_morphs(self.handle, m, k, names, _ptr(weights), _ptr(pos) if k else None,
                                           _ptr(nrm))

    def mesh_morph_keys(self, m, anim):
        """The keys clip `anim` gives mesh m's blend shape weights (ABI 1.17): (times (K,) float64 seconds, weights
        (K, T) float32, one column per shape as mesh_morphs lists them), or None when the clip keys none."""
        m = self._mesh_index(m)
        n = int(self._lib.sk_scene_mesh_morph_keys(self.handle, m, int(anim), None, None, 0))
        if not n:
            return None
        t = int(self._lib.sk_scene_mesh_morph_count(self.handle, m))
        times, weights = np.zeros(n, np.float64), np.zeros((n, t), np.float32)
        self._lib.sk_scene_mesh_morph_keys(self.handle, m, int(anim), _ptr(times), _ptr(weights), n)
        return times, weights

    def set_mesh_morph_keys(self, m, anim, times, weights):
        """Sets the keys of clip `anim` for mesh m's blend shapes (ABI 1.17): times (K,) seconds, strictly ascending;
        weights (K, T), T the mesh's shape count; K = 0 removes them. glTF writes them as a "weights" channel, binary
        FBX as the shape keys' DeformPercent curves."""
        m = self._mesh_index(m)
        times = np.ascontiguousarray(np.asarray(times, np.float64).reshape(-1))
        t = int(self._lib.sk_scene_mesh_morph_count(self.handle, m))
        weights = np.ascontiguousarray(_arr(weights, np.float32, "weights", shape=(len(times), t)))
        self._lib.sk_scene_mesh_set_morph_keys(self.handle, m, int(anim), len(times), _ptr(times) if len(times) else None,
                                               _ptr(weights) if len(times) else None)

    def _props(self, count_fn, get_fn):
        out = []
        for i in range(int(count_fn(self.handle))):
            node, key, text = c_char_p(), c_char_p(), c_char_p()
            kind = ctypes.c_int32()
            v = np.zeros(3, np.float64)
            get_fn(self.handle, i, byref(node), byref(key), byref(kind), _ptr(v), byref(text))
            k = kind.value
            value = (int(v[0]) if k == C.SK_PROP_INT else bool(v[0]) if k == C.SK_PROP_BOOL else
                     float(v[0]) if k == C.SK_PROP_NUMBER else _text(text.value) if k == C.SK_PROP_STRING else
                     tuple(float(x) for x in v))
            out.append((_text(node.value), _text(key.value), value))
        return out

    def _add_prop(self, add_fn, owner, key, value):
        v = np.zeros(3, np.float64)
        text = None
        if isinstance(value, bool):
            kind, v[0] = C.SK_PROP_BOOL, float(value)
        elif isinstance(value, int):
            kind, v[0] = C.SK_PROP_INT, float(value)
        elif isinstance(value, float):
            kind, v[0] = C.SK_PROP_NUMBER, value
        elif isinstance(value, str):
            kind, text = C.SK_PROP_STRING, value.encode("utf-8")
        else:
            try:
                seq = [float(x) for x in value]
            except (TypeError, ValueError):
                return False
            if len(seq) != 3:
                return False
            kind, v[:] = C.SK_PROP_VEC3, seq
        add_fn(self.handle, owner.encode("utf-8"), key.encode("utf-8"), kind, _ptr(v), text)
        return True

    def custom_props(self):
        """[(node name, property name, value)] of the file's nodes' custom properties (ABI 1.17: an FBX's user
        properties, a glTF's node extras): value an int, bool, float, str or a tuple of 3 floats."""
        return self._props(self._lib.sk_scene_prop_count, self._lib.sk_scene_prop)

    def add_custom_prop(self, node, key, value):
        """Adds a custom property of node `node` (ABI 1.17): value an int, bool, float, str or 3 numbers; written as
        the glTF node's extras and a binary FBX Model's user property. Returns False for a value of another kind."""
        return self._add_prop(self._lib.sk_scene_add_prop, node, key, value)

    def material_props(self):
        """[(material name, property name, value)] of the materials' custom properties (ABI 1.18: an FBX's Material
        user properties, a glTF's material extras), as custom_props."""
        return self._props(self._lib.sk_scene_material_prop_count, self._lib.sk_scene_material_prop)

    def add_material_prop(self, material, key, value):
        """Adds a custom property of material `material` (by name; ABI 1.18): written as the glTF material's extras
        and a binary FBX Material's user property. Returns False for a value of another kind."""
        return self._add_prop(self._lib.sk_scene_add_material_prop, material, key, value)

    def mesh_props(self):
        """[(mesh name, property name, value)] of the meshes' custom properties (ABI 1.19: an FBX's Geometry user
        properties, a glTF's mesh extras), by mesh name (mesh_name), as custom_props."""
        return self._props(self._lib.sk_scene_mesh_prop_count, self._lib.sk_scene_mesh_prop)

    def add_mesh_prop(self, mesh, key, value):
        """Adds a custom property of mesh `mesh` (by mesh name; ABI 1.19): written as the glTF mesh's extras and a
        binary FBX Geometry's user property. Returns False for a value of another kind."""
        return self._add_prop(self._lib.sk_scene_add_mesh_prop, mesh, key, value)

    def set_mesh_parent_joint(self, m, joint):
        """Makes mesh m, which has no skin, hang below joint (an index, a name, or None) in what the writers write
        (ABI 1.25): a prop parented to the armature object then follows its clips. Its vertices stay where they are."""
        sk = self.skeleton
        if isinstance(joint, str):
            if sk is None or joint not in sk.names:
                raise SkinkitError(C.SK_ERR_NOT_FOUND, "no joint named %r" % joint)
            joint = sk.names.index(joint)
        self._lib.sk_scene_mesh_set_parent_joint(self.handle, self._mesh_index(m), -1 if joint is None else int(joint))

    def mesh_parent_joint(self, m):
        """The joint an unskinned mesh's node hangs below in the file (ABI 1.16), or None."""
        j = int(self._lib.sk_scene_mesh_parent_joint(self.handle, self._mesh_index(m)))
        return None if j < 0 else j

    def mesh_parts(self, m):
        """[(first triangle, triangle count, material index or None)] of mesh m's parts (ABI 1.16 sk_scene_mesh_part):
        glTF primitives that draw one vertex set with their own indices and material, read as one mesh; one part,
        the whole mesh, for the others."""
        import ctypes as _c

        m = self._mesh_index(m)
        out = []
        for k in range(int(self._lib.sk_scene_mesh_part_count(self.handle, m))):
            first, count, mat = _c.c_uint64(), _c.c_uint64(), _c.c_int32()
            self._lib.sk_scene_mesh_part(self.handle, m, k, _c.byref(first), _c.byref(count), _c.byref(mat))
            out.append((int(first.value) // 3, int(count.value) // 3, None if mat.value < 0 else int(mat.value)))
        return out

    def mesh_triangles(self, m):
        t = self._stream("sk_scene_mesh_indices", m, 3, np.uint32)
        return np.zeros((0, 3), np.uint32) if t is None else t

    @property
    def skeleton(self):
        h = self._lib.sk_scene_skeleton(self.handle)
        return Skeleton._borrow(self._lib, h, self) if h else None

    def mesh_skin(self, m):
        h = self._lib.sk_scene_mesh_skin(self.handle, self._mesh_index(m))
        return Skin._borrow(self._lib, h, self) if h else None

    def mesh_inverse_binds(self, m):
        """((J, 4, 4) inverse bind matrices, uint8[J] bound flags) of a skinned mesh."""
        sk = self.skeleton
        if sk is None:
            raise SkinkitError(C.SK_ERR_NO_SKIN, "scene has no skeleton")
        n = sk.joint_count
        out = np.empty(16 * n, np.float32)
        bound = np.zeros(n, np.uint8)
        self._lib.sk_scene_mesh_inverse_binds(self.handle, self._mesh_index(m), _ptr(out), _ptr(bound))
        return matrices_from_c(out, n), bound

    def mesh_bind_world(self, m):
        """(4, 4) world transform of a skinned FBX mesh's node in the file (ABI 1.21 sk_scene_mesh_bind_world): the
        space of its inverse binds, so bind_world @ inv(inverse_bind[j]) is the bind pose the file declares for joint
        j even when its rest pose is another (an FBX saved in a frame of its animation). Since library 1.21.1 also a
        posed glTF skin's armature node when the skin names its skeleton (what Blender's glTF importer takes the
        inverse binds to be relative to), and since library 1.27.2 a posed Collada skin's bind shape in the document's
        world. None when the reader noted none (other formats and cases, an unskinned mesh) or the library predates
        it."""
        if not self._lib.has("sk_scene_mesh_bind_world"):
            return None
        out = np.empty(16, np.float32)
        try:
            self._lib.sk_scene_mesh_bind_world(self.handle, self._mesh_index(m), _ptr(out), None)
        except SkinkitError as e:
            if e.code == C.SK_ERR_NOT_FOUND:
                return None
            raise
        return matrices_from_c(out, 1)[0]

    def mesh_node_transform(self, m):
        """(N, joint) of mesh m (ABI 1.27 sk_scene_mesh_node_transform): N the (4, 4) node transform the library placed
        an unskinned mesh's (or a rigid attachment's) vertices with, in the scene's space - inv(N) @ v is a vertex in
        its node's own space, N the node's origin and axes - the identity when there is none (a skinned mesh, a node
        at the identity or a mirror); joint the joint a rigid attachment still hangs from (its node that joint's
        child), else None. (identity, None) from a library that predates it."""
        if not self._lib.has("sk_scene_mesh_node_transform"):
            return np.identity(4, np.float32), None
        import ctypes as _c

        out = np.empty(16, np.float32)
        joint = _c.c_int32(-1)
        self._lib.sk_scene_mesh_node_transform(self.handle, self._mesh_index(m), _ptr(out), _c.byref(joint), None)
        return matrices_from_c(out, 1)[0], (None if joint.value < 0 else int(joint.value))

    def deform_joints(self):
        """(joint_count,) bool: the joints that should receive weights (sk_scene_deform_joints: the skins' joints,
        else the bone hierarchy below the scene root and armature object nodes), or None without a skeleton."""
        sk = self.skeleton
        if sk is None:
            return None
        n = sk.joint_count
        mask = np.zeros(max(n, 1), np.uint8)
        self._lib.sk_scene_deform_joints(self.handle, _ptr(mask), n, None, None)
        return mask[:n].astype(bool)

    @property
    def animation_count(self):
        return int(self._lib.sk_scene_animation_count(self.handle))

    def animation_name(self, a):
        s = self._lib.sk_scene_animation_name(self.handle, int(a))
        return None if s is None else s.decode("utf-8", "replace")

    def weld(self):
        """Merges each mesh's vertices that are identical in every stream - position, normal, tangent, texture
        coordinates, colour, blend shapes, skin row - bit for bit (ABI 1.20 sk_scene_weld): the face corners Assimp's
        FBX, Collada, .X and OBJ readers give a vertex each become shared vertices again. Meshes read from a glTF by
        skinkit's reader are left as they are. Returns the number of vertices removed; arrays and skins taken from
        the scene before are stale."""
        n = c_uint64(0)
        self._lib.sk_scene_weld(self.handle, byref(n), None)
        return int(n.value)

    def animation_keyed_joints(self, a):
        """(joint_count,) bool: the joints animation a has a channel for (ABI 1.19), or None without a skeleton."""
        sk = self.skeleton
        if sk is None:
            return None
        n = sk.joint_count
        mask = np.zeros(max(n, 1), np.uint8)
        self._lib.sk_scene_animation_keyed_joints(self.handle, int(a), _ptr(mask), n, None, None)
        return mask[:n].astype(bool)

    def animation_duration(self, a):
        return float(self._lib.sk_scene_animation_duration(self.handle, int(a)))

    def object_key_times(self, a, i):
        """float64 array of the times at which clip a keys object i (empty: it does not) (ABI 1.13)."""
        n = c_size_t()
        self._lib.sk_scene_object_key_times(self.handle, int(a), int(i), None, 0, byref(n))
        out = np.empty(n.value, np.float64)
        if n.value:
            self._lib.sk_scene_object_key_times(self.handle, int(a), int(i), out.ctypes.data_as(
                ctypes.POINTER(ctypes.c_double)), n.value, byref(n))
        return out[:n.value]

    def object_sample(self, a, i, time):
        """(4, 4) transform of object i relative to its object_info parent_world at time seconds of clip a (its rest
        one when the clip does not key it) (ABI 1.13)."""
        out = np.empty(16, np.float32)
        self._lib.sk_scene_object_sample(self.handle, int(a), int(i), float(time), _ptr(out))
        return matrices_from_c(out, 1)[0]

    def animation_key_times(self, a):
        """float64 array of the times (seconds, ascending) at which animation a keys a joint (ABI 1.13)."""
        n = c_size_t()
        self._lib.sk_scene_animation_key_times(self.handle, int(a), None, 0, byref(n))
        out = np.empty(n.value, np.float64)
        if n.value:
            self._lib.sk_scene_animation_key_times(self.handle, int(a), out.ctypes.data_as(
                ctypes.POINTER(ctypes.c_double)), n.value, byref(n))
        return out[:n.value]

    def add_animation(self, name, times, trs, keyed=None):
        """Appends a clip (ABI 1.13) to a scene made with create or read through Assimp; returns its index. times:
        (K,) ascending seconds; trs: (K, J, 10) local poses as sample_pose gives them (translation, rotation x y z w,
        scale) in the scene's frame; keyed: (J,) bools, False = no channel for that joint (None: all keyed)."""
        sk = self.skeleton
        if sk is None:
            raise SkinkitError(C.SK_ERR_NO_SKIN, "scene has no skeleton")
        t = np.ascontiguousarray(times, np.float64).reshape(-1)
        pose = _arr(trs, np.float32, "trs", shape=(len(t), sk.joint_count, 10))
        mask = None if keyed is None else _arr(np.asarray(keyed, bool).astype(np.uint8), np.uint8, "keyed",
                                               shape=(sk.joint_count,))
        idx = c_uint32()
        self._lib.sk_scene_add_animation(self.handle, name.encode("utf-8") if name else None,
                                         t.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), len(t), _ptr(pose),
                                         _ptr(mask), byref(idx))
        return int(idx.value)

    def sample_pose(self, a, time):
        """(J, 10) TRS pose of animation a at time seconds."""
        sk = self.skeleton
        if sk is None:
            raise SkinkitError(C.SK_ERR_NO_SKIN, "scene has no skeleton")
        out = np.empty((sk.joint_count, 10), np.float32)
        self._lib.sk_scene_sample_pose(self.handle, int(a), float(time), _ptr(out))
        return out

    def save(self, path, overwrite=False, format=None, normalize=False, max_influences=0, prune=0.0, as_is=False,
             isolate=False, timeout_seconds=0.0):
        """Writes the scene (atomically). Returns the library's notes - what the file could not keep, "; "-separated
        (ABI 1.15 sk_save_options.notes) - or "". isolate: a .fbx or .dae written anew goes through Assimp's writer
        in a child process (ABI 1.22), so its crash or hang (timeout_seconds > 0) raises instead of killing Python."""
        fmt = format.encode("utf-8") if format else None
        notes = ctypes.create_string_buffer(8192)
        opts = C.new(C.SkSaveOptions, overwrite=int(bool(overwrite)), format=fmt, normalize=int(bool(normalize)),
                     max_influences=int(max_influences), prune=float(prune), as_is=int(bool(as_is)),
                     notes=ctypes.cast(notes, ctypes.c_void_p), notes_size=len(notes),
                     isolate=int(bool(isolate)), timeout_seconds=float(timeout_seconds))
        self._lib.sk_scene_save(self.handle, _path_arg(path), byref(opts))
        return notes.value.decode("utf-8", "replace")

    def validate(self, tolerance=1e-3, max_influences=0):
        """(list of per-mesh dicts (None for unskinned meshes), any findings)."""
        n = self.mesh_count
        reports = (C.SkMeshReport * max(n, 1))()
        for r in reports:
            r.size = C.sizeof(C.SkMeshReport)
            r.skin.size = C.sizeof(C.SkSkinReport)
        opts = C.new(C.SkValidateOptions, tolerance=float(tolerance), max_influences=int(max_influences))
        findings = c_uint32()
        self._lib.sk_scene_validate(self.handle, byref(opts), reports, len(reports), byref(findings))
        out = []
        for r in reports[:n]:
            if not r.skinned:
                out.append(None)
                continue
            d = _report_dict(r.skin)
            for k in ("singular_binds", "nonrigid_binds", "unused_bones", "dropped_weights"):
                d[k] = int(getattr(r, k))
            # glTF: the Khronos validator's skin-structure errors (library ABI 1.8; always False before)
            d["skin_no_common_root"] = bool(r.skin_structure & C.SK_SKIN_NO_COMMON_ROOT)
            d["skin_skeleton_invalid"] = bool(r.skin_structure & C.SK_SKIN_SKELETON_INVALID)
            d["skin_duplicate_joint"] = bool(r.skin_structure & C.SK_SKIN_DUPLICATE_JOINT)
            # a JOINTS_n / WEIGHTS_n accessor of a type glTF does not allow (library 1.21.2)
            d["influence_format_invalid"] = bool(r.skin_structure & C.SK_SKIN_INFLUENCE_FORMAT)
            # a Draco primitive declaring another vertex count than its data decodes to (library 1.26.1)
            d["draco_count_mismatch"] = bool(r.skin_structure & C.SK_SKIN_DRACO_COUNT)
            # the document's JSON is not UTF-8 throughout (library 1.26.2; the Khronos validator's INVALID_JSON)
            d["json_invalid_utf8"] = bool(r.skin_structure & C.SK_SKIN_JSON_UTF8)
            d["findings"] = bool(r.findings)
            out.append(d)
        return out, bool(findings.value)


# ------------------------------------------------------------------------------------------- weight operations
# Every operation edits the Skin in place, touching only the vertices where mask (uint8/bool[V], None = all) is
# set and never changing a joint where locked (uint8/bool[J], None = none) is set; it returns a report dict
# (vertices_visited, vertices_changed, vertices_failed, ..., vertex_flags uint8[V] of WFLAG_* bits).
WFLAG_CHANGED = C.SK_WFLAG_CHANGED
WFLAG_FAILED = C.SK_WFLAG_FAILED
WFLAG_NAMES = {
    C.SK_WFLAG_CHANGED: "changed", C.SK_WFLAG_FAILED: "failed", C.SK_WFLAG_INVALID: "invalid",
    C.SK_WFLAG_UNWEIGHTED: "unweighted", C.SK_WFLAG_LOCKED: "locked", C.SK_WFLAG_SUM_OFF: "sum_off",
    C.SK_WFLAG_UNMATCHED: "unmatched", C.SK_WFLAG_ROGUE: "rogue",
}


class _WeightCall:
    """Builds the scope and report of one weight operation and keeps the arrays alive during the call."""

    def __init__(self, skin, mask, locked, joint_counts=False):
        self.skin = skin
        v, j = skin.vertex_count, skin.joint_count
        self.scope = C.SkWeightScope()
        self.keep = []
        if mask is not None:
            m = _arr(np.asarray(mask).astype(bool), np.uint8, "mask", size=v)
            self.keep.append(m)
            self.scope.vertex_mask, self.scope.vertex_mask_count = _ptr(m), v
        if locked is not None:
            lk = _arr(np.asarray(locked).astype(bool), np.uint8, "locked", size=j)
            self.keep.append(lk)
            self.scope.locked_joints, self.scope.locked_joint_count = _ptr(lk), j
        self.flags = np.zeros(v, np.uint8)
        self.joint_counts = np.zeros(j, np.uint32) if joint_counts else None
        self.report = C.new(C.SkWeightsReport, vertex_flags=_ptr(self.flags), joint_counts=_ptr(self.joint_counts))

    def run(self, fn, desc):
        desc.scope = self.scope
        getattr(self.skin._lib, fn)(self.skin.handle, byref(desc), byref(self.report))
        d = {name: int(getattr(self.report, name)) for name, _t in C.SkWeightsReport._fields_
             if name not in ("size", "reserved", "joint_counts", "vertex_flags")}
        d["vertex_flags"] = self.flags
        if self.joint_counts is not None:
            d["joint_counts"] = self.joint_counts
        return d


def normalize_weights(skin, mask=None, locked=None, drop_invalid=False, tolerance=0.0):
    """Each selected vertex sums to 1 (locked weights kept, the others scaled by (1 - L) / U). A vertex with a
    NaN/negative/out-of-range entry is left unchanged unless drop_invalid removes those entries first."""
    call = _WeightCall(skin, mask, locked)
    desc = C.new(C.SkNormalizeDesc, flags=C.SK_NORMALIZE_DROP_INVALID if drop_invalid else 0,
                 tolerance=float(tolerance))
    return call.run("sk_weights_normalize", desc)


def limit_weights(skin, max_influences=4, mask=None, locked=None, normalize=True, tolerance=0.0):
    """Vertices with more than max_influences entries keep their locked and largest unlocked ones (then are
    renormalized unless normalize=False)."""
    call = _WeightCall(skin, mask, locked)
    desc = C.new(C.SkLimitDesc, max_influences=int(max_influences),
                 flags=0 if normalize else C.SK_LIMIT_NO_NORMALIZE, tolerance=float(tolerance))
    return call.run("sk_weights_limit", desc)


def prune_weights(skin, threshold, mask=None, locked=None, keep_one=True, normalize=False, tolerance=0.0):
    """Removes unlocked weights below threshold and zero weights (keep_one: a vertex keeps its largest)."""
    call = _WeightCall(skin, mask, locked)
    flags = (C.SK_PRUNE_KEEP_ONE if keep_one else 0) | (C.SK_PRUNE_NORMALIZE if normalize else 0)
    desc = C.new(C.SkPruneDesc, flags=flags, threshold=float(threshold), tolerance=float(tolerance))
    return call.run("sk_weights_prune", desc)


def quantize_weights(skin, bits=8, mask=None, locked=None, want_values=False):
    """Snaps each selected vertex to q_i / T (T = 255 or 65535) with integers summing exactly to T. With
    want_values the report holds "values" (uint16 per CSR entry)."""
    call = _WeightCall(skin, mask, locked)
    desc = C.new(C.SkQuantizeDesc, bits=int(bits))
    values = None
    if want_values:
        values = np.zeros(skin.influence_count, np.uint16)
        desc.out_values, desc.out_values_count = _ptr(values), values.size
    rep = call.run("sk_weights_quantize", desc)
    if values is not None:
        rep["values"] = values
    return rep


def _positions_arg(desc, positions, v, keep):
    p = _arr(positions, np.float32, "positions", shape=(v, 3))
    keep.append(p)
    desc.positions, desc.position_count = _ptr(p), v


def smooth_weights(skin, triangles, positions=None, iterations=1, factor=0.5, method="uniform", joints=None,
                   max_influences=0, min_weight=0.0, mask=None, locked=None, tolerance=0.0):
    """Laplacian smoothing over mesh edges (method 'uniform' or 'cotangent', which needs positions)."""
    call = _WeightCall(skin, mask, locked)
    v = skin.vertex_count
    tri = _arr(triangles, np.uint32, "triangles", shape=(None, 3))
    call.keep.append(tri)
    methods = {"uniform": C.SK_SMOOTH_UNIFORM, "cotangent": C.SK_SMOOTH_COTANGENT}
    if method not in methods:
        raise ShapeError("method must be 'uniform' or 'cotangent', not %r" % method)
    desc = C.new(C.SkSmoothDesc, method=methods[method], triangles=_ptr(tri), triangle_count=tri.shape[0],
                 iterations=int(iterations), factor=float(factor), max_influences=int(max_influences),
                 min_weight=float(min_weight), tolerance=float(tolerance))
    if positions is not None:
        _positions_arg(desc, positions, v, call.keep)
    if joints is not None:
        jl = _arr(joints, np.uint32, "joints", shape=(None,))
        call.keep.append(jl)
        desc.joints, desc.joint_list_count = _ptr(jl), jl.size
    return call.run("sk_weights_smooth", desc)


def remove_rogue_weights(skin, triangles, positions=None, skeleton=None, epsilon=0.0, per_component=False,
                         mask=None, locked=None, tolerance=0.0):
    """Rogue-vertex removal (Weber 2000); the report adds joint_counts (rogue attachments per joint)."""
    call = _WeightCall(skin, mask, locked, joint_counts=True)
    tri = _arr(triangles, np.uint32, "triangles", shape=(None, 3))
    call.keep.append(tri)
    desc = C.new(C.SkRogueDesc, flags=C.SK_ROGUE_PER_COMPONENT if per_component else 0, triangles=_ptr(tri),
                 triangle_count=tri.shape[0], epsilon=float(epsilon), tolerance=float(tolerance),
                 skeleton=skeleton.handle if skeleton is not None else None)
    if positions is not None:
        _positions_arg(desc, positions, skin.vertex_count, call.keep)
    return call.run("sk_weights_remove_rogue", desc)


_MIRROR_MODES = {"+to-": C.SK_MIRROR_POSITIVE_TO_NEGATIVE, "-to+": C.SK_MIRROR_NEGATIVE_TO_POSITIVE,
                 "flip": C.SK_MIRROR_FLIP}


def mirror_weights(skin, positions, mode="+to-", skeleton=None, plane=(1.0, 0.0, 0.0, 0.0), tolerance=0.0,
                   mask=None, locked=None):
    """Mirrors weights across the plane n . p = d (plane = (nx, ny, nz, d)); mode '+to-', '-to+' or 'flip'.
    Joints are renamed Left <-> Right through the skeleton's names when one is given."""
    if mode not in _MIRROR_MODES:
        raise ShapeError("mode must be one of %s, not %r" % (", ".join(_MIRROR_MODES), mode))
    call = _WeightCall(skin, mask, locked)
    desc = C.new(C.SkMirrorDesc, mode=_MIRROR_MODES[mode], tolerance=float(tolerance),
                 skeleton=skeleton.handle if skeleton is not None else None)
    desc.plane[:] = [float(x) for x in _arr(plane, np.float32, "plane", size=4)]
    _positions_arg(desc, positions, skin.vertex_count, call.keep)
    return call.run("sk_weights_mirror", desc)


_BRUSH_MODES = {"add": C.SK_BRUSH_ADD, "subtract": C.SK_BRUSH_SUBTRACT, "replace": C.SK_BRUSH_REPLACE,
                "smooth": C.SK_BRUSH_SMOOTH}
_FALLOFFS = {"smooth": C.SK_FALLOFF_SMOOTH, "linear": C.SK_FALLOFF_LINEAR, "constant": C.SK_FALLOFF_CONSTANT,
             "sharp": C.SK_FALLOFF_SHARP}


def brush_weights(skin, joint, positions, dabs, mode="add", falloff="smooth", value=1.0, triangles=None,
                  geodesic=False, normalize=True, mask=None, locked=None, tolerance=0.0):
    """Paints one joint with a stroke: dabs (N, 5) = center x, y, z, radius, strength. mode 'add', 'subtract',
    'replace' (towards value) or 'smooth'; falloff 'smooth', 'linear', 'constant' or 'sharp'."""
    if mode not in _BRUSH_MODES or falloff not in _FALLOFFS:
        raise ShapeError("mode must be one of %s and falloff one of %s" % (sorted(_BRUSH_MODES), sorted(_FALLOFFS)))
    call = _WeightCall(skin, mask, locked)
    d = _arr(dabs, np.float32, "dabs", shape=(None, 5))
    call.keep.append(d)
    flags = (C.SK_BRUSH_GEODESIC if geodesic else 0) | (0 if normalize else C.SK_BRUSH_NO_NORMALIZE)
    desc = C.new(C.SkBrushDesc, mode=_BRUSH_MODES[mode], falloff=_FALLOFFS[falloff], flags=flags, joint=int(joint),
                 value=float(value), dabs=_ptr(d), dab_count=d.shape[0], tolerance=float(tolerance))
    _positions_arg(desc, positions, skin.vertex_count, call.keep)
    if triangles is not None:
        tri = _arr(triangles, np.uint32, "triangles", shape=(None, 3))
        call.keep.append(tri)
        desc.triangles, desc.triangle_count = _ptr(tri), tri.shape[0]
    return call.run("sk_weights_brush", desc)


def joint_mirror_name(name):
    """Left <-> Right counterpart of a joint name, or None when the name carries no side."""
    raw = name.encode("utf-8")
    buf = C.ctypes.create_string_buffer(len(raw) + 8)
    try:
        library().sk_joint_mirror_name(raw, C.ctypes.addressof(buf), len(buf))
    except SkinkitError as e:
        if e.code == C.SK_ERR_NOT_FOUND:
            return None
        raise
    return _text(buf.value)


# ------------------------------------------------------------------------------------------- weight records
# Per-vertex weight records at a raw address, in the layout of Blender's MDeformVert (skinkit.h, "per-vertex
# weight records"). The caller vouches for the address: bridge.py finds and checks it before calling these.
def _records(address):
    return C.ctypes.cast(int(address), C.POINTER(C.SkWeightRecord))


def records_read(address, vertex_count, group_to_joint):
    """CSR (offsets uint32[V+1], joints uint32[N], weights float32[N]) of the records' entries whose group maps to
    a joint (group_to_joint[g] >= 0), per vertex in record order."""
    gmap = np.ascontiguousarray(group_to_joint, np.int32)
    off = np.empty(int(vertex_count) + 1, np.uint32)
    # the records' own counts bound the entries: read once into arrays that large (16-byte records, count at 8)
    counts = np.ctypeslib.as_array((C.ctypes.c_int32 * (4 * int(vertex_count))).from_address(int(address)))[2::4]
    cap = int(np.maximum(counts, 0).sum(dtype=np.int64))
    jt = np.empty(cap, np.uint32)
    wt = np.empty(cap, np.float32)
    n = C.c_size_t()
    library().sk_records_read(_records(address), int(vertex_count), _ptr(gmap), gmap.size, _ptr(off), _ptr(jt), _ptr(wt),
                              cap, C.ctypes.byref(n))
    return off, jt[:n.value], wt[:n.value]


def records_update(address, vertex_count, group_to_joint, offsets, joints, weights, mask=None):
    """Rewrites the mapped entries of the records in place from a CSR; (deferred bool[V], changed vertex count):
    the deferred vertices need an allocation (a new membership, or none left) and were not touched."""
    gmap = np.ascontiguousarray(group_to_joint, np.int32)
    off = np.ascontiguousarray(offsets, np.uint32)
    jt = np.ascontiguousarray(joints, np.uint32)
    wt = np.ascontiguousarray(weights, np.float32)
    if off.size != int(vertex_count) + 1 or jt.size < int(off[-1]) or wt.size < int(off[-1]):
        raise ValueError("CSR does not match %d vertices" % vertex_count)
    m = None if mask is None else np.ascontiguousarray(mask, np.uint8)
    if m is not None and m.size != int(vertex_count):
        raise ValueError("mask has %d entries for %d vertices" % (m.size, vertex_count))
    deferred = np.zeros(int(vertex_count), np.uint8)
    changed = C.c_size_t()
    library().sk_records_update(_records(address), int(vertex_count), _ptr(gmap), gmap.size, _ptr(off), _ptr(jt),
                                _ptr(wt), _ptr(m), _ptr(deferred), C.ctypes.byref(changed))
    return deferred.astype(bool), int(changed.value)


_RECORD_OPS = {"normalize": (C.SK_RECORDS_NORMALIZE, C.SkNormalizeDesc), "limit": (C.SK_RECORDS_LIMIT, C.SkLimitDesc),
               "prune": (C.SK_RECORDS_PRUNE, C.SkPruneDesc), "quantize": (C.SK_RECORDS_QUANTIZE, C.SkQuantizeDesc),
               "round": (C.SK_RECORDS_ROUND, C.SkQuantizeDesc)}


_REPORT_FIELDS = tuple(name for name, _t in C.SkWeightsReport._fields_
                       if name not in ("size", "reserved", "joint_counts", "vertex_flags"))


# records_edit builds its structs with ctypes' own setter: _Struct's range check (~1 us a field, the structs ~8 us of
# a call that Blender 3.4 runs cold in ~0.5 ms; docs/addon.md, session 74) is kept for the integers a caller gives
# (max_influences, bits); every other value here is a constant, a count or an address.
_put = C.ctypes.Structure.__setattr__
_EDIT_DESC_SIZE = C.sizeof(C.SkRecordsEditDesc)
_REPORT_SIZE = C.sizeof(C.SkWeightsReport)


def _records_op_desc(op, params):
    """(SK_RECORDS_* code, the operation's descriptor) of records_edit's op and params."""
    code, desc_type = _RECORD_OPS[op]
    desc = desc_type()
    _put(desc, "size", C.sizeof(desc_type))
    if op == "normalize":
        _put(desc, "flags", C.SK_NORMALIZE_DROP_INVALID if params.get("drop_invalid") else 0)
    elif op == "limit":
        desc.max_influences = int(params.get("max_influences", 4))
        _put(desc, "flags", 0 if params.get("normalize", True) else C.SK_LIMIT_NO_NORMALIZE)
    elif op == "prune":
        _put(desc, "threshold", float(params["threshold"]))
        _put(desc, "flags", (C.SK_PRUNE_KEEP_ONE if params.get("keep_one", True) else 0)
             | (C.SK_PRUNE_NORMALIZE if params.get("normalize") else 0))
    else:
        desc.bits = int(params.get("bits", 8))
    if op in ("normalize", "limit", "prune"):
        _put(desc, "tolerance", float(params.get("tolerance", 0.0)))
    return code, desc


def records_edit(address, vertex_count, group_to_joint, op, mask=None, locked=None, no_change=0.0, state=None,
                 flags=True, lib=None, **params):
    """Runs a weight operation straight on the records (sk_records_edit): op "normalize" (drop_invalid,
    tolerance), "limit" (max_influences, normalize, tolerance), "prune" (threshold, keep_one, normalize, tolerance),
    "quantize" (bits) or "round" (bits: each weight on its own, Blender's Quantize). mask: bool[V] or None; locked:
    bool per joint (joint k = the group mapped to k) or None. Returns (report dict as the weight functions give,
    with "vertices_deferred"; state uint8[V]: 0 left, 1 rewritten in place, 2 deferred - not written, its row needs
    an allocation). state: a uint8 array of at least V entries to fill and return (its first V) instead of a new
    one; flags=False: no "vertex_flags" in the report. (Both spare a call on a large mesh two fresh arrays, whose
    pages the kernel has to fault in: a third of a Limit Total's time on 92k vertices in Blender.) lib: library(),
    when the caller has it."""
    gmap = np.ascontiguousarray(group_to_joint, np.int32)
    nj = int(gmap.max()) + 1 if gmap.size else 0  # (no group mapped: -1 + 1)
    call = _edit_call(op, params, no_change)
    keep = []
    scope = call.desc.scope  # (a view into desc)
    m = lk = None
    if mask is not None:
        m = _arr(np.asarray(mask).astype(bool), np.uint8, "mask", size=int(vertex_count))
    if locked is not None and nj:
        lk = _arr(np.asarray(locked).astype(bool)[:nj], np.uint8, "locked", size=nj)
    keep.extend((m, lk))
    _put(scope, "vertex_mask", _ptr(m))
    _put(scope, "vertex_mask_count", 0 if m is None else m.size)
    _put(scope, "locked_joints", _ptr(lk))
    _put(scope, "locked_joint_count", 0 if lk is None else nj)
    vflags = np.zeros(int(vertex_count), np.uint8) if flags else None
    if state is None or state.dtype != np.uint8 or state.size < int(vertex_count) or not state.flags.c_contiguous:
        state = np.zeros(int(vertex_count), np.uint8)
    state = state[:int(vertex_count)]
    report = call.report
    _put(report, "vertex_flags", _ptr(vflags))
    fn = (lib or library()).raw.sk_records_edit  # the integers are a count and the map's size: no range check
    rc = fn(_records(address), int(vertex_count), _ptr(gmap), gmap.size, call.edit_ref, _ptr(state),
            call.deferred_ref, call.report_ref, call.err_ref)
    if rc != C.SK_OK:
        raise SkinkitError(rc, call.err.message.decode("utf-8", "replace") or "sk_records_edit failed: %d" % rc)
    d = {name: getattr(report, name) for name in _REPORT_FIELDS}  # (c_uint64 fields read as int)
    d["vertices_deferred"] = int(call.deferred.value)
    if flags:
        d["vertex_flags"] = vflags
    return d, state


class _EditCall:
    """The structs of one records_edit operation and parameters, built once and kept (per thread: each call fills
    its scope and report): in Blender a weight tool runs cold after the depsgraph update, where building them took
    ~50 us of a ~1.5 ms operator (docs/addon.md, session 75)."""

    __slots__ = ("desc", "edit", "report", "deferred", "err", "edit_ref", "report_ref", "deferred_ref", "err_ref")

    def __init__(self, op, params, no_change):
        code, self.desc = _records_op_desc(op, params)
        self.edit = C.SkRecordsEditDesc()
        _put(self.edit, "size", _EDIT_DESC_SIZE)
        _put(self.edit, "op", code)
        _put(self.edit, "op_desc", C.ctypes.addressof(self.desc))
        _put(self.edit, "no_change", float(no_change))
        self.report = C.SkWeightsReport()
        _put(self.report, "size", _REPORT_SIZE)
        self.deferred = C.c_size_t()
        self.err = C.SkError()
        self.edit_ref, self.report_ref = byref(self.edit), byref(self.report)
        self.deferred_ref, self.err_ref = byref(self.deferred), byref(self.err)


_EDIT_CALLS = threading.local()


def _edit_call(op, params, no_change):
    """The kept _EditCall of (op, params, no_change) on this thread (a few kept; built on a miss)."""
    calls = _EDIT_CALLS.__dict__.setdefault("calls", {})
    key = (op, tuple(sorted(params.items())), float(no_change))
    call = calls.get(key)
    if call is None:
        if len(calls) >= 16:
            calls.clear()
        call = calls[key] = _EditCall(op, params, no_change)
    return call


# ------------------------------------------------------------------------------------------- .skf files
def _bytes_arg(data):
    """(keep-alive object, address, size) of a bytes-like object."""
    buf = np.frombuffer(bytes(data) if not isinstance(data, (bytes, bytearray, np.ndarray)) else data, np.uint8)
    return buf, (buf.ctypes.data if buf.size else None), buf.size


def skf_encode(skeleton, meshes, weight_bits=8, max_influences=4, level=9, file_order=False, weld=True):
    """Encodes .skf bytes. meshes: list of Skin or (skin, positions or None, triangles/indices or None).
    With positions and weld, copies at equal positions are not stored (decoding then needs the positions)."""
    keep = []
    arr = (C.SkSkfMesh * max(len(meshes), 1))()
    for i, m in enumerate(meshes):
        skin, pos, idx = (m, None, None) if isinstance(m, Skin) else (tuple(m) + (None, None))[:3]
        arr[i].skin = skin.handle
        if pos is not None:
            p = _arr(pos, np.float32, "positions", shape=(skin.vertex_count, 3))
            keep.append(p)
            arr[i].positions = _ptr(p)
        if idx is not None:
            ix = _arr(idx, np.uint32, "indices").reshape(-1)
            keep.append(ix)
            arr[i].indices, arr[i].index_count = _ptr(ix), ix.size
    desc = C.new(C.SkSkfEncodeDesc, weight_bits=int(weight_bits), max_influences=int(max_influences),
                 level=int(level), flags=(C.SK_SKF_FILE_ORDER if file_order else 0) | (0 if weld else C.SK_SKF_NO_WELD),
                 mesh_count=len(meshes),
                 skeleton=skeleton.handle, meshes=arr)
    lib = skeleton._lib
    bound = int(lib.sk_skf_encode_bound(byref(desc)))
    if bound == 0:
        raise SkinkitError(C.SK_ERR_INVALID_ARGUMENT, "invalid .skf encode parameters (sk_skf_encode_bound = 0)")
    out = np.empty(bound, np.uint8)
    n = C.c_size_t()
    lib.sk_skf_encode(byref(desc), _ptr(out), bound, byref(n))
    return out[:n.value].tobytes()


def _struct_dict(s):
    return {name: (int(getattr(s, name)) if not isinstance(getattr(s, name), bytes) else _text(getattr(s, name)))
            for name, _t in s._fields_ if name not in ("size", "reserved")}


def skf_peek(data):
    """Header information of .skf bytes (validates header, CRCs and chunk list)."""
    buf, addr, n = _bytes_arg(data)
    info = C.new(C.SkSkfInfo)
    library().sk_skf_peek(addr, n, byref(info))
    return _struct_dict(info)


def skf_mesh_info(data, mesh):
    buf, addr, n = _bytes_arg(data)
    info = C.new(C.SkSkfMeshInfo)
    library().sk_skf_get_mesh_info(addr, n, int(mesh), byref(info))
    return _struct_dict(info)


def skf_position_hash(positions):
    p = _arr(positions, np.float32, "positions", shape=(None, 3))
    return int(library().sk_skf_position_hash(_ptr(p), p.shape[0]))


def skf_decode_skeleton(data):
    """(names, parents int32[J], inverse_bind (J, 4, 4)) of the joint table."""
    info = skf_peek(data)
    buf, addr, n = _bytes_arg(data)
    j = info["joint_count"]
    parents = np.empty(j, np.int32)
    ib = np.empty(16 * j, np.float32)
    names = np.zeros(max(info["names_size"], 1), np.uint8)
    library().sk_skf_decode_skeleton(addr, n, _ptr(parents), _ptr(ib), _ptr(names), names.size)
    return ([_text(x) for x in names.tobytes().split(b"\0")[:j]], parents, matrices_from_c(ib, j))


def skf_decode(data, mesh=0, influences=4, joint_dtype=np.uint16, weight_dtype=None, indices=None, positions=None):
    """Decodes one mesh into packed (joints (V, K), weights (V, K)); weight_dtype None = the file's width.
    indices: the mesh's index buffer (order 1, or 2 with an index count); positions: its rest positions (order 2)."""
    mi = skf_mesh_info(data, mesh)
    buf, addr, n = _bytes_arg(data)
    v = mi["vertex_count"]
    jd = np.dtype(joint_dtype)
    if weight_dtype is None:
        weight_dtype = np.uint8 if skf_peek(data)["weight_bits"] == 8 else np.uint16
    wd = np.dtype(weight_dtype)
    if jd not in (np.dtype(np.uint8), np.dtype(np.uint16)) or wd not in (np.dtype(np.uint8), np.dtype(np.uint16)):
        raise ShapeError("skf_decode: joint and weight dtypes must be uint8 or uint16")
    jt = np.zeros((v, int(influences)), jd)
    wt = np.zeros((v, int(influences)), wd)
    desc = C.new(C.SkSkfDecodeDesc, mesh=int(mesh), influences=int(influences), joint_type=_JOINT_TYPES[jd],
                 weight_type=_WEIGHT_TYPES[wd], joints=_ptr(jt), weights=_ptr(wt), vertex_capacity=v)
    ix = None
    if indices is not None:
        ix = _arr(indices, np.uint32, "indices").reshape(-1)
        desc.indices, desc.index_count = _ptr(ix), ix.size
    pos = None
    if positions is not None:
        pos = _arr(positions, np.float32, "positions", shape=(v, 3))
        desc.positions = _ptr(pos)
    library().sk_skf_decode(addr, n, byref(desc))
    return jt, wt


def skf_chunks(data):
    """[{tag, offset, stored_size, raw_size}] of .skf bytes."""
    buf, addr, n = _bytes_arg(data)
    count = c_uint32()
    lib = library()
    lib.sk_skf_chunks(addr, n, None, 0, byref(count))
    arr = (C.SkSkfChunk * max(count.value, 1))()
    for c in arr:
        c.size = C.sizeof(C.SkSkfChunk)
    lib.sk_skf_chunks(addr, n, arr, count.value, byref(count))
    return [_struct_dict(c) for c in arr[:count.value]]


# ------------------------------------------------------------------------------------------- binding
_BIND_METHODS = {"robust": C.SK_BIND_ROBUST, "nearest": C.SK_BIND_NEAREST, "heat": C.SK_BIND_HEAT,
                 "capsule": C.SK_BIND_CAPSULE, "delaunay": C.SK_BIND_DELAUNAY}


def bind(positions, triangles, skeleton=None, heads=None, tails=None, method="robust", max_influences=4,
         deform=None, locked=None, vertex_mask=None, prune=0.0, rigid=False, falloff_power=0.0,
         falloff_cutoff=0.0, heat_scale=0.0, weld=True, skin=None, parents=None):
    """Automatic skin weights for a mesh ((V, 3) positions, (T, 3) triangles; T may be 0) from a Skeleton or
    explicit (J, 3) bone heads/tails (with parents: int[J], -1 for a root, each parent before its child, which
    robust uses for weight two branches pull on one vertex). method 'robust', 'heat' or 'nearest'. Writes into
    `skin` when given (kept weights: locked joints, unmasked vertices), else a new Skin. Returns (skin, report
    dict)."""
    if method not in _BIND_METHODS:
        raise ShapeError("method must be one of %s, not %r" % (", ".join(sorted(_BIND_METHODS)), method))
    pos = _arr(positions, np.float32, "positions", shape=(None, 3))
    v = pos.shape[0]
    tri = _arr(triangles if triangles is not None else np.zeros((0, 3)), np.uint32, "triangles", shape=(None, 3))
    keep = [pos, tri]
    desc = C.new(C.SkBindDesc, method=_BIND_METHODS[method], positions=_ptr(pos), vertex_count=v,
                 triangles=_ptr(tri), triangle_count=tri.shape[0], max_influences=int(max_influences),
                 prune=float(prune), rigid=int(bool(rigid)), falloff_power=float(falloff_power),
                 falloff_cutoff=float(falloff_cutoff), heat_scale=float(heat_scale), no_weld=int(not weld))
    if skeleton is not None:
        desc.skeleton = skeleton.handle
        j = skeleton.joint_count
        lib = skeleton._lib
    else:
        if heads is None or tails is None:
            raise ShapeError("bind needs a skeleton or heads and tails")
        h = _arr(heads, np.float32, "heads", shape=(None, 3))
        j = h.shape[0]
        t = _arr(tails, np.float32, "tails", shape=(j, 3))
        keep += [h, t]
        desc.heads, desc.tails, desc.joint_count = _ptr(h), _ptr(t), j
        if parents is not None:
            par = _arr(parents, np.int32, "parents", size=j)
            keep.append(par)
            desc.parents = _ptr(par)
        lib = library()
    for field, arr, n in (("deform", deform, j), ("locked", locked, j), ("vertex_mask", vertex_mask, v)):
        if arr is not None:
            a = _arr(np.asarray(arr).astype(bool), np.uint8, field, size=n)
            keep.append(a)
            setattr(desc, field, _ptr(a))
    out = skin if skin is not None else Skin(v, j, lib=lib)
    counts = np.zeros(j, np.uint64)
    rep = C.new(C.SkBindReport, joint_vertex_counts=_ptr(counts))
    try:
        lib.sk_bind(byref(desc), out.handle, byref(rep))
    except BaseException:
        if skin is None:
            out.close()
        raise
    names = {val: key for key, val in _BIND_METHODS.items()}
    d = {"method_used": names.get(rep.method_used, rep.method_used), "milliseconds": float(rep.milliseconds),
         "bound_vertices": int(rep.bound_vertices), "fallback_vertices": int(rep.fallback_vertices),
         "components": int(rep.components), "fallback_components": int(rep.fallback_components),
         "joint_vertex_counts": counts}
    return out, d


BIND_FIT_HINTS = {C.SK_BIND_FIT_HINT_NONE: "none", C.SK_BIND_FIT_HINT_SCALE: "scale",
                  C.SK_BIND_FIT_HINT_AXIS: "axis", C.SK_BIND_FIT_HINT_OFFSET: "offset"}


def bind_fit_check(positions, heads, tails, deform=None):
    """Does the armature sit in the mesh (sk_bind_fit_check)? positions (V, 3) in the bones' space, heads/tails
    (J, 3), deform (bool[J], None = all). Returns {"ok": bool, "hint": "none"|"scale"|"axis"|"offset",
    "inside_share": 0..1, "scale_ratio": bones' box diagonal / mesh box diagonal}."""
    pos = _arr(positions, np.float32, "positions", shape=(None, 3))
    h = _arr(heads, np.float32, "heads", shape=(None, 3))
    t = _arr(tails, np.float32, "tails", shape=(h.shape[0], 3))
    keep = [pos, h, t]
    desc = C.new(C.SkBindDesc, positions=_ptr(pos), vertex_count=pos.shape[0], heads=_ptr(h), tails=_ptr(t),
                 joint_count=h.shape[0])
    if deform is not None:
        d = _arr(np.asarray(deform).astype(bool), np.uint8, "deform", size=h.shape[0])
        keep.append(d)
        desc.deform = _ptr(d)
    fit = C.new(C.SkBindFit)
    library().sk_bind_fit_check(byref(desc), byref(fit))
    del keep
    return {"ok": bool(fit.ok), "hint": BIND_FIT_HINTS.get(fit.hint, str(fit.hint)),
            "inside_share": float(fit.inside_share), "scale_ratio": float(fit.scale_ratio)}


# ------------------------------------------------------------------------------------------- transfer, direct
TRANSFER_STATUS_NAMES = {C.SK_TRANSFER_VERTEX_KEPT: "kept", C.SK_TRANSFER_VERTEX_MATCHED: "matched",
                         C.SK_TRANSFER_VERTEX_INPAINTED: "inpainted", C.SK_TRANSFER_VERTEX_FALLBACK: "fallback",
                         C.SK_TRANSFER_VERTEX_FAILED: "failed"}


def transfer_weights(source_positions, source_triangles, source_skin, target_positions, target_triangles,
                     target_skin, mask=None, locked=None, distance_threshold=0.0, angle_threshold=0.0,
                     max_influences=0, source_normals=None, target_normals=None, allow_flipped=False,
                     smooth_iterations=0, smooth_factor=0.0, min_weight=0.0, laplacian="cotangent"):
    """Robust skin weight transfer (Abdrashitov et al. 2023) from a skinned source mesh onto target_skin, in place.

    Positions (V, 3), triangles (T, 3); both skins share the joint indexing. Each selected target vertex (mask,
    bool[V_target], None = all) takes the closest source point's blended weights when it is within
    distance_threshold (0 = 0.05 x source bounding-box diagonal) and its normal within angle_threshold degrees
    (0 = 30); the others are inpainted (Laplacian energy, matched and unselected vertices fixed). Locked joints
    (bool[J]) keep their weights. Returns a dict: selected, matched, inpainted, fallback, fallback_components,
    failed, milliseconds, distance_threshold, vertex_status (uint8[V_target], see TRANSFER_STATUS_NAMES)."""
    if laplacian not in ("cotangent", "uniform"):
        raise ShapeError("laplacian must be 'cotangent' or 'uniform', not %r" % laplacian)
    sp = _arr(source_positions, np.float32, "source_positions", shape=(source_skin.vertex_count, 3))
    st = _arr(source_triangles, np.uint32, "source_triangles", shape=(None, 3))
    tp = _arr(target_positions, np.float32, "target_positions", shape=(target_skin.vertex_count, 3))
    tt = _arr(target_triangles, np.uint32, "target_triangles", shape=(None, 3))
    call = _WeightCall(target_skin, mask, locked)
    keep = [sp, st, tp, tt]
    flags = (C.SK_TRANSFER_ALLOW_FLIPPED_NORMALS if allow_flipped else 0) | (
        C.SK_TRANSFER_UNIFORM_LAPLACIAN if laplacian == "uniform" else 0)
    desc = C.new(C.SkTransferDesc, flags=flags, source_skin=source_skin.handle, source_positions=_ptr(sp),
                 source_vertex_count=sp.shape[0], source_triangles=_ptr(st), source_triangle_count=st.shape[0],
                 target_positions=_ptr(tp), target_vertex_count=tp.shape[0], target_triangles=_ptr(tt),
                 target_triangle_count=tt.shape[0], distance_threshold=float(distance_threshold),
                 angle_threshold=float(angle_threshold), smooth_iterations=int(smooth_iterations),
                 smooth_factor=float(smooth_factor), max_influences=int(max_influences),
                 min_weight=float(min_weight))
    desc.scope = call.scope
    if source_normals is not None:
        sn = _arr(source_normals, np.float32, "source_normals", shape=sp.shape)
        keep.append(sn)
        desc.source_normals = _ptr(sn)
    if target_normals is not None:
        tn = _arr(target_normals, np.float32, "target_normals", shape=tp.shape)
        keep.append(tn)
        desc.target_normals = _ptr(tn)
    status = np.zeros(tp.shape[0], np.uint8)
    rep = C.new(C.SkTransferReport, vertex_status=_ptr(status))
    target_skin._lib.sk_weights_transfer(target_skin.handle, byref(desc), byref(rep))
    d = {name: int(getattr(rep, name)) for name in ("selected", "matched", "inpainted", "fallback",
                                                      "fallback_components", "failed")}
    d["milliseconds"] = float(rep.milliseconds)
    d["distance_threshold"] = float(rep.distance_threshold)
    d["vertex_status"] = status
    return d


def direct_manipulation(skin, vertex, rest_position, palettes, targets, candidates=None, mask=None, locked=None):
    """Direct manipulation of one vertex's weights (Mohr, Tokheim, Gleicher 2002).

    palettes: skinning matrices (J, 4, 4) for one pose or (P, J, 4, 4) for several (math layout); targets: (3,) or
    (P, 3) desired deformed positions. Solves w >= 0, sum 1 (locked joints keep theirs) over the candidate joints
    (None = the vertex's current ones) for the least squared distance over all poses, writes the weights into skin
    and returns a dict: residual, max_distance, candidates_used, nonzero, achieved ((P, 3) positions reached)."""
    j = skin.joint_count
    pal = np.asarray(palettes, dtype=np.float32)
    if pal.ndim == 3:
        pal = pal[None]
    if pal.ndim != 4 or pal.shape[1:] != (j, 4, 4):
        raise ShapeError("palettes: expected shape (%d, 4, 4) or (P, %d, 4, 4), got %s" % (j, j, pal.shape))
    poses = pal.shape[0]
    palc = np.ascontiguousarray(pal.transpose(0, 1, 3, 2))  # column-major per matrix
    tg = _arr(targets, np.float32, "targets", size=3 * poses).reshape(poses, 3)
    rest = _arr(rest_position, np.float32, "rest_position", size=3)
    call = _WeightCall(skin, mask, locked)
    keep = [palc, tg, rest]
    achieved = np.zeros((poses, 3), np.float32)
    desc = C.new(C.SkDirectDesc, pose_count=poses, vertex=int(vertex), rest_position=_ptr(rest),
                 palettes=_ptr(palc), targets=_ptr(tg))
    desc.scope = call.scope
    if candidates is not None:
        cl = _arr(candidates, np.uint32, "candidates", shape=(None,))
        keep.append(cl)
        desc.candidates, desc.candidate_count = _ptr(cl), cl.size
    rep = C.new(C.SkDirectReport, achieved=_ptr(achieved))
    skin._lib.sk_weights_direct(skin.handle, byref(desc), byref(rep))
    del keep
    return {"residual": float(rep.residual), "max_distance": float(rep.max_distance),
            "candidates_used": int(rep.candidates_used), "nonzero": int(rep.nonzero), "achieved": achieved}


__all__ += ["transfer_weights", "direct_manipulation", "TRANSFER_STATUS_NAMES"]
