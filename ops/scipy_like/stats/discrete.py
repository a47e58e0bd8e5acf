"""Discrete distributions: poisson, bernoulli, binom (ops layer).

logpmf/pmf/cdf/logcdf/sf/logsf with scipy's arguments (``k``, the
parameters, ``loc=0``): a pmf is 0 (logpmf -inf) off the integers of the
support, the CDFs step at the integers (computed from the regularized
incomplete gamma and beta functions), nan for invalid parameters.
bernoulli.ppf is closed form; poisson.ppf and binom.ppf search over k
(inverse.py).
"""

from __future__ import annotations

import numpy as np

from ... import numpy_like as snp
from ...control_api import fori_loop
from ...primitives.elementwise import stop_gradient
from ..log_beta import gamma_ratio_log
from ..partials import with_partials
from ..special import betainc, digamma, gammainc, gammaincc, gammaln, xlog1py, xlogy
from ._common import Distribution, const, floats, log1m, log_tail, nan_where
from .gamma_density import log_stirling_density
from .inverse import discrete_quantile, poisson_high
from .log_less_digamma import log_less_digamma
from .underflow import mass_of
from .wide import in_float64


def support(k, low, high):
    """Where k is an integer in [low, high]."""
    return (k == snp.floor(k)) & (k >= low) & (k <= high)


def inside(ok, x, fill: float):
    """``x`` on the support (``ok``), ``fill`` (a valid value) off it. A log-pmf's formula sees
    only these: off the support the log-pmf is the constant -inf, and the formula's slope at the
    point itself (nan where it meets 0 * inf, say k = 0.5 next to p = 0), which where multiplies
    by 0, would make its derivative nan instead of 0. On the support the slope is x's, whole."""
    return snp.where(ok, x, const(fill, x))


def on_integers(k, ok, value):
    """``value`` where ``ok`` (k on the support), else -inf; nan where k is nan (k - loc with k and
    loc infinite of one sign: scipy's nan, which no comparison of k would catch)."""
    out = snp.where(ok, value, const(-np.inf, value))
    return snp.where(snp.isnan(k), const(np.nan, value), out)


def log_factorial(x):
    """gammaln(x + 1) with the exact 0 of log 0! and log 1!: XLA's lgamma leaves 4.8e-7 at 1 in
    float32, which a log-pmf would carry as a nonzero log of a probability 1 (binom at k = n = 0);
    the slope stays gammaln's (digamma)."""
    g = gammaln(x + const(1.0, x))
    trivial = (x == const(0.0, x)) | (x == const(1.0, x))
    return g - stop_gradient(snp.where(trivial, g, const(0.0, g)))


def log_rising(x, m):
    """log Gamma(x + m) - log Gamma(x) for x > 0, m >= 0: -gamma_ratio_log(m, x) (log_beta.py) where
    x >= 8, whose log-gammas cancel (gammaln(10002) - gammaln(1e4) = 18.4 from two of 8e4, 1e-11 of
    rounding: nbinom.logpmf(2, 1e4, 0.9) was 109 ulps off); the gammaln difference below (small
    terms). Exactly 0 at m = 0."""
    big = x >= const(8.0, x)
    ratio = gamma_ratio_log(snp.where(big, m, const(0.0, m)), snp.where(big, x, const(8.0, x)))
    xs, ms = snp.where(big, const(1.0, x), x), snp.where(big, const(0.0, m), m)
    return snp.where(big, -ratio, gammaln(xs + ms) - gammaln(xs))


def log_choose(n, k):
    """log of the binomial coefficient C(n, k) for 0 <= k <= n: log_rising(n - j + 1, j) - log j! with
    j = min(k, n - k) (exactly 0 at k = 0 and k = n)."""
    j = snp.where(k <= n - k, k, n - k)  # not minimum: its slope at the tie k = n/2 is half of each side's
    return log_rising(n - j + const(1.0, n), j) - log_factorial(j)


def _steps(k, low, high, below, inside, above):
    """A step function of k: ``below`` under ``low``, ``above`` from ``high`` on, ``inside`` between."""
    return snp.where(k < low, const(below, inside), snp.where(k >= high, const(above, inside), inside))


