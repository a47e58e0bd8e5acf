"""The standard normal quantile ndtri, accurate in both tails (ops layer, sg.scipy.special).

``sqrt(2) erfinv(2p - 1)`` loses all relative accuracy for small p: 2p - 1
rounds to -1 in float32 well before p reaches the tail (p = 1e-7 gave -5.2201
instead of -5.19934). Instead ndtri follows Wichura's algorithm AS 241
(PPND16, Applied Statistics 37, 1988): a rational function of
``q = p - 1/2`` near the centre, and in the tails rational functions of
``r = sqrt(-log(min(p, 1 - p)))``, which keep the small probability itself
rather than its distance from 1. Every branch is evaluated and one is
selected; each branch's input is clamped into its own range first, so the
unused branches never produce NaN.

In the tails one Newton step (with the Mills ratio R(t) = Phi(-t) / phi(t)
from erfcx) brings the rational functions' 1 to 3 ulps to within an ulp.
The derivatives are written out from the primal values: dx/dp = R(|x|) /
min(p, 1 - p) = 1 / phi(x), and d2x/dp2 = x (dx/dp)^2, so that no order of
derivative differentiates the rational functions or erfcx, and each order
traces one more copy of the rule, not a tree of them (grad(grad(ndtri))
compiles in about half a second of CPU).
"""

from __future__ import annotations

import math

from .. import numpy_like as snp
from ..custom_jvp import custom_jvp
from .special_integrals import erfcx

# (numerator, denominator) coefficients, lowest degree first; each denominator starts with 1.
_CENTRAL = (
    (3.3871328727963666080e0, 1.3314166789178437745e2, 1.9715909503065514427e3, 1.3731693765509461125e4,
     4.5921953931549871457e4, 6.7265770927008700853e4, 3.3430575583588128105e4, 2.5090809287301226727e3),
    (1.0, 4.2313330701600911252e1, 6.8718700749205790830e2, 5.3941960214247511077e3,
     2.1213794301586595867e4, 3.9307895800092710610e4, 2.8729085735721942674e4, 5.2264952788528545610e3),
)  # fmt: skip
_NEAR_TAIL = (
    (1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0, 3.64784832476320460504e0,
     1.27045825245236838258e0, 2.41780725177450611770e-1, 2.27238449892691845833e-2, 7.74545014278341407640e-4),
    (1.0, 2.05319162663775882187e0, 1.67638483018380384940e0, 6.89767334985100004550e-1,
     1.48103976427480074590e-1, 1.51986665636164571966e-2, 5.47593808499534494600e-4, 1.05075007164441684324e-9),
)  # fmt: skip
_FAR_TAIL = (
    (6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0, 2.96560571828504891230e-1,
     2.65321895265761230930e-2, 1.24266094738807843860e-3, 2.71155556874348757815e-5, 2.01033439929228813265e-7),
    (1.0, 5.99832206555887937690e-1, 1.36929880922735805310e-1, 1.48753612908506148525e-2,
     7.86869131145613259100e-4, 1.84631831751005468180e-5, 1.42151175831644588870e-7, 2.04426310338993978564e-15),
)  # fmt: skip
_CENTRAL_HALF_WIDTH = 0.425  # |p - 1/2| up to this uses the central approximation
_TAIL_SPLIT = 5.0
_TAIL_PROBABILITY = 0.075  # below this the tail branches, refined by a Newton step  # r = sqrt(-log(min(p, 1 - p))) above this uses the far-tail approximation


def _rational(coefficients, x):
    """numerator(x) / denominator(x), each by Horner's rule."""

    def poly(cs):
        acc = snp.full_like(x, cs[-1])
        for c in reversed(cs[:-1]):
            acc = snp.add(snp.multiply(acc, x), c)
        return acc

    numerator, denominator = coefficients
    return snp.true_divide(poly(numerator), poly(denominator))


def _quantile(p):
    q = snp.subtract(p, 0.5)
    central_q = snp.clip(q, -_CENTRAL_HALF_WIDTH, _CENTRAL_HALF_WIDTH)
    central = snp.multiply(central_q, _rational(_CENTRAL, snp.subtract(0.180625, snp.square(central_q))))
    tail_p = snp.minimum(p, snp.subtract(1.0, p))  # the smaller of the two tail probabilities
    # r >= sqrt(-log(1/2 - 0.425)) in the tails; clamping keeps log and sqrt finite where unused
    r = snp.sqrt(snp.negative(snp.log(snp.clip(tail_p, float(snp.finfo(p.dtype).smallest_subnormal), 0.075))))
    near = _rational(_NEAR_TAIL, snp.subtract(snp.minimum(r, _TAIL_SPLIT), 1.6))
    far = _rational(_FAR_TAIL, snp.subtract(snp.maximum(r, _TAIL_SPLIT), _TAIL_SPLIT))
    tail = snp.where(snp.less_equal(r, _TAIL_SPLIT), near, far)
    tail = snp.where(snp.less(q, 0), snp.negative(tail), tail)
    out = snp.where(snp.less_equal(snp.abs(q), _CENTRAL_HALF_WIDTH), central, tail)
    out = snp.where(snp.equal(p, 0), -math.inf, snp.where(snp.equal(p, 1), math.inf, out))
    outside = snp.logical_or(snp.less(p, 0), snp.greater(p, 1))
    return snp.where(snp.logical_or(outside, snp.isnan(p)), math.nan, out)


