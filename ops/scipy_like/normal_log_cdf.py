"""The slopes of log_ndtr from the normal hazard lam = phi(x) / Phi(x) (ops layer, sg.scipy.special).

d/dx log Phi(x) = lam and d2/dx2 = -lam (x + lam). Through log(ndtr(x)) the chain rule divides by
ndtr, whose erfc(-x / sqrt 2) multiplies the rounding of its argument by x^2 (100 ulps at x = -10),
and x + lam then cancels to about 1 / |x| (another factor x^2): the second derivative was 6500 ulps
off at x = -10. Here lam = 1 / R(-x) with R(t) = Phi(-t) / phi(t) = sqrt(pi / 2) erfcx(t / sqrt 2),
and from x = -3 down lam = t + c with c = 1 / (t + 2 / (t + 3 / (t + ...))) (t = -x), so that
x + lam = c itself, without cancellation. Narrower floats take both from float64, rounded.
"""

from __future__ import annotations

import math

from .. import numpy_like as snp
from ..custom_jvp import custom_jvp
from .special_integrals import erfcx

_FRACTION_FROM = 3.0  # t = -x from which the continued fraction gives lam and x + lam
_DEPTH = 64  # its terms: a tenth of an ulp at t = 3, fewer needed further out


def _hazard_and_gap(x):
    """lam = phi(x) / Phi(x) and x + lam, for float64 x: (inf, 0) at -inf, (0, inf) at +inf."""
    t = snp.negative(x)
    far = snp.greater_equal(t, _FRACTION_FROM)
    tf = snp.where(far, t, _FRACTION_FROM)
    fraction = snp.zeros_like(tf)
    for k in range(_DEPTH, 1, -1):
        fraction = snp.true_divide(float(k), snp.add(tf, fraction))
    fraction = snp.true_divide(1.0, snp.add(tf, fraction))
    xn = snp.where(far, -_FRACTION_FROM, x)
    near = snp.true_divide(math.sqrt(2 / math.pi), erfcx(snp.multiply(xn, -math.sqrt(0.5))))
    hazard = snp.where(far, snp.add(tf, fraction), near)
    return hazard, snp.where(far, fraction, snp.add(x, near))


def with_hazard_slopes(log_cdf):
    """log_cdf (a function of a float array: log Phi) with the derivatives above. One custom_jvp of
    (log Phi, lam, x + lam): each order of derivative traces its rule once more, from the primal
    values of one call."""

    def parts(x):
        hazard, gap = _hazard_and_gap(snp.asarray(x, "float64"))
        return log_cdf(x), snp.asarray(hazard, x.dtype), snp.asarray(gap, x.dtype)

    with_slopes = custom_jvp(parts)

    @with_slopes.defjvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        value, hazard, gap = with_slopes(x)
        curvature = snp.negative(snp.multiply(hazard, gap))
        # the limits where lam (x + lam) is inf * 0: -1 at -inf, 0 at +inf
        curvature = snp.where(
            snp.equal(x, -math.inf), -1.0, snp.where(snp.equal(x, math.inf), 0.0, curvature)
        )
        tangent = (
            snp.multiply(t, hazard),
            snp.multiply(t, curvature),
            snp.multiply(t, snp.add(curvature, 1.0)),
        )
        return (value, hazard, gap), tangent

    return lambda x: with_slopes(x)[0]
