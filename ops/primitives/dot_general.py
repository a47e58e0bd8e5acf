"""Contractions: the dot_general primitive (ops layer)."""

from __future__ import annotations

from ...graph import BILINEAR, Attrs, GraphError, OpDef, TensorType
from . import batching, hlo, shape
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


def _dot_general_vjp(ctx, attrs: DotAttrs, xs, ys, cts):
    # ct has dims (batch, lhs free, rhs free). Each operand's cotangent contracts ct's dims of the
    # other operand's free dims with them, batched, leaving (batch, own free, the other operand's
    # contracting dims in its order); a transpose puts those back in the operand's dim order.
    x, y = xs
    lhs = (
        attrs.lhs_batch,
        attrs.lhs_contracting,
        [d for d in range(x.ndim) if d not in attrs.lhs_contracting + attrs.lhs_batch],
    )
    rhs = (
        attrs.rhs_batch,
        attrs.rhs_contracting,
        [d for d in range(y.ndim) if d not in attrs.rhs_contracting + attrs.rhs_batch],
    )
    nb, nlf = len(attrs.lhs_batch), len(lhs[2])
    ct_x = _dot_transpose(cts[0], x.ndim, lhs, y, rhs, range(nb + nlf, cts[0].ndim))
    ct_y = _dot_transpose(cts[0], y.ndim, rhs, x, lhs, range(nb, nb + nlf))
    return [ct_x, ct_y]


def _dot_transpose(ct, ndim: int, own, other, other_dims, ct_dims):
    batch, contracting, free = own
    other_batch, other_contracting, other_free = other_dims
    t = dot_general(ct, other, (tuple(ct_dims), tuple(other_free)), (tuple(range(len(batch))), other_batch))
    order = sorted(other_contracting)
    perm = []
    for i in range(ndim):
        if i in batch:
            perm.append(batch.index(i))
        elif i in free:
            perm.append(len(batch) + free.index(i))
        else:
            perm.append(len(batch) + len(free) + order.index(other_contracting[contracting.index(i)]))
    return shape.transpose(t, perm)


def _dot_general_batch(ctx, attrs: DotAttrs, xs, bdims):
    # Batched on both sides: one more batch dim of the dot, which StableHLO puts first in the result.
    # On one side: a free dim of that operand, keeping its place among the operand's free dims.
    (x, y), (bx, by) = xs, bdims
    lc, lb = batching.shift_axes(attrs.lhs_contracting, bx), batching.shift_axes(attrs.lhs_batch, bx)
    rc, rb = batching.shift_axes(attrs.rhs_contracting, by), batching.shift_axes(attrs.rhs_batch, by)
    if bx is not None and by is not None:
        return [dot_general(x, y, (lc, rc), ((bx, *lb), (by, *rb)))], [0]
    if bx is not None:
        out = len(lb) + sum(d not in lc + lb for d in range(bx))
    else:
        out = len(lb) + (x.ndim - len(lc) - len(lb)) + sum(d not in rc + rb for d in range(by))
    return [dot_general(x, y, (lc, rc), (lb, rb))], [out]


dot_general_op = OpDef(
    "dot_general",
    _dot_general_infer,
    _dot_general_lower,
    attrs=DotAttrs,
    vjp=_dot_general_vjp,
    batch=_dot_general_batch,
    traits=BILINEAR,
    doc="Batched contraction: output dims are batch, lhs free, rhs free; stablehlo.dot_general.",
)


def dot_general(x, y, contracting, batch=((), ())):
    """Contract ``x`` and ``y`` over ``contracting=(lhs_dims, rhs_dims)`` with ``batch`` dims."""
    (lc, rc), (lb, rb) = contracting, batch
    return bind(
        dot_general_op, x, y,
        lhs_contracting=tuple(lc), rhs_contracting=tuple(rc), lhs_batch=tuple(lb), rhs_batch=tuple(rb),
    )  # fmt: skip
