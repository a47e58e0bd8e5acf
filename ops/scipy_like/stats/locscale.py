"""Location-scale distributions with closed forms in exp/log/trig: uniform, expon, laplace, logistic, cauchy.

Each function takes scipy's arguments (``x``/``q``, ``loc=0``, ``scale=1``)
and answers as scipy.stats does: 0 density (-inf log density) off the
support, nan for ``scale <= 0`` or a probability outside [0, 1]. Tails are
computed in the form that keeps their digits (log1p/expm1, atan2).
"""

from __future__ import annotations

import numpy as np

from ... import numpy_like as snp
from ..log1mexp import log1mexp
from ..special import expit
from ._common import Distribution, const, floats, mirror, nan_where, standardize
from .wide import in_float64


def _softplus(x):
    """log(1 + e**x) as logaddexp(x, 0): no overflow, slope 1/2 at 0 (logaddexp's tie rule)."""
    return snp.logaddexp(x, const(0.0, x))


def _bad_q(q, scale):
    return (q < const(0.0, q)) | (q > const(1.0, q)) | (scale <= const(0.0, scale))


def _inverse(fn):
    """``ppf``/``isf`` from the standard one: ``loc + scale * fn(q)``, nan for invalid q or scale."""

    def inverse(q, loc=0.0, scale=1.0):
        q, loc, scale = floats(q, loc, scale)
        return nan_where(_bad_q(q, scale), loc + scale * fn(q))

    inverse.__doc__ = fn.__doc__
    return inverse


def _of_z(fn, log_scale: bool = False, scaled: bool = False):
    """A function of ``z = (x - loc) / scale`` (minus log(scale) for a log density, over scale for a
    density: ``scaled``, not exp of the log density, whose rounding exp spreads: 5e-6 at scale 1e-38
    in float32), nan for scale <= 0."""

    def of_x(x, loc=0.0, scale=1.0):
        z, scale = standardize(x, loc, scale)
        out = fn(z) - snp.log(scale) if log_scale else fn(z)
        out = out / scale if scaled else out
        return nan_where(scale <= const(0.0, scale), out)

    of_x.__doc__ = fn.__doc__
    return of_x


def _density(logpdf):
    def pdf(x, loc=0.0, scale=1.0):
        return snp.exp(logpdf(x, loc, scale))

    return pdf


# -- uniform on [loc, loc + scale] ---------------------------------------------------------------
def _uniform_logpdf_x(x, loc=0.0, scale=1.0):
    """-log(scale) on [loc, loc + scale], -inf off it. The support is tested on x - loc, not on
    z = (x - loc) / scale: a z that underflows (x just below loc, a huge scale) would land on 0,
    inside."""
    x, loc, scale = floats(x, loc, scale)
    offset = x - loc
    inside = (offset >= const(0.0, x)) & (offset <= scale)
    out = snp.where(inside, -snp.log(scale), const(-np.inf, x))
    return nan_where((scale <= const(0.0, scale)) | snp.isnan(offset), out)


def _uniform_method(fn):
    """``fn`` of the cdf: (x - loc) / scale held in [0, 1], the ends decided on x - loc (at x - loc
    = -inf and scale = inf, z is inf / inf = nan where the cdf is 0), -0 made +0 as scipy's."""

    def of_x(x, loc=0.0, scale=1.0):
        x, loc, scale = floats(x, loc, scale)
        offset, zero, one = x - loc, const(0.0, x), const(1.0, x)
        below, above = offset < zero, offset > scale
        z = snp.where(below | above, zero, offset) / scale
        cdf = mirror(mirror(snp.where(below, zero, snp.where(above, one, z))))
        return nan_where((scale <= zero) | snp.isnan(offset), fn(cdf))

    of_x.__doc__ = fn.__doc__
    return of_x


uniform = Distribution(
    "uniform",
    "The uniform distribution on [loc, loc + scale].",
    logpdf=_uniform_logpdf_x,
    pdf=_density(_uniform_logpdf_x),
    cdf=_uniform_method(lambda p: p),
    logcdf=_uniform_method(snp.log),
    sf=_uniform_method(lambda p: mirror(mirror(const(1.0, p) - p))),
    logsf=_uniform_method(lambda p: snp.log(const(1.0, p) - p)),
    ppf=_inverse(lambda q: q),
    isf=_inverse(lambda q: const(1.0, q) - q),
)


