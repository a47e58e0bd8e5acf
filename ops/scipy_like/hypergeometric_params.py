"""The derivatives of 1F1(a; b; x) and 2F1(a, b; c; x) in their parameters (ops layer, the slopes
hypergeometric.py's custom rules hand back for a, b and c).

Each is the term-by-term derivative of the series the value sums, carried in the same loop as the
terms (a dual-number series: with t_(k+1) = t_k r_k, dt_(k+1) = dt_k r_k + t_k dr_k, where dr_k is
the ratio's partial, a rational function with no pole a term does not have, so no digamma at a
pole and a terminating series a = -n still has its nonzero slope in a), then through each
transformation the value uses:

- 1F1: Kummer's e^x 1F1(b - a; b; -x) for x < 0 (also for a = -n: the slope in a of a polynomial
  is an infinite series that would cancel at x < 0), the asymptotic series for large x (its
  prefactor's logarithmic derivative log x - psi(a), psi(b) - log x).
- 2F1: Pfaff's (1 - x)^(-a) 2F1(a, c - b; c; x / (x - 1)) for x < 0; the series (3000 terms) up
  to 0.95, and where the value sums a long series (a pole among a, b, c - a, c - b, Euler's
  transformation); the 1 - x transformation on (0.95, 1) with the digamma derivatives of its Gamma
  ratios; where c - a - b is an integer m that transformation has removable poles, so its slopes
  at c +- h, c +- 2h are combined by Richardson's extrapolation (h = 1/1024: within 2e-10 relative,
  the cancellation of terms of size 1 / h^2 against the h^4 error) instead of differentiating the
  digamma limit; Gauss's sum at x = 1.

Conventions (as jax's series and scipy's values): nan where the value is undefined or infinite
(x > 1 or nan for 2F1, a pole of Gamma(b) or Gamma(c) that no terminating series ends first, x =
+inf); 0 where the value is constant in the parameter (1F1 and 2F1 at a = 0 in b and c; x = 0).
"""

from __future__ import annotations

import math

from .. import numpy_like as snp
from ..control_api import fori_loop
from ..primitives import transcendental as tr
from ..primitives.registry import bind
from .hypergeometric_terms import (
    _1F1_ASYMPTOTIC_TERMS,
    _1F1_TERMS,
    _2F1_TERMS,
    _gamma_sign,
    _lgamma,
    _nonpositive_integer,
    unit_interval_branches,
)

_RICHARDSON_STEP = 1.0 / 1024


def _digamma(x):
    return bind(tr.digamma, x)


def _dual_series(ratio, slopes, like, terms: int):
    """1 + sum_k t_k (t_0 = 1, t_(k+1) = t_k ratio(k)) and its partials sum_k dt_k, one per entry
    of ``slopes`` (each slope(k, ratio) the ratio's partial in one parameter). A term and its
    partial that both reach 0 stay 0 (a terminating series, whose later ratios may be 0 / 0)."""
    count = len(slopes)

    def body(i, carry):
        term, dterms, total, dtotals = carry
        k = i.astype("float64")
        r = ratio(k)
        ended = term == 0
        new_dterms = []
        for dterm, slope in zip(dterms, slopes):
            grown = dterm * r + snp.where(ended, 0.0, term * slope(k, r))
            new_dterms.append(snp.where(ended & (dterm == 0), 0.0, grown))
        term = snp.where(ended, 0.0, term * r)
        dtotals = tuple(s + d for s, d in zip(dtotals, new_dterms))
        return term, tuple(new_dterms), total + term, dtotals

    zeros = tuple(snp.zeros_like(like) for _ in range(count))
    one = snp.ones_like(like)
    _, _, total, dtotals = fori_loop(0, terms, body, (one, zeros, one, zeros))
    return total, list(dtotals)


# -- 1F1 ----------------------------------------------------------------------------------------
def _m_dual(a, b, x):
    """1F1(a; b; x) by its series, with its partials in a and b."""
    return _dual_series(
        lambda k: (a + k) / (b + k) * x / (k + 1),
        [lambda k, r: x / ((b + k) * (k + 1)), lambda k, r: -r / (b + k)],
        x,
        _1F1_TERMS,
    )


