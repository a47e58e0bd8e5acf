"""Static slicing primitives: slice and rev (ops layer).

More slicing primitives (pad, concatenate, dynamic_slice,
dynamic_update_slice) live in this file too, one block per op.
"""

from __future__ import annotations

from ..graph import Attrs, GraphError, OpDef, ShapeAttr, TensorType
from ..graph.dims import check_shape
from . import hlo
from .registry import bind


# -- slice ---------------------------------------------------------------------
class SliceAttrs(Attrs):
    start_indices: tuple[int, ...]
    limit_shape: ShapeAttr  # the limit indices; may hold a symbol to mean "up to the end"
    strides: tuple[int, ...]


def _slice_infer(attrs: SliceAttrs, x: TensorType) -> TensorType:
    starts, limits, strides = attrs.start_indices, attrs.limit_shape, attrs.strides
    if not len(starts) == len(limits) == len(strides) == x.ndim:
        raise GraphError(
            f"slice wants one start, limit and stride per dim of {x}, got {starts}, {limits}, {strides}"
        )
    out = []
    for i, (s, lim, st, d) in enumerate(zip(starts, limits, strides, x.shape)):
        if st < 1:
            raise GraphError(f"slice wants strides >= 1, got {strides}")
        if isinstance(lim, str) or isinstance(d, str):
            if lim != d or s != 0 or st != 1:
                raise GraphError(
                    f"slice of symbolic dim {i} of {x} must take all of it (start 0, stride 1, limit {d}); "
                    f"got start {s}, limit {lim}, stride {st}"
                )
            out.append(d)
            continue
        if not 0 <= s <= lim <= d:
            raise GraphError(
                f"slice wants 0 <= start <= limit <= size in dim {i} of {x}, got start {s}, limit {lim}"
            )
        out.append(-(-(lim - s) // st))
    return TensorType(tuple(out), x.dtype)


def _slice_lower(ctx, attrs: SliceAttrs, x):
    limits = [
        ctx.in_types[0].shape[i] if isinstance(lim, str) else lim for i, lim in enumerate(attrs.limit_shape)
    ]
    return hlo.sh.slice(
        x, hlo.dense_i64(attrs.start_indices), hlo.dense_i64(limits), hlo.dense_i64(attrs.strides)
    )


slice_op = OpDef(
    "slice",
    _slice_infer,
    _slice_lower,
    attrs=SliceAttrs,
    doc="Elements start:limit:stride per dim (static); stablehlo.slice.",
)


def slice(x, start_indices, limit_indices, strides=None):  # noqa: A001
    """x[start:limit:stride] in every dim, with static ints (a symbolic dim is taken whole)."""
    strides = tuple(strides) if strides is not None else (1,) * x.ndim
    return bind(
        slice_op, x,
        start_indices=tuple(int(s) for s in start_indices), limit_shape=check_shape(tuple(limit_indices)),
        strides=tuple(int(s) for s in strides),
    )  # fmt: skip


# -- rev -----------------------------------------------------------------------
class RevAttrs(Attrs):
    dimensions: tuple[int, ...]


def _rev_infer(attrs: RevAttrs, x: TensorType) -> TensorType:
    dims = attrs.dimensions
    if len(set(dims)) != len(dims) or any(not 0 <= d < x.ndim for d in dims):
        raise GraphError(f"rev wants distinct dims of {x}, got {dims}")
    return x


def _rev_lower(ctx, attrs: RevAttrs, x):
    return hlo.sh.reverse(x, hlo.dense_i64(attrs.dimensions))


rev_op = OpDef(
    "rev", _rev_infer, _rev_lower, attrs=RevAttrs, doc="Reverse the order along dims; stablehlo.reverse."
)


def rev(x, dimensions):
    """``x`` reversed along ``dimensions``."""
    dimensions = tuple(int(d) for d in dimensions)
    return x if not dimensions else bind(rev_op, x, dimensions=dimensions)
