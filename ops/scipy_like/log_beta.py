"""log |B(a, b)| without the cancellation of gammaln(a) + gammaln(b) - gammaln(a + b) (ops layer).

Where an argument is large, gammaln(b) and gammaln(a + b) are huge and nearly equal (1.7e9 at
b = 1e8, whose ulp is 2e-7), so their difference loses the digits of a result that may be small
(betaln(1e-308, 1e8) ~ 708.4). Stirling's series, log Gamma(x) = (x - 1/2) log x - x +
log(2 pi)/2 + w(x) with the correction w(x) = sum_k B_2k / (2k (2k - 1) x^(2k-1)) (8 terms: below
1e-16 from x = 8 on), lets the large terms cancel on paper instead. With lo <= hi and c = lo + hi:

- both >= 8: (lo - 1/2) log(lo/c) + (hi - 1/2) log(hi/c) - log(c)/2 + log(2 pi)/2 + w(lo) + w(hi)
  - w(c), where log(hi/c) = -log1p(lo/hi): every term has one sign, nothing cancels;
- lo < 8 <= hi, c >= 8 (lo may be negative): gammaln(lo) + [gammaln(hi) - gammaln(c)], the
  bracket being -lo log(hi) - (c - 1/2) log1p(lo/hi) + lo + w(hi) - w(c), whose
  lo - hi log1p(lo/hi) = lo (1 - log1p(t)/t) is a series for small t = lo/hi;
- else (small or negative arguments): the three gammaln, which are small there.

hi = inf gives scipy's limits (-inf for lo > 0, inf for lo <= 0, nan for lo = inf). Each branch
sees safe stand-in arguments where it is not taken, so no 0 * inf reaches a gradient.
"""

from __future__ import annotations

import math

from .. import numpy_like as snp
from ..control_api import fori_loop
from ..primitives import transcendental as tr
from ..primitives.elementwise import stop_gradient
from ..primitives.registry import bind
from .lgamma1p import log_gamma_wide
from .partials import with_partials

# B_2k / (2k (2k - 1)), k = 1 .. 8
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400)
_LARGE = 8.0


def stirling_correction(x):
    """w(x) = log Gamma(x) - [(x - 1/2) log x - x + log(2 pi) / 2], for x >= 8."""
    t = snp.true_divide(1.0, x)
    t2 = snp.multiply(t, t)
    total = _STIRLING[-1]
    for c in _STIRLING[-2::-1]:
        total = snp.add(snp.multiply(total, t2), c)
    return snp.multiply(total, t)


def _stirling_difference(lo, hi):
    """w(hi) - w(lo + hi) for hi, lo + hi >= 8 without its cancellation (w(10) - w(10 + 2e-16) keeps
    1e-19 of rounding against a 2e-20 difference, so d betaln / da at (10, 2e-16) came out 0.6%
    off): each term's hi^-n - c^-n is lo u v (u^(n-1) + u^(n-2) v + ... + v^(n-1)), u = 1/hi,
    v = 1/c, summed by the recurrence S(n + 2) = u^2 S(n) + v^n (u + v)."""
    u = snp.true_divide(1.0, hi)
    v = snp.true_divide(1.0, snp.add(lo, hi))
    u2, v2, uv_sum = snp.multiply(u, u), snp.multiply(v, v), snp.add(u, v)
    # tensors from the start: a product of two Python floats would become a float32 constant
    partial, v_power, total = snp.ones_like(u), v, snp.zeros_like(u)
    for c in _STIRLING:
        total = snp.add(total, snp.multiply(partial, c))
        partial = snp.add(snp.multiply(u2, partial), snp.multiply(v_power, uv_sum))
        v_power = snp.multiply(v_power, v2)
    return snp.multiply(snp.multiply(snp.multiply(lo, u), v), total)


