"""Batch rule of ensure_shape: vectorize equals a loop over lanes, and under vmap the unified None
dims keep their check (the batch dim is inserted into the shape the node asserts)."""

from __future__ import annotations

import numpy as np
import pytest

import stablegraph as sg
from stablegraph.ops.primitives.ensure_shape import ensure_shape_op
from stablegraph.ops.primitives.registry import bind
from stablegraph.test_util import check_vectorize


def test_ensure_shape_batch_rule_matches_a_loop():
    def fn(x, y):
        return bind(ensure_shape_op, x, shape=tuple(x.shape)) + y

    check_vectorize(fn, [np.arange(8.0, dtype=np.float32).reshape(4, 2), np.ones((4, 2), np.float32)])


def test_vmapped_unification_keeps_its_check():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3, None), name="x")
        y = sg.placeholder((3, None), name="y")
        out = sg.vmap(lambda a, b: a * b, in_axes=0)(x, y)  # rows of (_d0,) and (_d1,) meet
    shapes = [n.attrs.shape for n in g.nodes if n.op.name == "ensure_shape"]
    assert shapes == [(3, x.shape[1])]  # the batch dim inserted at the batch axis
    a, b = np.arange(6.0).reshape(3, 2), np.full((3, 2), 2.0)
    with sg.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(out, {x: a, y: b}), a * b)
        with pytest.raises(sg.FeedError, match="dim 1 of y"):
            sess.run(out, {x: a, y: np.ones((3, 4))})
