"""numpy reads for Tensors: ``x[...]``, take, take_along_axis (ops layer).

The index is read by index_spec.py. Basic indexing costs a rev, a slice and a
reshape; integer arrays add one gather whose result dims follow numpy's rule
(the broadcast index dims replace the indexed dims where those are adjacent,
else they go first). Tensor indices only known at run time are clamped by
reads (StableHLO's gather), as in JAX; ``take`` offers numpy's modes on top.
"""

from __future__ import annotations

import numpy as np

from ...graph import Tensor, dims, dtypes, register_overloads
from ...graph.dims import Dim, is_symbolic
from ..primitives import indexing as prim
from ..primitives import slicing as sl
from ..primitives.compare import convert
from ..primitives.constants import constant, dim_size
from ..primitives.shape import reshape
from .core import asarray, broadcast_shapes, broadcast_to, error, normalize_axis
from .index_spec import (
    IndexEntry,
    array_entry,
    arrays_adjacent,
    classify_index,
    index_array_shape,
    index_dtype,
    parse_index,
    small_ints,
    stack_indices,
    wrap_index,
)
from .ufuncs import add, greater_equal, less, logical_and, maximum, minimum, remainder, where


# -- reading: x[index] ---------------------------------------------------------
def getitem(x, index):
    """``x[index]`` with numpy's rules (basic and advanced indexing); see index_spec.py for the index."""
    x = asarray(x)
    entries = parse_index(x, index)
    if any(e.kind == "new" for e in entries):
        x = reshape(x, _with_new_dims(x.shape, entries))
        entries = [IndexEntry("slice", count=1) if e.kind == "new" else e for e in entries]
    x, entries = _basic(x, entries)
    return _gather_arrays(x, entries) if any(e.kind == "array" for e in entries) else x


def _with_new_dims(shape, entries) -> tuple:
    dims = iter(shape)
    return tuple(1 if e.kind == "new" else next(dims) for e in entries)


def _window(e: IndexEntry, n: Dim):
    """(start, limit, stride) of the static slice that takes entry e (after rev for step < 0)."""
    if e.kind == "int":
        return e.start, e.start + 1, 1
    if e.kind == "array":
        return 0, n, 1
    if e.count == 0:
        return 0, 0, 1
    start, step = (e.start, e.step) if e.step > 0 else (dims.sub(dims.sub(n, 1), e.start), -e.step)
    if e.stop is not None and not isinstance(e.count, int):  # symbolic: cut at the stop itself
        return start, e.stop if e.step > 0 else dims.sub(dims.sub(n, 1), e.stop), step
    return start, dims.add(start, dims.add(dims.mul(dims.sub(e.count, 1), step), 1)), step


def _basic(x: Tensor, entries):
    """Apply the slices and ints with rev/slice/reshape; keeps the array entries for a gather."""
    x = sl.rev(x, [d for d, e in enumerate(entries) if e.kind == "slice" and e.step < 0])
    windows = [_window(e, n) for e, n in zip(entries, x.shape)]
    if any(w != (0, n, 1) for w, n in zip(windows, x.shape)):
        x = sl.slice(x, *zip(*windows))
    kept = [(e, n) for e, n in zip(entries, x.shape) if e.kind != "int"]
    if len(kept) < x.ndim:
        x = reshape(x, tuple(n for _, n in kept))
    return x, [IndexEntry("slice", count=n) if e.kind == "slice" else e for e, n in kept]


def _gather_arrays(x: Tensor, entries) -> Tensor:
    """x indexed by the array entries (one entry per dim; the others take their dim whole)."""
    adv = [d for d, e in enumerate(entries) if e.kind == "array"]
    batch = index_array_shape(entries)
    rest = [d for d in range(x.ndim) if d not in adv]
    adjacent = arrays_adjacent(entries)
    first = adv[0] if adjacent else 0
    offset_dims = [j + (len(batch) if d > first or not adjacent else 0) for j, d in enumerate(rest)]
    return prim.gather(
        x, stack_indices([entries[d].value for d in adv], batch),
        offset_dims=offset_dims, collapsed_slice_dims=adv, start_index_map=adv,
        index_vector_dim=len(batch), slice_sizes=[1 if d in adv else n for d, n in enumerate(x.shape)],
    )  # fmt: skip


# -- take, take_along_axis -----------------------------------------------------
_MODES = (None, "raise", "clip", "wrap", "fill")


def _fill_value(dt: dtypes.DType, fill_value):
    if fill_value is not None:
        return fill_value
    if dt.is_inexact:
        return np.nan
    if dt.kind == "b":
        return True
    return np.iinfo(dt.np).min if dt.kind == "i" else np.iinfo(dt.np).max


