"""Reductions over axes: the reduce primitive (ops layer)."""

from __future__ import annotations

from typing import Literal

import numpy as np

from ..graph import Attrs, GraphError, OpDef, TensorType, dtypes
from . import hlo
from .registry import bind

REDUCE_KINDS = ("sum", "prod", "max", "min", "and", "or")
_COMBINE = {
    "sum": hlo.sh.add,
    "prod": hlo.sh.multiply,
    "max": hlo.sh.maximum,
    "min": hlo.sh.minimum,
    "and": hlo.sh.and_,
    "or": hlo.sh.or_,
}


def identity(kind: str, dt: dtypes.DType):
    """The neutral element of a reduction kind for dtype ``dt``."""
    if kind in ("sum", "or"):
        return np.zeros((), dt.np)
    if kind == "prod" or (kind == "and" and dt.kind == "b"):
        return np.ones((), dt.np)
    if kind == "and":
        return np.invert(np.zeros((), dt.np))  # all bits set
    if dt.kind == "b":
        return np.asarray(kind == "min")
    if dt.kind in "iu":
        info = np.iinfo(dt.np)
        return np.asarray(info.min if kind == "max" else info.max, dt.np)
    return np.asarray(-np.inf if kind == "max" else np.inf, dt.np)


class ReduceAttrs(Attrs):
    kind: Literal["sum", "prod", "max", "min", "and", "or"]
    axes: tuple[int, ...]


def _reduce_infer(attrs: ReduceAttrs, x: TensorType) -> TensorType:
    axes = attrs.axes
    if len(set(axes)) != len(axes) or any(not 0 <= a < x.ndim for a in axes):
        raise GraphError(f"reduce_{attrs.kind} wants distinct axes in [0, {x.ndim}), got {axes} for {x}")
    if attrs.kind in ("and", "or") and x.dtype.kind not in "biu":
        raise GraphError(f"reduce_{attrs.kind} wants a bool or integer dtype, got {x}")
    if attrs.kind in ("sum", "prod") and x.dtype.kind == "b":
        raise GraphError(f"reduce_{attrs.kind} wants a numeric dtype, got {x}")
    if attrs.kind in ("max", "min") and x.dtype.is_complex:
        raise GraphError(f"reduce_{attrs.kind} is not defined for complex operands, got {x}")
    return TensorType(tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype)


def _reduce_lower(ctx, attrs: ReduceAttrs, x):
    dt = ctx.in_types[0].dtype
    init = hlo.constant(identity(attrs.kind, dt), dt)
    op = hlo.sh.ReduceOp([hlo.tensor_type(ctx.out_types[0])], [x], [init], hlo.dense_i64(attrs.axes))
    hlo.reduce_region(op.body, dt, _COMBINE[attrs.kind])
    return op.result


reduce_op = OpDef(
    "reduce",
    _reduce_infer,
    _reduce_lower,
    attrs=ReduceAttrs,
    doc="Combine elements over axes with sum, prod, max, min, and, or; stablehlo.reduce.",
)


def reduce(x, kind: str, axes):
    """Reduce ``x`` over ``axes`` (a tuple of dims) with one of REDUCE_KINDS."""
    axes = tuple(sorted(int(a) % max(x.ndim, 1) for a in axes))
    if not axes:
        return x
    return bind(reduce_op, x, kind=kind, axes=axes, name=f"reduce_{kind}")
