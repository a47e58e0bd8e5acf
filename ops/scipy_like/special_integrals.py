"""scipy.special's exponential, error-function and related integrals: exp1, expi, expn, erfcx, dawsn,
sici, fresnel, spence (ops layer, user-facing through sg.scipy.special).

Each value is a fixed-length power series near 0 and a continued fraction (evaluated backwards from
a fixed depth, in a fori_loop so the graph stays small) or an asymptotic series farther out, chosen
per element with ``where``; every branch sees a harmless stand-in argument where it is not chosen,
so no nan leaks into the gradient. The derivatives are closed forms attached with ``with_partials``
(E1' = -e^-x / x, Ei' = e^x / x, E_n' = -E_(n-1), erfcx' = 2x erfcx - 2 / sqrt(pi), ...), so they
are exact where the chain rule through a loop would only be as good as the loop.

scipy's values, also where jax's are nan or wrong: expi(0) = -inf, exp1(0) = inf, exp1(x < 0) = nan,
expn(n, 0) = 1 / (n - 1), dawsn(-0) = -0, spence(0) = pi^2 / 6.
"""

from __future__ import annotations

import math

from ...graph import dtypes
from .. import numpy_like as snp
from ..control_api import fori_loop
from ..numpy_like.core import promote, result_dtype
from ..primitives import transcendental as tr
from ..primitives.registry import bind
from .partials import with_partials

EULER = 0.5772156649015329
_RSQRT_PI = 1 / math.sqrt(math.pi)


def _floats(*xs):
    """The arguments as floats of one dtype and one broadcast shape (ints become floats)."""
    dt = result_dtype(*xs)
    if not dt.is_inexact:
        dt = dtypes.float64 if dt.bits == 64 else dtypes.float32
    return promote(*xs, dtype=dt)


def _backward(depth: int, step, x):
    """A continued fraction's tail t, evaluated from depth ``depth`` down to 1: t = step(k, t)."""

    def body(i, t):
        return step((depth - i).astype(x.dtype), t)

    return fori_loop(0, depth, body, snp.zeros_like(x))


# -- the exponential integrals ---------------------------------------------------------------------
def _en_fraction(n, x, depth: int = 100):
    """E_n(x) for x > 1 from its continued fraction e^-x / (x + n - 1 n / (x + n + 2 - 2 (n+1) / ...))."""
    t = _backward(depth, lambda k, t: k * (n - 1 + k) / (x + n + 2 * k - t), x)
    return snp.exp(-x) / (x + n - t)


def _e1_series(x, terms: int = 20):
    """E1(x) = -gamma - log x - sum_k (-x)^k / (k k!) for 0 < x <= 1."""
    term, total = snp.ones_like(x), snp.zeros_like(x)
    for k in range(1, terms + 1):
        term = term * (-x) / k
        total = total + term / k
    return -EULER - snp.log(x) - total


def _e1_positive(x):
    """E1(x) for x > 0 (any value elsewhere)."""
    small = x <= 1
    series = _e1_series(snp.where(small, x, 0.5))
    fraction = _en_fraction(1.0, snp.where(small, 2.0, x))
    return snp.where(small, series, fraction)


def _exp1_value(x):
    value = snp.where(x == 0, math.inf, _e1_positive(snp.where(x > 0, x, 1.0)))
    return snp.where((x < 0) | snp.isnan(x), math.nan, value)


_exp1 = with_partials("exp1", _exp1_value, lambda x: (-snp.exp(-x) / x,))


def exp1(x):
    """The exponential integral E1(x) = integral_x^inf e^-t / t dt for x >= 0: inf at +-0, 0 at inf,
    nan for x < 0 (scipy's real exp1); derivative -e^-x / x."""
    (x,) = _floats(x)
    return _exp1(x)


def _ei_series(x):
    """Ei(x) = gamma + log x + sum_k x^k / (k k!) for 0 < x <= 40 (120 terms reach 40's tail)."""

    def body(i, carry):
        term, total = carry
        k = (i + 1).astype(x.dtype)
        term = term * x / k
        return term, total + term / k

    _, total = fori_loop(0, 120, body, (snp.ones_like(x), snp.zeros_like(x)))
    return EULER + snp.log(x) + total


