"""jax.lax's array helpers that sg.lax lacked: broadcasting, stacking and splitting, taking,
xor reductions, running log-sum-exp, top-k by value, and lax's shape-arithmetic functions (ops
layer, user-facing through sg.lax).

All are compositions of existing primitives (through sg.numpy) with lax's signatures and
semantics; the ones that build nodes are library calls, so a listing shows one line per call.
The ``*_shape_tuple`` functions compute output shapes from input shapes in Python, as lax's do.
"""

from __future__ import annotations

import numpy as np

from ..graph import GraphError, Tensor, dtypes, library, located, user_location
from . import numpy_like as snp
from .lax_convolution import conv_dimension_numbers, padtype_to_pads, transpose_pads
from .lax_scans import associative_scan
from .primitives import reduce as _reduce
from .primitives.compare import bitcast_convert
from .primitives.top_k import top_k


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def _tensor(x) -> Tensor:
    return x if isinstance(x, Tensor) else snp.asarray(x)


def _axis(axis: int, ndim: int, who: str) -> int:
    if not -ndim <= axis < max(ndim, 1):
        raise _error(f"sg.lax.{who}: axis {axis} is out of range for rank {ndim}")
    return axis % max(ndim, 1)


# -- shapes and stacking ---------------------------------------------------------
def broadcast_shapes(*shapes) -> tuple:
    """The shape numpy's broadcasting gives ``shapes`` (tuples of ints or symbols)."""
    return tuple(snp.broadcast_shapes(*shapes))


@library()
def broadcast_like(arr, like_arr) -> Tensor:
    """``arr`` broadcast to the shape of ``like_arr``."""
    return snp.broadcast_to(_tensor(arr), _tensor(like_arr).shape)


@library()
def broadcast_to_rank(x, rank: int) -> Tensor:
    """``x`` with leading dims of size 1 added up to ``rank`` (unchanged if it has that many)."""
    x = _tensor(x)
    return x if x.ndim >= rank else snp.reshape(x, (1,) * (rank - x.ndim) + tuple(x.shape))


@library()
def collapse(operand, start_dimension: int, stop_dimension: int | None = None) -> Tensor:
    """``operand`` with dims ``start_dimension`` up to (not including) ``stop_dimension`` (default:
    the last) merged into one."""
    x = _tensor(operand)
    start, stop = slice(start_dimension, stop_dimension).indices(x.ndim)[:2]
    if stop < start:
        raise _error(
            f"sg.lax.collapse: stop_dimension {stop_dimension} is before start_dimension {start_dimension}"
        )
    merged = int(np.prod([int(d) for d in x.shape[start:stop]])) if start < stop else 1
    return snp.reshape(x, tuple(x.shape[:start]) + (merged,) + tuple(x.shape[stop:]))


@library()
def stack(operands, axis: int = 0) -> Tensor:
    """``operands`` (one shape and dtype) stacked along a new ``axis``."""
    return snp.stack([_tensor(o) for o in operands], axis=axis)


@library()
def unstack(x, axis: int = 0) -> tuple:
    """The slices of ``x`` along ``axis``, that dim removed, as a tuple."""
    x = _tensor(x)
    axis = _axis(axis, x.ndim, "unstack")
    if not isinstance(x.shape[axis], int):
        raise _error(f"sg.lax.unstack: axis {axis} of {x.type} has the symbolic size {x.shape[axis]}")
    return tuple(snp.take(x, i, axis=axis) for i in range(x.shape[axis]))


@library()
def split(operand, sizes, axis: int = 0) -> list:
    """``operand`` cut along ``axis`` into consecutive pieces of ``sizes`` (which sum to its size)."""
    x = _tensor(operand)
    axis = _axis(axis, x.ndim, "split")
    sizes = [int(s) for s in sizes]
    if any(s < 0 for s in sizes) or sum(sizes) != x.shape[axis]:
        raise _error(f"sg.lax.split: sizes {sizes} must be >= 0 and sum to dim {axis} of {x.type}")
    bounds = np.cumsum([0, *sizes])
    index = [slice(None)] * x.ndim
    pieces = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        index[axis] = slice(int(lo), int(hi))
        pieces.append(x[tuple(index)])
    return pieces


@library()
def tile(operand, reps) -> Tensor:
    """``operand`` repeated ``reps[i]`` times along each dim i (one rep per dim, as lax wants)."""
    x = _tensor(operand)
    reps = tuple(int(r) for r in reps)
    if len(reps) != x.ndim:
        raise _error(f"sg.lax.tile: reps {reps} must give one count per dim of {x.type}")
    return snp.tile(x, reps)


