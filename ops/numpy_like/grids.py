"""Index grids, diagonals and spaced ranges: indices, meshgrid, ix_, diag, diagflat, the
*_indices families, kron, geomspace, logspace, fromfunction (ops layer).

Index sets that depend only on static sizes (tril_indices, diag_indices, ...)
are int32 constants computed when the graph is built; the rest are iota,
broadcasts and elementwise ops.
"""

from __future__ import annotations

import math

import numpy as np

from ...graph import dtypes
from ..custom_jvp import custom_jvp
from ..primitives.compare import convert
from ..primitives.constants import iota
from ..primitives.elementwise import stop_gradient
from . import creation
from .core import asarray, broadcast_to, error
from .creation import linspace
from .indexing import take
from .manipulation import moveaxis, ravel, reshape, stack
from .math_ufuncs import frexp, ldexp, log10
from .ufuncs import (
    absolute,
    add,
    exp,
    floor,
    greater,
    greater_equal,
    isinf,
    isnan,
    less,
    less_equal,
    log,
    logical_and,
    logical_or,
    multiply,
    negative,
    power,
    sign,
    sqrt,
    subtract,
    true_divide,
    where,
)

_LN2 = math.log(2.0)


def indices(dimensions, dtype=dtypes.int32, sparse: bool = False):
    """An array (or, ``sparse``, a tuple of broadcastable arrays) whose i-th entry holds
    each element's index along axis i."""
    dims = tuple(dimensions)
    dt = dtypes.dtype(dtype)
    if sparse:
        return tuple(
            reshape(iota(dt, (n,)), tuple(n if j == i else 1 for j in range(len(dims))))
            for i, n in enumerate(dims)
        )
    if not dims:
        return reshape(iota(dt, (0,)), (0,))
    return stack([iota(dt, dims, i) for i in range(len(dims))])


def meshgrid(*xi, copy: bool = True, sparse: bool = False, indexing: str = "xy"):
    """Coordinate arrays from 1-d coordinate vectors; 'xy' (default) swaps the first two axes
    like numpy, 'ij' keeps matrix order."""
    if indexing not in ("xy", "ij"):
        raise error(f"meshgrid wants indexing 'xy' or 'ij', got {indexing!r}")
    xs = [ravel(asarray(x)) for x in xi]
    shape = [x.shape[0] for x in xs]
    if indexing == "xy" and len(xs) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, x in enumerate(xs):
        ax = i
        if indexing == "xy" and len(xs) > 1 and i < 2:
            ax = 1 - i
        local = tuple(x.shape[0] if j == ax else 1 for j in range(len(xs)))
        y = reshape(x, local)
        out.append(y if sparse else broadcast_to(y, tuple(shape)))
    return out


def ix_(*args):
    """Open mesh from 1-d sequences: arg i reshaped to have its length on axis i."""
    out = []
    for i, a in enumerate(args):
        x = asarray(a)
        if x.ndim != 1:
            raise error(f"ix_ wants 1-d sequences, got {x.type} for argument {i}")
        if x.dtype.kind == "b":
            raise error("ix_ with boolean masks needs nonzero, whose size is data-dependent; pass indices")
        out.append(reshape(x, tuple(x.shape[0] if j == i else 1 for j in range(len(args)))))
    return tuple(out)


def diag(v, k: int = 0):
    """1-d ``v``: a square matrix with v on the k-th diagonal. 2-d ``v``: its k-th diagonal."""
    x = asarray(v)
    if x.ndim == 1:
        n = x.shape[0] + abs(k)
        rows, cols = np.nonzero(np.eye(n, k=k, dtype=bool))
        source = np.full((n, n), x.shape[0], np.int32)  # one past the end: filled with zero below
        source[rows, cols] = np.arange(len(rows))
        return take(x, source, mode="fill", fill_value=0)
    if x.ndim == 2:
        n, m = x.shape
        rows, cols = np.nonzero(np.eye(n, m, k=k, dtype=bool))
        return take(ravel(x), (rows * m + cols).astype(np.int32))
    raise error(f"diag wants a 1-d or 2-d array, got {x.type}")


def diagflat(v, k: int = 0):
    """A matrix with the flattened ``v`` on the k-th diagonal."""
    return diag(ravel(asarray(v)), k)


def _constant_indices(arrays):
    return tuple(asarray(np.asarray(a, np.int32)) for a in arrays)