def _ei_asymptotic(x, terms: int = 40):
    """Ei(x) ~ e^x / x sum_k k! / x^k for x > 40 (the terms fall until k = x); e^(x/2) twice so that
    Ei stays finite up to 716, past where e^x alone overflows."""
    term, total = snp.ones_like(x), snp.ones_like(x)
    for k in range(1, terms + 1):
        term = term * k / x
        total = total + term
    half = snp.exp(x / 2)
    return half * (half / x * total)


def _expi_value(x):
    large = x > 40
    positive = snp.where(
        large, _ei_asymptotic(snp.where(large, x, 50.0)), _ei_series(snp.where((x > 0) & ~large, x, 1.0))
    )
    negative = -_e1_positive(snp.where(x < 0, -x, 1.0))
    value = snp.where(x > 0, positive, negative)
    value = snp.where(x == math.inf, math.inf, snp.where(x == -math.inf, -0.0, value))
    return snp.where(x == 0, -math.inf, snp.where(snp.isnan(x), math.nan, value))


_expi = with_partials("expi", _expi_value, lambda x: (snp.exp(x) / x,))


def expi(x):
    """The exponential integral Ei(x) = PV integral_-inf^x e^t / t dt: -E1(-x) for x < 0, -inf at
    +-0 (scipy's; jax: nan), inf at inf; derivative e^x / x."""
    (x,) = _floats(x)
    return _expi(x)


def _en_series(n, x, terms: int = 20):
    """E_n(x) for n >= 2, 0 < x < 1: (-x)^(n-1) / (n-1)! (psi(n) - log x) - sum_(k != n-1) (-x)^k / ((k-n+1) k!)."""
    term, total = snp.ones_like(x), snp.zeros_like(x)
    for k in range(terms):
        if k:
            term = term * (-x) / k
        skip = n == k + 1
        total = total - snp.where(skip, 0.0, term / snp.where(skip, 1.0, k - n + 1))
    sign = snp.where(snp.remainder(n, 2) == 0, -1.0, 1.0)  # (-1)^(n-1)
    power = sign * snp.exp((n - 1) * snp.log(x) - bind(tr.lgamma, n))
    return total + power * (bind(tr.digamma, n) - snp.log(x))


def _expn_value(n, x):
    n = snp.trunc(n)
    safe_x = snp.where((x > 0) & snp.isfinite(x), x, 1.0)
    safe_n = snp.where((n >= 2) & snp.isfinite(n), n, 2.0)
    small = safe_x < 1  # at 1 the series cancels to 16 ulps, the fraction is within 1
    general = snp.where(
        small,
        _en_series(safe_n, snp.where(small, safe_x, 0.5)),
        _en_fraction(safe_n, snp.where(small, 2.0, safe_x)),
    )
    value = snp.where(n == 1, _e1_positive(safe_x), general)
    value = snp.where(n == 0, snp.exp(-safe_x) / safe_x, value)
    value = snp.where(x == math.inf, 0.0, value)
    value = snp.where(x == 0, snp.where(n <= 1, math.inf, 1 / snp.where(n <= 1, 2.0, n - 1)), value)
    return snp.where((n < 0) | (x < 0) | snp.isnan(n) | snp.isnan(x), math.nan, value)


def _expn_partials(n, x):
    below = _expn(snp.maximum(n - 1, 0.0), x)  # E_n' = -E_(n-1) for n >= 1
    e0_slope = -snp.exp(-x) * (x + 1) / (x * x)
    return snp.zeros_like(n), snp.where(snp.trunc(n) == 0, e0_slope, -below)


_expn = with_partials("expn", _expn_value, _expn_partials)


def expn(n, x):
    """The generalized exponential integral E_n(x) = integral_1^inf e^(-x t) / t^n dt for integer
    n >= 0 (a float n is truncated, as scipy) and x >= 0: 1 / (n - 1) at x = 0 for n >= 2, inf for
    n <= 1, nan for n < 0 or x < 0; derivative in x -E_(n-1)(x) (none in n)."""
    n, x = _floats(n, x)
    return _expn(n, x)


