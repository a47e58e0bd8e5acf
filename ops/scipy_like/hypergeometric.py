"""The confluent and Gauss hypergeometric functions 1F1(a; b; x) and 2F1(a, b; c; x) of real
arguments, scipy.special.hyp1f1 and hyp2f1 (ops layer, user-facing through sg.scipy.special).

Both are computed in float64 (float32 arguments are rounded once at the end) from their power
series, summed in a fori_loop to a fixed number of terms (a term that reaches 0, as for a = -n,
stays 0), moved first to where the series converges fast:

- 1F1: Kummer's transformation 1F1(a; b; x) = e^x 1F1(b - a; b; -x) for x < 0 (the series of a
  negative x cancels; jax's is wrong there), except for a terminating series (a = 0, -1, ...);
  past x = 60 + 2 |a| + 2 |b| the asymptotic series Gamma(b) / Gamma(a) e^x x^(a - b)
  sum_k (b - a)_k (1 - a)_k / (k! x^k), its prefactor in logarithms so that it overflows only
  where the value does; for -30 <= x < 0 and a > b + 1 (where Kummer's series cancels too) the
  three-term recurrence in a from a start near b; for a tiny b (whose terms overflow through
  a / b) 1 + (a x / b) G with G's first two orders in b.
- 2F1: Pfaff's transformation (1 - x)^(-a) 2F1(a, c - b; c; x / (x - 1)) for x < 0 (or its
  variant with a and b swapped, where that one's series has the smaller parameters; past x = -19
  the smaller of a, b first), its 1 - z = 1 / (1 - x) carried beside z (z rounds to 1 for
  x < -2^53, where the 1 - z transformation below then gives the 1 / x transformation's terms); the series
  up to x = 0.95 (1000 terms); on (0.95, 1) the 1 - x transformation (two series in 1 - x, with
  Gamma ratios) where c - a - b is not an integer, its limit (with digamma terms) where it is one
  of -60 .. 60, a terminating series directly or after Euler's transformation; Gauss's sum at
  x = 1. A terminating 2F1 (a or b = 0, -1, ...) is its finite sum off [0, 1), also for x >= 1
  (where every other real 2F1 is complex: nan).

The derivative in x is the closed form d/dx 1F1(a; b; x) = (a / b) 1F1(a + 1; b + 1; x) and
d/dx 2F1 = (a b / c) 2F1(a + 1, b + 1; c + 1; x); the derivatives in the parameters are the
term-by-term derivatives of the same series through the same transformations
(hypergeometric_params.py).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ...graph import library
from .. import numpy_like as snp
from ..control_api import fori_loop, while_loop
from ..custom_vjp import custom_vjp
from ..primitives import transcendental as tr
from ..primitives.registry import bind
from .float_args import float_args as _floats
from .hypergeometric_params import hyp1f1_parameter_slopes, hyp2f1_parameter_slopes
from .hypergeometric_terms import (
    _1F1_ASYMPTOTIC_TERMS,
    _1F1_TERMS,
    _2F1_MIDDLE,
    _2F1_MIDDLE_TERMS,
    _2F1_NEAR_TERMS,
    _2F1_TERMS,
    _FINITE_TERMS,
    _gamma_sign,
    _lgamma,
    _nonpositive_integer,
    unit_interval_branches,
)
from .log_beta import gamma_ratio_log


def _rgamma(x):
    """1 / Gamma(x), 0 at the poles."""
    pole = _nonpositive_integer(x)
    safe = snp.where(pole, 1.0, x)
    return snp.where(pole, 0.0, _gamma_sign(safe) * snp.exp(-_lgamma(safe)))


def _gamma(x):
    """Gamma(x), inf at the poles."""
    pole = _nonpositive_integer(x)
    safe = snp.where(pole, 1.0, x)
    return snp.where(pole, math.inf, _gamma_sign(safe) * snp.exp(_lgamma(safe)))


def _gamma_product(over, under):
    """prod Gamma(over) / prod Gamma(under): directly (0 at a pole below, inf at one above), and
    from lgamma where that overflows to inf * 0 or inf without a pole (Gamma(1e4) / (Gamma(0.5)
    Gamma(9999.5)) = 56.4 was nan)."""
    direct = snp.ones_like(over[0])
    for v in over:
        direct = direct * _gamma(v)
    for v in under:
        direct = direct * _rgamma(v)
    pole = _nonpositive_integer(over[0])
    for v in (*over[1:], *under):
        pole = pole | _nonpositive_integer(v)
    log_size, sign = 0.0, 1.0
    for v, side in [(v, 1.0) for v in over] + [(v, -1.0) for v in under]:
        safe = snp.where(pole, 1.0, v)
        log_size = log_size + side * _lgamma(safe)
        sign = sign * _gamma_sign(safe)
    lost = ~pole & (~snp.isfinite(direct) | (direct == 0))
    return snp.where(lost, sign * snp.exp(log_size), direct)


def _series(ratio, like, terms: int):
    """1 + sum_k t_k with t_0 = 1 and t_(k+1) = t_k * ratio(k) (a float64 k); a term that reaches
    0 stays 0 (a terminating series, whose next ratio may be 0 / 0)."""

    def body(i, carry):
        term, total = carry
        k = i.astype("float64")
        term = snp.where(term == 0, 0.0, term * ratio(k))
        return term, total + term

    _, total = fori_loop(0, terms, body, (snp.ones_like(like), snp.ones_like(like)))
    return total


# -- 1F1 ----------------------------------------------------------------------------------------


def _m_series(a, b, x):
    # the ratio is 0 where a + k is, also where b + k is too (a = b = -n: the series ends)
    return _series(lambda k: snp.where(a + k == 0, 0.0, (a + k) / (b + k)) * x / (k + 1), x, _1F1_TERMS)


def _m_asymptotic(a, b, x, log_prefactor, power):
    """e^log_prefactor 1F1(a; b; x) for large x > 0 (a not a pole of Gamma); power: a - b, given
    exactly (Kummer's b - a - b rounds: 1e-17 off times log x = 709 was 100 ulps at x = -max)."""
    term, total = snp.ones_like(x), snp.ones_like(x)
    for k in range(_1F1_ASYMPTOTIC_TERMS):
        term = term * (b - a + k) * (1 - a + k) / ((k + 1) * x)
        total = total + term
    # e^x first against Kummer's e^-x (their sum is exact: at x = -max Gamma's terms would round away)
    # log Gamma(b) - log Gamma(a): without lgamma's cancellation where both are large (at b = 1e4
    # the logs of 8e4 cost 2e-11 relative) by the Stirling ratio of Gamma(b) / Gamma(b + power)
    large = (b >= 8) & (a >= 8)
    ratio = snp.where(
        large,
        gamma_ratio_log(snp.where(large, power, 0.0), snp.where(large, b, 8.0)),
        _lgamma(b) - _lgamma(a),
    )
    log_size = (log_prefactor + x) + ratio + power * snp.log(x)
    return _gamma_sign(b) * _gamma_sign(a) * snp.exp(log_size) * total


def _hyp1f1_at_minus_inf(a, b):
    """The limit of 1F1(a; b; x) as x -> -inf: Gamma(b) / Gamma(b - a) (-x)^(-a) (Kummer's
    transformation and the asymptotic series), so 0 for a > 0 or where b - a is a pole (the rest
    e^x times a polynomial), 1 at a = 0, else inf with that Gamma ratio's sign (also for a = -n:
    the polynomial's leading term (a)_n / (b)_n x^n / n!, whose sign is that ratio's)."""
    vanishes = (a > 0) | (_nonpositive_integer(b - a) & ~_nonpositive_integer(a))
    grows = _gamma_sign(b) * _gamma_sign(b - a) * math.inf
    return snp.where(a == 0, 1.0, snp.where(vanishes, 0.0, grows))


_RECURRENCE_REACH = 30.0  # x down to -30: beyond, the recurrence's start loses the small solution
_RECURRENCE_STEPS = 1e5  # the largest a - b it steps through
_SMALL_B = 1e-20  # b + 1 rounds to 1, and b^2 is far below any term's rounding


def _kummer_series(a, b, x):
    """e^x 1F1(b - a; b; -x) by its series (Kummer's transformation)."""
    return snp.exp(x) * _m_series(b - a, b, -x)


def _recurrence_in_a(a, b, x):
    """1F1(a; b; x) for -30 <= x < 0 and a > b + 1 (every point where _uses_recurrence): Kummer's
    series of 1F1(b - a; b; -x) has terms of size e^(2 sqrt((a - b) |x|)) that cancel (at (1e4, 0.1,
    -1) to 18.64 from 1e86), so start at a0 = a - n in (b + 1, b + 2], where that series is short,
    and step up to a by a M(a + 1) = (2a - b + x) M(a) + (b - a) M(a - 1) (A&S 13.4.1). Forward is
    stable here (both solutions oscillate): the rounding grows with the n steps, 2e-11 relative at
    a - b = 1e4."""
    n = snp.floor(a - b) - 1
    a0 = a - n
    start = (snp.zeros_like(x), _kummer_series(a0 - 1, b, x), _kummer_series(a0, b, x))

    def body(carry):
        i, before, at = carry
        s = a0 + i
        step = i < n
        after = ((2 * s - b + x) * at + (b - s) * before) / s
        return i + 1, snp.where(step, at, before), snp.where(step, after, at)

    _, _, value = while_loop(lambda carry: snp.any(carry[0] < n), body, start)
    return value


def _uses_recurrence(a, b, x, terminating):
    return (
        (x < 0) & (x >= -_RECURRENCE_REACH) & (a > b + 1) & ((a - b) * -x > 4) & (a - b <= _RECURRENCE_STEPS)
        & ~terminating & snp.isfinite(b)
    )  # fmt: skip


def _small_b(a, b, x, g0):
    """1F1(a; b; x) for 0 < |b| < 1e-20 and |x| <= 30, given g0 = 1F1(a + 1; 2; x): the series'
    terms pass through a / b and overflow, so write it 1 + (a x / b) G with G = sum_j (a + 1)_j /
    (b + 1)_j x^j / (j + 1)! = g0 + b G1 + O(b^2), G1 = -sum_j (a + 1)_j x^j H_j / (j! (j + 1)!)
    (H_j the harmonic numbers). G1 matters where g0 vanishes: 1F1(3; 2; -2) = 0, so 1F1(2; b; -2)
    = 1 + a x G1 = -e^-2 as b -> 0."""

    def body(j, carry):
        term, harmonic, total, size = carry
        k = j.astype("float64")
        term = term * (a + 1 + k) * x / ((k + 1) * (k + 2))
        harmonic = harmonic + 1 / (k + 1)
        return term, harmonic, total + term * harmonic, size + snp.abs(term * harmonic)

    zero = snp.zeros_like(x)
    _, _, g1, size = fori_loop(0, _1F1_TERMS, body, (snp.ones_like(x), zero, zero, zero))
    # a x g0 / b in an order that neither overflows (a / b = 9e307 times x = -2) nor flushes to 0
    # (a x at a = b = tiny)
    ratio = a / b
    flushed = (x * g0 == 0) & (x != 0) & (g0 != 0)
    leading = snp.where(flushed, ratio * x * g0, ratio * (x * g0))
    leading = snp.where(snp.isfinite(ratio), leading, a * x * g0 / b)
    # a large a next to x < 0: G1's terms (1e87 at a = 1e4) cancel; drop it where its rounding
    # would pass the value itself (there g0 / b holds the value: G1's true part is b-small)
    kept = snp.isfinite(g1) & (snp.abs(a * x) * size * 1e-15 < 1 + snp.abs(leading))
    return 1 + leading + a * x * snp.where(kept, -g1, 0.0)


def _hyp1f1_core(a, b, x):
    terminating = _nonpositive_integer(a)
    kummer = (x < 0) & ~terminating
    a2 = snp.where(kummer, b - a, a)
    x2 = snp.where(kummer, -x, x)
    log_prefactor = snp.where(kummer, x, 0.0)
    far = (x2 > 60 + 2 * snp.abs(a2) + 2 * snp.abs(b)) & ~_nonpositive_integer(a2) & snp.isfinite(x2)
    series = snp.exp(log_prefactor) * _m_series(a2, b, snp.where(far | ~snp.isfinite(x2), 0.0, x2))
    asymptotic = _m_asymptotic(
        snp.where(far, a2, 0.5),
        snp.where(far, b, 1.0),
        snp.where(far, x2, 100.0),
        log_prefactor,
        snp.where(far, snp.where(kummer, -a, a - b), -0.5),
    )
    value = snp.where(far, asymptotic, series)
    recurrence = _uses_recurrence(a, b, x, terminating)
    # its mirror image, x > 0 and a <= -4 (Kummer's b - a > b + 1 at -x): the series of a negative a
    # cancels there (1F1(-26.7; 0.037; 18.8) = 8.0e5 kept 6 digits, 1F1(-100.3; 1.5; 25) came out
    # 1.8e16 times too large), so e^x times the recurrence at Kummer's image, where it oscillates (x <
    # -2a: 1e-15 .. 3e-11 relative; past that, and for a > -4, the series keeps more digits)
    mirrored = _uses_recurrence(b - a, b, -x, terminating) & (a <= -4) & (x < -2 * a)
    stepped = _recurrence_in_a(
        snp.where(recurrence, a, snp.where(mirrored, b - a, 2.5)),
        snp.where(recurrence | mirrored, b, 1.0),
        snp.where(recurrence, x, snp.where(mirrored, -x, -1.0)),
    )
    value = snp.where(recurrence, stepped, snp.where(mirrored, snp.exp(x) * stepped, value))
    value = snp.where(x == -math.inf, _hyp1f1_at_minus_inf(a, b), value)
    value = snp.where(x == 0, 1.0, value)
    # b a pole of Gamma: inf, unless the series ends first (a = -n >= b; as scipy, not a = 0)
    ends_first = terminating & (a >= b) & (a != 0)
    pole = _nonpositive_integer(b) & ~ends_first
    value = snp.where(pole, math.inf, value)
    value = snp.where(a == 0, snp.where(_nonpositive_integer(b), value, 1.0), value)
    value = snp.where(b == math.inf, 1.0, value)
    value = snp.where((x == math.inf) & (a > 0), math.inf, value)
    # b = inf at x = +-inf: 1 (b first) or the x -> -inf limit (x first); a = inf: 1 at x = 0 only
    undefined = snp.isnan(a) | snp.isnan(b) | snp.isnan(x) | (snp.isinf(a) & ~pole & (x != 0))
    undefined = undefined | ((b == math.inf) & snp.isinf(x) & (a != 0))
    return snp.where(undefined, math.nan, value)


def _hyp1f1_64(a, b, x):
    """_hyp1f1_core, and _small_b where b is tiny (its 1F1(a + 1; 2; x) from the same core call:
    the points stacked on a leading axis, one copy of the graph)."""
    a, b, x = snp.broadcast_arrays(a, b, x)
    small = (b != 0) & (snp.abs(b) < _SMALL_B) & (snp.abs(x) <= _RECURRENCE_REACH) & snp.isfinite(a)
    both = _hyp1f1_core(
        snp.stack([a, snp.where(small, a + 1, 1.0)]),
        snp.stack([b, snp.where(small, 2.0, 1.0)]),
        snp.stack([x, snp.where(small, x, 0.0)]),
    )
    value, g0 = both[0], both[1]
    tiny_b = _small_b(snp.where(small, a, 1.0), snp.where(small, b, 1.0), snp.where(small, x, 0.0), g0)
    # x = 0 stays 1 (scipy's); nan in, nan out
    return snp.where(small & (x != 0) & ~snp.isnan(a), tiny_b, value)


def _hyp1f1_value(a, b, x):
    return _hyp1f1_64(a.astype("float64"), b.astype("float64"), x.astype("float64")).astype(x.dtype)


def _with_value_partials(name: str, value, partials):
    """``value(*xs)`` whose derivative in ``xs[i]`` is ``partials(y, *xs)[i]``, y the value: as
    partials.with_partials, with the value handed to the partials (not traced again for them)."""
    f = custom_vjp(value)
    f.__name__ = name

    def fwd(*xs):
        y = value(*xs)
        return y, (y, *xs)

    def bwd(saved, g):
        return tuple(snp.multiply(g, d) for d in partials(*saved))

    f.defvjp(fwd, bwd)
    return f


def _hyp1f1_partials(y, a, b, x):
    wide = [v.astype("float64") for v in (a, b, x, y)]
    slope_a, slope_b = (s.astype(x.dtype) for s in hyp1f1_parameter_slopes(*wide))
    shifted = _hyp1f1_in_slope(a + 1, b + 1, x)
    # a tiny b: a / b alone overflows where (a / b) 1F1(a + 1; b + 1; x) does not (a tiny a too:
    # a 1F1(...) would flush to 0)
    ratio = a / b
    by_ratio = snp.isfinite(ratio) | (b == 0)
    # the branch not taken is 0 (its slope, the second derivative's, would be 0 * inf = nan)
    slope_x = snp.where(
        by_ratio,
        snp.where(by_ratio, ratio, 0.0) * shifted,
        snp.where(by_ratio, 0.0, a) * shifted / snp.where(by_ratio, 1.0, b),
    )
    # a = b = -1: 1 + x (the series ends at a = b), whose slope 1F1(0; 0; x) is 1, not the pole's inf
    slope_x = snp.where((a == -1) & (b == -1) & ~snp.isnan(x), snp.ones_like(slope_x), slope_x)
    return slope_a, slope_b, slope_x


_hyp1f1 = _with_value_partials("hyp1f1", _hyp1f1_value, _hyp1f1_partials)
# 1F1 inside its own slope: a second custom_vjp object, so the second derivative in x is the closed
# form again (inside _hyp1f1's backward a call of _hyp1f1 is its plain value)
_hyp1f1_in_slope = _with_value_partials("hyp1f1", _hyp1f1_value, _hyp1f1_partials)


@library()
def hyp1f1(a, b, x):
    """The confluent hypergeometric function 1F1(a; b; x) = sum_k (a)_k / (b)_k x^k / k! of real
    a, b, x (scipy's values: inf at the poles b = 0, -1, ... unless a = -n >= b ends the series, 1
    at x = 0 short of a pole, Kummer's transformation for x < 0; at x = -inf the limit
    Gamma(b) / Gamma(b - a) (-x)^-a: 0, 1 or +-inf); derivative in x (a / b) 1F1(a + 1; b + 1; x), in a and b the
    series' term-by-term derivatives (finite at a = -n; nan where the value is inf or nan, and in a
    at the poles b = 0, -1, ...); second derivatives in x by the closed form, in a and b through the
    derivative series' own chain rule. Not yet right: x < -30 or a - b > 1e5 next to a > b + 1
    (Kummer's series cancels), and there the slopes in a and b for every x < 0 (they sum Kummer's
    series still)."""
    a, b, x = _floats(a, b, x)
    return _hyp1f1(a, b, x)


# -- 2F1 ----------------------------------------------------------------------------------------


class _Complement(NamedTuple):
    """1 - x for 2F1's 1 - x transformation, carried beside x: after Pfaff's transformation
    z = x / (x - 1) rounds to 1 for x < -2^53 (and 1 - z keeps few digits well before), while
    1 - z = 1 / (1 - x) is known to one rounding from the original x; at x = -max it is subnormal
    (flushed to 0 here), so its logarithm and powers go through big = 1 - x instead."""

    y: object  # 1 - z (0 where it is subnormal)
    big: object  # 1 / (1 - z), given where it is exact (Pfaff's 1 - x), else 0: use y

    @staticmethod
    def of(z):
        return _Complement(1 - z, snp.zeros_like(z))

    def log(self):
        return snp.where(self.big > 0, -snp.log(snp.where(self.big > 0, self.big, 1.0)), snp.log(self.y))

    def power(self, d):
        return snp.where(
            self.big > 0, snp.power(snp.where(self.big > 0, self.big, 1.0), -d), snp.power(self.y, d)
        )

    def masked(self, mask, default: float):
        """This complement where mask holds, else that of z = default."""
        return _Complement(snp.where(mask, self.y, 1 - default), snp.where(mask, self.big, 0.0))


def _f_series(a, b, c, x, terms: int):
    # the ratio is 0 where a + k or b + k is, also where c + k is too (the series ends first)
    def ratio(k):
        return snp.where((a + k == 0) | (b + k == 0), 0.0, (a + k) * (b + k) / ((c + k) * (k + 1)) * x)

    return _series(ratio, x, terms)


def _one_minus_x(a, b, c, one_minus: _Complement):
    """2F1 for 1/2 < x < 1 with c - a - b not an integer: Gamma(c) Gamma(d) / (Gamma(c - a)
    Gamma(c - b)) F(a, b; 1 - d; 1 - x) + (1 - x)^d Gamma(c) Gamma(-d) / (Gamma(a) Gamma(b))
    F(c - a, c - b; 1 + d; 1 - x), d = c - a - b."""
    d = c - a - b
    y = one_minus.y
    first = _gamma_product((c, d), (c - a, c - b)) * _f_series(a, b, 1 - d, y, _2F1_NEAR_TERMS)
    second = (
        one_minus.power(d) * _gamma_product((c, -d), (a, b))
        * _f_series(c - a, c - b, 1 + d, y, _2F1_NEAR_TERMS)
    )  # fmt: skip
    return first + second


_TINY = 2.2250738585072014e-308  # the smallest normal float64: XLA flushes below it
_LOG_TERMS = 60  # (1 - x) <= 0.05: 0.05^60


def _digamma(x):
    return bind(tr.digamma, x)


def _integer_d(a, b, c, one_minus: _Complement):
    """2F1 for 0.95 < x < 1 where m = c - a - b is an integer 0 <= m <= 60 (a, b, a + m, b + m no
    poles): the limit of the 1 - x transformation (Abramowitz and Stegun 15.3.10-11),
    Gamma(m) Gamma(c) / (Gamma(a + m) Gamma(b + m)) sum_(n<m) (a)_n (b)_n / (n! (1 - m)_n) y^n
    - (-1)^m Gamma(c) / (Gamma(a) Gamma(b)) y^m sum_n (a + m)_n (b + m)_n / (n! (n + m)!) y^n
    (log y - psi(n + 1) - psi(n + m + 1) + psi(a + n + m) + psi(b + n + m)), y = 1 - x."""
    m = snp.rint(c - a - b)
    y = one_minus.y
    log_y = one_minus.log()

    def finite_body(i, carry):
        term, total = carry
        n = i.astype("float64")
        total = total + snp.where(n < m, term, 0.0)
        term = snp.where(n + 1 < m, term * (a + n) * (b + n) / ((n + 1) * (1 - m + n)) * y, 0.0)
        return term, total

    _, finite = fori_loop(0, _FINITE_TERMS, finite_body, (snp.ones_like(y), snp.zeros_like(y)))
    finite = snp.where(m > 0, _gamma_product((snp.maximum(m, 1.0), c), (a + m, b + m)) * finite, 0.0)

    def log_body(i, carry):
        term, total = carry
        n = i.astype("float64")
        psis = _digamma(n + 1 + 0 * y) + _digamma(n + m + 1) - _digamma(a + n + m) - _digamma(b + n + m)
        total = total + term * (log_y - psis)
        term = term * (a + m + n) * (b + m + n) / ((n + 1) * (n + m + 1)) * y
        return term, total

    first = snp.exp(-_lgamma(m + 1))  # 1 / m!
    _, series = fori_loop(0, _LOG_TERMS, log_body, (first, snp.zeros_like(y)))
    sign = snp.where(snp.remainder(m, 2) == 1, -1.0, 1.0)
    return finite - sign * _gamma_product((c,), (a, b)) * one_minus.power(m) * series


def _near_one(a, b, c, one_minus: _Complement):
    """2F1 for 0.95 < x < 1 with c - a - b an integer: _integer_d where it is 0 .. 60, after
    Euler's transformation (1 - x)^(c - a - b) 2F1(c - a, c - b; c; x) where it is -60 .. -1."""
    negative = snp.rint(c - a - b) < 0
    a2, b2 = snp.where(negative, c - a, a), snp.where(negative, c - b, b)
    value = _integer_d(a2, b2, c, one_minus)
    return snp.where(negative, one_minus.power(c - a - b) * value, value)


def _unit_interval(a, b, c, x, one_minus: _Complement):
    """2F1 for 0 <= x < 1 (one_minus: its 1 - x): the series to 200 terms up to 1/2, to 1000 up to
    0.95; beyond, the 1 - x transformation (whose two terms can cancel, so only where 1 - x is
    small), or the series to 3000 terms where c - a - b is an integer (its Gamma ratios have poles
    there)."""
    near = x <= 0.5
    middle = (x > 0.5) & (x <= _2F1_MIDDLE)
    d = c - a - b
    far, poles, transformed, limit = unit_interval_branches(a, b, c, x)
    slow = far & ~transformed & ~limit
    direct = _f_series(a, b, c, snp.where(near, x, 0.0), _2F1_NEAR_TERMS)
    mid = _f_series(a, b, c, snp.where(middle, x, 0.0), _2F1_MIDDLE_TERMS)
    # a terminating series (a or b a pole of Gamma) directly; one after Euler's transformation
    # (c - a or c - b) times (1 - x)^(c - a - b)
    euler = slow & ~(_nonpositive_integer(a) | _nonpositive_integer(b)) & poles
    xs = snp.where(slow, x, 0.0)
    long = _f_series(snp.where(euler, c - a, a), snp.where(euler, c - b, b), c, xs, _2F1_TERMS)
    long = snp.where(euler, one_minus.masked(slow, 0.0).power(d) * long, long)
    other = _one_minus_x(
        snp.where(transformed, a, 0.25), snp.where(transformed, b, 0.5), snp.where(transformed, c, 2.0),
        one_minus.masked(transformed, 0.975),
    )  # fmt: skip
    at_limit = _near_one(
        snp.where(limit, a, 0.5), snp.where(limit, b, 0.5), snp.where(limit, snp.rint(d) + a + b, 1.0),
        one_minus.masked(limit, 0.975),
    )  # fmt: skip
    return snp.where(
        near, direct, snp.where(middle, mid, snp.where(slow, long, snp.where(limit, at_limit, other)))
    )


def _polynomial(a, b, c, x):
    """A terminating 2F1 (a or b = 0, -1, ...) by its finite sum, at any x: (sum, the last nonzero
    term of the sum at x = sign(x)) (that term's sign is the polynomial's at x = +-inf). A ratio
    of 0 ends it even where c + k is 0 too (no 0 / 0)."""
    at = snp.where(snp.isinf(x), snp.sign(x), x)

    def body(i, carry):
        term, total, last = carry
        k = i.astype("float64")
        ratio = snp.where((a + k == 0) | (b + k == 0), 0.0, (a + k) * (b + k) / ((c + k) * (k + 1)) * at)
        term = snp.where((term == 0) | (ratio == 0), 0.0, term * ratio)
        return term, total + term, snp.where(term == 0, last, term)

    one = snp.ones_like(x)
    _, total, last = fori_loop(0, _2F1_TERMS, body, (one, one, one))
    return total, last


def _degree(a, b):
    """The degree of a terminating 2F1: the smaller of -a, -b among its non-positive integers."""
    big = math.inf
    return snp.minimum(
        snp.where(_nonpositive_integer(a), -a, big), snp.where(_nonpositive_integer(b), -b, big)
    )


def _hyp2f1_64(a, b, c, x):
    terminating = _nonpositive_integer(a) | _nonpositive_integer(b)
    # Pfaff's transformation (1 - x)^-a 2F1(a, c - b; c; x / (x - 1)), or with a and b swapped
    # where that series' parameters are the smaller ((0.5, 1e4; 0.5; -1): (1 - x)^-1e4 2F1(1e4, 0; ...))
    # (a polynomial series first: c - b or c - a = 0, -1, ...)
    # past x = -19 (z > 0.95, the 1 - z transformation) the smaller of a and b first, so that its
    # (1 - z)^(b - a) does not overflow where (1 - x)^-a underflows (x = -max)
    smaller = snp.where(x < -19, b < a, snp.abs(b * (c - a)) < snp.abs(a * (c - b)))
    # both series polynomials: the one of the lower degree (near z = 1 a polynomial's sum cancels:
    # (0.5, 2.5; 0.5; x) = (1 - x)^-2.5 from 2F1(2.5, 0; 0.5; z) = 1, not 2F1(0.5, -2; 0.5; z) = (1 - z)^2)
    both = _nonpositive_integer(c - a) & _nonpositive_integer(c - b)
    swap = snp.where(both, a < b, ~_nonpositive_integer(c - b) & (_nonpositive_integer(c - a) | smaller))
    a1, b1 = snp.where(swap, b, a), snp.where(swap, a, b)
    pfaff = (x < 0) & ~terminating
    z = snp.where(pfaff, x / (x - 1), x)
    a2, b2 = snp.where(pfaff, a1, a), snp.where(pfaff, c - b1, b)
    # 1 - z = 1 / (1 - x) after Pfaff's (z may round to 1: x = -max)
    big = snp.where(pfaff & snp.isfinite(x), 1 - x, 0.0)
    one_minus = _Complement(snp.where(big > 0, 1 / snp.where(big > 0, big, 1.0), 1 - z), big)
    inside = (z >= 0) & ((z < 1) | (big > 0))
    value = _unit_interval(a2, b2, c, snp.where(inside, z, 0.0), one_minus.masked(inside, 0.0))
    # (1 - x)^-a flushes to 0 below the normal range (max^-1) where the value need not ((1, 1; 1e4;
    # -max) = 3.9e-302): there in two halves, the second after the value's factor
    prefactor = snp.power(1 - x, -a1)
    half = snp.power(1 - x, -a1 / 2)
    scaled = snp.where(snp.abs(prefactor) < _TINY, half * (half * value), prefactor * value)
    value = snp.where(pfaff, scaled, value)
    # a polynomial: its sum directly off [0, 1) (no cancellation on x < 0: (a)_k x^k keeps one sign
    # per factor; real and finite on x >= 1, where every other 2F1 is complex), its leading term's
    # infinity at x = +-inf
    poly = terminating & ((x < 0) | (x >= 1))
    polynomial, last = _polynomial(a, b, c, snp.where(poly, x, 0.0))
    polynomial = snp.where(snp.isinf(x), snp.sign(last) * math.inf, polynomial)
    value = snp.where(poly, polynomial, value)
    # Gauss's sum at x = 1
    d = c - a - b
    gauss = _gamma(c) * _gamma(snp.where(d > 0, d, 1.0)) * _rgamma(c - a) * _rgamma(c - b)
    value = snp.where((x == 1) & ~terminating, snp.where(d > 0, gauss, math.inf), value)
    # c a pole: inf, unless the series ends first (a or b = -n with c <= -n: scipy's)
    pole = _nonpositive_integer(c) & (~terminating | (c > -_degree(a, b)))
    value = snp.where(pole, math.inf, value)
    value = snp.where((a == 0) | (b == 0) | (x == 0), 1.0, value)
    undefined = snp.isnan(a) | snp.isnan(b) | snp.isnan(c) | snp.isnan(x) | ((x > 1) & ~terminating)
    return snp.where(undefined, math.nan, value)


def _hyp2f1_value(a, b, c, x):
    wide = [v.astype("float64") for v in (a, b, c, x)]
    return _hyp2f1_64(*wide).astype(x.dtype)


def _hyp2f1_partials(y, a, b, c, x):
    wide = [v.astype("float64") for v in (a, b, c, x, y)]
    slope_a, slope_b, slope_c = (s.astype(x.dtype) for s in hyp2f1_parameter_slopes(*wide))
    slope_x = a * b / c * _hyp2f1_in_slope(a + 1, b + 1, c + 1, x)
    # a or b = 0: 2F1 = 1 for every x (2F1(1, b + 1; c + 1; x) may be nan or inf there)
    slope_x = snp.where(((a == 0) | (b == 0)) & ~(snp.isnan(c) | snp.isnan(x)), 0.0, slope_x)
    return slope_a, slope_b, slope_c, slope_x


_hyp2f1 = _with_value_partials("hyp2f1", _hyp2f1_value, _hyp2f1_partials)
_hyp2f1_in_slope = _with_value_partials("hyp2f1", _hyp2f1_value, _hyp2f1_partials)


@library()
def hyp2f1(a, b, c, x):
    """The Gauss hypergeometric function 2F1(a, b; c; x) = sum_k (a)_k (b)_k / (c)_k x^k / k! of real
    arguments, x <= 1 (nan beyond, except for a polynomial: a or b = 0, -1, ..., its sum at any x,
    +-inf at x = +-inf; inf at a pole c = 0, -1, ... unless the sum ends first; 1 at x = 0); derivative in x (a b / c) 2F1(a + 1, b + 1; c + 1; x), in a, b
    and c the series' term-by-term derivatives (Richardson's extrapolation near x = 1 where c - a - b
    is an integer: 2e-10 relative there; nan where the value is inf or nan)."""
    a, b, c, x = _floats(a, b, c, x)
    return _hyp2f1(a, b, c, x)


__all__ = ["hyp1f1", "hyp2f1"]
