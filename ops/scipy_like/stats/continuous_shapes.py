"""Continuous distributions of more shapes: gumbel_r, gumbel_l (extreme values), pareto (a power
tail), truncnorm (a normal cut to [a, b]), gennorm, and vonmises and wrapcauchy (angles) (ops layer).

The functions and their arguments are jax.scipy.stats' (gennorm, vonmises
and wrapcauchy take no loc or scale there, so none here); the values are
scipy.stats': 0 density (-inf log) off the support, nan for invalid
parameters. All are compositions of sg.numpy and sg.scipy.special
(gammaln, log_ndtr, gammainc, i0e, log1mexp), so gradients flow through
them as through any such expression. truncnorm's probabilities come from
differences of log_ndtr taken in the tail where they keep their digits.
"""

from __future__ import annotations

import numpy as np

from ... import numpy_like as snp
from ..log1mexp import log1mexp
from ..special import gammainc, gammaln, i0e, log_ndtr
from ._common import Distribution, clamp, const, exp_of, floats, mirror, nan_where


# -- gumbel_r, gumbel_l: the extreme value distributions of the maximum and of the minimum ---------
def _of_z(fn, log_scale: bool = False):
    """A function of ``z = (x - loc) / scale`` (minus log(scale) for a log density), nan for scale <= 0."""

    def of_x(x, loc=0, scale=1):
        x, loc, scale = floats(x, loc, scale)
        z = (x - loc) / scale
        out = fn(z) - snp.log(scale) if log_scale else fn(z)
        return nan_where(scale <= const(0.0, scale), out)

    of_x.__doc__ = fn.__doc__
    return of_x


def _inverse(fn):
    """a quantile ``loc + scale * fn(q)``, nan for q outside [0, 1] or scale <= 0"""

    def inverse(p, loc=0, scale=1):
        p, loc, scale = floats(p, loc, scale)
        bad = (p < const(0.0, p)) | (p > const(1.0, p)) | (scale <= const(0.0, scale))
        return nan_where(bad, loc + scale * fn(p))

    inverse.__doc__ = fn.__doc__
    return inverse


def _gumbel(sign: float):
    """gumbel_r's functions of z (sign 1) or gumbel_l's, those of -z (sign -1)."""

    def s(z):
        return z if sign > 0 else -z

    # gumbel_r: cdf exp(-u) with u = exp(-z), its complement -expm1(-u): exact in both tails
    def cdf_r(z):
        return snp.exp(-snp.exp(-z))

    def log_cdf_r(z):
        return -snp.exp(-z)

    def sf_r(z):
        return -snp.expm1(-snp.exp(-z))

    def log_sf_r(z):
        return log1mexp(snp.exp(-z))

    logpdf = _of_z(lambda z: -s(z) - snp.exp(-s(z)), log_scale=True)
    # (probability, its log) below and above z; gumbel_l's cdf at z is gumbel_r's sf at -z
    lower = (cdf_r, log_cdf_r) if sign > 0 else (sf_r, log_sf_r)
    upper = (sf_r, log_sf_r) if sign > 0 else (cdf_r, log_cdf_r)
    if sign > 0:
        ppf = _inverse(lambda q: -snp.log(-snp.log(q)))
    else:
        ppf = _inverse(lambda q: snp.log(-snp.log1p(-q)))
    return dict(
        logpdf=logpdf,
        pdf=exp_of(logpdf),
        cdf=_of_z(lambda z: lower[0](s(z))),
        logcdf=_of_z(lambda z: lower[1](s(z))),
        sf=_of_z(lambda z: upper[0](s(z))),
        logsf=_of_z(lambda z: upper[1](s(z))),
        ppf=ppf,
    )


gumbel_r = Distribution(
    "gumbel_r",
    "The right-skewed Gumbel distribution, cdf exp(-exp(-z)) for z = (x - loc) / scale.",
    **_gumbel(1.0),
)
gumbel_l = Distribution(
    "gumbel_l",
    "The left-skewed Gumbel distribution, sf exp(-exp(z)) for z = (x - loc) / scale.",
    **_gumbel(-1.0),
)


# -- pareto: density b / z**(b + 1) on z >= 1 ----------------------------------------------------
def _pareto_args(x, b, loc, scale):
    x, b, loc, scale = floats(x, b, loc, scale)
    z = (x - loc) / scale
    one, zero = const(1.0, z), const(0.0, z)
    bad = (b <= const(0.0, b)) | (scale <= const(0.0, scale))
    log_z = snp.log(clamp(z, one))  # 0 below the support
    # -b log z, the log sf; 0 where log z is (b = inf, the point mass at 1: not inf * 0)
    log_sf = snp.where(snp.isinf(b) & (log_z == zero), zero, -b * log_z)
    return z < one, log_z, log_sf, b, scale, bad


def _pareto_logpdf(x, b, loc=0, scale=1):
    below, log_z, _, b, scale, bad = _pareto_args(x, b, loc, scale)
    out = snp.log(b) - (const(1.0, b) + b) * log_z - snp.log(scale)
    return nan_where(bad, snp.where(below, const(-np.inf, out), out))


def _pareto_fn(fn):
    def of_x(x, b, loc=0, scale=1):
        _, _, log_sf, _, _, bad = _pareto_args(x, b, loc, scale)
        return nan_where(bad, fn(log_sf))

    return of_x


def _pareto_ppf(q, b, loc=0, scale=1):
    """loc + scale (1 - q)**(-1 / b)"""
    q, b, loc, scale = floats(q, b, loc, scale)
    bad = (q < const(0.0, q)) | (q > const(1.0, q)) | (b <= const(0.0, b)) | (scale <= const(0.0, scale))
    return nan_where(bad, loc + scale * snp.exp(-snp.log1p(-q) / b))