# -- the scaled complementary error function and Dawson's integral ----------------------------------
def _erfcx_tail(x, depth: int = 40):
    """t with erfcx(x) = 1 / (sqrt(pi) (x + t)) for x >= 5: erfc's continued fraction
    (1/2) / (x + 1 / (x + (3/2) / (x + ...)))."""
    return _backward(depth, lambda k, t: (k / 2) / (x + t), x)


def _split_square(x):
    """x*x as hi + lo (Dekker's product, exact to the last bit of lo)."""
    splitter = 134217729.0 if x.dtype.bits == 64 else 4097.0
    c = x * splitter
    high = c - (c - x)
    low = x - high
    square = x * x
    return square, ((high * high - square) + 2 * high * low) + low * low


_ERFCX_FAR = 5.0


def _erfcx_value(x):
    near = x < _ERFCX_FAR
    xn = snp.where(near, snp.maximum(x, -30.0), 0.0)
    square, low = _split_square(xn)
    direct = snp.exp(square) * (1 + low) * bind(tr.erfc, xn)
    xf = snp.where(near, _ERFCX_FAR, x)
    far = _RSQRT_PI / (xf + _erfcx_tail(xf))
    return snp.where(near, direct, far)


def _erfcx_slope(x):
    """2x erfcx(x) - 2 / sqrt(pi); past 5 from the fraction's tail, -2 t / (sqrt(pi) (x + t)),
    where the difference would cancel. float32 in float64 and rounded: the difference and its own
    slope 2 erfcx + 2x erfcx' cancel 250x at x = pi, which float32 cannot afford."""
    if x.dtype.bits < 64:
        (slope,) = _erfcx_slope(x.astype("float64"))
        return (slope.astype(x.dtype),)
    near = x < _ERFCX_FAR
    xf = snp.where(near, _ERFCX_FAR, x)
    tail = _erfcx_tail(xf)
    far = -2 * _RSQRT_PI * tail / (xf + tail)
    return (snp.where(near, 2 * x * _erfcx_in_slope(x) - 2 * _RSQRT_PI, far),)


_erfcx = with_partials("erfcx", _erfcx_value, _erfcx_slope)
# erfcx inside its own slope: a second custom_vjp object, since inside _erfcx's backward a call of
# _erfcx is its plain value, whose chain rule is nan where e^(x^2) overflows (x <= -26.6 in float64,
# -9.4 in float32); through this one the second derivative is 2 erfcx + 2x erfcx' (+inf there)
_erfcx_in_slope = with_partials("erfcx", _erfcx_value, _erfcx_slope)


def erfcx(x):
    """The scaled complementary error function e^(x^2) erfc(x): e^(x^2) from x^2 split exactly into
    two floats below 5, erfc's continued fraction above; derivative 2x erfcx(x) - 2 / sqrt(pi)."""
    (x,) = _floats(x)
    return _erfcx(x)


_DAWSON_H = 0.25  # Rybicki's spacing: the error is about e^(-(pi / 2h)^2) = 7e-18
_DAWSON_TERMS = 14  # odd n in (-28, 28): e^(-(nh)^2) < 1e-21 beyond
_DAWSON_FAR = 50.0


def _dawson_series(x, terms: int = 12):
    """F(x) = x sum_k (-2x^2)^k / (2k+1)!! for |x| < 0.2."""
    term, total = snp.ones_like(x), snp.ones_like(x)
    for k in range(1, terms):
        term = term * (-2 * x * x) / (2 * k + 1)
        total = total + term
    return x * total


def _rybicki(x, slope: bool = False):
    """F(x) ~ (1/sqrt pi) sum_(n odd) e^(-(x' - nh)^2) / (n + n0), x' = x - n0 h with n0 the even
    integer nearest x / h (Rybicki); with ``slope``, the same sum's derivative in x."""
    n0 = 2 * snp.rint(x / (2 * _DAWSON_H))
    shifted = x - n0 * _DAWSON_H
    total = snp.zeros_like(x)
    for n in range(-(2 * _DAWSON_TERMS - 1), 2 * _DAWSON_TERMS, 2):
        d = shifted - n * _DAWSON_H
        term = snp.exp(-d * d) / (n + n0)
        total = total + (-2 * d * term if slope else term)
    return total * _RSQRT_PI


