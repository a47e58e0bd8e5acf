"""The gather primitive: windows of an operand at index vectors, StableHLO's general form (ops layer).

Its transpose is a scatter-add (ops/scatter.py); the checks of the dimension
numbers it shares with scatter are in ops/index_dims.py.
"""

from __future__ import annotations

from typing import Literal

from ...graph import LINEAR, Attrs, GraphError, OpDef, ShapeAttr, TensorType
from ...graph.dims import check_shape, is_symbolic, shape_str
from . import ad_util as ad
from . import constants, hlo, index_dims, prims
from .batching import axis_at_rank, inserted, rank_among, shift_axes
from .index_dims import check_batching, check_dims, check_index_map, exceeds, fits, index_batch, start_limits
from .registry import bind


class GatherAttrs(Attrs):
    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()
    start_index_map: tuple[int, ...]
    index_vector_dim: int
    slice_shape: ShapeAttr  # StableHLO's slice_sizes (dims)
    indices_are_sorted: bool = False
    mode: Literal["clip"] = "clip"  # StableHLO clamps every start index into [0, dim - slice size]


def _gather_infer(attrs: GatherAttrs, x: TensorType, idx: TensorType) -> TensorType:
    a = attrs
    batch, n = index_batch("gather", idx, a.index_vector_dim)
    sizes = a.slice_shape
    if len(sizes) != x.ndim:
        raise GraphError(f"gather wants one slice size per dim of {x}, got {shape_str(sizes)}")
    for i, (s, d) in enumerate(zip(sizes, x.shape)):
        if exceeds(s, d):
            raise GraphError(f"gather wants slice sizes within {x}, got {shape_str(sizes)} (dim {i})")
    check_dims("gather", "collapsed_slice_dims", a.collapsed_slice_dims, x.ndim)
    check_dims("gather", "operand_batching_dims", a.operand_batching_dims, x.ndim)
    dropped = a.collapsed_slice_dims + a.operand_batching_dims
    if set(a.collapsed_slice_dims) & set(a.operand_batching_dims):
        raise GraphError(
            f"gather wants collapsed_slice_dims {a.collapsed_slice_dims} disjoint from "
            f"operand_batching_dims {a.operand_batching_dims}"
        )
    if any(is_symbolic(sizes[d]) or sizes[d] > 1 for d in dropped):
        raise GraphError(
            f"gather wants slice size <= 1 in collapsed and batching dims {tuple(sorted(dropped))}, "
            f"got {shape_str(sizes)}"
        )
    check_batching(
        "gather", x, a.operand_batching_dims, idx, a.start_indices_batching_dims, a.index_vector_dim
    )
    check_index_map("gather", "start_index_map", a.start_index_map, n, x, a.operand_batching_dims)
    offsets = [s for d, s in enumerate(sizes) if d not in dropped]
    rank = len(offsets) + len(batch)
    check_dims("gather", "offset_dims", a.offset_dims, rank)
    if len(a.offset_dims) != len(offsets):
        raise GraphError(
            f"gather wants one offset dim per operand dim that is not collapsed or batching "
            f"({len(offsets)} for {x}), got offset_dims {a.offset_dims}"
        )
    offsets_it, batch_it = iter(offsets), iter(batch)
    shape = tuple(next(offsets_it) if d in a.offset_dims else next(batch_it) for d in range(rank))
    return TensorType(shape, x.dtype)


def _gather_lower(ctx, attrs: GatherAttrs, x, idx):
    operand = ctx.in_types[0].shape
    sizes = [ctx.dim(s) for s in attrs.slice_shape]
    fits("gather", sizes, operand)
    dnums = hlo.sh.GatherDimensionNumbers.get(
        offset_dims=list(attrs.offset_dims),
        collapsed_slice_dims=list(attrs.collapsed_slice_dims),
        operand_batching_dims=list(attrs.operand_batching_dims),
        start_indices_batching_dims=list(attrs.start_indices_batching_dims),
        start_index_map=list(attrs.start_index_map),
        index_vector_dim=attrs.index_vector_dim,
    )
    return hlo.sh.gather(
        x,
        idx,
        dnums,
        hlo.dense_i64(sizes),
        indices_are_sorted=attrs.indices_are_sorted,
        results=[hlo.tensor_type(ctx.out_types[0])],
    )


def _gather_vjp(ctx, attrs: GatherAttrs, xs, ys, cts):
    # The transpose is a scatter-add with the same dimension numbers. Scatter skips windows that
    # do not fit where gather clamps them, so clamp the starts first.
    x, idx = xs
    limits = start_limits(x, idx, attrs.start_index_map, attrs.slice_shape, attrs.index_vector_dim)
    starts = prims.clamp(constants.constant(0, idx.dtype), idx, limits)
    ct_x = prims.scatter(
        ad.zeros_like(x), starts, cts[0],
        update_window_dims=attrs.offset_dims, inserted_window_dims=attrs.collapsed_slice_dims,
        input_batching_dims=attrs.operand_batching_dims,
        scatter_indices_batching_dims=attrs.start_indices_batching_dims,
        scattered_dims_to_operand_dims=attrs.start_index_map, index_vector_dim=attrs.index_vector_dim,
        indices_are_sorted=attrs.indices_are_sorted, kind="add",
    )  # fmt: skip
    return [ct_x, None]


