"""Discrete distributions of counts: geom, nbinom, betabinom, multinomial (ops layer).

The functions and their arguments are jax.scipy.stats'; float32 is computed in float64 and
rounded once (wide.py: the log-gamma terms cancel far beyond float32's digits). The values are
scipy.stats': 0 mass (-inf log) off the support, including a non-integer k,
nan for invalid parameters (where jax.scipy.stats answers -inf or an
unguarded formula's value instead). All are compositions of sg.numpy and
sg.scipy.special (gammaln, betaln, xlogy, xlog1py), so gradients flow
through them as through any such expression.
"""

from __future__ import annotations

import numpy as np

from ... import numpy_like as snp
from ...control_api import fori_loop
from ...numpy_like.core import error
from ...primitives.elementwise import stop_gradient
from ..log_beta import digamma_step
from ..partials import with_partials
from ..special import betaln, digamma, gammaln, polygamma, xlog1py, xlogy
from ._common import Distribution, const, exp_of, floats, nan_where
from .discrete import (
    all_normal,
    below_mass,
    from_product,
    inside,
    k_factor,
    less_product,
    linear_k_factor,
    log_factorial,
    on_integers,
    one_minus_power,
    powers,
    running_product,
    slopes_where,
    support,
    valued_as,
)
from .underflow import mass_of
from .wide import in_float64


def _log_choose(n, k):
    """log of the binomial coefficient n over k (n, k >= 0), exactly 0 at k = 0 and k = n."""
    return log_factorial(n) - log_factorial(k) - log_factorial(n - k)


# -- geom: trials up to the first success, on 1, 2, ... -------------------------------------------
def _geom_logpmf(k, p, loc=0):
    k, p, loc = floats(k, p, loc)
    k = k - loc
    bad = ~((p > const(0.0, p)) & (p <= const(1.0, p)))
    ok = support(k, 1.0, np.inf)
    kc, p = snp.broadcast_arrays(inside(ok, k, 1.0), inside(ok, p, 0.5))
    return nan_where(bad, on_integers(k, ok, _geom_log_mass(kc, p)))


def _geom_log_mass_partials(k, p):
    """d/dk log1p(-p); d/dp 1 / p - (k - 1) / (1 - p), whose two terms cancel where k p is near 1
    (the slope at (10, 0.1) came out 0 for -6.2e-16): its value there is (1 - k p) / (p (1 - p)),
    its own slope (the second derivatives) still the plain form's, which stays finite or infinite
    at p = 1 and p = 2.2e-308 where the quotient's chain rule meets 0 / 0."""
    one = const(1.0, k)
    plain = one / p - (k - one) / (one - p)
    near = snp.isfinite(plain) & (snp.abs(k) < 1e290) & (p < one)
    q = snp.where(near, p, const(0.5, p))
    exact = less_product(one, snp.where(near, k, one), q) / (q * (one - q))
    return snp.log1p(-p), valued_as(plain, exact, near)


# (k - 1) log1p(-p) + log p, its slope in p in closed form
_geom_log_mass = with_partials(
    "geom_log_mass", lambda k, p: xlog1py(k - const(1.0, k), -p) + snp.log(p), _geom_log_mass_partials
)


_geom_mass = mass_of(_geom_logpmf, 1.0, 0.5)


def _geom_product_slope(k, p):
    """d/dp p (1 - p)^(k - 1) = (1 - p)^(k - 2) (1 - k p), 1 - k p exact (``less_product``;
    the product's own chain rule leaves an ulp of (1 - p)^(k - 1) where its two terms cancel, 2.3x
    the slope -2.4e-17 at (10, 0.1)); 1 at k = 1, where the pmf is p."""
    first = k == const(1.0, k)
    kk = snp.where(first, const(2.0, k), k)
    general = one_minus_power(p, kk - const(2.0, k)) * less_product(const(1.0, p), kk, p)
    return snp.zeros_like(k), snp.where(first, snp.ones_like(p), general)


