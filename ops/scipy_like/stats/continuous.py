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
from ..lgamma1p import lgamma1p, log_gamma
from ..log_beta import gamma_ratio_log_scaled
from ..special import betainc, betaln, gammainc, gammaincc, gammaln, log_ndtr, ndtr, ndtri, xlog1py, xlogy
from ._common import Distribution, clamp, const, exp_of, floats, log_tail, mirror, nan_where
from .gamma_density import gamma_density
from .inverse import continuous_quantile, tails
from .wide import in_float64


def _z(x, loc, scale, *params):
    """``(x - loc) / scale``, the promoted params and scale, and where the call is invalid."""
    x, loc, scale, *params = floats(x, loc, scale, *params)
    bad = scale <= const(0.0, scale)
    for p in params:
        bad = bad | (p <= const(0.0, p))
    return (x - loc) / scale, scale, params, bad


# -- norm ----------------------------------------------------------------------------------------
def _norm_z(x, loc, scale):
    """_z, with ``x / scale - loc / scale`` where ``x - loc`` overflows though z is finite
    (x = -3.4e38, loc = scale = 3.4e38 in float32: z = -2, not -inf)."""
    z, scale, params, bad = _z(x, loc, scale)
    x, loc, scale = floats(x, loc, scale)
    split = x / scale - loc / scale
    finite = snp.isfinite(x) & snp.isfinite(loc) & snp.isfinite(scale)
    return snp.where(snp.isinf(x - loc) & finite, split, z), scale, params, bad


def _norm_logpdf(x, loc=0.0, scale=1.0):
    z, scale, _, bad = _norm_z(x, loc, scale)
    return nan_where(bad, const(-0.5, z) * z * z - snp.log(scale) - const(0.5 * np.log(2 * np.pi), z))


def _norm_pdf(x, loc=0.0, scale=1.0):
    """exp(-z**2 / 2 - log(sqrt(2 pi))) / scale: exp(logpdf) would multiply the rounding of
    log(scale) (at scale = 1.2e-38) by 87. For |z| >= 2 the constant multiplies after the exp, which
    then rounds -z**2 / 2 alone, not a sum near -25 (14 ulps in float32 at z = 7); for |z| < 2 it
    stays inside, where the second derivative's (z**2 - 1) pdf cancels on the density's own scale."""
    z, scale, _, bad = _norm_z(x, loc, scale)
    half_square = const(-0.5, z) * z * z
    near = snp.exp(half_square - const(0.5 * np.log(2 * np.pi), z))
    far = snp.exp(half_square) * const(1 / np.sqrt(2 * np.pi), z)
    return nan_where(bad, snp.where(snp.abs(z) < const(2.0, z), near, far) / scale)


def _norm_of_z(fn):
    def of_x(x, loc=0.0, scale=1.0):
        z, _, _, bad = _norm_z(x, loc, scale)
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
    pdf=_norm_pdf,
    cdf=_norm_of_z(ndtr),
    logcdf=_norm_of_z(log_ndtr),
    sf=_norm_of_z(lambda z: ndtr(-z)),
    logsf=_norm_of_z(lambda z: log_ndtr(-z)),
    ppf=_norm_quantile(1.0),
    isf=_norm_quantile(-1.0),
)


# -- Student's t ---------------------------------------------------------------------------------
def _t_log_norm_const(df):
    """log Gamma((df + 1) / 2) - log Gamma(df / 2) - log(df pi) / 2. From df = 16 on by Stirling's
    differences (log_beta.py), with the log(df) / 2 of both parts cancelled on paper: the two
    gammaln (1.7e156 at df = 1e154) would cancel to nothing, the two logs (44 at df = 3.4e38,
    where df pi overflows float32) to a few ulps of 44."""
    half = const(0.5, df)
    large = df >= const(16.0, df)
    big = snp.where(large, half * df, const(8.0, df))
    small = snp.where(large, const(1.0, df), df)
    by_gammaln = gammaln(half * (small + const(1.0, df))) - gammaln(half * small)
    by_gammaln = by_gammaln - half * snp.log(small * const(np.pi, df))
    # log Gamma(big + 1/2) - log Gamma(big) = log(big) / 2 - scaled, and log(big / df) = -log 2
    by_stirling = -gamma_ratio_log_scaled(snp.full_like(big, 0.5), big) - const(0.5 * np.log(2 * np.pi), df)
    return snp.where(large, by_stirling, by_gammaln)