def _quantile_and_slope(p):
    """x = ndtri(p) and dx/dp = 1 / phi(x). The slope is R(|x|) / min(p, 1 - p) with R(t) =
    Phi(-t) / phi(t) the Mills ratio (sqrt(pi / 2) erfcx(t / sqrt 2)): p = Phi(x) exactly for the
    true x, and R is only as sensitive to x's rounding as x itself, where exp(x^2 / 2) multiplies
    its relative error by x^2 (2000 ulps at p = 2.2e-308). Narrower floats from float64, rounded: the
    float32 rational functions are up to an ulp off, which loc + scale * z can amplify (z = 5.29 at
    p = 1 - 2**-24 turned a 1-ulp error into 14 ulps of -2.5 + 0.5 z)."""
    if p.dtype.bits < 64:
        x, slope = _quantile_and_slope(snp.asarray(p, "float64"))
        return snp.asarray(x, p.dtype), snp.asarray(slope, p.dtype)
    x = _quantile(p)
    tail = snp.minimum(p, snp.subtract(1.0, p))  # 1 - p is exact from 1/2 on
    far = snp.abs(x)
    mills = snp.multiply(erfcx(snp.multiply(far, math.sqrt(0.5))), math.sqrt(math.pi / 2))
    refined = _newton_step(far, mills, tail)
    x = snp.where(snp.less(x, 0), snp.negative(refined), refined)
    # 0 and 1 (and subnormals flushed to 0): the slope's limit +inf, where R / tail is 0 / 0
    return x, snp.where(snp.equal(tail, 0), math.inf, snp.true_divide(mills, tail))


def _newton_step(a, mills, tail):
    """One Newton step on Phi(-a) = tail in the tails (tail < 0.075), where the rational functions
    are 1 to 3 ulps off: a + R(a) - tail / phi(a). Both terms are about 1 / a and each is computed
    to a few ulps (a^2 split exactly into two floats for the exp), so the step's own error is a few
    ulps of 1 / a, a fraction of an ulp of a; Newton's quadratic convergence leaves x's own error
    at (delta a)^2 a / 2, far below an ulp."""
    step = snp.less(tail, _TAIL_PROBABILITY) & snp.greater(tail, 0) & snp.isfinite(a)
    a_step = snp.where(step, a, 1.0)
    high, low = _split_square(a_step)
    quarter = snp.exp(snp.multiply(high, 0.25))  # twice, so that tail e^(a^2 / 2) never overflows
    scaled = snp.multiply(snp.multiply(snp.where(step, tail, 0.5), quarter), quarter)
    ratio = snp.multiply(snp.multiply(scaled, snp.add(snp.multiply(low, 0.5), 1.0)), math.sqrt(2 * math.pi))
    return snp.where(step, snp.add(a, snp.subtract(mills, ratio)), a)


def _split_square(a):
    """a * a as high + low, exact (Dekker's product of float64s)."""
    c = snp.multiply(a, 134217729.0)
    high = snp.subtract(c, snp.subtract(c, a))
    low = snp.subtract(a, high)
    square = snp.multiply(a, a)
    error = snp.subtract(snp.multiply(high, high), square)
    error = snp.add(snp.add(error, snp.multiply(snp.multiply(high, low), 2.0)), snp.multiply(low, low))
    return square, error


quantile_and_slope = custom_jvp(_quantile_and_slope)


@quantile_and_slope.defjvp
def _quantile_and_slope_jvp(primals, tangents):
    """(dx, ds) = (s, x s^2) dp: both from the primal outputs of one call, so each order of derivative
    traces this rule once more (not a tree of calls), and no derivative ever goes through erfcx or
    the rational functions. x s^2 is -inf at p = 0 and +inf at p = 1, the limits; narrower floats
    take it from float64 values, rounded once."""
    (p,), (t,) = primals, tangents
    x, slope = quantile_and_slope(snp.asarray(p, "float64"))
    curvature = snp.multiply(snp.multiply(x, slope), slope)
    x, slope, curvature = (snp.asarray(v, p.dtype) for v in (x, slope, curvature))
    return (x, slope), (snp.multiply(t, slope), snp.multiply(t, curvature))


def ndtri_of(p):
    """ndtri of a float array, with the derivatives of quantile_and_slope."""
    return quantile_and_slope(p)[0]
