"""Plain-Python tests of the numpy helpers in skinkit/bridge.py that need no Blender (CSR merging and remapping for
import/export, the bone layout of imported skeletons). Run by run_python_tests.py."""
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python_addon"))

from skinkit import bridge  # noqa: E402


class MergeDuplicates(unittest.TestCase):
    def test_sums_repeated_vertex_joint_entries(self):
        off = [0, 3, 3, 5]
        jt = [2, 0, 2, 1, 1]
        wt = [0.25, 0.5, 0.25, 0.5, 0.5]
        o, j, w = bridge.merge_csr_duplicates(off, jt, wt)
        self.assertEqual(o.tolist(), [0, 2, 2, 3])  # vertex 1 stays unweighted
        self.assertEqual(j.tolist(), [0, 2, 1])
        np.testing.assert_allclose(w, [0.5, 0.5, 1.0])

    def test_a_non_finite_repeat_does_not_hide_a_weight(self):
        # vertex 0: joint 0 at 1.0 and again as NaN (glTF JOINTS_0 and JOINTS_1, tests/data/weight_defects.glb):
        # the 1.0 is kept (summed it was NaN, and Import via skinkit wrote a NaN group weight); vertex 1: joint 3
        # only as NaN and inf: the first non-finite value stays for validate to find; vertex 2: finite repeats add
        nan, inf = float("nan"), float("inf")
        o, j, w = bridge.merge_csr_duplicates([0, 2, 4, 6], [0, 0, 3, 3, 1, 1], [1.0, nan, nan, inf, 0.25, 0.75])
        self.assertEqual(o.tolist(), [0, 1, 2, 3])
        self.assertEqual(j.tolist(), [0, 3, 1])
        self.assertEqual(w[0], 1.0)
        self.assertTrue(np.isnan(w[1]))
        self.assertEqual(w[2], 1.0)

    def test_empty(self):
        o, j, w = bridge.merge_csr_duplicates([0, 0, 0], [], [])
        self.assertEqual(o.tolist(), [0, 0, 0])
        self.assertEqual(j.size, 0)


class CsrTake(unittest.TestCase):
    def test_split_and_reorder(self):
        off, jt, wt = [0, 1, 3, 3], [4, 1, 2], [1.0, 0.25, 0.75]
        o, j, w = bridge.csr_take(off, jt, wt, [1, 1, 2, 0])
        self.assertEqual(o.tolist(), [0, 2, 4, 4, 5])
        self.assertEqual(j.tolist(), [1, 2, 1, 2, 4])
        np.testing.assert_allclose(w, [0.25, 0.75, 0.25, 0.75, 1.0])

    def test_all_unweighted(self):
        o, j, w = bridge.csr_take([0, 0, 0], [], [], [1, 0, 1])
        self.assertEqual(o.tolist(), [0, 0, 0, 0])
        self.assertEqual(j.size, 0)


def frame(origin, y=(0, 1, 0), z=(0, 0, 1)):
    m = np.eye(4)
    y, z = np.asarray(y, float), np.asarray(z, float)
    m[:3, 0] = np.cross(y, z)
    m[:3, 1], m[:3, 2], m[:3, 3] = y, z, origin
    return m


class BoneLayout(unittest.TestCase):
    def test_chain_points_at_child_and_leaf_along_its_y_axis(self):
        mats = np.stack([frame((0, 0, 0)), frame((0, 2, 0)), frame((0, 3, 0), y=(1, 0, 0), z=(0, 0, 1))])
        heads, tails, z = bridge.bone_layout([-1, 0, 1], mats)
        np.testing.assert_allclose(heads, [[0, 0, 0], [0, 2, 0], [0, 3, 0]])
        np.testing.assert_allclose(tails[0], [0, 2, 0])
        np.testing.assert_allclose(tails[1], [0, 3, 0])
        np.testing.assert_allclose(tails[2], [0.5, 3, 0], atol=1e-6)  # half its parent's length along its +Y
        np.testing.assert_allclose(z, [[0, 0, 1]] * 3)

    def test_branch_picks_child_along_y_and_coincident_child_is_skipped(self):
        mats = np.stack([frame((0, 0, 0)), frame((1, 0.2, 0)), frame((0, 1, 0)), frame((0, 1, 0))])
        heads, tails, _z = bridge.bone_layout([-1, 0, 0, 2], mats)
        np.testing.assert_allclose(tails[0], [0, 1, 0])  # child 2 lies on the root's +Y axis
        # joint 3 sits on joint 2's head: joint 2 is a "leaf" pointing along its +Y
        self.assertGreater(np.linalg.norm(tails[2] - heads[2]), 0)
        np.testing.assert_allclose((tails[2] - heads[2])[[0, 2]], [0, 0], atol=1e-7)

    def test_every_bone_has_a_length(self):
        mats = np.stack([frame((0, 0, 0)), frame((0, 0, 0))])
        mats[1, :3, :3] = 0  # degenerate matrix: falls back to +Z
        heads, tails, _z = bridge.bone_layout([-1, 0], mats)
        self.assertTrue((np.linalg.norm(tails - heads, axis=1) > 0).all())
        np.testing.assert_allclose((tails[1] - heads[1]) / np.linalg.norm(tails[1] - heads[1]), [0, 0, 1])


if __name__ == "__main__":
    unittest.main()
