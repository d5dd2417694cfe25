"""Plain-Python tests of python_addon/skinkit/api.py and the loader of _ctypes.py against the built library.

Run with /usr/bin/python3 (needs numpy). The library comes from SKINKIT_LIBRARY or <repo>/build.
"""

import ctypes
import gc
import os
import sys
import unittest
from unittest import mock

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python_addon"))

from skinkit import _ctypes as C  # noqa: E402
from skinkit import api  # noqa: E402
from skinkit.api import ShapeError, Skeleton, Skin, SkinkitError  # noqa: E402


def translate(x, y, z):
    m = np.eye(4, dtype=np.float32)
    m[:3, 3] = (x, y, z)
    return m


def quat_matrix(q):
    x, y, z, w = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]], np.float64)


def trs_matrix(trs):
    m = np.eye(4)
    m[:3, :3] = quat_matrix(np.asarray(trs[3:7], np.float64)) * np.asarray(trs[7:10])[None, :]
    m[:3, 3] = trs[0:3]
    return m


def chain(n=3, step=1.0):
    """n joints along +Y, each `step` above its parent."""
    rest = np.stack([translate(0, 0 if i == 0 else step, 0) for i in range(n)])
    return Skeleton(["j%d" % i for i in range(n)], [-1] + list(range(n - 1)), rest_local=rest)


def expect_code(test, code, fn, *args, **kw):
    with test.assertRaises(SkinkitError) as cm:
        fn(*args, **kw)
    test.assertEqual(cm.exception.code, code, str(cm.exception))
    test.assertTrue(cm.exception.message)
    return cm.exception


class Loading(unittest.TestCase):
    def test_library_loads_with_version(self):
        lib = api.library()
        self.assertEqual(lib.abi_major, C.ABI_MAJOR)
        self.assertEqual(lib.sk_version(), C.SK_VERSION)
        self.assertRegex(api.version(), r"^\d+\.\d+\.\d+")
        self.assertIn(api.cpu_kernel(), ("scalar", "sse2", "avx2", "avx512"))

    def test_explicit_missing_path_is_clear_error(self):
        e = expect_code(self, C.SK_ERR_NOT_FOUND, C.find_library, "/nonexistent/dir/libskinkit.so")
        self.assertIn("/nonexistent/dir/libskinkit.so", e.message)

    def test_bad_env_does_not_fall_back(self):
        with mock.patch.dict(os.environ, {"SKINKIT_LIBRARY": "/nonexistent/libskinkit.so"}):
            e = expect_code(self, C.SK_ERR_NOT_FOUND, C.find_library)
        self.assertIn("SKINKIT_LIBRARY", e.message)

    def test_directory_argument(self):
        path = api.library().path
        self.assertTrue(os.path.samefile(C.find_library(os.path.dirname(path)), path)
                        or os.path.basename(C.find_library(os.path.dirname(path))).startswith("libskinkit"))

    def test_candidate_order(self):
        with mock.patch.dict(os.environ, {"SKINKIT_LIBRARY": "/env/lib.so"}):
            sources = [s for s, _p in C.candidate_paths("/arg/lib.so")]
        self.assertEqual(sources[0], "argument")
        self.assertEqual(sources[1], "SKINKIT_LIBRARY")
        self.assertLess(sources.index("SKINKIT_LIBRARY"), sources.index("addon folder"))

    def test_other_abi_major_refused(self):
        path = api.library().path
        with mock.patch.object(C, "ABI_MAJOR", C.ABI_MAJOR + 1):
            e = expect_code(self, C.SK_ERR_VERSION, C.Library, path)
        self.assertIn("ABI major", e.message)

    def test_not_a_library(self):
        expect_code(self, C.SK_ERR_IO, C.Library, __file__)

    def test_missing_symbol_stub(self):
        stub = C._Missing("sk_future_thing", "/x/libskinkit.so")
        e = expect_code(self, C.SK_ERR_UNSUPPORTED, stub, 1, 2)
        self.assertIn("sk_future_thing", e.message)

    def test_error_message_from_library(self):
        e = expect_code(self, C.SK_ERR_INVALID_ARGUMENT, Skeleton, ["a", "a"], [-1, 0])
        self.assertIn('"a"', e.message)
        self.assertEqual(e.name, "SK_ERR_INVALID_ARGUMENT")
        self.assertIn("SK_ERR_INVALID_ARGUMENT", str(e))

    def test_raw_call_with_explicit_error(self):
        lib = api.library()
        err = C.SkError()
        out = ctypes.c_void_p()
        rc = lib.raw.sk_skeleton_create(None, ctypes.byref(out), ctypes.byref(err))
        self.assertNotEqual(rc, 0)
        self.assertEqual(err.code, rc)
        self.assertTrue(err.message)
        self.assertIsNone(out.value)

    def test_struct_size_checked(self):
        lib = api.library()
        desc = C.new(C.SkSkeletonDesc, joint_count=1)
        desc.size -= 4  # neither this ABI's size nor 1.22's (8 less: no tails, still accepted)
        par = np.array([-1], np.int32)
        desc.parents = par.ctypes.data
        e = expect_code(self, C.SK_ERR_STRUCT_SIZE, lib.sk_skeleton_create, ctypes.byref(desc),
                        ctypes.byref(ctypes.c_void_p()))
        self.assertIn("sizeof", e.message)


class SkeletonTests(unittest.TestCase):
    def test_names_parents_find(self):
        with chain(3) as sk:
            self.assertEqual(sk.names, ["j0", "j1", "j2"])
            self.assertEqual(sk.parents.tolist(), [-1, 0, 1])
            self.assertEqual(len(sk), 3)
            self.assertEqual(sk.find("j2"), 2)
            self.assertIsNone(sk.find("nope"))

    def test_default_names(self):
        sk = Skeleton(None, [-1, 0])
        self.assertEqual(sk.names, ["joint0", "joint1"])

    def test_rest_world_and_bind(self):
        sk = chain(3, step=2.0)
        world = sk.rest_world
        np.testing.assert_allclose(world[2][:3, 3], [0, 4, 0], atol=1e-6)
        np.testing.assert_allclose(sk.bind, world, atol=1e-6)
        np.testing.assert_allclose(np.matmul(sk.bind, sk.inverse_bind), np.broadcast_to(np.eye(4), (3, 4, 4)),
                                   atol=1e-5)
        np.testing.assert_allclose(sk.rest_local[1], translate(0, 2, 0), atol=1e-6)

    def test_explicit_inverse_bind(self):
        ib = np.stack([translate(1, 0, 0), translate(0, 0, 3)])
        sk = Skeleton(["a", "b"], [-1, 0], inverse_bind=ib)
        np.testing.assert_allclose(sk.inverse_bind, ib, atol=1e-6)
        np.testing.assert_allclose(sk.bind[1], translate(0, 0, -3), atol=1e-6)

    def test_bad_hierarchy(self):
        expect_code(self, C.SK_ERR_BAD_HIERARCHY, Skeleton, ["a", "b"], [1, -1])
        expect_code(self, C.SK_ERR_OUT_OF_RANGE, Skeleton, ["a", "b"], [-1, 7])

    def test_singular_bind(self):
        expect_code(self, C.SK_ERR_SINGULAR_MATRIX, Skeleton, ["a"], [-1], bind=np.zeros((1, 4, 4)))

    def test_shape_errors(self):
        with self.assertRaises(ShapeError):
            Skeleton(["a", "b"], [-1, 0], rest_local=np.eye(4)[None])
        with self.assertRaises(ValueError):  # ShapeError is a ValueError too
            Skeleton(["a"], [-1, 0])
        with self.assertRaises(ShapeError):
            Skeleton([], [])

    def test_palette_rest_is_identity(self):
        sk = chain(3)
        np.testing.assert_allclose(sk.palette(), np.broadcast_to(np.eye(4), (3, 4, 4)), atol=1e-5)

    def test_palette_matches_numpy(self):
        sk = chain(3)
        trs = sk.rest_trs()
        np.testing.assert_allclose(trs[1, :3], [0, 1, 0], atol=1e-6)
        s = np.sin(np.pi / 8)
        trs[1, 3:7] = [0, 0, s, np.cos(np.pi / 8)]  # 45 degrees about Z at joint 1
        trs[2, 7:10] = [2, 2, 2]
        local = np.stack([trs_matrix(t) for t in trs])
        world = [local[0]]
        for i in (1, 2):
            world.append(world[i - 1] @ local[i])
        expected = np.stack([w @ np.linalg.inv(b) for w, b in zip(world, sk.bind.astype(np.float64))])
        np.testing.assert_allclose(sk.palette(trs), expected, atol=1e-5)
        np.testing.assert_allclose(sk.world(local), np.stack(world), atol=1e-5)
        np.testing.assert_allclose(sk.palette_from_world(np.stack(world)), expected, atol=1e-5)
        np.testing.assert_allclose(api.pose_local_from_trs(trs), local, atol=1e-6)

    def test_world_with_root(self):
        sk = chain(2)
        w = sk.world(sk.rest_local, root=translate(5, 0, 0))
        np.testing.assert_allclose(w[1][:3, 3], [5, 1, 0], atol=1e-6)

    def test_hierarchy_order(self):
        order = api.hierarchy_order([2, -1, 1])
        pos = {int(j): k for k, j in enumerate(order)}
        self.assertLess(pos[1], pos[2])
        self.assertLess(pos[2], pos[0])
        expect_code(self, C.SK_ERR_BAD_HIERARCHY, api.hierarchy_order, [1, 0])