def diag_indices(n: int, ndim: int = 2):
    """The indices of the main diagonal of an n x ... x n array: ndim copies of arange(n)."""
    return _constant_indices([np.arange(n)] * ndim)


def diag_indices_from(arr):
    """diag_indices for ``arr``, whose dims must all be equal."""
    x = asarray(arr)
    if x.ndim < 2 or len(set(x.shape)) != 1:
        raise error(f"diag_indices_from wants an array of rank >= 2 with equal dims, got {x.type}")
    return diag_indices(x.shape[0], x.ndim)


def tril_indices(n: int, k: int = 0, m=None):
    """Row and column indices of the lower triangle (at and below diagonal k) of an (n, m) array."""
    return _constant_indices(np.nonzero(np.tri(n, m, k, dtype=bool)))


def triu_indices(n: int, k: int = 0, m=None):
    """Row and column indices of the upper triangle (at and above diagonal k)."""
    return _constant_indices(np.nonzero(~np.tri(n, m, k - 1, dtype=bool)))


def _last2(arr, what):
    x = asarray(arr)
    if x.ndim != 2:
        raise error(f"{what} wants a 2-d array, got {x.type}")
    return x.shape


def tril_indices_from(arr, k: int = 0):
    """tril_indices for the shape of 2-d ``arr``."""
    n, m = _last2(arr, "tril_indices_from")
    return tril_indices(n, k, m)


def triu_indices_from(arr, k: int = 0):
    """triu_indices for the shape of 2-d ``arr``."""
    n, m = _last2(arr, "triu_indices_from")
    return triu_indices(n, k, m)


def mask_indices(n: int, mask_func, k: int = 0):
    """Indices where ``mask_func(ones((n, n)), k)`` is nonzero; the mask must be computable when
    the graph is built (numpy functions such as np.triu, or snp.triu / snp.tril)."""
    host = {creation.triu: np.triu, creation.tril: np.tril}.get(mask_func, mask_func)
    mask = host(np.ones((n, n), np.int32), k)
    if not isinstance(mask, np.ndarray):
        raise error(
            "mask_indices needs a mask known when the graph is built: pass np.triu/np.tril or snp.triu/tril"
        )
    return _constant_indices(np.nonzero(mask))


def kron(a, b):
    """Kronecker product: blocks a[i] * b, the result's shape a.shape * b.shape (ranks padded with 1s)."""
    x, y = asarray(a), asarray(b)
    d = max(x.ndim, y.ndim)
    xs = (1,) * (d - x.ndim) + tuple(x.shape)
    ys = (1,) * (d - y.ndim) + tuple(y.shape)
    xe = reshape(x, tuple(v for n in xs for v in (n, 1)))
    ye = reshape(y, tuple(v for n in ys for v in (1, n)))
    return reshape(multiply(xe, ye), tuple(p * q for p, q in zip(xs, ys)))


def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None, axis: int = 0):
    """base ** linspace(start, stop): numbers spaced evenly on a log scale."""
    y = linspace(start, stop, num, endpoint=endpoint, axis=axis)
    out = power(asarray(base, y.dtype), y)
    return out if dtype is None else convert(out, dtypes.dtype(dtype))


def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0):
    """Numbers spaced evenly on a log scale between ``start`` and ``stop`` themselves (a
    geometric progression): ``sign * logspace(log10(|start|), log10(|stop|))`` with the ends
    exact, as numpy computes it. Ends of opposite signs or at 0 give NaN (numpy refuses them).

    Float32 (and narrower) progressions are computed in float64 and rounded: 10 ** y multiplies
    the rounding of y (up to 38) by y ln 10, 40 float32 ulps, and 10 ** log10(max) overflows.

    The derivatives are written out (a custom jvp): the term y = s |start|^(1-t) |stop|^t has
    dy/dstart = (1 - t) (|stop| / |start|)^t and dy/dstop = t (|start| / |stop|)^(1-t), the ratios'
    powers taken as 10 ** of a difference of logs. The chain rule through 10 ** y overflowed
    (d/dstop inf at (max, max), true 2), flushed (d/dstart 1 at (tiny, tiny), true 2) and turned
    the second derivatives' -inf at the smallest normal into +inf."""
    lo, hi = asarray(start), asarray(stop)
    given = lo.dtype if lo.dtype.is_floating else dtypes.float32
    work = dtypes.float64 if given in (dtypes.float16, dtypes.bfloat16, dtypes.float32) else given
    lo, hi = convert(lo, work), convert(hi, work)
    if num > 0:
        shape = np.broadcast_shapes(tuple(lo.shape), tuple(hi.shape))
        lo, hi = broadcast_to(lo, shape), broadcast_to(hi, shape)
        out = _progression(int(num), endpoint)(lo, hi)
    else:
        sgn = sign(lo)
        exponent = linspace(log10(true_divide(lo, sgn)), log10(true_divide(hi, sgn)), num, endpoint=endpoint)
        out = multiply(power(asarray(10.0, work), exponent), sgn)
    out = convert(out, given)
    if axis != 0:
        out = moveaxis(out, 0, axis)
    return out if dtype is None else convert(out, dtypes.dtype(dtype))