def _t_log_kernel(z, df, offset, scale):
    """(df + 1) / 2 log1p(u), u = z^2 / df, z = offset / scale: the log density's fall in z. Past
    u = 1 / eps (finite offset) as (df + 1) / 2 (2 log|z| - log df + log1p(df / z^2)), which neither
    overflows (u = inf at z = 8.5e37, scale = tiny; log|z| = log|offset| - log(scale) where z itself
    does) nor flushes the slope 1 / (1 + u) (df = tiny); below u = eps (u = 0 at df = 3.4e38 or inf)
    by the series z^2 (1 + 1/df)(1 - u/2) / 2, whose derivatives do not cancel."""
    half, one, inf = const(0.5, z), const(1.0, z), const(np.inf, z)
    eps = const(np.finfo(z.dtype.np).eps, z)
    t = z * z
    u = snp.where(df == const(np.inf, df), const(0.0, z), t / df)
    far = (u > one / eps) & (snp.abs(offset) < inf)
    zf = snp.where(far, snp.abs(z), one)
    log_zf = _log_magnitude(zf, offset, scale)
    by_far = half * (df + one) * (const(2.0, z) * log_zf - snp.log(df) + snp.log1p(df / (zf * zf)))
    un = snp.where(far, const(0.0, z), u)
    by_series = half * t * (one + one / df) * (one - half * un)
    by_log = half * (df + one) * snp.log1p(un)
    return snp.where(far, by_far, snp.where(un < eps, by_series, by_log))


def _log_magnitude(z, offset, scale):
    """log|z| for z = offset / scale, as log|offset| - log(scale) where z overflowed to inf."""
    one, inf = const(1.0, z), const(np.inf, z)
    overflowed = snp.abs(z) == inf
    return snp.where(
        overflowed, snp.log(snp.where(overflowed, snp.abs(offset), one)) - snp.log(scale), snp.log(snp.abs(z))
    )


def _t_logpdf(x, df, loc=0.0, scale=1.0):
    z, scale, (df,), bad = _z(x, loc, scale, df)
    x, loc, _ = floats(x, loc, z)
    return nan_where(bad, _t_log_norm_const(df) - snp.log(scale) - _t_log_kernel(z, df, x - loc, scale))


def _t_pdf(x, df, loc=0.0, scale=1.0):
    """The density: exp(logpdf) from df = 1 on, ``_t_small_df_density`` below."""
    x, df, loc, scale = floats(x, df, loc, scale)
    one = const(1.0, df)
    small = (df > const(0.0, df)) & (df < one)
    plain = snp.exp(_t_logpdf(x, snp.where(small, one, df), loc, scale))
    return snp.where(small, _t_small_df_density(x, snp.where(small, df, const(0.5, df)), loc, scale), plain)


def _t_small_df_density(x, df, loc, scale):
    """t's density for 0 < df < 1, where exp(logpdf)'s derivatives in df keep no digit: the log
    density's df-slope is about 1/df and its second about -1/df^2, and the density's second
    derivative f (l'' + l'^2) is what is left of their sum (-7710 for -23.47 at df = 1e-20, x = 1).
    With log Gamma(df / 2) = lgamma1p(df / 2) - log(df / 2) on paper and A = log Gamma((df + 1) / 2) -
    lgamma1p(df / 2) - log(2 sqrt(pi)), smooth at df = 0, the density is exp(A + log(df) / 2 - (df + 1)
    / 2 log1p(z^2 / df)) for z^2 <= df and df exp(A + df / 2 log(df) - (df + 1) (log|z| + log1p(df /
    z^2) / 2)) past it, where it falls as df / (2 |z|): the factor df outside the exp carries the
    1/df parts exactly."""
    z, scale, (df,), bad = _z(x, loc, scale, df)
    x, loc = floats(x, loc)
    half, one, zero = const(0.5, df), const(1.0, df), const(0.0, z)
    log_df = snp.log(df)
    lead = log_gamma(half * (df + one)) - lgamma1p(half * df) - const(np.log(2 * np.sqrt(np.pi)), df)
    square = z * z
    far = square > df
    near = snp.exp(lead + half * log_df - half * (df + one) * snp.log1p(snp.where(far, zero, square) / df))
    log_z = _log_magnitude(snp.where(far, z, one), x - loc, scale)
    fall = log_z + half * snp.log1p(df / snp.where(far, square, one))
    by_far = df * snp.exp(lead + half * df * log_df - (df + one) * fall)
    return nan_where(bad, snp.where(far, by_far, near) / scale)