def bad_skin():
    """Five vertices with known problems (joint_count 3)."""
    offsets = [0, 2, 4, 4, 6, 9, 11]
    joints = [0, 1,   0, 1,        0, 1,   0, 1, 2,   0, 7]
    weights = [0.5, 0.5,   0.7, 0.7,   float("nan"), 0.5,   0.6, 0.5, -0.1,   1.0, 0.0]
    return Skin.from_csr(offsets, joints, weights, 3)


class SkinTests(unittest.TestCase):
    def test_csr_roundtrip(self):
        off, jt, wt = [0, 1, 3, 3], [2, 0, 1], [1.0, 0.25, 0.75]
        with Skin.from_csr(off, jt, wt, 3) as s:
            self.assertEqual((s.vertex_count, s.joint_count, s.influence_count), (3, 3, 3))
            o2, j2, w2 = s.to_csr()
            self.assertEqual(o2.tolist(), off)
            self.assertEqual(j2.tolist(), jt)
            np.testing.assert_array_equal(w2, np.float32(wt))
            self.assertEqual(o2.dtype, np.uint32)
            self.assertEqual(w2.dtype, np.float32)
            jv, wv = s.vertex(1)
            self.assertEqual(jv.tolist(), [0, 1])
            self.assertEqual(s.vertex(2)[0].size, 0)

    def test_malformed_offsets_refused_before_native_call(self):
        with self.assertRaises(ShapeError):
            Skin.from_csr([0, 2, 1], [0, 0], [1, 1], 2)
        with self.assertRaises(ShapeError):
            Skin.from_csr([1, 2], [0], [1], 2)
        with self.assertRaises(ShapeError):
            Skin.from_csr([0, 3], [0], [1], 2)  # arrays shorter than offsets[-1]
        s = Skin(2, 2)
        with self.assertRaises(ShapeError):
            s.set_csr([0, 1], [0], [1])  # wrong vertex count

    def test_set_vertex_and_clone_are_independent(self):
        s = Skin.from_csr([0, 1, 2], [0, 1], [1, 1], 2)
        c = s.clone()
        s.set_vertex(0, [0, 1], [0.5, 0.5])
        self.assertEqual(s.vertex(0)[0].tolist(), [0, 1])
        self.assertEqual(c.vertex(0)[0].tolist(), [0])
        expect_code(self, C.SK_ERR_OUT_OF_RANGE, s.vertex, 5)

    def test_to_packed_keeps_largest_sorted_normalized(self):
        s = Skin.from_csr([0, 4, 4], [0, 1, 2, 3], [0.1, 0.4, 0.2, 0.3], 4)
        j, w = s.to_packed(2)
        self.assertEqual(j.shape, (2, 2))
        self.assertEqual(j[0].tolist(), [1, 3])
        np.testing.assert_allclose(w[0], [0.4 / 0.7, 0.3 / 0.7], rtol=1e-6)
        self.assertEqual(w[1].tolist(), [0, 0])
        j8, w8 = s.to_packed(4, np.uint8, np.uint8)
        self.assertEqual(j8.dtype, np.uint8)
        self.assertEqual(int(w8[0].astype(int).sum()), 255)
        j16, w16 = s.to_packed(3, np.uint16, np.uint16)
        self.assertEqual(int(w16[0].astype(int).sum()), 65535)
        with self.assertRaises(ShapeError):
            s.to_packed(2, np.float32, np.float32)

    def test_to_packed_joint_type_overflow(self):
        s = Skin.from_csr([0, 1], [300], [1.0], 301)
        expect_code(self, C.SK_ERR_OUT_OF_RANGE, s.to_packed, 1, np.uint8)

    def test_from_packed_roundtrip(self):
        j = np.array([[1, 0], [0, 2]], np.uint16)
        w = np.array([[1.0, 0.0], [0.25, 0.75]], np.float32)
        s = Skin.from_packed(j, w, 3)
        off, jt, wt = s.to_csr()
        self.assertEqual(off.tolist(), [0, 1, 3])  # zero weight dropped
        self.assertEqual(jt.tolist(), [1, 0, 2])
        with self.assertRaises(ShapeError):
            Skin.from_packed(j, w[:1], 3)

    def test_validate_flags(self):
        s = bad_skin()
        rep, flags = s.validate(tolerance=1e-3, max_influences=2)
        self.assertEqual(flags.dtype, np.uint8)
        self.assertEqual(flags.shape, (6,))
        self.assertEqual(flags[0], 0)
        self.assertTrue(flags[1] & C.SK_VFLAG_SUM_OFF)
        self.assertTrue(flags[2] & C.SK_VFLAG_UNWEIGHTED)
        self.assertTrue(flags[3] & C.SK_VFLAG_NAN)
        self.assertTrue(flags[4] & C.SK_VFLAG_NEGATIVE)
        self.assertTrue(flags[4] & C.SK_VFLAG_OVER_LIMIT)
        self.assertTrue(flags[5] & C.SK_VFLAG_BAD_JOINT)
        self.assertTrue(rep["findings"])
        self.assertEqual(rep["vertex_count"], 6)
        self.assertEqual(rep["influence_count"], 11)
        self.assertEqual(rep["unweighted"], 1)
        self.assertEqual(rep["nan"], 1)
        self.assertEqual(rep["negative"], 1)
        self.assertEqual(rep["bad_joint"], 1)
        self.assertEqual(rep["over_limit"], 1)
        self.assertEqual(rep["max_influences"], 3)
        self.assertEqual(len(rep["histogram"]), C.SK_HISTOGRAM_BINS)
        self.assertEqual(rep["histogram"][2], 4)

    def test_validate_duplicate_and_clean(self):
        rep, flags = Skin.from_csr([0, 2], [1, 1], [0.5, 0.5], 2).validate()
        self.assertTrue(flags[0] & C.SK_VFLAG_DUPLICATE)
        rep, flags = Skin.from_csr([0, 2, 3], [0, 1, 1], [0.3, 0.7, 1.0], 2).validate()
        self.assertFalse(rep["findings"])
        self.assertFalse(flags.any())
        self.assertAlmostEqual(rep["weight_sum_min"], 1.0, places=5)


class Lifetime(unittest.TestCase):
    def test_close_is_idempotent_and_use_after_close_raises(self):
        s = Skin(3, 2)
        self.assertFalse(s.closed)
        s.close()
        s.close()
        self.assertTrue(s.closed)
        with self.assertRaises(SkinkitError):
            s.vertex_count  # noqa: B018
        with chain(2) as sk:
            pass
        self.assertTrue(sk.closed)
        with self.assertRaises(SkinkitError):
            sk.names  # noqa: B018

    def test_destroy_called_on_gc(self):
        lib = api.library()
        calls = []
        real = lib.sk_skin_destroy
        with mock.patch.object(lib, "sk_skin_destroy", side_effect=lambda h: (calls.append(h), real(h))):
            s = Skin(10, 2)
            h = s.handle
            del s
            gc.collect()
        self.assertEqual(calls, [h])

    def test_many_objects(self):
        for i in range(2000):
            s = Skin.from_csr([0, 1], [0], [1.0], 1)
            self.assertEqual(s.influence_count, 1)