def _one_minus_log1p_ratio(t):
    """1 - log1p(t) / t = t/2 - t^2/3 + t^3/4 - ..., by its series for |t| <= 1/4 (where the
    difference would cancel), directly beyond; 0 at t = 0 (where a huge hi flushes t)."""
    small = snp.less_equal(snp.abs(t), 0.25)
    ts = snp.where(small, t, 0.0)
    series = 0.0
    for k in range(28, 0, -1):
        series = snp.add(snp.multiply(series, ts), (-1) ** (k + 1) / (k + 1))
    series = snp.multiply(series, ts)
    tb = snp.where(small, 1.0, t)
    return snp.where(small, series, snp.subtract(1.0, snp.true_divide(snp.log1p(tb), tb)))


def _log1p_ratio(lo, hi):
    """log1p(t) and hi log1p(t) = lo log1p(t) / t for t = lo / hi, log1p(t) / t being 1 less the
    series of _one_minus_log1p_ratio: its quotient's derivatives would divide by t^2, which flushes
    to 0 (nan) for t = 10 / 3.4e38, and t itself may flush where hi is huge."""
    t = snp.true_divide(lo, hi)
    r = snp.log1p(t)
    per_t = snp.subtract(1.0, _one_minus_log1p_ratio(t))
    return r, snp.multiply(lo, per_t)


# log(lo / hi) with the partials 1 / lo and -1 / hi: the chain rule through the quotient overflows
# (its cotangent (lo - 1/2) hi / lo = 1.6e308 times lo / hi^2 at hi = 1.7e308, nan) or flushes
# (d(lo / hi) / d lo = 1 / hi, subnormal, made 0)
_log_ratio = with_partials(
    "log_ratio",
    lambda lo, hi: snp.log(snp.true_divide(lo, hi)),
    lambda lo, hi: (snp.true_divide(1.0, lo), snp.negative(snp.true_divide(1.0, hi))),
)


def _both_large(lo, hi):
    c = snp.add(lo, hi)
    r, hi_r = _log1p_ratio(lo, hi)
    log_lo_c = snp.subtract(_log_ratio(lo, hi), r)
    out = snp.subtract(
        snp.multiply(snp.subtract(lo, 0.5), log_lo_c), snp.subtract(hi_r, snp.multiply(r, 0.5))
    )
    out = snp.add(snp.subtract(out, snp.multiply(snp.log(c), 0.5)), 0.5 * math.log(2 * math.pi))
    return snp.add(out, snp.add(stirling_correction(lo), _stirling_difference(lo, hi)))


def _ratio_terms(lo, hi):
    """The two small terms of log Gamma(hi) - log Gamma(lo + hi) + lo log(hi) (hi, lo + hi >= 8):
    lo - (c - 1/2) log1p(lo/hi), its lo - hi log1p(lo/hi) written lo (1 - log1p(t)/t), and w(hi) - w(c)."""
    t = snp.true_divide(lo, hi)
    r = snp.log1p(t)
    lo_minus_hi_r = snp.multiply(lo, _one_minus_log1p_ratio(t))  # lo - hi log1p(lo / hi), no cancellation
    front = snp.subtract(lo_minus_hi_r, snp.multiply(snp.subtract(lo, 0.5), r))
    return front, _stirling_difference(lo, hi)


def gamma_ratio_log(lo, hi):
    """log Gamma(hi) - log Gamma(lo + hi) for hi >= 8 and lo + hi >= 8: -lo log(hi) + lo - (c - 1/2)
    log1p(lo/hi) + w(hi) - w(c)."""
    front, w = _ratio_terms(lo, hi)
    return snp.add(snp.add(snp.multiply(snp.negative(lo), snp.log(hi)), front), w)


def gamma_ratio_log_scaled(lo, hi):
    """log Gamma(hi) - log Gamma(lo + hi) + lo log(hi) (hi, lo + hi >= 8): small where gamma_ratio_log
    is about -lo log(hi), so a caller that subtracts the log itself keeps every digit (Student's t
    at df = 1e4, where -log(hi)/2 and log(df)/2 would cancel to 1e-12)."""
    front, w = _ratio_terms(lo, hi)
    return snp.add(front, w)