def running_product(count, update, length: int, init):
    """``acc = update(acc, i)`` for the whole i < count (a float array, at most ``length``), from
    ``init``: a loop, whose body is one copy in the graph (an unrolled Python loop of 32 steps made
    each pmf's graph 32 copies and its compile seconds long)."""

    def step(i, acc):
        f = snp.asarray(i).astype(count.dtype)
        return snp.where(f < count, update(acc, f), acc)

    return fori_loop(0, length, step, init)


# -- poisson -------------------------------------------------------------------------------------
def _poisson_args(k, mu, loc):
    k, mu, loc = floats(k, mu, loc)
    return k - loc, mu, mu < const(0.0, mu)


def _poisson_logpmf(k, mu, loc=0):
    k, mu, bad = _poisson_args(k, mu, loc)
    ok = support(k, 0.0, np.inf)
    kc, mu = inside(ok, k, 0.0), inside(ok, mu, 1.0)
    out = _log_terms(*snp.broadcast_arrays(kc, mu))
    return nan_where(bad, on_integers(k, ok, out))


def _log_terms_value(k, mu):
    """k log mu - mu - log k!; from k = 7 on, with mu between (k + 1) / 3 and 3 (k + 1), the log of
    the gamma density of shape k + 1 at mu in Stirling's form (1.5e-11 off at k = mu = 1e4 before,
    exp of it the pmf; 2.5e-8 at 1e8). Beyond that range its bd0 cancels as much as the plain sum."""
    plain = xlogy(k, mu) - log_factorial(k) - mu
    a = k + const(1.0, k)
    third = const(1.0 / 3.0, a)
    stirling = (a >= const(_STIRLING_SHAPE, a)) & (mu > a * third) & (mu < a / third)
    a_s, mu_s = (
        snp.where(stirling, a, const(_STIRLING_SHAPE, a)),
        snp.where(stirling, mu, const(_STIRLING_SHAPE, mu)),
    )
    return snp.where(stirling, log_stirling_density(mu_s, a_s), plain)


def _log_terms_partials(k, mu):
    # the slope in mu is (k - mu) / mu, not k / mu - 1, which keeps only the rounding of k / mu
    # where mu is near k (mu = 1 - eps/2 at k = 1: 2.2e-16 for 1.1e-16); its own slope (the second
    # derivatives) stays k / mu - 1's, -k / mu^2, where the quotient's chain rule would cancel
    # -1 / mu against (mu - k) / mu^2 (at (1, 1e4), 5e-13 of -1e-8 left) and meet inf - inf at
    # mu = -0; at k = 0, where k log(mu) is 0 whatever mu is, it is -1, not xlogy's 0 / mu - 1
    # (nan at mu = 0). In k it is log(mu) - psi(k + 1), which cancels next to mu = k + 1/2 (at (2,
    # 2.5) 140x): log_less_digamma's value, the plain difference's slopes
    none = k == const(0.0, k)
    mu_1 = snp.where(none, snp.ones_like(mu), mu)
    in_mu = valued_as(k / mu_1 - const(1.0, mu), (k - mu) / mu_1)
    k_1 = k + const(1.0, k)
    in_k = valued_as(snp.log(mu) - digamma(k_1), log_less_digamma(mu, k_1))
    return in_k, snp.where(none, const(-1.0, mu), in_mu)


_log_terms = with_partials("poisson_log_terms", _log_terms_value, _log_terms_partials)


_STIRLING_SHAPE = 8.0  # k + 1 from which the log-pmf is Stirling's (stirling_correction's range)
_FEW = 16  # counts below this take poisson's cdf as e^-mu times its finite sum
_FEW_MU = 600.0  # and mu up to this (e^-600 and 600^15 / 15! are both far inside float64)


def _few_counts_cdf_value(j, mu):
    """e^-mu sum_{i <= j} mu^i / i! for a count j < _FEW, by Horner's rule from the last term
    (all terms positive: a few ulps, where the incomplete gamma function leaves ~6 at Q(1, 1.5)
    and scipy's ~12 at Q(1, 30))."""

    def horner(r, total):  # i = _FEW - 1 - r runs down from the last term
        i = const(float(_FEW - 1), j) - snp.asarray(r).astype(j.dtype)
        return snp.where(j >= i, const(1.0, mu) + mu / i * total, total)

    return snp.exp(-mu) * fori_loop(0, _FEW - 1, horner, snp.ones_like(mu))