# p (1 - p)^(k - 1) for a whole k held constant, its slope in p in closed form
_geom_product = with_partials(
    "geom_product", lambda k, p: p * one_minus_power(p, k - const(1.0, k)), _geom_product_slope
)
# k up to this (every whole number below it is a float64): geom's pmf as the product p (1 - p)^(k - 1)
_GEOM_PRODUCT_UP_TO = 2.0**53


def _geom_pmf(k, p, loc=0):
    """exp(logpmf) (slopes 0 where it underflows), but for whole k <= 2^53 and 0 < p < 1 the
    product p (1 - p)^(k - 1): its value where its factors are normal numbers (``all_normal``),
    and its slopes in p (``_geom_product``), with those in k from ``linear_k_factor`` of log1p(-p)
    (exp(logpmf)'s second slope f (l'' + l'^2) cancels two terms of 1/p^2: 4.7e13 at (1, 1e-30)
    for the 0 of pmf = p, 3.3e-11 at (1, 1e-5), and 3.2e5 ulps at (1e4, 1e-10), where the 1/p^2
    are 1e20 and the slope -2e4); value and slopes where exp(logpmf) underflowed (``below_mass``)."""
    mass = _geom_mass(k, p, loc=loc)
    k, p, loc = floats(k, p, loc)
    j = k - loc
    few = support(j, 1.0, _GEOM_PRODUCT_UP_TO) & (p > const(0.0, p)) & (p < const(1.0, p))
    j, p = inside(few, j, 1.0), inside(few, p, 0.5)
    kept = stop_gradient(j)
    normal = all_normal(p, one_minus_power(p, kept - const(1.0, kept)))
    smooth = few & normal
    under = below_mass(few, mass)
    (p_c,) = slopes_where(under | smooth, p)
    product = _geom_product(*snp.broadcast_arrays(kept, p_c))
    j_s, p_s = snp.broadcast_arrays(*slopes_where(smooth, j, p))
    in_k = linear_k_factor(j_s, snp.log1p(-p_s))
    return from_product(mass, product, in_k, few & normal, smooth, under)


geom = Distribution(
    "geom",
    "The geometric distribution: the number of trials of probability p up to the first success.",
    logpmf=in_float64(_geom_logpmf),
    pmf=in_float64(_geom_pmf),
)


# -- nbinom: failures before the n-th success ----------------------------------------------------
def _digamma_gap(n, k):
    """psi(n + k) - psi(k + 1): digamma_step(k + 1, n - 1), but for n below 1/2, where n - 1 may
    round to -1 (a pole at k = 0), the step down from k + 1 to n + k, -digamma_step(n + k, 1 - n)
    (as two digammas, psi(2.3) - psi(3) was 300 ulps off)."""
    small = n < const(0.5, n)
    step = digamma_step(k + 1.0, snp.where(small, const(0.0, n), n - 1.0))
    n_s = snp.where(small, n, const(0.25, n))
    return snp.where(small, -digamma_step(n_s + k, 1.0 - n_s), step)


def _nbinom_log_coefficient_value(k, n):
    """log C(k + n - 1, k) = log Gamma(n + k) - log Gamma(k + 1) - log Gamma(n) = -log k - betaln(k, n)
    for k > 0 (0 at k = 0): betaln's Stirling differences keep the digits that the log-gammas,
    8e4 each at k = 1e4, cancel (nbinom.pmf(1e4, 3, 1e-7) was 5e4 ulps off as log_rising(n, k) - log k!)."""
    some = k > const(0.0, k)
    kk = snp.where(some, k, const(1.0, k))
    return snp.where(some, -snp.log(kk) - betaln(kk, n), const(0.0, k))


# log C(k + n - 1, k), its slopes psi(n + k) - psi(k + 1) in k and psi(n + k) - psi(n) in n each one
# digamma_step: written as a difference of two digamma slopes, reverse mode multiplies each by the
# cotangent and XLA's fused multiply-add keeps one product's rounding (d/dk nbinom.pmf(2, 1,
# 2.2e-16), whose digammas cancel, was 15% off)
_nbinom_log_coefficient = with_partials(
    "nbinom_log_coefficient",
    _nbinom_log_coefficient_value,
    lambda k, n: (_digamma_gap(n, k), digamma_step(n, k)),
)