def _dawson_far(x, slope: bool = False):
    """F(x) ~ 1/(2x) sum_k (2k-1)!! / (2x^2)^k and F' = 1 - 2x F ~ -sum_(k>=1) (2k-1)!! / (2x^2)^k."""
    inv = 1 / (2 * x * x)
    term, total = snp.ones_like(x), snp.zeros_like(x) if slope else snp.ones_like(x)
    for k in range(1, 9):
        term = term * (2 * k - 1) * inv
        total = total + term
    return -total if slope else total / (2 * x)


def _dawsn_value(x):
    a = snp.abs(x)
    near, far = a < 0.2, a >= _DAWSON_FAR
    value = snp.where(
        near,
        _dawson_series(snp.where(near, a, 0.0)),
        snp.where(far, _dawson_far(snp.where(far, a, _DAWSON_FAR)), _rybicki(snp.where(near | far, 1.0, a))),
    )
    return snp.copysign(value, x)


def _dawsn_slope(x):
    a = snp.abs(x)
    near, far = a < 0.2, a >= _DAWSON_FAR
    middle = _rybicki(snp.where(near | far, 1.0, a), slope=True)
    far_slope = _dawson_far(snp.where(far, a, _DAWSON_FAR), slope=True)
    return (snp.where(near, 1 - 2 * x * _dawsn(x), snp.where(far, far_slope, middle)),)


_dawsn = with_partials("dawsn", _dawsn_value, _dawsn_slope)


def dawsn(x):
    """Dawson's integral F(x) = e^(-x^2) integral_0^x e^(t^2) dt (odd; -0 at -0): a series near 0,
    Rybicki's sum of Gaussians, an asymptotic series past 50; derivative 1 - 2x F(x)."""
    (x,) = _floats(x)
    return _dawsn(x)


# -- the sine and cosine integrals ---------------------------------------------------------------------
_SICI_FAR = 2.0  # from here the fraction (120 deep) is within an ulp; the series cancels 25x near pi


