"""sg.scipy.special: scipy.special's names over the special-function primitives (ops layer).

Gamma family (gammaln, digamma/psi, polygamma, gamma, beta, betaln,
multigammaln, zeta), incomplete integrals (gammainc, gammaincc, betainc),
the error function and normal distribution (erf, erfc, erfinv, ndtr, ndtri,
log_ndtr), Bessel (i0, i0e, i1, i1e), information measures (entr, rel_entr,
kl_div, xlogy, xlog1py), and softmax, log_softmax, logsumexp, expit, logit; the hypergeometric
1F1 and 2F1, Owen's T, the Faddeeva function wofz, bessel_jn and sph_harm_y (their own modules).
Integer input becomes float first; scipy's edge values (0 at x == 0 in
xlogy, inf outside the domain of rel_entr, ...) are kept.

logit, xlogy and logsumexp are library calls (graph/calls.py). logsumexp
carries its own vjp (the softmax weights), so its value and gradient stay
exact where exp would overflow or underflow.
"""

from __future__ import annotations

import math

import numpy as np

from ...graph import library
from .. import numpy_like as snp
from ..custom_vjp import custom_vjp
from ..numpy_like.core import normalize_axes
from ..primitives import transcendental as tr
from ..primitives.elementwise import erf_inv, stop_gradient
from ..primitives.registry import bind
from .float_args import float_args as _floats
from .lgamma1p import lgamma1p, log_gamma
from .log_beta import digamma_step, gamma_ratio_log_scaled, log_beta
from .normal_quantile import ndtri_of
from .partials import with_partials

expit = snp.sigmoid
erf = snp.erf


def _float(x):
    x = snp.asarray(x)
    if x.dtype.is_inexact:
        return x
    return snp.asarray(x, "float64" if x.dtype.bits == 64 else "float32")


# -- gamma family --------------------------------------------------------------
def gammaln(x):
    """log |Gamma(x)|."""
    return bind(tr.lgamma, _float(x))


def digamma(x):
    """d/dx log Gamma(x)."""
    return bind(tr.digamma, _float(x))


psi = digamma


def polygamma(n, x):
    """The n-th derivative of digamma at x."""
    n, x = _floats(n, x)
    return bind(tr.polygamma, n, x)


def zeta(x, q=None):
    """The Hurwitz zeta function sum_k (k + q)**-x (Riemann's for q = None)."""
    x, q = _floats(x, 1.0 if q is None else q)
    return bind(tr.zeta, x, q)


def _gamma_sign(x):
    """The sign of Gamma(x): -1 on (-2k-1, -2k), else 1."""
    negative_odd = snp.logical_and(snp.less(x, 0), snp.not_equal(snp.remainder(snp.floor(x), 2), 0))
    return snp.where(negative_odd, -1.0, 1.0).astype(x.dtype)


def gamma(x):
    """The gamma function, sign(Gamma(x)) exp(gammaln(x)); as scipy, nan at the poles 0 > x = -n
    and at -inf, +-inf at +-0."""
    x = _float(x)
    value = snp.multiply(_gamma_sign(x), snp.exp(gammaln(x)))
    pole = snp.logical_and(snp.less(x, 0), snp.equal(x, snp.floor(x)))
    value = snp.where(pole, math.nan, value)
    return snp.where(snp.equal(x, 0), snp.copysign(snp.asarray(math.inf, x.dtype), x), value)


def betaln(a, b):
    """log |B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b), with the large terms cancelled by
    Stirling's series where an argument is large (log_beta.py)."""
    a, b = _floats(a, b)
    # float32's lgamma terms (1.27 and 0.57 at (1 - eps, -0.5)) round into 15 ulps of the 0.69
    if a.dtype.bits < 64:
        return log_beta(a.astype("float64"), b.astype("float64")).astype(a.dtype)
    return log_beta(a, b)