def _few_counts_partials(j, mu):
    """0 in j (a step function of k) and -e^-mu mu^j / j!: mu^j as a power, whose one rounding
    keeps the digits that j log(mu) - mu - log(j!) would lose (mu^5 e^-mu = 4.5e-81 at mu = eps)."""
    factorial = running_product(j, lambda acc, i: acc * (i + const(1.0, j)), _FEW - 1, snp.ones_like(j))
    power = snp.where(j == const(0.0, j), const(1.0, mu), snp.power(mu, j))
    return snp.zeros_like(j), -(power / factorial) * snp.exp(-mu)


_few_counts_cdf = with_partials("poisson_few_counts_cdf", _few_counts_cdf_value, _few_counts_partials)


def _poisson_cdf_of(kp1, mu):
    """Q(k + 1, mu) = P(K <= k): from the finite sum for few counts and moderate mu, else from the
    regularized incomplete gamma function."""
    top = _FEW_MU if mu.dtype.bits == 64 else 80.0  # float32 (ppf's search): e^-80 is still normal
    few = (kp1 <= const(float(_FEW), kp1)) & (mu <= const(top, mu))
    j = snp.where(few, kp1 - const(1.0, kp1), const(0.0, kp1))
    by_sum = _few_counts_cdf(j, snp.where(few, mu, const(1.0, mu)))
    return snp.where(few, by_sum, gammaincc(kp1, mu))


def _poisson_probability(fn, below: float):
    """cdf (fn = Q, below = 0) or sf (P, 1): ``below`` under k = 0, the other end at k = +inf
    (also for mu = inf, where Q(inf, inf) is nan), fn(floor(k) + 1, mu) between; off the finite
    support fn sees mu = 1, so that its slope there (multiplied by 0) is no nan. The cdf is
    computed in float64 (wide.py), where the finite sum's mu^j and e^-mu stay in range."""

    def probability(k, mu, loc=0):
        k, mu, bad = _poisson_args(k, mu, loc)
        finite = (k >= const(0.0, k)) & (k < const(np.inf, k))
        kp1 = snp.floor(snp.where(finite, k, const(0.0, k))) + const(1.0, k)
        value = fn(kp1, snp.where(finite, mu, const(1.0, mu)))
        value = snp.where(k < const(0.0, k), const(below, k), value)
        value = snp.where(k == const(np.inf, k), const(1.0 - below, k), value)
        return nan_where(bad | snp.isnan(k), value)

    return probability


_poisson_cdf = _poisson_probability(_poisson_cdf_of, 0.0)
_poisson_sf = _poisson_probability(gammainc, 1.0)


def _poisson_ppf(q, mu, loc=0):
    """the smallest k with cdf(k) >= q, by bisection over k (inverse.py); -1 + loc at q = 0, inf at 1"""
    q, mu, loc = floats(q, mu, loc)
    k = discrete_quantile(_poisson_cdf, q, (mu,), poisson_high(mu), np.inf, loc)
    return nan_where(~(mu >= const(0.0, mu)), k)


_ENTROPY_SUM_UP_TO = 500.0  # mu above this: the asymptotic series (its next term is below 1e-11 there)
_ENTROPY_TERMS = 1024  # for mu <= 500 the pmf past k = 1023 is below float64's smallest normal


# -log|mu| with the slope -1/|mu|: -inf at mu = -0 too (the chain rule of -log(mu) gives +inf there)
_neg_log_abs = with_partials(
    "neg_log_abs",
    lambda mu: snp.negative(snp.log(snp.abs(mu))),
    lambda mu: (snp.negative(snp.reciprocal(snp.abs(mu))),),
)
# H(mu) = mu - mu log mu + O(mu^2) at 0: the value 0 with the slope -log mu = +inf and the second
# derivative -1/mu = -inf there (the sum's stand-in mu = 1 would give 0 for both)
_entropy_at_zero = with_partials(
    "poisson_entropy_at_zero", lambda mu: snp.zeros_like(mu), lambda mu: (_neg_log_abs(mu),)
)