# -- exponential ---------------------------------------------------------------------------------
def _expon_method(fn, off_value: float, log_scale: bool = False):
    """``fn(z, offset)`` on the support, ``off_value`` below it. The support is tested on
    x - loc, not on z = (x - loc) / scale (as uniform's): a z that underflows (x = -1.2e-38 at
    scale 2, x = -1 at scale = max) would land on 0, inside; and x - loc = -inf at scale = inf
    is below, where z is inf / inf = nan."""

    def of_x(x, loc=0.0, scale=1.0):
        x, loc, scale = floats(x, loc, scale)
        offset = x - loc
        below = offset < const(0.0, x)
        z = mirror(mirror(snp.where(below, const(0.0, x), offset) / scale))  # -0 made +0
        out = fn(z, offset) - snp.log(scale) if log_scale else fn(z, offset)
        out = snp.where(below, const(off_value, x), out)
        return nan_where((scale <= const(0.0, scale)) | snp.isnan(offset), out)

    of_x.__doc__ = fn.__doc__
    return of_x


def _expon_logcdf(z, offset):
    """log(1 - exp(-z)); -0 where z overflows from a finite x - loc (a negative number too small to
    show), log1mexp's +0 only at x = inf"""
    overflow = (z == const(np.inf, z)) & snp.isfinite(offset)
    return snp.where(overflow, const(-0.0, z), log1mexp(z))


def _expon_logsf(z, offset):
    """-z; -0 where a positive x - loc gives a z that flushes to 0 (scipy's -3e-77), +0 at x = loc"""
    return snp.where(offset > const(0.0, z), -z, mirror(z))


# -z, with the sign scipy's -x gives at x - loc = +-0 (-0 at +0): -z - 0 * (x - loc)
_expon_logpdf = _expon_method(
    lambda z, offset: -z - snp.where(snp.isfinite(offset), offset, const(0.0, z)) * const(0.0, z),
    -np.inf,
    log_scale=True,
)
expon = Distribution(
    "expon",
    "The exponential distribution, density exp(-z) / scale for z = (x - loc) / scale >= 0.",
    logpdf=_expon_logpdf,
    pdf=_density(_expon_logpdf),
    cdf=_expon_method(lambda z, _: -snp.expm1(-z), 0.0),
    logcdf=_expon_method(_expon_logcdf, -np.inf),
    sf=_expon_method(lambda z, _: snp.exp(-z), 1.0),
    logsf=_expon_method(_expon_logsf, 0.0),
    ppf=_inverse(lambda q: mirror(snp.log1p(-q))),
    isf=_inverse(lambda q: -snp.log(q)),
)


# -- laplace -------------------------------------------------------------------------------------
def _laplace_logcdf(z):
    # exp(z) / 2 below 0; 1 - exp(-z) / 2 above (log1p keeps the digits near 1)
    neg = z < const(0.0, z)
    return snp.where(neg, snp.minimum(z, const(0.0, z)) - const(np.log(2.0), z),
                     snp.log1p(const(-0.5, z) * snp.exp(-snp.abs(z))))  # fmt: skip


def _laplace_cdf(z):
    half_tail = const(0.5, z) * snp.exp(-snp.abs(z))
    return snp.where(z < const(0.0, z), half_tail, const(1.0, z) - half_tail)


def _laplace_ppf(q):
    """loc + scale * (log(2q) below 1/2, -log(2 - 2q) above)."""
    low = q <= const(0.5, q)
    return snp.where(low, snp.log(q + q), -snp.log1p(const(1.0, q) - (q + q)))


_laplace_logpdf = _of_z(lambda z: -snp.abs(z) - const(np.log(2.0), z), log_scale=True)
laplace = Distribution(
    "laplace",
    "The Laplace distribution, density exp(-|z|) / (2 scale).",
    logpdf=_laplace_logpdf,
    pdf=_of_z(lambda z: const(0.5, z) * snp.exp(-snp.abs(z)), scaled=True),
    cdf=_of_z(_laplace_cdf),
    logcdf=_of_z(_laplace_logcdf),
    sf=_of_z(lambda z: _laplace_cdf(-z)),
    logsf=_of_z(lambda z: _laplace_logcdf(-z)),
    ppf=_inverse(_laplace_ppf),
    isf=_inverse(lambda q: mirror(_laplace_ppf(q))),
)


# -- logistic ------------------------------------------------------------------------------------
def _logit(q):
    return snp.log(q) - snp.log1p(-q)


_logistic_logpdf = _of_z(lambda z: -snp.abs(z) - const(2.0, z) * _softplus(-snp.abs(z)), log_scale=True)
logistic = Distribution(
    "logistic",
    "The logistic distribution, density exp(-z) / (scale (1 + exp(-z))**2).",
    logpdf=_logistic_logpdf,
    pdf=_density(_logistic_logpdf),
    cdf=_of_z(expit),
    logcdf=_of_z(lambda z: -_softplus(-z)),
    sf=_of_z(lambda z: expit(-z)),
    logsf=_of_z(lambda z: -_softplus(z)),
    ppf=_inverse(_logit),
    isf=_inverse(lambda q: mirror(_logit(q))),
)


