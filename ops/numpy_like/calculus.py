"""Differences, sums and interpolation of samples: diff, ediff1d, gradient, trapezoid,
unwrap, interp, convolve, correlate (ops layer).

All are slices and elementwise ops (convolve: a scatter-add of the outer
product onto its anti-diagonals), so they differentiate and vectorize like
the primitives they are made of.
"""

from __future__ import annotations

import numpy as np

from ...graph import dtypes
from ..primitives import slicing
from ..primitives.compare import convert
from ..primitives.constants import iota
from .core import asarray, error, normalize_axis, result_dtype
from .creation import zeros
from .indexing import take
from .manipulation import broadcast_to, clip, concatenate, expand_dims, flip, ravel, reshape
from .math_ufuncs import conj
from .reductions import sum as reduce_sum
from .set_ops import searchsorted
from .sorting import argsort, cumsum
from .ufuncs import (
    absolute,
    add,
    equal,
    greater,
    less,
    logical_and,
    multiply,
    remainder,
    subtract,
    true_divide,
    where,
)  # fmt: skip


def _cut(x, ax: int, start: int, stop: int):
    starts = [0] * x.ndim
    starts[ax] = start
    limits = list(x.shape)
    limits[ax] = stop
    return slicing.slice(x, starts, limits)


def diff(a, n: int = 1, axis: int = -1, prepend=None, append=None):
    """The n-th discrete difference a[i+1] - a[i] along ``axis`` (booleans: not-equal)."""
    x = asarray(a)
    if x.ndim == 0:
        raise error("diff wants an array of rank >= 1, got a 0-d array")
    ax = normalize_axis(axis, x.ndim)
    if n < 0:
        raise error(f"diff wants n >= 0, got {n}")
    pieces = []
    for extra in (prepend, None, append):
        if extra is None and pieces and pieces[-1] is x:
            continue
        if extra is None:
            pieces.append(x)
            continue
        e = asarray(extra)
        if e.ndim == 0:
            e = reshape(e, (1,) * x.ndim)
            e = broadcast_to(e, tuple(1 if i == ax else d for i, d in enumerate(x.shape)))
        pieces.append(e)
    if len(pieces) > 1:
        x = concatenate(pieces, axis=ax)
    for _ in range(n):
        m = x.shape[ax]
        hi, lo = _cut(x, ax, 1, m), _cut(x, ax, 0, max(m - 1, 0))
        x = hi != lo if x.dtype.kind == "b" else subtract(hi, lo)
    return x


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of the flattened array, with optional values before and after."""
    d = diff(ravel(asarray(ary)))
    pieces = [ravel(asarray(p, d.dtype)) for p in (to_begin,) if p is not None]
    pieces.append(d)
    pieces += [ravel(asarray(p, d.dtype)) for p in (to_end,) if p is not None]
    return concatenate(pieces) if len(pieces) > 1 else d


def _float(dt):
    return dt if dt.is_inexact else (dtypes.float64 if dt.bits == 64 else dtypes.float32)


def gradient(f, *varargs, axis=None, edge_order: int = 1):
    """Central differences inside, one-sided differences at the ends, along each axis (a list
    when there are several). Spacing: one scalar, one per axis, or coordinate arrays."""
    x = asarray(f)
    x = convert(x, _float(x.dtype))
    axes = list(range(x.ndim)) if axis is None else [normalize_axis(a, x.ndim) for a in np.atleast_1d(axis)]
    if edge_order != 1:
        raise error(f"gradient supports edge_order=1 only, got {edge_order}")
    spacing = list(varargs) if len(varargs) != 1 else list(varargs) * len(axes)
    if not spacing:
        spacing = [1.0] * len(axes)
    if len(spacing) != len(axes):
        raise error(f"gradient wants 0, 1 or {len(axes)} spacings, got {len(varargs)}")
    out = [_gradient_1(x, ax, h) for ax, h in zip(axes, spacing)]
    return out[0] if len(out) == 1 else out


def _gradient_1(x, ax: int, h):
    n = x.shape[ax]
    if n < 2:
        raise error(f"gradient needs at least 2 samples along axis {ax}, got {x.type}")
    head = subtract(_cut(x, ax, 1, 2), _cut(x, ax, 0, 1))
    tail = subtract(_cut(x, ax, n - 1, n), _cut(x, ax, n - 2, n - 1))
    h = asarray(h)
    if h.ndim == 0:
        h = convert(h, x.dtype)
        inner = true_divide(subtract(_cut(x, ax, 2, n), _cut(x, ax, 0, n - 2)), multiply(h, 2))
        return concatenate([true_divide(head, h), inner, true_divide(tail, h)], axis=ax)

    def along(t):  # a 1-d array of spacings lined up with ``ax``
        return reshape(t, tuple(-1 if i == ax else 1 for i in range(x.ndim)))

    d = diff(convert(h, x.dtype))  # uneven coordinates: second-order weights of three neighbours
    d1, d2 = along(d[:-1]), along(d[1:])
    w0 = true_divide(-d2, multiply(d1, add(d1, d2)))
    w1 = true_divide(subtract(d2, d1), multiply(d1, d2))
    w2 = true_divide(d1, multiply(d2, add(d1, d2)))
    inner = add(add(multiply(w0, _cut(x, ax, 0, n - 2)), multiply(w1, _cut(x, ax, 1, n - 1))),
                multiply(w2, _cut(x, ax, 2, n)))  # fmt: skip
    return concatenate([true_divide(head, along(d[:1])), inner, true_divide(tail, along(d[-1:]))], axis=ax)


def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    """Integral of ``y`` along ``axis`` by the trapezoidal rule (sample points ``x`` or spacing ``dx``)."""
    t = asarray(y)
    t = convert(t, _float(t.dtype))
    ax = normalize_axis(axis, t.ndim)
    n = t.shape[ax]
    mid = multiply(add(_cut(t, ax, 1, n), _cut(t, ax, 0, n - 1)), 0.5)
    if x is None:
        return multiply(reduce_sum(mid, axis=ax), dx)
    d = diff(asarray(x), axis=-1)
    if d.ndim == 1:
        d = reshape(d, tuple(-1 if i == ax else 1 for i in range(t.ndim)))
    return reduce_sum(multiply(mid, d), axis=ax)


def unwrap(p, discont=None, axis: int = -1, period=2 * np.pi):
    """``p`` with jumps larger than ``discont`` (period/2 by default) along ``axis`` undone by
    adding multiples of ``period``."""
    x = asarray(p)
    x = convert(x, _float(x.dtype))
    ax = normalize_axis(axis, x.ndim)
    half = period / 2
    discont = half if discont is None else max(discont, half)
    d = diff(x, axis=ax)
    wrapped = subtract(remainder(add(d, half), period), half)
    wrapped = where(logical_and(equal(wrapped, -half), greater(d, 0)), asarray(half, x.dtype), wrapped)
    correction = subtract(wrapped, d)
    correction = where(less(absolute(d), discont), asarray(0, x.dtype), correction)
    start = zeros(tuple(1 if i == ax else s for i, s in enumerate(x.shape)), x.dtype)
    out = add(x, concatenate([start, cumsum(correction, axis=ax)], axis=ax))
    first = equal(iota(dtypes.int32, x.shape, ax), 0)
    return where(first, x, out)  # the first element as it is (-0 + 0 would be +0), as numpy


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of points (xp, fp) (xp increasing) at ``x``; ``left`` /
    ``right`` beyond the ends (fp's end values by default); ``period`` for periodic xp."""
    q, xs, fs = asarray(x), asarray(xp), asarray(fp)
    if xs.ndim != 1 or fs.ndim != 1 or xs.shape != fs.shape:
        raise error(f"interp wants 1-d xp and fp of one length, got {xs.type} and {fs.type}")
    dt = _float(result_dtype(q, xs, fs))
    q, xs, fs = convert(q, dt), convert(xs, dt), convert(fs, dt)
    if period is not None:
        q = remainder(q, period)
        xs = remainder(xs, period)
        order = argsort(xs)
        xs, fs = take(xs, order), take(fs, order)
        xs = concatenate([xs[-1:] - period, xs, xs[:1] + period])
        fs = concatenate([fs[-1:], fs, fs[:1]])
    n = xs.shape[0]
    i = clip(searchsorted(xs, q, side="right"), 1, n - 1)
    x0, x1 = take(xs, i - 1), take(xs, i)
    f0, f1 = take(fs, i - 1), take(fs, i)
    dx = subtract(x1, x0)
    same = equal(dx, 0)
    slope = true_divide(subtract(f1, f0), where(same, asarray(1, dt), dx))
    out = where(same, f0, add(f0, multiply(slope, subtract(q, x0))))
    if period is None:
        out = where(less(q, xs[0]), asarray(fs[0] if left is None else left, dt), out)
        out = where(greater(q, xs[-1]), asarray(fs[-1] if right is None else right, dt), out)
    return out


