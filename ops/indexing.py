"""Indexing primitives: gather and scatter in StableHLO's general form (ops layer).

Both ops take their index arrays as integer tensors and describe how index
vectors address the operand with StableHLO's dimension numbers. Batch dims of
the indices may be symbolic; window sizes are ints, or a symbol that takes a
symbolic operand dim whole. sg.numpy builds numpy indexing (``x[i, :, j]``,
``x.at[i].add(v)``, take, take_along_axis) from these two ops.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ..graph import Attrs, GraphError, OpDef, ShapeAttr, TensorType, dims
from ..graph.dims import check_shape, is_symbolic, prod, shape_str
from . import ad_util as ad
from . import compare, constants, elementwise, hlo, reduce, shape, slicing
from .registry import bind


def _check_dims(op: str, what: str, dims, rank: int, ordered: bool = True) -> None:
    """dims must be distinct (and sorted, if ``ordered``) members of range(rank)."""
    if len(set(dims)) != len(dims) or any(not 0 <= d < rank for d in dims):
        raise GraphError(f"{op} wants distinct {what} in [0, {rank}), got {dims}")
    if ordered and list(dims) != sorted(dims):
        raise GraphError(f"{op} wants sorted {what}, got {dims}")


def _index_batch(op: str, idx: TensorType, index_vector_dim: int):
    """The batch shape of an index tensor and the length of its index vectors."""
    if not idx.dtype.is_integer:
        raise GraphError(f"{op} wants integer indices, got {idx}")
    if not 0 <= index_vector_dim <= idx.ndim:
        raise GraphError(
            f"{op} wants 0 <= index_vector_dim <= {idx.ndim} for indices {idx}, got {index_vector_dim}"
        )
    if index_vector_dim == idx.ndim:
        return idx.shape, 1  # a trailing index vector dim of size 1 is implied
    n = idx.shape[index_vector_dim]
    if is_symbolic(n):
        raise GraphError(f"{op} wants a static index vector size, got dim {index_vector_dim} of {idx}")
    return idx.shape[:index_vector_dim] + idx.shape[index_vector_dim + 1 :], n


def _check_batching(op: str, x: TensorType, x_dims, idx: TensorType, idx_dims, index_vector_dim: int) -> None:
    _check_dims(op, "index batching dims", idx_dims, idx.ndim, ordered=False)
    if index_vector_dim in idx_dims or len(idx_dims) != len(x_dims):
        raise GraphError(
            f"{op} wants one index batching dim (not the index vector dim {index_vector_dim}) per operand "
            f"batching dim, got {idx_dims} for {x_dims}"
        )
    for a, b in zip(x_dims, idx_dims):
        if x.shape[a] != idx.shape[b]:
            raise GraphError(
                f"{op} wants batching dims of equal size, got dim {a} of {x} and dim {b} of {idx}"
            )


def _check_index_map(op: str, what: str, index_map, n: int, x: TensorType, batching) -> None:
    if len(index_map) != n:
        raise GraphError(f"{op} wants {what} of length {n} (the index vector size), got {index_map}")
    _check_dims(op, what, index_map, x.ndim, ordered=False)
    if set(index_map) & set(batching):
        raise GraphError(f"{op} wants {what} {index_map} disjoint from the operand batching dims {batching}")


def _exceeds(window, size) -> bool:
    """Whether a window is larger than its dim for every value of the symbols; windows the dims
    cannot compare (batch - 1 in batch, 3 in batch) are checked when lowered (see _fits)."""
    gap = dims.difference(size, window)
    return gap is not None and gap < 0


def _fits(op: str, window, operand) -> None:
    # A static window in a symbolic dim can only be checked once the Session binds the symbol.
    if any(w > d for w, d in zip(window, operand)):
        raise GraphError(f"{op} wants windows within the operand, got {window} for {operand} at run time")


# -- gather --------------------------------------------------------------------
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
    batch, n = _index_batch("gather", idx, a.index_vector_dim)
    sizes = a.slice_shape
    if len(sizes) != x.ndim:
        raise GraphError(f"gather wants one slice size per dim of {x}, got {shape_str(sizes)}")
    for i, (s, d) in enumerate(zip(sizes, x.shape)):
        if _exceeds(s, d):
            raise GraphError(f"gather wants slice sizes within {x}, got {shape_str(sizes)} (dim {i})")
    _check_dims("gather", "collapsed_slice_dims", a.collapsed_slice_dims, x.ndim)
    _check_dims("gather", "operand_batching_dims", a.operand_batching_dims, x.ndim)
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
    _check_batching(
        "gather", x, a.operand_batching_dims, idx, a.start_indices_batching_dims, a.index_vector_dim
    )
    _check_index_map("gather", "start_index_map", a.start_index_map, n, x, a.operand_batching_dims)
    offsets = [s for d, s in enumerate(sizes) if d not in dropped]
    rank = len(offsets) + len(batch)
    _check_dims("gather", "offset_dims", a.offset_dims, rank)
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
    _fits("gather", sizes, operand)
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


def _gather_vjp(attrs: GatherAttrs, xs, ys, cts):
    # The transpose is a scatter-add with the same dimension numbers. Scatter skips windows that
    # do not fit where gather clamps them, so clamp the starts first.
    x, idx = xs
    limits = _start_limits(x, idx, attrs.start_index_map, attrs.slice_shape, attrs.index_vector_dim)
    starts = compare.clamp(constants.constant(0, idx.dtype), idx, limits)
    ct_x = scatter(
        ad.zeros_like(x), starts, cts[0],
        update_window_dims=attrs.offset_dims, inserted_window_dims=attrs.collapsed_slice_dims,
        input_batching_dims=attrs.operand_batching_dims,
        scatter_indices_batching_dims=attrs.start_indices_batching_dims,
        scattered_dims_to_operand_dims=attrs.start_index_map, index_vector_dim=attrs.index_vector_dim,
        indices_are_sorted=attrs.indices_are_sorted, kind="add",
    )  # fmt: skip
    return [ct_x, None]


def _start_limits(x, idx, index_map, window, index_vector_dim: int):
    """The largest start of each index vector component that keeps a window inside x, shaped like idx."""
    dt = idx.dtype
    last = [dims.sub(x.shape[o], window[o]) for o in index_map]
    if all(isinstance(n, int) for n in last):
        vector = constants.constant(np.asarray(last, dt.np))
    else:
        parts = [shape.reshape(constants.dim_value(n, dt), (1,)) for n in last]
        vector = slicing.concatenate(parts, 0)
    if index_vector_dim == idx.ndim:
        return shape.broadcast_in_dim(shape.reshape(vector, ()), idx.shape, ())
    return shape.broadcast_in_dim(vector, idx.shape, (index_vector_dim,))


gather_op = OpDef(
    "gather",
    _gather_infer,
    _gather_lower,
    attrs=GatherAttrs,
    vjp=_gather_vjp,
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


# -- scatter -------------------------------------------------------------------
SCATTER_KINDS = ("set", "add", "mul", "min", "max")
_COMBINE = {
    "set": lambda old, new: new,
    "add": hlo.sh.add,
    "mul": hlo.sh.multiply,
    "min": hlo.sh.minimum,
    "max": hlo.sh.maximum,
}


class ScatterAttrs(Attrs):
    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    input_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()
    scattered_dims_to_operand_dims: tuple[int, ...]
    index_vector_dim: int
    indices_are_sorted: bool = False
    unique_indices: bool = False
    kind: Literal["set", "add", "mul", "min", "max"] = "set"


def _scatter_infer(attrs: ScatterAttrs, x: TensorType, idx: TensorType, upd: TensorType) -> TensorType:
    a = attrs
    batch, n = _index_batch("scatter", idx, a.index_vector_dim)
    if upd.dtype is not x.dtype:
        raise GraphError(f"scatter wants updates of the operand's dtype, got {upd} for {x}")
    if a.kind in ("min", "max") and x.dtype.is_complex:
        raise GraphError(f"scatter {a.kind} is not defined for complex operands, got {x}")
    _check_dims("scatter", "update_window_dims", a.update_window_dims, upd.ndim)
    _check_dims("scatter", "inserted_window_dims", a.inserted_window_dims, x.ndim)
    _check_dims("scatter", "input_batching_dims", a.input_batching_dims, x.ndim)
    dropped = a.inserted_window_dims + a.input_batching_dims
    if set(a.inserted_window_dims) & set(a.input_batching_dims):
        raise GraphError(
            f"scatter wants inserted_window_dims {a.inserted_window_dims} disjoint from "
            f"input_batching_dims {a.input_batching_dims}"
        )
    window = [d for i, d in enumerate(x.shape) if i not in dropped]
    if len(window) != len(a.update_window_dims) or upd.ndim != len(window) + len(batch):
        raise GraphError(
            f"scatter wants updates with {len(window)} window dims and {len(batch)} scatter dims for "
            f"operand {x} and indices {idx}, got {upd} with update_window_dims {a.update_window_dims}"
        )
    scatter_shape = tuple(d for i, d in enumerate(upd.shape) if i not in a.update_window_dims)
    if scatter_shape != tuple(batch):
        raise GraphError(
            f"scatter wants the update scatter dims to match the index batch dims {shape_str(batch)}, "
            f"got {shape_str(scatter_shape)} from {upd}"
        )
    for i, w in zip(a.update_window_dims, window):
        u = upd.shape[i]
        if _exceeds(u, w):
            raise GraphError(f"scatter wants update windows within the operand, got {upd} for {x}")
    _check_batching(
        "scatter", x, a.input_batching_dims, idx, a.scatter_indices_batching_dims, a.index_vector_dim
    )
    _check_index_map(
        "scatter", "scattered_dims_to_operand_dims", a.scattered_dims_to_operand_dims, n, x,
        a.input_batching_dims,
    )  # fmt: skip
    return x


def _scatter_lower(ctx, attrs: ScatterAttrs, x, idx, upd):
    x_ty, _, upd_ty = ctx.in_types
    dropped = attrs.inserted_window_dims + attrs.input_batching_dims
    window = [d for i, d in enumerate(x_ty.shape) if i not in dropped]
    _fits("scatter", [upd_ty.shape[i] for i in attrs.update_window_dims], window)
    dnums = hlo.sh.ScatterDimensionNumbers.get(
        update_window_dims=list(attrs.update_window_dims),
        inserted_window_dims=list(attrs.inserted_window_dims),
        input_batching_dims=list(attrs.input_batching_dims),
        scatter_indices_batching_dims=list(attrs.scatter_indices_batching_dims),
        scattered_dims_to_operand_dims=list(attrs.scattered_dims_to_operand_dims),
        index_vector_dim=attrs.index_vector_dim,
    )
    op = hlo.sh.ScatterOp(
        [hlo.tensor_type(ctx.out_types[0])],
        [x],
        idx,
        [upd],
        dnums,
        indices_are_sorted=attrs.indices_are_sorted,
        unique_indices=attrs.unique_indices,
    )
    hlo.reduce_region(op.update_computation, x_ty.dtype, _COMBINE[attrs.kind])
    return op.result


# Scatter's vjp: each kind gives (ct_x, ct_updates) from the gather that reads back what the
# scatter wrote. Windows that did not fit were skipped, so they get zero cotangents.
class _Inverse:
    """The scatter's windows seen from the operand: gather them back, scatter into them again."""

    def __init__(self, attrs: ScatterAttrs, x, idx, upd):
        self.attrs, self.x, self.idx, self.upd = attrs, x, idx, upd
        dropped = attrs.inserted_window_dims + attrs.input_batching_dims
        window = iter(upd.shape[d] for d in attrs.update_window_dims)
        self.sizes = tuple(1 if d in dropped else next(window) for d in range(x.ndim))

    def gather(self, t):
        a = self.attrs
        return gather(
            t, self.idx, offset_dims=a.update_window_dims, collapsed_slice_dims=a.inserted_window_dims,
            operand_batching_dims=a.input_batching_dims,
            start_indices_batching_dims=a.scatter_indices_batching_dims,
            start_index_map=a.scattered_dims_to_operand_dims, index_vector_dim=a.index_vector_dim,
            slice_sizes=self.sizes, indices_are_sorted=a.indices_are_sorted,
        )  # fmt: skip

    def scatter(self, t, updates, kind: str):
        attrs = self.attrs.model_copy(update={"kind": kind})
        return bind(scatter_op, t, self.idx, updates, attrs=attrs)

    def fits(self):
        """True for the updates whose window fit (the scatter did not skip them)."""
        a, idx = self.attrs, self.idx
        limits = _start_limits(self.x, idx, a.scattered_dims_to_operand_dims, self.sizes, a.index_vector_dim)
        low = compare.compare(idx, ad.zeros_like(idx), "GE")
        ok = elementwise.apply(elementwise.and_, low, compare.compare(idx, limits, "LE"))
        if a.index_vector_dim < idx.ndim:
            ok = reduce.reduce(ok, "and", (a.index_vector_dim,))
        scatter_dims = tuple(d for d in range(self.upd.ndim) if d not in a.update_window_dims)
        return shape.broadcast_in_dim(ok, self.upd.shape, scatter_dims)

    def gather_fitting(self, t):
        return ad.select(self.fits(), self.gather(t), ad.zeros_like(self.upd))