def _t_standard_cdf(z, df):
    """The standard t's cdf from P(T < -|z|), with the one betainc of the two forms that keeps its digits:
    the center's 1 - P(|T| < |z|) = 1 - I_{z^2 / (df + z^2)}(1 / 2, df / 2) near 0, whose argument is
    exact where df / (df + z^2) rounds near 1, and the tail's P(|T| > |z|) = I_{df / (df + z^2)}(df / 2,
    1 / 2) past z^2 = min(df, 6). The center's difference loses eps / P, the tail's rounded argument
    about df eps / 10 to the power df / 2 (against scipy at df = 10 .. 1e5: the center is better up
    to z^2 = 6 .. 12). With z^2 < df alone the center form was taken far out in the tail at a large
    df: t.ppf(1 - 1e-12, 650) was 6e-7 off."""
    half = const(0.5, z)
    z2 = z * z
    center = (z2 < df) & (z2 < const(6.0, z))
    i = betainc(
        snp.where(center, half, half * df),
        snp.where(center, half * df, half),
        snp.where(center, z2, df) / (df + z2),
    )
    below = snp.where(center, half - half * i, half * i)
    return snp.where(z < const(0.0, z), below, const(1.0, z) - below)


def _t_cdf(x, df, loc=0.0, scale=1.0):
    z, _, (df,), bad = _z(x, loc, scale, df)
    return nan_where(bad, _t_standard_cdf(z, df))


def _t_sf(x, df, loc=0.0, scale=1.0):
    x, df, loc = floats(x, df, loc)
    return _t_cdf(-x, df, -loc, scale)


def _t_tails(z, upper, df):
    """The standard t's cdf (sf where ``upper``: the cdf at -z) for the quantile search."""
    return _t_standard_cdf(snp.where(upper, -z, z), df)


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
    # in float64 for float32 arguments: exp of a float32 log density near -4.5 (x = 3, df = 10)
    # was 15 ulps of the density
    pdf=in_float64(_t_pdf),
    cdf=_t_cdf,
    logcdf=log_tail(_t_cdf, _t_sf),
    sf=_t_sf,
    logsf=log_tail(_t_sf, _t_cdf),
    # in float64 for float32 arguments: past |z| = 1.8e19 the search's z^2 overflows float32, so a
    # small df's far quantile (t.ppf(3e-9, 0.37) = -2.4e23) came out 1000 times too small
    ppf=in_float64(_t_ppf, flush_subnormals=True),
    isf=in_float64(_t_isf, flush_subnormals=True),
)


# -- gamma and chi2 ------------------------------------------------------------------------------
def _gamma_z(x, shape, loc, scale):
    """_z's results for gamma and chi2, where x lies on the support, and nan z marked bad.

    The support test is on x - loc, not z: a tiny (x - loc) / scale below the support flushes to -0.
    """
    z, scale, (shape,), bad = _z(x, loc, scale, shape)
    x, loc = floats(x, loc)
    return z, scale, shape, bad | (z != z), x - loc >= const(0.0, loc)


def _gamma_log_density(z, a, inside, log_scale, bad, halved: bool = False):
    """The gamma log density at z (shape a), less log_scale: -inf off the support, nan where bad;
    ``halved``: at z / 2, less log 2 (chi2), with log(z / 2) as log z - log 2 (z / 2 can flush).
    Off the support the formula sees z = 1, so its slopes stay finite and the where's 0 holds."""
    zs = snp.where(inside, z, const(1.0, z))
    a1 = a - const(1.0, a)
    if halved:
        log2 = const(np.log(2.0), z)
        out = xlogy(a1, zs) - a1 * log2 - zs * const(0.5, z) - gammaln(a) - log_scale - log2
    else:
        out = xlogy(a1, zs) - zs - gammaln(a) - log_scale
    return nan_where(bad, snp.where(inside, out, const(-np.inf, z)))