def _sici_series(a, terms: int = 36):
    """Si(a) = sum_k (-1)^k a^(2k+1) / ((2k+1) (2k+1)!), Ci(a) = gamma + log a + sum_(k>=1)
    (-1)^k a^(2k) / (2k (2k)!) for 0 < a < 2."""
    power, si, ci = snp.ones_like(a), snp.zeros_like(a), snp.zeros_like(a)
    for j in range(1, terms + 1):
        power = power * a / j  # a^j / j!
        sign = (-1) ** (j // 2)
        if j % 2:
            si = si + sign * power / j
        else:
            ci = ci + sign * power / j
    return si, EULER + snp.log(a) + ci


def _sici_fraction(a, depth: int = 120):
    """Si and Ci for a >= 2 from E1(i a) = -Ci(a) + i (Si(a) - pi/2), E1's continued fraction in
    complex arithmetic on (real, imaginary) pairs."""

    def body(i, t):
        k = (depth - i).astype(a.dtype)
        dr, di = 2 * k + 1 - t[0], a - t[1]
        scale = k * k / (dr * dr + di * di)
        return dr * scale, -di * scale

    tr_, ti = fori_loop(0, depth, body, (snp.zeros_like(a), snp.zeros_like(a)))
    wr, wi = 1 - tr_, a - ti
    norm = wr * wr + wi * wi
    c, s = snp.cos(a), snp.sin(a)
    er, ei = (c * wr - s * wi) / norm, (-s * wr - c * wi) / norm  # e^(-ia) / w
    return math.pi / 2 + ei, -er


def _sici_value(x):
    a = snp.abs(x)
    near = a < _SICI_FAR
    si_n, ci_n = _sici_series(snp.where(near & (a > 0), a, 1.0))
    far = ~near & snp.isfinite(a)
    si_f, ci_f = _sici_fraction(snp.where(far, a, 2 * _SICI_FAR))
    si = snp.where(near, si_n, snp.where(far, si_f, math.pi / 2))
    ci = snp.where(near, ci_n, snp.where(far, ci_f, 0.0))
    huge = far & (a > 1e15)  # Si ~ pi/2 - cos a / a, Ci ~ sin a / a (the fraction's |w|^2 would overflow)
    safe = snp.where(huge, a, 1e16)
    si = snp.where(huge, math.pi / 2 - snp.cos(safe) / safe, si)
    ci = snp.where(huge, snp.sin(safe) / safe, ci)
    si = snp.where(a == 0, 0.0, si)
    ci = snp.where(a == 0, -math.inf, snp.where(x == -math.inf, math.nan, ci))
    nan = snp.isnan(x)
    return snp.where(nan, math.nan, snp.copysign(si, x)), snp.where(nan, math.nan, ci)


def _sici_wide(x, which: int):
    """Si or Ci computed in float64 (float32's series loses 2e-6 of Ci near its zeros) and rounded once."""
    return _sici_value(x.astype("float64"))[which].astype(x.dtype)


_si = with_partials(
    "sici_si", lambda x: _sici_wide(x, 0), lambda x: (snp.where(x == 0, 1.0, snp.sin(x) / x),)
)
_ci = with_partials("sici_ci", lambda x: _sici_wide(x, 1), lambda x: (snp.cos(x) / x,))


def sici(x):
    """The sine and cosine integrals (Si(x), Ci(x)): Si = integral_0^x sin t / t dt (odd), Ci =
    gamma + log|x| + integral_0^|x| (cos t - 1) / t dt (for x < 0 the real part, scipy's; -inf at
    +-0, nan at -inf); derivatives sin x / x and cos x / x."""
    (x,) = _floats(x)
    return _si(x), _ci(x)


# -- the Fresnel integrals ------------------------------------------------------------------------------
_FRESNEL_FAR = 1.3  # from here the fraction (200 deep) is within an ulp; the series loses 7 at pi / 2


def _fresnel_series(a, terms: int = 32):
    """S(a) = a sum_k (-1)^k u^(2k+1) / ((2k+1)! (4k+3)), C(a) = a sum_k (-1)^k u^(2k) / ((2k)! (4k+1)),
    u = pi a^2 / 2, for |a| <= 1.3."""
    u = math.pi / 2 * a * a
    power, s, c = snp.ones_like(a), snp.zeros_like(a), snp.ones_like(a)
    for j in range(1, terms + 1):
        power = power * u / j  # u^j / j!
        sign = (-1) ** (j // 2)
        if j % 2:
            s = s + sign * power / (2 * j + 1)
        else:
            c = c + sign * power / (2 * j + 1)
    return a * s, a * c


def _fresnel_fraction(a, depth: int = 200):
    """S and C for a > 1.3: C + iS = (1 + i)/2 (1 - erfc(z)), z = sqrt(pi)/2 (1 - i) a, erfc from its
    continued fraction e^(-z^2) / sqrt(pi) / (z + (1/2) / (z + 1 / (z + ...))) on (real, imaginary) pairs."""
    c0 = math.sqrt(math.pi) / 2 * a

    def body(i, t):
        k = (depth - i).astype(a.dtype)
        dr, di = c0 + t[0], -c0 + t[1]
        scale = (k / 2) / (dr * dr + di * di)
        return dr * scale, -di * scale

    tr_, ti = fori_loop(0, depth, body, (snp.zeros_like(a), snp.zeros_like(a)))
    dr, di = c0 + tr_, -c0 + ti
    norm = dr * dr + di * di
    qr, qi = dr / norm, -di / norm  # 1 / (z + t)
    cu, su = _half_pi_square_trig(a)
    er, ei = (cu * qr - su * qi) * _RSQRT_PI, (cu * qi + su * qr) * _RSQRT_PI  # erfc(z)
    return (1 - er - ei) / 2, (1 - er + ei) / 2


def _half_pi_square_trig(a):
    """cos and sin of pi a^2 / 2 with the phase reduced exactly: a^2 = hi + lo (Dekker), hi mod 4
    is exact, so the argument keeps its digits where pi a^2 / 2 is large (a = 800: 1e6). At +-inf
    the phase is nan: the oscillation has no limit."""
    if a.dtype.bits < 64:  # float32: in float64 (at pi / 2, cos - sin of the float32 phase cancels 12x)
        c, s = _half_pi_square_trig(a.astype("float64"))
        return c.astype(a.dtype), s.astype(a.dtype)
    # past 2^p (p the mantissa's bits) a is an even integer: a^2 is a multiple of 4, the phase 0
    whole = snp.abs(a) >= (2.0**53 if a.dtype.bits == 64 else 2.0**24)
    square, low = _split_square(snp.where(whole, 0.0, a))
    phase = math.pi / 2 * (snp.remainder(square, 4.0) + snp.remainder(low, 4.0))
    phase = snp.where(whole, 0.0, phase)
    phase = snp.where(snp.isinf(a), math.nan, phase)
    return snp.cos(phase), snp.sin(phase)


def _fresnel_value(x):
    a = snp.abs(x)
    near = a <= _FRESNEL_FAR
    s_n, c_n = _fresnel_series(snp.where(near, a, 1.0))
    far = ~near & snp.isfinite(a * a)  # past 1e154 the oscillation's 1 / (pi a) has vanished
    s_f, c_f = _fresnel_fraction(snp.where(far, a, 2 * _FRESNEL_FAR))
    s = snp.where(near, s_n, snp.where(far, s_f, 0.5))
    c = snp.where(near, c_n, snp.where(far, c_f, 0.5))
    nan = snp.isnan(x)
    return snp.where(nan, math.nan, snp.copysign(s, x)), snp.where(nan, math.nan, snp.copysign(c, x))


# the slopes sin and cos of pi x^2 / 2 with their own slopes pi x cos and -pi x sin: the chain rule
# through the exactly reduced phase would see its where-splices (0 past 2^53, where pi x is not)
_fresnel_s_slope = with_partials(
    "fresnel_s_slope",
    lambda x: _half_pi_square_trig(x)[1],
    lambda x: (x * _half_pi_square_trig(x)[0] * math.pi,),
)
_fresnel_c_slope = with_partials(
    "fresnel_c_slope",
    lambda x: _half_pi_square_trig(x)[0],
    lambda x: (x * _half_pi_square_trig(x)[1] * -math.pi,),  # x sin first: 0 past 2^53, not inf * 0
)


def _fresnel_wide(x, which: int):
    """S or C computed in float64 (float32's fraction loses 6 ulps at pi / 2) and rounded once."""
    return _fresnel_value(x.astype("float64"))[which].astype(x.dtype)


_fresnel_s = with_partials("fresnel_s", lambda x: _fresnel_wide(x, 0), lambda x: (_fresnel_s_slope(x),))
_fresnel_c = with_partials("fresnel_c", lambda x: _fresnel_wide(x, 1), lambda x: (_fresnel_c_slope(x),))


def fresnel(x):
    """The Fresnel integrals (S(x), C(x)) = integral_0^x (sin, cos)(pi t^2 / 2) dt (odd, scipy's order);
    derivatives sin(pi x^2 / 2) and cos(pi x^2 / 2)."""
    (x,) = _floats(x)
    return _fresnel_s(x), _fresnel_c(x)


# -- Spence's function ----------------------------------------------------------------------------------
def _dilog_coefficients(count: int = 24) -> list[float]:
    """B_n / (n + 1)! for n < count (B_1 = -1/2): Li2(y) = sum_n B_n u^(n+1) / (n+1)!, u = -log(1 - y)."""
    from fractions import Fraction

    numbers = [Fraction(1)]
    for m in range(1, count):  # sum_(j<=m) C(m+1, j) B_j = 0
        numbers.append(-sum(math.comb(m + 1, j) * numbers[j] for j in range(m)) / (m + 1))
    return [float(b / math.factorial(n + 1)) for n, b in enumerate(numbers)]


_DILOG = _dilog_coefficients()
_PI2_6 = math.pi**2 / 6


def _dilog_of_log(u):
    """Li2(1 - e^-u) for |u| <= log 2, Horner in u (the series converges for |u| < 2 pi)."""
    total = snp.zeros_like(u)
    for coefficient in reversed(_DILOG):
        total = total * u + coefficient
    return total * u


def _spence_value(x):
    mid = (x >= 0.5) & (x <= 2)
    low = (x > 0) & (x < 0.5)
    high = x > 2
    xm = snp.where(mid, x, 1.0)
    xl = snp.where(low, x, 0.25)
    xh = snp.where(high & snp.isfinite(x), x, 4.0)
    value_mid = _dilog_of_log(-snp.log(xm))  # Li2(1 - x), u = -log x
    # log(1 - x): XLA's CPU log1p was 1e-14 relative off at -0.399, so log1p only where the argument is small
    log_1mx = snp.where(xl < 0.25, snp.log1p(-xl), snp.log(1 - xl))
    value_low = _PI2_6 - snp.log(xl) * log_1mx - _dilog_of_log(-log_1mx)  # reflection
    log_h = snp.log(xh - 1)
    value_high = -_PI2_6 - 0.5 * log_h * log_h - _dilog_of_log(snp.log((xh - 1) / xh))  # inversion
    value = snp.where(mid, value_mid, snp.where(low, value_low, value_high))
    value = snp.where(x == 0, _PI2_6, snp.where(x == math.inf, -math.inf, value))
    value = snp.where(x == 1, 0.0, value)  # +0 (the series' u = -0 would give -0)
    return snp.where((x < 0) | snp.isnan(x), math.nan, value)


_SPENCE_NEAR_ONE = 1 / 64


def _spence_slope(x):
    """log x / (1 - x); within 1/64 of x = 1 the series -sum_k (-u)^k / (k + 1), u = x - 1 (-1 at
    x = 1, and its slope 1/2 there, which a constant -1 spliced in would make 0)."""
    near = snp.abs(x - 1) < _SPENCE_NEAR_ONE
    u = snp.where(near, x - 1, 0.0)
    series = snp.zeros_like(x)
    for k in reversed(range(12)):  # |u|^12 / 13 < 1e-22
        series = series * (-u) + 1 / (k + 1)
    safe = snp.where(near, 2.0, x)
    return (snp.where(near, -series, snp.log(safe) / (1 - safe)),)


def _spence_curvature(x):
    """The slope's slope (1 - x + x log x) / (x (1 - x)^2): +inf at +-0, where its two terms 1/x and
    log x would make inf - inf; within 1/64 of 1 the series sum_k (k + 1) (-u)^k / (k + 2), u = x - 1
    (1/2 at 1)."""
    near = snp.abs(x - 1) < _SPENCE_NEAR_ONE
    u = snp.where(near, x - 1, 0.0)
    series = snp.zeros_like(x)
    for k in reversed(range(12)):
        series = series * (-u) + (k + 1) / (k + 2)
    safe = snp.where(near | (x == 0), 2.0, x)
    closed = (1 / safe - 1 + snp.log(safe)) / (1 - safe) / (1 - safe)  # x (1 - x)^2 overflows from 1e103
    return (snp.where(near, series, snp.where(x == 0, math.inf, closed)),)


_spence_slope_value = with_partials("spence_slope", lambda x: _spence_slope(x)[0], _spence_curvature)
_spence = with_partials("spence", _spence_value, lambda x: (_spence_slope_value(x),))


def spence(x):
    """Spence's function integral_1^x log t / (1 - t) dt = Li2(1 - x) for x >= 0 (scipy's convention):
    pi^2/6 at +-0, nan for x < 0; -inf at inf (its limit; scipy: nan); derivative log x / (1 - x)."""
    (x,) = _floats(x)
    return _spence(x)


__all__ = ["dawsn", "erfcx", "exp1", "expi", "expn", "fresnel", "sici", "spence"]
