"""Batch rules of reduce_window, select_and_scatter_add, top_k and reduce_precision: vectorize
equals a loop over lanes."""

from __future__ import annotations

import numpy as np

import stablegraph as sg
from stablegraph.ops.primitives.precision import reduce_precision
from stablegraph.ops.primitives.top_k import top_k
from stablegraph.ops.primitives.windowed import select_and_scatter_add, window_reduce
from stablegraph.test_util import check_vectorize

X = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)


def test_reduce_window_batches_like_a_loop():
    # reduce_window sum / max / min with strides, SAME and explicit padding, base and window dilation,
    # an init value; the batch axis becomes a window dim of extent 1
    def fn(x):
        return (
            window_reduce(x, "sum", (2, 2)),
            window_reduce(x, "max", (3, 2), (2, 1), "SAME"),
            window_reduce(x, "min", (2, 2), (1, 2), ((1, 0), (0, 1)), (2, 1), (1, 2)),
            window_reduce(x, "max", (2, 3), (1, 1), "VALID", init=0.0),
        )

    check_vectorize(fn, [X])


def test_select_and_scatter_add_batches_like_a_loop_with_either_operand_unbatched():
    # select_and_scatter_add (max and min): source and operand batched together or alone
    source = np.random.default_rng(1).normal(size=(3, 3)).astype(np.float32)

    def fn(s, x):
        return (
            select_and_scatter_add(s, x, "max", (2, 2), (2, 1), ((0, 1), (0, 0))),
            select_and_scatter_add(s, x, "min", (2, 2), (2, 1), ((0, 1), (0, 0))),
        )

    check_vectorize(fn, [source, X])


def test_top_k_and_reduce_precision_batch_like_a_loop():
    # top_k along the last axis and along axis 0; reduce_precision to bfloat16's and a float8's formats
    def fn(x):
        return (*top_k(x, 2), *top_k(x, 3, axis=0), reduce_precision(x, 8, 7), reduce_precision(x, 4, 3))

    check_vectorize(fn, [X])


def test_windowed_max_and_min_gradients_batch_like_a_loop():
    # the vjp's select_and_scatter_add (with base dilation spelled out) and the dilated-window path
    def fn(x):
        return (
            sg.grad(lambda t: (window_reduce(t, "max", (2, 2), (1, 2), "SAME", (2, 1)) ** 2).sum())(x),
            sg.grad(lambda t: (window_reduce(t, "min", (2, 2), (1, 1), "VALID", None, (2, 1)) ** 2).sum())(x),
        )

    check_vectorize(fn, [X], atol=1e-5, rtol=1e-5)