def _lgamma(x):
    """log Gamma(x): the series near 1 .. 8 (lgamma1p.log_gamma_wide), where XLA's lgamma is 11 ulps
    off at 3 (betaln(1, 2) = -log 2 came out 6 ulps off)."""
    return log_gamma_wide(x)


def _lgamma_of_sum(a, b):
    """log Gamma(a + b) with the rounding e = (a + b) - fl(a + b) put back as e psi(s) (Knuth's
    two-sum gives e exactly): where a + b rounds to a (b = 1e-38 next to a = 1.2e-7, 2e-16 next
    to 10) d betaln / da = psi(a) - psi(a + b) would be 0, not -b psi'(a)."""
    s = snp.add(a, b)
    b_part = snp.subtract(s, a)
    e = snp.add(snp.subtract(a, snp.subtract(s, b_part)), snp.subtract(b, b_part))
    rounded = snp.not_equal(e, 0.0)
    return snp.add(_lgamma(s), snp.multiply(e, bind(tr.digamma, snp.where(rounded, s, 1.0))))


def digamma_step(a, b, scale=1.0):
    """scale (psi(a + b) - psi(a)), by where a and b are:

    - |b| below 1e-5 of a's distance to the nearest pole (a itself for a > 0): (scale b) (psi1(a) +
      b psi2(a) / 2 + b^2 psi3(a) / 6) (psi_m the polygammas), scale b first keeping B(1.5,
      2.2e-308) b psi1(1.5) from flushing through the subnormal b psi1;
    - a positive, b a whole number, |b| <= 16: the recurrence's sum of 1/(a + j), j = 0 .. b - 1
      (minus that of 1/(a - j), j = 1 .. -b, for b < 0), exact where the step is 0 and where the two
      digammas near a pole cancel (psi'(1.2e-7) - psi'(-2 + 1.2e-7) kept 1% of its -1.25);
    - a and a + b otherwise positive: psi's asymptotic series term by term (_asymptotic_step), from
      12 steps further up by the recurrence where either is below 12 (_shift_sum): nothing there
      subtracts two digammas, which keep only their rounding where the step is small beside them
      (10% of d B(0.1, 2e-16) / da, 11 digits of psi(10000.5) - psi(10000), 13 of psi(0.501) -
      psi(0.5));
    - elsewhere (about the poles) the difference of two digammas.
    """
    pole_distance = snp.where(a > 0, a, snp.abs(a - snp.round(a)))
    near = snp.less(snp.abs(b), snp.multiply(pole_distance, 1e-5))
    a_n = snp.where(near, a, 1.0)
    b_n = snp.where(near, b, 0.0)

    def poly(m, x):
        return bind(tr.polygamma, snp.full_like(x, float(m)), x)

    series = (scale * b_n) * (poly(1, a_n) + b_n * (poly(2, a_n) / 2 + b_n * poly(3, a_n) / 6))
    whole = (b == snp.floor(b)) & (snp.abs(b) <= float(_WHOLE_STEPS)) & (a > 0) & snp.logical_not(near)
    a_w, b_w = snp.where(whole, a, 1.0), snp.where(whole, b, 0.0)
    # the sum is constant in b: its slope in b, psi'(a + b), rides on a term whose value is 0
    in_b = bind(tr.digamma, stop_gradient(a_w) + b_w)
    by_sum = _whole_step(a_w, b_w) + (in_b - stop_gradient(in_b))
    total = snp.add(a, b)
    positive = (a > 0) & (total > 0) & (a < math.inf) & (b < math.inf) & snp.logical_not(near | whole)
    far = positive & (snp.minimum(a, total) >= _ASYMPTOTIC_FROM)
    shifted = positive & snp.logical_not(far)
    a_s, b_s = snp.where(shifted, a, 1.0), snp.where(shifted, b, 0.0)
    a_f = snp.where(far, a, a_s + _ASYMPTOTIC_FROM)  # 12 steps up; 13 where neither path is taken
    by_series = _asymptotic_step(a_f, snp.where(positive, b, 0.0)) + snp.where(
        shifted, _shift_sum(a_s, b_s), 0.0
    )
    a_d, s_d = snp.where(near | whole | positive, 1.0, a), snp.where(near | whole | positive, 1.0, total)
    direct = snp.subtract(bind(tr.digamma, s_d), bind(tr.digamma, a_d))
    return snp.where(near, series, scale * snp.where(whole, by_sum, snp.where(positive, by_series, direct)))


