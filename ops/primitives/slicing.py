"""Slicing primitives: slice, rev, pad, concatenate; dynamic_slice and dynamic_update_slice
are re-exported from ops/dynamic_slicing.py (ops layer).

Static windows (slice, rev, pad, concatenate) take dims in their attributes:
ints, or expressions in the symbols of the shapes (``x[1:]`` of a ``batch``
dim starts at 1 and has ``batch - 1`` elements; see graph/dims.py). Bounds the
dims cannot decide at build time are checked once the Session binds them.
"""

from __future__ import annotations

import builtins

import numpy as np

from ...graph import (
    LINEAR,
    MOVES_DATA,
    Attrs,
    GraphError,
    OpDef,
    ShapeAttr,
    Tensor,
    TensorType,
    dims,
    located,
)
from ...graph.attrs import DimsAttr
from ...graph.dims import check_shape
from . import ad_util as ad
from . import batching, hlo, prims
from .batching import inserted
from .constants import constant
from .dynamic_slicing import dynamic_slice, dynamic_slice_op, dynamic_update_slice, dynamic_update_slice_op
from .registry import bind


# -- slice ---------------------------------------------------------------------
class SliceAttrs(Attrs):
    start_indices: DimsAttr  # dims: ``x[1:]`` of a (batch,) tensor starts at 1, ``x[-2:]`` at batch - 2
    limit_shape: ShapeAttr  # the limit indices (dims)
    strides: tuple[int, ...]


def _check_order(x: TensorType, i: int, start, limit) -> None:
    """0 <= start <= limit <= size in dim i, where the dims decide it (else checked when bound)."""
    for lo, hi in ((0, start), (start, limit), (limit, x.shape[i])):
        gap = dims.difference(hi, lo)
        if gap is not None and gap < 0:
            raise GraphError(
                f"slice wants 0 <= start <= limit <= size in dim {i} of {x}, got start {start}, limit {limit}"
            )


def _slice_infer(attrs: SliceAttrs, x: TensorType) -> TensorType:
    starts, limits, strides = attrs.start_indices, attrs.limit_shape, attrs.strides
    if not len(starts) == len(limits) == len(strides) == x.ndim:
        raise GraphError(
            f"slice wants one start, limit and stride per dim of {x}, got {starts}, {limits}, {strides}"
        )
    if any(st < 1 for st in strides):
        raise GraphError(f"slice wants strides >= 1, got {strides}")
    out = []
    for i, (s, lim, st) in enumerate(zip(starts, limits, strides)):
        _check_order(x, i, s, lim)
        out.append(dims.floordiv(dims.add(dims.sub(lim, s), st - 1), st))  # ceil((limit - start) / stride)
    return TensorType(tuple(out), x.dtype)


def _slice_lower(ctx, attrs: SliceAttrs, x):
    starts = [ctx.dim(s) for s in attrs.start_indices]
    limits = [ctx.dim(lim) for lim in attrs.limit_shape]
    sizes = ctx.in_types[0].shape
    if not all(0 <= s <= lim <= d for s, lim, d in zip(starts, limits, sizes)):
        _run_time_error(
            ctx,
            f"slice wants 0 <= start <= limit <= size, got starts {tuple(starts)} and limits {tuple(limits)} "
            f"for shape {sizes} with {_spelled_bindings(ctx)}",
        )
    return hlo.sh.slice(x, hlo.dense_i64(starts), hlo.dense_i64(limits), hlo.dense_i64(attrs.strides))


def _slice_vjp(ctx, attrs: SliceAttrs, xs, ys, cts):
    # Put each element back where it came from: low = start, stride - 1 zeros between, the rest high.
    ct, high = cts[0], []
    for s, st, n, d in zip(attrs.start_indices, attrs.strides, ct.shape, xs[0].shape):
        high.append(
            dims.sub(d, s) if n == 0 else dims.sub(dims.sub(d, s), dims.add(1, dims.mul(dims.sub(n, 1), st)))
        )
    return [pad(ct, _zero(ct), attrs.start_indices, high, [st - 1 for st in attrs.strides])]