def _poisson_entropy(mu, loc=0):
    """-sum_k p(k) log p(k), summed in float64 over k < 1024 (a loop: memory stays that of mu) for
    mu <= 500, above that 1/2 log(2 pi e mu) - 1/(12 mu) - 1/(24 mu^2) - 19/(360 mu^3); rounded
    once to mu's dtype. 0 at mu = 0, nan for mu < 0; loc moves the support, not the entropy.
    float64's error grows from a few ulps at small mu to ~1e-13 relative near mu = 500: each term's
    k log mu - mu - log k! cancels numbers of size mu log mu."""
    mu, loc = floats(mu, loc)
    out_dtype = mu.dtype
    mu = (mu + snp.zeros_like(loc)).astype(snp.float64)
    small = mu <= _ENTROPY_SUM_UP_TO
    m = snp.where(small & (mu > 0.0), mu, 1.0)

    def add_term(k, total):
        kf = snp.asarray(k).astype(snp.float64)
        logp = xlogy(kf, m) - m - log_factorial(kf)
        return total - snp.exp(logp) * logp

    direct = fori_loop(0, _ENTROPY_TERMS, add_term, snp.zeros_like(mu))
    big = snp.where(small, 2 * _ENTROPY_SUM_UP_TO, mu)
    series = 0.5 * snp.log(2 * np.pi * np.e * big) - (1 / 12 + (1 / 24 + 19 / 360 / big) / big) / big
    at_zero = _entropy_at_zero(snp.where(mu == 0.0, mu, 1.0))
    value = snp.where(mu == 0.0, at_zero, snp.where(small, direct, series))
    return nan_where(mu < 0.0, value).astype(out_dtype)


_poisson_mass = mass_of(_poisson_logpmf, 0.0, 1.0)
_FEW_POISSON_COUNTS = 32.0  # k up to this: the product's slopes where the mass underflows


def _poisson_pmf(k, mu, loc=0):
    """exp(logpmf) with its slopes, but where it underflows at whole k <= 32 the product
    mu^k e^-mu / k!, whose slopes in mu need not underflow (d2/dmu2 at (2, 2.2e-308) is 1, where
    exp(logpmf)'s are 0: ``below_mass``). At mu = +0 too (the mass of k >= 1 is 0 there): the
    one-sided slopes of mu e^-mu are 1 and -2, where exp(logpmf)'s are 0 * inf = nan (jax's too).
    mu = -0 keeps the exp form, whose 0 has the sign scipy gives."""
    k, mu, loc = floats(k, mu, loc)
    j = k - loc
    zero = const(0.0, mu)
    at_origin = (mu == zero) & ~snp.signbit(mu)
    # the exp form's 0 there has slopes 0 * inf: it sees mu = 1 instead, and gives way to the product
    origin_mass = at_origin & (j >= const(1.0, j))
    mass = snp.where(origin_mass, zero, _poisson_mass(k, inside(~origin_mass, mu, 1.0), loc=loc))
    few = support(j, 0.0, _FEW_POISSON_COUNTS) & ((mu > zero) | at_origin) & (mu < const(np.inf, mu))
    j, mu = inside(few, j, 0.0), inside(few, mu, 1.0)
    under = below_mass(few, mass)
    (mu,) = slopes_where(under, mu)
    kept = stop_gradient(j)
    # k! as a product (exact to 18!, one rounding a factor beyond): exp(log k!) is a few ulps off
    factorial = running_product(
        kept, lambda acc, i: acc * (i + const(1.0, kept)), int(_FEW_POISSON_COUNTS), snp.ones_like(kept)
    )
    product = snp.power(mu, kept) * snp.exp(-mu) / factorial
    return snp.where(under, product, mass)


poisson = Distribution(
    "poisson",
    "The Poisson distribution with mean mu.",
    logpmf=in_float64(_poisson_logpmf),
    pmf=in_float64(_poisson_pmf),
    cdf=in_float64(_poisson_cdf),
    # near 1, log1p of the other tail (log of a float32 sf of 1 - 4.7e-6 was 1% off), in float64
    logcdf=in_float64(log_tail(_poisson_cdf, _poisson_sf)),
    sf=_poisson_sf,
    logsf=in_float64(log_tail(_poisson_sf, _poisson_cdf)),
    ppf=in_float64(_poisson_ppf, flush_subnormals=True),  # a float32 cdf cannot tell q = 1 - 6e-8 from 1
    entropy=_poisson_entropy,
)