def _pole(x):
    return snp.logical_and(snp.less_equal(x, 0), snp.equal(x, snp.floor(x)))


def beta(a, b):
    """The beta function Gamma(a) Gamma(b) / Gamma(a + b); +inf at the poles of Gamma(a) or
    Gamma(b) (a or b a non-positive integer), a zero of Gamma(a) Gamma(b)'s sign at those of
    Gamma(a + b) alone, as scipy."""
    a, b = _floats(a, b)
    if a.dtype.bits < 64:  # exp(betaln) multiplies float32's rounding of betaln (16) into 8 ulps
        return beta(a.astype("float64"), b.astype("float64")).astype(a.dtype)
    numerator_sign = snp.multiply(_gamma_sign(a), _gamma_sign(b))
    sign = snp.where(
        _pole(snp.add(a, b)), numerator_sign, snp.multiply(numerator_sign, _gamma_sign(snp.add(a, b)))
    )
    sign = snp.where(snp.logical_or(_pole(a), _pole(b)), 1.0, sign)
    small = (a > 0) & (b > 0) & (a < 8.0) & (b < 8.0)
    magnitude = snp.where(small, _beta_by_gammas(snp.where(small, a, 1.0), snp.where(small, b, 1.0)),
                          snp.exp(betaln(a, b)))  # fmt: skip
    mixed = _one_shape_large(a, b)
    by_ratio = _beta_by_ratio(snp.where(mixed, a, 1.0), snp.where(mixed, b, 8.0))
    return snp.multiply(sign, snp.where(mixed, by_ratio, magnitude))


def _gamma1p_product(x):
    """Gamma(1 + x) for 0 <= x < 16 as Gamma(1 + t) (t = x - n in [-1/2, 1/2], n = floor(x + 1/2), by
    lgamma1p's series) times (1 + t) ... (n + t): every factor within an ulp."""
    n = snp.floor(x + 0.5)
    t = x - n
    out = snp.exp(lgamma1p(t))
    for k in range(1, 17):
        out = out * snp.where(n >= k, t + float(k), 1.0)
    return out


def _beta_by_gammas_value(a, b):
    """B(a, b) for 0 < a, b < 8 as Gamma(1 + a) Gamma(1 + b) (a + b) / (a b Gamma(1 + a + b)), each
    Gamma a product (_gamma1p_product): exp(betaln) multiplies the rounding of the log (1000 = B(1e-3, 1)
    came out 5 ulps off)."""
    s = a + b
    # Gamma(a) / Gamma(a + b) first, then Gamma(b): a b underflows at a = b = 2.2e-308 (and XLA
    # turns s / a / b into s / (a b)), and Gamma(b) Gamma(a) overflows at (5, 2.2e-308)
    ratio = _gamma1p_product(a) / a * (s / _gamma1p_product(s))
    return ratio * (_gamma1p_product(b) / b)


def _one_shape_large(a, b):
    lo, hi = snp.minimum(a, b), snp.maximum(a, b)
    return (lo > 0) & (lo < 8.0) & (hi >= 8.0) & (hi < math.inf)


def _beta_by_ratio_value(a, b):
    """B(lo, hi) for 0 < lo < 8 <= hi < inf as Gamma(lo) hi^-lo exp(log Gamma(hi) - log Gamma(lo + hi)
    + lo log hi), the last a small Stirling difference (log_beta.gamma_ratio_log_scaled): exp(betaln)
    multiplies the rounding of a log of -46 (7 ulps at (2.5, 1e8)); Gamma(lo) as Gamma(1 + lo) / lo
    below 1, where log Gamma(lo) nears 690."""
    mixed = _one_shape_large(a, b)
    lo = snp.where(mixed, snp.minimum(a, b), 1.0)
    hi = snp.where(mixed, snp.maximum(a, b), 8.0)
    below_one = lo < 1.0
    gamma_lo = snp.where(
        below_one, snp.exp(log_gamma(lo + 1.0)) / lo, snp.exp(log_gamma(snp.where(below_one, 1.0, lo)))
    )
    return gamma_lo * snp.power(hi, -lo) * snp.exp(gamma_ratio_log_scaled(lo, hi))


