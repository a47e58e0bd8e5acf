"""Small builders the vjp rules share (ops layer).

Rules build cotangent graphs from primitives; these helpers spell the
common pieces once: constants shaped like a tensor, strict arithmetic, and
summing a cotangent back to the shape of a broadcast operand. They build on
ops/prims.py (primitives bound by name), not on the families, so every
family may import this module.
"""

from __future__ import annotations

import numpy as np

from ...graph import Tensor, dtypes
from . import constants, prims
from .prims import add, div, mul, neg, select, sub
from .registry import bind, lookup

__all__ = [
    "full_like", "zeros_like", "alias", "add", "sub", "mul", "div", "neg", "scale", "select", "where_zero",
    "sum_to_shape", "add_along_axis", "is_differentiable",
]  # fmt: skip


def full_like(x: Tensor, value, dtype=None) -> Tensor:
    """A tensor of x's shape (symbolic dims included) filled with ``value``."""
    dt = dtypes.dtype(dtype) if dtype is not None else x.dtype
    scalar = constants.constant(np.asarray(value, dt.np))
    return prims.broadcast_in_dim(scalar, x.shape, ())


def zeros_like(x: Tensor) -> Tensor:
    return full_like(x, 0)


def alias(x: Tensor) -> Tensor:
    """A new tensor equal to x (an identity broadcast that simplify removes).

    vjp differentiates with respect to aliases of its primals, so the paths
    through the primal tensor itself (closed over, or captured into a body)
    are not followed. Built in the graph being built: an outer x is captured.
    """
    return bind(
        lookup("broadcast_in_dim"), x, shape=x.shape, broadcast_dimensions=tuple(range(x.ndim)), name="primal"
    )


def scale(x: Tensor, value) -> Tensor:
    """x times a Python number, in x's dtype."""
    return mul(x, full_like(x, value))


def where_zero(pred: Tensor, x: Tensor) -> Tensor:
    """x where pred is false, 0 where it is true (keeps NaNs out of masked slots)."""
    return select(pred, zeros_like(x), x)


def sum_to_shape(ct: Tensor, target_shape, broadcast_dimensions) -> Tensor:
    """The transpose of broadcast_in_dim: sum ``ct`` over the dims the broadcast added
    or expanded, giving a tensor of ``target_shape``."""
    dims = tuple(broadcast_dimensions)
    added = tuple(d for d in range(ct.ndim) if d not in dims)
    expanded = tuple(d for i, d in enumerate(dims) if target_shape[i] == 1 and ct.shape[d] != 1)
    summed = prims.reduce(ct, "sum", added + expanded) if added or expanded else ct
    return prims.reshape(summed, tuple(target_shape))


def add_along_axis(x: Tensor, indices: Tensor, updates: Tensor, axis: int, unique_indices: bool = False):
    """Zeros shaped like ``x`` with ``updates[..., i, ...]`` added at ``indices[..., i, ...]``
    along ``axis``; ``indices`` and ``updates`` have x's shape in every other dim, matched one
    to one. A scatter-add with batching dims (vjp rules of sort and cumulative use it; public as
    ops.indexing.add_along_axis)."""
    others = tuple(d for d in range(x.ndim) if d != axis)
    return prims.scatter(
        zeros_like(x), indices, updates, update_window_dims=(), inserted_window_dims=(axis,),
        input_batching_dims=others, scatter_indices_batching_dims=others,
        scattered_dims_to_operand_dims=(axis,), index_vector_dim=indices.ndim,
        unique_indices=unique_indices, kind="add",
    )  # fmt: skip


def is_differentiable(t: Tensor) -> bool:
    """Only floating and complex values carry cotangents; ints and bools carry none."""
    return t.dtype.is_inexact
