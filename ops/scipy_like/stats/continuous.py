"""Continuous distributions built on the special functions: norm, t, gamma, beta, chi2 (ops layer).

The densities come from gammaln/betaln/xlogy, the CDFs from ndtr/log_ndtr
and the regularized incomplete gamma and beta functions
(sg.scipy.special). As in scipy: 0 density off the support, nan for
``scale <= 0`` or a non-positive shape parameter. Quantiles are given
in closed form for norm (ndtri); t, gamma, chi2 and beta invert their own
cdf/sf numerically (inverse.py), as sg.scipy.special lacks the inverse
incomplete gamma and beta functions.
"""

from __future__ import annotations

import numpy as np

from ... import numpy_like as snp
from ..log_beta import gamma_ratio_log
from ..special import betainc, betaln, gammainc, gammaincc, gammaln, log_ndtr, ndtr, ndtri, xlog1py, xlogy
from ._common import Distribution, clamp, const, exp_of, floats, log_of, mirror, nan_where
from .inverse import continuous_quantile, tails


def _z(x, loc, scale, *params):
    """``(x - loc) / scale``, the promoted params and scale, and where the call is invalid."""
    x, loc, scale, *params = floats(x, loc, scale, *params)
    bad = scale <= const(0.0, scale)
    for p in params:
        bad = bad | (p <= const(0.0, p))
    return (x - loc) / scale, scale, params, bad


# -- norm ----------------------------------------------------------------------------------------
def _norm_logpdf(x, loc=0.0, scale=1.0):
    z, scale, _, bad = _z(x, loc, scale)
    return nan_where(bad, const(-0.5, z) * z * z - snp.log(scale) - const(0.5 * np.log(2 * np.pi), z))


def _norm_of_z(fn):
    def of_x(x, loc=0.0, scale=1.0):
        z, _, _, bad = _z(x, loc, scale)
        return nan_where(bad, fn(z))

    return of_x


def _norm_quantile(sign: float):
    def quantile(q, loc=0.0, scale=1.0):
        q, loc, scale = floats(q, loc, scale)
        bad = (q < const(0.0, q)) | (q > const(1.0, q)) | (scale <= const(0.0, scale))
        z = ndtri(q) if sign > 0 else mirror(ndtri(q))
        return nan_where(bad, loc + scale * z)

    return quantile


norm = Distribution(
    "norm",
    "The normal distribution with mean loc and standard deviation scale.",
    logpdf=_norm_logpdf,
    pdf=exp_of(_norm_logpdf),
    cdf=_norm_of_z(ndtr),
    logcdf=_norm_of_z(log_ndtr),
    sf=_norm_of_z(lambda z: ndtr(-z)),
    logsf=_norm_of_z(lambda z: log_ndtr(-z)),
    ppf=_norm_quantile(1.0),
    isf=_norm_quantile(-1.0),
)


# -- Student's t ---------------------------------------------------------------------------------
def _t_log_gamma_ratio(df):
    """log Gamma((df + 1) / 2) - log Gamma(df / 2): by Stirling's differences from df = 16 on, where
    the two gammaln (1.7e156 at df = 1e154) would cancel to nothing (log_beta.py)."""
    half = const(0.5, df)
    large = df >= const(16.0, df)
    big = snp.where(large, half * df, const(8.0, df))
    small = snp.where(large, const(1.0, df), df)
    by_gammaln = gammaln(half * (small + const(1.0, df))) - gammaln(half * small)
    return snp.where(large, -gamma_ratio_log(snp.full_like(big, 0.5), big), by_gammaln)


def _t_logpdf(x, df, loc=0.0, scale=1.0):
    z, scale, (df,), bad = _z(x, loc, scale, df)
    half = const(0.5, z)
    norm_const = _t_log_gamma_ratio(df) - half * snp.log(df * const(np.pi, df))
    out = norm_const - snp.log(scale) - half * (df + const(1.0, df)) * snp.log1p(z * z / df)
    return nan_where(bad, out)


