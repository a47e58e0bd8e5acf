"""Order statistics and moments: quantile, percentile, median (and nan* forms),
average, cov, corrcoef (ops layer).

Quantiles sort along the axis (NaN sorts last) and read the two neighbours of
each position with take_along_axis, so they differentiate through sort and
gather. The nan* forms place each quantile among the non-NaN elements only.
"""

from __future__ import annotations

import numpy as np

from ...graph import Tensor, dtypes
from ..primitives.compare import convert
from . import math_ufuncs
from .core import asarray, error, normalize_axes, result_dtype
from .indexing import take_along_axis
from .linalg_products import matmul
from .manipulation import broadcast_to, clip, concatenate, expand_dims, moveaxis, reshape, squeeze, transpose
from .reductions import any as reduce_any
from .reductions import sum as reduce_sum
from .sorting import sort
from .ufuncs import (
    add,
    ceil,
    equal,
    floor,
    greater_equal,
    isnan,
    logical_not,
    maximum,
    multiply,
    round,
    sqrt,
    subtract,
    true_divide,
    where,
)  # fmt: skip

_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def _float(dt: dtypes.DType) -> dtypes.DType:
    return dt if dt.is_inexact else (dtypes.float64 if dt.bits == 64 else dtypes.float32)


def _last_axes(x, axis):
    """x with the reduced axes merged into one last axis, and the kept shape for keepdims."""
    axes = normalize_axes(axis, x.ndim)
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = transpose(x, rest + list(axes)) if axes else x
    merged = reshape(moved, tuple(x.shape[i] for i in rest) + (-1,))
    kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    return merged, kept


def _quantile(a, q, axis, method, keepdims, skip_nan: bool, what: str):
    if method not in (*_METHODS, "median"):
        raise error(f"{what} wants method in {_METHODS}, got {method!r}")
    x = asarray(a)
    dt = _float(result_dtype(x, q) if isinstance(q, Tensor) else x.dtype)
    x = convert(x, dt)
    if not isinstance(q, Tensor):
        qa = np.asarray(q, dtype=float)
        if ((qa < 0) | (qa > 1)).any():
            raise error(f"{what} wants q in [0, 1] (percentiles in [0, 100]), got {q!r}")
    qt = asarray(q, dt) if not isinstance(q, Tensor) else convert(q, dt)
    xs, kept = _last_axes(x, axis)
    xs = sort(xs, axis=-1)
    n = xs.shape[-1]
    if n == 0:
        raise error(f"{what} of an empty slice has no answer, got {x.type}")
    valid = reduce_sum(convert(logical_not(isnan(xs)), dt), axis=-1, keepdims=True) if skip_nan else None
    last = subtract(valid, 1) if skip_nan else asarray(n - 1, dt)
    qflat = reshape(qt, (-1,))
    pos = multiply(broadcast_to(qflat, (*xs.shape[:-1], qflat.shape[0])), maximum(last, 0))
    out = _interpolate(xs, pos, method, n)
    if skip_nan:
        out = where(equal(valid, 0), asarray(np.nan, dt), out)
    elif dt.is_inexact:
        out = where(reduce_any(isnan(xs), axis=-1, keepdims=True), asarray(np.nan, dt), out)
    out = reshape(out, (*xs.shape[:-1], *qt.shape))
    if keepdims:
        out = reshape(out, (*kept, *qt.shape)) if kept else out
    return (
        moveaxis(out, tuple(range(out.ndim - qt.ndim, out.ndim)), tuple(range(qt.ndim))) if qt.ndim else out
    )


def _interpolate(xs, pos, method: str, n: int):
    lo_f, hi_f = floor(pos), ceil(pos)
    lo = convert(clip(lo_f, 0, n - 1), dtypes.int32)
    hi = convert(clip(hi_f, 0, n - 1), dtypes.int32)
    below, above = take_along_axis(xs, lo, -1), take_along_axis(xs, hi, -1)
    if method == "lower":
        return below
    if method == "higher":
        return above
    if method == "midpoint":
        return multiply(add(below, above), 0.5)
    if method == "median":  # numpy's median: the middle element, or the mean of the middle two
        return where(equal(lo, hi), below, multiply(add(below, above), 0.5))
    if method == "nearest":
        near = convert(clip(round(pos), 0, n - 1), dtypes.int32)
        return take_along_axis(xs, near, -1)
    # numpy's lerp: from the nearer end, so an infinite end stays itself (-inf, 1 at 3/4 is -inf,
    # not -inf + inf) and equal ends keep their sign (-0 and -0 give -0)
    frac = subtract(pos, lo_f)
    span = subtract(above, below)
    upper = greater_equal(frac, 0.5)
    return where(upper, subtract(above, multiply(span, subtract(1, frac))), add(below, multiply(span, frac)))


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    """The q-th quantiles (q in [0, 1], a number, array or Tensor) of ``a`` over ``axis``.

    Result shape: q's shape, then the reduced shape. NaN anywhere in a slice gives NaN.
    ``method``: linear (default), lower, higher, nearest, midpoint.
    """
    _no_out(out, "quantile")
    return _quantile(a, q, axis, method, keepdims, False, "quantile")


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    """quantile over the non-NaN elements (NaN for an all-NaN slice)."""
    _no_out(out, "nanquantile")
    return _quantile(a, q, axis, method, keepdims, True, "nanquantile")


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    """quantile with q in percent, [0, 100]."""
    _no_out(out, "percentile")
    return _quantile(a, _percent(q), axis, method, keepdims, False, "percentile")


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False):
    """nanquantile with q in percent."""
    _no_out(out, "nanpercentile")
    return _quantile(a, _percent(q), axis, method, keepdims, True, "nanpercentile")