def _slice_batch(ctx, attrs: SliceAttrs, xs, bdims):
    (x,), (b,) = xs, bdims
    starts, limits = inserted(attrs.start_indices, b, 0), inserted(attrs.limit_shape, b, ctx.size)
    return [slice(x, starts, limits, inserted(attrs.strides, b, 1))], [b]


def _slice_fold(attrs: SliceAttrs, x):
    windows = zip(attrs.start_indices, attrs.limit_shape, attrs.strides)
    return x[tuple(builtins.slice(s, lim, st) for s, lim, st in windows)]


slice_op = OpDef(
    "slice",
    _slice_infer,
    _slice_lower,
    attrs=SliceAttrs,
    vjp=_slice_vjp,
    batch=_slice_batch,
    fold=_slice_fold,
    traits=LINEAR | MOVES_DATA,
    doc="Elements start:limit:stride per dim (static dims); stablehlo.slice.",
)


def slice(x, start_indices, limit_indices, strides=None):  # noqa: A001
    """x[start:limit:stride] in every dim. Starts and limits are dims: ints, or expressions in
    the symbols of x's shape (``slice(x, (1,), ("batch",))`` is ``x[1:]``, of size ``batch - 1``).
    Bounds the dims cannot decide are assumed to hold and checked when the Session binds them."""
    strides = tuple(strides) if strides is not None else (1,) * x.ndim
    return bind(
        slice_op, x,
        start_indices=_dims(start_indices), limit_shape=check_shape(tuple(limit_indices)),
        strides=tuple(int(s) for s in strides),
    )  # fmt: skip


def _dims(values) -> tuple:
    return tuple(dims.as_dim(v) for v in values)


def _spelled_bindings(ctx) -> str:
    return ", ".join(f"{k} = {v}" for k, v in sorted(ctx.bindings.items())) or "no symbols"


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


def _rev_vjp(ctx, attrs: RevAttrs, xs, ys, cts):
    return [rev(cts[0], attrs.dimensions)]


def _rev_batch(ctx, attrs: RevAttrs, xs, bdims):
    (x,), (b,) = xs, bdims
    return [rev(x, batching.shift_axes(attrs.dimensions, b))], [b]


def _rev_fold(attrs: RevAttrs, x):
    return np.flip(x, attrs.dimensions)


rev_op = OpDef(
    "rev", _rev_infer, _rev_lower, attrs=RevAttrs, vjp=_rev_vjp, batch=_rev_batch, fold=_rev_fold,
    traits=LINEAR | MOVES_DATA,
    doc="Reverse the order along dims; stablehlo.reverse.",
)  # fmt: skip


def rev(x, dimensions):
    """``x`` reversed along ``dimensions``."""
    dimensions = tuple(int(d) for d in dimensions)
    return x if not dimensions else bind(rev_op, x, dimensions=dimensions)


def _run_time_error(ctx, message: str):
    """A shape problem found only once the Session bound the symbols, located at the node."""
    raise GraphError(located(message, ctx.node.location, ctx.node.name))


# -- pad -----------------------------------------------------------------------
class PadAttrs(Attrs):
    low: DimsAttr  # dims, negative to crop
    high: DimsAttr
    interior: tuple[int, ...]


def _pad_dim(d, lo, hi, inner: int):
    """The padded size: lo + hi + d + (d - 1) * inner (a symbolic d is taken to be >= 1)."""
    if isinstance(d, int):
        return dims.add(dims.add(lo, hi), d + max(d - 1, 0) * inner)
    return dims.add(dims.add(lo, hi), dims.sub(dims.mul(d, inner + 1), inner))


