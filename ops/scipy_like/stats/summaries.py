"""Sample summaries: mode, rankdata, sem (ops layer).

As jax.scipy.stats: ``axis=None`` works on the flattened array; mode gives
the smallest of the most frequent values and its count (int32), rankdata
the ranks 1..n as floats (the input's float dtype, float32 for integers;
nan for every entry of a slice holding a nan), sem the standard error of
the mean ``std(a, ddof) / sqrt(n)``. mode and rankdata sort once along the
axis (a stable argsort) and find the runs of equal values with cumulative
max/min over the sorted positions, so they cost O(n log n), not a
comparison of every pair; only ``nan_policy="propagate"`` is supported by
them (as jax), sem also takes ``"omit"``.
"""

from __future__ import annotations

from typing import NamedTuple

from ....graph import dtypes, library
from ... import lax
from ... import numpy_like as snp
from ...numpy_like.core import asarray, error
from ._common import const, floats

_RANK_METHODS = ("average", "min", "max", "dense", "ordinal")


class ModeResult(NamedTuple):
    mode: object
    count: object


def _to_last(a, axis, name: str):
    """``a`` with the reduced axis last (flattened for axis=None) and the normalized axis (None kept)."""
    if axis is None:
        return snp.reshape(a, (-1,)), None
    if a.ndim == 0:
        raise error(f"{name}: axis {axis} is out of bounds for a 0-d array")
    if not -a.ndim <= axis < a.ndim:
        raise error(f"{name}: axis {axis} is out of bounds for an array of {a.ndim} dimensions")
    axis = axis % a.ndim
    return snp.moveaxis(a, axis, -1), axis


def _runs(s, nan_equal: bool = False):
    """For values sorted along the last axis: each position's index, and its run of equal values' first
    and last index (int32). ``nan_equal``: nans (sorted last) make one run, as scipy's mode counts them."""
    n = s.shape[-1]
    idx = snp.broadcast_to(snp.arange(n, dtype=dtypes.int32), s.shape)
    differs = s[..., 1:] != s[..., :-1]
    if nan_equal:
        differs = differs & ~(snp.isnan(s[..., 1:]) & snp.isnan(s[..., :-1]))
    true = snp.ones(s.shape[:-1] + (1,), dtype=dtypes.bool_)
    starts = snp.concatenate([true, differs], axis=-1)
    ends = snp.concatenate([differs, true], axis=-1)
    first = lax.cummax(snp.where(starts, idx, 0), axis=s.ndim - 1)
    last = lax.cummin(snp.where(ends, idx, n - 1), axis=s.ndim - 1, reverse=True)
    return idx, first, last, starts


def _check_propagate(name: str, nan_policy: str):
    if nan_policy != "propagate":
        raise error(f'{name}: nan_policy="{nan_policy}" is not supported (only "propagate")')


@library()
def mode(a, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False) -> ModeResult:
    """scipy.stats.mode: the most frequent value along ``axis`` (the smallest of a tie) and its count."""
    _check_propagate("mode", nan_policy)
    a = asarray(a)
    if a.ndim == 0:  # a single value: itself, once
        return ModeResult(a, snp.ones((), dtype=dtypes.int32))
    x, ax = _to_last(a, axis, "mode")
    if x.shape[-1] == 0:
        raise error("mode of an empty axis is undefined")
    s = snp.sort(x, axis=-1)
    _, first, last, _ = _runs(s, nan_equal=s.dtype.is_inexact)
    counts = last - first + 1
    at = snp.argmax(counts, axis=-1, keepdims=True)  # the first, so the smallest value of a tie
    value = snp.take_along_axis(s, at, axis=-1)
    count = snp.take_along_axis(counts, at, axis=-1)
    if keepdims:
        if ax is None:
            shape = (1,) * a.ndim
            return ModeResult(snp.reshape(value, shape), snp.reshape(count, shape))
        return ModeResult(snp.moveaxis(value, -1, ax), snp.moveaxis(count, -1, ax))
    return ModeResult(value[..., 0], count[..., 0])


@library()
def rankdata(a, method: str = "average", *, axis: int | None = None, nan_policy: str = "propagate"):
    """scipy.stats.rankdata: the ranks 1..n of ``a``'s values along ``axis`` (flattened for None), ties
    ranked by ``method``: "average", "min", "max", "dense" (1, 2, ... over the distinct values) or
    "ordinal" (in order of appearance)."""
    _check_propagate("rankdata", nan_policy)
    if method not in _RANK_METHODS:
        raise error(f"rankdata: unknown method {method!r}; expected one of {', '.join(_RANK_METHODS)}")
    a = asarray(a)
    x, ax = _to_last(snp.reshape(a, (1,)) if a.ndim == 0 else a, axis, "rankdata")
    fdt = a.dtype if a.dtype.is_inexact else dtypes.float32
    ft = snp.zeros((), dtype=fdt)  # the float dtype's constants
    if x.shape[-1] == 0:
        return snp.zeros(x.shape if ax is None else a.shape, dtype=fdt)
    order = snp.argsort(x, axis=-1, stable=True)
    s = snp.take_along_axis(x, order, axis=-1)
    idx, first, last, starts = _runs(s)
    one = const(1.0, ft)
    if method == "average":
        ranks = (first + last).astype(fdt) * const(0.5, ft) + one
    elif method == "min":
        ranks = first.astype(fdt) + one
    elif method == "max":
        ranks = last.astype(fdt) + one
    elif method == "dense":
        ranks = snp.cumsum(starts.astype(fdt), axis=-1)
    else:
        ranks = idx.astype(fdt) + one
    out = snp.take_along_axis(ranks, snp.argsort(order, axis=-1), axis=-1)
    if x.dtype.is_inexact:
        has_nan = snp.any(snp.isnan(x), axis=-1, keepdims=True)
        out = snp.where(has_nan, const(float("nan"), out), out)
    return out if ax is None else snp.moveaxis(out, -1, ax)


@library()
def sem(a, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *, keepdims: bool = False):
    """scipy.stats.sem: the standard error of the mean, std(a, ddof) / sqrt(n) along ``axis``
    (n the count of non-nan values for nan_policy="omit")."""
    (a,) = floats(a)
    if nan_policy == "propagate":
        std = snp.std(a, axis=axis, ddof=ddof, keepdims=keepdims)
        n = a.size if axis is None else a.shape[axis]
        return std / snp.sqrt(const(n, std))
    if nan_policy == "omit":
        std = snp.nanstd(a, axis=axis, ddof=ddof, keepdims=keepdims)
        n = snp.sum((~snp.isnan(a)).astype(a.dtype), axis=axis, keepdims=keepdims)
        return std / snp.sqrt(n)
    raise error(f'sem: nan_policy="{nan_policy}" is not supported (only "propagate" and "omit")')


__all__ = ["ModeResult", "mode", "rankdata", "sem"]