def _beta_partials(value_fn):
    """B's partials B (psi(a) - psi(a + b)), B (psi(b) - psi(a + b)) by digamma_step, B itself
    the wrapped function (so the second derivatives are these partials' own): the chain rule through
    min/max sends the other shape's infinite cotangent (Gamma(lo) / lo at lo = 2.2e-308) times a zero
    slope, nan."""

    def partials(a, b):
        value = value_fn(a, b)
        return -digamma_step(a, b, value), -digamma_step(b, a, value)

    return partials


_beta_by_ratio = with_partials(
    "beta_by_ratio", _beta_by_ratio_value, _beta_partials(lambda a, b: _beta_by_ratio(a, b))
)
_beta_by_gammas = with_partials(
    "beta_by_gammas", _beta_by_gammas_value, _beta_partials(_beta_by_gammas_value)
)


def multigammaln(a, d: int):
    """The log of the multivariate gamma function of dimension d."""
    a = _float(a)
    total = d * (d - 1) / 4 * math.log(math.pi)
    for j in range(d):
        total = snp.add(gammaln(snp.subtract(a, j / 2)), total)
    return total


def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    a, x = _floats(a, x)
    return bind(tr.igamma, a, x)


def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    a, x = _floats(a, x)
    return bind(tr.igammac, a, x)


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    a, b, x = _floats(a, b, x)
    return bind(tr.betainc, a, b, x)


# -- error function and the normal distribution --------------------------------
def erfc(x):
    """1 - erf(x), accurate where erf(x) is near 1."""
    return bind(tr.erfc, _float(x))


def erfinv(y):
    """The inverse of erf on [-1, 1]."""
    return bind(erf_inv, _float(y))


def _ndtr_value(x):
    # sqrt(0.5) is correctly rounded; -1 / math.sqrt(2) is an ulp low, and erfc multiplies the
    # relative error of its argument by ~2 z**2 (14 ulps at x = -10)
    return snp.multiply(erfc(snp.multiply(x, -math.sqrt(0.5))), 0.5)


def _normal_pdf(x):
    return snp.multiply(snp.exp(snp.multiply(snp.multiply(x, x), -0.5)), 1 / math.sqrt(2 * math.pi))


_ndtr = with_partials("ndtr", _ndtr_value, lambda x: (_normal_pdf(x),))


def ndtr(x):
    """The standard normal CDF, erfc(-x / sqrt 2) / 2, with derivative exp(-x**2 / 2) / sqrt(2 pi)
    (the chain rule through erfc would square the rounded x / sqrt 2)."""
    return _ndtr(_float(x))


def ndtri(p):
    """The inverse of ndtr: the x with ndtr(x) == p, accurate in both tails (normal_quantile.py)."""
    return ndtri_of(_float(p))


def log_ndtr(x):
    """log(ndtr(x)), accurate in both tails: log1p(-ndtr(-x)) above 0, an asymptotic series far below.
    Its slope is the inverse Mills ratio ndtr'(x) / ndtr(x) (``_inverse_mills``)."""
    return _log_ndtr(_float(x))


# Below this x the inverse Mills ratio r = phi / Phi and x + r come from a continued fraction: there
# x + r is small beside r (0.1 against 10 at x = -10), and -r (x + r), the second slope of
# log_ndtr, would lose that ratio's digits to cancellation (at x = -3 it is 12: some tens of ulps
# stay above it).
_MILLS_FRACTION_BELOW = -3.0


