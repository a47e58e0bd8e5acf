"""Owen's T function T(h, a) = (1 / 2 pi) integral_0^a e^(-h^2 (1 + x^2) / 2) / (1 + x^2) dx,
scipy.special.owens_t (ops layer, user-facing through sg.scipy.special).

T is even in h and odd in a, so the work is for h, a >= 0. For a <= 1 the integral is a 40-point
Gauss-Legendre sum over [0, min(a, 9 / h)]: past x = 9 / h the integrand has fallen by e^(-40),
and on the interval kept it is a Gaussian of at most 9 standard deviations and 1 / (1 + x^2),
whose poles at +-i lie far from it, so the sum is exact to rounding; e^(-h^2 / 2) is factored out.
Q(h) = erfc(h / sqrt 2) / 2 puts back the rounding of h / sqrt 2 (_upper_tail).
For a > 1, Owen's identity T(h, a) = (Phi(h) Q(ah) + Phi(ah) Q(h)) / 2 - T(ah, 1 / a) (Q = 1 - Phi,
from erfc, so nothing cancels). At h = 0 (and wherever h^2 (1 + a^2) is below eps), T = atan(a) / (2 pi). The partial derivatives are the
closed forms dT/dh = -phi(h) erf(a h / sqrt 2) / 2 and dT/da = e^(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2)).
"""

from __future__ import annotations

import math

import numpy as np

from ...graph import library
from .. import numpy_like as snp
from ..primitives import transcendental as tr
from ..primitives.registry import bind
from .float_args import float_args as _floats
from .partials import with_partials

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(40)
# on [0, 1]: x_i = (1 + u_i) / 2, weights halved
_X = [float(v) for v in (1 + _NODES) / 2]
_W = [float(v) for v in _WEIGHTS / 2]
_REACH = 9.0
_SQRT_HALF = math.sqrt(0.5)


def _erfc(x):
    return bind(tr.erfc, x)


_SQRT_HALF_LOW = float(np.longdouble(0.5) ** np.longdouble(0.5) - np.longdouble(_SQRT_HALF))
_VELTKAMP = 134217729.0  # 2^27 + 1: splits a float64 into two halves whose products are exact


def _halves(x):
    high = x * _VELTKAMP
    high = high - (high - x)
    return high, x - high


_SQRT_HALF_HIGH_LOW = _halves(_SQRT_HALF)


def _upper_tail(x):
    """Q(x) = 1 - Phi(x) = erfc(x / sqrt 2) / 2, with the rounding of u = x / sqrt 2 put back:
    erfc(u + d) = erfc(u) - d (2 / sqrt pi) e^(-u^2). The rounded u alone costs 2 u^2 of its relative
    error (Q(3) 7.5 ulps off); d is the exact product's low part (Dekker) plus x's share of sqrt(1/2)'s
    rounding."""
    u = x * _SQRT_HALF
    if x.dtype.bits < 64:
        return 0.5 * _erfc(u)
    x_high, x_low = _halves(x)
    s_high, s_low = _SQRT_HALF_HIGH_LOW
    low = ((x_high * s_high - u) + x_high * s_low + x_low * s_high) + x_low * s_low
    d = snp.where(snp.abs(x) < 1e150, low + x * _SQRT_HALF_LOW, 0.0)  # beyond, Q has underflowed
    return 0.5 * (_erfc(u) - d * (2 / math.sqrt(math.pi)) * snp.exp(-u * u))


_VANISHES = 40.0  # e^(-h^2 / 2) = 0 in float64 past h = 38.6


def _small_a(h, a):
    """T(h, a) for h >= 0, 0 <= a <= 1 (finite h; 0 past h = 40, where h^2 might overflow)."""
    gone = h > _VANISHES
    h = snp.where(gone, _VANISHES, h)
    reach = snp.where(h * a > _REACH, _REACH / snp.where(h > 0, h, 1.0), a)
    half_h2 = 0.5 * h * h
    total = snp.zeros_like(h)
    for x, w in zip(_X, _W):
        t = reach * x
        total = total + w * snp.exp(-half_h2 * t * t) / (1 + t * t)
    return snp.where(gone, 0.0, snp.exp(-half_h2) * reach * total / (2 * math.pi))


def _owens_t_value(h, a):
    sign = snp.where(a < 0, -1.0, 1.0)
    h, a = snp.abs(h), snp.abs(a)
    finite_h = snp.where(snp.isfinite(h), h, 0.0)
    small = a <= 1
    direct = _small_a(finite_h, snp.where(small, a, 0.0))
    # a > 1: T(h, a) = (Phi(h) Q(ah) + Phi(ah) Q(h)) / 2 - T(ah, 1 / a)
    big_a = snp.where(small, 2.0, a)
    ah = finite_h * big_a
    ah_safe = snp.where(snp.isfinite(ah), ah, 0.0)
    inner = _small_a(ah_safe, 1 / big_a)
    inner = snp.where(snp.isfinite(ah), inner, 0.0)  # T(inf, .) = 0
    q_h, q_ah = _upper_tail(finite_h), _upper_tail(ah)
    reflected = 0.5 * ((1 - q_h) * q_ah + (1 - q_ah) * q_h) - inner
    value = snp.where(small, direct, reflected)
    # h^2 (1 + a^2) / 2 below eps / 2: the integrand's Gaussian is 1, T = atan(a) / (2 pi); the
    # Gauss-Legendre sum of 1 / (1 + x^2) rounds (T(2.2e-308, 1) came out 5 ulps under 1/8); h = 0
    # is flat for every a, a = inf included (where the product is 0 * inf = nan)
    flat = (finite_h == 0) | (finite_h * finite_h * (1 + a * a) < 1e-16)
    value = snp.where(flat, snp.arctan(a) / (2 * math.pi), value)
    value = snp.where(h == math.inf, 0.0, value)
    value = sign * value
    return snp.where(snp.isnan(h) | snp.isnan(a), math.nan, value)


def _owens_t_partials(h, a):
    normal = snp.exp(-0.5 * h * h) / math.sqrt(2 * math.pi)
    # at h = 0 with a = +-inf, a h is nan where the slope is 0: a stands in as 0 there (not a
    # where on the result, which would make the second derivative in h at 0 zero, not -a / (2 pi))
    a_finite = snp.where((h == 0) & snp.isinf(a), 0.0, a)
    d_h = -0.5 * normal * snp.erf(a_finite * h * _SQRT_HALF)
    one_a2 = 1 + a * a
    d_a = snp.exp(-0.5 * h * h * one_a2) / (2 * math.pi * one_a2)
    return d_h, d_a


_owens_t = with_partials("owens_t", _owens_t_value, _owens_t_partials)


@library()
def owens_t(h, a):
    """Owen's T function T(h, a) (even in h, odd in a; T(0, a) = atan(a) / (2 pi), T(h, inf) =
    Q(|h|) / 2); differentiable in h and a (closed-form partials)."""
    h, a = _floats(h, a)
    return _owens_t(h, a)


__all__ = ["owens_t"]
