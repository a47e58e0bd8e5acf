"""Batch rules of the elementwise families: vectorize equals a loop over lanes, every axis choice."""

from __future__ import annotations

import numpy as np

from stablegraph.ops.primitives import elementwise as ew
from stablegraph.test_util import check_vectorize

FLOAT_UNARY = [op for op in ew.UNARY if op.name not in ("not",)]
INT_BINARY = ("and", "or", "xor", "shift_left", "shift_right_arithmetic", "shift_right_logical")


def test_unary_ops_batch_like_a_loop():
    # neg abs sign floor ceil round exp expm1 log log1p sqrt rsqrt cbrt sin cos tan tanh logistic erf
    # erf_inv is_finite stop_gradient, in one graph
    x = np.linspace(0.1, 0.9, 6, dtype=np.float32).reshape(2, 3)
    check_vectorize(lambda a: tuple(ew.apply(op, a) for op in FLOAT_UNARY), [x], atol=1e-5, rtol=1e-5)
    check_vectorize(lambda a: ew.apply(ew.not_, a), [np.array([True, False])])


def test_binary_ops_batch_like_a_loop():
    # add sub mul div rem pow max min atan2 and the integer ops
    x = np.full((2, 3), 0.5, np.float32)
    floats = [op for op in ew.BINARY if op.name not in INT_BINARY]
    check_vectorize(lambda a, b: tuple(ew.apply(op, a, b) for op in floats), [x, x], atol=1e-5, rtol=1e-5)
    ints = [op for op in ew.BINARY if op.name in INT_BINARY]
    i = np.array([[0, 3, 7]], np.int32)
    check_vectorize(lambda a, b: tuple(ew.apply(op, a, b) for op in ints), [i, i])