# -- bernoulli -----------------------------------------------------------------------------------
def _bernoulli_args(k, p, loc):
    k, p, loc = floats(k, p, loc)
    return k - loc, p, (p < const(0.0, p)) | (p > const(1.0, p))


def _bernoulli_logpmf(k, p, loc=0):
    k, p, bad = _bernoulli_args(k, p, loc)
    ok = support(k, 0.0, 1.0)
    kc, p = inside(ok, k, 0.0), inside(ok, p, 0.5)
    out = xlogy(kc, p) + xlog1py(const(1.0, k) - kc, -p)
    return nan_where(bad, on_integers(k, ok, out))


def _bernoulli_pmf(k, p, loc=0):
    """exp(logpmf), but for k in {0, 1} and 1e-150 < p < 1 the mass itself (p or 1 - p, slopes 1
    and -1) times ``linear_k_factor`` of log(p / (1 - p)) for the slopes in k (the continuous
    extension p^k (1 - p)^(1 - k)): exp(logpmf)'s d2/dp2 is p (1/p^2 - 1/p^2), which left -183.5
    for 0 at (1, 1e-10) in float32."""
    mass = snp.exp(_bernoulli_logpmf(k, p, loc=loc))
    j, p, _ = _bernoulli_args(k, p, loc)
    smooth = support(j, 0.0, 1.0) & (p > const(1e-150, p)) & (p < const(1.0, p))
    j, p = slopes_where(smooth, j, p)
    j, p = inside(smooth, j, 0.0), inside(smooth, p, 0.5)
    exact = snp.where(stop_gradient(j) == const(1.0, j), p, const(1.0, p) - p)
    return snp.where(smooth, exact * linear_k_factor(j, snp.log(p) - snp.log1p(-p)), mass)


def _bernoulli_cdf(k, p, loc=0):
    k, p, bad = _bernoulli_args(k, p, loc)
    return nan_where(bad, _steps(k, 0.0, 1.0, 0.0, const(1.0, p) - p, 1.0))


def _bernoulli_sf(k, p, loc=0):
    k, p, bad = _bernoulli_args(k, p, loc)
    return nan_where(bad, _steps(k, 0.0, 1.0, 1.0, p + snp.zeros_like(k), 0.0))


def _bernoulli_logcdf(k, p, loc=0):
    """log(1 - p) between 0 and 1 as log1m (log of the rounded 1 - p was 0 for p = 1.5e-9 in float32)"""
    k, p, bad = _bernoulli_args(k, p, loc)
    return nan_where(bad, _steps(k, 0.0, 1.0, -np.inf, log1m(p) + snp.zeros_like(k), 0.0))


def _bernoulli_ppf(q, p, loc=0):
    """the smallest k with cdf(k) >= q (-1 + loc at q = 0, as scipy; 1 + loc at q = 1, also where
    1 - p rounds to 1)"""
    q, p, loc = floats(q, p, loc)
    bad = (p < const(0.0, p)) | (p > const(1.0, p)) | (q < const(0.0, q)) | (q > const(1.0, q))
    zero, one = const(0.0, q), const(1.0, q)
    inner = snp.where((q <= const(1.0, p) - p) & (q < one), zero, one)
    k = snp.where(q == zero, const(-1.0, q), inner)
    return nan_where(bad, k + loc)


bernoulli = Distribution(
    "bernoulli",
    "The Bernoulli distribution: 1 with probability p, else 0.",
    logpmf=_bernoulli_logpmf,
    pmf=in_float64(_bernoulli_pmf),
    cdf=_bernoulli_cdf,
    logcdf=_bernoulli_logcdf,
    sf=_bernoulli_sf,
    logsf=log_tail(_bernoulli_sf, _bernoulli_cdf),
    ppf=_bernoulli_ppf,
)


# -- binom ---------------------------------------------------------------------------------------
def _binom_args(k, n, p, loc):
    k, n, p, loc = floats(k, n, p, loc)
    bad = (p < const(0.0, p)) | (p > const(1.0, p)) | (n < const(0.0, n)) | (n != snp.floor(n))
    return k - loc, n, p, bad


