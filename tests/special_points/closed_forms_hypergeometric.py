"""The float64 references of hyp1f1's sweep (value, and its x-slopes (a / b) 1F1(a + 1; b + 1; x),
a (a + 1) / (b (b + 1)) 1F1(a + 2; b + 2; x)): scipy.special.hyp1f1, except where it is off:

- -2.5 <= x < 0 (its series cancels: 4e86 relative off at (1e4, 0.1, -1), 3 ulps at (1, 0.1, -1)) and a
  tiny b (0 < |b| < 1e-20: its terms overflow; (2, tiny, -2) = -0.7293, scipy -0.1353): the series
  in decimals of enough digits to hold every term's cancellation (exact there: |x| <= 2.5);
- x = -max where scipy gives nan: Gamma(b) / Gamma(b - a) (-x)^-a; a = 0: slopes 0;
- x = -inf: the limit Gamma(b) / Gamma(b - a) (-x)^-a (0 for a > 0 or a 1 / Gamma(b - a) of 0,
  1 at a = 0, else +-inf with that ratio's sign; a polynomial's (a = -n) leading term's sign
  (b)_n for n! / (b)_n (-x)^n / n!), where scipy gives nan or the wrong sign;
- a = b = inf: nan (1F1(a; a; x) = e^x along a = b, 1 for b -> inf first; scipy 1);
- the slopes of 1 + x = 1F1(-1; -1; x): 1 and 0 (scipy's 1F1(0; 0; x) is a pole's inf).
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import scipy.special as sp

from .closed_forms import quiet

_TINY_B = 1e-20
_REACH = 2.5


def _nonpositive_integer(v):
    return (v <= 0) & (v == np.floor(v))


def _decimal_series(a, b, x: float) -> Decimal:
    """sum_k (a)_k / (b)_k x^k / k! in decimals: 40 digits past the largest term's size."""
    digits = (
        60
        + (330 if 0 < abs(float(b)) < _TINY_B else 0)
        + int(2 * math.sqrt(abs(float(a) * x)) / math.log(10))
    )
    with localcontext() as ctx:
        ctx.prec = digits
        a_, b_, x_ = Decimal(a), Decimal(b), Decimal(x)
        term = total = Decimal(1)
        for k in range(20000):
            term = term * (a_ + k) / (b_ + k) * x_ / (k + 1)
            total += term
            if term == 0 or (k > 50 and abs(term) < abs(total) * Decimal(10) ** (-40)):
                break
        return +total


def _scaled(scale_num, scale_den, a, b, x) -> float:
    """scale_num / scale_den times the decimal series, rounded once (inf past the largest float)."""
    value = Decimal(scale_num) / Decimal(scale_den) * _decimal_series(a, b, x)
    try:
        return float(value)
    except OverflowError:
        return math.copysign(math.inf, value)


def _at_minus_inf(a, b):
    """The limit of 1F1(a; b; x) as x -> -inf (module docstring)."""
    n = np.where(_nonpositive_integer(a), -a, 0.0)
    poly_sign = np.array(
        [np.sign(sp.poch(bb, nn)) if nn > 0 else 1.0 for bb, nn in zip(b.ravel(), n.ravel())]
    )
    poly_sign = poly_sign.reshape(np.shape(a))
    ratio_sign = np.sign(sp.gamma(b)) * np.sign(sp.gamma(np.where(_nonpositive_integer(b - a), 0.5, b - a)))
    vanishes = (a > 0) | (_nonpositive_integer(b - a) & ~_nonpositive_integer(a))
    grows = np.where(_nonpositive_integer(a), poly_sign, ratio_sign) * np.inf
    return np.where(a == 0, 1.0, np.where(vanishes, 0.0, grows))


def _shifted(a, b, x, shift: int):
    """The reference of 1F1(a + shift; b + shift; x) times (a)_shift / (b)_shift (the x-slope of
    that order); scipy where it is right, decimals where it is not (module docstring)."""
    a, b, x = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, x)))
    factor = sp.poch(a, shift) / sp.poch(b, shift) if shift else np.ones_like(a)
    value = factor * sp.hyp1f1(a + shift, b + shift, x) if shift else sp.hyp1f1(a, b, x)
    value = np.array(value, np.float64)
    near = np.isfinite(x) & (np.abs(x) <= _REACH) & np.isfinite(a) & np.isfinite(b) & (x != 0)
    cancels = x < 0
    tiny = (b != 0) & (np.abs(b) < _TINY_B)
    for i in zip(*np.nonzero(near & (cancels | tiny) & ~_nonpositive_integer(b))):
        p, q, r = float(a[i]), float(b[i]), float(x[i])
        num = den = Decimal(1)
        for k in range(shift):
            num, den = num * (Decimal(p) + k), den * (Decimal(q) + k)
        # b + shift rounds to an integer for a tiny b: keep b's own value in the decimal series
        value[i] = _scaled(num, den, Decimal(p) + shift, Decimal(q) + shift, r)
    # a = b = -1: 1 + x (the series ends at a = b), slopes 1 and 0 (scipy's 1F1(0; 0; x) is a pole's inf)
    unit = (a == -1) & (b == -1) & ~np.isnan(x)
    value = np.where(unit & (shift > 0), 1.0 if shift == 1 else 0.0, value)
    # x = -max (either dtype's) where scipy gives nan: Gamma(b) / Gamma(b - a) (-x)^-a (the
    # asymptotic series' other terms are 1 / max smaller), of a + shift and b + shift
    far = (x < -1e38) & np.isfinite(x) & np.isnan(value) & (a > 0) & np.isfinite(b) & (b > 0)
    shifted_a, shifted_b = a + shift, b + shift
    log_ratio = sp.gammaln(shifted_b) - sp.gammaln(b - a) - shifted_a * np.log(-x)
    value = np.where(far, factor * np.sign(sp.gamma(b - a)) * np.exp(log_ratio), value)
    # a = 0: 1F1 = 1 for every x, its slopes 0
    value = np.where((a == 0) & (shift > 0) & ~np.isnan(x) & ~_nonpositive_integer(b), 0.0, value)
    if shift == 0:
        at_inf = x == -np.inf
        # not at a pole b = 0, -1, ... (inf, scipy's) unless a = -n >= b ends the series first
        ends_first = _nonpositive_integer(a) & (a >= b) & (a != 0)
        limit = at_inf & np.isfinite(a) & np.isfinite(b) & (~_nonpositive_integer(b) | ends_first)
        value = np.where(limit, _at_minus_inf(a, b), value)
        value = np.where((a == np.inf) & (b == np.inf), np.nan, value)
    return value


def hyp1f1_value(a, b, x):
    return quiet(_shifted)(a, b, x, 0)


def hyp1f1_slopes(order: int):
    """The x-derivative of that order: d1 [d/dx], d2 [d^2/dx^2] (the sweep's wrt=(2,))."""
    return quiet(lambda a, b, x: [_shifted(a, b, x, order)])
