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

from typing import NamedTuple

import numpy as np

from ... import numpy_like as snp
from ...primitives.elementwise import stop_gradient
from ..lgamma1p import lgamma1p
from ..log1mexp import log1mexp
from ..partials import with_partials
from ..special import gammainc, gammaincc, gammaln, i0e, log_ndtr
from ._common import Distribution, clamp, const, exp_of, floats, mirror, nan_where
from .wide import in_float64


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


def _gumbel_r_logpdf_value(z):
    u = snp.exp(-z)
    return snp.where(u == const(np.inf, u), -u, -z - u)  # -inf where u overflows, not inf - inf


# -z - exp(-z) with the slope expm1(-z): the chain rule's -1 + exp(-z) keeps only exp's rounding near
# z = 0 (a quarter of the slope at z = 1.2e-7 in float32)
_gumbel_r_logpdf = with_partials("gumbel_r_logpdf", _gumbel_r_logpdf_value, lambda z: (snp.expm1(-z),))


def _gumbel_r_pdf(z):
    return snp.exp(_gumbel_r_logpdf(z))


# gumbel_r's cdf exp(-u), u = exp(-z), and sf -expm1(-u) (exact in both tails), with the density as
# their slopes: the chain rule's exp(-z) exp(-u) differentiates again through -1 + exp(-z)
_gumbel_r_cdf = with_partials("gumbel_r_cdf", lambda z: snp.exp(-snp.exp(-z)), lambda z: (_gumbel_r_pdf(z),))
_gumbel_r_sf = with_partials(
    "gumbel_r_sf", lambda z: -snp.expm1(-snp.exp(-z)), lambda z: (-_gumbel_r_pdf(z),)
)


def _gumbel_r_logsf_value(z):
    u = snp.exp(-z)
    # below u = 1e-8, log(1 - e**-u) = log u + log(expm1(u) / u e**-u) is -z - u/2 to u**2 / 24:
    # log1mexp(u) is log 0 = -inf from z = 745 on, where u underflows
    small = u < const(1e-8, u)
    far = -z - u * const(0.5, u)
    # -0 where u overflows at a finite z: log(1 - e**-u) is a negative number too small to show
    # (log1mexp's +0 at u = inf is that of z = -inf, where the sf is exactly 1)
    near = snp.where(
        (u == const(np.inf, u)) & snp.isfinite(z),
        const(-0.0, u),
        log1mexp(snp.where(small, const(1.0, u), u)),
    )
    return snp.where(small, far, near)


def _u_over_expm1(z):
    """h = u / expm1(u) at u = exp(-z): by its series 1 - u/2 + u**2/12 - u**4/720 + ... below 0.1
    (the quotient's own slope cancels as u -> 0: 56000 ulps of d2 at z = 10 in float64), 0 where u
    overflows."""
    one, u = const(1.0, z), snp.exp(-z)
    small, huge = u < const(0.1, z), u == const(np.inf, z)
    us = snp.where(small, u, const(0.0, z))
    ub = snp.where(small | huge, one, u)
    u2 = us * us
    even = const(0.0, z)  # -1/12 + u**2/720 - u**4/30240 + ..., by Horner in u**2
    for c in (-1 / 47900160, 1 / 1209600, -1 / 30240, 1 / 720, -1 / 12):
        even = even * u2 + const(c, z)
    series = one - us * const(0.5, z) - u2 * even
    # above, u e^-u / (1 - e^-u): no overflow in it or its slopes (u / expm1(u)'s meet inf / inf)
    far = ub * snp.exp(-ub) / -snp.expm1(-ub)
    return snp.where(small, series, snp.where(huge, const(0.0, z), far))


# log(1 - exp(-exp(-z))) with its slope -u / expm1(u) from the series above
_gumbel_r_logsf = with_partials("gumbel_r_logsf", _gumbel_r_logsf_value, lambda z: (-_u_over_expm1(z),))


def _gumbel(sign: float):
    """gumbel_r's functions of z (sign 1) or gumbel_l's, those of -z (sign -1)."""

    def s(z):
        return z if sign > 0 else -z

    # gumbel_r: cdf exp(-u) with u = exp(-z), its complement -expm1(-u): exact in both tails
    def log_cdf_r(z):
        return -snp.exp(-z)

    log_sf_r = _gumbel_r_logsf

    def logpdf(x, loc=0, scale=1):
        """the log density; -inf where z = -inf comes of finite x and loc (a z past the largest
        float: the density underflows), nan where x or loc is infinite (scipy's inf - inf)"""
        x, loc, scale = floats(x, loc, scale)
        sz = s((x - loc) / scale)
        out = _gumbel_r_logpdf(sz) - snp.log(scale)
        infinite = (snp.isinf(x) | snp.isinf(loc)) & (sz == const(-np.inf, sz))
        return nan_where((scale <= const(0.0, scale)) | infinite, out)

    # (probability, its log) below and above z; gumbel_l's cdf at z is gumbel_r's sf at -z
    lower = (_gumbel_r_cdf, log_cdf_r) if sign > 0 else (_gumbel_r_sf, log_sf_r)
    upper = (_gumbel_r_sf, log_sf_r) if sign > 0 else (_gumbel_r_cdf, log_cdf_r)
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
    """z held at 1 below the support, the distance x - loc held at scale with it (z times scale),
    log z, -b log z (the log sf) and the invalid parameters. Where z overflows and x - loc does
    not (scale -> 0), log z is log(x - loc) - log(scale)."""
    x, b, loc, scale = floats(x, b, loc, scale)
    d = x - loc
    z = d / scale
    one, zero = const(1.0, z), const(0.0, z)
    bad = (b <= zero) | (scale <= zero)
    zc = clamp(z, one)
    over = (z == const(np.inf, z)) & snp.isfinite(d)
    log_z = snp.where(over, snp.log(snp.where(over, d, one)) - snp.log(scale), snp.log(zc))
    below = z < one
    # -b log z; 0 below the support (+0, scipy's log sf there) and where b = inf on its end (the
    # point mass at 1: not inf * 0)
    log_sf = snp.where(below | (snp.isinf(b) & (log_z == zero)), zero, -b * log_z)
    # z**-b as a power (exact where it is exact: 2**-30), not exp(log_sf), whose argument's rounding
    # (b log z's ulp) costs up to tens of ulps; from log_sf where z overflowed; 1 below the support,
    # where b = inf's power 1**-inf would have the slope inf * 0
    power = snp.power(zc, -snp.where(below, one, b))
    sf = snp.where(below, one, snp.where(over, snp.exp(log_sf), power))
    return _ParetoParts(below, clamp(d, scale), log_z, log_sf, sf, b, scale, bad)