def _progression(num: int, endpoint: bool):
    """(start, stop) -> the ``num`` terms along a new axis 0, with the custom jvp of geomspace."""

    def ends(lo, hi):
        """(is index 0 an exact end, is index num - 1 one, t per term, log10 |start|, log10 |stop|)."""
        sgn = sign(lo)
        log_lo, log_hi = log10(true_divide(lo, sgn)), log10(true_divide(hi, sgn))
        index = reshape(iota(dtypes.int32, (num,)), (num,) + (1,) * lo.ndim)
        defined = logical_and(greater(multiply(lo, sgn), 0), greater(multiply(hi, sgn), 0))
        first = logical_and(index == 0, defined)
        last = logical_and(index == num - 1, defined) if endpoint and num > 1 else index < 0
        t = linspace(asarray(0.0, lo.dtype), asarray(1.0, lo.dtype), num, endpoint=endpoint)
        return sgn, first, last, reshape(t, (num,) + (1,) * lo.ndim), log_lo, log_hi

    def value(lo, hi):
        sgn, first, last, _, log_lo, log_hi = ends(lo, hi)
        end = logical_or(first, last)
        # 10 ** the linspace of logs: numpy's, and its inf and nan where an end is infinite, 0 or of
        # the other sign; the exact ends' exponents are 0, so no 10 ** overflows in their slots
        exponent = where(end, 0.0, linspace(log_lo, log_hi, num, endpoint=endpoint))
        by_logs = multiply(power(asarray(10.0, lo.dtype), exponent), sgn)
        top, bottom = absolute(hi), absolute(lo)
        finite = logical_and(less(top, np.inf), less(bottom, np.inf))
        defined = logical_and(greater(multiply(lo, sgn), 0), greater(multiply(hi, sgn), 0))
        split = logical_and(finite, defined)  # per pair of ends; the terms lie between them
        term = _split_progression(where(split, bottom, 1.0), where(split, top, 1.0), num, endpoint)
        return where(first, lo, where(last, hi, where(split, multiply(term, sgn), by_logs)))

    f = custom_jvp(value)

    @f.defjvp
    def _jvp(primals, tangents):
        (lo, hi), (t_lo, t_hi) = primals, tangents
        _, first, last, t, log_lo, log_hi = ends(lo, hi)
        # the exact ends' slopes are 1 and 0; their slots' general terms see stand-ins (ends 1, t = 1/2),
        # so no 0 * inf reaches the second derivatives where a ratio's power overflows
        end = logical_or(first, last)
        t = where(end, 0.5, t)
        lo_s, hi_s = where(end, 1.0, lo), where(end, 1.0, hi)
        log_lo_s, log_hi_s = where(end, 0.0, log_lo), where(end, 0.0, log_hi)
        # (|stop| / |start|)^t: the value by power of a ratio of the ends (10 ** of t times a difference
        # of logs of 308 keeps an ulp of each: 80 ulps at (1, max), 1.6e-14 where start == stop); the
        # derivatives from the logs (through the ratio they would pass a huge or tiny 1 / ratio)
        ten = asarray(10.0, lo.dtype)

        def moving(v):
            """0 with the derivatives of log10 |end| (0 where that is infinite, as 1 / (inf ln 10))."""
            v = where(isinf(v), 0.0, v)
            return subtract(v, stop_gradient(v))

        def ratio_power(p, top, bottom, log_top, log_bottom):
            """(top / bottom)^p: its value by _ratio_power, its derivatives that value times those of
            10 ** (p log10 |top / bottom|), read as value * 10 ** (0 + p (d log10 |top| - d log10 |bottom|))."""
            value = _ratio_power(p, top, bottom, log_top, log_bottom)
            return multiply(
                stop_gradient(value), power(ten, multiply(p, subtract(moving(log_top), moving(log_bottom))))
            )

        d_lo = multiply(subtract(1.0, t), ratio_power(t, hi_s, lo_s, log_hi_s, log_lo_s))
        d_hi = multiply(t, ratio_power(subtract(1.0, t), lo_s, hi_s, log_lo_s, log_hi_s))
        # ends at 0 or of opposite signs: the terms are NaN, and so are their derivatives of every
        # order (a factor, not a where, whose derivative would be 0)
        sgn = sign(lo)
        undefined = logical_or(less_equal(multiply(lo, sgn), 0), less_equal(multiply(hi, sgn), 0))
        guard = where(logical_or(undefined, isnan(add(lo, hi))), np.nan, 1.0)
        d_lo = multiply(where(first, 1.0, where(last, 0.0, d_lo)), guard)
        d_hi = multiply(where(first, 0.0, where(last, 1.0, d_hi)), guard)
        return f(lo, hi), add(multiply(d_lo, t_lo), multiply(d_hi, t_hi))

    return f


