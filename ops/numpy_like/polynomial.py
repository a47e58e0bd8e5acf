"""numpy's polynomial functions on coefficient arrays, highest power first: polyval, poly,
polyadd, polysub, polymul, polyder, polyint, polydiv, polyfit, roots, vander (ops layer).

Coefficient counts must be static (they fix result shapes); the coefficients
themselves may be Tensors. polyfit solves least squares with snp.linalg.lstsq,
roots takes the eigenvalues of the companion matrix (snp.linalg.eigvals).
"""

from __future__ import annotations

import numpy as np

from ...graph import dtypes
from ..primitives.compare import convert
from ..primitives.constants import iota
from .calculus import convolve
from .core import asarray, error, result_dtype
from .creation import zeros
from .manipulation import concatenate, expand_dims, flip, ravel, reshape, stack
from .reductions import sum as reduce_sum
from .ufuncs import add, multiply, power, sqrt, subtract, true_divide


def _coefficients(p, what: str):
    c = asarray(p)
    if c.ndim != 1:
        raise error(f"{what} wants a 1-d coefficient array, got {c.type}")
    return c


def polyval(p, x, *, unroll: int = 16):  # unroll: jax.numpy's knob; Horner is always unrolled here
    """p[0] * x**(n-1) + ... + p[n-1] at ``x``, by Horner's rule (n multiply-adds)."""
    c = _coefficients(p, "polyval")
    xs = asarray(x)
    dt = result_dtype(c, xs)
    c, xs = convert(c, dt), convert(xs, dt)
    y = zeros(xs.shape, dt)
    for i in range(c.shape[0]):
        y = add(multiply(y, xs), c[i])
    return y


def _pad_front(c, n: int):
    short = n - c.shape[0]
    return c if short <= 0 else concatenate([zeros((short,), c.dtype), c])


def polyadd(a1, a2):
    """Sum of two polynomials (the shorter padded at the front)."""
    a, b = _coefficients(a1, "polyadd"), _coefficients(a2, "polyadd")
    dt = result_dtype(a, b)
    n = max(a.shape[0], b.shape[0])
    return add(_pad_front(convert(a, dt), n), _pad_front(convert(b, dt), n))


def polysub(a1, a2):
    """Difference of two polynomials."""
    a, b = _coefficients(a1, "polysub"), _coefficients(a2, "polysub")
    dt = result_dtype(a, b)
    n = max(a.shape[0], b.shape[0])
    return subtract(_pad_front(convert(a, dt), n), _pad_front(convert(b, dt), n))


def polymul(a1, a2, *, trim_leading_zeros: bool = False):
    """Product of two polynomials (their coefficients convolved)."""
    return convolve(_coefficients(a1, "polymul"), _coefficients(a2, "polymul"))


def _powers(n: int, dt):
    """n-1, ..., 1, 0 as ``dt``."""
    return convert(flip(iota(dtypes.int32, (n,)), 0), dt)


def polyder(p, m: int = 1):
    """The m-th derivative's coefficients."""
    if m < 0:
        raise error(f"polyder wants m >= 0, got {m}")
    c = _coefficients(p, "polyder")
    for _ in range(m):
        n = c.shape[0]
        if n <= 1:
            return zeros((0,), c.dtype) if n == 0 else multiply(c[:0], 0)
        c = multiply(c[:-1], _powers(n, c.dtype)[:-1])
    return c


def polyint(p, m: int = 1, k=None):
    """The m-th antiderivative's coefficients; ``k`` gives the integration constants (0 by default)."""
    if m < 0:
        raise error(f"polyint wants m >= 0, got {m}")
    c = _coefficients(p, "polyint")
    dt = c.dtype if c.dtype.is_inexact else dtypes.float32
    c = convert(c, dt)
    ks = np.zeros(m) if k is None else np.broadcast_to(np.asarray(k, float), (m,))
    for j in range(m):
        n = c.shape[0]
        c = concatenate([true_divide(c, add(_powers(n, dt), 1)), asarray([ks[j]], dt)])
    return c


