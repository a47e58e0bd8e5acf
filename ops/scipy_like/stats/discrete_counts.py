"""Discrete distributions of counts: geom, nbinom, betabinom, multinomial (ops layer).

The functions and their arguments are jax.scipy.stats'; the values are
scipy.stats': 0 mass (-inf log) off the support, including a non-integer k,
nan for invalid parameters (where jax.scipy.stats answers -inf or an
unguarded formula's value instead). All are compositions of sg.numpy and
sg.scipy.special (gammaln, betaln, xlogy, xlog1py), so gradients flow
through them as through any such expression.
"""

from __future__ import annotations

import numpy as np

from ... import numpy_like as snp
from ...numpy_like.core import error
from ..log_gamma_ratio import log_gamma_ratio
from ..partials import with_partials
from ..special import betaln, digamma, gammaln, xlog1py, xlogy
from ._common import Distribution, const, exp_of, floats, nan_where
from .discrete import inside, log_factorial, on_integers, support
from .wide import in_float64


def _log_choose(n, k):
    """log of the binomial coefficient n over k (0 <= k <= n), exactly 0 at k = 0 and k = n: with
    m = min(k, n - k), log (n - m + 1) ... n / m! as two rising factorials, whose digits survive
    where log n! - log k! - log (n - k)! would cancel (~8e4 each at n = 1e4, k = 2)."""
    m = snp.minimum(k, n - k)
    return log_gamma_ratio(n - m + const(1.0, n), m) - log_gamma_ratio(snp.ones_like(m), m)


# -- geom: trials up to the first success, on 1, 2, ... -------------------------------------------
def _geom_logpmf(k, p, loc=0):
    k, p, loc = floats(k, p, loc)
    k = k - loc
    one = const(1.0, k)
    bad = ~((p > const(0.0, p)) & (p <= const(1.0, p)))
    ok = support(k, 1.0, np.inf)
    kc, p = inside(ok, k, 1.0), inside(ok, p, 0.5)
    out = xlog1py(kc - one, -p) + snp.log(p)
    return nan_where(bad, on_integers(k, ok, out))


geom = Distribution(
    "geom",
    "The geometric distribution: the number of trials of probability p up to the first success.",
    logpmf=in_float64(_geom_logpmf),
    pmf=in_float64(exp_of(_geom_logpmf, mass=True)),
)


# -- nbinom: failures before the n-th success ----------------------------------------------------
def _nbinom_logpmf(k, n, p, loc=0):
    k, n, p, loc = floats(k, n, p, loc)
    k = k - loc
    bad = ~((n > const(0.0, n)) & (p > const(0.0, p)) & (p <= const(1.0, p)))
    ok = support(k, 0.0, np.inf)
    kc, n, p = inside(ok, k, 0.0), inside(ok, n, 1.0), inside(ok, p, 0.5)
    log_coef = log_gamma_ratio(n, kc) - log_factorial(kc)
    out = log_coef + xlogy(n, p) + xlog1py(kc, -p)
    return nan_where(bad, on_integers(k, ok, out))


nbinom = Distribution(
    "nbinom",
    "The negative binomial distribution: failures before the n-th success of probability p.",
    logpmf=in_float64(_nbinom_logpmf),
    pmf=in_float64(exp_of(_nbinom_logpmf, mass=True)),
)


# -- betabinom: binom with a beta(a, b) success probability --------------------------------------
_FEW_TRIALS = 8  # up to this many trials betabinom's beta ratio is a product of ratios near 1


def _log_factor(num, den):
    """log(num / den) for 0 < num <= den: log1p(-(den - num) / den) while the factor is near 1
    (b = 1e4 against a = 0.5), log(num / den) once it is not (there 1 - q would cancel)."""
    q = (den - num) / den
    return snp.where(q < const(0.5, q), snp.log1p(-q), snp.log(num / den))


def _few_trials_value(k, n, a, b):
    """log C(n, k) + betaln(k + a, n - k + b) - betaln(a, b) for n <= 8: the beta ratio is
    prod_{j<k} (a + j) / (a + b + j) prod_{j<n-k} (b + j) / (a + b + k + j), every factor in (0, 1],
    so its logs add without cancelling (two log-betas of ~9.2 cancel to 2.5e-4 at b = 1e4)."""
    zero = const(0.0, k)
    out = _log_choose(n, k)
    for j in range(_FEW_TRIALS):
        fj = const(float(j), k)
        first = _log_factor(a + fj, a + b + fj)
        second = _log_factor(b + fj, a + b + k + fj)
        out = out + snp.where(fj < k, first, zero) + snp.where(fj < n - k, second, zero)
    return out


def _few_trials_partials(k, n, a, b):
    """The log-pmf's partials in k, n, a, b as digamma differences, paired so that each pair is
    exactly 0 where its arguments meet (a = 1 or b = 1 against the binomial coefficient's)."""
    one = const(1.0, k)
    psi = digamma
    dk = (psi(a + k) - psi(k + one)) + (psi(n - k + one) - psi(b + n - k))
    dn = (psi(n + one) - psi(n - k + one)) + (psi(b + n - k) - psi(a + b + n))
    da = (psi(a + k) - psi(a)) + (psi(a + b) - psi(a + b + n))
    db = (psi(b + n - k) - psi(b)) + (psi(a + b) - psi(a + b + n))
    return dk, dn, da, db


_few_trials_logpmf = with_partials("betabinom_few_trials", _few_trials_value, _few_trials_partials)


def _betabinom_body(k, n, a, b):
    """The log-pmf on the support: by the product of ratios for n <= 8, else log C(n, k) plus two
    log-betas (which stay ~1e2 where the ratios' logs would be ~1e5 and cancel, n = 1e4)."""
    few = n <= const(float(_FEW_TRIALS), n)
    zero = snp.zeros_like(k + n + a + b)
    kf, nf = snp.where(few, k, const(0.0, k)) + zero, snp.where(few, n, const(0.0, n)) + zero
    by_products = _few_trials_logpmf(kf, nf, a + zero, b + zero)
    by_betas = _log_choose(n, k) + betaln(k + a, n - k + b) - betaln(a, b)
    return snp.where(few, by_products, by_betas)


def _betabinom_logpmf(k, n, a, b, loc=0):
    k, n, a, b, loc = floats(k, n, a, b, loc)
    k = k - loc
    zero = const(0.0, k)
    bad = ~((n >= zero) & (n == snp.floor(n)) & (a > zero) & (b > zero))
    ok = support(k, 0.0, n)
    kc, n, a, b = inside(ok, k, 0.0), inside(ok, n, 0.0), inside(ok, a, 1.0), inside(ok, b, 1.0)
    out = _betabinom_body(kc, n, a, b)
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