def _mills_fraction(t):
    """(x + r, t (x + r)) at x = -t <= -3, from Laplace's continued fraction of the Mills ratio:
    x + r = 1 / (t + 2 / (t + 3 / (t + ...))), to double precision in 60 terms from t = 3 on (20
    for float32). The product is 1 / (1 + rest / t), which stays 1 at t = inf."""
    rest = snp.zeros_like(t)
    for k in range(60 if t.dtype.bits == 64 else 20, 1, -1):
        rest = snp.true_divide(float(k), snp.add(t, rest))
    x_plus_r = snp.true_divide(1.0, snp.add(t, rest))
    return x_plus_r, snp.true_divide(1.0, snp.add(1.0, snp.true_divide(rest, t)))


def _direct_mills(x):
    """r = phi(x) / Phi(x) as it stands: exact where neither underflows (x above -3 here)."""
    return snp.true_divide(_normal_pdf(x), ndtr(x))


def _tail_or_inside(x):
    """(x < -3, t = -x there (3 elsewhere), x where it is not, else 0) for the two branches."""
    tail = snp.less(x, _MILLS_FRACTION_BELOW)
    return tail, snp.negative(snp.where(tail, x, _MILLS_FRACTION_BELOW)), snp.where(tail, 0.0, x)


def _inverse_mills_value(x):
    """r(x) = ndtr'(x) / ndtr(x): direct above -3, t + (x + r) below (where phi and Phi underflow)."""
    tail, t, inside = _tail_or_inside(x)
    x_plus_r, _ = _mills_fraction(t)
    return snp.where(tail, snp.add(t, x_plus_r), _direct_mills(inside))


def _inverse_mills_slope(x):
    """r' = -r (x + r) = -(t (x + r) + (x + r)**2) below -3 (no cancellation; -1 at x = -inf)."""
    tail, t, inside = _tail_or_inside(x)
    x_plus_r, t_times = _mills_fraction(t)
    # x held at 40 above it, where r is 0 already: -0 * (inf + 0) would be nan at x = inf
    inside = snp.where(snp.greater(inside, 40.0), 40.0, inside)
    r = _direct_mills(inside)
    direct = snp.multiply(snp.negative(r), snp.add(inside, r))
    return (snp.where(tail, snp.negative(snp.add(t_times, snp.multiply(x_plus_r, x_plus_r))), direct),)


_inverse_mills = with_partials("inverse_mills", _inverse_mills_value, _inverse_mills_slope)


def _log_ndtr_value(x):
    far = -20.0 if x.dtype.bits == 64 else -10.0
    # where, not maximum/minimum: at a tie those split the gradient between x and the constant
    upper = ndtr(snp.negative(snp.where(snp.greater(x, 0), x, 0.0)))
    # log(1 - upper) where 1 - upper is exact (upper >= 1/4): XLA's float64 log_plus_one is 54 ulps
    # off at -0.40 (log_ndtr(0.25): -0.5129840754094245, not ...4305)
    exact = snp.greater_equal(upper, 0.25 if x.dtype.bits == 64 else 2.0)  # float32's log1p is fine
    positive = snp.where(
        exact,
        snp.log(snp.subtract(1.0, snp.where(exact, upper, 0.0))),
        snp.log1p(snp.negative(snp.where(exact, 0.0, upper))),
    )
    middle = snp.log(ndtr(snp.where(snp.less(x, far), far, x)))  # nan stays nan
    safe = snp.where(snp.less(x, far), x, far)
    inv_x2 = snp.true_divide(1.0, snp.multiply(safe, safe))
    # log ndtr(x) = -x^2/2 - log(-x) - log(2 pi)/2 + log(sum_k (-1)^k (2k-1)!! / x^(2k))
    series, term = 1.0, 1.0
    for k in range(1, 9):
        term = snp.multiply(snp.multiply(term, inv_x2), -(2 * k - 1))
        series = snp.add(series, term)
    tail = snp.subtract(snp.multiply(snp.multiply(safe, safe), -0.5), snp.log(snp.negative(safe)))
    tail = snp.add(snp.subtract(tail, 0.5 * math.log(2 * math.pi)), snp.log(series))
    return snp.where(snp.greater(x, 0), positive, snp.where(snp.less(x, far), tail, middle))