def _gamma_logpdf(x, a, loc=0.0, scale=1.0):
    z, scale, a, bad, inside = _gamma_z(x, a, loc, scale)
    return _gamma_log_density(z, a, inside, snp.log(scale), bad)


def _underflows(log_pdf):
    """Where the density is 0 for underflow (its log below the smallest subnormal's): those points
    are treated as off the support (density 0, slopes 0). exp(logpdf)'s chain rule there is
    0 * inf: at x = 2.2e-308 with shape 10 the slope (a - 1) / x of the log overflows. (For
    2 < a < 3 at x = 2.2e-308 the true slope (a - 1) x^(a-2) / Gamma(a) is still a normal
    number; jax's chain rule rounds it to 0 as well.)"""
    return log_pdf < const(float(np.log(np.finfo(np.float64).smallest_subnormal)) - 1.0, log_pdf)


def _gamma_pdf(x, a, loc=0.0, scale=1.0):
    """the density, as a product where exp(logpdf) would round a large log (gamma_density.py)"""
    z, scale, a, bad, inside = _gamma_z(x, a, loc, scale)
    inside = inside & ~_underflows(_gamma_log_density(z, a, inside, snp.log(scale), bad))
    log_pdf = _gamma_log_density(z, a, inside, snp.log(scale), bad)
    return gamma_density(z, a, inside & ~bad, log_pdf, scale)


def _gamma_tail(fn, z, a, bad, inside):
    """P(a, z) or Q(a, z) (fn: gammainc or gammaincc) of the standard gamma at z: the constant at
    z = 0 below the support (x - loc < 0, ``inside`` false; its slopes 0, also where a tiny z
    flushes to -0, as chi2's z / 2 of x = -1.2e-38 in float32), and the support's end (1 or 0) at
    z = inf for every shape (P(inf, inf) is nan)."""
    end = const(1.0 if fn is gammainc else 0.0, z)
    at_end = z == const(np.inf, z)
    zero = const(0.0, z)
    # the formula sees z = 1 at the end, so the slopes it passes through the where stay 0, not 0 * nan
    z = snp.where(inside, snp.where(at_end, const(1.0, z), z), zero)
    inner = fn(a, clamp(z, zero))
    return nan_where(bad, snp.where(at_end, end, inner))


def _gamma_probability(fn):
    def probability(x, a, loc=0.0, scale=1.0):
        z, _, a, bad, inside = _gamma_z(x, a, loc, scale)
        return _gamma_tail(fn, z, a, bad, inside)

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
    pdf=in_float64(_gamma_pdf, flush_subnormals=True),
    cdf=_gamma_probability(gammainc),
    logcdf=log_tail(_gamma_probability(gammainc), _gamma_probability(gammaincc)),
    sf=_gamma_probability(gammaincc),
    logsf=log_tail(_gamma_probability(gammaincc), _gamma_probability(gammainc)),
    ppf=_gamma_quantile(False),
    isf=_gamma_quantile(True),
)


# chi2 is gamma(df / 2, scale=2), halved after the checks: df / 2 of the smallest normal df is
# subnormal (0 to the incomplete gamma, not an invalid shape), and 2 scale overflows at the largest scale
def _chi2_logpdf(x, df, loc=0.0, scale=1.0):
    z, scale, df, bad, inside = _gamma_z(x, df, loc, scale)
    return _gamma_log_density(z, df * const(0.5, z), inside, snp.log(scale), bad, halved=True)


def _chi2_pdf(x, df, loc=0.0, scale=1.0):
    """the density, as a product where exp(logpdf) would round a large log (gamma_density.py)"""
    z, scale, df, bad, inside = _gamma_z(x, df, loc, scale)
    a = df * const(0.5, z)
    inside = inside & ~_underflows(_gamma_log_density(z, a, inside, snp.log(scale), bad, halved=True))
    log_pdf = _gamma_log_density(z, a, inside, snp.log(scale), bad, halved=True)
    return gamma_density(z, a, inside & ~bad, log_pdf, scale, halved=True)