def _pad_infer(attrs: PadAttrs, x: TensorType, value: TensorType) -> TensorType:
    low, high, interior = attrs.low, attrs.high, attrs.interior
    if value.shape != () or value.dtype is not x.dtype:
        raise GraphError(f"pad wants a scalar padding value of dtype {x.dtype.name}, got {value} for {x}")
    if not len(low) == len(high) == len(interior) == x.ndim:
        raise GraphError(
            f"pad wants one low, high and interior per dim of {x}, got {low}, {high}, {interior}"
        )
    if any(n < 0 for n in interior):
        raise GraphError(f"pad wants interior >= 0, got {interior}")
    shape = tuple(_pad_dim(*args) for args in zip(x.shape, low, high, interior))
    for i, n in enumerate(shape):
        if isinstance(n, int) and n < 0:
            raise GraphError(f"pad of {x} leaves dim {i} with negative size {n}")
    return TensorType(shape, x.dtype)


def _pad_lower(ctx, attrs: PadAttrs, x, value):
    x_type, out_type = ctx.in_types[0], ctx.out_types[0]
    low, high = [ctx.dim(n) for n in attrs.low], [ctx.dim(n) for n in attrs.high]
    sizes = tuple(_pad_dim(*args) for args in zip(x_type.shape, low, high, attrs.interior))
    if sizes != out_type.shape:  # interior padding of a symbolic dim that the feeds bound to 0
        _run_time_error(ctx, f"pad of {x_type} gives shape {sizes}, not {out_type.shape} as its symbols said")
    return hlo.sh.pad(
        x, value, hlo.dense_i64(low), hlo.dense_i64(high), hlo.dense_i64(attrs.interior),
        results=[hlo.tensor_type(out_type)],
    )  # fmt: skip


def _pad_vjp(ctx, attrs: PadAttrs, xs, ys, cts):
    # The operand's elements sit at low + k * (interior + 1): undo the edges (crop what was
    # added, zeros for what was cropped), then take every (interior + 1)-th element.
    ct = cts[0]
    low, high = [dims.sub(0, n) for n in attrs.low], [dims.sub(0, n) for n in attrs.high]
    t = pad(ct, _zero(ct), low, high) if any(n != 0 for n in low + high) else ct
    strides = [n + 1 for n in attrs.interior]
    if any(st > 1 for st in strides):
        t = slice(t, (0,) * t.ndim, t.shape, strides)
    everything = tuple(range(ct.ndim))
    return [t, ad.sub(prims.reduce(ct, "sum", everything), prims.reduce(t, "sum", everything))]


def _pad_batch(ctx, attrs: PadAttrs, xs, bdims):
    (x, value), (b, b_value) = xs, bdims
    at = 0 if b is None else b
    x = batching.batched_at(x, b, ctx.size, at)
    low, high, interior = (inserted(v, at, 0) for v in (attrs.low, attrs.high, attrs.interior))
    if b_value is None:
        return [pad(x, value, low, high, interior)], [at]
    # A padding value per lane: pad with any value, then select each lane's value wherever no
    # element of x landed (the same pad of a mask says where).
    padded = pad(x, _zero(x), low, high, interior)
    trues = prims.broadcast_in_dim(constant(True), x.shape, ())
    landed = pad(trues, constant(False), low, high, interior)
    return [prims.select(landed, padded, prims.broadcast_in_dim(value, padded.shape, (at,)))], [at]


def _zero(t):
    return constant(0, t.dtype)


pad_op = OpDef(
    "pad",
    _pad_infer,
    _pad_lower,
    attrs=PadAttrs,
    vjp=_pad_vjp,
    batch=_pad_batch,
    traits=LINEAR,
    doc="Add low/high edge padding (negative crops) and interior padding between elements; stablehlo.pad.",
)