class _ParetoParts(NamedTuple):
    below: object
    dc: object
    log_z: object
    log_sf: object
    sf: object
    b: object
    scale: object
    bad: object


def _pareto_logpdf(x, b, loc=0, scale=1):
    p = _pareto_args(x, b, loc, scale)
    out = snp.log(p.b) - (const(1.0, p.b) + p.b) * p.log_z - snp.log(p.scale)
    return nan_where(p.bad, snp.where(p.below, const(-np.inf, out), out))


def _pareto_pdf(x, b, loc=0, scale=1):
    """b z**-b / (x - loc): the power keeps the digits exp(logpdf) loses to b log z's rounding, and
    x - loc has no z**-1 / scale to overflow or flush (scale -> 0)"""
    p = _pareto_args(x, b, loc, scale)
    out = p.b * p.sf / p.dc
    return nan_where(p.bad, snp.where(p.below, const(0.0, out), out))


# log((1 - exp(-u)) / u) + u/2 = log(sinh(u/2) / (u/2)) as a series in u**2 (Bernoulli numbers'
# coefficients), to the float64 ulp for u <= 1/4
_SINHC_LOG = (1 / 24, -1 / 2880, 1 / 181440, -1 / 9676800, 1 / 479001600, -691 / 15692092416000)


def _pareto_logcdf_of(p):
    """log(1 - z**-b): log1p(-z**-b) above u = b log z = 1.5 (log1mexp's switch), log1mexp(u)
    between, and log(b) + log(log z) + log((1 - exp(-u)) / u) below u = 1/4 (a series): u flushes
    to 0 as b -> 0, where log1mexp's slope 1/u would be inf, and the second derivatives of
    log1mexp(b log z) cancel (1/u**2 against 1/u) where the series' do not."""
    u = -p.log_sf
    one = const(1.0, u)
    near = u < const(0.25, u)
    far = u > const(1.5, u)
    # each branch's arguments held inside its own range where it is not taken (no inf slope meets a
    # zero cotangent); on the support's end log(log z) is -inf with the slope +inf of the right side
    small_b = snp.where(near & ~snp.isinf(p.b), p.b, one)
    small_log_z = snp.where(near & ~p.below, p.log_z, one)
    small_u = snp.where(near, u, const(0.0, u))
    v = small_u * small_u
    poly = const(_SINHC_LOG[-1], u)
    for c in reversed(_SINHC_LOG[:-1]):
        poly = const(c, u) + v * poly
    series = snp.log(small_b) + snp.log(small_log_z) - small_u * const(0.5, u) + v * poly
    series = snp.where(p.below, const(-np.inf, u), series)
    middle = log1mexp(snp.where(near | far, one, u))
    tail = snp.log1p(-snp.where(far, p.sf, const(0.0, u)))
    return snp.where(near, series, snp.where(far, tail, middle))


def _pareto_cdf_of(p):
    """1 - z**-b from the power where it is below 1/2 (its slopes keep their digits: exp(-b log z)'s
    lose b log z's rounding), -expm1(-b log z) above (exact as b log z -> 0)"""
    half = const(0.5, p.sf)
    low = p.sf < half
    return snp.where(low, const(1.0, p.sf) - snp.where(low, p.sf, half), mirror(snp.expm1(p.log_sf)))


def _pareto_fn(fn):
    def of_x(x, b, loc=0, scale=1):
        p = _pareto_args(x, b, loc, scale)
        return nan_where(p.bad, fn(p))

    return of_x