def empty(shape, dtype, *, out_sharding=None) -> Tensor:
    """A Tensor of ``shape`` and ``dtype`` whose values are unspecified (zeros here, as XLA's CPU
    gives jax); ``out_sharding`` is not taken (use sg.lax.with_sharding_constraint)."""
    if out_sharding is not None:
        raise _error("sg.lax.empty does not take out_sharding: constrain the result's sharding instead")
    return snp.zeros(shape, dtype)


def dtype(x) -> dtypes.DType:
    """The element type of ``x``: a Tensor's dtype, or the dtype numpy gives a value."""
    if isinstance(x, Tensor):
        return x.dtype
    return dtypes.dtype(np.result_type(x))


@library()
def index_take(src, idxs, axes) -> Tensor:
    """``src`` indexed at the points ``idxs`` (one 1-d index array per axis of ``axes``): shape
    ``(N, *the other dims)``, as lax's gather-based index_take."""
    x = _tensor(src)
    axes = [_axis(a, x.ndim, "index_take") for a in axes]
    if len(idxs) != len(axes):
        raise _error(f"sg.lax.index_take: {len(idxs)} index arrays for {len(axes)} axes")
    moved = snp.moveaxis(x, axes, list(range(len(axes))))
    return moved[tuple(_tensor(i) for i in idxs)]


# -- reductions and scans ----------------------------------------------------------
@library()
def reduce_xor(operand, axes) -> Tensor:
    """The bitwise xor (logical for bools) of ``operand`` over ``axes`` (stablehlo.reduce)."""
    return _reduce.reduce(_tensor(operand), "xor", tuple(axes))


@library()
def cumlogsumexp(operand, axis: int = 0, reverse: bool = False) -> Tensor:
    """The running log(sum(exp(x))) along ``axis`` (from the end with ``reverse``), computed by
    associative_scan with logaddexp, so no running sum overflows."""
    x = _tensor(operand)
    return associative_scan(snp.logaddexp, x, reverse=reverse, axis=_axis(axis, x.ndim, "cumlogsumexp"))


def _top(operand, k: int, reduction_dimension: int, largest: bool, who: str):
    x = _tensor(operand)
    axis = _axis(reduction_dimension, x.ndim, who)
    if not 0 <= k <= x.shape[axis]:
        raise _error(f"sg.lax.{who}: k = {k} must be in [0, {x.shape[axis]}] for dim {axis} of {x.type}")
    if largest:
        return top_k(x, k, axis)
    if x.dtype.is_floating:  # the largest of -x, in the total order jax sorts by (-0 < +0)
        values, indices = top_k(-x, k, axis)
        return -values, indices
    order = snp.argsort(x, axis=axis, stable=True)
    index = [slice(None)] * x.ndim
    index[axis] = slice(0, k)
    idx = order[tuple(index)]
    return snp.take_along_axis(x, idx, axis=axis), idx.astype(dtypes.int32)


@library()
def approx_max_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):  # fmt: skip
    """The ``k`` largest values along ``reduction_dimension`` and their indices. Exact on every
    platform here (jax is exact on CPU and GPU too; TPUs approximate), so ``recall_target`` and the
    size override only exist for lax's signature."""
    return _top(operand, k, reduction_dimension, True, "approx_max_k")


@library()
def approx_min_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):  # fmt: skip
    """The ``k`` smallest values along ``reduction_dimension`` and their indices (exact; see
    approx_max_k), equal values in index order."""
    return _top(operand, k, reduction_dimension, False, "approx_min_k")


# -- integer arithmetic -------------------------------------------------------------
def _high_words_u64(a: Tensor, b: Tensor) -> Tensor:
    """The high 64 bits of the 128-bit product of two uint64 Tensors, from 32-bit halves."""
    low = np.uint64(0xFFFFFFFF)
    shift = np.uint64(32)
    a_lo, a_hi, b_lo, b_hi = a & low, a >> shift, b & low, b >> shift
    p0, p1, p2, p3 = a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi
    mid = (p0 >> shift) + (p1 & low) + (p2 & low)
    return p3 + (p1 >> shift) + (p2 >> shift) + (mid >> shift)


