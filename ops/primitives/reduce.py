"""Reductions over axes: the reduce primitive (ops layer)."""

from __future__ import annotations

from typing import Literal

import numpy as np

from ...graph import Attrs, GraphError, OpDef, TensorType, dtypes
from ...graph.dims import prod
from . import ad_util as ad
from . import batching, constants, hlo, prims
from .registry import bind

REDUCE_KINDS = ("sum", "prod", "max", "min", "and", "or", "xor")
_ops = hlo.builders(hlo.sh)  # looked up when first lowered
_COMBINE = {
    "sum": _ops.add,
    "prod": _ops.multiply,
    "max": _ops.maximum,
    "min": _ops.minimum,
    "and": _ops.and_,
    "or": _ops.or_,
    "xor": _ops.xor,
}


def identity(kind: str, dt: dtypes.DType):
    """The neutral element of a reduction kind for dtype ``dt``."""
    if kind in ("sum", "or", "xor"):
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
    kind: Literal["sum", "prod", "max", "min", "and", "or", "xor"]
    axes: tuple[int, ...]


def _reduce_infer(attrs: ReduceAttrs, x: TensorType) -> TensorType:
    axes = attrs.axes
    if len(set(axes)) != len(axes) or any(not 0 <= a < x.ndim for a in axes):
        raise GraphError(f"reduce_{attrs.kind} wants distinct axes in [0, {x.ndim}), got {axes} for {x}")
    if attrs.kind in ("and", "or", "xor") and x.dtype.kind not in "biu":
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


def _reduce_vjp(ctx, attrs: ReduceAttrs, xs, ys, cts):
    # and/or/xor only take bool and integer values, which carry no gradient: no rule needed for them.
    x, kind = xs[0], attrs.kind
    kept = tuple(d for d in range(x.ndim) if d not in attrs.axes)

    def back(t):
        return prims.broadcast_in_dim(t, x.shape, kept)

    if kind == "sum":
        return [back(cts[0])]
    if kind == "prod":
        return [ad.mul(back(cts[0]), _product_of_others(x, attrs.axes))]
    if kind in ("max", "min"):
        # JAX's convention: the elements equal to the result share its cotangent equally.
        hit = prims.compare(x, back(ys[0]), "EQ")
        zero = ad.zeros_like(x)
        count = reduce(ad.select(hit, ad.full_like(x, 1), zero), "sum", attrs.axes)
        return [ad.select(hit, back(ad.div(cts[0], count)), zero)]
    return [None]


def _product_of_others(x, axes):
    """For each element, the product of the other elements reduced with it, without dividing (exact
    at zeros): the reduced dims flattened into one, then exclusive running products from each end."""
    kept = [d for d in range(x.ndim) if d not in axes]
    perm = kept + list(axes)
    moved = prims.transpose(x, perm)
    flat = prims.reshape(moved, moved.shape[: len(kept)] + (prod(moved.shape[len(kept) :]),))
    if flat.shape[-1] == 0:
        return ad.zeros_like(x)
    last, one = flat.ndim - 1, constants.constant(1, x.dtype)
    edge = [0] * flat.ndim
    shift = [0] * last + [1]
    unshift = [0] * last + [-1]
    before = prims.pad(prims.cumulative(flat, "prod", last), one, shift, unshift, edge)
    after = prims.pad(prims.cumulative(flat, "prod", last, reverse=True), one, unshift, shift, edge)
    others = prims.reshape(ad.mul(before, after), moved.shape)
    inverse = [0] * x.ndim
    for i, p in enumerate(perm):
        inverse[p] = i
    return prims.transpose(others, inverse)


def _reduce_batch(ctx, attrs: ReduceAttrs, xs, bdims):
    (x,), (b,) = xs, bdims
    axes = batching.shift_axes(attrs.axes, b)
    y = bind(reduce_op, x, attrs=attrs.model_copy(update={"axes": axes}))
    return [y], [b - batching.rank_among(axes, b)]


def _reduce_jvp(ctx, attrs: ReduceAttrs, xs, ys, tangents):
    # a sum is linear: the tangent is the sum of the tangents; max/min/prod go through the vjp
    if attrs.kind == "sum":
        return ctx.linear(attrs, xs, ys, tangents)
    return ctx.transposed_vjp(attrs, xs, ys, tangents)


_FOLDS = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "and": np.all, "or": np.any}
_BITWISE_FOLDS = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


def _reduce_fold(attrs: ReduceAttrs, x):
    if attrs.kind in _BITWISE_FOLDS and (x.dtype.kind in "iu" or attrs.kind == "xor"):
        return _BITWISE_FOLDS[attrs.kind].reduce(x, axis=attrs.axes, initial=identity(attrs.kind, x.dtype))
    return _FOLDS[attrs.kind](x, axis=attrs.axes)


reduce_op = OpDef(
    "reduce",
    _reduce_infer,
    _reduce_lower,
    attrs=ReduceAttrs,
    vjp=_reduce_vjp,
    jvp=_reduce_jvp,
    batch=_reduce_batch,
    fold=_reduce_fold,
    doc="Combine elements over axes with sum, prod, max, min, and, or, xor; stablehlo.reduce.",
)


def reduce(x, kind: str, axes):
    """Reduce ``x`` over ``axes`` (a tuple of dims) with one of REDUCE_KINDS."""
    axes = tuple(sorted(int(a) % max(x.ndim, 1) for a in axes))
    if not axes:
        return x
    return bind(reduce_op, x, kind=kind, axes=axes, name=f"reduce_{kind}")