def _scatter_add_vjp(inv: _Inverse, out, ct):
    return ct, inv.gather_fitting(ct)


def _scatter_set_vjp(inv: _Inverse, out, ct):
    # With duplicate indices one update wins, unspecified which (JAX's convention): scatter a
    # distinct id per update the same way and give the cotangent to the update whose id landed.
    upd = inv.upd
    scatter_dims = tuple(d for d in range(upd.ndim) if d not in inv.attrs.update_window_dims)
    batch = tuple(upd.shape[d] for d in scatter_dims)
    count = constants.iota("int32", (prod(batch),))
    ids = ad.add(shape.reshape(count, batch), ad.full_like(shape.reshape(count, batch), 1))
    ids = shape.broadcast_in_dim(ids, upd.shape, scatter_dims)
    landed = inv.gather(inv.scatter(ad.full_like(inv.x, 0, "int32"), ids, "set"))
    won = compare.compare(landed, ids, "EQ")
    return inv.scatter(ct, ad.zeros_like(upd), "set"), ad.select(won, inv.gather(ct), ad.zeros_like(upd))


def _scatter_mul_vjp(inv: _Inverse, out, ct):
    ct_x = inv.scatter(ct, inv.upd, "mul")
    seen = inv.gather_fitting(ad.mul(ct, inv.x))
    if inv.attrs.unique_indices:
        return ct_x, seen
    # Duplicates: each update's factor is the product of the others at its position, kept exact
    # at zeros by counting zero updates (product of the nonzero ones / this one, or 0).
    upd, one, zero = inv.upd, ad.full_like(inv.upd, 1), ad.zeros_like(inv.upd)
    is_zero = compare.compare(upd, zero, "EQ")
    nonzero = ad.select(is_zero, one, upd)
    nonzero_prod = inv.gather(inv.scatter(ad.full_like(inv.x, 1), nonzero, "mul"))
    zeros = inv.gather(inv.scatter(ad.zeros_like(inv.x), ad.select(is_zero, one, zero), "add"))
    lone_zero = ad.select(compare.compare(zeros, one, "EQ"), nonzero_prod, zero)
    no_zero = ad.select(compare.compare(zeros, zero, "EQ"), ad.div(nonzero_prod, nonzero), zero)
    return ct_x, ad.mul(seen, ad.select(is_zero, lone_zero, no_zero))