def _binom_logpmf(k, n, p, loc=0):
    k, n, p, bad = _binom_args(k, n, p, loc)
    ok = support(k, 0.0, n)
    kc, n, p = inside(ok, k, 0.0), inside(ok, n, 0.0), inside(ok, p, 0.5)
    out = log_choose(n, kc) + xlogy(kc, p) + xlog1py(n - kc, -p)
    return nan_where(bad, on_integers(k, ok, out))


_binom_mass = mass_of(_binom_logpmf, 0.0, 0.0, 0.5)
_FEW_TRIALS = 32  # k up to this: binom's pmf as the product C(n, k) p^k (1 - p)^(n - k)


def all_normal(*factors):
    """Whether every factor of a product is at least the smallest normal float64: XLA's exp and
    power give 0 for a subnormal result, so a product whose factor underflows there is 0 although
    the mass is not ((1 - p)^20 = 2^-1060 at p = 1 - 2^-53: nbinom.pmf(20, 1e4, p) = 3.4e-258)."""
    tiny = const(float(np.finfo(np.float64).tiny), factors[0])
    ok = factors[0] >= tiny
    for factor in factors[1:]:
        ok = ok & (factor >= tiny)
    return ok


def below_mass(few, mass):
    """Where a pmf's product form (a coefficient times powers of p and 1 - p) gives its value and
    slopes: where exp(logpmf) underflowed to 0 but a power's slope need not (binom.pmf at (2, 5,
    p = 2.2e-308) is 10 p^2 (1 - p)^3, whose d2/dp2 is 20; exp(logpmf)'s gave 0). The value is 0
    or below the smallest normal there either way; slopes in k stay 0. Pass the product's
    parameters through ``slopes_where`` with this mask (elsewhere its powers may have infinite
    slopes, which a 0 cotangent would turn into nan)."""
    return few & (mass == const(0.0, mass))


def from_product(mass, product, in_k, exact, smooth, under):
    """A pmf with a product form (binom, nbinom, geom): the product itself where exp(logpmf)
    underflowed (``under``, see ``below_mass``), the product times its k factor ``in_k`` where
    their slopes are finite (``smooth``), and where it is only ``exact`` (its powers normal
    numbers) the product's value with exp(logpmf)'s (``mass``) slopes; ``mass`` elsewhere."""
    held = snp.where(exact, mass + stop_gradient(product - mass), mass)
    return snp.where(under, product, snp.where(smooth, product * in_k, held))


def slopes_where(live, *xs):
    """``xs`` passing slopes only where ``live``: elsewhere a formula not chosen there may have
    infinite slopes, which the 0 cotangent ``where`` gives it would turn into nan."""
    return [snp.where(live, x, stop_gradient(x)) for x in xs]


def k_factor(k_part, k):
    """exp(k_part(k) - k_part(k) held constant): 1 in value, with the slopes in k (and mixed
    with the other arguments, exactly) of exp(k_part). A pmf taken as a product in its
    parameters times this factor has its parameter slopes from the product and its k slopes
    from the log-pmf's k-dependent part ``k_part``."""
    return snp.exp(k_part(k) - k_part(stop_gradient(k)))


def linear_k_factor(k, rate):
    """exp((k - k held constant) rate): ``k_factor`` of a part linear in k, k * rate, written so
    that its slopes in rate's arguments are exactly 0 (a difference of two k * rate would leave the
    rounding of k times rate's slope, k / (1 - p) = 9e15 at p = 1 - 2^-53, in a multiply-add)."""
    return snp.exp((k - stop_gradient(k)) * rate)


_SPLIT = 134217729.0  # 2^27 + 1: Dekker's split of a float64 into two halves of 26 bits


def less_product(c, k, p):
    """c - k p with the rounding of k p put back (Dekker's exact product; |k| < 1e290, where the
    split cannot overflow): near k p = c the rounded product leaves 0 (1 - 10 * 0.1, 2 - 20 * 0.1)."""
    k = snp.where(snp.abs(k) < 1e290, k, 0.0)
    k_big, p_big = k * _SPLIT, p * _SPLIT
    k_hi = k_big - (k_big - k)
    p_hi = p_big - (p_big - p)
    k_lo, p_lo = k - k_hi, p - p_hi
    product = k * p
    error = ((k_hi * p_hi - product) + k_hi * p_lo + k_lo * p_hi) + k_lo * p_lo
    return (c - product) - error


