"""The top_k primitive: the k largest entries along an axis (the last by default) and their
int32 indices, largest first, ties in index order, as jax.lax.top_k (ops layer)."""

from __future__ import annotations

from ...graph import Attrs, GraphError, OpDef, TensorType, dims, dtypes
from . import ad_util as ad
from . import batching, hlo
from .registry import bind


class TopKAttrs(Attrs):
    k: int
    axis: int


def _top_k_infer(attrs: TopKAttrs, x: TensorType):
    if not 0 <= attrs.axis < x.ndim:
        raise GraphError(
            f"top_k wants an operand of rank >= 1 and 0 <= axis < {x.ndim}, got axis {attrs.axis} for {x}"
        )
    if x.dtype.is_complex or x.dtype.kind == "b":
        raise GraphError(f"top_k wants a real numeric dtype, got {x}")
    room = dims.difference(x.shape[attrs.axis], attrs.k)
    if attrs.k < 0 or (room is not None and room < 0):
        raise GraphError(
            f"top_k wants 0 <= k <= {x.shape[attrs.axis]} (the size of axis {attrs.axis}), "
            f"got k={attrs.k} for {x}"
        )
    shape = tuple(attrs.k if i == attrs.axis else d for i, d in enumerate(x.shape))
    return TensorType(shape, x.dtype), TensorType(shape, dtypes.int32)


def _top_k_lower(ctx, attrs: TopKAttrs, x):
    ndim, axis = ctx.in_types[0].ndim, attrs.axis
    perm = list(range(ndim))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    moved = axis != ndim - 1
    if moved:
        x = hlo.sh.transpose(x, hlo.dense_i64(perm))
    types = [hlo.tensor_type(TensorType(tuple(t.shape[p] for p in perm), t.dtype)) for t in ctx.out_types]
    values, indices = hlo.chlo.TopKOp(x, attrs.k, results=types).results
    if moved:  # the swap is its own inverse
        values, indices = (hlo.sh.transpose(v, hlo.dense_i64(perm)) for v in (values, indices))
    return [values, indices]


def _top_k_vjp(ctx, attrs: TopKAttrs, xs, ys, cts):
    # each value's cotangent goes back to the element it was read from (the indices are distinct)
    ct = cts[0]
    if ct is None:
        return [None]
    return [ad.add_along_axis(xs[0], ys[1], ct, attrs.axis, unique_indices=True)]


def _top_k_batch(ctx, attrs: TopKAttrs, xs, bdims):
    (x,), (b,) = xs, bdims
    (axis,) = batching.shift_axes((attrs.axis,), b)
    values, indices = bind(top_k_op, x, attrs=attrs.model_copy(update={"axis": axis}))
    return [values, indices], [b, b]


top_k_op = OpDef(
    "top_k",
    _top_k_infer,
    _top_k_lower,
    attrs=TopKAttrs,
    vjp=_top_k_vjp,
    batch=_top_k_batch,
    doc="The k largest entries along an axis and their int32 indices, largest first; chlo.top_k.",
)


def top_k(x, k: int, axis: int = -1):
    """The ``k`` largest entries of ``x`` along ``axis`` (default the last) and their indices.

    Returns ``(values, indices)``: ``values`` sorted largest first, ``indices`` (int32) where
    each was in ``x``; equal values come in index order. Shapes: x's with ``axis`` of size k.
    Lowers to ``chlo.top_k`` (moving ``axis`` last and back when it is not).

    Example: ``top_k(x, 2)`` of ``[3., 1., 4., 1., 5.]`` is ``([5., 4.], [4, 2])``.
    """
    axis = int(axis)
    axis = axis + x.ndim if axis < 0 else axis
    return bind(top_k_op, x, k=int(k), axis=axis, name="top_k")
