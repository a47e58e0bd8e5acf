"""Batch rule of dot_general: vectorize equals a loop over lanes, batched or unbatched on each side."""

from __future__ import annotations

import numpy as np

import stablegraph as sg
import stablegraph.numpy as snp
from stablegraph.ops.primitives import constants
from stablegraph.ops.primitives.dot_general import dot_general
from stablegraph.test_util import check_vectorize


def test_dot_general_batches_like_a_loop():
    # dot_general with a batch dim and a contracting dim on each side, interleaved with the free dims,
    # so a batch axis at any position lands among them (plain products: the einsum test below). Each
    # batched dot costs ~25 ms of XLA compile on CPU: one case covers the rule.
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 4, 5)).astype(np.float32)
    y = rng.normal(size=(5, 4, 2)).astype(np.float32)

    def fn(a, b):
        return dot_general(a, b, ((0,), (2,)), ((1,), (1,)))

    check_vectorize(fn, [x, y], atol=1e-5, rtol=1e-5)


def test_einsum_and_matmul_under_vmap_match_numpy():
    # snp.einsum and matmul (@) with batched and unbatched operands under sg.vmap
    rng = np.random.default_rng(1)
    xs = rng.normal(size=(5, 2, 4)).astype(np.float32)
    w = rng.normal(size=(4, 6)).astype(np.float32)
    g = sg.Graph("vmap_dot")
    with g:
        x, wt = constants.constant(xs), constants.constant(w)
        outs = [
            sg.vmap(lambda a: a @ wt)(x),
            sg.vmap(lambda a, b: a @ b, in_axes=(None, 0))(wt.T, x.transpose((0, 2, 1))),
            sg.vmap(lambda a, b: snp.einsum("ij,jk->ki", a, b), in_axes=(2, None))(x.transpose(1, 2, 0), wt),
            sg.vmap(lambda a, b: snp.einsum("ij,ij->i", a, b), in_axes=(0, 1))(x, x.transpose((1, 0, 2))),
        ]
    got = sg.Session(g).run(outs)
    want = [
        np.stack([a @ w for a in xs]),
        np.stack([w.T @ a.T for a in xs]),
        np.stack([np.einsum("ij,jk->ki", a, w) for a in xs]),
        np.stack([np.einsum("ij,ij->i", a, a) for a in xs]),
    ]
    for g_, w_ in zip(got, want):
        np.testing.assert_allclose(g_, w_, rtol=1e-5, atol=1e-5)
