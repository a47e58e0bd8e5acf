"""The derivatives of bessel_i0e and bessel_i1e without the cancellation of their textbook forms.

i0e' = i1e - sign(x) i0e and i1e' = i0e - i1e (sign(x) + 1/x) subtract two numbers that agree in
their leading digits as |x| grows (both tend to 1 / sqrt(2 pi |x|)): at x = 1e4 the difference keeps
4 of float64's 16 digits, at 1e154 none (the slope is rounding noise of 1e-171 where the true one
is 1e-232). Past ``FAR`` the slopes are Hankel's expansions of the differences themselves,
(2 pi |x|)^(-1/2) sum_k d_k |x|^-k, whose coefficients are the exact differences of the two
functions' coefficients; nearer, the textbook forms. float32 slopes are computed in float64 and
rounded: in float32 the cancellation (250x at x = 10 in the second derivative) leaves 5 digits.
Being graph expressions, the slopes differentiate again (the second derivatives use them too).

Between 1 and FAR the textbook i1e' and its derivative i1e'' = i1e (2 + 2/x + 2/x^2) - i0e (2 + 1/x)
cancel too (30-1000x; i1e'' crosses 0 at |x| = 2.78, i1e' at 1.56): i1e'' was 1792 ulps off at 2.75,
505 at 3, i1e' 130 at 1.5. There i1e' is a Taylor polynomial about a center per band (``BANDS``), whose
exact coefficients (``_i1e_slope_taylor``) carry no cancellation, and so is its derivative.
"""

from __future__ import annotations

import functools
import math
from decimal import Decimal, localcontext
from fractions import Fraction

from . import ad_util as ad
from . import prims
from .registry import bind, lookup

FAR = 30.0  # from here 24 terms of Hankel's series are within 3e-16 relative of the slopes
_TERMS = 24


def _hankel(nu: int) -> list[Fraction]:
    """The coefficients c_0 .. c_TERMS of sqrt(2 pi x) e^-x I_nu(x) = sum_k c_k x^-k (x -> +inf),
    each from the one before."""
    coefficients = [Fraction(1)]
    for j in range(1, _TERMS + 1):
        coefficients.append(coefficients[-1] * Fraction(-(4 * nu * nu - (2 * j - 1) ** 2), 8 * j))
    return coefficients


@functools.cache
def _slope_coefficients() -> tuple[list[float], list[float]]:
    """The d_k of i1e - i0e and of i0e - i1e (1 + 1/x) for x > 0, as sums d_k x^-k times
    (2 pi x)^(-1/2): exact fractions rounded once, worked out at the first derivative that needs
    them rather than at import."""
    c0, c1 = _hankel(0), _hankel(1)
    i0e_slope = [float(c1[k] - c0[k]) for k in range(_TERMS + 1)]
    i1e_slope = [float(c0[k] - c1[k] - (c1[k - 1] if k else 0)) for k in range(_TERMS + 1)]
    return i0e_slope, i1e_slope


# (low, center): |x| from low to the next band's low (FAR for the last) takes the Taylor polynomial of
# i1e' about center (exact in float64, as is |x| - center); the second center is next to the zero of
# i1e'' (2.7815)
BANDS = (
    (1.0, Fraction(13, 8)),
    (2.25, Fraction(89, 32)),
    (4.0, Fraction(6)),
    (8.0, Fraction(11)),
    (14.0, Fraction(18)),
    (22.0, Fraction(26)),
)
_BAND_TERMS = 34  # |x| - center within 0.33 center (0.65 in the first band): 10 ulps of i1e' and i1e''


@functools.cache
def _i1e_slope_taylor(center: Fraction, terms: int = _BAND_TERMS) -> tuple[float, ...]:
    """The Taylor coefficients in h of d/dx e^-x I1(x) at x = center + h, from exact rationals: I1's
    power series shifted to center, times e^-h's series, times e^-center (to 40 digits). Computed
    when a graph first differentiates i1e (tens of ms: not at import)."""
    series = {
        2 * k + 1: Fraction(1, 2 ** (2 * k + 1) * math.factorial(k) * math.factorial(k + 1))
        for k in range(90)
    }
    shifted = [
        sum(a * math.comb(p, n) * center ** (p - n) for p, a in series.items() if p >= n)
        for n in range(terms + 1)
    ]
    exp_minus_h = [Fraction((-1) ** n, math.factorial(n)) for n in range(terms + 1)]
    with localcontext() as context:
        context.prec = 40
        scale = Fraction((-Decimal(center.numerator) / Decimal(center.denominator)).exp())
    b = [scale * sum(shifted[j] * exp_minus_h[n - j] for j in range(n + 1)) for n in range(terms + 1)]
    return tuple(float((n + 1) * b[n + 1]) for n in range(terms))


