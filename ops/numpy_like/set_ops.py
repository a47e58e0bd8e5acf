"""Sets and searching in sorted data: unique (and the array API's unique_*), isin,
intersect1d, union1d, setdiff1d, setxor1d, searchsorted, digitize, bincount (ops layer).

How many unique elements an array has is known only when the graph runs, so,
as in jax.numpy, these take a static ``size=``: the first ``size`` results,
padded with ``fill_value``. Each one sorts, marks the first element of every
run of equal values, and scatters the marked ones to their rank.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...graph import Tensor, dtypes
from ..primitives.compare import convert
from ..primitives.constants import iota
from ..primitives.sort import sort as prim_sort
from .core import asarray, error
from .creation import full, zeros
from .indexing import take
from .manipulation import concatenate, flip, ravel, reshape
from .reductions import any as reduce_any
from .reductions import sum as reduce_sum
from .sorting import cumsum
from .ufuncs import equal, isnan, less, less_equal, logical_and, logical_not, logical_or, logical_xor, where

_INDEX = dtypes.int32


def _need_size(what: str, size) -> None:
    if size is None:
        raise error(
            f"{what}'s result length depends on the data: pass a static size=n to get the first n "
            "results padded with fill_value (as jax.numpy under jit)"
        )
    if not isinstance(size, int) or size < 0:
        raise error(f"{what} wants size to be a non-negative int, got {size!r}")


def _runs(x, equal_nan: bool = True):
    """(sorted values, original positions, True at the first element of each run of equals)."""
    flat = ravel(x)
    n = flat.shape[0]
    s, order = prim_sort((flat, iota(_INDEX, (n,))), 0, is_stable=True)
    if n == 0:
        return s, order, convert(s, dtypes.bool_)
    same = equal(s[1:], s[:-1])
    if equal_nan and s.dtype.is_inexact:
        same = logical_or(same, logical_and(isnan(s[1:]), isnan(s[:-1])))
    first = concatenate([asarray([True]), logical_not(same)])
    return s, order, first


def _compact(values, mask, size: int, fill_value):
    """The elements of ``values`` where ``mask`` holds, in order, in ``size`` slots, padded with
    ``fill_value`` (by default the first kept element, the smallest)."""
    slot = where(mask, cumsum(mask, dtype=_INDEX) - 1, size)  # dropped: aimed past the end
    if fill_value is None:
        fill_value = values[0] if values.shape[0] else 0
    out = full((size,), asarray(fill_value, values.dtype), values.dtype)
    return out.at[slot].set(values), slot


class UniqueAll(NamedTuple):
    values: Tensor
    indices: Tensor
    inverse_indices: Tensor
    counts: Tensor


class UniqueCounts(NamedTuple):
    values: Tensor
    counts: Tensor


class UniqueInverse(NamedTuple):
    values: Tensor
    inverse_indices: Tensor


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan: bool = True, size=None, fill_value=None, sorted: bool = True):  # noqa: A002  # fmt: skip
    """The sorted unique elements of ``ar`` (flattened), in ``size`` slots padded with
    ``fill_value`` (default: the smallest element). ``return_index``: where each first occurs;
    ``return_inverse``: each element's slot (ar's shape); ``return_counts``: how often each occurs
    (0 in padding)."""
    if axis is not None:
        raise error("unique supports axis=None only (the flattened array)")
    _need_size("unique", size)
    x = asarray(ar)
    s, order, first = _runs(x, equal_nan)
    values, slot = _compact(s, first, size, fill_value)
    out = [values]
    if return_index:
        out.append(zeros((size,), _INDEX).at[slot].set(order))
    if return_inverse:
        rank = cumsum(first, dtype=_INDEX) - 1
        inverse = zeros(s.shape, _INDEX).at[order].set(rank)
        out.append(reshape(inverse, x.shape))
    if return_counts:
        rank = cumsum(first, dtype=_INDEX) - 1
        out.append(zeros((size,), _INDEX).at[rank].add(asarray(1, _INDEX)))
    return out[0] if len(out) == 1 else tuple(out)


def unique_values(x, *, size=None, fill_value=None):
    """The sorted unique elements (the array API's unique_values)."""
    return unique(x, size=size, fill_value=fill_value)


def unique_counts(x, *, size=None, fill_value=None):
    """(values, counts) of the unique elements."""
    return UniqueCounts(*unique(x, return_counts=True, size=size, fill_value=fill_value))


def unique_inverse(x, *, size=None, fill_value=None):
    """(values, inverse_indices): inverse_indices has x's shape."""
    return UniqueInverse(*unique(x, return_inverse=True, size=size, fill_value=fill_value))


def unique_all(x, *, size=None, fill_value=None):
    """(values, indices, inverse_indices, counts) of the unique elements."""
    return UniqueAll(*unique(x, True, True, True, size=size, fill_value=fill_value))


def isin(element, test_elements, assume_unique: bool = False, invert: bool = False, *, method="auto"):
    """True where an element of ``element`` occurs in ``test_elements`` (compares every pair)."""
    e = asarray(element)
    t = ravel(asarray(test_elements))
    hit = reduce_any(equal(reshape(e, (*e.shape, 1)), t), axis=-1)
    return logical_not(hit) if invert else hit


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """The sorted unique elements of both arrays (``size=`` slots)."""
    _need_size("union1d", size)
    s, _, first = _runs(concatenate([ravel(asarray(ar1)), ravel(asarray(ar2))]))
    return _compact(s, first, size, fill_value)[0]


def intersect1d(ar1, ar2, assume_unique: bool = False, return_indices: bool = False, *, size=None,
                fill_value=None):  # fmt: skip
    """The sorted unique elements found in both arrays (``size=`` slots)."""
    if return_indices:
        raise error("intersect1d(return_indices=True) is not supported")
    _need_size("intersect1d", size)
    s, _, first = _runs(asarray(ar1))
    return _compact(s, logical_and(first, isin(s, ar2)), size, fill_value)[0]


def setdiff1d(ar1, ar2, assume_unique: bool = False, *, size=None, fill_value=None):
    """The sorted unique elements of ``ar1`` not in ``ar2`` (``size=`` slots, padded with 0 by default)."""
    _need_size("setdiff1d", size)
    s, _, first = _runs(asarray(ar1))
    return _compact(
        s, logical_and(first, isin(s, ar2, invert=True)), size, 0 if fill_value is None else fill_value
    )[0]


def setxor1d(ar1, ar2, assume_unique: bool = False, *, size=None, fill_value=None):
    """The sorted unique elements in exactly one of the arrays (``size=`` slots)."""
    _need_size("setxor1d", size)
    a, b = ravel(asarray(ar1)), ravel(asarray(ar2))
    s, _, first = _runs(concatenate([a, b]))
    return _compact(s, logical_and(first, logical_xor(isin(s, a), isin(s, b))), size, fill_value)[0]


def searchsorted(a, v, side: str = "left", sorter=None, *, method: str = "compare_all"):
    """int32 positions that keep 1-d sorted ``a`` sorted if each ``v`` were inserted before them
    ('left') or after equal elements ('right'). NaN counts as larger than every number."""
    if side not in ("left", "right"):
        raise error(f"searchsorted wants side 'left' or 'right', got {side!r}")
    s = asarray(a)
    if s.ndim != 1:
        raise error(f"searchsorted wants a 1-d sorted array, got {s.type}")
    if sorter is not None:
        s = take(s, sorter)
    q = asarray(v)
    col = reshape(q, (*q.shape, 1))
    before = less(s, col) if side == "left" else less_equal(s, col)
    if s.dtype.is_inexact and not s.dtype.is_complex:
        nan_q = isnan(col)
        before = where(nan_q, logical_not(isnan(s)) if side == "left" else asarray(True), before)
    return reduce_sum(before, axis=-1, dtype=_INDEX)


def digitize(x, bins, right: bool = False, *, method=None):
    """Index of the bin of each ``x``: bins[i-1] <= x < bins[i] (``right``: bins[i-1] < x <= bins[i]);
    ``bins`` may increase or decrease."""
    b = asarray(bins)
    if b.ndim != 1:
        raise error(f"digitize wants 1-d bins, got {b.type}")
    side = "left" if right else "right"
    up = searchsorted(b, x, side=side)
    down = b.shape[0] - searchsorted(flip(b, 0), x, side=side)
    if b.shape[0] < 2:
        return up
    return where(less_equal(b[0], b[-1]), up, down)


def bincount(x, weights=None, minlength: int = 0, *, length=None):
    """How often each non-negative int occurs in ``x`` (1-d), or the summed ``weights``; the result
    has ``length`` entries (a static int; from ``minlength`` and data known at build time
    otherwise). Values past the end are dropped, as in jax.numpy."""
    if length is None:
        if isinstance(x, Tensor):
            raise error(
                "bincount of a Tensor needs a static length=n (its largest value is known only at run time)"
            )
        length = max(int(np.max(x, initial=-1)) + 1, minlength)
    xs = asarray(x)
    if xs.ndim != 1 or not xs.dtype.is_integer:
        raise error(f"bincount wants a 1-d integer array, got {xs.type}")
    length = max(int(length), int(minlength))
    xs = where(less(xs, 0), length, xs)  # negative values are dropped like those past the end
    if weights is None:
        return zeros((length,), _INDEX).at[xs].add(asarray(1, _INDEX))
    w = asarray(weights)
    return zeros((length,), w.dtype).at[xs].add(w)


__all__ = [
    "bincount", "digitize", "intersect1d", "isin", "searchsorted", "setdiff1d", "setxor1d", "union1d", "unique",
    "unique_all", "unique_counts", "unique_inverse", "unique_values",
]  # fmt: skip
