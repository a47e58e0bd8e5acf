"""Decimal (60 digits and more) references for the regularized incomplete gamma P(a, x), Q(a, x)
and their slopes, for gammainc / gammaincc (sg.scipy.special) and igamma / igammac / igamma_grad_a
(sg.lax), where scipy's float64 and jax's float64 are off: scipy's gammaincc(0.5, 1 + eps) is 26
ulps off erfc(1), P(2.2e-16, 0.5) = 1 + 2.2e-15 lies above 1, Q(2.2e-16, 1) is 80 ulps off, and
jax's float64 dP/da is 2e-11 off at a = x = 1e4 and 3e-7 at a = x = 1e8.

P is summed by its power series below x = a + 1 and Q by Legendre's continued fraction above, in
Python's decimal arithmetic; the other side is the complement, with digits enough to keep the
complement's own 60 (Q = 1 - P ~ a E1(x) near a = 0 needs 60 + |log10 a| of them). dP/da is a
central difference of the smaller side, whose relative precision the difference keeps. Only
0 < a, x <= 1e8 (normal numbers) are computed here; elsewhere (edges, nan, off the domain) the
value reference is scipy's and the slope reference nan, which hands the point to jax's value.
"""

from __future__ import annotations

import functools
import math
from decimal import Decimal, getcontext, localcontext

import numpy as np
import scipy.special as sp

_DIGITS = 60
_MAX = 1e8
_TINY = float(np.finfo(np.float64).tiny)
# B_2k / (2k (2k - 1)): Stirling's series for log Gamma past 60 (its 14th term is below 1e-60 there)
_BERNOULLI = (
    (1, 6), (-1, 30), (1, 42), (-1, 30), (5, 66), (-691, 2730), (7, 6), (-3617, 510), (43867, 798),
    (-174611, 330), (854513, 138), (-236364091, 2730), (8553103, 6), (-23749461029, 870),
)  # fmt: skip
_SHIFT = 100


def _log_gamma(a: Decimal) -> Decimal:
    """log Gamma(a), a > 0: Stirling's series at a + n >= 100 less log(a (a + 1) ... (a + n - 1))
    (1e-51 off); below a = 1e-10, log Gamma(1 + a) - log a by the series -euler a + sum_k
    (-a)^k zeta(k) / k, which keeps Q = 1 - P ~ a E1(x) at a = 2.2e-308 (its 1e-51 would not)."""
    if a < Decimal("1e-10"):
        total = -_euler() * a
        for k in range(2, 9):
            total += (-a) ** k * _zeta(k) / k
        return total - a.ln()
    z, product = a, Decimal(1)
    while z < _SHIFT:
        product *= z
        z += 1
    total = (z - Decimal(0.5)) * z.ln() - z + (2 * _pi()).ln() / 2
    power = z
    for k, (num, den) in enumerate(_BERNOULLI, 1):
        total += Decimal(num) / (Decimal(den) * (2 * k) * (2 * k - 1) * power)
        power *= z * z
    return total - product.ln()


def _euler_maclaurin_tail(fn_power, n: int) -> Decimal:
    """sum_j B_2j / (2j)! * fn_power(j): the Euler-Maclaurin corrections (14 terms)."""
    total, factorial = Decimal(0), Decimal(1)
    for j, (num, den) in enumerate(_BERNOULLI, 1):
        factorial *= (2 * j - 1) * (2 * j)
        total += Decimal(num) / Decimal(den) / factorial * fn_power(j)
    return total


def _euler() -> Decimal:
    """Euler's constant: H_(n-1) - log n + 1 / (2n) + sum_j B_2j / (2j n^2j), n = 100 (1e-50 off)."""
    return _euler_to(getcontext().prec)


@functools.cache
def _euler_to(prec: int) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = prec + 5
        n = _SHIFT
        harmonic = sum(Decimal(1) / k for k in range(1, n))
        tail = sum(
            Decimal(num) / Decimal(den) / (2 * j) / Decimal(n) ** (2 * j)
            for j, (num, den) in enumerate(_BERNOULLI, 1)
        )
        return harmonic - Decimal(n).ln() + Decimal(1) / (2 * n) + tail


def _zeta(k: int) -> Decimal:
    """zeta(k), k >= 2: the sum to n - 1 = 99 and Euler-Maclaurin's tail (1e-50 off)."""
    return _zeta_to(k, getcontext().prec)


@functools.cache
def _zeta_to(k: int, prec: int) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = prec + 5
        n = Decimal(_SHIFT)
        head = sum(Decimal(m) ** -k for m in range(1, _SHIFT))

        def rising(j: int) -> Decimal:  # k (k + 1) ... (k + 2j - 2) n^-(k + 2j - 1)
            out = Decimal(1)
            for i in range(2 * j - 1):
                out *= k + i
            return out * n ** -(k + 2 * j - 1)

        return head + n ** (1 - k) / (k - 1) + n**-k / 2 + _euler_maclaurin_tail(rising, _SHIFT)


def _pi() -> Decimal:
    """pi to the context's precision."""
    return _pi_to(getcontext().prec)