def _pareto_ppf(q, b, loc=0, scale=1):
    """loc + scale (1 - q)**(-1 / b): a power of 1 - q where 1 - q is exact (the power keeps the
    digits that exp(-log1p(-q) / b) loses to its argument's rounding, up to b's inverse times an
    ulp), exp(-log1p(-q) / b) where it is not (q -> 0); +inf at q = 1 for b = inf too (scipy's,
    the limit of every finite b's; 0**-0 is 1)"""
    q, b, loc, scale = floats(q, b, loc, scale)
    bad = (q < const(0.0, q)) | (q > const(1.0, q)) | (b <= const(0.0, b)) | (scale <= const(0.0, scale))
    one, half = const(1.0, q), const(0.5, q)
    w = one - q
    exact = (one - w) == q  # 1 - q rounded to nothing (all q >= 1/2, and 1/4, 0.375...)
    # each branch's q and b held where the other is taken (b -> 0 makes the unused one inf, whose
    # slope would meet a zero cotangent)
    power = snp.power(snp.where(exact, w, half), -one / snp.where(exact, b, one))
    small = snp.exp(-snp.log1p(-snp.where(exact, half, q)) / snp.where(exact, one, b))
    z = snp.where(exact, power, small)
    z = snp.where(snp.isinf(b) & (q == one), const(np.inf, q), z)
    return nan_where(bad, loc + scale * z)


pareto = Distribution(
    "pareto",
    "The Pareto distribution with shape b, density b / z**(b + 1) for z = (x - loc) / scale >= 1.",
    logpdf=_pareto_logpdf,
    pdf=_pareto_pdf,
    cdf=_pareto_fn(_pareto_cdf_of),
    logcdf=_pareto_fn(_pareto_logcdf_of),
    sf=_pareto_fn(lambda p: p.sf),
    logsf=_pareto_fn(lambda p: p.log_sf),
    ppf=_pareto_ppf,
)


# -- truncnorm: the normal restricted to [a, b] (standardized bounds) ----------------------------
def _log_diff(big, small):
    """log(exp(big) - exp(small)) for big >= small (-inf where they are equal or, rounded, reversed,
    and where big is -inf: no mass, not -inf - -inf)."""
    none = big == const(-np.inf, big)
    # -(big - small) is -0 where they are equal: the log's slope there is -inf (the one-sided limit
    # as small rises to big), not the +inf of small - big = +0
    gap = snp.where(none, const(-1.0, big), -snp.maximum(big - small, const(0.0, big)))
    return snp.where(none, big, big + snp.log(-snp.expm1(gap)))


def _log_mass(lo, hi):
    """log(ndtr(hi) - ndtr(lo)) for lo <= hi, from the upper tail when lo > 0 (ndtr near 1 loses
    digits): log(ndtr(-lo) - ndtr(-hi)). An infinite outer end (lo = -inf, hi = inf) adds no mass
    to subtract and no slope: log_ndtr's own slope there is inf, and it would meet a zero one."""
    right = lo > const(0.0, lo)
    near = snp.where(right, -lo, hi)  # the end whose log_ndtr is the larger
    far = snp.where(right, -hi, lo)
    open_end = far == const(-np.inf, far)
    zero = const(0.0, near)
    big = log_ndtr(near)
    small = log_ndtr(snp.where(open_end, zero, far))
    # the difference's inputs held at (0, -1) where it is not taken
    diff = _log_diff(snp.where(open_end, zero, big), snp.where(open_end, const(-1.0, near), small))
    return snp.where(open_end, big, diff)


def _truncnorm_args(x, a, b, loc, scale):
    x, a, b, loc, scale = floats(x, a, b, loc, scale)
    z = (x - loc) / scale
    bad = ~(a < b) | (scale <= const(0.0, scale))
    return z, a, b, scale, _log_mass(a, b), bad


def _truncnorm_inside(x, a, b, loc, scale):
    """Where x lies in [loc + a scale, loc + b scale], judged on x - loc against a scale and b scale:
    z = (x - loc) / scale flushes to 0 for a huge scale (z = 2.9e-39 in float32), which would put
    x = 1 on the end b = 0."""
    x, a, b, loc, scale = floats(x, a, b, loc, scale)
    offset = x - loc
    return (offset >= a * scale) & (offset <= b * scale)


def _truncnorm_log_kernel(x, a, b, loc, scale):
    """-z**2 / 2 - log(sqrt(2 pi)), log(mass), scale, and where x lies off the support and where the
    call or z itself is invalid (x = loc = inf: nan)."""
    z, _, _, scale_, log_z, bad = _truncnorm_args(x, a, b, loc, scale)
    kernel = const(-0.5, z) * z * z - const(0.5 * np.log(2 * np.pi), z)
    return kernel, z, log_z, scale_, ~_truncnorm_inside(x, a, b, loc, scale), bad | snp.isnan(z)


# past this the log of the Mills ratio is its asymptotic series (8 terms: within 1e-17 at 20)
_MILLS_FAR = 20.0


def _log_mills(t):
    """log(Q(t) / phi(t)) for t >= 0 (Q the normal's upper tail, phi its density): the series
    -log t + log(1 - 1/t**2 + 3/t**4 - ...) past _MILLS_FAR, where log Q(t) and -t**2 / 2 are huge
    (or overflow) and their difference would keep none of its digits; log_ndtr(-t) + t**2 / 2 +
    log(sqrt(2 pi)) below."""
    far = t > const(_MILLS_FAR, t)
    big = snp.where(far, t, const(_MILLS_FAR, t))
    inv_square = const(1.0, t) / big / big  # 1/t**2 without t**2 overflowing
    series, term = const(1.0, t), const(1.0, t)
    for k in range(1, 9):
        term = term * inv_square * const(-(2 * k - 1), t)
        series = series + term
    small = snp.where(far, const(0.0, t), t)
    near = log_ndtr(-small) + const(0.5, t) * small * small + const(0.5 * np.log(2 * np.pi), t)
    return snp.where(far, snp.log(series) - snp.log(big), near)


