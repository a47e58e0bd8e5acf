"""Checkpoints of sharded variables: global values saved, restored onto any mesh shape or one device."""

from __future__ import annotations

import numpy as np
import pytest

import stablegraph as sg

P = sg.PartitionSpec
RNG = np.random.default_rng(1)
W = RNG.normal(size=(8, 4)).astype(np.float32)
B = RNG.normal(size=(4,)).astype(np.float32)
X = RNG.normal(size=(8, 8)).astype(np.float32)


def build():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 8), sg.float32, name="x", sharding=P("data"))
        w = sg.Variable(np.zeros((8, 4), np.float32), name="w", sharding=P("data", "model"))
        b = sg.Variable(np.zeros(4, np.float32), name="b", sharding=P("model"))
        step = sg.group(w.assign(w * 2), b.assign_add(1.0))
        y = x @ w + b
    return g, x, w, b, step, y


G, XP, WV, BV, STEP, YT = build()


@pytest.mark.parametrize("target", [(4, 1), (1, 4), (2, 4), None], ids=str)
def test_restore_onto_any_mesh(tmp_path, target):
    with sg.Session(G, mesh=sg.make_mesh((2, 2), ("data", "model"))) as sess:
        sess.set(WV, W)
        sess.set(BV, B)
        sess.run(STEP)  # the saved values were computed on the mesh, in place
        path = sess.save(tmp_path / "ckpt")
    mesh = None if target is None else sg.make_mesh(target, ("data", "model"))
    with sg.Session(G, mesh=mesh) as other:
        assert other.restore(tmp_path / "ckpt") == path
        np.testing.assert_array_equal(other.get(WV), 2 * W)
        np.testing.assert_array_equal(other.get(BV), B + 1)
        np.testing.assert_allclose(other.run(YT, {XP: X}), X @ (2 * W) + B + 1, rtol=1e-5, atol=1e-5)
        other.run(STEP)  # restored buffers are laid out for this mesh and donated as usual
        np.testing.assert_array_equal(other.get(WV), 4 * W)
        if mesh is not None:
            assert other.sharding_of(WV) == sg.NamedSharding(mesh, P("data", "model"))


def test_saved_file_holds_global_values(tmp_path):
    with sg.Session(G, mesh=sg.make_mesh((4, 2), ("data", "model"))) as sess:
        sess.set(WV, W)
        sess.set(BV, B)
        path = sess.save(tmp_path / "m")
    with np.load(path) as saved:
        np.testing.assert_array_equal(saved["w"], W)
        np.testing.assert_array_equal(saved["b"], B)