def _take_index(a: Tensor, axis: int, indices, mode):
    """(index array, validity mask or None) for reading ``a`` along ``axis`` with ``mode``."""
    if mode not in _MODES:
        raise error(f"mode must be one of {_MODES}, got {mode!r}")
    kind, v = classify_index(indices)
    if kind == "int":
        kind, v = "array", np.asarray(v)
    if kind != "array":
        raise error(f"indices must be an integer array or Tensor, got {indices!r}")
    n = a.shape[axis]
    if isinstance(v, np.ndarray) and not is_symbolic(n):
        if mode in (None, "raise"):
            return array_entry(a, axis, v).value, None
        if mode == "fill":
            valid = (v >= -n) & (v < n)
            return small_ints(np.where(v < 0, v + n, v) * valid), None if valid.all() else constant(valid)
        return small_ints(np.clip(v, 0, n - 1) if mode == "clip" else np.mod(v, max(n, 1))), None
    if mode == "raise":
        raise error("mode='raise' cannot check indices known only at run time; use 'fill', 'clip' or 'wrap'")
    t = convert(asarray(v), index_dtype(v.dtype if isinstance(v, Tensor) else dtypes.dtype(v.dtype)))
    size = dim_size(a, axis, t.dtype)
    if mode == "clip":
        return maximum(minimum(t, add(size, -1)), 0), None
    if mode == "wrap":
        return remainder(t, size), None
    t = wrap_index(t, a, axis)
    return t, logical_and(greater_equal(t, 0), less(t, size))


def take(a, indices, axis=None, mode=None, fill_value=None):
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened ``a`` when None).

    The result has shape ``a.shape[:axis] + indices.shape + a.shape[axis + 1:]``. Negative
    indices count from the end. ``mode``: None checks constant indices like numpy's "raise"
    and treats run-time ones as "fill" (out-of-bounds reads give ``fill_value``: NaN for
    floats, the most negative int, the largest unsigned, True), as JAX does; "clip" and "wrap"
    as numpy. Built from one gather.
    """
    a = asarray(a)
    if axis is None:
        a, axis = reshape(a, (a.size,)), 0
    axis = normalize_axis(int(axis), a.ndim)
    idx, valid = _take_index(a, axis, indices, mode)
    entries = [IndexEntry("slice", count=n) for n in a.shape]
    entries[axis] = IndexEntry("array", value=idx)
    out = _gather_arrays(a, entries)
    if valid is None:
        return out
    rest = a.ndim - axis - 1
    valid = reshape(valid, (1,) * axis + tuple(valid.shape) + (1,) * rest)
    return where(valid, out, asarray(_fill_value(a.dtype, fill_value), a.dtype))


def take_along_axis(arr, indices, axis, mode=None, fill_value=None):
    """``arr`` read at ``indices`` along ``axis``, pairing every other dim (numpy's
    take_along_axis: ``indices`` has arr's rank and broadcasts with it outside ``axis``).

    ``mode`` and ``fill_value`` as in ``take``. One gather with batching dims.
    """
    a = asarray(arr)
    if axis is None:
        a, axis = reshape(a, (a.size,)), 0
    axis = normalize_axis(int(axis), a.ndim)
    ind_shape = tuple(np.shape(indices)) if not isinstance(indices, Tensor) else tuple(indices.shape)
    if len(ind_shape) != a.ndim:
        raise error(f"take_along_axis wants indices of rank {a.ndim} like {a.type}, got shape {ind_shape}")
    outer = broadcast_shapes(_drop(a.shape, axis), _drop(ind_shape, axis))
    a = broadcast_to(a, outer[:axis] + (a.shape[axis],) + outer[axis:])
    idx, valid = _take_index(a, axis, indices, mode)
    target = outer[:axis] + (ind_shape[axis],) + outer[axis:]
    idx = broadcast_to(asarray(idx), target)
    others = [d for d in range(a.ndim) if d != axis]
    out = prim.gather(
        a, idx, offset_dims=(), collapsed_slice_dims=(axis,), start_index_map=(axis,),
        operand_batching_dims=others, start_indices_batching_dims=others, index_vector_dim=a.ndim,
        slice_sizes=(1,) * a.ndim,
    )  # fmt: skip
    if valid is None:
        return out
    return where(valid, out, asarray(_fill_value(a.dtype, fill_value), a.dtype))


def _drop(shape, axis: int) -> tuple:
    return tuple(shape[:axis]) + tuple(shape[axis + 1 :])


__all__ = ["take", "take_along_axis"]

register_overloads({"getitem": getitem})