def _square_gap_value(z, c):
    step = z - c
    return -step * c - const(0.5, z) * step * step


# (c**2 - z**2) / 2 as -(z - c) c - (z - c)**2 / 2 (no c**2 to overflow at c = 3.4e38), with its
# slopes -z and c written out: the chain rule's c - (z - c) + (z - c) loses c beside z - c = 3.4e38
# and is inf - inf at z = inf
_square_gap = with_partials("truncnorm_square_gap", _square_gap_value, lambda z, c: (-z, c))


def _truncnorm_logpdf_of(x, a, b, loc, scale):
    """-z**2 / 2 - log(sqrt(2 pi)) - log(mass) - log(scale), taken relative to the bound c nearest
    0 where the support lies in one tail (c = a > 0 or c = b < 0): the log density is then
    -(z - c) c - (z - c)**2 / 2 - log(Q(|c|) / phi(c)) - log(mass / Q(|c|)), whose terms stay the
    size of the result where -z**2 / 2 and log(mass) are both near -c**2 / 2 (-5.8e76 at a =
    3.4e38: their rounded difference is 0 or nan, where the true log density is log(a) = 88.7)."""
    x, a, b, loc, scale = floats(x, a, b, loc, scale)
    z = (x - loc) / scale
    bad = ~(a < b) | (scale <= const(0.0, scale)) | snp.isnan(z)
    off = ~_truncnorm_inside(x, a, b, loc, scale)
    zero, one, inf = const(0.0, z), const(1.0, z), const(np.inf, z)
    right, left = a > zero, b < zero
    in_tail = right | left
    # each form's arguments held at a harmless point where the other is taken or x is off the
    # support, so that no inf * 0 of an unused branch reaches the slopes
    c = snp.where(right, a, snp.where(left, b, one))
    near = snp.where(right, -a, snp.where(left, b, -one))
    far = snp.where(right, -b, snp.where(left, a, -inf))
    open_end = far == -inf
    # log(mass / Q(|c|)) = log(1 - Q(far) / Q(near)), 0 where the far bound is infinite
    gap = log_ndtr(snp.where(open_end, zero, far)) - log_ndtr(snp.where(open_end, zero, near))
    gap = snp.where(open_end, -one, snp.where(gap < zero, gap, zero))
    rest = snp.where(open_end, zero, snp.log(-snp.expm1(gap)))
    z_tail, c = snp.broadcast_arrays(snp.where(in_tail & ~off, z, c), c)
    tail_form = _square_gap(z_tail, c) - _log_mills(snp.abs(c)) - rest
    zc = snp.where(in_tail | off, zero, z)
    mass = _log_mass(snp.where(in_tail, -one, a), snp.where(in_tail, one, b))
    centre_form = const(-0.5, z) * zc * zc - const(0.5 * np.log(2 * np.pi), z) - mass
    out = snp.where(in_tail, tail_form, centre_form) - snp.log(scale)
    return nan_where(bad, snp.where(off, const(-np.inf, out), out))


def _truncnorm_logpdf(x, a, b, loc=0, scale=1):
    """the log density; in float64 for float32 arguments (wide.in_float64): -z**2 / 2 - log(sqrt(2
    pi)), log(mass) and log(scale) near 1 each cancel to a log density of -0.046 (16 float32 ulps)"""
    return in_float64(_truncnorm_logpdf_of)(x, a, b, loc, scale)


def _truncnorm_pdf(x, a, b, loc=0, scale=1):
    """exp(log kernel) / (mass scale): dividing by scale after the exp keeps the digits log(scale)
    loses at scale = 1.2e-38; for a mass of at least e**-40 the mass divides after the exp too, so that
    the exp's argument is -z**2 / 2 - log(sqrt(2 pi)) alone, not a sum near -25 whose rounding the exp
    multiplies by 25 (in narrower masses the sum keeps exp(-z**2 / 2) from underflowing alone); as in
    norm's density the constant log(sqrt(2 pi)) joins the exp's argument only for |z| < 2."""
    kernel, z, log_z, scale, off, bad = _truncnorm_log_kernel(x, a, b, loc, scale)
    half_square = snp.where(off, const(0.0, z), const(-0.5, z) * z * z)
    # apart while neither exp(-z**2 / 2) underflows nor 1 / mass overflows
    big = (log_z > const(-40.0, log_z)) & (half_square > const(-80.0, z))
    # off the support the kernel is held at 0 - 0: no exp(inf) (mass underflowed to 0) meets the
    # zero cotangent of the branch not taken
    inner = snp.where(big | off, const(0.0, log_z), log_z)
    kernel = snp.where(off, const(0.0, kernel), kernel)
    outer = snp.where(big, log_z, const(0.0, log_z))
    near = snp.abs(z) < const(2.0, z)
    inside_exp = snp.where(near, kernel, half_square) - inner
    factor = snp.where(near, const(1.0, z), const(1 / np.sqrt(2 * np.pi), z))
    out = snp.exp(inside_exp) * factor * snp.exp(-outer) / scale
    return nan_where(bad, snp.where(off, const(0.0, out), out))


# below this log probability of the other side (5%), 1 minus it is the more exact of the two
_LOG_SMALL = float(np.log(0.05))