def _shift_sum(a, b):
    """sum_{j < 12} b / ((a + j) (a + b + j)) for a, a + b > 0: psi(a + b) - psi(a) minus the same step 12
    further up (psi's recurrence), every term of b's sign, so nothing cancels (psi(0.501) - psi(0.5)
    as two digammas of -1.96 kept 13 digits of 0.0049). With t = a + j, s = t + b, each term is
    1/t - 1/s where b > t (at least half of 1/t is left) and (b / s) / t elsewhere, so that neither
    the term nor its first and second slopes subtract nearly equal numbers: as a product alone,
    d/db at b = 0.5, a = 0.001 kept 13 digits (1/s - b/s^2), and d2/da db at a = 1e-8, b = 3 none
    (its two parts, 1e15 each, cancel to psi''(3)). A loop: one copy of the term in the graph."""

    def add(j, total):
        t = a + snp.asarray(j).astype(a.dtype)
        s = t + b
        big = b > t
        apart = snp.reciprocal(snp.where(big, t, 1.0)) - snp.reciprocal(snp.where(big, s, 2.0))
        # times a reciprocal: XLA turns (b / s) / t into b / (s t), which underflows for t, s < 1e-154
        ratio = snp.true_divide(snp.where(big, 0.0, b), snp.where(big, 1.0, s)) * snp.reciprocal(
            snp.where(big, 1.0, t)
        )
        return total + snp.where(big, apart, ratio)

    return fori_loop(0, int(_ASYMPTOTIC_FROM), add, snp.zeros_like(a))


_ASYMPTOTIC_FROM = 12.0
# B_2k / (2k), k = 1 .. 7: psi(x) = log x - 1/(2x) - sum_k c_k x^(-2k); the 8th term is below 4e-17
# of the step's size from x = 12 on
_PSI_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


def _asymptotic_step(a, b):
    """psi(a + b) - psi(a) for a, s = a + b >= 12 from psi(x) = log x - 1/(2x) - sum_k c_k x^(-2k), each
    term differenced without subtracting nearly equal numbers: log(s / a) (log1p(b / a) near 1),
    1/(2a) - 1/(2s) and, with u = s^-2, v = a^-2, sum_k c_k (v^k - u^k) = (v - u) sum_k c_k h_k,
    h_k = sum_{i < k} u^i v^(k-1-i) (h_1 = 1, h_{k+1} = v h_k + u^k: positive terms). As two digammas
    of 9.2, psi(10000.5) - psi(10000) kept 11 digits (d/dn betabinom.logpmf(0, 1, 0.5, 1e4) was
    1.4e5 ulps off). The differences are taken as products b / (a s) ... where b <= a and as
    differences of reciprocals past it, and the log as log s - log a there (its value still log(s / a)),
    so that their first and second slopes keep their digits too (as a product, d2/da db at b = 1e4 a
    subtracts two terms of 1 / (a^2 s))."""
    s = snp.add(a, b)
    ahead = b > a
    a_h, s_h = snp.where(ahead, a, 1.0), snp.where(ahead, s, 2.0)  # b > a: differences of reciprocals
    a_p, b_p = snp.where(ahead, 1.0, a), snp.where(ahead, 0.0, b)  # b <= a: products
    s_p = snp.add(a_p, b_p)
    shrunk = b_p < snp.multiply(a_p, -0.5)
    by_log1p = snp.log1p(snp.true_divide(snp.where(shrunk, 0.0, b_p), a_p))
    by_ratio = snp.log(snp.true_divide(snp.where(shrunk, s_p, 1.0), snp.where(shrunk, a_p, 1.0)))
    apart_log = snp.log(s_h) - snp.log(a_h)
    ahead_log = stop_gradient(snp.log(snp.true_divide(s_h, a_h))) + (apart_log - stop_gradient(apart_log))
    log_term = snp.where(ahead, ahead_log, snp.where(shrunk, by_ratio, by_log1p))
    b_over = snp.true_divide(b_p, s_p) * snp.reciprocal(a_p)  # b / (a s)
    half_gap = snp.where(ahead, 0.5 * snp.reciprocal(a_h) - 0.5 * snp.reciprocal(s_h), 0.5 * b_over)
    square_gap = snp.where(
        ahead,
        snp.reciprocal(a_h * a_h) - snp.reciprocal(s_h * s_h),
        b_over * (snp.reciprocal(a_p) + snp.reciprocal(s_p)),
    )
    u, v = snp.reciprocal(s * s), snp.reciprocal(a * a)
    h, u_power = snp.ones_like(a), snp.ones_like(a)
    weighted = _PSI_SERIES[0] * h
    for c in _PSI_SERIES[1:]:
        u_power = u_power * u
        h = v * h + u_power
        weighted = weighted + c * h
    return log_term + half_gap + square_gap * weighted


