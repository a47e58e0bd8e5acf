"""Batch rules of reduce, argmax, argmin, cumulative and sort: vectorize equals a loop over lanes."""

from __future__ import annotations

import numpy as np

import stablegraph as sg
import stablegraph.numpy as snp
from stablegraph.ops.primitives import constants, cumulative, reduce, sort
from stablegraph.test_util import check_vectorize

X = np.arange(8, dtype=np.float32).reshape(2, 4) / 7


def test_reductions_and_running_reductions_batch_like_a_loop():
    # reduce (sum prod max min, one axis or all), argmax, argmin, cumulative (sum prod max min, reverse)
    def fn(x):
        return (
            reduce.reduce(x, "sum", (0,)), reduce.reduce(x, "prod", (1,)), reduce.reduce(x, "max", (0, 1)),
            reduce.reduce(x, "min", (1,)), sort.argmax(x, 0), sort.argmin(x, 1),
            cumulative.cumulative(x, "sum", 0), cumulative.cumulative(x, "prod", 1, reverse=True),
            cumulative.cumulative(x, "max", 1), cumulative.cumulative(x, "min", 0, reverse=True),
        )  # fmt: skip

    check_vectorize(fn, [X], atol=1e-5, rtol=1e-5)


def test_bool_reductions_batch_like_a_loop():
    # reduce and / or
    b = np.array([[True, False, True], [False, False, True]])
    check_vectorize(lambda x: (reduce.reduce(x, "and", (1,)), reduce.reduce(x, "or", (0,))), [b])


def test_sort_batches_like_a_loop_with_unbatched_operands_broadcast():
    # sort: stable multi-operand (ties in the int keys), descending, two keys; either operand unbatched
    keys = np.array([[0, 2, 1, 2], [1, 1, 0, 2]], np.int32)

    def fn(k, v):
        return (
            *sort.sort((k, v), dimension=1),
            *sort.sort((k, v), dimension=0, descending=True),
            *sort.sort((k, v), dimension=1, num_keys=2),
            sort.sort(v, dimension=1),
        )

    check_vectorize(fn, [keys, X])


def test_numpy_sorting_and_reductions_under_vmap_match_numpy():
    # snp.sort, snp.argsort, snp.cumsum, x.max(axis), snp.argmax under sg.vmap, against numpy loops
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(5, 2, 4)).astype(np.float32)
    g = sg.Graph("vmap_numpy")
    with g:
        x = constants.constant(xs)
        outs = [
            sg.vmap(lambda a: snp.sort(a, axis=-1))(x),
            sg.vmap(lambda a: snp.argsort(a, axis=0), in_axes=1)(x),
            sg.vmap(lambda a: snp.cumsum(a, axis=1), in_axes=2, out_axes=1)(x),
            sg.vmap(lambda a: a.max(axis=0))(x),
            sg.vmap(lambda a: snp.argmax(a, axis=-1), in_axes=-1)(x),
        ]
    got = sg.Session(g).run(outs)
    want = [
        np.stack([np.sort(a, axis=-1) for a in xs]),
        np.stack([np.argsort(xs[:, i], axis=0, kind="stable") for i in range(2)]),
        np.stack([np.cumsum(xs[:, :, i], axis=1) for i in range(4)], axis=1),
        np.stack([a.max(axis=0) for a in xs]),
        np.stack([np.argmax(xs[..., i], axis=-1) for i in range(4)]),
    ]
    for g_, w in zip(got, want):
        np.testing.assert_allclose(g_, w, rtol=1e-6, atol=1e-6)