def _below_one(out, other, strictly_inside):
    """-0 where a log probability strictly inside the support rounds to log 1: where it came out +0
    (mine's log_mass - log_z of two equal logs) or the other side holds no mass at all (other =
    -inf), where mine's two differently rounded logs can leave an ulp (-1.2e-7 at x = 1.2e-38 above
    a = 0 in float32: the tails' ndtr(1) and 1 - ndtr(-1)). The probability is below 1 there, so its
    log is -0, as jax's; the slope stays mine's: -0 - (stop_gradient(out) - out) is -0 in value."""
    to_zero = strictly_inside & ((out == const(0.0, out)) | (other == const(-np.inf, other)))
    return snp.where(to_zero, const(-0.0, out) - (stop_gradient(out) - out), out)


def _truncnorm_log_probability(upper: bool):
    def log_probability(x, a, b, loc=0, scale=1):
        z, a, b, _, log_z, bad = _truncnorm_args(x, a, b, loc, scale)
        zero, minus_inf = const(0.0, z), const(-np.inf, z)
        inside = (z >= a) & (z <= b)
        # off [a, b] each side is a constant; its formula's point is held at the far bound there (a
        # finite log 1), so that no -inf of log_mass(a, a) and its nan slope meets a zero cotangent
        # (the other side's point also off its own end, where its -inf is not used)
        if upper:
            mine = _log_mass(snp.where(inside, z, a), b) - log_z
            other = _log_mass(a, snp.where(inside & (z > a), z, b)) - log_z
        else:
            mine = _log_mass(a, snp.where(inside, z, b)) - log_z
            other = _log_mass(snp.where(inside & (z < b), z, a), b) - log_z
        # where the other side holds little (and some mass), 1 minus it keeps the digits that mine's
        # difference of two logs near log_z cancels (log cdf -2.6e-12, not 0)
        small = (other < const(_LOG_SMALL, z)) & (other > minus_inf)
        out = snp.where(small, snp.log1p(-snp.exp(snp.where(small, other, const(_LOG_SMALL, z)))), mine)
        out = _below_one(out, other, (z > a) & (z <= b) if upper else (z >= a) & (z < b))
        # the ends of the support where the mass itself underflows (a = 3e38, b = inf in float32):
        # nothing below a, everything below b
        none = log_z == minus_inf
        lo = (z < a) | (none & (z == a))
        hi = (z > b) | (none & (z == b))
        out = snp.where(lo, zero if upper else minus_inf, snp.where(hi, minus_inf if upper else zero, out))
        return nan_where(bad, out)

    log_probability.__doc__ = (
        "the log of the probability above x" if upper else "the log of the probability below x"
    )
    return log_probability


_log_below = _truncnorm_log_probability(False)
_log_above = _truncnorm_log_probability(True)


def _inner_point(a, b):
    """A point strictly inside [a, b] with finite logs on both sides: the midpoint, or one unit
    in from the finite end of a half-infinite support (0 for the whole line)."""
    one, zero = const(1.0, a), const(0.0, a)
    low_open, high_open = a == const(-np.inf, a), b == const(np.inf, b)
    middle = snp.where(low_open | high_open, zero, const(0.5, a) * a + const(0.5, b) * b)
    return snp.where(low_open, snp.where(high_open, zero, b - one), snp.where(high_open, a + one, middle))


def _truncnorm_probability_partials(upper: bool, log: bool):
    """The slopes of F (the probability below x), S = 1 - F, log F or log S in (x, a, b, loc,
    scale), from the density p(x) (p = phi(z) / (Z scale), Z the mass, z = (x - loc) / scale) and
    the densities p_a, p_b at the ends: dF/dx = p, dF/da = -p_a S, dF/db = -p_b F, dF/dloc = -p,
    dF/dscale = -z p; each as exp of a sum of logs, the logs' quotients as differences. They take
    their limits at the ends where the mass underflows: dF/dx at x = a = 1.8e308, b = inf is
    p(a) ~ a, where the chain rule through the log-probabilities' differences gave 0 (jax nan).
    Off [a, b] the probability is a constant: slopes 0, taken at an inner point so that no inf of
    the unused branch reaches a second derivative."""

    def partials(x, a, b, loc, scale):
        z = (x - loc) / scale
        inside = (z >= a) & (z <= b)
        inner = _inner_point(a, b)
        x, z = snp.where(inside, x, loc + scale * inner), snp.where(inside, z, inner)
        zero, unit = const(0.0, z), const(1.0, z)
        log_pa = _truncnorm_logpdf(a, a, b, zero, unit)
        log_pb = _truncnorm_logpdf(b, a, b, zero, unit)
        log_f, log_s = _log_below(x, a, b, loc, scale), _log_above(x, a, b, loc, scale)
        # the slopes of F in x, a and b (negated for S), divided by F or S for their logs
        mine = log_s if upper else log_f
        by = mine if log else zero
        sign = -unit if upper else unit
        # S / S and F / F left out, not divided: the pair's slopes in a and b would not cancel
        d_a = -sign * snp.exp(log_pa if log and upper else log_pa + log_s - by)
        d_b = -sign * snp.exp(log_pb if log and not upper else log_pb + log_f - by)
        if log:  # p / S does not depend on a, nor p / F on b: their rounded Z's would leave a slope
            a_, b_ = (stop_gradient(a), b) if upper else (a, stop_gradient(b))
            mine_ = (_log_above if upper else _log_below)(x, a_, b_, loc, scale)
            d_x = sign * snp.exp(_truncnorm_logpdf(x, a_, b_, loc, scale) - mine_)
        else:
            d_x = sign * snp.exp(_truncnorm_logpdf(x, a, b, loc, scale))
        d_scale = snp.where(d_x == zero, zero, -z * d_x)
        return tuple(snp.where(inside, d, zero) for d in (d_x, d_a, d_b, -d_x, d_scale))

    return partials