@library()
def mulhi(x, y) -> Tensor:
    """The high half of the double-width product of two integers of one dtype, elementwise (signed
    dtypes: of the signed product). 8- to 32-bit products are formed in 64 bits; 64-bit ones from
    32-bit halves, with the two's complement correction for signed operands."""
    x, y = _tensor(x), _tensor(y)
    if x.dtype is not y.dtype or not x.dtype.is_integer:
        raise _error(f"sg.lax.mulhi wants two integer operands of one dtype, got {x.type} and {y.type}")
    bits, signed = x.dtype.bits, x.dtype.kind == "i"
    if bits < 64:
        wide = dtypes.int64 if signed else dtypes.uint64
        product = x.astype(wide) * y.astype(wide)
        return (product >> np.asarray(bits, wide.np)).astype(x.dtype)
    if not signed:
        return _high_words_u64(x, y)
    ux, uy = bitcast_convert(x, dtypes.uint64), bitcast_convert(y, dtypes.uint64)
    zero = np.uint64(0)
    high = _high_words_u64(ux, uy) - snp.where(x < 0, uy, zero) - snp.where(y < 0, ux, zero)
    return bitcast_convert(high, dtypes.int64)


# -- shape arithmetic ---------------------------------------------------------------
def _window_out(size: int, window: int, stride: int, lo: int, hi: int, dilation: int = 1, base: int = 1):
    padded = (size - 1) * base + 1 + lo + hi
    span = (window - 1) * dilation + 1
    return 0 if padded < span else (padded - span) // stride + 1


def _pads(padding, in_spatial, window, strides) -> list:
    if isinstance(padding, str):
        return padtype_to_pads(in_spatial, window, strides, padding)
    return [tuple(p) for p in padding]


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count: int = 1) -> tuple:
    """The output shape of a convolution in NC.../OI... layout with explicit ``pads`` (or a name)."""
    pads = _pads(pads, lhs_shape[2:], rhs_shape[2:], strides)
    spatial = tuple(
        _window_out(n, w, s, lo, hi) for n, w, s, (lo, hi) in zip(lhs_shape[2:], rhs_shape[2:], strides, pads)
    )
    return (lhs_shape[0] // batch_group_count, rhs_shape[0], *spatial)


def conv_general_permutations(dimension_numbers) -> tuple:
    """The (lhs, rhs, out) permutations that the spec strings of ``dimension_numbers`` stand for."""
    lhs, rhs, out = dimension_numbers
    return tuple(conv_dimension_numbers(tuple(range(len(lhs))), tuple(range(len(rhs))), (lhs, rhs, out)))


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers) -> tuple:
    """The output shape of conv_general_dilated (no dilation) in ``dimension_numbers``' layout."""
    spec = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lhs = tuple(lhs_shape[i] for i in spec.lhs_spec)
    rhs = tuple(rhs_shape[i] for i in spec.rhs_spec)
    canonical = conv_shape_tuple(lhs, rhs, window_strides, padding)
    out = [0] * len(canonical)
    for position, dim in enumerate(spec.out_spec):
        out[dim] = canonical[position]
    return tuple(out)


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers) -> tuple:
    """The output shape of conv_transpose: ``(in - 1) * stride - window + 2`` plus the padding's
    total per spatial dim, where "SAME"/"VALID" mean conv_transpose's own pads for them."""
    spec = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lhs = tuple(lhs_shape[i] for i in spec.lhs_spec)
    rhs = tuple(rhs_shape[i] for i in spec.rhs_spec)
    if isinstance(padding, str):
        pads = [transpose_pads(w, s, padding) for w, s in zip(rhs[2:], window_strides)]
    else:
        pads = [tuple(p) for p in padding]
    spatial = tuple(
        (n - 1) * s - w + 2 + lo + hi for n, w, s, (lo, hi) in zip(lhs[2:], rhs[2:], window_strides, pads)
    )
    canonical = (lhs[0], rhs[0], *spatial)
    out = [0] * len(canonical)
    for position, dim in enumerate(spec.out_spec):
        out[dim] = canonical[position]
    return tuple(out)


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None) -> tuple:  # fmt: skip
    """The output shape of reduce_window with explicit (lo, hi) ``padding`` pairs."""
    n = len(operand_shape)
    base = base_dilation or (1,) * n
    dil = window_dilation or (1,) * n
    return tuple(
        _window_out(s, w, st, lo, hi, d, b)
        for s, w, st, (lo, hi), d, b in zip(
            operand_shape, window_dimensions, window_strides, padding, dil, base
        )
    )


__all__ = [
    "broadcast_shapes", "broadcast_like", "broadcast_to_rank", "collapse", "stack", "unstack", "split", "tile",
    "empty", "dtype", "index_take", "reduce_xor", "cumlogsumexp",
    "approx_max_k", "approx_min_k", "mulhi", "conv_shape_tuple", "conv_general_permutations", "conv_general_shape_tuple",
    "conv_transpose_shape_tuple", "reduce_window_shape_tuple",
]  # fmt: skip