def valued_as(plain, exact, where=None):
    """``plain`` with the value of ``exact`` where ``where`` (if given) holds and both are finite,
    and plain's slopes everywhere: a closed-form slope keeps its digits where its textbook form
    cancels, while its own slopes (the second derivatives) stay the textbook form's, finite or
    infinite where the closed form's chain rule would meet 0 / 0 or cancel again."""
    keep = snp.isfinite(exact) & snp.isfinite(plain)
    if where is not None:
        keep = keep & where
    return plain + stop_gradient(snp.where(keep, exact - plain, const(0.0, plain)))


def one_minus_power(p, m):
    """(1 - p)^m with 1 - p split into its rounded value h and the rest e = (1 - h) - p (exact):
    h^m exp(m log1p(e / h)); (1 - p)'s own rounding raised to m = 31 would be 16 ulps."""
    h = const(1.0, p) - p
    e = (const(1.0, p) - h) - p
    return snp.power(h, m) * snp.exp(m * snp.log1p(e / h))


# -log k! - log (n - k)!: the k-dependent part of binom's log coefficient, its slope in k one
# digamma difference (0 at k = n / 2 exactly; two slopes would keep a multiply-add's rounding), in n
# only the psi(n - k + 1) that does not cancel in _binom_pmf's k factor
_binom_k_part = with_partials(
    "binom_k_part",
    lambda k, n: -(log_factorial(k) + gammaln(n - k + 1.0)),
    lambda k, n: (digamma(n - k + 1.0) - digamma(k + 1.0), -digamma(n - k + 1.0)),
)


def _binom_odds(p):
    """log(p / (1 - p)), the rate of binom's k factor. Up to p = 1e-154 its tangent at p instead:
    the same value and first slope, and a second slope of 0 for -1/p^2 + ..., which overflows
    there. The k factor multiplies that second slope by k - k held, 0, so every second derivative
    of the pmf is the same either way (and was 0 * inf = nan with the odds themselves)."""
    tiny = p <= const(1e-154, p)
    away = snp.where(tiny, const(0.5, p), p)
    odds = snp.log(away) - snp.log1p(-away)
    held = stop_gradient(p)
    tangent = stop_gradient(snp.log(p) - snp.log1p(-p)) + (p - held) / stop_gradient(p * (const(1.0, p) - p))
    return snp.where(tiny, tangent, odds)


def _powers_value(a, b, p):
    return snp.power(p, a) * one_minus_power(p, b)


def _powers_slopes(a, b, p):
    """p^a (1 - p)^b times log p in a and log1p(-p) in b; in p p^(a - 1) (1 - p)^(b - 1) (a - (a + b) p)
    with a - (a + b) p exact (``less_product``), -b (1 - p)^(b - 1) at a = 0 and a p^(a - 1) at
    b = 0: the powers' own chain rule a p^(a-1) (1-p)^b - b p^a (1-p)^(b-1) cancels where
    a = (a + b) p (3.1x binom's slope -3.5e-16 at (2, 20, 0.1))."""
    one = const(1.0, p)
    value = _powers_value(a, b, p)
    no_a, no_b = a == const(0.0, a), b == const(0.0, b)
    a_in, b_in = snp.where(no_a, one, a), snp.where(no_b, one, b)
    general = snp.power(p, a_in - one) * one_minus_power(p, b_in - one) * less_product(a_in, a_in + b_in, p)
    at_ends = snp.where(no_a, -b * one_minus_power(p, b_in - one), a * snp.power(p, a_in - one))
    return value * snp.log(p), value * snp.log1p(-p), snp.where(no_a | no_b, at_ends, general)


# p^a (1 - p)^b for a, b >= 0 and 0 < p < 1 (a product form's powers), its slopes in closed form
powers = with_partials("powers_of_p", _powers_value, _powers_slopes)


