"""Shape primitives: broadcast_in_dim, reshape, transpose (ops layer).

Shapes in attributes may hold symbols (see graph.dims); lowering reads the
concrete output type from the context instead of the attribute.
"""

from __future__ import annotations

import numpy as np

from ...graph import BROADCAST, LINEAR, MOVES_DATA, Attrs, GraphError, OpDef, ShapeAttr, TensorType
from ...graph.dims import check_shape, prod, shape_str
from . import ad_util as ad
from . import batching, hlo
from .registry import bind


# -- broadcast_in_dim ----------------------------------------------------------
class BroadcastAttrs(Attrs):
    shape: ShapeAttr
    broadcast_dimensions: tuple[int, ...]


def _broadcast_in_dim_infer(attrs: BroadcastAttrs, x: TensorType) -> TensorType:
    dims, shape = attrs.broadcast_dimensions, attrs.shape
    if len(dims) != x.ndim or len(set(dims)) != len(dims) or any(not 0 <= d < len(shape) for d in dims):
        raise GraphError(
            f"broadcast_in_dim wants one distinct target dim per operand dim, got {dims} "
            f"for {x} into {shape_str(shape)}"
        )
    if list(dims) != sorted(dims):
        raise GraphError(f"broadcast_in_dim wants increasing broadcast_dimensions, got {dims}")
    for i, d in enumerate(dims):
        if x.shape[i] != 1 and x.shape[i] != shape[d]:
            raise GraphError(
                f"broadcast_in_dim cannot broadcast {x} to {shape_str(shape)}: dim {i} is {x.shape[i]}, target {shape[d]}"
            )
    return TensorType(shape, x.dtype)


def _broadcast_in_dim_lower(ctx, attrs: BroadcastAttrs, x):
    return hlo.sh.broadcast_in_dim(
        hlo.tensor_type(ctx.out_types[0]), x, hlo.dense_i64(attrs.broadcast_dimensions)
    )


def _broadcast_in_dim_vjp(ctx, attrs: BroadcastAttrs, xs, ys, cts):
    return [ad.sum_to_shape(cts[0], xs[0].shape, attrs.broadcast_dimensions)]


def _broadcast_in_dim_batch(ctx, attrs: BroadcastAttrs, xs, bdims):
    # The batch axis goes right after the target of the operand dim before it, which keeps the
    # broadcast_dimensions increasing without moving any operand axis.
    (x,), (b,), dims = xs, bdims, attrs.broadcast_dimensions
    at = batching.axis_at_rank(dims, b)
    moved = batching.inserted(batching.shift_axes(dims, at), b, at)
    return [broadcast_in_dim(x, batching.inserted(attrs.shape, at, ctx.size), moved)], [at]


def _broadcast_in_dim_fold(attrs: BroadcastAttrs, x):
    expanded = [1] * len(attrs.shape)
    for i, d in enumerate(attrs.broadcast_dimensions):
        expanded[d] = x.shape[i]
    return np.broadcast_to(x.reshape(expanded), attrs.shape)


broadcast_in_dim_op = OpDef(
    "broadcast_in_dim",
    _broadcast_in_dim_infer,
    _broadcast_in_dim_lower,
    attrs=BroadcastAttrs,
    vjp=_broadcast_in_dim_vjp,
    batch=_broadcast_in_dim_batch,
    fold=_broadcast_in_dim_fold,
    traits=LINEAR | MOVES_DATA | BROADCAST,
    doc="Place operand dim i at target dim broadcast_dimensions[i], repeating size-1 dims; stablehlo.broadcast_in_dim.",
)


def broadcast_in_dim(x, shape, broadcast_dimensions):
    """Broadcast ``x`` into ``shape``; operand dim i goes to ``broadcast_dimensions[i]``."""
    shape = check_shape(shape)
    if tuple(x.shape) == shape and tuple(broadcast_dimensions) == tuple(range(len(shape))):
        return x
    return bind(broadcast_in_dim_op, x, shape=shape, broadcast_dimensions=tuple(broadcast_dimensions))