def _chi2_probability(fn):
    def probability(x, df, loc=0.0, scale=1.0):
        z, _, df, bad, inside = _gamma_z(x, df, loc, scale)
        half = const(0.5, z)
        return _gamma_tail(fn, z * half, df * half, bad, inside)

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
    pdf=in_float64(_chi2_pdf, flush_subnormals=True),
    cdf=_chi2_probability(gammainc),
    logcdf=log_tail(_chi2_probability(gammainc), _chi2_probability(gammaincc)),
    sf=_chi2_probability(gammaincc),
    logsf=log_tail(_chi2_probability(gammaincc), _chi2_probability(gammainc)),
    ppf=_chi2_quantile(False),
    isf=_chi2_quantile(True),
)


# -- beta ----------------------------------------------------------------------------------------
def _beta_logpdf(x, a, b, loc=0.0, scale=1.0):
    z, scale, (a, b), bad = _z(x, loc, scale, a, b)
    # the support [loc, loc + scale] tested on x - loc: z itself flushes to -0 for x just below loc
    # when scale is huge (-1 / 3.4e38), which would put such an x on the support
    x, loc, _ = floats(x, loc, z)
    inside = (x - loc >= const(0.0, z)) & (x - loc <= scale)
    # off the support a stand-in 1/2: the ends' infinite log slopes times a zero slope of the clamp
    # would make the second derivatives nan there, where the density is a constant 0
    zc = snp.where(inside, clamp(z, const(0.0, z), const(1.0, z)), const(0.5, z))
    one = const(1.0, z)
    out = xlogy(a - one, zc) + xlog1py(b - one, -zc) - betaln(a, b) - snp.log(scale)
    return nan_where(bad | snp.isnan(z), snp.where(inside, out, const(-np.inf, z)))


def _beta_pdf(x, a, b, loc=0.0, scale=1.0):
    """the density, exp(logpdf); in float64 for float32 arguments (wide.in_float64): its
    slope pdf * (a - 1) / x is 0 * inf in float32 at x = 1.2e-38 (9 / x overflows) where it is 0"""
    return snp.exp(_beta_logpdf(x, a, b, loc, scale))


def _beta_cdf(x, a, b, loc=0.0, scale=1.0):
    z, _, (a, b), bad = _z(x, loc, scale, a, b)
    return nan_where(bad, betainc(a, b, clamp(z, const(0.0, z), const(1.0, z))))


def _beta_sf(x, a, b, loc=0.0, scale=1.0):
    """I_{1-z}(b, a), or 1 - I_z(a, b) where z < 1/2 and I_z(a, b) < 0.9. Below 1/2, 1 - z drops the
    last digits of z, and betainc, which takes z back as 1 - (1 - z), loses a eps / z of I
    (beta.sf(3.8e-12, 0.057, 334) was 5e-8 off); 1 - I_z loses eps / sf instead, so it is kept
    while the sf is above 0.1. Where 1 - z rounds to 1 (z below eps/4) I_{1-z} would give 1 whatever
    z (1e-36 at z = a = 1.2e-38, b = 0.1; the complement gives 0, an ulp from it)."""
    z, _, (a, b), bad = _z(x, loc, scale, a, b)
    one, half = const(1.0, z), const(0.5, z)
    upper = betainc(b, a, clamp(one - z, const(0.0, z), one))
    low_z = (z < half) & (z > const(0.0, z))
    lower = betainc(a, b, snp.where(low_z, z, half))
    collapsed = (one - z == one) & (z > const(0.0, z))
    by_lower = collapsed | (low_z & (lower < const(0.9, z)))
    return nan_where(bad, snp.where(by_lower, one - lower, upper))


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
    pdf=in_float64(_beta_pdf, flush_subnormals=True),
    cdf=_beta_cdf,
    logcdf=log_tail(_beta_cdf, _beta_sf),
    sf=_beta_sf,
    logsf=log_tail(_beta_sf, _beta_cdf),
    # in float64 for float32 arguments: at a small shape the cdf x^a / (a B) is so flat that float32
    # cdf values pinned x only to 6e-3 (beta.ppf(0.703, 0.0626, 449.5): 3.0189e-6 for 3.0376e-6)
    ppf=in_float64(_beta_ppf, flush_subnormals=True),
    isf=in_float64(_beta_isf, flush_subnormals=True),
)

__all__ = ["beta", "chi2", "gamma", "norm", "t"]