def _truncnorm_probability(upper: bool, log: bool):
    log_value = _log_above if upper else _log_below

    def value(x, a, b, loc, scale):
        out = log_value(x, a, b, loc, scale)
        return out if log else snp.exp(out)

    side = "above" if upper else "below"
    name = f"truncnorm_{'log' if log else ''}{'sf' if upper else 'cdf'}"
    fn = with_partials(name, value, _truncnorm_probability_partials(upper, log))

    def probability(x, a, b, loc=0, scale=1):
        return fn(*snp.broadcast_arrays(*floats(x, a, b, loc, scale)))

    probability.__doc__ = (
        f"the {'log of the ' if log else ''}probability {side} x (slopes from the densities)"
    )
    return probability


truncnorm = Distribution(
    "truncnorm",
    "The normal distribution truncated to [a, b], bounds in units of scale from loc.",
    logpdf=_truncnorm_logpdf,
    pdf=_truncnorm_pdf,
    cdf=_truncnorm_probability(False, False),
    logcdf=_truncnorm_probability(False, True),
    sf=_truncnorm_probability(True, False),
    logsf=_truncnorm_probability(True, True),
)


# -- gennorm: density beta / (2 Gamma(1 / beta)) exp(-|x|**beta) ----------------------------------
def _gennorm_log_norm(beta):
    """log(beta / Gamma(1 / beta)) = -log Gamma(1 + 1 / beta): by lgamma1p for 2 <= beta < inf, where
    log(beta) and gammaln(1 / beta) would cancel (both 18.4 at beta = 1e8, for -5.8e-9); directly
    below 2 and at beta = inf (nan there, as before)."""
    one = const(1.0, beta)
    series = (beta >= const(2.0, beta)) & (beta < const(np.inf, beta))
    t = snp.where(series, one / beta, const(0.0, beta))
    direct_beta = snp.where(series, one, beta)
    direct = snp.log(direct_beta) - gammaln(one / direct_beta)
    return snp.where(series, -lgamma1p(t), direct)


def _gennorm_logpdf(x, beta):
    x, beta = floats(x, beta)
    out = _gennorm_log_norm(beta) - const(np.log(2.0), x) - snp.abs(x) ** beta
    return nan_where(beta <= const(0.0, beta), out)


def _gennorm_pdf(x, beta):
    """the density, exp(logpdf); in float64 for float32 arguments (wide.in_float64): the log
    density's float32 rounding (2e-6 at -15 for beta = 0.1) would be the density's error"""
    return snp.exp(_gennorm_logpdf(x, beta))


def _gennorm_cdf(x, beta):
    """1/2 -+ P(1/beta, |x|**beta) / 2. |x| and the sign are taken as where(x < 0, -x, x) and a
    constant +-1: sign(x) and abs's slope sign(x) are 0 at x = 0, which made the slope there 0 where
    the density beta / (2 Gamma(1/beta)) is (1/2 at beta = 1). Near 0 (``_gennorm_near_zero``) P's
    series in |x| instead, whose slope in x is the density: the chain rule of P(a, |x|**beta) there
    multiplies P's slope in y (0 at y = 0) by y's in x (infinite at x = 0 for beta < 1) into nan
    (jax's too; ours also at the subnormal x that XLA flushes to 0)."""
    x, beta = floats(x, beta)
    negative = x < const(0.0, x)
    magnitude = snp.where(negative, -x, x + const(0.0, x))  # +0 at -0; slope -1 below 0, 1 from 0 on
    half, one, a = const(0.5, x), const(1.0, x), const(1.0, beta) / beta
    near = _gennorm_near_zero(stop_gradient(magnitude), stop_gradient(beta))
    # below 0 the upper tail Q/2 itself (1/2 - P/2 cancels as x -> -inf)
    y = snp.where(near, one, magnitude) ** beta
    out = snp.where(negative, half * gammaincc(a, y), half + half * gammainc(a, y))
    # near 0, P(a, y) = |x| e^-y sum_n y^n / Gamma(a + n + 1) (y^a = |x|) = |x| (1 - a y / (a + 1))
    # / Gamma(1 + a) to O(y^2), 1 / Gamma(1 + a) being the log norm's exp
    t = snp.where(near, magnitude, one) ** (beta + one)  # |x| y
    series = x - a / (a + one) * snp.where(negative, -t, t)
    out = snp.where(near, half + half * series * snp.exp(_gennorm_log_norm(beta)), out)
    return nan_where(beta <= const(0.0, beta), out)


def _gennorm_near_zero(magnitude, beta):
    """Where gennorm's cdf takes its series in |x|: |x|^beta below eps (the series' next term is
    below eps^2) and |x| <= 1/1024 (1/2 - |x| / 2 keeps its digits)."""
    eps = const(np.finfo(magnitude.dtype.np).eps, magnitude)
    return (magnitude <= const(2.0**-10, magnitude)) & (magnitude**beta < eps)


gennorm = Distribution(
    "gennorm",
    "The generalized normal distribution with shape beta (2: normal with variance 1/2, 1: laplace).",
    logpdf=_gennorm_logpdf,
    pdf=in_float64(_gennorm_pdf),
    # in float64 for float32 arguments: |x|^beta underflows float32 at a large beta (1e-48 at
    # x = -1e-3, beta = 16) where P(1/beta, |x|^beta) ~ |x| does not: the cdf was 1/2 for 0.49947
    cdf=in_float64(_gennorm_cdf, flush_subnormals=True),
)