def _scatter_extremum_vjp(inv: _Inverse, out, ct):
    # JAX's convention: the operand and the updates equal to the result share its cotangent equally.
    upd, x = inv.upd, inv.x
    won = elementwise.apply(elementwise.and_, inv.fits(), compare.compare(upd, inv.gather(out), "EQ"))
    kept = compare.compare(x, out, "EQ")
    ones = inv.scatter(ad.zeros_like(x), ad.select(won, ad.full_like(upd, 1), ad.zeros_like(upd)), "add")
    share = ad.div(ct, ad.add(ones, ad.select(kept, ad.full_like(x, 1), ad.zeros_like(x))))
    return ad.select(kept, share, ad.zeros_like(x)), ad.select(won, inv.gather(share), ad.zeros_like(upd))


_SCATTER_VJP = {
    "add": _scatter_add_vjp,
    "set": _scatter_set_vjp,
    "mul": _scatter_mul_vjp,
    "min": _scatter_extremum_vjp,
    "max": _scatter_extremum_vjp,
}


def _scatter_vjp(attrs: ScatterAttrs, xs, ys, cts):
    x, idx, upd = xs
    ct_x, ct_upd = _SCATTER_VJP[attrs.kind](_Inverse(attrs, x, idx, upd), ys[0], cts[0])
    return [ct_x, None, ct_upd]


