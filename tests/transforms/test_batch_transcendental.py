"""Batch rules of the transcendental primitives: vectorize equals a loop over lanes."""

from __future__ import annotations

import numpy as np

from stablegraph.ops.primitives import constants
from stablegraph.ops.primitives import elementwise as ew
from stablegraph.ops.primitives import transcendental as tr
from stablegraph.ops.primitives.registry import bind
from stablegraph.test_util import check_vectorize


def test_unary_ops_batch_like_a_loop():
    # asin acos atan sinh cosh asinh acosh atanh lgamma digamma erfc bessel_i0e bessel_i1e, in one graph
    x = np.linspace(0.1, 0.9, 3, dtype=np.float32)  # rank 1, two lanes: chlo's expansions are big
    check_vectorize(lambda a: tuple(ew.apply(op, a) for op in tr.UNARY), [x], size=2, atol=1e-5, rtol=1e-5)


def test_binary_ops_batch_like_a_loop():
    # polygamma zeta nextafter; lanes are drawn around the examples, so positive operands come from exp
    x = np.full((3,), 0.5, np.float32)  # rank 1: few in_axes choices, chlo's zeta is big

    def f(a, b):
        pa, pb = ew.apply(ew.exp, a), ew.apply(ew.exp, b)
        order = ew.apply(ew.floor, ew.apply(ew.mul, pa, pa))
        return (bind(tr.polygamma, order, pb), bind(tr.zeta, ew.apply(ew.add, pa, ew.apply(ew.exp, pa)), pb),
                bind(tr.nextafter, a, b))  # fmt: skip

    check_vectorize(f, [x, x], atol=1e-5, rtol=1e-4)


def test_series_ops_batch_like_a_loop():
    # igamma igammac igamma_grad_a betainc: each lowers to a while loop (slow to compile), so one
    # batched operand, the others constants the batch rule broadcasts
    a = np.array([0.5, 3.0], np.float32)
    const = np.array([1.5, 2.0], np.float32)

    def f(t):
        p = ew.apply(ew.exp, t)
        u = ew.apply(ew.logistic, t)
        c = constants.constant(const)
        return (bind(tr.igamma, p, c), bind(tr.igammac, c, p), bind(tr.igamma_grad_a, p, c),
                bind(tr.betainc, c, p, u))  # fmt: skip

    check_vectorize(f, [a], size=2, atol=1e-5, rtol=1e-4)


def test_integer_ops_batch_like_a_loop():
    # population_count clz
    i = np.array([[0, 3, 7], [1, 255, 64]], np.int32)
    check_vectorize(lambda a: (bind(tr.population_count, a), bind(tr.clz, a)), [i])