class DeformTests(unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(7)
        self.v, self.j = 200, 4
        self.pos = rng.normal(size=(self.v, 3)).astype(np.float32)
        nrm = rng.normal(size=(self.v, 3))
        self.nrm = (nrm / np.linalg.norm(nrm, axis=1)[:, None]).astype(np.float32)
        self.sk = Skeleton(None, [-1, 0, 1, 2], rest_local=np.stack([translate(0, 1, 0)] * 4))
        trs = self.sk.rest_trs()
        for i in range(4):
            a = rng.normal(size=4)
            trs[i, 3:7] = a / np.linalg.norm(a)
        self.palette = self.sk.palette(trs)
        jt = np.stack([rng.permutation(self.j)[:2] for _ in range(self.v)]).astype(np.uint16)
        w = rng.uniform(0.1, 1.0, size=(self.v, 2))
        w /= w.sum(axis=1)[:, None]
        self.pj, self.pw = jt, w.astype(np.float32)
        self.skin = Skin.from_packed(self.pj, self.pw, self.j)

    def reference_lbs(self):
        hp = np.concatenate([self.pos, np.ones((self.v, 1), np.float32)], axis=1).astype(np.float64)
        out = np.zeros((self.v, 3))
        for k in range(2):
            m = self.palette[self.pj[:, k].astype(int)].astype(np.float64)
            out += self.pw[:, k, None] * np.einsum("vij,vj->vi", m, hp)[:, :3]
        return out

    def test_lbs_matches_numpy_csr_and_packed(self):
        ref = self.reference_lbs()
        r1 = api.deform(self.pos, self.nrm, self.palette, self.skin, method="lbs", threads=1)
        r2 = api.deform(self.pos, None, self.palette, (self.pj, self.pw), method="lbs")
        np.testing.assert_allclose(r1.positions, ref, atol=1e-4)
        np.testing.assert_allclose(r2.positions, ref, atol=1e-4)
        self.assertIsNone(r2.normals)
        np.testing.assert_allclose(np.linalg.norm(r1.normals, axis=1), 1.0, atol=1e-4)

    def test_rest_palette_is_identity_deform(self):
        ident = np.broadcast_to(np.eye(4, dtype=np.float32), (self.j, 4, 4))
        for method in ("lbs", "dqs", "rigid"):
            r = api.deform(self.pos, self.nrm, ident, self.skin, method=method)
            np.testing.assert_allclose(r.positions, self.pos, atol=1e-5, err_msg=method)
            np.testing.assert_allclose(r.normals, self.nrm, atol=1e-5, err_msg=method)

    def test_rigid_follows_largest_weight(self):
        r = api.deform(self.pos, None, self.palette, self.skin, method="rigid")
        top = self.pj[np.arange(self.v), np.argmax(self.pw, axis=1)].astype(int)
        hp = np.concatenate([self.pos, np.ones((self.v, 1), np.float32)], axis=1)
        ref = np.einsum("vij,vj->vi", self.palette[top], hp)[:, :3]
        np.testing.assert_allclose(r.positions, ref, atol=1e-4)

    def test_dqs_preserves_distance_to_rigidly_moved_joint(self):
        # single influence per vertex: DQS equals the rigid transform exactly
        single = Skin.from_csr(np.arange(self.v + 1), self.pj[:, 0], np.ones(self.v), self.j)
        dq = api.deform(self.pos, None, self.palette, single, method="dqs").positions
        lb = api.deform(self.pos, None, self.palette, single, method="lbs").positions
        np.testing.assert_allclose(dq, lb, atol=1e-4)

    def test_cor_keeps_a_twisted_cylinder_round(self):
        # two-bone sample cylinder along +X, the far bone twisted 180 degrees about X: LBS collapses the middle
        # ring to the axis, optimized centres of rotation keep its radius
        cyl = api.cylinder(segments=32, rings=40, bones=2)
        centers = api.cor_centers(cyl.positions, cyl.triangles, cyl.skin)
        self.assertEqual(centers.shape, cyl.positions.shape)
        sk = Skeleton(None, [-1, 0], rest_local=np.stack([np.eye(4), translate(1, 0, 0)]).astype(np.float32))
        trs = sk.rest_trs()
        trs[1, 3:7] = (1.0, 0.0, 0.0, 0.0)  # x y z w: 180 degrees about X
        pal = sk.palette(trs)
        mid = np.abs(cyl.positions[:, 0] - 1.0) < 1e-4
        ring = lambda p: float(np.mean(np.linalg.norm(p[mid][:, 1:], axis=1)))
        lbs = api.deform(cyl.positions, None, pal, cyl.skin, method="lbs").positions
        cor = api.deform(cyl.positions, None, pal, cyl.skin, method="cor", centers=centers).positions
        rest = ring(cyl.positions)
        self.assertLess(ring(lbs), 0.05 * rest)
        self.assertGreater(ring(cor), 0.95 * rest)
        with self.assertRaises(ShapeError):
            api.deform(cyl.positions, None, pal, cyl.skin, method="cor")

    def test_quantized_weights(self):
        j8, w8 = self.skin.to_packed(2, np.uint8, np.uint8)
        r = api.deform(self.pos, None, self.palette, (j8, w8))
        np.testing.assert_allclose(r.positions, self.reference_lbs(), atol=0.05)

    def test_errors(self):
        with self.assertRaises(ShapeError):
            api.deform(self.pos[:, :2], None, self.palette, self.skin)
        with self.assertRaises(ShapeError):
            api.deform(self.pos, None, self.palette, self.skin, method="spline")
        with self.assertRaises(ShapeError):
            api.deform(self.pos[:10], None, self.palette, self.skin)
        with self.assertRaises(ShapeError):
            api.deform(self.pos, None, self.palette, self.skin, flags=["bogus"])
        # palette smaller than the joints used: out-of-range vertices keep their input, call reports it
        expect_code(self, C.SK_ERR_OUT_OF_RANGE, api.deform, self.pos, None, self.palette[:1], self.skin)
        bad = self.palette.copy()
        bad[0, 0, 0] = np.nan
        with self.assertRaises(SkinkitError) as cm:
            api.deform(self.pos, None, bad, self.skin)
        self.assertIn(cm.exception.code, (C.SK_ERR_INVALID_ARGUMENT, C.SK_ERR_SINGULAR_MATRIX))
        self.assertIn("palette", cm.exception.message)

    def test_additive_flag(self):
        half = Skin.from_csr(np.arange(self.v + 1), np.zeros(self.v), np.full(self.v, 0.5), self.j)
        r = api.deform(self.pos, None, self.palette, half, flags=["additive"]).positions
        hp = np.concatenate([self.pos, np.ones((self.v, 1), np.float32)], axis=1)
        moved = (hp @ self.palette[0].T)[:, :3]
        np.testing.assert_allclose(r, self.pos + 0.5 * (moved - self.pos), atol=1e-4)


class CylinderTests(unittest.TestCase):
    def test_sample_cylinder(self):
        c = api.cylinder(segments=8, rings=4, bones=2, length=2.0, radius=0.25)
        self.assertEqual(c.positions.shape[1], 3)
        self.assertEqual(c.triangles.shape[1], 3)
        self.assertLess(int(c.triangles.max()), len(c.positions))
        self.assertAlmostEqual(float(c.positions[:, 0].min()), 0.0, places=5)
        self.assertAlmostEqual(float(c.positions[:, 0].max()), 2.0, places=5)
        rep, flags = c.skin.validate()
        self.assertFalse(rep["findings"])
        self.assertEqual(rep["joints_used"], 2)


class WeightOpsTests(unittest.TestCase):
    def skin(self):
        # v0: sums 0.75; v1: three influences; v2: NaN entry; v3: fine
        return Skin.from_csr([0, 2, 5, 7, 8], [0, 1, 0, 1, 2, 0, 1, 2],
                             [0.5, 0.25, 0.6, 0.3, 0.1, float("nan"), 0.5, 1.0], 3)

    def test_normalize_with_lock_and_mask(self):
        s = self.skin()
        rep = api.normalize_weights(s, locked=[1, 0, 0])
        j0, w0 = s.vertex(0)
        np.testing.assert_allclose(w0, [0.5, 0.5], atol=1e-6)  # joint 0 locked at 0.5, joint 1 takes the rest
        self.assertTrue(rep["vertex_flags"][0] & api.WFLAG_CHANGED)
        self.assertTrue(rep["vertex_flags"][2] & api.WFLAG_FAILED)  # NaN: unchanged without drop_invalid
        self.assertEqual(rep["vertices_failed"], 1)
        s = self.skin()
        api.normalize_weights(s, mask=[0, 0, 1, 0], drop_invalid=True)
        self.assertEqual(s.vertex(2)[0].tolist(), [1])
        np.testing.assert_allclose(s.vertex(2)[1], [1.0])
        np.testing.assert_allclose(s.vertex(0)[1], [0.5, 0.25])  # unselected: untouched
        with self.assertRaises(ShapeError):
            api.normalize_weights(s, mask=[1, 0])

    def test_limit_prune_quantize(self):
        s = self.skin()
        rep = api.limit_weights(s, 2)
        self.assertEqual(s.vertex(1)[0].tolist(), [0, 1])
        np.testing.assert_allclose(s.vertex(1)[1], [2 / 3, 1 / 3], atol=1e-6)
        self.assertEqual(rep["entries_changed"], 1)
        s = self.skin()
        api.prune_weights(s, 0.2, mask=[1, 1, 0, 1])
        self.assertEqual(s.vertex(1)[0].tolist(), [0, 1])
        s = Skin.from_csr([0, 3], [0, 1, 2], [0.2, 0.3, 0.5], 3)
        rep = api.quantize_weights(s, 8, want_values=True)
        self.assertEqual(int(rep["values"].astype(int).sum()), 255)
        np.testing.assert_allclose(s.vertex(0)[1] * 255, np.round(s.vertex(0)[1] * 255), atol=1e-3)

    def test_smooth_rogue_mirror(self):
        c = api.cylinder(segments=8, rings=8, bones=2)
        rep = api.smooth_weights(c.skin, c.triangles, iterations=3, factor=0.5)
        self.assertGreater(rep["vertices_changed"], 0)
        self.assertFalse(c.skin.validate()[0]["off_tolerance"])
        with self.assertRaises(SkinkitError):
            api.smooth_weights(c.skin, np.zeros((0, 3)))  # no faces
        # a stray weight far from its joint is rogue
        c2 = api.cylinder(segments=8, rings=8, bones=2)
        far = int(np.argmax(c2.positions[:, 0]))  # x = length end, fully on joint 1
        c2.skin.set_vertex(far, [1, 0], [0.7, 0.3])
        rep = api.remove_rogue_weights(c2.skin, c2.triangles)
        self.assertTrue(rep["vertex_flags"][far] & C.SK_WFLAG_ROGUE)
        self.assertEqual(int(rep["joint_counts"][0]), 1)
        self.assertEqual(c2.skin.vertex(far)[0].tolist(), [1])
        # mirror: a symmetric grid, +y side weighted on joint 1, -y side on joint 0
        xs, ys = np.meshgrid(np.arange(3.0), [-2.0, -1.0, 1.0, 2.0])
        pts = np.stack([xs.ravel(), ys.ravel(), np.zeros(xs.size)], axis=1)
        side = (pts[:, 1] > 0).astype(np.uint32)
        m = Skin.from_csr(np.arange(len(pts) + 1), side, np.ones(len(pts)), 2)
        rep = api.mirror_weights(m, pts, mode="+to-", plane=(0, 1, 0, 0))
        self.assertEqual(rep["unmatched"], 0)
        self.assertEqual(rep["vertices_changed"], int((side == 0).sum()))
        self.assertTrue(np.all(m.to_csr()[1] == 1))
        self.assertEqual(api.joint_mirror_name("Hand_L"), "Hand_R")
        self.assertIsNone(api.joint_mirror_name("Spine"))
        sk = Skeleton(["arm.L", "arm.R", "spine"], [-1, -1, -1])
        self.assertEqual(sk.mirror_map().tolist(), [1, 0, 2])


class BrushTests(unittest.TestCase):
    def test_replace_stroke(self):
        c = api.cylinder(segments=8, rings=8, bones=2, length=2.0)
        dab = [[0.0, 0.0, 0.0, 0.3, 1.0]]  # at the x = 0 cap, fully on joint 0
        rep = api.brush_weights(c.skin, 1, c.positions, dab, mode="replace", value=0.5, falloff="constant")
        near = np.linalg.norm(c.positions, axis=1) < 0.3
        self.assertEqual(rep["vertices_changed"], int(near.sum()))
        for v in np.nonzero(near)[0]:
            j, w = c.skin.vertex(v)
            self.assertAlmostEqual(float(w[list(j).index(1)]), 0.5, places=5)
            self.assertAlmostEqual(float(w.sum()), 1.0, places=5)
        with self.assertRaises(ShapeError):
            api.brush_weights(c.skin, 1, c.positions, [[0, 0, 0, 1]])


class PartitionTests(unittest.TestCase):
    def test_partition_orders_by_influence_count(self):
        off = np.uint32([0, 2, 3, 3, 8, 9])
        jt = np.uint32([1, 2, 0, 0, 1, 2, 3, 4, 5])
        wt = np.float32([0.5, 0.5, 1, 0.2, 0.2, 0.2, 0.2, 0.2, 1])
        with api.Skin.from_csr(off, jt, wt, 6) as skin:
            order, ranges, pj, pw = skin.partition()
        self.assertEqual(order.tolist(), [1, 2, 4, 0, 3])  # 1 influence (and none), 2, then 5 -> K 8
        self.assertEqual(ranges, [(0, 3, 1), (3, 1, 2), (4, 1, 8)])
        self.assertEqual(pj.tolist(), [0, 0, 5, 1, 2, 0, 1, 2, 3, 4, 0, 0, 0])
        np.testing.assert_array_equal(pw[:5], np.float32([1, 0, 1, 0.5, 0.5]))
        self.assertEqual(pw[10:].tolist(), [0, 0, 0])


class RecordTests(unittest.TestCase):
    """api.records_read / records_update over records built with ctypes in Blender's MDeformVert layout (what
    bridge.mesh_records finds inside Blender)."""

    def make(self, rows):
        entries = [(C.SkWeightEntry * max(len(r), 1))(*[C.SkWeightEntry(g, w) for g, w in r]) for r in rows]
        recs = (C.SkWeightRecord * len(rows))()
        for v, (r, e) in enumerate(zip(rows, entries)):
            recs[v].entries, recs[v].count = ctypes.addressof(e), len(r)
        self._keep = entries
        return recs, entries

    def test_read_update_round_trip(self):
        recs, entries = self.make([[(0, 0.5), (3, 0.5)], [(2, 1.0)], [(1, 0.25), (0, 0.75)], []])
        gmap = [0, 1, -1, 2]  # group 2 is not read
        off, jt, wt = api.records_read(ctypes.addressof(recs), 4, gmap)
        self.assertEqual(off.tolist(), [0, 2, 2, 4, 4])
        self.assertEqual(jt.tolist(), [0, 2, 1, 0])
        np.testing.assert_array_equal(wt, np.float32([0.5, 0.5, 0.25, 0.75]))
        # vertex 0 drops joint 2 (group 3), vertex 2 reweights, vertex 3 gains joint 0: deferred
        new = (np.uint32([0, 1, 1, 3, 4]), np.uint32([0, 1, 0, 0]), np.float32([1.0, 0.5, 0.5, 1.0]))
        deferred, changed = api.records_update(ctypes.addressof(recs), 4, gmap, *new)
        self.assertEqual(deferred.tolist(), [False, False, False, True])
        self.assertEqual(changed, 2)
        self.assertEqual((recs[0].count, entries[0][0].group, entries[0][0].weight), (1, 0, 1.0))
        self.assertEqual([(e.group, e.weight) for e in entries[2]], [(1, 0.5), (0, 0.5)])
        self.assertEqual((recs[1].count, entries[1][0].weight), (1, 1.0))  # only an unread group
        mask = [False, False, True, False]
        _, changed = api.records_update(ctypes.addressof(recs), 4, gmap, *api.records_read(ctypes.addressof(recs),
                                                                                               4, gmap), mask=mask)
        self.assertEqual(changed, 0)

    def test_records_edit_runs_tools_in_place(self):
        rows = [[(0, 0.5), (3, 0.3), (2, 0.9)], [(1, 0.02), (0, 0.98)], [(1, 0.6)], []]
        recs, entries = self.make(rows)
        gmap = [0, 1, -1, 2]  # group 2 is not read (nor written)
        rep, state = api.records_edit(ctypes.addressof(recs), 4, gmap, "normalize")
        self.assertEqual(state.tolist(), [1, 0, 1, 0])
        self.assertEqual(rep["vertices_changed"], 2)
        self.assertAlmostEqual(entries[0][0].weight, 0.625, places=6)
        self.assertEqual((entries[0][2].group, entries[0][2].weight), (2, np.float32(0.9)))
        self.assertEqual(entries[2][0].weight, 1.0)
        # Clean without Keep Single: vertex 2 would lose its only membership (deferred, untouched)
        recs[2].count = 1
        entries[2][0].weight = 0.01
        rep, state = api.records_edit(ctypes.addressof(recs), 4, gmap, "prune", threshold=0.05, keep_one=False,
                                      mask=[False, True, True, True])
        self.assertEqual(state.tolist(), [0, 1, 2, 0])
        self.assertEqual((recs[1].count, entries[1][0].group), (1, 0))
        self.assertEqual((recs[2].count, entries[2][0].weight), (1, np.float32(0.01)))
        # locked joint 0 (group 0) keeps its value; the other weights quantize around it
        rep, state = api.records_edit(ctypes.addressof(recs), 4, gmap, "round", bits=8, locked=[True, False, False])
        self.assertEqual(entries[0][0].weight, np.float32(0.625))
        self.assertEqual(entries[0][1].weight, np.float32(round(0.375 * 255) / 255))

    def test_records_edit_calls_do_not_share_a_scope(self):
        # records_edit keeps its structs per operation and parameters: a mask or a lock given to one call must not
        # reach the next call of the same operation
        rows = [[(0, 0.2), (1, 0.2)], [(0, 0.3), (1, 0.1)]]
        recs, entries = self.make(rows)
        rep, state = api.records_edit(ctypes.addressof(recs), 2, [0, 1], "normalize", mask=[False, True],
                                      locked=[True, False])
        self.assertEqual(state.tolist(), [0, 1])
        self.assertEqual([e.weight for e in entries[1]], [np.float32(0.3), np.float32(0.7)])  # joint 0 locked
        rep, state = api.records_edit(ctypes.addressof(recs), 2, [0, 1], "normalize")
        self.assertEqual(state.tolist(), [1, 0])
        self.assertEqual(rep["vertices_changed"], 1)
        self.assertEqual([e.weight for e in entries[0]], [0.5, 0.5])

    def test_bad_records_refused(self):
        recs, _entries = self.make([[(0, 1.0)]])
        recs[0].count = C.SK_RECORD_MAX_ENTRIES + 1
        expect_code(self, C.SK_ERR_INVALID_ARGUMENT, api.records_read, ctypes.addressof(recs), 1, [0])
        for op in ("normalize", "quantize"):  # refused with the library's message, nothing written
            with self.assertRaises(api.SkinkitError) as cm:
                api.records_edit(ctypes.addressof(recs), 1, [0], op)
            self.assertEqual(cm.exception.code, C.SK_ERR_INVALID_ARGUMENT)
            self.assertIn("record 0 has count", str(cm.exception))
        with self.assertRaises(ValueError):
            api.records_update(ctypes.addressof(recs), 1, [0], np.uint32([0]), np.uint32([]), np.float32([]))


class MirrorCylinder(unittest.TestCase):
    def test_mirror_cylinder_terminates(self):
        # Run in a child process: sk_weights_mirror has been seen to loop forever in its k-d tree build on
        # this mesh; a hang must fail the test, not stall CI.
        import subprocess
        code = ("import sys; sys.path.insert(0, %r)\n"
                "from skinkit import api\n"
                "c = api.cylinder(segments=8, rings=4, bones=2)\n"
                "rep = api.mirror_weights(c.skin, c.positions, mode='+to-', plane=(0, 1, 0, 0))\n"
                "assert rep['unmatched'] == 0, rep\n"
                "assert not c.skin.validate()[0]['findings']\n"
                "print('ok')\n") % os.path.join(REPO, "python_addon")
        try:
            r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:
            self.fail("sk_weights_mirror did not return within 30 s on cylinder(8, 4, 2) mirrored across y = 0")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("ok", r.stdout)


class BindTests(unittest.TestCase):
    def test_bind_cylinder(self):
        c = api.cylinder(segments=12, rings=16, bones=2, length=2.0)
        sk = Skeleton(["a", "b"], [-1, 0], rest_local=np.stack([np.eye(4), translate(1, 0, 0)]))
        heads, tails = sk.bone_segments()
        np.testing.assert_allclose(heads[1], [1, 0, 0], atol=1e-6)
        np.testing.assert_allclose(tails[1], [2, 0, 0], atol=1e-6)  # leaf: head + (head - parent head)
        for method in ("robust", "heat", "nearest"):
            skin, rep = api.bind(c.positions, c.triangles, skeleton=sk, method=method)
            with skin:
                vrep, _flags = skin.validate()
                self.assertFalse(vrep["findings"], method)
                self.assertEqual(rep["bound_vertices"], len(c.positions))
                jt, wt = skin.to_packed(1)
                near_end = c.positions[:, 0] > 1.8
                self.assertTrue(np.all(jt[near_end, 0] == 1), method)
                self.assertTrue(np.all(jt[c.positions[:, 0] < 0.2, 0] == 0), method)
        skin, rep = api.bind(c.positions, None, heads=heads, tails=tails, method="nearest", rigid=True)
        self.assertEqual(skin.validate()[0]["max_influences"], 1)
        with self.assertRaises(ShapeError):
            api.bind(c.positions, c.triangles)


class HostileArguments(unittest.TestCase):
    """Counts and indices that do not fit their C type, NUL bytes in paths and names, and names that are not
    UTF-8: each gives ValueError (or a replacement character), never a silently truncated call."""

    def test_counts_past_uint32_refused(self):
        with self.assertRaises(ValueError):
            Skin(10, 2**32 + 5)  # would otherwise make a skin over 5 joints
        with self.assertRaises(ValueError):
            Skin(-1, 3)
        with self.assertRaises(ValueError):
            Skin(2**64, 3)
        expect_code(self, C.SK_ERR_OUT_OF_RANGE, Skin, 10, 2**16)  # fits uint32: the library's own check
        with Skin(10, 2**16 - 1) as s:
            self.assertEqual(s.joint_count, 2**16 - 1)

    def test_index_past_uint32_refused(self):
        with Skin(4, 3) as s:
            with self.assertRaises(ValueError):
                s.set_vertex(2**64 + 1, [0], [1.0])  # size_t: not vertex 1
            expect_code(self, C.SK_ERR_OUT_OF_RANGE, s.set_vertex, 2**32 + 1, [0], [1.0])  # fits size_t
            self.assertEqual(s.vertex(1)[0].size, 0)
        sk = chain(2)
        with self.assertRaises(ValueError):
            sk._lib.sk_skeleton_joint_name(sk.handle, 2**32)
        with self.assertRaises(ValueError):
            sk._lib.sk_skeleton_joint_parent(sk.handle, -1)

    def test_nul_in_path_and_names(self):
        with self.assertRaises(ValueError):
            api.Scene.load("/tmp/a\0b.glb")
        with self.assertRaises(ValueError):
            api.Scene.load(b"/tmp/a\0b.glb")
        with self.assertRaises(ValueError):
            Skeleton(["a\0b", "c"], [-1, 0])
        sk = chain(2)
        with self.assertRaises(ValueError):
            sk.find("j0\0x")  # not "j0"
        self.assertIsNone(sk.find("nope"))
        with self.assertRaises(ValueError):
            api.joint_mirror_name("Left\0Arm")

    def test_missing_file_path_types(self):
        for p in ("/nonexistent/x.glb", b"/nonexistent/x.glb"):
            expect_code(self, C.SK_ERR_IO, api.Scene.load, p)

    def test_non_utf8_joint_names(self):
        raw = [b"caf\xe9", b"\xff\xfe", b"ok"]
        sk = Skeleton(raw, [-1, 0, 1])
        names = sk.names
        self.assertEqual(names, ["caf\ufffd", "\ufffd\ufffd", "ok"])
        self.assertIsNone(sk.find("caf\u00e9"))  # UTF-8 "café" is not the Latin-1 bytes
        with Skin(1, 3) as skin:
            skin.set_vertex(0, [0], [1.0])
            data = api.skf_encode(sk, [skin])
        got, parents, _ib = api.skf_decode_skeleton(data)
        self.assertEqual(got, names)
        self.assertEqual(list(parents), [-1, 0, 1])


class SkfTests(unittest.TestCase):
    def test_roundtrip(self):
        c = api.cylinder(segments=8, rings=6, bones=3)
        sk = chain(3)
        data = api.skf_encode(sk, [(c.skin, c.positions, None)], weight_bits=8, max_influences=4)
        info = api.skf_peek(data)
        self.assertEqual((info["joint_count"], info["mesh_count"], info["vertex_count"]), (3, 1, len(c.positions)))
        self.assertEqual(info["file_size"], len(data))
        mi = api.skf_mesh_info(data, 0)
        self.assertTrue(mi["has_position_hash"])
        self.assertEqual(mi["position_hash"], api.skf_position_hash(c.positions))
        names, parents, ib = api.skf_decode_skeleton(data)
        self.assertEqual(names, ["j0", "j1", "j2"])
        self.assertEqual(parents.tolist(), [-1, 0, 1])
        np.testing.assert_allclose(ib, sk.inverse_bind, atol=1e-6)
        jt, wt = api.skf_decode(data, 0, influences=4, positions=c.positions)
        self.assertTrue(np.all(wt.astype(int).sum(axis=1) == 255))
        ref_j, ref_w = c.skin.to_packed(4, np.uint16, np.uint8)
        for v in range(len(c.positions)):  # same joint -> weight maps (slot order differs)
            a = {int(j): int(w) for j, w in zip(jt[v], wt[v]) if w}
            b = {int(j): int(w) for j, w in zip(ref_j[v], ref_w[v]) if w}
            self.assertEqual(a, b, "vertex %d" % v)
        self.assertTrue(any(ch["tag"] for ch in api.skf_chunks(data)))
        bad = bytearray(data)
        bad[-1] ^= 0xFF
        with self.assertRaises(SkinkitError) as cm:
            api.skf_peek(bytes(bad))
        self.assertIn(cm.exception.code, (C.SK_ERR_CHECKSUM, C.SK_ERR_FORMAT, C.SK_ERR_TRUNCATED))
        expect_code(self, C.SK_ERR_TRUNCATED, api.skf_peek, data[:len(data) // 2])


    def test_weld(self):
        # a corner-split cylinder (every triangle has its own 3 vertices, as Collada and unindexed glTF store it)
        c = api.cylinder(segments=8, rings=6, bones=3)
        idx = c.triangles.reshape(-1)
        pj, pw = c.skin.to_packed(4, np.uint16, np.float32)
        n = idx.size
        skin = api.Skin.from_csr(np.arange(0, 4 * n + 1, 4, dtype=np.uint32),
                                 pj[idx].reshape(-1).astype(np.uint32), pw[idx].reshape(-1), 3)
        pos = c.positions[idx]
        sk = chain(3)
        data = api.skf_encode(sk, [(skin, pos, None)])
        mi = api.skf_mesh_info(data, 0)
        distinct = len({tuple(p) for p in pos.view(np.uint32).tolist()})
        self.assertEqual((mi["order"], mi["coded_count"], mi["distinct_positions"]), (2, distinct, distinct))
        expect_code(self, C.SK_ERR_INVALID_ARGUMENT, api.skf_decode, data, 0)  # needs the positions
        moved = pos.copy()
        moved[5] += 1.0
        expect_code(self, C.SK_ERR_INVALID_ARGUMENT, api.skf_decode, data, 0, positions=moved)
        jt, wt = api.skf_decode(data, 0, positions=pos)
        plain = api.skf_encode(sk, [(skin, pos, None)], weld=False)
        self.assertEqual(api.skf_mesh_info(plain, 0)["order"], 0)
        self.assertGreater(len(plain), len(data))
        ref_j, ref_w = api.skf_decode(plain, 0)
        np.testing.assert_array_equal(jt, ref_j)
        np.testing.assert_array_equal(wt, ref_w)
        # every corner decodes to the weights of its cylinder vertex
        np.testing.assert_array_equal(wt, api.skf_decode(api.skf_encode(sk, [(c.skin, None, None)]), 0)[1][idx])


class SceneTests(unittest.TestCase):
    def test_missing_file(self):
        e = expect_code(self, C.SK_ERR_IO, api.Scene.load, "/nonexistent/file.glb")
        self.assertIn("/nonexistent/file.glb", e.message)

    def test_isolated_load_of_garbage(self):
        import tempfile
        with tempfile.NamedTemporaryFile(suffix=".glb") as f:
            f.write(b"glTF" + bytes(range(256)) * 4)
            f.flush()
            # skinkit's glTF reader: the bytes after the magic are a GLB version it does not read
            expect_code(self, C.SK_ERR_VERSION, api.Scene.load, f.name, isolate=True, timeout_seconds=20)

    def test_extensions(self):
        exts = api.import_extensions()
        self.assertIn("*.glb", exts)
        self.assertTrue(api.import_extension_supported(".fbx"))
        self.assertFalse(api.import_extension_supported("xyz123"))

    def test_create_add_save_load(self):
        import tempfile
        c = api.cylinder(segments=8, rings=4, bones=2)
        sk = chain(2)
        with api.Scene.create(sk) as scene:
            m = scene.add_mesh(c.positions, c.triangles, name="cyl", normals=c.normals, skin=c.skin)
            self.assertEqual(m, 0)
            self.assertEqual(scene.mesh_names, ["cyl"])
            np.testing.assert_array_equal(scene.mesh_positions(0), c.positions)
            self.assertEqual(scene.mesh_skin(0).to_csr()[1].tolist(), c.skin.to_csr()[1].tolist())
            with self.assertRaises(SkinkitError):
                scene.add_mesh(c.positions, [[0, 1, len(c.positions)]])
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "cyl.glb")
                scene.save(out)
                with api.Scene.load(out) as back:
                    back.require_skin()
                    self.assertEqual(back.mesh_count, 1)
                    self.assertEqual(sorted(back.skeleton.names)[:2], ["j0", "j1"])
        with api.Scene.create(None) as empty:
            expect_code(self, C.SK_ERR_NO_SKIN, empty.add_mesh, c.positions, c.triangles, skin=c.skin)

    def test_skeleton_tails(self):
        """ABI 1.23: the bone tails a file gives (tests/data/blender_tips.dae: Blender's tips and connected bones, 8
        of its 10 joints), points in each joint's frame along its +Y axis; NaN where none (a built skeleton: all)."""
        with api.Scene.load(os.path.join(REPO, "tests", "data", "blender_tips.dae")) as scene:
            t = scene.skeleton.tails
            self.assertEqual(t.shape, (scene.skeleton.joint_count, 3))
            known = np.isfinite(t).all(axis=1)
            self.assertEqual(int(known.sum()), 8)
            self.assertTrue((t[known, 1] > 0).all())
            np.testing.assert_allclose(t[known][:, [0, 2]], 0.0, atol=1e-3 * float(np.abs(t[known]).max()))
        with chain(3) as sk:
            self.assertTrue(np.isnan(sk.tails).all())

    def test_mesh_bind_world(self):
        """ABI 1.21: a skinned FBX mesh's node world, the space of its inverse binds: with the hips' inverse bind it
        gives their bind head (30, 90, -20) cm of walker_rig.fbx, saved in a pose whose hips are elsewhere; None for a
        built scene's mesh."""
        with api.Scene.load(os.path.join(REPO, "tests", "data", "walker_rig.fbx")) as scene:
            m = next(k for k in range(scene.mesh_count) if scene.mesh_node_name(k) == "Body")
            x = scene.mesh_bind_world(m)
            self.assertEqual(x.shape, (4, 4))
            j = scene.skeleton.find("hips")
            ib = scene.mesh_inverse_binds(m)[0][j].astype(np.float64)
            head = (x.astype(np.float64) @ np.linalg.inv(ib))[:3, 3]
            np.testing.assert_allclose(head, [30, 90, -20], atol=1e-3)
            self.assertGreater(np.abs(scene.skeleton.rest_world[j][:3, 3] - head).sum(), 5.0)
        c = api.cylinder(segments=8, rings=4, bones=2)
        with api.Scene.create(chain(2)) as scene:
            scene.add_mesh(c.positions, c.triangles, skin=c.skin)
            self.assertIsNone(scene.mesh_bind_world(0))
        # library 1.21.1: a glTF whose nodes hold a pose and whose skin names its skeleton binds in its armature
        # node's world (walker_posed.glb: "Rig"); one naming no skeleton (Blender's current-frame export) has none
        with api.Scene.load(os.path.join(REPO, "tests", "data", "walker_posed.glb")) as scene:
            rig = scene.skeleton.find("Rig")
            for m in range(scene.mesh_count):
                np.testing.assert_allclose(scene.mesh_bind_world(m), scene.skeleton.rest_world[rig], atol=1e-6)
        with api.Scene.load(os.path.join(REPO, "tests", "data", "walker_current.glb")) as scene:
            self.assertIsNone(scene.mesh_bind_world(0))
        # session 76: walker_rig.fbx written as .dae (nodes in the pose, inverse binds in the document's Z-up world):
        # the root's turn to Y up times the bind shape, so the hips' bind head is (0.3, 0.9, -0.2) m again
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            dae = os.path.join(tmp, "walker.dae")
            with api.Scene.load(os.path.join(REPO, "tests", "data", "walker_rig.fbx")) as scene:
                scene.save(dae)
            with api.Scene.load(dae) as scene:
                j = scene.skeleton.find("hips")
                for m in range(scene.mesh_count):
                    ib = scene.mesh_inverse_binds(m)[0][j].astype(np.float64)
                    head = (scene.mesh_bind_world(m).astype(np.float64) @ np.linalg.inv(ib))[:3, 3]
                    np.testing.assert_allclose(head, [0.3, 0.9, -0.2], atol=1e-5)

    def test_mesh_node_transform(self):
        """ABI 1.27: mover_rig.glb's Crate at its node (2, 0.25, -0.5), its cube of size 0.5 around it in its node's
        space; the Sword's node on joint "spine"; the skinned Body the identity; a built scene's mesh the identity."""
        with api.Scene.load(os.path.join(REPO, "tests", "data", "mover_rig.glb")) as scene:
            by = {scene.mesh_node_name(k): k for k in range(scene.mesh_count)}
            n, joint = scene.mesh_node_transform(by["Crate"])
            self.assertIsNone(joint)
            np.testing.assert_allclose(n[:3, 3], [2.0, 0.25, -0.5], atol=1e-5)
            local = scene.mesh_positions(by["Crate"]) @ np.linalg.inv(n)[:3, :3].T + np.linalg.inv(n)[:3, 3]
            np.testing.assert_allclose(np.abs(local), 0.25, atol=1e-5)
            n, joint = scene.mesh_node_transform(by["Sword"])
            self.assertEqual(joint, scene.skeleton.find("spine"))
            self.assertAlmostEqual(float(np.linalg.norm(n[:3, 0])), 1.08, places=4)
            n, joint = scene.mesh_node_transform(by["Body"])
            self.assertIsNone(joint)
            np.testing.assert_array_equal(n, np.identity(4))
        c = api.cylinder(segments=8, rings=4, bones=2)
        with api.Scene.create(chain(2)) as scene:
            scene.add_mesh(c.positions, c.triangles, skin=c.skin)
            n, joint = scene.mesh_node_transform(0)
            self.assertIsNone(joint)
            np.testing.assert_array_equal(n, np.identity(4))

    def test_scene_listing(self):
        """ABI 1.12: a loaded file's cameras, lights and empty nodes with what each hangs from, its materials by
        name and per mesh; a built scene lists none."""
        with api.Scene.load(os.path.join(REPO, "tests", "data", "scene_objects.fbx")) as scene:
            objs = scene.objects
            self.assertEqual(len(objs), 9)
            self.assertIn(("KneeLamp", "light", "thigh"), objs)
            self.assertIn(("MarkerChild", "empty", "Marker"), objs)
            self.assertEqual(sorted(n for n, k, _ in objs if k == "camera"), ["OrthoCam", "ShotCam"])
            self.assertIsNone(scene.mesh_material(0))  # none, as Blender shows it (Assimp made one up)
            self.assertEqual(scene.material_names, [])
            self.assertIsNone(scene.note)
        with api.Scene.load(os.path.join(REPO, "tests", "data", "textured_rig.fbx")) as scene:
            self.assertEqual((scene.material_names[0], scene.mesh_material(0)), ("Skin", 0))
        with api.Scene.create(None) as empty:
            self.assertEqual((empty.objects, empty.material_names, empty.note), ([], [], None))

    def test_scene_read_back(self):
        """ABI 1.13: a loaded file's materials and images as add_material / add_image take them, and the same after
        a .glb round trip (factors, image bindings, image bytes); a clip's key times, ascending, on the clip."""
        import tempfile

        fbx = os.path.join(REPO, "tests", "data", "textured_rig.fbx")
        with api.Scene.load(fbx) as scene, tempfile.TemporaryDirectory() as tmp:
            mats = [scene.material_info(i) for i in range(scene.material_count)]
            skin = next(m for m in mats if m["name"] == "Skin")
            self.assertIsNotNone(skin["base_color_image"])
            self.assertIsNotNone(skin["normal_image"])
            imgs = [scene.image_info(i) for i in range(scene.image_count)]
            with open(os.path.join(REPO, "tests", "data", "textured_rig_albedo.png"), "rb") as f:
                self.assertEqual(imgs[skin["base_color_image"]]["data"], f.read())
            self.assertEqual(imgs[skin["normal_image"]]["mime"], "image/png")
            self.assertTrue(imgs[0]["embedded"])
            glb = os.path.join(tmp, "rig.glb")
            scene.save(glb)
            with api.Scene.load(glb) as back:
                got = {m["name"]: m for m in (back.material_info(i) for i in range(back.material_count))}
                for m in mats:
                    g = got[m["name"]]
                    for key in ("base_color", "metallic", "roughness", "emissive", "double_sided"):
                        np.testing.assert_allclose(np.asarray(g[key], float), np.asarray(m[key], float), atol=1e-6)
                    self.assertEqual(g["alpha_mode"], m["alpha_mode"])
                    for key in ("base_color_image", "normal_image"):
                        self.assertEqual(m[key] is None, g[key] is None)
                        if m[key] is not None:
                            self.assertEqual(back.image_info(g[key])["data"], imgs[m[key]]["data"])
            with self.assertRaises(api.SkinkitError):
                scene.material_info(scene.material_count)
        with api.Scene.load(os.path.join(REPO, "tests", "data", "animated_objects.fbx")) as scene:
            t = scene.animation_key_times(0)
            self.assertGreater(len(t), 2)
            self.assertTrue(np.all(np.diff(t) > 1e-6))
            self.assertGreaterEqual(t[0], 0.0)
            self.assertLessEqual(t[-1], scene.animation_duration(0) + 1e-6)

    def test_materials_images(self):
        """ABI 1.11: images and materials added to a built scene, a mesh's material, meshes grouped by node_name;
        the .gltf written carries them."""
        import json
        import struct
        import tempfile
        import zlib

        def chunk(tag, data):
            return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

        rows = (b"\0" + b"\xff\0\0\xff" * 2) * 2  # 2 x 2 RGBA, red: filter byte + pixels per row
        png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 6, 0, 0, 0)) +
               chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
        c = api.cylinder(segments=8, rings=4, bones=2)
        half = len(c.triangles) // 2
        with api.Scene.create(None) as scene:
            a = scene.add_mesh(c.positions, c.triangles[:half], name="a", uv0=c.positions[:, :2], node_name="Body")
            b = scene.add_mesh(c.positions, c.triangles[half:], name="b", uv0=c.positions[:, :2], node_name="Body")
            self.assertEqual(scene.material_count, 0)
            img = scene.add_image(png, "red.png")
            expect_code(self, C.SK_ERR_UNSUPPORTED, scene.add_image, b"GIF89a" + bytes(32), "x.gif")
            m0 = scene.add_material("Skin", base_color=(0.8, 0.2, 0.1, 1.0), metallic=0.3, roughness=0.6,
                                    base_color_image=img, normal_image=img, normal_scale=0.7)
            m1 = scene.add_material("Red", base_color=(1, 0, 0, 1), alpha_mode="MASK", alpha_cutoff=0.3,
                                    double_sided=True)
            self.assertEqual((m0, m1, scene.material_count, scene.image_count), (0, 1, 2, 1))
            expect_code(self, C.SK_ERR_INVALID_ARGUMENT, scene.add_material, alpha_mode="CUTOUT")
            expect_code(self, C.SK_ERR_OUT_OF_RANGE, scene.add_material, emissive_image=5)
            expect_code(self, C.SK_ERR_INVALID_ARGUMENT, scene.add_material, metallic=float("nan"))
            expect_code(self, C.SK_ERR_OUT_OF_RANGE, scene.set_mesh_material, 7, m0)
            scene.set_mesh_material(a, m0)
            scene.set_mesh_material(b, m1)
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "m.gltf")
                scene.save(out)
                with open(out) as f:
                    doc = json.load(f)
        mats = {m["name"]: m for m in doc["materials"]}
        self.assertEqual(sorted(mats), ["Red", "Skin"])
        pbr = mats["Skin"]["pbrMetallicRoughness"]
        np.testing.assert_allclose(pbr["baseColorFactor"], [0.8, 0.2, 0.1, 1.0], atol=1e-6)
        np.testing.assert_allclose([pbr["metallicFactor"], pbr["roughnessFactor"]], [0.3, 0.6], atol=1e-6)
        self.assertIn("baseColorTexture", pbr)
        self.assertAlmostEqual(mats["Skin"]["normalTexture"]["scale"], 0.7, places=6)
        self.assertEqual((mats["Red"]["alphaMode"], mats["Red"].get("doubleSided")), ("MASK", True))
        self.assertAlmostEqual(mats["Red"]["alphaCutoff"], 0.3, places=6)
        self.assertEqual(len(doc["images"]), 1)
        self.assertEqual({n["name"] for n in doc["nodes"] if "mesh" in n}, {"Body"})  # the node's name, not "a", "b"

    def test_validate_joint_hierarchy(self):
        """A glTF skin whose joints are two scene roots has no common root (the Khronos validator's
        SKIN_NO_COMMON_ROOT): Scene.validate says so and counts it as a finding; joined under one root it is clean."""
        import base64
        import json
        import struct
        import tempfile
        data = (struct.pack("<9f", 0, 0, 0, 1, 0, 0, 0, 1, 0) + bytes([0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0]) +
                struct.pack("<12f", 1, 0, 0, 0, .5, .5, 0, 0, 1, 0, 0, 0) +
                struct.pack("<32f", *(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                      1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, 0, 0, 1)))

        def doc(j0_children, roots):
            return {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": roots}],
                    "nodes": [{"mesh": 0, "skin": 0}, dict(name="j0", **j0_children),
                              {"name": "j1", "translation": [1, 0, 0]}],
                    "skins": [{"joints": [1, 2], "inverseBindMatrices": 3}],
                    "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2}}]}],
                    "buffers": [{"byteLength": len(data), "uri": "data:application/octet-stream;base64," +
                                 base64.b64encode(data).decode()}],
                    "bufferViews": [{"buffer": 0, "byteOffset": o, "byteLength": n}
                                    for o, n in ((0, 36), (36, 12), (48, 48), (96, 128))],
                    "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                                   "min": [0, 0, 0], "max": [1, 1, 0]},
                                  {"bufferView": 1, "componentType": 5121, "count": 3, "type": "VEC4"},
                                  {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC4"},
                                  {"bufferView": 3, "componentType": 5126, "count": 2, "type": "MAT4"}]}

        with tempfile.TemporaryDirectory() as tmp:
            for name, j0, roots, broken in (("split", {}, [0, 1, 2], True), ("chain", {"children": [2]}, [0, 1], False)):
                path = os.path.join(tmp, name + ".gltf")
                with open(path, "w") as f:
                    json.dump(doc(j0, roots), f)
                with api.Scene.load(path) as scene:
                    reports, findings = scene.validate()
                self.assertEqual(reports[0]["skin_no_common_root"], broken, name)
                self.assertFalse(reports[0]["skin_skeleton_invalid"], name)
                self.assertFalse(reports[0]["skin_duplicate_joint"], name)
                self.assertEqual(findings, broken, name)
                self.assertEqual(reports[0]["findings"], broken, name)

    def test_corpus_roundtrip(self):
        assets = os.environ.get("SKINKIT_ASSETS")
        if not assets:
            self.skipTest("SKINKIT_ASSETS not set: corpus test skipped")
        path = os.path.join(assets, "gltf", "SimpleSkin.gltf")
        self.assertTrue(os.path.isfile(path), "corpus file missing: " + path)
        with api.Scene.load(path) as scene:
            scene.require_skin()
            self.assertGreaterEqual(scene.mesh_count, 1)
            sk = scene.skeleton
            self.assertGreaterEqual(len(sk), 2)
            m = next(i for i in range(scene.mesh_count) if scene.mesh_skin(i) is not None)
            skin = scene.mesh_skin(m)
            self.assertEqual(skin.vertex_count, scene.mesh_vertex_count(m))
            self.assertEqual(scene.mesh_positions(m).shape, (skin.vertex_count, 3))
            ib, bound = scene.mesh_inverse_binds(m)
            self.assertEqual(ib.shape, (len(sk), 4, 4))
            self.assertGreaterEqual(int(bound.sum()), 2)
            reports, findings = scene.validate()
            self.assertEqual(reports[m]["vertex_count"], skin.vertex_count)
            if scene.animation_count:
                self.assertEqual(scene.sample_pose(0, 0.0).shape, (len(sk), 10))
            import tempfile
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "out.glb")
                scene.save(out)
                self.assertTrue(os.path.getsize(out) > 0)
                expect_code(self, C.SK_ERR_EXISTS, scene.save, out)
                with api.Scene.load(out) as back:
                    self.assertGreaterEqual(back.skeleton.joint_count, 2)
        with self.assertRaises(SkinkitError):
            skin.vertex_count  # noqa: B018  (borrowed skin of a closed scene)