scatter_op = OpDef(
    "scatter",
    _scatter_infer,
    _scatter_lower,
    attrs=ScatterAttrs,
    vjp=_scatter_vjp,
    doc="The operand with update windows combined in (set, add, mul, min, max) at index vectors; "
    "stablehlo.scatter.",
)


def scatter(
    operand, scatter_indices, updates, *, update_window_dims, inserted_window_dims,
    scattered_dims_to_operand_dims, index_vector_dim, input_batching_dims=(),
    scatter_indices_batching_dims=(), indices_are_sorted=False, unique_indices=False, kind="set",
):  # fmt: skip
    """``operand`` with the windows of ``updates`` combined in at ``scatter_indices``, as
    ``stablehlo.scatter`` (the inverse layout of ``gather``).

    Each index vector (along ``index_vector_dim``) gives start positions in the operand dims
    ``scattered_dims_to_operand_dims``. ``update_window_dims`` are the dims of ``updates`` that
    form a window; the rest are its scatter dims, one per batch dim of the indices. Operand dims
    in ``inserted_window_dims`` take no window dim (size 1); ``input_batching_dims`` pair with
    ``scatter_indices_batching_dims``. ``kind`` picks how an update meets the old value:
    "set" (the update wins; with duplicate indices one of them, unspecified), "add", "mul",
    "min" or "max" (duplicates all combine). Windows that do not fit at their start index are
    skipped, as StableHLO does; the result has the operand's type.

    ``scatter(x, idx[:, None], v, update_window_dims=(), inserted_window_dims=(0,),
    scattered_dims_to_operand_dims=(0,), index_vector_dim=1, kind="add")`` is
    ``np.add.at(x, idx, v)`` for a vector ``x``.
    """
    return bind(
        scatter_op, operand, scatter_indices, updates,
        update_window_dims=tuple(update_window_dims), inserted_window_dims=tuple(inserted_window_dims),
        input_batching_dims=tuple(input_batching_dims),
        scatter_indices_batching_dims=tuple(scatter_indices_batching_dims),
        scattered_dims_to_operand_dims=tuple(scattered_dims_to_operand_dims),
        index_vector_dim=int(index_vector_dim), indices_are_sorted=bool(indices_are_sorted),
        unique_indices=bool(unique_indices), kind=kind,
    )  # fmt: skip


def add_along_axis(x, indices, updates, axis: int, unique_indices: bool = False):
    """Zeros shaped like ``x`` with ``updates[..., i, ...]`` added at ``indices[..., i, ...]``
    along ``axis``; ``indices`` and ``updates`` have x's shape in every other dim, matched one
    to one. A scatter-add with batching dims (vjp rules of sort and cumulative use it)."""
    others = tuple(d for d in range(x.ndim) if d != axis)
    return scatter(
        ad.zeros_like(x), indices, updates, update_window_dims=(), inserted_window_dims=(axis,),
        input_batching_dims=others, scatter_indices_batching_dims=others,
        scattered_dims_to_operand_dims=(axis,), index_vector_dim=indices.ndim,
        unique_indices=unique_indices, kind="add",
    )  # fmt: skip