# log Gamma(n + k) - log Gamma(k + 1): the k-dependent part of the log coefficient, whose slope in n
# leaves out the psi(n) that only cancels in _nbinom_pmf's k factor (its slope would be infinite
# at n = 1e-300, its second 1/n^2 = inf: their difference nan)
_nbinom_k_part = with_partials(
    "nbinom_k_part",
    lambda k, n: gammaln(n + k) - gammaln(k + 1.0),
    lambda k, n: (_digamma_gap(n, k), digamma(n + k)),
)


def _nbinom_logpmf(k, n, p, loc=0):
    k, n, p, loc = floats(k, n, p, loc)
    k = k - loc
    bad = ~((n > const(0.0, n)) & (p > const(0.0, p)) & (p <= const(1.0, p)))
    ok = support(k, 0.0, np.inf)
    kc, n, p = snp.broadcast_arrays(inside(ok, k, 0.0), inside(ok, n, 1.0), inside(ok, p, 0.5))
    log_coef = _nbinom_log_coefficient(kc, n)
    out = log_coef + _nbinom_log_powers(kc, n, p)
    out = snp.where(snp.isinf(n), const(np.nan, out), out)  # n = inf on the support: scipy's and jax's nan
    return nan_where(bad, on_integers(k, ok, out))


def _nbinom_log_powers_partials(k, n, p):
    """log1p(-p) in k, log p in n, and in p n / p - k / (1 - p) as (n - (n + k) p) / (p (1 - p)),
    n - (n + k) p exact (``less_product``): the two quotients cancel where n (1 - p) = k p, and
    reverse mode's multiply-add kept one's rounding (-1.8e-15 for the 0 at (1e4, 1e4, 0.5)). Its
    own slope (the second derivatives) stays the plain form's, -n / p^2 - k / (1 - p)^2, which is
    finite or infinite where the quotient's chain rule meets 0 / 0 (p = 1); n / p at k = 0."""
    one = const(1.0, p)
    none = k == const(0.0, k)
    plain = n / p - snp.where(none, const(0.0, p), k / (one - p))
    inner = (p > const(0.0, p)) & (p < one) & (snp.abs(n + k) < 1e290)
    q = snp.where(inner, p, const(0.5, p))
    exact = less_product(n, n + k, q) / (q * (one - q))
    return snp.log1p(-p), snp.log(p), valued_as(plain, exact, inner & ~none)


# n log p + k log1p(-p), its slope in p in closed form
_nbinom_log_powers = with_partials(
    "nbinom_log_powers", lambda k, n, p: xlogy(n, p) + xlog1py(k, -p), _nbinom_log_powers_partials
)


_nbinom_mass = mass_of(_nbinom_logpmf, 0.0, 1.0, 0.5)
_FEW_FAILURES = 32  # k up to this: nbinom's pmf as a product (_nbinom_pmf)


