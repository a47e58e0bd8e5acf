"""Contractions: the dot_general primitive (ops layer)."""

from __future__ import annotations

from ..graph import Attrs, GraphError, OpDef, TensorType
from . import hlo
from .registry import bind


class DotAttrs(Attrs):
    lhs_contracting: tuple[int, ...]
    rhs_contracting: tuple[int, ...]
    lhs_batch: tuple[int, ...] = ()
    rhs_batch: tuple[int, ...] = ()


def _dot_general_infer(attrs: DotAttrs, x: TensorType, y: TensorType) -> TensorType:
    if x.dtype is not y.dtype:
        raise GraphError(f"dot_general wants operands of one dtype, got {x} and {y}")
    if x.dtype.kind == "b":
        raise GraphError(f"dot_general wants numeric operands, got {x} and {y}")
    lc, rc, lb, rb = attrs.lhs_contracting, attrs.rhs_contracting, attrs.lhs_batch, attrs.rhs_batch
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise GraphError(f"dot_general wants as many lhs as rhs contracting and batch dims, got {attrs}")
    for dims, ty in ((lc + lb, x), (rc + rb, y)):
        if len(set(dims)) != len(dims) or any(not 0 <= d < ty.ndim for d in dims):
            raise GraphError(f"dot_general dims {dims} are not distinct dims of {ty}")
    for a, b in list(zip(lc, rc)) + list(zip(lb, rb)):
        if x.shape[a] != y.shape[b]:
            raise GraphError(f"dot_general wants x.shape[{a}] == y.shape[{b}], got {x.shape} and {y.shape}")
    batch = tuple(x.shape[d] for d in lb)
    lfree = tuple(d for i, d in enumerate(x.shape) if i not in lc + lb)
    rfree = tuple(d for i, d in enumerate(y.shape) if i not in rc + rb)
    return TensorType(batch + lfree + rfree, x.dtype)


def _dot_general_lower(ctx, attrs: DotAttrs, x, y):
    dims = hlo.sh.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(attrs.lhs_batch),
        rhs_batching_dimensions=list(attrs.rhs_batch),
        lhs_contracting_dimensions=list(attrs.lhs_contracting),
        rhs_contracting_dimensions=list(attrs.rhs_contracting),
    )
    return hlo.sh.dot_general(hlo.tensor_type(ctx.out_types[0]), x, y, dims)


dot_general_op = OpDef(
    "dot_general",
    _dot_general_infer,
    _dot_general_lower,
    attrs=DotAttrs,
    doc="Batched contraction: output dims are batch, lhs free, rhs free; stablehlo.dot_general.",
)


def dot_general(x, y, contracting, batch=((), ())):
    """Contract ``x`` and ``y`` over ``contracting=(lhs_dims, rhs_dims)`` with ``batch`` dims."""
    (lc, rc), (lb, rb) = contracting, batch
    return bind(
        dot_general_op, x, y,
        lhs_contracting=tuple(lc), rhs_contracting=tuple(rc), lhs_batch=tuple(lb), rhs_batch=tuple(rb),
    )  # fmt: skip