if __name__ == "__main__":
    unittest.main()


class TestTransferAndDirect(unittest.TestCase):
    """transfer_weights (Abdrashitov et al. 2023) and direct_manipulation (Mohr et al. 2002) through api.py."""

    def test_transfer_between_tessellations(self):
        src = api.cylinder(segments=16, rings=24, bones=2)
        dst = api.cylinder(segments=11, rings=17, bones=2)  # same shape, other tessellation
        out = Skin(dst.skin.vertex_count, dst.skin.joint_count)
        rep = api.transfer_weights(src.positions, src.triangles, src.skin, dst.positions, dst.triangles, out)
        v = dst.skin.vertex_count
        self.assertEqual(rep["selected"], v)
        self.assertEqual(rep["matched"] + rep["inpainted"] + rep["fallback"], v)
        self.assertEqual(rep["matched"], v)  # same surface: every vertex finds its closest point
        self.assertTrue(np.all(rep["vertex_status"] == C.SK_TRANSFER_VERTEX_MATCHED))
        self.assertGreaterEqual(rep["milliseconds"], 0.0)
        self.assertGreater(rep["distance_threshold"], 0.0)
        packed_j, packed_w = out.to_packed(k=2)
        ref = np.zeros((v, dst.skin.joint_count))
        got = np.zeros_like(ref)
        rj, rw = dst.skin.to_packed(k=2)
        for i in range(v):
            for k in range(2):
                ref[i, rj[i, k]] += rw[i, k]
                got[i, packed_j[i, k]] += packed_w[i, k]
        self.assertLess(float(np.abs(ref - got).max()), 0.05)
        off, _j, w = out.to_csr()
        sums = np.add.reduceat(w, off[:-1]) if len(w) else np.zeros(v)
        self.assertLess(float(np.abs(sums - 1.0).max()), 1e-6)
        # mask and locks: unselected vertices keep their weights exactly
        mask = np.zeros(v, bool)
        mask[: v // 2] = True
        before = dst.skin.to_csr()
        keep_v = v - 1
        old = dst.skin.vertex(keep_v)
        api.transfer_weights(src.positions, src.triangles, src.skin, dst.positions, dst.triangles, dst.skin,
                             mask=mask, locked=[False, True], max_influences=2)
        self.assertTrue(np.array_equal(np.asarray(dst.skin.vertex(keep_v)[0]), np.asarray(old[0])))
        self.assertTrue(np.array_equal(np.asarray(dst.skin.vertex(keep_v)[1]), np.asarray(old[1])))
        self.assertEqual(len(before[0]), v + 1)

    def test_transfer_errors(self):
        src = api.cylinder(segments=8, rings=6, bones=2)
        dst = api.cylinder(segments=7, rings=5, bones=3)
        with self.assertRaises(SkinkitError) as cm:  # joint counts differ
            api.transfer_weights(src.positions, src.triangles, src.skin, dst.positions, dst.triangles, dst.skin)
        self.assertEqual(cm.exception.code, C.SK_ERR_INVALID_ARGUMENT)
        dst2 = api.cylinder(segments=7, rings=5, bones=2)
        before = dst2.skin.to_csr()
        with self.assertRaises(SkinkitError):  # empty mask
            api.transfer_weights(src.positions, src.triangles, src.skin, dst2.positions, dst2.triangles, dst2.skin,
                                 mask=np.zeros(dst2.skin.vertex_count, bool))
        with self.assertRaises(SkinkitError):  # no faces
            api.transfer_weights(src.positions, np.zeros((0, 3)), src.skin, dst2.positions, dst2.triangles,
                                 dst2.skin)
        with self.assertRaises(ShapeError):
            api.transfer_weights(src.positions[:-1], src.triangles, src.skin, dst2.positions, dst2.triangles,
                                 dst2.skin)
        after = dst2.skin.to_csr()
        for a, b in zip(before, after):
            self.assertTrue(np.array_equal(a, b))

    def test_direct_manipulation(self):
        skin = Skin(2, 3)
        skin.set_vertex(0, [0, 1, 2], [0.2, 0.3, 0.5])
        pal = np.stack([np.eye(4, dtype=np.float32), translate(1, 0, 0), translate(0, 1, 0)])
        rest = np.array([0.5, 0.5, 0.0], np.float32)
        target = rest + np.array([0.6, 0.1, 0.0], np.float32)  # weights 0.3, 0.6, 0.1
        rep = api.direct_manipulation(skin, 0, rest, pal, target)
        self.assertLess(rep["residual"], 1e-5)
        self.assertEqual(rep["candidates_used"], 3)
        j, w = skin.vertex(0)
        got = dict(zip([int(x) for x in j], [float(x) for x in w]))
        for joint, want in ((0, 0.3), (1, 0.6), (2, 0.1)):
            self.assertAlmostEqual(got[joint], want, places=5)
        self.assertTrue(np.allclose(rep["achieved"][0], target, atol=1e-5))
        # off the reachable triangle: residual = height above its plane
        rep = api.direct_manipulation(skin, 0, rest, pal, target + np.array([0, 0, 0.25], np.float32))
        self.assertAlmostEqual(rep["residual"], 0.25, places=5)
        # two poses at once
        rep = api.direct_manipulation(skin, 0, rest, np.stack([pal, pal]), np.stack([target, target]))
        self.assertLess(rep["residual"], 1e-5)
        with self.assertRaises(SkinkitError):  # vertex 1 has no joints and no candidates are given
            api.direct_manipulation(skin, 1, rest, pal, target)
        with self.assertRaises(SkinkitError):
            api.direct_manipulation(skin, 0, rest, pal, target, candidates=[0, 7])
        with self.assertRaises(ShapeError):
            api.direct_manipulation(skin, 0, rest, pal[:2], target)