pareto = Distribution(
    "pareto",
    "The Pareto distribution with shape b, density b / z**(b + 1) for z = (x - loc) / scale >= 1.",
    logpdf=_pareto_logpdf,
    pdf=exp_of(_pareto_logpdf),
    cdf=_pareto_fn(lambda ls: mirror(snp.expm1(ls))),
    logcdf=_pareto_fn(lambda ls: log1mexp(-ls)),
    sf=_pareto_fn(snp.exp),
    logsf=_pareto_fn(lambda ls: ls),
    ppf=_pareto_ppf,
)


# -- truncnorm: the normal restricted to [a, b] (standardized bounds) ----------------------------
def _log_diff(big, small):
    """log(exp(big) - exp(small)) for big >= small (-inf where they are equal or, rounded, reversed)."""
    return big + snp.log(-snp.expm1(snp.minimum(small - big, const(0.0, big))))


def _log_mass(lo, hi):
    """log(ndtr(hi) - ndtr(lo)) for lo <= hi, from the upper tail when lo > 0 (ndtr near 1 loses digits)."""
    right = lo > const(0.0, lo)
    return snp.where(right, _log_diff(log_ndtr(-lo), log_ndtr(-hi)), _log_diff(log_ndtr(hi), log_ndtr(lo)))


def _truncnorm_args(x, a, b, loc, scale):
    x, a, b, loc, scale = floats(x, a, b, loc, scale)
    z = (x - loc) / scale
    bad = ~(a < b) | (scale <= const(0.0, scale))
    return z, a, b, scale, _log_mass(a, b), bad


def _truncnorm_logpdf(x, a, b, loc=0, scale=1):
    z, a, b, scale, log_z, bad = _truncnorm_args(x, a, b, loc, scale)
    out = const(-0.5, z) * z * z - const(0.5 * np.log(2 * np.pi), z) - log_z - snp.log(scale)
    inside = (z >= a) & (z <= b)
    return nan_where(bad, snp.where(inside, out, const(-np.inf, out)))


def _truncnorm_log_probability(upper: bool):
    def log_probability(x, a, b, loc=0, scale=1):
        z, a, b, _, log_z, bad = _truncnorm_args(x, a, b, loc, scale)
        zc = clamp(z, a, b)
        out = (_log_mass(zc, b) if upper else _log_mass(a, zc)) - log_z
        return nan_where(bad, out)

    log_probability.__doc__ = (
        "the log of the probability above x" if upper else "the log of the probability below x"
    )
    return log_probability


truncnorm = Distribution(
    "truncnorm",
    "The normal distribution truncated to [a, b], bounds in units of scale from loc.",
    logpdf=_truncnorm_logpdf,
    pdf=exp_of(_truncnorm_logpdf),
    cdf=exp_of(_truncnorm_log_probability(False), doc="the probability below x, exp of its log"),
    logcdf=_truncnorm_log_probability(False),
    sf=exp_of(_truncnorm_log_probability(True), doc="the probability above x, exp of its log"),
    logsf=_truncnorm_log_probability(True),
)


# -- gennorm: density beta / (2 Gamma(1 / beta)) exp(-|x|**beta) ----------------------------------
def _gennorm_logpdf(x, beta):
    x, beta = floats(x, beta)
    out = snp.log(beta) - const(np.log(2.0), x) - gammaln(const(1.0, beta) / beta) - snp.abs(x) ** beta
    return nan_where(beta <= const(0.0, beta), out)


def _gennorm_cdf(x, beta):
    x, beta = floats(x, beta)
    half = const(0.5, x)
    out = half + half * snp.sign(x) * gammainc(const(1.0, beta) / beta, snp.abs(x) ** beta)
    return nan_where(beta <= const(0.0, beta), out)


gennorm = Distribution(
    "gennorm",
    "The generalized normal distribution with shape beta (2: normal with variance 1/2, 1: laplace).",
    logpdf=_gennorm_logpdf,
    pdf=exp_of(_gennorm_logpdf),
    cdf=_gennorm_cdf,
)


# -- vonmises and wrapcauchy: distributions of an angle ----------------------------------------------
def _vonmises_logpdf(x, kappa):
    x, kappa = floats(x, kappa)
    # exp(kappa cos x) / (2 pi I0(kappa)), with I0 scaled: i0e(kappa) = exp(-kappa) I0(kappa)
    out = kappa * (snp.cos(x) - const(1.0, x)) - const(np.log(2 * np.pi), x) - snp.log(i0e(kappa))
    return nan_where(kappa < const(0.0, kappa), out)


vonmises = Distribution(
    "vonmises",
    "The von Mises distribution of an angle x (any real, 2 pi periodic) with concentration kappa.",
    logpdf=_vonmises_logpdf,
    pdf=exp_of(_vonmises_logpdf),
)


def _wrapcauchy_logpdf(x, c):
    x, c = floats(x, c)
    one = const(1.0, x)
    out = snp.log1p(-c * c) - const(np.log(2 * np.pi), x) - snp.log(one + c * c - (c + c) * snp.cos(x))
    inside = (x >= const(0.0, x)) & (x <= const(2 * np.pi, x))
    bad = ~((c > const(0.0, c)) & (c < one))
    return nan_where(bad, snp.where(inside, out, const(-np.inf, out)))


wrapcauchy = Distribution(
    "wrapcauchy",
    "The wrapped Cauchy distribution of an angle x in [0, 2 pi] with shape c in (0, 1).",
    logpdf=_wrapcauchy_logpdf,
    pdf=exp_of(_wrapcauchy_logpdf),
)

__all__ = ["gennorm", "gumbel_l", "gumbel_r", "pareto", "truncnorm", "vonmises", "wrapcauchy"]