def _percent(q):
    return true_divide(q, 100) if isinstance(q, Tensor) else np.asarray(q, dtype=float) / 100


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The middle value over ``axis`` (mean of the two middle ones for an even count)."""
    _no_out(out, "median")
    return _quantile(a, 0.5, axis, "median", keepdims, False, "median")


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """median over the non-NaN elements."""
    _no_out(out, "nanmedian")
    return _quantile(a, 0.5, axis, "median", keepdims, True, "nanmedian")


def _no_out(out, what: str) -> None:
    if out is not None:
        raise error(f"{what} cannot write into out=: graph values are immutable; use the result")


def average(a, axis=None, weights=None, returned: bool = False, keepdims: bool = False):
    """Weighted mean over ``axis``: sum(a * w) / sum(w). 1-d ``weights`` run along one axis.
    ``returned`` also gives the sum of the weights."""
    x = asarray(a)
    if weights is None:
        dt = _float(x.dtype)
        axes = normalize_axes(axis, x.ndim)
        total = reduce_sum(convert(x, dt), axis=axis, keepdims=keepdims)
        count = int(np.prod([x.shape[i] for i in axes])) if axes else 1
        avg = true_divide(total, count)
        return (avg, broadcast_to(asarray(count, dt), avg.shape)) if returned else avg
    w = asarray(weights)
    dt = _float(result_dtype(x, w))
    x, w = convert(x, dt), convert(w, dt)
    if w.shape != x.shape:
        if axis is None or not isinstance(axis, int) or w.ndim != 1:
            raise error(f"average wants weights of a's shape {x.shape}, or 1-d weights with an int axis")
        ax = axis % x.ndim
        if w.shape[0] != x.shape[ax]:
            raise error(f"average: weights of length {w.shape[0]} do not match axis {axis} of {x.type}")
        w = reshape(w, tuple(w.shape[0] if i == ax else 1 for i in range(x.ndim)))
        w = broadcast_to(w, x.shape)
    scale = reduce_sum(w, axis=axis, keepdims=keepdims)
    avg = true_divide(reduce_sum(multiply(x, w), axis=axis, keepdims=keepdims), scale)
    return (avg, broadcast_to(scale, avg.shape)) if returned else avg


def cov(m, y=None, rowvar: bool = True, bias: bool = False, ddof=None, fweights=None, aweights=None):
    """Covariance matrix of the variables in ``m`` (rows, or columns when ``rowvar=False``),
    with optional frequency and analytic weights, like numpy."""
    x = asarray(m)
    if x.ndim > 2:
        raise error(f"cov wants a 1-d or 2-d array, got {x.type}")
    dt = _float(result_dtype(x, y) if y is not None else x.dtype)
    x = convert(x if x.ndim == 2 else reshape(x, (1, -1)), dt)
    if not rowvar and x.shape[0] != 1:
        x = transpose(x)
    if y is not None:
        yt = convert(asarray(y), dt)
        yt = yt if yt.ndim == 2 else reshape(yt, (1, -1))
        if not rowvar and yt.shape[0] != 1:
            yt = transpose(yt)
        x = concatenate([x, yt], axis=0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    w = None
    for given in (fweights, aweights):
        if given is not None:
            wt = convert(asarray(given), dt)
            w = wt if w is None else multiply(w, wt)
    n_obs = x.shape[1]
    if w is None:
        avg = true_divide(reduce_sum(x, axis=1, keepdims=True), n_obs)
        fact = asarray(n_obs - ddof, _real(dt))
        xw = subtract(x, avg)
    else:
        v1 = reduce_sum(w)
        avg = true_divide(reduce_sum(multiply(x, w), axis=1, keepdims=True), v1)
        if aweights is None:
            fact = subtract(v1, ddof)
        else:
            aw = convert(asarray(aweights), dt)
            fact = subtract(v1, true_divide(multiply(ddof, reduce_sum(multiply(w, aw))), v1))
        xw = multiply(subtract(x, avg), w)
    centered = subtract(x, avg)
    c = true_divide(matmul(xw, transpose(_conj(centered))), maximum(fact, 0) if not dt.is_complex else fact)
    return squeeze(c) if c.shape == (1, 1) else c


def _real(dt):
    return {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}.get(dt, dt)


def _conj(x):
    return math_ufuncs.conj(x) if x.dtype.is_complex else x


def corrcoef(x, y=None, rowvar: bool = True):
    """Pearson correlation coefficients: cov normalized by the standard deviations, clipped to [-1, 1]."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return true_divide(c, c)
    n = c.shape[0]
    d = take_along_axis(c, reshape(asarray(np.arange(n), dtypes.int32), (n, 1)), 1)
    d = reshape(d, (n,))
    std = sqrt(d)
    out = true_divide(true_divide(c, expand_dims(std, 1)), expand_dims(std, 0))
    return out if c.dtype.is_complex else clip(out, -1, 1)


__all__ = [
    "average", "corrcoef", "cov", "median", "nanmedian", "nanpercentile", "nanquantile", "percentile",
    "quantile",
]  # fmt: skip