def _nbinom_pmf(k, n, p, loc=0):
    """exp(logpmf) (slopes 0 where it underflows), but for whole k <= _FEW_FAILURES, finite n > 0
    and 0 < p < 1 the product prod_{j < k} (n + j) / (j + 1) p^n (1 - p)^k: its value where its
    powers are normal numbers (``all_normal``; the exp of a log-pmf of -20.8 was 48 ulps off,
    nbinom.pmf(1, 10, 0.1) = 9e-10, 8.999999999999954e-10); its slopes in n and p too where they
    are finite (``smooth``), with those in k from ``k_factor`` (exp(logpmf)'s slopes were 5e4
    ulps off at n = 1e4, p = 1 - 2^-53, and its d2/dn2 at n = 1.2e-38, p = 1e-7 was -7.6e22 for
    -32); value and slopes where exp(logpmf) underflowed but p^n's slopes do not (``below_mass``)."""
    mass = _nbinom_mass(k, n, p, loc=loc)
    k, n, p, loc = floats(k, n, p, loc)
    j = k - loc
    few = support(j, 0.0, float(_FEW_FAILURES)) & (n > const(0.0, n)) & (n < const(np.inf, n))
    few = few & (p > const(0.0, p)) & (p < const(1.0, p))
    j, n, p = inside(few, j, 0.0), inside(few, n, 1.0), inside(few, p, 0.5)
    kept = stop_gradient(j)
    normal = all_normal(snp.power(p, n), one_minus_power(p, kept))
    # where the product's slopes and the k factor's are finite: n below 1e9 (the coefficient, about
    # n^k / k!), above 1e-150 at k = 0 (the k factor's trigamma of n), n / p below 1e150 and p
    # above 1e-154 (p^n's second slope n (n - 1) p^(n - 2); 1 / p^2 overflows below)
    smooth = few & normal & (n < const(1e9, n)) & ((n > const(1e-150, n)) | (j >= const(1.0, j)))
    smooth = smooth & (n < p * const(1e150, p)) & (p > const(1e-154, p))
    under = below_mass(few & (n < const(1e9, n)), mass)
    n_c, p_c = slopes_where(under | smooth, n, p)
    coefficient = running_product(
        kept, lambda c, i: c * ((n_c + i) / (i + 1.0)), _FEW_FAILURES, snp.ones_like(j)
    )
    product = coefficient * powers(*snp.broadcast_arrays(n_c, kept, p_c))
    j_s, n_s, p_s = snp.broadcast_arrays(*slopes_where(smooth, j, n, p))
    in_k = k_factor(lambda i: _nbinom_k_part(i, n_s), j_s) * linear_k_factor(j_s, snp.log1p(-p_s))
    return from_product(mass, product, in_k, few & normal, smooth, under)


nbinom = Distribution(
    "nbinom",
    "The negative binomial distribution: failures before the n-th success of probability p.",
    logpmf=in_float64(_nbinom_logpmf),
    pmf=in_float64(_nbinom_pmf),
)


# -- betabinom: binom with a beta(a, b) success probability --------------------------------------
_FEW_TRIALS = 32  # n up to this: the log-pmf as a sum of log1p terms (_few_trials_value)


def _few_trials_value(k, n, a, b):
    """log C(n, k) + log B(k + a, n - k + b) - log B(a, b) for whole 0 <= k <= n <= _FEW_TRIALS as
    the log of the finite product C(n, k) prod_{j < n-k} (b + j) / (a + b + j) prod_{j < k} (a + j) /
    (a + b + n - k + j): the two log-beta functions cancel (betaln(2.5, 10001) - betaln(2.5, 10000) =
    -2.5e-4 from two of -20, 40000 ulps off). Each ratio q = 1 - r is logged as log1p(-r) where r is
    below 1/2 and as log(q) above (there the rounding of r is most of 1 - r: betabinom.pmf(0, 1, 1e4,
    0.5) was 4000 ulps off as log1p(-1e4 / 10000.5)), so every term keeps its digits, all of one
    sign, and their sum is compensated (Neumaier: 20 terms left 7 ulps at betabinom.logpmf(5, 20, 1, 1)).
    C(n, k) is an exact integer below 2^53. The terms are summed by a loop (one copy of its body in
    the graph, not _FEW_TRIALS)."""
    m = n - k

    def log_ratio(used, part, rest, whole):
        """log(part / whole) with part + rest = whole: log1p(-rest / whole) or log(part / whole); 0
        where not ``used``."""
        r = snp.where(used, rest / whole, const(0.0, whole))
        near_one = r < const(0.5, r)
        q = snp.where(near_one, const(1.0, whole), part / whole)
        return snp.where(near_one, snp.log1p(-r), snp.log(q))

    def add(total, lost, term):
        """Neumaier's compensated sum: ``lost`` keeps what each addition rounded away."""
        s = total + term
        big = snp.abs(total) >= snp.abs(term)
        return s, lost + snp.where(big, (total - s) + term, (term - s) + total)

    def add_terms(j, carry):
        total, lost, choose = carry
        jf = snp.asarray(j).astype(k.dtype)
        in_m, in_k = jf < m, jf < k
        total, lost = add(total, lost, log_ratio(in_m, b + jf, a, a + b + jf))
        total, lost = add(total, lost, log_ratio(in_k, a + jf, b + m, a + b + m + jf))
        choose = snp.where(in_k, choose * (m + jf + 1.0) / (jf + 1.0), choose)
        return total, lost, choose

    zeros = snp.zeros_like(k)
    total, lost, choose = fori_loop(0, _FEW_TRIALS, add_terms, (zeros, zeros, snp.ones_like(k)))
    return snp.log(choose) + (total + lost)