def _split_progression(bottom, top, num: int, endpoint: bool):
    """bottom^(1 - t) top^t (t = k / (num - 1), or k / num without the endpoint) for finite positive
    ends, along a new axis 0, within an ulp or two: the ends split into mantissas and powers of two,
    bottom = m 2^e, top = n 2^f; the power of two 2^(e + k (f - e) / num') is taken apart exactly into
    2^(e + q) 2^(r / num') (k (f - e) = q num' + r, whole numbers), and the rest is one exp of
    (1 - t) log m + t log n + (r / num') log 2, an argument below 1 whose rounding stays an ulp.
    10 ** a linspace of logs of 205 rounds 1e-16 of it into 100 ulps ((tiny, 2)'s second term), and
    a power of the ends' ratio as much (XLA's pow is exp(p log x))."""
    steps = float(max(num - 1 if endpoint else num, 1))
    m, e = frexp(bottom)
    n, f = frexp(top)
    k = reshape(convert(iota(dtypes.int32, (num,)), bottom.dtype), (num,) + (1,) * bottom.ndim)
    span = multiply(k, convert(subtract(f, e), bottom.dtype))  # a whole number, exact
    q = floor(true_divide(span, steps))
    r = subtract(span, multiply(q, steps))
    t = true_divide(k, steps)
    rest = add(
        add(multiply(subtract(1.0, t), log(m)), multiply(t, log(n))), multiply(true_divide(r, steps), _LN2)
    )
    return ldexp(exp(rest), add(e, convert(q, dtypes.int32)))


def _ratio_power(p, top, bottom, log_top, log_bottom):
    """(|top| / |bottom|)^p by power of the ratio, of its inverse, or of the ratio of square roots
    (one of them is a normal number for finite nonzero ends; else 10 ** of p times the logs'
    difference): 10 ** of p times a difference of logs of 308 keeps an ulp of each (80 ulps at
    (1, max), 1.6e-14 where the ends are equal)."""
    value = power(asarray(10.0, p.dtype), multiply(p, subtract(log_top, log_bottom)))
    roots = (sqrt(absolute(top)), sqrt(absolute(bottom)))
    candidates = (
        (true_divide(roots[1], roots[0]), multiply(-2.0, p)),
        (true_divide(roots[0], roots[1]), multiply(2.0, p)),
        (true_divide(bottom, top), negative(p)),
        (true_divide(top, bottom), p),
    )
    for ratio, q in candidates:  # the later (fewer roundings) win where they are normal
        normal = logical_and(greater_equal(ratio, np.finfo(np.float64).tiny), less(ratio, np.inf))
        value = where(normal, power(where(normal, ratio, 1.0), q), value)
    return value


def fromfunction(function, shape, *, dtype=dtypes.float32, **kwargs):
    """``function(*coords, **kwargs)``, where coords[i] holds each element's index along axis i
    (as ``dtype``)."""
    return function(*(iota(dtypes.dtype(dtype), tuple(shape), i) for i in range(len(shape))), **kwargs)


__all__ = [
    "diag", "diag_indices", "diag_indices_from", "diagflat", "fromfunction", "geomspace", "indices", "ix_",
    "kron", "logspace", "mask_indices", "meshgrid", "tril_indices", "tril_indices_from", "triu_indices",
    "triu_indices_from",
]  # fmt: skip
