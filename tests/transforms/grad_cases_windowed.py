"""Finite-difference gradient cases of reduce_window, select_and_scatter_add, top_k and reduce_precision
(read by test_grad_registry.py)."""

import numpy as np

from stablegraph.ops.primitives import precision, top_k, windowed

R = np.random.default_rng(2)


def normal(*shape):
    return R.normal(size=shape)


def distinct(*shape):
    """Values far apart: no ties within finite-difference steps."""
    return R.permutation(np.prod(shape, dtype=int)).reshape(shape) * 0.5 + R.uniform(0, 0.1, size=shape)


CASES = {
    "reduce_window": [
        (lambda x: windowed.window_reduce(x, "sum", (2, 2), (1, 2), ((1, 0), (0, 1)), (2, 1), (1, 2)), [normal(3, 4)]),
        (lambda x: windowed.window_reduce(x, "max", (2, 2), (2, 1), "SAME"), [distinct(4, 3)]),
        (lambda x: windowed.window_reduce(x, "min", (2, 2), (1, 1), "VALID", (1, 2), (2, 1)), [distinct(4, 3)]),
        (lambda x: windowed.window_reduce(x, "max", (2, 2), init=0.1), [distinct(3, 3) - 2.0]),
    ],
    "select_and_scatter_add": [
        (lambda s, x: windowed.select_and_scatter_add(s, x, "max", (2, 2), (2, 1), ((0, 1), (0, 0))),
         [normal(2, 2), distinct(3, 3)]),
    ],
    "top_k": [(lambda x: top_k.top_k(x, 2)[0], [distinct(2, 4)]), (lambda x: top_k.top_k(x, 2, axis=0), [distinct(3, 2)])],
    "reduce_precision": [(lambda x: precision.reduce_precision(x, 11, 52), [normal(2, 3)])],  # float64's own format
}  # fmt: skip