def _gather_batch(ctx, attrs: GatherAttrs, xs, bdims):
    # Nothing moves. Operand batched alone: its batch axis is one more window dim, cut whole.
    # Indices batched: one more batch dim of the indices (so of the result), paired with the
    # operand's batch axis as batching dims when that is batched too.
    (x, idx), (bx, bi), a = xs, bdims, attrs
    new = {
        "collapsed_slice_dims": shift_axes(a.collapsed_slice_dims, bx),
        "operand_batching_dims": shift_axes(a.operand_batching_dims, bx),
        "start_index_map": shift_axes(a.start_index_map, bx),
    }
    if bi is None:
        window = [d for d in range(x.ndim - 1) if d not in a.collapsed_slice_dims + a.operand_batching_dims]
        out = axis_at_rank(a.offset_dims, rank_among(window, bx))
        new["offset_dims"] = tuple(sorted((*shift_axes(a.offset_dims, out), out)))
        new["slice_shape"] = inserted(a.slice_shape, bx, ctx.size)
        return [bind(gather_op, x, idx, attrs=a.model_copy(update=new))], [out]
    idx_batch = index_dims.index_batch_dims(idx.ndim - 1, a.index_vector_dim)
    out_batch = [d for d in range(len(a.offset_dims) + len(idx_batch)) if d not in a.offset_dims]
    out = axis_at_rank(out_batch, rank_among(idx_batch, bi))
    new["offset_dims"] = shift_axes(a.offset_dims, out)
    (new["index_vector_dim"],) = shift_axes((a.index_vector_dim,), bi)
    new["start_indices_batching_dims"] = shift_axes(a.start_indices_batching_dims, bi)
    new["indices_are_sorted"] = False
    if bx is not None:
        pairs = index_dims.paired_batching(a.operand_batching_dims, a.start_indices_batching_dims, bx, bi)
        new["operand_batching_dims"], new["start_indices_batching_dims"] = pairs
        new["slice_shape"] = inserted(a.slice_shape, bx, 1)
    return [bind(gather_op, x, idx, attrs=a.model_copy(update=new))], [out]


gather_op = OpDef(
    "gather",
    _gather_infer,
    _gather_lower,
    attrs=GatherAttrs,
    vjp=_gather_vjp,
    batch=_gather_batch,
    traits=LINEAR,
    doc="Windows of the operand at the start positions given by index vectors (clamped); stablehlo.gather.",
)


def gather(
    operand, start_indices, *, offset_dims, collapsed_slice_dims, start_index_map, index_vector_dim,
    slice_sizes, operand_batching_dims=(), start_indices_batching_dims=(), indices_are_sorted=False,
    mode="clip",
):  # fmt: skip
    """Slices of ``operand`` at the positions in ``start_indices``, as ``stablehlo.gather``.

    Each index vector (along ``index_vector_dim`` of ``start_indices``; ``index_vector_dim ==
    start_indices.ndim`` means vectors of length 1) gives start positions in the operand dims
    ``start_index_map``; a window of ``slice_sizes`` is cut there. The result has one dim per
    batch dim of the indices plus, at the positions ``offset_dims``, the window dims that are
    not in ``collapsed_slice_dims`` (size-1 dims dropped) nor ``operand_batching_dims`` (dims
    paired with ``start_indices_batching_dims`` of the indices, like a batch of gathers).

    Out of bounds (``mode="clip"``, the only mode): StableHLO clamps each start index into
    ``[0, dim - slice_size]``, so a too-large index reads the last window. sg.numpy.take
    builds "fill" and "wrap" on top. A symbolic operand dim can be sliced whole by giving
    its symbol as slice size.

    ``gather(x, idx[:, None], offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,),
    index_vector_dim=1, slice_sizes=(1, x.shape[1]))`` is ``x[idx]`` for a matrix ``x``.
    """
    return bind(
        gather_op, operand, start_indices,
        offset_dims=tuple(offset_dims), collapsed_slice_dims=tuple(collapsed_slice_dims),
        operand_batching_dims=tuple(operand_batching_dims),
        start_indices_batching_dims=tuple(start_indices_batching_dims),
        start_index_map=tuple(start_index_map), index_vector_dim=int(index_vector_dim),
        slice_shape=check_shape(tuple(slice_sizes)), indices_are_sorted=bool(indices_are_sorted), mode=mode,
    )  # fmt: skip
