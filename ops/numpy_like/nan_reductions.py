"""Reductions that skip NaN, and ptp (ops layer).

Each nan* function replaces NaN by the reduction's neutral value, reduces, and
(for mean, var, min, max) counts the non-NaN elements, so an all-NaN slice gives
NaN like numpy. Integer and bool input has no NaN: the plain reduction runs.
"""

from __future__ import annotations

import numpy as np

from ...graph import dtypes
from ..primitives.compare import convert
from .core import asarray, error, normalize_axes
from .creation import full
from .manipulation import concatenate
from .reductions import max as reduce_max
from .reductions import mean, prod, std, var
from .reductions import min as reduce_min
from .reductions import sum as reduce_sum
from .sorting import argmax, argmin, cumprod, cumsum
from .ufuncs import absolute, equal, isnan, logical_not, maximum, multiply, sqrt, subtract, true_divide, where


def _has_nan(x) -> bool:
    return x.dtype.is_inexact


def _filled(x, value):
    return where(isnan(x), asarray(value, x.dtype), x)


def nansum(a, axis=None, dtype=None, keepdims: bool = False):
    """Sum treating NaN as 0."""
    x = asarray(a)
    return reduce_sum(_filled(x, 0) if _has_nan(x) else x, axis=axis, dtype=dtype, keepdims=keepdims)


def nanprod(a, axis=None, dtype=None, keepdims: bool = False):
    """Product treating NaN as 1."""
    x = asarray(a)
    return prod(_filled(x, 1) if _has_nan(x) else x, axis=axis, dtype=dtype, keepdims=keepdims)


def _valid_count(x, axis, keepdims, dt):
    return reduce_sum(convert(logical_not(isnan(x)), dt), axis=axis, keepdims=keepdims)


def _extremum(reduce, fill: float, what: str):
    def fn(a, axis=None, keepdims: bool = False):
        x = asarray(a)
        if not _has_nan(x):
            return reduce(x, axis=axis, keepdims=keepdims)
        if x.dtype.is_complex:
            raise error(f"{what} of complex input is not supported, got {x.type}")
        out = reduce(_filled(x, fill), axis=axis, keepdims=keepdims)
        none = equal(_valid_count(x, axis, keepdims, dtypes.int32), 0)
        return where(none, asarray(np.nan, x.dtype), out)

    fn.__name__ = what
    fn.__doc__ = f"{what[3:].capitalize()} ignoring NaN; an all-NaN slice gives NaN."
    return fn


nanmax = _extremum(reduce_max, -np.inf, "nanmax")
nanmin = _extremum(reduce_min, np.inf, "nanmin")


def nanmean(a, axis=None, dtype=None, keepdims: bool = False):
    """Mean of the non-NaN elements (NaN for an all-NaN slice)."""
    x = asarray(a)
    if not _has_nan(x):
        return mean(x, axis=axis, dtype=dtype, keepdims=keepdims)
    dt = dtypes.dtype(dtype) if dtype is not None else x.dtype
    total = nansum(convert(x, dt), axis=axis, keepdims=keepdims)
    return true_divide(total, _valid_count(x, axis, keepdims, _real(dt)))


def _real(dt):
    return {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}.get(dt, dt)


def nanvar(a, axis=None, dtype=None, ddof: int = 0, keepdims: bool = False):
    """Variance of the non-NaN elements, divided by (count - ddof); real for complex input."""
    x = asarray(a)
    if not _has_nan(x):
        return var(x, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    dt = dtypes.dtype(dtype) if dtype is not None else x.dtype
    x = convert(x, dt)
    valid = logical_not(isnan(x))
    x = where(valid, x, asarray(0, dt))  # NaN never enters the arithmetic, nor its gradient
    centered = subtract(x, nanmean(where(valid, x, asarray(np.nan, dt)), axis=axis, keepdims=True))
    mag = absolute(centered) if dt.is_complex else centered
    sq = where(valid, multiply(mag, mag), asarray(0, mag.dtype))
    total = reduce_sum(sq, axis=axis, keepdims=keepdims)
    n = reduce_sum(convert(valid, _real(dt)), axis=axis, keepdims=keepdims)
    return true_divide(total, maximum(subtract(n, ddof), 0))


def nanstd(a, axis=None, dtype=None, ddof: int = 0, keepdims: bool = False):
    """Standard deviation of the non-NaN elements."""
    x = asarray(a)
    if not _has_nan(x):
        return std(x, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    return sqrt(nanvar(x, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims))


def _nan_arg(arg, fill: float, what: str):
    def fn(a, axis=None, keepdims: bool = False):
        x = asarray(a)
        if not _has_nan(x):
            return arg(x, axis=axis, keepdims=keepdims)
        out = arg(_filled(x, fill), axis=axis, keepdims=keepdims)
        none = equal(_valid_count(x, axis, keepdims, dtypes.int32), 0)
        return where(none, asarray(-1, out.dtype), out)

    fn.__name__ = what
    fn.__doc__ = f"{what[3:]} ignoring NaN (int32); an all-NaN slice gives -1, as jax.numpy does."
    return fn


nanargmax = _nan_arg(argmax, -np.inf, "nanargmax")
nanargmin = _nan_arg(argmin, np.inf, "nanargmin")


def nancumsum(a, axis=None, dtype=None):
    """Running sum treating NaN as 0."""
    x = asarray(a)
    return cumsum(_filled(x, 0) if _has_nan(x) else x, axis=axis, dtype=dtype)


def nancumprod(a, axis=None, dtype=None):
    """Running product treating NaN as 1."""
    x = asarray(a)
    return cumprod(_filled(x, 1) if _has_nan(x) else x, axis=axis, dtype=dtype)


def ptp(a, axis=None, keepdims: bool = False):
    """max - min over ``axis`` (peak to peak)."""
    x = asarray(a)
    normalize_axes(axis, x.ndim)
    return subtract(reduce_max(x, axis=axis, keepdims=keepdims), reduce_min(x, axis=axis, keepdims=keepdims))


def cumulative_sum(x, axis=None, dtype=None, include_initial: bool = False):
    """Running sum (the array API's spelling): ``axis`` may be None only for 1-d input;
    ``include_initial`` starts with a 0."""
    return _cumulative_api(x, axis, dtype, include_initial, cumsum, 0, "cumulative_sum")


def cumulative_prod(x, axis=None, dtype=None, include_initial: bool = False):
    """Running product (the array API's spelling); ``include_initial`` starts with a 1."""
    return _cumulative_api(x, axis, dtype, include_initial, cumprod, 1, "cumulative_prod")


def _cumulative_api(x, axis, dtype, include_initial, run, initial, what):
    x = asarray(x)
    if axis is None:
        if x.ndim > 1:
            raise error(f"{what} wants an axis for input of rank {x.ndim}, got axis=None ({x.type})")
        axis = 0
    if x.ndim == 0:
        raise error(f"{what} wants an array of rank >= 1, got {x.type}")
    out = run(x, axis=axis, dtype=dtype)
    if not include_initial:
        return out
    ax = axis % x.ndim
    start_shape = tuple(1 if i == ax else d for i, d in enumerate(out.shape))
    return concatenate([full(start_shape, initial, out.dtype), out], axis=ax)


__all__ = [
    "cumulative_prod", "cumulative_sum", "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax",
    "nanmean", "nanmin", "nanprod", "nanstd", "nansum", "nanvar", "ptp",
]  # fmt: skip