# -- vonmises and wrapcauchy: distributions of an angle ----------------------------------------------
def _i0_parts(k):
    """e^-k I0(k) for k >= 0 in three pieces whose slopes do not cancel: I0's power series below 2
    (i0e's own slope i1e - i0e is -1 + k/2 there, and 0 at its kink k = 0), Hankel's expansion of
    sqrt(2 pi k) e^-k I0(k) in 1/k from 20 on (10 in float32: there i1e/i0e - 1 -> -1/(2k) loses the
    digits of the difference), i0e itself between. Returns (small, far, series, hankel, kf, middle):
    I0 = series below 2, e^-k I0 = hankel / sqrt(2 pi kf) from far_from, middle = i0e(k) between."""
    one, wide = const(1.0, k), k.dtype.bits == 64
    far_from, terms = (20.0, 25) if wide else (10.0, 12)
    small, far = k < const(2.0, k), k >= const(far_from, k)
    # each branch's argument held on its own side, so the others' 1/k or overflow meet no cotangent
    ks = snp.where(small, k, const(0.0, k))
    kf = snp.where(far, k, const(far_from, k))
    km = snp.where(small | far, const(2.0, k), k)
    t, series = ks * ks * const(0.25, k), one  # sum_n (k**2 / 4)**n / (n!)**2: 4e-18 at n = 14, k = 2
    for n in range(14, 0, -1):
        series = one + series * t * const(1.0 / (n * n), k)
    hankel, inverse = one, one / kf  # sum_n prod_m (2m - 1)**2 / (8m k)
    for n in range(terms, 0, -1):
        hankel = one + hankel * inverse * const((2 * n - 1) ** 2 / (8 * n), k)
    return small, far, series, hankel, kf, i0e(km)


def _vonmises(log: bool):
    """vonmises' log density (log) or density exp(kappa cos x) / (2 pi I0(kappa)): the density as
    that quotient (not exp of the log, which spreads the log's rounding over the value)."""

    def density(x, kappa):
        x, kappa = floats(x, kappa)
        small, far, series, hankel, kf, middle = _i0_parts(kappa)
        cos, two_pi = snp.cos(x), const(2 * np.pi, x)
        ks = snp.where(small, kappa, const(0.0, kappa))
        near_exponent = ks * cos  # below 2 without the -kappa + kappa of the scaled form
        exponent = kappa * (cos - const(1.0, x))
        # far out, -log(2 pi e^-k I0(k)) = log(k / (2 pi)) / 2 - log(hankel), one log of each
        far_log = exponent + const(0.5, x) * snp.log(kf / two_pi) - snp.log(hankel)
        if log:
            rest = snp.where(far, far_log, exponent - snp.log(two_pi * middle))
            out = snp.where(small, near_exponent - snp.log(series) - snp.log(two_pi), rest)
        else:  # exp(exponent) sqrt(k / 2 pi) / hankel, rounded once less than exp of the log; as exp of
            # the log where (kappa sin x)**2 overflows (its d2 would meet 0 * inf), its value moved
            # (without a slope) to exp(exponent - log(hankel)) sqrt(k) / sqrt(2 pi) where both are
            # finite: exp of the whole log spreads its rounding (an ulp of 176 at k = 1e154) over the value
            product = kf < const(2e19 if kf.dtype.bits == 32 else 1e150, kf)
            kp = snp.where(product, kappa, const(1.0, kappa))
            root = snp.sqrt(snp.where(product, kf, const(1.0, kf)) / two_pi)
            far_value = snp.exp(kp * (cos - const(1.0, x))) * root / hankel
            by_log = snp.exp(far_log)
            huge_root = snp.sqrt(kf) * const(1 / np.sqrt(2 * np.pi), kf)
            rounded_once = snp.exp(exponent - snp.log(hankel)) * huge_root
            gap = rounded_once - by_log
            far_value = snp.where(
                product, far_value, by_log + stop_gradient(snp.where(snp.isfinite(gap), gap, 0.0))
            )
            rest = snp.where(far, far_value, snp.exp(exponent) / (two_pi * middle))
            out = snp.where(small, snp.exp(near_exponent) / (two_pi * series), rest)
        return nan_where(kappa < const(0.0, kappa), out)

    density.__doc__ = "the log density" if log else "the density"
    return density


vonmises = Distribution(
    "vonmises",
    "The von Mises distribution of an angle x (any real, 2 pi periodic) with concentration kappa.",
    logpdf=_vonmises(True),
    pdf=in_float64(_vonmises(False)),  # exp(kappa (cos x - 1)) multiplies cos x's rounding by kappa
)


def _two_pi_below(like) -> np.ndarray:
    """The largest float of ``like``'s dtype not above 2 pi (float32's nearest, 6.2831855, is above
    it: a point there lies off the support [0, 2 pi], as scipy says)."""
    two_pi = const(2 * np.pi, like)
    exact = 2 * np.arccos(np.longdouble(-1))
    return two_pi if np.longdouble(two_pi) <= exact else np.nextafter(two_pi, two_pi.dtype.type(0))


