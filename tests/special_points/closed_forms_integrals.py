"""Closed-form references for the sweep of the error-function and related integrals (erfcx, dawsn,
fresnel, sici, spence), where jax's float64 derivatives or scipy's float64 values are off.

- erfcx' = 2x erfcx - 2/sqrt(pi) and dawsn' = 1 - 2x F cancel as x grows: jax's float64 slope at
  x = 1e8 is +6e-17 where the true one is -5.6e-17, and its second derivatives at 1e4 are wrong in
  every digit. Here erfcx and F are long double (series with positive terms, erfc's continued
  fraction) and past 8 (10 for F) the asymptotic series of the derivatives themselves.
- spence' = log x / (1 - x) on x >= 0: jax's float64 slope is nan on x > 1, 0 at 0 and 1, -709.4 at
  x = 2.2e-308 (log x is -708.4).
- fresnel's slopes (sin, cos)(pi x^2 / 2) with the phase reduced exactly (x^2 mod 4 as a fraction):
  jax's float64 phase at x = 744 carries x^2's rounding (1e-10 of the slope).
- sici's values for |x| <= 4 from the long-double series: scipy's Ci is 25 float64 ulps off at 3
  and pi (the series' cancellation near Ci's zero 3.38).
Each returns the leaves of a part, as closed_forms_special's forms.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.special as sp

from .closed_forms import _f64

L = np.longdouble
_SQRT_PI = np.sqrt(np.arccos(L(-1)))
_PI = np.arccos(L(-1))


# -- erfcx ---------------------------------------------------------------------------------------------
_ERFCX_FAR = 8.0


def _erfcx_near(x):
    """erfcx for -2 <= x <= 2: e^(x^2) - (2/sqrt(pi)) sum_k 2^k x^(2k+1) / (2k+1)!!, long double."""
    term, total = x.copy(), np.zeros_like(x)
    for k in range(80):
        total = total + term
        term = term * 2 * x * x / (2 * k + 3)
    return np.exp(x * x) - 2 / _SQRT_PI * total


def _erfcx_fraction(x, depth: int = 4000):
    """erfcx for 2 <= x <= 8: 1 / (sqrt(pi) (x + t)), t = (1/2) / (x + 1 / (x + (3/2) / (x + ...)))."""
    t = np.zeros_like(x)
    for k in range(depth, 0, -1):
        t = (L(k) / 2) / (x + t)
    return 1 / (_SQRT_PI * (x + t))


def _erfcx_far(order: int, x, terms: int = 40):
    """The order-th derivative of erfcx's asymptotic series (1/sqrt(pi)) sum_k (-1)^k (2k-1)!! / 2^k
    x^-(2k+1), term by term, for x >= 8."""
    total, c = np.zeros_like(x), L(1)
    for k in range(terms):
        p = 2 * k + 1  # the power of 1 / x
        factor = [1, -p, p * (p + 1)][order]
        total = total + c * factor * x ** -(p + order)
        c = -c * (2 * k + 1) / 2
    return total / _SQRT_PI


def erfcx(order: int):
    def ref(x):
        x = np.asarray(x, L)
        a = np.abs(x)
        near = np.where(a <= 2, x, L(1))
        mid = np.where((a > 2) & (a < _ERFCX_FAR), a, L(4))
        value = np.where(a <= 2, _erfcx_near(near), _erfcx_fraction(mid))
        value = np.where((x < -2) & (a < _ERFCX_FAR), 2 * np.exp(x * x) - value, value)
        far = np.where(x >= _ERFCX_FAR, x, L(_ERFCX_FAR))
        if order == 1:
            d = 2 * x * value - 2 / _SQRT_PI
        else:
            d = (4 * x * x + 2) * value - 4 * x / _SQRT_PI
        d = np.where(x >= _ERFCX_FAR, _erfcx_far(order, far), d)
        # x <= -8: erfcx = 2 e^(x^2) - erfcx(-x), whose derivatives the first term dominates
        e = np.exp(x * x)
        left = 2 * x * 2 * e if order == 1 else (4 * x * x + 2) * 2 * e
        d = np.where(x <= -_ERFCX_FAR, left, d)
        return _f64(np.where(x == np.inf, L(0) if order == 2 else -L(0), d))

    return ref


# -- Dawson's integral ---------------------------------------------------------------------------------
_DAWSN_FAR = 10.0


def _dawsn_near(a):
    """F(a) = e^(-a^2) sum_k a^(2k+1) / (k! (2k+1)) for 0 <= a < 10 (positive terms), long double."""
    power, total = a.copy(), np.zeros_like(a)
    for k in range(500):
        total = total + power / (2 * k + 1)
        power = power * a * a / (k + 1)
    return np.exp(-a * a) * total


def _dawsn_far(order: int, a, terms: int = 40):
    """The order-th derivative of F's asymptotic series sum_k (2k-1)!! / 2^(k+1) a^-(2k+1), term by
    term, for a >= 10."""
    total, c = np.zeros_like(a), L(0.5)
    for k in range(terms):
        p = 2 * k + 1
        factor = [1, -p, p * (p + 1)][order]
        total = total + c * factor * a ** -(p + order)
        c = c * (2 * k + 1) / 2
    return total


def dawsn(order: int):
    def ref(x):
        x = np.asarray(x, L)
        a = np.abs(x)
        far = a >= _DAWSN_FAR
        f = _dawsn_near(np.where(far, L(1), a))
        d = 1 - 2 * a * f if order == 1 else (4 * a * a - 2) * f - 2 * a  # at |x|, F odd
        d = np.where(far, _dawsn_far(order, np.where(far, a, L(_DAWSN_FAR))), d)
        d = np.where(a == np.inf, L(0), d)
        return _f64(d if order == 1 else np.sign(x) * d)

    return ref


# -- Spence's function ---------------------------------------------------------------------------------
def spence(order: int):
    """log x / (1 - x) and (1 - x + x log x) / (x (1 - x)^2) on x >= 0, their series in u = x - 1
    near 1 (-1 and 1/2 at 1), -inf and +inf at +-0, nan below 0."""

    def ref(x):
        x = np.asarray(x, L)
        u = x - 1
        near = np.abs(u) < 1e-3
        series = np.zeros_like(x)
        for k in reversed(range(12)):  # d1 = -sum_k (-u)^k / (k + 1); d2 = sum_k (k + 1) (-u)^k / (k + 2)
            coefficient = L(-1) / (k + 1) if order == 1 else L(k + 1) / (k + 2)
            series = series * (-u) + coefficient
        safe = np.where(near | (x <= 0), L(2), x)
        log = np.log(safe)
        closed = log / (1 - safe) if order == 1 else (1 - safe + safe * log) / (safe * (1 - safe) ** 2)
        d = np.where(near, series, closed)
        d = np.where(x == 0, -np.inf if order == 1 else np.inf, d)
        d = np.where(x == np.inf, L(0), d)
        return _f64(np.where((x < 0) | np.isnan(x), np.nan, d))

    return ref


# -- Fresnel integrals ---------------------------------------------------------------------------------
def _half_pi_square(x: float) -> tuple[L, L]:
    """cos and sin of pi x^2 / 2, with x^2 mod 4 taken exactly (x is a float64, its square a fraction)."""
    if not np.isfinite(x):
        return L(np.nan), L(np.nan)
    if abs(x) < 1:
        square = L(x) * L(x)  # 64 bits of the 106-bit square: 1e-19 relative
    else:
        square = L(int(Fraction(x) ** 2 % 4 * 2**60)) / L(2**60)  # an int below 2^62: exact in long double
    phase = _PI / 2 * square
    return np.cos(phase), np.sin(phase)


def fresnel(order: int):
    """The sweep's parts of S + C: d1 = sin + cos of pi x^2 / 2, d2 = pi x (cos - sin)."""

    def ref(x):
        x = np.asarray(x, np.float64)
        out = np.empty(x.shape, L)
        for i, xi in np.ndenumerate(x):
            c, s = _half_pi_square(float(xi))
            out[i] = s + c if order == 1 else _PI * L(xi) * (c - s)
        return _f64(out)

    return ref


# -- sine and cosine integrals -------------------------------------------------------------------------
def sici_value(x):
    """(Si, Ci) from the long-double power series for |x| <= 4, scipy's elsewhere."""
    x = np.asarray(x, np.float64)
    si_sp, ci_sp = sp.sici(x)
    a = np.asarray(np.where((np.abs(x) <= 4) & (x != 0), np.abs(x), 1.0), L)
    power, si, ci = np.ones_like(a), np.zeros_like(a), np.zeros_like(a)
    for j in range(1, 90):
        power = power * a / j
        sign = (-1) ** (j // 2)
        if j % 2:
            si = si + sign * power / j
        else:
            ci = ci + sign * power / j
    euler = L("0.577215664901532860606512090082402431")
    ci = euler + np.log(a) + ci
    near = (np.abs(x) <= 4) & (x != 0)
    return [
        np.where(near, np.asarray(np.sign(x) * si, np.float64), si_sp),
        np.where(near, np.asarray(ci, np.float64), ci_sp),
    ]


FORMS = {"erfcx": erfcx, "dawsn": dawsn, "spence": spence, "fresnel": fresnel}

__all__ = ["FORMS", "sici_value"]