_log_ndtr = with_partials("log_ndtr", _log_ndtr_value, lambda x: (_inverse_mills(x),))


# -- Bessel --------------------------------------------------------------------
def i0e(x):
    """e^-|x| I0(x)."""
    return bind(tr.bessel_i0e, _float(x))


def i1e(x):
    """e^-|x| I1(x)."""
    return bind(tr.bessel_i1e, _float(x))


def _times_exp_abs(scaled, x):
    """scaled * e^|x| as two halves e^(|x|/2): finite where e^|x| alone overflows but the product does
    not (I1(88.72) = 1.4e37 in float32)."""
    half = snp.exp(snp.abs(x) * 0.5)
    return snp.multiply(snp.multiply(scaled, half), half)


def _i1_slope(x):
    """I1' = I0 - I1 / x (1/2 at 0), scaled by e^|x| in halves."""
    small = snp.abs(x) <= 1e-30
    safe = snp.where(small, 1.0, x)
    return (snp.where(small, 0.5, _times_exp_abs(i0e(safe) - i1e(safe) / safe, safe)),)


# I0 = i0e e^|x| with its derivative I1 itself, and I1's own closed-form slope: the products' chain
# rules cancel (i0e' e^|x| + sign i0e e^|x| leaves I1 = 5e-8 at x = 1e-7 to an ulp of 1) and overflow
# (e^|x| = inf where I1' = 2.7e306 is finite)
_i1_in_slope = with_partials("i1", lambda x: _times_exp_abs(i1e(x), x), _i1_slope)
_i0 = with_partials("i0", lambda x: snp.multiply(i0e(x), snp.exp(snp.abs(x))), lambda x: (_i1_in_slope(x),))


def i0(x):
    """The modified Bessel function of order 0; its derivative is I1."""
    return _i0(_float(x))


def i1(x):
    """The modified Bessel function of order 1."""
    x = _float(x)
    return snp.multiply(i1e(x), snp.exp(snp.abs(x)))


# -- information measures -----------------------------------------------------
def _xlogx_value(x):
    return snp.where(snp.equal(x, 0), 0.0, snp.multiply(x, snp.log(x)))


# x log x with its derivative log x + 1 everywhere (inf at 0, nan below, as jax)
_xlogx = with_partials("xlogx", _xlogx_value, lambda x: (snp.add(snp.log(x), 1.0),))


def entr(x):
    """-x log x; 0 at 0, -inf below 0, nan at nan; derivative -(log x + 1) (jax's)."""
    x = _float(x)
    return snp.where(snp.less(x, 0), -math.inf, snp.negative(_xlogx(x)))


def _log_ratio_value(x, y):
    """log(x / y) for x, y > 0: of the quotient where it is a normal float (exact near x == y),
    else log x - log y (the quotient would overflow, or flush to 0 as XLA's CPU code does)."""
    r = snp.true_divide(x, y)
    normal = snp.logical_and(snp.greater_equal(r, float(np.finfo(x.dtype.np).tiny)), snp.less(r, math.inf))
    return snp.where(normal, snp.log(snp.where(normal, r, 1.0)), snp.subtract(snp.log(x), snp.log(y)))


# with the partials 1/x and -1/y: the chain rule through the quotient, (1/r)(1/y), passes through a
# subnormal 1/r (flushed to 0) where r is near the largest float (x = 2, y = 1.2e-38 in float32)
_log_ratio = with_partials(
    "log_ratio",
    _log_ratio_value,
    lambda x, y: (snp.true_divide(1.0, x), snp.negative(snp.true_divide(1.0, y))),
)