def _wrapcauchy_spread(x, c):
    """1 + c**2 - 2c cos x as a product (scale, rest). Where cos x > 1/2 (x near 0 or 2 pi) it
    cancels as c -> 1 (15% off in d/dc at c = 0.999 in float32), so there it is
    (1 - c)**2 + c chord**2, with the chord 2 sin(x/2) written sin x / cos(x/2) (sin(x/2) of a tiny
    x is subnormal, flushed to 0; elsewhere 2 - 2 cos x). From c = 0.95 on, at every x, it is
    c (chord**2 + (1 - c)**2 / c), whose log's d2/dx dc is free of the two ~1/S terms that cancel
    to (1 - c**2)/S**2 in the plain form's."""
    one, cos = const(1.0, x), snp.cos(x)
    near = cos > const(0.5, x)
    chord2 = snp.square(snp.sin(x) / snp.cos(snp.where(near, x, const(0.0, x)) * const(0.5, x)))
    chord2 = snp.where(near, chord2, const(2.0, x) - (cos + cos))
    high = c >= const(0.95, c)  # below, its own derivatives cancel more than they save
    ch = snp.where(high, c, one)  # the other lanes' 1/c must not meet a zero cotangent
    # c * chord2, not (c * chord) * chord: at x = 2.2e-308 c * chord is subnormal (flushed)
    rest = snp.where(near, snp.square(one - c) + c * chord2, one + c * (c - (cos + cos)))
    return ch, snp.where(high, chord2 + snp.square(one - ch) / ch, rest)


def _far_side(x, c):
    """Where the log density takes _wrapcauchy_log_far's form: the side away from x = 0 (cos x < -1/2)
    with c below 0.95 (above, _wrapcauchy_spread's high form)."""
    return (snp.cos(x) < const(-0.5, x)) & (c < const(0.95, c))


# log((1 - c) / (1 + c)) = -2 atanh(c) with the slope -2 / (1 - c**2) as it stands: atanh's own rule
# differentiates 1 / ((1 - c)(1 + c)), whose (1 + c) - (1 - c) cancels to an absolute eps at c -> 0
_log_odds_of_c = with_partials(
    "wrapcauchy_log_odds",
    lambda c: const(-2.0, c) * snp.arctanh(c),
    lambda c: (const(-2.0, c) / (const(1.0, c) - c * c),),
)


def _wrapcauchy_log_far(x, c):
    """log((1 - c**2) / (2 pi (1 + c**2 - 2c cos x))) as -2 atanh(c) - log1p(-4c cos(x/2)**2 / (1 + c)**2)
    - log(2 pi), from 1 + c**2 - 2c cos x = (1 + c)**2 - 4c cos(x/2)**2: at x = pi its d2/dc2 is
    -4c / (1 - c**2)**2, which the plain form sums from -2 and +2 (an absolute error of a few eps: 1.25e-6
    for -4e-7 at c = 1e-7 in float32); atanh's own second derivative 2c / (1 - c**2)**2 keeps it.
    Other lanes see x = pi, c = 1/2."""
    far = _far_side(x, c)
    xs, cs = snp.where(far, x, const(np.pi, x)), snp.where(far, c, const(0.5, c))
    one = const(1.0, x)
    half_cos = snp.cos(xs * const(0.5, x))
    ratio = const(4.0, x) * cs * half_cos * half_cos / snp.square(one + cs)
    return _log_odds_of_c(cs) - snp.log1p(-ratio) - const(np.log(2 * np.pi), x)


def _wrapcauchy(log: bool):
    """wrapcauchy's log density (log) or density, -inf or 0 off the support [0, 2 pi]."""

    def density(x, c):
        x, c = floats(x, c)
        one, (scale, rest) = const(1.0, x), _wrapcauchy_spread(x, c)
        # 1 - c**2 as (1 - c)(1 + c) where c**2 would round the digits of 1 - c away; below 1/2 as it
        # stands, whose slope -2c is exact (that of the product cancels to a rounding error at c -> 0)
        small = c < const(0.5, c)
        if log:
            mass = snp.where(small, snp.log1p(-c * c), snp.log1p(-c) + snp.log1p(c))
            out = mass - const(np.log(2 * np.pi), x) - snp.log(scale) - snp.log(rest)
            out = snp.where(_far_side(x, c), _wrapcauchy_log_far(x, c), out)
            off = const(-np.inf, x)
        else:  # not exp(logpdf): d2/dc2 of that sums 1/(1 - c)**2 terms that cancel as c -> 1
            mass = snp.where(small, one - c * c, (one - c) * (one + c))
            out, off = mass / (const(2 * np.pi, x) * scale * rest), const(0.0, x)
        inside = (x >= const(0.0, x)) & (x <= _two_pi_below(x))
        bad = ~((c > const(0.0, c)) & (c < one))
        return nan_where(bad, snp.where(inside, out, off))

    density.__doc__ = "the log density" if log else "the density (1 - c**2) / (2 pi (1 + c**2 - 2c cos x))"
    return density


wrapcauchy = Distribution(
    "wrapcauchy",
    "The wrapped Cauchy distribution of an angle x in [0, 2 pi] with shape c in (0, 1).",
    # in float64 for float32: their second derivatives sum terms up to 100 times the result
    logpdf=in_float64(_wrapcauchy(True)),
    pdf=in_float64(_wrapcauchy(False)),
)

__all__ = ["gennorm", "gumbel_l", "gumbel_r", "pareto", "truncnorm", "vonmises", "wrapcauchy"]