def _m_asymptotic_dual(a, b, x, log_prefactor):
    """e^log_prefactor 1F1(a; b; x) for large x > 0 by the asymptotic series, with its partials in a
    and b: the prefactor Gamma(b) / Gamma(a) e^x x^(a - b) contributes log x - psi(a) and
    psi(b) - log x."""

    def body(i, carry):
        term, dterm_a, dterm_b, total, dtotal_a, dtotal_b = carry
        k = i.astype("float64")
        scale = 1.0 / ((k + 1) * x)
        u, v = b - a + k, 1 - a + k
        dterm_a = (dterm_a * u * v - term * (u + v)) * scale
        dterm_b = (dterm_b * u * v + term * v) * scale
        term = term * u * v * scale
        return term, dterm_a, dterm_b, total + term, dtotal_a + dterm_a, dtotal_b + dterm_b

    one, zero = snp.ones_like(x), snp.zeros_like(x)
    carry = fori_loop(0, _1F1_ASYMPTOTIC_TERMS, body, (one, zero, zero, one, zero, zero))
    total, dtotal_a, dtotal_b = carry[3:]
    log_x = snp.log(x)
    log_size = (log_prefactor + x) + _lgamma(b) - _lgamma(a) + (a - b) * log_x
    prefactor = _gamma_sign(b) * _gamma_sign(a) * snp.exp(log_size)
    return (
        prefactor * (total * (log_x - _digamma(a)) + dtotal_a),
        prefactor * (total * (_digamma(b) - log_x) + dtotal_b),
    )


def hyp1f1_parameter_slopes(a, b, x, value):
    """(d/da, d/db) 1F1(a; b; x) in float64, given the value (see the module docstring)."""
    # Kummer's transformation for x < 0, except where b is a pole ended first by a = -n (there only
    # the slope in b exists: the polynomial's, summed directly)
    kummer = (x < 0) & ~(_nonpositive_integer(a) & _nonpositive_integer(b))
    a2 = snp.where(kummer, b - a, a)
    y = snp.where(kummer, -x, x)
    log_prefactor = snp.where(kummer, x, 0.0)
    far = (y > 60 + 2 * snp.abs(a2) + 2 * snp.abs(b)) & ~_nonpositive_integer(a2) & snp.isfinite(y)
    _, (series_a, series_b) = _m_dual(a2, b, snp.where(far | ~snp.isfinite(y), 0.0, y))
    scale = snp.exp(log_prefactor)
    far_a, far_b = _m_asymptotic_dual(
        snp.where(far, a2, 0.5), snp.where(far, b, 1.0), snp.where(far, y, 100.0), log_prefactor
    )
    first = snp.where(far, far_a, scale * series_a)
    second = snp.where(far, far_b, scale * series_b)
    # e^x 1F1(b - a; b; -x): d/da = -M_1, d/db = M_1 + M_2
    slope_a = snp.where(kummer, -first, first)
    slope_b = snp.where(kummer, first + second, second)
    slope_b = snp.where(a == 0, 0.0, slope_b)
    gone = ~snp.isfinite(value) | (x == math.inf) | snp.isnan(b)
    # at x = -inf the value's limit 0 (a > 0) is flat in a and b; elsewhere nan
    flat = (x == -math.inf) & (value == 0)
    slope_a = snp.where(flat, 0.0, snp.where(gone | ~snp.isfinite(x), math.nan, slope_a))
    slope_b = snp.where(flat, 0.0, snp.where(gone | ~snp.isfinite(x), math.nan, slope_b))
    # b a pole: the slope in a is undefined even where a = -n > b ends the value's series first
    slope_a = snp.where(_nonpositive_integer(b), math.nan, slope_a)
    # x = 0: 1 for every a, b where it is finite; so is b = inf at a finite x (the series' terms
    # after the first vanish: ours was nan from inf / inf)
    flat_at_zero = ((x == 0) | ((b == math.inf) & snp.isfinite(x))) & snp.isfinite(value)
    return snp.where(flat_at_zero, 0.0, slope_a), snp.where(flat_at_zero, 0.0, slope_b)