# -- reshape -------------------------------------------------------------------
class ReshapeAttrs(Attrs):
    shape: ShapeAttr


def _reshape_infer(attrs: ReshapeAttrs, x: TensorType) -> TensorType:
    if prod(attrs.shape) != prod(x.shape):
        raise GraphError(
            f"reshape cannot turn {x} into {shape_str(attrs.shape)}: sizes {prod(x.shape)} and {prod(attrs.shape)} differ"
        )
    return TensorType(attrs.shape, x.dtype)


def _reshape_lower(ctx, attrs: ReshapeAttrs, x):
    return hlo.sh.reshape(hlo.tensor_type(ctx.out_types[0]), x)


def _reshape_vjp(ctx, attrs: ReshapeAttrs, xs, ys, cts):
    return [reshape(cts[0], xs[0].shape)]


def _reshape_batch(ctx, attrs: ReshapeAttrs, xs, bdims):
    # Row-major order keeps the batch axis in place when the operand dims before it fill the
    # first k target dims exactly; otherwise it goes to the front.
    (x,), (b,), target = xs, bdims, attrs.shape
    before = prod(x.shape[:b])
    at = next((k for k in range(len(target) + 1) if prod(target[:k]) == before), None)
    if at is None:
        x, at = batching.moveaxis(x, b, 0), 0
    return [reshape(x, batching.inserted(target, at, ctx.size))], [at]


def _reshape_fold(attrs: ReshapeAttrs, x):
    return x.reshape(attrs.shape)


reshape_op = OpDef(
    "reshape",
    _reshape_infer,
    _reshape_lower,
    attrs=ReshapeAttrs,
    vjp=_reshape_vjp,
    batch=_reshape_batch,
    fold=_reshape_fold,
    traits=LINEAR | MOVES_DATA,
    doc="Same elements in row-major order, new shape; stablehlo.reshape.",
)


def reshape(x, shape):
    """``x`` with a new shape of the same size (no -1 here: sg.numpy.reshape resolves it)."""
    shape = check_shape(shape)
    if tuple(x.shape) == shape:
        return x
    return bind(reshape_op, x, shape=shape)


# -- transpose -----------------------------------------------------------------
class TransposeAttrs(Attrs):
    permutation: tuple[int, ...]


def _transpose_infer(attrs: TransposeAttrs, x: TensorType) -> TensorType:
    perm = attrs.permutation
    if sorted(perm) != list(range(x.ndim)):
        raise GraphError(f"transpose wants a permutation of {tuple(range(x.ndim))}, got {perm} for {x}")
    return TensorType(tuple(x.shape[p] for p in perm), x.dtype)


def _transpose_lower(ctx, attrs: TransposeAttrs, x):
    return hlo.sh.transpose(x, hlo.dense_i64(attrs.permutation))


def _transpose_vjp(ctx, attrs: TransposeAttrs, xs, ys, cts):
    inverse = [0] * len(attrs.permutation)
    for i, p in enumerate(attrs.permutation):
        inverse[p] = i
    return [transpose(cts[0], inverse)]


def _transpose_batch(ctx, attrs: TransposeAttrs, xs, bdims):
    # The batch axis stays where it is; the other axes are permuted around it.
    (x,), (b,) = xs, bdims
    return [transpose(x, batching.inserted(batching.shift_axes(attrs.permutation, b), b, b))], [b]


def _transpose_fold(attrs: TransposeAttrs, x):
    return np.transpose(x, attrs.permutation)


transpose_op = OpDef(
    "transpose",
    _transpose_infer,
    _transpose_lower,
    attrs=TransposeAttrs,
    vjp=_transpose_vjp,
    batch=_transpose_batch,
    fold=_transpose_fold,
    traits=LINEAR | MOVES_DATA,
    doc="Output dim i is operand dim permutation[i]; stablehlo.transpose.",
)


def transpose(x, permutation):
    """Permute the dims of ``x``."""
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(x.ndim)):
        return x
    return bind(transpose_op, x, permutation=permutation)
