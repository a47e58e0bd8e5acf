"""Orderings and flat indices: lexsort, partition, argpartition, sort_complex, unravel_index,
ravel_multi_index (ops layer).

partition and argpartition sort fully: a sorted array is a valid partition for
every kth, and the sort primitive already differentiates and vectorizes.
"""

from __future__ import annotations

import numpy as np

from ...graph import dtypes
from ..primitives.compare import convert
from ..primitives.constants import iota
from ..primitives.sort import sort as prim_sort
from .core import asarray, error, normalize_axis, result_dtype
from .manipulation import clip
from .sorting import argsort, sort
from .ufuncs import add, floor_divide, multiply, remainder


def lexsort(keys, axis: int = -1):
    """int32 indices sorting by the last key, ties broken by the one before, and so on (stable)."""
    ks = [asarray(k) for k in keys]
    if not ks:
        raise error("lexsort needs at least one key")
    if len({tuple(k.shape) for k in ks}) > 1:
        raise error(f"lexsort wants keys of one shape, got {[str(k.type) for k in ks]}")
    ax = normalize_axis(axis, ks[0].ndim)
    idx = iota(dtypes.int32, ks[0].shape, ax)
    return prim_sort((*reversed(ks), idx), ax, is_stable=True, num_keys=len(ks))[-1]


def _check_kth(x, kth, axis):
    ax = normalize_axis(axis, x.ndim)
    n = x.shape[ax]
    for k in np.atleast_1d(kth):
        if not -n <= int(k) < n:
            raise error(f"kth {int(k)} is out of range for axis {ax} of {x.type}")
    return ax


def partition(a, kth, axis: int = -1):
    """``a`` with the element that belongs at ``kth`` in sorted order there, smaller ones
    before and larger after (here: fully sorted along ``axis``)."""
    x = asarray(a)
    return sort(x, axis=_check_kth(x, kth, axis))


def argpartition(a, kth, axis: int = -1):
    """int32 indices that partition ``a`` around ``kth`` (here: that sort it)."""
    x = asarray(a)
    return argsort(x, axis=_check_kth(x, kth, axis))


def sort_complex(a):
    """``a`` sorted (by real part, then imaginary part) along the last axis, as complex."""
    x = asarray(a)
    dt = x.dtype if x.dtype.is_complex else (dtypes.complex128 if x.dtype.bits == 64 else dtypes.complex64)
    return convert(sort(x, axis=-1), dt)


def unravel_index(indices, shape):
    """The coordinates in an array of ``shape`` of each flat (row-major) index (out-of-range
    indices clipped, as jax.numpy does)."""
    shape = tuple(int(d) for d in shape)
    idx = asarray(indices)
    if not idx.dtype.is_integer:
        raise error(f"unravel_index wants integer indices, got {idx.type}")
    total = int(np.prod(shape))
    idx = clip(idx, -total, total - 1)
    idx = remainder(idx, max(total, 1))
    out = []
    for d in reversed(shape):
        out.append(remainder(idx, d))
        idx = floor_divide(idx, d)
    return tuple(reversed(out))


def ravel_multi_index(multi_index, dims, mode: str = "raise", order: str = "C"):
    """The flat index of coordinates ``multi_index`` in an array of shape ``dims``; mode 'wrap' or
    'clip' bound each coordinate ('raise' cannot check run-time values and clips)."""
    if order not in ("C", "F"):
        raise error(f"ravel_multi_index wants order 'C' or 'F', got {order!r}")
    if mode not in ("raise", "wrap", "clip"):
        raise error(f"ravel_multi_index wants mode 'raise', 'wrap' or 'clip', got {mode!r}")
    dims = tuple(int(d) for d in dims)
    if len(multi_index) != len(dims):
        raise error(f"ravel_multi_index got {len(multi_index)} coordinate arrays for {len(dims)} dims")
    coords = [asarray(c) for c in multi_index]
    dt = result_dtype(*coords)
    axes = range(len(dims)) if order == "C" else reversed(range(len(dims)))
    flat = None
    for i in axes:
        c = convert(coords[i], dt)
        c = remainder(c, dims[i]) if mode == "wrap" else clip(c, 0, dims[i] - 1)
        flat = c if flat is None else add(multiply(flat, dims[i]), c)
    return flat


__all__ = ["argpartition", "lexsort", "partition", "ravel_multi_index", "sort_complex", "unravel_index"]