def _t_cdf(x, df, loc=0.0, scale=1.0):
    z, _, (df,), bad = _z(x, loc, scale, df)
    # P(|T| > |z|) = I_{df / (df + z^2)}(df / 2, 1 / 2)
    tail = const(0.5, z) * betainc(const(0.5, df) * df, const(0.5, z), df / (df + z * z))
    return nan_where(bad, snp.where(z < const(0.0, z), tail, const(1.0, z) - tail))


def _t_sf(x, df, loc=0.0, scale=1.0):
    x, df, loc = floats(x, df, loc)
    return _t_cdf(-x, df, -loc, scale)


def _t_tails(z, upper, df):
    """The standard t's cdf (sf where ``upper``) for the quantile search, with one betainc, exact
    near 0 as well: P(|T| < |z|) = I_{z^2 / (df + z^2)}(1/2, df / 2) for z^2 < df (the tail's
    argument df / (df + z^2) rounds to 1 there), P(|T| > |z|) = I_{df / (df + z^2)}(df / 2, 1 / 2) past it."""
    z = snp.where(upper, -z, z)
    half = const(0.5, z)
    z2 = z * z
    center = z2 < df
    i = betainc(
        snp.where(center, half, half * df),
        snp.where(center, half * df, half),
        snp.where(center, z2, df) / (df + z2),
    )
    below = snp.where(center, half - half * i, half * i)  # P(T < -|z|)
    return snp.where(z < const(0.0, z), below, const(1.0, z) - below)


def _t_ppf(q, df, loc=0.0, scale=1.0):
    """the quantile, by inverting the cdf numerically (inverse.py)"""
    return continuous_quantile(_t_tails, exp_of(_t_logpdf), q, (df,), loc, scale, "real")


def _t_isf(q, df, loc=0.0, scale=1.0):
    """the upper quantile ppf(1 - q), by inverting the sf numerically (inverse.py)"""
    return continuous_quantile(_t_tails, exp_of(_t_logpdf), q, (df,), loc, scale, "real", upper=True)


t = Distribution(
    "t",
    "Student's t distribution with df degrees of freedom.",
    logpdf=_t_logpdf,
    pdf=exp_of(_t_logpdf),
    cdf=_t_cdf,
    logcdf=log_of(_t_cdf),
    sf=_t_sf,
    logsf=log_of(_t_sf),
    ppf=_t_ppf,
    isf=_t_isf,
)


# -- gamma and chi2 ------------------------------------------------------------------------------
def _gamma_logpdf(x, a, loc=0.0, scale=1.0):
    z, scale, (a,), bad = _z(x, loc, scale, a)
    inside = z >= const(0.0, z)
    zs = clamp(z, const(0.0, z))
    out = xlogy(a - const(1.0, a), zs) - zs - gammaln(a) - snp.log(scale)
    return nan_where(bad, snp.where(inside, out, const(-np.inf, z)))


def _gamma_probability(fn):
    def probability(x, a, loc=0.0, scale=1.0):
        z, _, (a,), bad = _z(x, loc, scale, a)
        return nan_where(bad, fn(a, clamp(z, const(0.0, z))))

    return probability


def _gamma_quantile(upper: bool):
    def quantile(q, a, loc=0.0, scale=1.0):
        prob = tails(_gamma_probability(gammainc), _gamma_probability(gammaincc))
        return continuous_quantile(prob, exp_of(_gamma_logpdf), q, (a,), loc, scale, "positive", upper)

    quantile.__doc__ = (
        "the upper quantile ppf(1 - q), by inverting the sf numerically (inverse.py)"
        if upper
        else "the quantile, by inverting the cdf numerically (inverse.py)"
    )
    return quantile


gamma = Distribution(
    "gamma",
    "The gamma distribution with shape a.",
    logpdf=_gamma_logpdf,
    pdf=exp_of(_gamma_logpdf),
    cdf=_gamma_probability(gammainc),
    logcdf=log_of(_gamma_probability(gammainc)),
    sf=_gamma_probability(gammaincc),
    logsf=log_of(_gamma_probability(gammaincc)),
    ppf=_gamma_quantile(False),
    isf=_gamma_quantile(True),
)