# -- 2F1 ----------------------------------------------------------------------------------------
def _f_dual(a, b, c, x, terms: int):
    """2F1(a, b; c; x) by its series, with its partials in a, b and c."""
    return _dual_series(
        lambda k: (a + k) * (b + k) / ((c + k) * (k + 1)) * x,
        [
            lambda k, r: (b + k) / ((c + k) * (k + 1)) * x,
            lambda k, r: (a + k) / ((c + k) * (k + 1)) * x,
            lambda k, r: -r / (c + k),
        ],
        x,
        terms,
    )


def _stack(*parts):
    return snp.stack(list(parts))


def _gamma_ratio(over, under):
    """prod Gamma(over) / prod Gamma(under) off the poles (the 1 - x branches exclude them), from
    lgamma and the signs: far fewer ops than a pole-guarded Gamma each."""
    log_size = sum(_lgamma(v) for v in over) - sum(_lgamma(v) for v in under)
    sign = 1.0
    for v in (*over, *under):
        sign = sign * _gamma_sign(v)
    return sign * snp.exp(log_size)


def _one_minus_x_parts(a, b, c):
    """The 1 - x transformation's Gamma ratios A, B and its two series' parameters (see
    hypergeometric.py's _one_minus_x): A G_1 + y^d B G_2, G_1 = F(a, b; 1 - d; y),
    G_2 = F(c - a, c - b; 1 + d; y), d = c - a - b."""
    d = c - a - b
    big_a = _gamma_ratio((c, d), (c - a, c - b))
    big_b = _gamma_ratio((c, -d), (a, b))
    return d, big_a, big_b, (a, b, 1 - d), (c - a, c - b, 1 + d)


def _one_minus_x_slopes(a, b, c, y, parts, g1, g2):
    """The partials (a, b, c) of A G_1 + y^d B G_2 given ``parts`` (_one_minus_x_parts) and each
    series' value and partials ``g = (value, [d/dp1, d/dp2, d/dp3])`` in its own parameters."""
    d, big_a, big_b, _, _ = parts
    psi_c, psi_d, psi_md = _digamma(c), _digamma(d), _digamma(-d)
    psi_ca, psi_cb = _digamma(c - a), _digamma(c - b)
    dlog_a = [psi_ca - psi_d, psi_cb - psi_d, psi_c + psi_d - psi_ca - psi_cb]
    dlog_b = [psi_md - _digamma(a), psi_md - _digamma(b), psi_c - psi_md]
    dd = [-1.0, -1.0, 1.0]
    (v1, (p1, q1, r1)), (v2, (p2, q2, r2)) = g1, g2
    # G_1's parameters (a, b, 1 - c + a + b), G_2's (c - a, c - b, 1 + c - a - b), by the chain rule
    dg1 = [p1 + r1, q1 + r1, -r1]
    dg2 = [-p2 - r2, -q2 - r2, p2 + q2 + r2]
    y_d = snp.power(y, d)
    log_y = snp.log(y)
    return [
        big_a * (dlog_a[i] * v1 + dg1[i]) + y_d * big_b * ((dlog_b[i] + dd[i] * log_y) * v2 + dg2[i])
        for i in range(3)
    ]