_WHOLE_STEPS = 16


def _whole_step(a, b):
    """psi(a + b) - psi(a) for a whole |b| <= 16 by the recurrence psi(x + 1) = psi(x) + 1/x: the sum
    of 1/(a + j), j = 0 .. b - 1, or minus that of 1/(a - j), j = 1 .. -b, for b < 0 (a loop)."""
    up = b >= 0

    def add(j, total):
        jf = snp.asarray(j).astype(a.dtype)
        at = snp.where(up, a + jf, a - jf - 1.0)
        taken = snp.where(up, jf < b, jf < -b)
        return total + snp.where(taken, snp.reciprocal(snp.where(taken, at, 1.0)), 0.0)

    total = fori_loop(0, _WHOLE_STEPS, add, snp.zeros_like(a))
    return snp.where(up, total, -total)


def _small_value(a, b):
    return snp.subtract(snp.add(_lgamma(a), _lgamma(b)), _lgamma_of_sum(a, b))


def _small_partials(a, b):
    return snp.negative(digamma_step(a, b)), snp.negative(digamma_step(b, a))


# both shapes below 8: its partials psi(a) - psi(a + b) as digamma_step, exact where b << a
_small = with_partials("log_beta_small", _small_value, _small_partials)


def log_beta(a, b):
    """log |B(a, b)| of two floats of one dtype and shape (module docstring)."""
    swap = snp.greater(a, b)
    lo, hi = snp.where(swap, b, a), snp.where(swap, a, b)
    finite_hi = snp.less(hi, math.inf)
    large = snp.logical_and(snp.greater_equal(lo, _LARGE), finite_hi)
    mixed = snp.logical_and(snp.less(lo, _LARGE), finite_hi)
    mixed = snp.logical_and(mixed, snp.greater_equal(snp.minimum(hi, snp.add(lo, hi)), _LARGE))
    small = snp.logical_not(snp.logical_or(large, mixed))

    lo_l, hi_l = snp.where(large, lo, _LARGE), snp.where(large, hi, _LARGE)
    lo_m, hi_m = snp.where(mixed, lo, 1.0), snp.where(mixed, hi, _LARGE)
    a_s, b_s = snp.where(small, a, 1.0), snp.where(small, b, 1.0)
    by_large = _both_large(lo_l, hi_l)
    by_mixed = snp.add(_lgamma(lo_m), gamma_ratio_log(lo_m, hi_m))
    by_small = _small(a_s, b_s)
    out = snp.where(large, by_large, snp.where(mixed, by_mixed, by_small))
    at_inf = snp.where(snp.equal(lo, math.inf), math.nan, snp.where(snp.greater(lo, 0), -math.inf, math.inf))
    return snp.where(snp.logical_and(snp.equal(hi, math.inf), snp.logical_not(snp.isnan(lo))), at_inf, out)


__all__ = ["digamma_step", "gamma_ratio_log", "gamma_ratio_log_scaled", "log_beta", "stirling_correction"]