def _chi2_logpdf(x, df, loc=0.0, scale=1.0):
    x, df, loc, scale = floats(x, df, loc, scale)
    half = const(0.5, df)
    return _gamma_logpdf(x, half * df, loc, scale + scale)


def _chi2_probability(fn):
    def probability(x, df, loc=0.0, scale=1.0):
        x, df, loc, scale = floats(x, df, loc, scale)
        return _gamma_probability(fn)(x, const(0.5, df) * df, loc, scale + scale)

    return probability


def _chi2_quantile(upper: bool):
    def quantile(q, df, loc=0.0, scale=1.0):
        prob = tails(_chi2_probability(gammainc), _chi2_probability(gammaincc))
        return continuous_quantile(prob, exp_of(_chi2_logpdf), q, (df,), loc, scale, "positive", upper)

    quantile.__doc__ = (
        "the upper quantile ppf(1 - q), by inverting the sf numerically (inverse.py)"
        if upper
        else "the quantile, by inverting the cdf numerically (inverse.py)"
    )
    return quantile


chi2 = Distribution(
    "chi2",
    "The chi-squared distribution with df degrees of freedom: gamma(df / 2, scale=2).",
    logpdf=_chi2_logpdf,
    pdf=exp_of(_chi2_logpdf),
    cdf=_chi2_probability(gammainc),
    logcdf=log_of(_chi2_probability(gammainc)),
    sf=_chi2_probability(gammaincc),
    logsf=log_of(_chi2_probability(gammaincc)),
    ppf=_chi2_quantile(False),
    isf=_chi2_quantile(True),
)


# -- beta ----------------------------------------------------------------------------------------
def _beta_logpdf(x, a, b, loc=0.0, scale=1.0):
    z, scale, (a, b), bad = _z(x, loc, scale, a, b)
    inside = (z >= const(0.0, z)) & (z <= const(1.0, z))
    zc = clamp(z, const(0.0, z), const(1.0, z))
    one = const(1.0, z)
    out = xlogy(a - one, zc) + xlog1py(b - one, -zc) - betaln(a, b) - snp.log(scale)
    return nan_where(bad, snp.where(inside, out, const(-np.inf, z)))


def _beta_cdf(x, a, b, loc=0.0, scale=1.0):
    z, _, (a, b), bad = _z(x, loc, scale, a, b)
    return nan_where(bad, betainc(a, b, clamp(z, const(0.0, z), const(1.0, z))))


def _beta_sf(x, a, b, loc=0.0, scale=1.0):
    z, _, (a, b), bad = _z(x, loc, scale, a, b)
    return nan_where(bad, betainc(b, a, clamp(const(1.0, z) - z, const(0.0, z), const(1.0, z))))


def _beta_tails(z, upper, a, b):
    """The standard beta's cdf (sf where ``upper``: I_{1-z}(b, a)) with one betainc, for the quantile search."""
    z = clamp(z, const(0.0, z), const(1.0, z))
    return betainc(snp.where(upper, b, a), snp.where(upper, a, b), snp.where(upper, const(1.0, z) - z, z))


def _beta_ppf(q, a, b, loc=0.0, scale=1.0):
    """the quantile, by inverting the cdf numerically (inverse.py)"""
    return continuous_quantile(_beta_tails, exp_of(_beta_logpdf), q, (a, b), loc, scale, "unit")


def _beta_isf(q, a, b, loc=0.0, scale=1.0):
    """the upper quantile ppf(1 - q), by inverting the sf numerically (inverse.py)"""
    return continuous_quantile(_beta_tails, exp_of(_beta_logpdf), q, (a, b), loc, scale, "unit", upper=True)


beta = Distribution(
    "beta",
    "The beta distribution with shapes a, b on [loc, loc + scale].",
    logpdf=_beta_logpdf,
    pdf=exp_of(_beta_logpdf),
    cdf=_beta_cdf,
    logcdf=log_of(_beta_cdf),
    sf=_beta_sf,
    logsf=log_of(_beta_sf),
    ppf=_beta_ppf,
    isf=_beta_isf,
)

__all__ = ["beta", "chi2", "gamma", "norm", "t"]