def polydiv(u, v, *, trim_leading_zeros: bool = False):
    """(quotient, remainder) of dividing polynomial ``u`` by ``v`` (long division, unrolled)."""
    a, b = _coefficients(u, "polydiv"), _coefficients(v, "polydiv")
    dt = result_dtype(a, b)
    dt = dt if dt.is_inexact else dtypes.float32
    a, b = convert(a, dt), convert(b, dt)
    n, m = a.shape[0], b.shape[0]
    if m > n:
        return zeros((1,), dt), a
    lead = b[0]
    quotient = []
    rem = a
    for i in range(n - m + 1):
        q = true_divide(rem[i], lead)
        quotient.append(q)
        shift = (
            concatenate([zeros((i,), dt), multiply(b, q), zeros((n - m - i,), dt)])
            if n > m
            else multiply(b, q)
        )
        rem = subtract(rem, shift)
    return stack(quotient), rem


def vander(x, N=None, increasing: bool = False):  # noqa: N803
    """The Vandermonde matrix: columns x**(N-1), ..., x**0 (or rising with ``increasing``)."""
    xs = asarray(x)
    if xs.ndim != 1:
        raise error(f"vander wants a 1-d array, got {xs.type}")
    n = xs.shape[0] if N is None else int(N)
    exps = iota(dtypes.int32, (n,))
    if not increasing:
        exps = flip(exps, 0)
    base = expand_dims(xs, 1)
    return power(base, convert(exps, xs.dtype))


def polyfit(x, y, deg: int, rcond=None, full: bool = False, w=None, cov=False):
    """Least-squares polynomial fit of degree ``deg``: the coefficients, highest power first
    (columns of ``y`` fit separately). Solved with snp.linalg.lstsq on a column-scaled
    Vandermonde matrix."""
    if full or cov:
        raise error("polyfit supports full=False and cov=False only")
    xs, ys = asarray(x), asarray(y)
    dt = result_dtype(xs, ys)
    dt = dt if dt.is_inexact else dtypes.float32
    xs, ys = convert(xs, dt), convert(ys, dt)
    lhs = vander(xs, deg + 1)
    rhs = ys
    if w is not None:
        wt = convert(asarray(w), dt)
        lhs = multiply(lhs, expand_dims(wt, 1))
        rhs = multiply(rhs, wt if rhs.ndim == 1 else expand_dims(wt, 1))
    scale = sqrt(reduce_sum(multiply(lhs, lhs), axis=0))  # equal column norms condition the solve
    from .linalg import lstsq  # noqa: PLC0415  (snp.linalg loads on first use)

    solution = lstsq(true_divide(lhs, scale), rhs, rcond=rcond)[0]
    return true_divide(solution, scale if solution.ndim == 1 else expand_dims(scale, 1))


def poly(seq_of_zeros):
    """Coefficients of the monic polynomial with the given roots (1-d), highest power first."""
    r = asarray(seq_of_zeros)
    if r.ndim != 1:
        raise error(
            f"poly wants a 1-d sequence of roots (a matrix's characteristic polynomial is not supported), got {r.type}"
        )
    dt = r.dtype if r.dtype.is_inexact else dtypes.float32
    c = asarray([1.0], dt)
    for i in range(r.shape[0]):
        c = convolve(c, concatenate([asarray([1.0], dt), reshape(-convert(r[i], dt), (1,))]))
    return c


def roots(p, *, strip_zeros: bool = True):
    """The roots of polynomial ``p`` (complex): eigenvalues of its companion matrix. Leading zero
    coefficients must be absent (their count would change the result's length)."""
    c = ravel(_coefficients(p, "roots"))
    n = c.shape[0]
    if n < 2:
        return zeros((0,), dtypes.complex64)
    dt = c.dtype if c.dtype.is_inexact else dtypes.float32
    c = convert(c, dt)
    top = reshape(true_divide(-c[1:], c[0]), (1, n - 1))
    below = np.eye(n - 2, n - 1, dtype=dt.np)
    companion = concatenate([top, asarray(below, dt)], axis=0) if n > 2 else top
    from .linalg import eigvals  # noqa: PLC0415  (snp.linalg loads on first use)

    return eigvals(companion)


__all__ = [
    "poly", "polyadd", "polyder", "polydiv", "polyfit", "polyint", "polymul", "polysub", "polyval", "roots",
    "vander",
]  # fmt: skip