@functools.cache
def _pi_to(prec: int) -> Decimal:
    """pi to ``prec`` digits (Machin's formula)."""
    with localcontext() as ctx:
        ctx.prec = prec + 5
        eps = Decimal(10) ** -(prec + 5)

        def arctan_inv(n: int) -> Decimal:
            x, n2, total, k = Decimal(1) / n, n * n, Decimal(0), 0
            term = x
            while term > eps:
                total += term / (2 * k + 1) if k % 2 == 0 else -term / (2 * k + 1)
                term /= n2
                k += 1
            return total

        return 16 * arctan_inv(5) - 4 * arctan_inv(239)


def _series(a: Decimal, x: Decimal) -> Decimal:
    """P(a, x) = x^a e^-x / Gamma(a) * sum_n x^n / (a (a + 1) ... (a + n))."""
    term = 1 / a
    total, n, eps = term, 0, Decimal(10) ** -(getcontext().prec + 5)
    while term > total * eps:
        n += 1
        term = term * x / (a + n)
        total += term
    return (a * x.ln() - x - _log_gamma(a)).exp() * total


def _fraction(a: Decimal, x: Decimal) -> Decimal:
    """Q(a, x) = x^a e^-x / Gamma(a) * 1 / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...)), by modified Lentz."""
    prec = getcontext().prec
    tiny, eps = Decimal(10) ** -(prec + 50), Decimal(10) ** -(prec + 2)
    b = x + 1 - a
    c, d = 1 / tiny, 1 / (b if b != 0 else tiny)
    h, i = d, 0
    while True:
        i += 1
        an, b = -i * (i - a), b + 2
        d = an * d + b
        d = 1 / (d if d != 0 else tiny)
        c = b + an / c
        c = c if c != 0 else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1) < eps:
            break
    return (a * x.ln() - x - _log_gamma(a)).exp() * h


def _digits(a: float, series: bool) -> int:
    """The working digits: 60 and a margin, and on the series side |log10 a| more for Q = 1 - P."""
    return _DIGITS + 20 + (max(0, -math.floor(math.log10(a))) if series else 0)


def _both(a: Decimal, x: Decimal, series: bool) -> tuple[Decimal, Decimal]:
    """(P, Q) from the side that is summed directly (``series``: P, else Q), the other its complement."""
    if series:
        p = _series(a, x)
        return p, 1 - p
    q = _fraction(a, x)
    return 1 - q, q


@functools.cache
def lower_upper(a: float, x: float) -> tuple[Decimal, Decimal]:
    """(P, Q) at float64 a, x (0 < a, x <= 1e8), each to 60 significant digits."""
    with localcontext() as ctx:
        ctx.prec = _digits(a, x < a + 1)
        return _both(Decimal(a), Decimal(x), x < a + 1)


@functools.cache
def lower_slope_in_a(a: float, x: float) -> Decimal:
    """dP/da by a central difference (step a 1e-20) of the smaller of P and Q (-dQ/da)."""
    with localcontext() as ctx:
        ad, xd, series = Decimal(a), Decimal(x), x < a + 1
        ctx.prec = _digits(a, series) + 25
        h = ad * Decimal(10) ** -20
        side = 0 if _both(ad, xd, series)[0] < Decimal(0.5) else 1
        hi, lo = _both(ad + h, xd, series)[side], _both(ad - h, xd, series)[side]
        return (hi - lo) / (2 * h) * (1 - 2 * side)


def _inside(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    return (a >= _TINY) & (a <= _MAX) & (x >= _TINY) & (x <= _MAX)


def pointwise(fn, a, x, fallback) -> np.ndarray:
    """``fn(a, x)`` (a float) where both lie inside the computed domain, ``fallback`` elsewhere."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    with np.errstate(all="ignore"):
        inside = _inside(a, x)
    out = np.array(np.broadcast_to(np.asarray(fallback, np.float64), a.shape))
    for idx in np.argwhere(inside):
        idx = tuple(idx)
        out[idx] = fn(float(a[idx]), float(x[idx]))
    return out if out.ndim else out[()]


def gammainc(a, x) -> np.ndarray:
    """P(a, x): the decimal value inside, scipy's elsewhere."""
    return pointwise(lambda a, x: float(lower_upper(a, x)[0]), a, x, sp.gammainc(a, x))


def gammaincc(a, x) -> np.ndarray:
    """Q(a, x): the decimal value inside, scipy's elsewhere."""
    return pointwise(lambda a, x: float(lower_upper(a, x)[1]), a, x, sp.gammaincc(a, x))


def igamma_grad_a(a, x) -> np.ndarray:
    """dP/da: the decimal value inside, nan elsewhere (jax's value stands in)."""
    return pointwise(lambda a, x: float(lower_slope_in_a(a, x)), a, x, np.nan)


def _density(a: float, x: float) -> float:
    """dP/dx = x^(a - 1) e^-x / Gamma(a)."""
    with localcontext() as ctx:
        ctx.prec = _digits(a, False)
        ad, xd = Decimal(a), Decimal(x)
        return float(((ad - 1) * xd.ln() - xd - _log_gamma(ad)).exp())


def slopes(upper: bool):
    """The d1 reference of P (Q: ``upper``): [d/da, d/dx], nan outside the computed domain."""

    def ref(a, x):
        sign = -1.0 if upper else 1.0
        da = pointwise(lambda a, x: float(lower_slope_in_a(a, x)), a, x, np.nan)
        dx = pointwise(_density, a, x, np.nan)
        return [sign * da, sign * dx]

    return ref
