"""Continuous distributions built on the special functions: norm, t, gamma, beta, chi2 (ops layer).

The densities come from gammaln/betaln/xlogy, the CDFs from ndtr/log_ndtr
and the regularized incomplete gamma and beta functions
(sg.scipy.special). As in scipy: 0 density off the support, nan for
``scale <= 0`` or a non-positive shape parameter. Quantiles are given
where an inverse exists among the available functions: norm.ppf/isf
(ndtri); the others would need the inverse incomplete gamma / beta
functions, which sg.scipy.special lacks.
"""

from __future__ import annotations

import numpy as np

from ... import numpy_like as snp
from ..special import betainc, betaln, gammainc, gammaincc, gammaln, log_ndtr, ndtr, ndtri, xlog1py, xlogy
from ._common import Distribution, const, floats, nan_where


def _z(x, loc, scale, *params):
    """``(x - loc) / scale``, the promoted params and scale, and where the call is invalid."""
    x, loc, scale, *params = floats(x, loc, scale, *params)
    bad = scale <= const(0.0, scale)
    for p in params:
        bad = bad | (p <= const(0.0, p))
    return (x - loc) / scale, scale, params, bad


def _log_of(fn):
    def log_fn(*args, **kwargs):
        return snp.log(fn(*args, **kwargs))

    log_fn.__doc__ = "the log of the probability, log(cdf) or log(sf)"
    return log_fn


def _exp_of(fn):
    def exp_fn(*args, **kwargs):
        return snp.exp(fn(*args, **kwargs))

    exp_fn.__doc__ = "the density, exp(logpdf)"
    return exp_fn


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
        return nan_where(bad, loc + const(sign, q) * scale * ndtri(q))

    return quantile


norm = Distribution(
    "norm",
    "The normal distribution with mean loc and standard deviation scale.",
    logpdf=_norm_logpdf,
    pdf=_exp_of(_norm_logpdf),
    cdf=_norm_of_z(ndtr),
    logcdf=_norm_of_z(log_ndtr),
    sf=_norm_of_z(lambda z: ndtr(-z)),
    logsf=_norm_of_z(lambda z: log_ndtr(-z)),
    ppf=_norm_quantile(1.0),
    isf=_norm_quantile(-1.0),
)


# -- Student's t ---------------------------------------------------------------------------------
def _t_logpdf(x, df, loc=0.0, scale=1.0):
    z, scale, (df,), bad = _z(x, loc, scale, df)
    half = const(0.5, z)
    norm_const = (
        gammaln(half * (df + const(1.0, df))) - gammaln(half * df) - half * snp.log(df * const(np.pi, df))
    )
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


t = Distribution(
    "t",
    "Student's t distribution with df degrees of freedom (no ppf: it needs the inverse incomplete beta).",
    logpdf=_t_logpdf,
    pdf=_exp_of(_t_logpdf),
    cdf=_t_cdf,
    logcdf=_log_of(_t_cdf),
    sf=_t_sf,
    logsf=_log_of(_t_sf),
)


# -- gamma and chi2 ------------------------------------------------------------------------------
def _gamma_logpdf(x, a, loc=0.0, scale=1.0):
    z, scale, (a,), bad = _z(x, loc, scale, a)
    inside = z >= const(0.0, z)
    zs = snp.maximum(z, const(0.0, z))
    out = xlogy(a - const(1.0, a), zs) - zs - gammaln(a) - snp.log(scale)
    return nan_where(bad, snp.where(inside, out, const(-np.inf, z)))


def _gamma_probability(fn):
    def probability(x, a, loc=0.0, scale=1.0):
        z, _, (a,), bad = _z(x, loc, scale, a)
        return nan_where(bad, fn(a, snp.maximum(z, const(0.0, z))))

    return probability


gamma = Distribution(
    "gamma",
    "The gamma distribution with shape a (no ppf: it needs the inverse incomplete gamma).",
    logpdf=_gamma_logpdf,
    pdf=_exp_of(_gamma_logpdf),
    cdf=_gamma_probability(gammainc),
    logcdf=_log_of(_gamma_probability(gammainc)),
    sf=_gamma_probability(gammaincc),
    logsf=_log_of(_gamma_probability(gammaincc)),
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


chi2 = Distribution(
    "chi2",
    "The chi-squared distribution with df degrees of freedom: gamma(df / 2, scale=2).",
    logpdf=_chi2_logpdf,
    pdf=_exp_of(_chi2_logpdf),
    cdf=_chi2_probability(gammainc),
    logcdf=_log_of(_chi2_probability(gammainc)),
    sf=_chi2_probability(gammaincc),
    logsf=_log_of(_chi2_probability(gammaincc)),
)


# -- beta ----------------------------------------------------------------------------------------
def _beta_logpdf(x, a, b, loc=0.0, scale=1.0):
    z, scale, (a, b), bad = _z(x, loc, scale, a, b)
    inside = (z >= const(0.0, z)) & (z <= const(1.0, z))
    zc = snp.clip(z, const(0.0, z), const(1.0, z))
    one = const(1.0, z)
    out = xlogy(a - one, zc) + xlog1py(b - one, -zc) - betaln(a, b) - snp.log(scale)
    return nan_where(bad, snp.where(inside, out, const(-np.inf, z)))


def _beta_cdf(x, a, b, loc=0.0, scale=1.0):
    z, _, (a, b), bad = _z(x, loc, scale, a, b)
    return nan_where(bad, betainc(a, b, snp.clip(z, const(0.0, z), const(1.0, z))))


def _beta_sf(x, a, b, loc=0.0, scale=1.0):
    z, _, (a, b), bad = _z(x, loc, scale, a, b)
    return nan_where(bad, betainc(b, a, snp.clip(const(1.0, z) - z, const(0.0, z), const(1.0, z))))


beta = Distribution(
    "beta",
    "The beta distribution with shapes a, b on [loc, loc + scale] (no ppf: it needs the inverse incomplete beta).",
    logpdf=_beta_logpdf,
    pdf=_exp_of(_beta_logpdf),
    cdf=_beta_cdf,
    logcdf=_log_of(_beta_cdf),
    sf=_beta_sf,
    logsf=_log_of(_beta_sf),
)

__all__ = ["beta", "chi2", "gamma", "norm", "t"]