# -- cauchy --------------------------------------------------------------------------------------
def _cauchy_cdf(z):
    # atan2(1, -z) / pi is 1/2 + atan(z) / pi, exact in the far left tail too
    return snp.arctan2(snp.ones_like(z), -z) / const(np.pi, z)


_CAUCHY_FAR = 1e8  # past this |z| the tail 1 / (pi |z|) (1 - 1 / (3 z^2)) is exact to float64


def _cauchy_logcdf(z):
    """log cdf: log1p(-sf) right of 0 (log of a number near 1 loses the sf's digits), the tail's
    -log(pi |z|) far left (the cdf itself underflows there)."""
    far = z < const(-_CAUCHY_FAR, z)
    positive = z > const(0.0, z)
    # where, not minimum/maximum: at z = 0 the slope must go whole to the branch that is used
    left = snp.where(far, const(-1.0, z), snp.where(positive, const(0.0, z), z))
    right = snp.where(positive, z, const(0.0, z))
    tail = -snp.log(snp.where(far, -z, const(1.0, z))) - const(np.log(np.pi), z)
    sf = _cauchy_cdf(-right)
    upper = snp.where(sf == const(0.0, z), const(0.0, z), snp.log1p(-sf))  # +0 at z = inf, as scipy
    near = snp.where(positive, upper, snp.log(_cauchy_cdf(left)))
    return snp.where(far, tail, near)


def _cauchy_log_tail(fn, side: float):
    """A log probability of cauchy's from ``fn(z)``, with the far tail -log(pi |z|) taken as
    log(scale) - log|x - loc| - log(pi) where z overflows from a finite x - loc (x = 1, loc = max,
    scale = 1/2 in float32: -90.6, not -inf); ``side``: the sign of z whose tail is far."""

    def of_x(x, loc=0.0, scale=1.0):
        x, loc, scale = floats(x, loc, scale)
        offset = x - loc
        z = offset / scale
        finite = snp.isfinite(x) & snp.isfinite(loc)
        overflow = snp.isinf(z) & finite & (z * const(side, z) > const(0.0, z))
        # |x - loc| as 2 |x/2 - loc/2| where x - loc itself overflows (x = -max, loc = max)
        half = snp.where(overflow, snp.abs(x * const(0.5, x) - loc * const(0.5, x)), const(1.0, x))
        tail = snp.log(scale) - snp.log(half) - const(np.log(2 * np.pi), x)
        out = snp.where(overflow, tail, fn(z))
        return nan_where(scale <= const(0.0, scale), out)

    of_x.__doc__ = fn.__doc__
    return of_x


def _cauchy_ppf(q):
    """tan(pi (q - 1/2)) in the middle; -1 / tan(pi q) and 1 / tan(pi (1 - q)) in the tails, where
    q - 1/2 would round q away (float32's q = 1e-7 gave -5.14e6 for -3.18e6); infinite ends exact.
    Each branch sees a q of its own range, so the unused ones stay finite (and so their gradients)."""
    quarter, half = const(0.25, q), const(0.5, q)
    zero, one = const(0.0, q), const(1.0, q)
    low = (q > zero) & (q < quarter)
    high = (q > const(0.75, q)) & (q < one)
    pi_q = const(np.pi, q) * snp.where(low, q, quarter)
    pi_p = const(np.pi, q) * snp.where(high, one - q, quarter)
    middle = snp.tan(const(np.pi, q) * (snp.where(low | high, half, q) - half))
    out = snp.where(low, -one / snp.tan(pi_q), snp.where(high, one / snp.tan(pi_p), middle))
    ends = snp.where(q == zero, const(-np.inf, q), const(np.inf, q))
    return snp.where((q == zero) | (q == one), ends, out)


_cauchy_logpdf = _of_z(lambda z: -snp.log1p(z * z) - const(np.log(np.pi), z), log_scale=True)
cauchy = Distribution(
    "cauchy",
    "The Cauchy distribution, density 1 / (pi scale (1 + z**2)).",
    logpdf=_cauchy_logpdf,
    pdf=_of_z(lambda z: const(1 / np.pi, z) / (const(1.0, z) + z * z), scaled=True),
    cdf=_of_z(_cauchy_cdf),
    logcdf=_cauchy_log_tail(_cauchy_logcdf, -1.0),
    sf=_of_z(lambda z: _cauchy_cdf(-z)),
    logsf=_cauchy_log_tail(lambda z: _cauchy_logcdf(-z), 1.0),
    # in float64: loc + scale * ppf(q) cancels, and multiplies the quantile's float32 rounding
    ppf=in_float64(_inverse(lambda q: _cauchy_ppf(q))),
    isf=in_float64(_inverse(lambda q: mirror(_cauchy_ppf(q)))),
)

__all__ = ["cauchy", "expon", "laplace", "logistic", "uniform"]