def _reciprocal_power_sum(x, count, power: int):
    """sum_{j < count} (x + j)^-power for a whole 0 <= count <= _FEW_TRIALS (every x + j > 0)."""

    def add(j, total):
        jf = snp.asarray(j).astype(x.dtype)
        return snp.where(jf < count, total + snp.reciprocal(x + jf) ** power, total)

    return fori_loop(0, _FEW_TRIALS, add, snp.zeros_like(x))


def _paired_terms(x, h, s, c, e, power: int):
    """sum_{j < c} ((x + j)^-power - (s + j)^-power) - sum_{c <= j < e} (s + j)^-power for s = x + h > 0,
    x > 0 and whole 0 <= c <= e <= _FEW_TRIALS: each pair taken as one term of h's sign, h / ((x + j)
    (s + j)) or h (x + s + 2j) / ((x + j)^2 (s + j)^2), so the two sums' common part cancels on paper.
    s comes in as the caller has it (h may have rounded: b - 1 for b = 1e-300 is -1)."""

    def add(j, total):
        jf = snp.asarray(j).astype(x.dtype)
        t, u = x + jf, s + jf
        apart = snp.true_divide(h, u) * snp.reciprocal(t)  # 1/t - 1/u
        if power == 2:
            apart = apart * (snp.reciprocal(t) + snp.reciprocal(u))  # 1/t^2 - 1/u^2
        single = snp.reciprocal(u) ** power
        term = snp.where(jf < c, apart, snp.where(jf < e, -single, snp.zeros_like(x)))
        return total + term

    return fori_loop(0, _FEW_TRIALS, add, snp.zeros_like(x))


def _paired_steps_partials(x, h, s, c, e):
    """In x (s moving with it): psi'(x + c) - psi'(x) - psi'(s + e) + psi'(s), paired as the value; in
    h: psi'(s) - psi'(s + e), a sum of squares; none in s itself (x + h, already counted); in c and
    e: the continuous extension's psi'(x + c), -psi'(s + e)."""
    return (
        -_paired_terms(x, h, s, c, e, 2),
        _reciprocal_power_sum(s, e, 2),
        snp.zeros_like(s),
        polygamma(1.0, x + c),
        -polygamma(1.0, s + e),
    )


# (psi(x + c) - psi(x)) - (psi(s + e) - psi(s)), s = x + h: betabinom's slopes (in a shape: x that
# shape, h the other, c <= e the counts; in n: x = m + 1, h = b - 1, c = e = k): as two sums of
# reciprocals, or digammas, the digits of their common part cancel (d/db betabinom.logpmf(0, 1, 0.5,
# 1e4) = 1/b - 1/(a + b) = 5.0e-9 from two 1e-4 was 9700 ulps off)
_paired_steps = with_partials(
    "betabinom_paired_steps", lambda x, h, s, c, e: _paired_terms(x, h, s, c, e, 1), _paired_steps_partials
)