# x log(x / y) with the partials log(x / y) + 1 and -x / y
_x_log_ratio = with_partials(
    "x_log_ratio",
    lambda x, y: snp.multiply(x, _log_ratio(x, y)),
    lambda x, y: (snp.add(_log_ratio(x, y), 1.0), snp.negative(snp.true_divide(x, y))),
)


def rel_entr(x, y):
    """x log(x / y) for x, y > 0; 0 at x == 0 <= y; inf elsewhere (nan at nan)."""
    x, y = _floats(x, y)
    both = snp.logical_and(snp.greater(x, 0), snp.greater(y, 0))
    value = _x_log_ratio(snp.where(both, x, 1.0), snp.where(both, y, 1.0))
    edge = snp.logical_and(snp.equal(x, 0), snp.greater_equal(y, 0))
    nan = snp.logical_or(snp.isnan(x), snp.isnan(y))
    return snp.where(both, value, snp.where(edge, 0.0, snp.where(nan, math.nan, math.inf)))


def kl_div(x, y):
    """rel_entr(x, y) - x + y: x log(x / y) - x + y for x, y > 0, y at x == 0 <= y, inf elsewhere."""
    x, y = _floats(x, y)
    return snp.add(snp.subtract(rel_entr(x, y), x), y)


_logit = with_partials(
    "logit",
    lambda p: snp.log(snp.true_divide(p, snp.subtract(1.0, p))),
    lambda p: (snp.true_divide(1.0, snp.multiply(p, snp.subtract(1.0, p))),),
)


@library()
def logit(p):
    """log(p / (1 - p)), the inverse of expit; derivative 1 / (p (1 - p)) (inf at 0 and 1, as jax)."""
    return _logit(_float(p))


def _x_log(name: str, log, argument):
    """x * log(y), 0 where x == 0 unless y is nan; partials log(y) and x / argument(y) (jax's)."""
    return with_partials(
        name,
        lambda x, y: snp.where(
            snp.logical_and(snp.equal(x, 0), snp.logical_not(snp.isnan(y))), 0.0, snp.multiply(x, log(y))
        ),
        lambda x, y: (log(y), snp.true_divide(x, argument(y))),
    )


_xlogy = _x_log("xlogy", snp.log, lambda y: y)
_xlog1py = _x_log("xlog1py", snp.log1p, lambda y: snp.add(y, 1.0))


@library()
def xlogy(x, y):
    """x * log(y), defined as 0 where x == 0 (also for y == 0; nan for y nan, as scipy)."""
    return _xlogy(*_floats(x, y))


def xlog1py(x, y):
    """x * log1p(y), defined as 0 where x == 0 (also for y == -1; nan for y nan, as scipy)."""
    return _xlog1py(*_floats(x, y))


# -- softmax and logsumexp -----------------------------------------------------
def _lse_shift(x, axes):
    shift = snp.max(x, axis=axes, keepdims=True)
    return snp.where(snp.isfinite(shift), shift, 0.0)  # all -inf (or inf) slices: no shift


def _lse_keepdims(x, axes):
    shift = _lse_shift(x, axes)
    return snp.log(snp.sum(snp.exp(snp.subtract(x, shift)), axis=axes, keepdims=True)) + shift


@library()
def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False, where=None):
    """log(sum(b * exp(a))) over ``axis`` (of the entries ``where`` selects), with a max shift.

    As jax.scipy.special.logsumexp: ``b`` scales the terms (broadcast with
    ``a``); a negative sum is nan unless ``return_sign``, which returns
    ``(log|sum|, sign(sum))``. Without b, where and return_sign its gradient
    is softmax(a), written as a custom vjp.
    """
    if b is not None or where is not None or return_sign:
        return _weighted_logsumexp(a, axis, b, keepdims, return_sign, where)
    x = _float(a)
    axes = normalize_axes(axis, x.ndim)
    out_shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape) if keepdims or i not in axes)

    def fwd(v):
        lse = _lse_keepdims(v, axes)
        return snp.reshape(lse, out_shape), (v, lse)

    def bwd(residuals, g):
        # softmax weights from the max-shifted terms: exp(v - lse) would lose the log of the
        # count where lse rounds to the max (1, not 1/2, for [max, max, ...])
        v, lse = residuals
        shifted = snp.exp(snp.subtract(v, stop_gradient(_lse_shift(v, axes))))
        weights = snp.true_divide(shifted, snp.sum(shifted, axis=axes, keepdims=True))
        return (snp.multiply(snp.reshape(g, lse.shape), weights),)

    f = custom_vjp(lambda v: fwd(v)[0])
    f.__name__ = "logsumexp"
    f.defvjp(fwd, bwd)
    return f(x)