def _unit_interval_slopes(a, b, c, x):
    """The partials (a, b, c) of 2F1 for 0 <= x < 1 (hypergeometric.py's _unit_interval's
    branches): every series of every branch runs in one loop, stacked."""
    d = c - a - b
    far, poles, transformed, limit = unit_interval_branches(a, b, c, x)
    by_series = ~transformed & ~limit
    euler = far & by_series & ~(_nonpositive_integer(a) | _nonpositive_integer(b)) & poles
    # the series: directly, or after Euler's transformation (1 - x)^d F(c - a, c - b; c; x)
    sa, sb = snp.where(euler, c - a, a), snp.where(euler, c - b, b)
    xs = snp.where(by_series, x, 0.0)
    # the 1 - x transformation at c (transformed) or at c + h, c - h, c + 2h, c - 2h (limit)
    step = _RICHARDSON_STEP
    one_minus = transformed | limit
    ta, tb = snp.where(one_minus, a, 0.25), snp.where(one_minus, b, 0.5)
    tc = snp.where(one_minus, c, 2.0)
    y = snp.where(one_minus, 1 - x, 0.025)
    # c itself where the transformation is used plainly, c +- h, c +- 2h where it is extrapolated
    shifts = [step, -step, 2 * step, -2 * step]
    cs = [tc + snp.where(limit, s, 0.0) for s in shifts]
    parts = [_one_minus_x_parts(ta, tb, cc) for cc in cs]
    g_params = []
    for p in parts:
        g_params += [p[3], p[4]]
    series_a = _stack(sa, *(p[0] for p in g_params))
    series_b = _stack(sb, *(p[1] for p in g_params))
    series_c = _stack(c + 0 * x, *(p[2] for p in g_params))
    series_x = _stack(xs, *([y] * len(g_params)))
    total, slopes = _f_dual(series_a, series_b, series_c, series_x, _2F1_TERMS)

    def part(i):
        return total[i], [s[i] for s in slopes]

    value_s, (f1, f2, f3) = part(0)
    shifted = [
        _one_minus_x_slopes(ta, tb, cc, y, p, part(1 + 2 * j), part(2 + 2 * j))
        for j, (cc, p) in enumerate(zip(cs, parts))
    ]
    # Richardson: (4 (g(h) + g(-h)) / 2 - (g(2h) + g(-2h)) / 2) / 3
    extrapolated = [
        (2 * (shifted[0][i] + shifted[1][i]) - (shifted[2][i] + shifted[3][i]) / 2) / 3 for i in range(3)
    ]
    one_minus_x = [snp.where(limit, extrapolated[i], shifted[0][i]) for i in range(3)]
    # Euler: (1 - x)^d F(c - a, c - b; c; x) with d = c - a - b
    log_1mx = snp.log1p(-xs)
    power = snp.power(1 - xs, d)
    euler_slopes = [
        power * (-log_1mx * value_s - f1),
        power * (-log_1mx * value_s - f2),
        power * (log_1mx * value_s + f1 + f2 + f3),
    ]
    direct = [f1, f2, f3]
    return [
        snp.where(by_series, snp.where(euler, euler_slopes[i], direct[i]), one_minus_x[i]) for i in range(3)
    ]


def hyp2f1_parameter_slopes(a, b, c, x, value):
    """(d/da, d/db, d/dc) 2F1(a, b; c; x) in float64, given the value (see the module docstring)."""
    pfaff = x < 0
    z = snp.where(pfaff, x / (x - 1), x)
    b2 = snp.where(pfaff, c - b, b)
    inside = (z >= 0) & (z < 1)
    f1, f2, f3 = _unit_interval_slopes(a, b2, c, snp.where(inside, z, 0.0))
    # Pfaff: (1 - x)^(-a) F(a, c - b; c; z): d/da = -log(1 - x) V + s F_1, d/db = -s F_2,
    # d/dc = s (F_2 + F_3), s = (1 - x)^(-a)
    s = snp.power(1 - x, -a)
    slopes = [
        snp.where(pfaff, -snp.log1p(-x) * value + s * f1, f1),
        snp.where(pfaff, -s * f2, f2),
        snp.where(pfaff, s * (f2 + f3), f3),
    ]
    # Gauss's sum at x = 1: Gamma(c) Gamma(d) / (Gamma(c - a) Gamma(c - b)), d = c - a - b > 0
    d = c - a - b
    psi_d = _digamma(d)
    gauss = [
        value * (_digamma(c - a) - psi_d),
        value * (_digamma(c - b) - psi_d),
        value * (_digamma(c) + psi_d - _digamma(c - a) - _digamma(c - b)),
    ]
    slopes = [snp.where(x == 1, g, v) for g, v in zip(gauss, slopes)]
    # 2F1 = 1 at a = 0 (b = 0): flat in the other parameters
    slopes[1] = snp.where(a == 0, 0.0, slopes[1])
    slopes[0] = snp.where(b == 0, 0.0, slopes[0])
    slopes[2] = snp.where((a == 0) | (b == 0), 0.0, slopes[2])
    undefined = ~snp.isfinite(value) | snp.isnan(x) | (x > 1)
    return [snp.where(undefined, math.nan, v) for v in slopes]


__all__ = ["hyp1f1_parameter_slopes", "hyp2f1_parameter_slopes"]
