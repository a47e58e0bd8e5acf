"""The batch rule of custom_jvp_call (ops/custom_jvp.py): values against a loop over lanes, and
derivatives of the vectorized function still use the user's jvp (vectorized with it)."""

from __future__ import annotations

import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.test_util import check_vectorize

F64 = np.float64


def make(scale):
    @sg.custom_jvp
    def f(x, y):
        return snp.sin(x) * y, x * 2.0

    @f.defjvp
    def _(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        return f(x, y), (3.0 * snp.cos(x) * y * tx * scale + snp.sin(x) * ty, tx * 2.0)

    return f


def test_custom_jvp_call_batches_like_a_loop():
    check_vectorize(lambda x, y: make(2.0)(x, y), [np.ones(3, F64), np.ones(3, F64)])


def test_derivatives_of_a_vectorized_custom_jvp_use_its_rule():
    xs, ys = np.random.default_rng(0).normal(size=(2, 4, 3))
    g = sg.Graph()
    with g:
        x, y = sg.constant(xs), sg.constant(ys)
        scale = sg.constant(F64(0.5))  # closed over by the jvp: an input of the node, batched with it
        batched = sg.vmap(make(scale), in_axes=(0, None))
        tangent = sg.jvp(lambda a: batched(a, y[0])[0], (x,), (y,))[1]
        grad = sg.grad(lambda a: snp.sum(batched(a, y[0])[0]))(x)
    with sg.Session(g) as sess:
        got_t, got_g = sess.run((tangent, grad))
    np.testing.assert_allclose(got_t, 1.5 * np.cos(xs) * ys[0] * ys)
    np.testing.assert_allclose(got_g, 1.5 * np.cos(xs) * ys[0] * np.ones_like(xs))