def _few_trials_partials(k, n, a, b):
    """The continuous extension's slopes, each a difference of digamma steps grouped so that a step
    that is 0 comes out 0 and the common part of two steps cancels on paper: d/dk = (psi(k+a) -
    psi(k+1)) - (psi(m+b) - psi(m+1)), m = n - k (exactly 0 at a = b = 1, where the pmf is flat in
    k: as psi(m+1) - psi(k+1) + psi(k+a) - psi(m+b), d/dk at k = 0 kept 9e-16 and d2/dk2 1e-15);
    d/dn = (psi(n+1) - psi(m+1)) - (psi(n+b) - psi(m+b)) - (psi(n+a+b) - psi(n+b)), the first two
    paired term by term (_paired_steps; as (psi(n+1) - psi(m+1)) - (psi(n+a+b) - psi(m+b)), d/dn
    at (5, 5, 0.5, 1) was 93 ulps off, at (0, 1, 0.5, 1e4) 1.4e5); d/da = (psi(k+a) - psi(a)) -
    (psi(n+a+b) - psi(a+b)) and d/db likewise with m (_paired_steps)."""
    m = n - k
    d_k = _digamma_gap(a, k) - _digamma_gap(b, m)
    d_n = _paired_steps(m + 1.0, b - 1.0, m + b, k, k) - digamma_step(n + b, a)
    d_a = _paired_steps(a, b, a + b, k, n)
    d_b = _paired_steps(b, a, a + b, m, n)
    return d_k, d_n, d_a, d_b


_few_trials = with_partials("betabinom_few_trials", _few_trials_value, _few_trials_partials)


def _betabinom_logpmf(k, n, a, b, loc=0):
    k, n, a, b, loc = floats(k, n, a, b, loc)
    k = k - loc
    zero = const(0.0, k)
    bad = ~((n >= zero) & (n == snp.floor(n)) & (a > zero) & (b > zero))
    ok = support(k, 0.0, n)
    kc, n, a, b = inside(ok, k, 0.0), inside(ok, n, 0.0), inside(ok, a, 1.0), inside(ok, b, 1.0)
    few = (n <= const(float(_FEW_TRIALS), n)) & (a < const(np.inf, a)) & (b < const(np.inf, b))
    kc, n, a, b = snp.broadcast_arrays(kc, n, a, b)
    by_sum = _few_trials(*(inside(few, x, s) for x, s in ((kc, 0.0), (n, 0.0), (a, 1.0), (b, 1.0))))
    kl, nl, al, bl = (inside(~few, x, s) for x, s in ((kc, 0.0), (n, 0.0), (a, 1.0), (b, 1.0)))
    by_beta = _log_choose(nl, kl) + betaln(kl + al, nl - kl + bl) - betaln(al, bl)
    out = snp.where(few, by_sum, by_beta)
    return nan_where(bad, on_integers(k, ok, out))


betabinom = Distribution(
    "betabinom",
    "The beta-binomial distribution: successes in n trials whose probability is beta(a, b) distributed.",
    logpmf=in_float64(_betabinom_logpmf),
    pmf=in_float64(exp_of(_betabinom_logpmf, mass=True)),
)


# -- multinomial: counts x (last axis) of n draws over categories of probabilities p ---------------
def _multinomial_logpmf(x, n, p):
    x, n, p = floats(x, n, p)
    if x.ndim == 0 or p.ndim == 0:
        raise error(
            f"multinomial.logpmf wants the categories along the last axis of x and p, got {x.type}, {p.type}"
        )
    if p.shape[-1] != x.shape[-1]:
        raise error(
            f"multinomial.logpmf: x and p disagree on the number of categories: {x.type} and {p.type}"
        )
    zero, one = const(0.0, x), const(1.0, x)
    xc = snp.maximum(x, zero)
    out = gammaln(n + one) + snp.sum(xlogy(xc, p) - gammaln(xc + one), axis=-1)
    on_support = snp.all((x >= zero) & (x == snp.floor(x)), axis=-1) & (snp.sum(x, axis=-1) == n)
    out = snp.where(on_support, out, const(-np.inf, out))
    bad_p = snp.any((p < zero) | (p > one), axis=-1)
    bad = bad_p | (n < zero) | (n != snp.floor(n))
    return nan_where(bad, out)


multinomial = Distribution(
    "multinomial",
    "The multinomial distribution: counts x (last axis) of n draws over categories of probabilities p.",
    elementwise=False,
    logpmf=_multinomial_logpmf,
    pmf=exp_of(_multinomial_logpmf, mass=True),
)


__all__ = ["betabinom", "geom", "multinomial", "nbinom"]
