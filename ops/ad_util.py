"""Small builders the vjp rules share (ops layer).

Rules build cotangent graphs from primitives; these helpers spell the
common pieces once: constants shaped like a tensor, strict arithmetic, and
summing a cotangent back to the shape of a broadcast operand.
"""

from __future__ import annotations

import numpy as np

from ..graph import Tensor, dtypes
from . import compare, constants, elementwise, reduce, shape
from .registry import bind


def full_like(x: Tensor, value, dtype=None) -> Tensor:
    """A tensor of x's shape (symbolic dims included) filled with ``value``."""
    dt = dtypes.dtype(dtype) if dtype is not None else x.dtype
    scalar = constants.constant(np.asarray(value, dt.np))
    return shape.broadcast_in_dim(scalar, x.shape, ())


def zeros_like(x: Tensor) -> Tensor:
    return full_like(x, 0)


def alias(x: Tensor) -> Tensor:
    """A new tensor equal to x (an identity broadcast that simplify removes).

    vjp differentiates with respect to aliases of its primals, so the paths
    through the primal tensor itself (closed over, or captured into a body)
    are not followed. Built in the graph being built: an outer x is captured.
    """
    return bind(
        shape.broadcast_in_dim_op, x, shape=x.shape, broadcast_dimensions=tuple(range(x.ndim)), name="primal"
    )


def add(x: Tensor, y: Tensor) -> Tensor:
    return bind(elementwise.add, x, y)


def sub(x: Tensor, y: Tensor) -> Tensor:
    return bind(elementwise.sub, x, y)


def mul(x: Tensor, y: Tensor) -> Tensor:
    return bind(elementwise.mul, x, y)


def div(x: Tensor, y: Tensor) -> Tensor:
    return bind(elementwise.div, x, y)


def neg(x: Tensor) -> Tensor:
    return bind(elementwise.neg, x)


def scale(x: Tensor, value) -> Tensor:
    """x times a Python number, in x's dtype."""
    return mul(x, full_like(x, value))


def select(pred: Tensor, x: Tensor, y: Tensor) -> Tensor:
    return compare.select(pred, x, y)


def where_zero(pred: Tensor, x: Tensor) -> Tensor:
    """x where pred is false, 0 where it is true (keeps NaNs out of masked slots)."""
    return compare.select(pred, zeros_like(x), x)


def sum_to_shape(ct: Tensor, target_shape, broadcast_dimensions) -> Tensor:
    """The transpose of broadcast_in_dim: sum ``ct`` over the dims the broadcast added
    or expanded, giving a tensor of ``target_shape``."""
    dims = tuple(broadcast_dimensions)
    added = tuple(d for d in range(ct.ndim) if d not in dims)
    expanded = tuple(d for i, d in enumerate(dims) if target_shape[i] == 1 and ct.shape[d] != 1)
    summed = reduce.reduce(ct, "sum", added + expanded) if added or expanded else ct
    return shape.reshape(summed, tuple(target_shape))


def is_differentiable(t: Tensor) -> bool:
    """Only floating and complex values carry cotangents; ints and bools carry none."""
    return t.dtype.is_inexact