def _weighted_logsumexp(a, axis, b, keepdims: bool, return_sign: bool, where):
    x = _float(a)
    if b is not None:
        x, b = snp.broadcast_arrays(x, snp.asarray(b, x.dtype))
    mask = None if where is None else snp.broadcast_to(snp.asarray(where, "bool"), x.shape)
    axes = normalize_axes(axis, x.ndim)
    live = x if mask is None else snp.where(mask, x, -math.inf)
    shift = snp.max(live, axis=axes, keepdims=True)
    shift = stop_gradient(snp.where(snp.isfinite(shift), shift, 0.0))  # the shift cancels: no gradient
    terms = snp.exp(snp.subtract(live, shift))
    if b is not None:
        terms = snp.multiply(terms, b)
    total = snp.sum(terms, axis=axes, keepdims=True)
    sign = snp.sign(total)
    out = snp.log(snp.abs(total)) + shift
    if not return_sign:
        out = snp.where(sign < 0, math.nan, out)
    if not keepdims:
        out, sign = snp.squeeze(out, axis=axes), snp.squeeze(sign, axis=axes)
    return (out, sign) if return_sign else out


def log_softmax(x, axis=None):
    """x - logsumexp(x, axis, keepdims=True)."""
    x = _float(x)
    shift = snp.max(x, axis=axis, keepdims=True)
    shifted = snp.subtract(x, stop_gradient(shift))  # the shift's gradient cancels: leave it out
    return snp.subtract(shifted, snp.log(snp.sum(snp.exp(shifted), axis=axis, keepdims=True)))


def softmax(x, axis=None):
    """exp(x) / sum(exp(x), axis), with a max shift."""
    x = _float(x)
    e = snp.exp(snp.subtract(x, snp.max(x, axis=axis, keepdims=True)))
    return snp.true_divide(e, snp.sum(e, axis=axis, keepdims=True))


from .bessel_j import bessel_jn  # noqa: E402
from .faddeeva import wofz  # noqa: E402
from .gamma_functions import bernoulli, boxcox, boxcox1p, comb, factorial, gammasgn, loggamma, poch  # noqa: E402
from .hypergeometric import hyp1f1, hyp2f1  # noqa: E402
from .owens_t import owens_t  # noqa: E402
from .special_integrals import dawsn, erfcx, exp1, expi, expn, fresnel, sici, spence  # noqa: E402
from .spherical_harmonics import sph_harm_y  # noqa: E402

__all__ = [
    "bernoulli", "boxcox", "boxcox1p", "comb", "factorial", "gammasgn", "loggamma", "poch",
    "dawsn", "erfcx", "exp1", "expi", "expn", "fresnel", "sici", "spence",
    "bessel_jn", "hyp1f1", "hyp2f1", "owens_t", "sph_harm_y", "wofz",
    "beta", "betainc", "betaln", "digamma", "entr", "erf", "erfc", "erfinv", "expit", "gamma", "gammainc",
    "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "kl_div", "log_ndtr", "log_softmax", "logit", "logsumexp",
    "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "rel_entr", "softmax", "xlog1py", "xlogy", "zeta",
]  # fmt: skip