def _binom_pmf(k, n, p, loc=0):
    """exp(logpmf) (slopes 0 where it underflows), but for whole k <= _FEW_TRIALS, whole n < 2^53
    and 0 < p < 1 the product C(n, k) p^k (1 - p)^(n - k) (C a running product of k factors, exact
    for n <= 32; powers within an ulp): its value where its powers are normal numbers
    (``all_normal``; the exp of a log-pmf of -14.5 is 8 ulps off for one ulp of the log,
    binom.pmf(1, 5, 1e-7)); its slopes in n and p too (in p in closed form, ``powers``),
    with those in k from ``k_factor`` and ``linear_k_factor`` of ``_binom_odds`` (exp(logpmf)'s
    d2/dp2 was 1.25e6 ulps off at (1, 5, 1e-7), and -inf for the -40 of (1, 5, 2.2e-308) and the
    -2e8 of (1, 1e4, 2.2e-308)); value and slopes where exp(logpmf) underflowed (``below_mass``)."""
    mass = _binom_mass(k, n, p, loc=loc)
    k, n, p, loc = floats(k, n, p, loc)
    j = k - loc
    few = (
        support(j, 0.0, n)
        & (j <= const(float(_FEW_TRIALS), j))
        & (n == snp.floor(n))
        & (n < const(2.0**53, n))
    )
    few = few & (p > const(0.0, p)) & (p < const(1.0, p))
    j, n, p = inside(few, j, 0.0), inside(few, n, 1.0), inside(few, p, 0.5)
    kept = stop_gradient(j)
    normal = all_normal(snp.power(p, kept), one_minus_power(p, n - kept))
    smooth = few & normal
    under = below_mass(few, mass)
    n_c, p_c = slopes_where(under | smooth, n, p)
    m = n_c - kept
    choose = running_product(kept, lambda c, i: c * (m + i + 1.0) / (i + 1.0), _FEW_TRIALS, snp.ones_like(j))
    product = choose * powers(*snp.broadcast_arrays(kept, m, p_c))
    j_s, n_s, p_s = snp.broadcast_arrays(*slopes_where(smooth, j, n, p))
    in_k = k_factor(lambda i: _binom_k_part(i, n_s), j_s) * linear_k_factor(j_s, _binom_odds(p_s))
    return from_product(mass, product, in_k, few & normal, smooth, under)


def _binom_cdf(k, n, p, loc=0):
    k, n, p, bad = _binom_args(k, n, p, loc)
    kf = snp.clip(snp.floor(k), const(0.0, k), snp.maximum(n - const(1.0, n), const(0.0, n)))
    # P(K <= k) = I_{1-p}(n - k, k + 1) for 0 <= k < n
    inside = betainc(n - kf, kf + const(1.0, k), const(1.0, p) - p)
    return nan_where(bad, _steps(k, 0.0, n, 0.0, inside, 1.0))


def _binom_sf(k, n, p, loc=0):
    k, n, p, bad = _binom_args(k, n, p, loc)
    kf = snp.clip(snp.floor(k), const(0.0, k), snp.maximum(n - const(1.0, n), const(0.0, n)))
    inside = betainc(kf + const(1.0, k), n - kf, p)
    return nan_where(bad, _steps(k, 0.0, n, 1.0, inside, 0.0))


def _binom_ppf(q, n, p, loc=0):
    """the smallest k with cdf(k) >= q, by bisection over k in [-1, n] (inverse.py); -1 + loc at q = 0"""
    q, n, p, loc = floats(q, n, p, loc)
    _, n, p, bad = _binom_args(q, n, p, loc)
    k = discrete_quantile(_binom_cdf, q, (n, p), n, n, loc)
    return nan_where(bad | snp.isnan(p), k)


binom = Distribution(
    "binom",
    "The binomial distribution: successes in n trials of probability p.",
    logpmf=in_float64(_binom_logpmf),
    pmf=in_float64(_binom_pmf),
    cdf=_binom_cdf,
    logcdf=log_tail(_binom_cdf, _binom_sf),
    sf=_binom_sf,
    logsf=log_tail(_binom_sf, _binom_cdf),
    ppf=in_float64(_binom_ppf, flush_subnormals=True),  # as poisson's
)

__all__ = ["bernoulli", "binom", "poisson"]