def _full_convolution(a, v):
    n, m = a.shape[0], v.shape[0]
    rows = np.arange(n)[:, None] + np.arange(m)[None, :]
    outer = multiply(expand_dims(a, 1), expand_dims(v, 0))
    return zeros((n + m - 1,), outer.dtype).at[ravel(asarray(rows.astype(np.int32)))].add(ravel(outer))


def convolve(a, v, mode: str = "full", *, precision=None, preferred_element_type=None):
    """Discrete linear convolution of two 1-d arrays; mode 'full', 'same' or 'valid' as numpy."""
    x, y = asarray(a), asarray(v)
    if x.ndim != 1 or y.ndim != 1:
        raise error(f"convolve wants 1-d arrays, got {x.type} and {y.type}")
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise error("convolve of an empty array is not defined")
    dt = result_dtype(x, y)
    x, y = convert(x, dt), convert(y, dt)
    full = _full_convolution(x, y)
    n, m = x.shape[0], y.shape[0]
    if mode == "full":
        return full
    short, long_ = min(n, m), max(n, m)
    if mode == "same":
        start = (short - 1) // 2
        return full[start : start + long_]
    if mode == "valid":
        return full[short - 1 : long_]
    raise error(f"convolve wants mode 'full', 'same' or 'valid', got {mode!r}")


def correlate(a, v, mode: str = "valid", *, precision=None, preferred_element_type=None):
    """Cross-correlation of two 1-d arrays: sum_n a[n + k] * conj(v[n]), numpy's modes."""
    x, y = asarray(a), asarray(v)
    if y.ndim == 1 and x.ndim == 1 and y.shape[0] > x.shape[0]:  # numpy: the swapped correlation, reversed
        return conj(flip(correlate(y, x, mode), 0))
    return convolve(x, flip(conj(y), 0), mode)


__all__ = ["convolve", "correlate", "diff", "ediff1d", "gradient", "interp", "trapezoid", "unwrap"]