def pad(x, padding_value, low, high, interior=None):
    """``x`` padded with the scalar ``padding_value``: ``low[i]`` elements before dim i,
    ``high[i]`` after and ``interior[i]`` between neighbours (negative low/high crop).

    Size of dim i: ``low + high + d + max(d - 1, 0) * interior``; low and high may be dims
    (expressions in the symbols). Lowers to ``stablehlo.pad``.
    ``pad(x, zero, (1, 0), (1, 0), (0, 0))`` adds a border of zeros in dim 0.
    """
    interior = tuple(interior) if interior is not None else (0,) * x.ndim
    return bind(
        pad_op, x, padding_value, low=_dims(low), high=_dims(high), interior=tuple(int(n) for n in interior)
    )


# -- concatenate ---------------------------------------------------------------
class ConcatenateAttrs(Attrs):
    dimension: int


def _concatenate_infer(attrs: ConcatenateAttrs, *xs: TensorType) -> TensorType:
    dim = attrs.dimension
    if not xs:
        raise GraphError("concatenate wants at least one operand, got none")
    x = xs[0]
    if not 0 <= dim < x.ndim:
        raise GraphError(f"concatenate wants 0 <= dimension < rank, got dimension {dim} for {x}")
    for y in xs[1:]:
        same = y.ndim == x.ndim and all(a == b for i, (a, b) in enumerate(zip(x.shape, y.shape)) if i != dim)
        if y.dtype is not x.dtype or not same:
            spelled = ", ".join(map(str, xs))
            raise GraphError(
                f"concatenate wants operands of one dtype and rank, equal outside dim {dim}, got {spelled}"
            )
    shape = list(x.shape)
    shape[dim] = dims.total(y.shape[dim] for y in xs)
    return TensorType(tuple(shape), x.dtype)


def _concatenate_lower(ctx, attrs: ConcatenateAttrs, *xs):
    return hlo.sh.concatenate(list(xs), attrs.dimension)


def _concatenate_vjp(ctx, attrs: ConcatenateAttrs, xs, ys, cts):
    ct, dim = cts[0], attrs.dimension
    out, offset = [], 0
    for x in xs:
        starts, limits = [0] * ct.ndim, list(ct.shape)
        starts[dim], limits[dim] = offset, dims.add(offset, x.shape[dim])
        out.append(slice(ct, starts, limits))
        offset = limits[dim]
    return out


def _concatenate_batch(ctx, attrs: ConcatenateAttrs, xs, bdims):
    # Every operand takes the first batched one's batch axis (unbatched ones broadcast along it).
    at = next(b for b in bdims if b is not None)
    moved = [batching.batched_at(x, b, ctx.size, at) for x, b in zip(xs, bdims)]
    (dimension,) = batching.shift_axes((attrs.dimension,), at)
    return [concatenate(moved, dimension)], [at]


def _concatenate_fold(attrs: ConcatenateAttrs, *xs):
    return np.concatenate(xs, axis=attrs.dimension)


concatenate_op = OpDef(
    "concatenate",
    _concatenate_infer,
    _concatenate_lower,
    attrs=ConcatenateAttrs,
    vjp=_concatenate_vjp,
    batch=_concatenate_batch,
    fold=_concatenate_fold,
    traits=LINEAR,
    doc="Join operands end to end along one dim; stablehlo.concatenate.",
)


def concatenate(xs, dimension: int):
    """The tensors ``xs`` (one dtype, equal outside ``dimension``) joined along ``dimension``.

    Lowers to ``stablehlo.concatenate``. ``concatenate([x, y], 0)``
    """
    xs = list(xs)
    if len(xs) == 1 and isinstance(xs[0], Tensor):
        return xs[0]
    return bind(concatenate_op, *xs, dimension=int(dimension))


__all__ = [
    "concatenate", "concatenate_op", "dynamic_slice", "dynamic_slice_op", "dynamic_update_slice",
    "dynamic_update_slice_op", "pad", "pad_op", "rev", "rev_op", "slice", "slice_op",
]  # fmt: skip