def _ew(name: str, *xs):
    return bind(lookup(name), *xs)


def _far_series(ax, coefficients):
    """(2 pi ax)^(-1/2) sum_k coefficients[k] ax^-k, for ax >= FAR (rsqrt(ax) first: 2 pi ax overflows
    at the largest floats, whose slopes are 0)."""
    t = ad.div(ad.full_like(ax, 1.0), ax)
    total = ad.full_like(ax, coefficients[-1])
    for c in reversed(coefficients[:-1]):
        total = ad.add(ad.mul(total, t), ad.full_like(ax, c))
    return ad.scale(ad.mul(_ew("rsqrt", ax), total), 1 / math.sqrt(2 * math.pi))


def _split(x):
    """(far, the argument the near form sees, |x| the far form sees): each branch sees a harmless
    stand-in where the other is chosen, so no nan or inf leaks into the derivative of the other."""
    ax = _ew("abs", x)
    far = prims.compare(ax, ad.full_like(ax, FAR), "GE")
    near_x = ad.select(far, ad.full_like(x, 1.0), x)
    far_ax = ad.select(far, ax, ad.full_like(ax, FAR))
    return far, near_x, far_ax


def _in_float64(slope, x):
    """``slope`` of float32 x computed in float64 and rounded (float64 as it is)."""
    if x.dtype.bits >= 64:
        return slope(x)
    return prims.convert(slope(prims.convert(x, "float64")), x.dtype)


def _i0e_slope64(x):
    i0e, i1e = lookup("bessel_i0e"), lookup("bessel_i1e")
    far, near_x, far_ax = _split(x)
    near = ad.sub(bind(i1e, near_x), ad.mul(_ew("sign", near_x), bind(i0e, near_x)))
    # i0e is even: its slope is odd, sign(x) times the slope at |x|
    return ad.select(far, ad.mul(_ew("sign", x), _far_series(far_ax, _slope_coefficients()[0])), near)


def _i1e_slope64(x):
    i0e, i1e = lookup("bessel_i0e"), lookup("bessel_i1e")
    far, near_x, far_ax = _split(x)
    # near 0, where 1/x blows up, the slope tends to 1/2
    eps = float(2.0**-52)
    small = prims.compare(_ew("abs", near_x), ad.full_like(near_x, eps), "LE")  # not nan
    safe = ad.select(small, ad.full_like(near_x, eps), near_x)
    inverse = ad.div(ad.full_like(safe, 1.0), safe)
    near = ad.sub(bind(i0e, safe), ad.mul(bind(i1e, safe), ad.add(_ew("sign", safe), inverse)))
    near = ad.select(small, ad.full_like(x, 0.5), near)
    # from 1 to FAR, the Taylor polynomials (module docstring): one Horner chain whose center and
    # coefficients are picked per band (constants: the derivatives differentiate one chain, not six)
    ax = _ew("abs", x)
    center = ad.full_like(ax, float(BANDS[0][1]))
    coefficients = [ad.full_like(ax, c) for c in _i1e_slope_taylor(BANDS[0][1])]
    in_bands = prims.compare(ax, ad.full_like(ax, BANDS[0][0]), "GE")
    for low, c in BANDS[1:]:
        band = prims.compare(ax, ad.full_like(ax, low), "GE")
        center = ad.select(band, ad.full_like(ax, float(c)), center)
        coefficients = [
            ad.select(band, ad.full_like(ax, b), a) for a, b in zip(coefficients, _i1e_slope_taylor(c))
        ]
    in_bands = prims.and_(in_bands, prims.compare(ax, ad.full_like(ax, FAR), "LT"))
    h = ad.sub(ad.select(in_bands, ax, center), center)
    polynomial = coefficients[-1]
    for c in reversed(coefficients[:-1]):
        polynomial = ad.add(ad.mul(polynomial, h), c)
    near = ad.select(in_bands, polynomial, near)
    # i1e is odd: its slope is even, the slope at |x|
    return ad.select(far, _far_series(far_ax, _slope_coefficients()[1]), near)


def i0e_slope(x):
    """d/dx e^-|x| I0(x) = i1e(x) - sign(x) i0e(x), without its cancellation (module docstring)."""
    return _in_float64(_i0e_slope64, x)


def i1e_slope(x):
    """d/dx e^-|x| I1(x) = i0e(x) - i1e(x) (sign(x) + 1/x) (1/2 at 0), without its cancellation."""
    return _in_float64(_i1e_slope64, x)


__all__ = ["FAR", "i0e_slope", "i1e_slope"]
