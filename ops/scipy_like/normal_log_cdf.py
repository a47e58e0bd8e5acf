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


def _hazard_parts(x):
    """lam = phi(x) / Phi(x), x + lam and the curvature -lam (x + lam), for float64 x. Far below,
    -lam c = -(t c + c^2) with t c = 1 / (1 + d / t), c = 1 / (t + d): t c neither flushes (c is
    subnormal at t = 1.8e308) nor meets inf * 0 at t = inf; the limits -1 at -inf, 0 at +inf."""
    t = snp.negative(x)
    far = snp.greater_equal(t, _FRACTION_FROM)
    tf = snp.where(far, t, _FRACTION_FROM)
    inner = snp.zeros_like(tf)  # d = 2 / (t + 3 / (t + ...))
    for k in range(_DEPTH, 1, -1):
        inner = snp.true_divide(float(k), snp.add(tf, inner))
    fraction = snp.true_divide(1.0, snp.add(tf, inner))
    times_t = snp.true_divide(1.0, snp.add(snp.true_divide(inner, tf), 1.0))
    far_curvature = snp.negative(snp.add(times_t, snp.multiply(fraction, fraction)))
    xn = snp.where(far, -_FRACTION_FROM, x)
    near = snp.true_divide(math.sqrt(2 / math.pi), erfcx(snp.multiply(xn, -math.sqrt(0.5))))
    near_gap = snp.add(xn, near)
    near_curvature = snp.where(snp.equal(x, math.inf), 0.0, snp.negative(snp.multiply(near, near_gap)))
    hazard = snp.where(far, snp.add(tf, fraction), near)
    gap = snp.where(far, fraction, near_gap)
    return hazard, gap, snp.where(far, far_curvature, near_curvature)


def with_hazard_slopes(log_cdf):
    """log_cdf (a function of a float array: log Phi) with the derivatives above. One custom_jvp of
    (log Phi, lam, x + lam, -lam (x + lam)): each order of derivative traces its rule once more, from the primal
    values of one call."""

    def parts(x):
        wide = _hazard_parts(snp.asarray(x, "float64"))
        return (log_cdf(x), *(snp.asarray(v, x.dtype) for v in wide))

    with_slopes = custom_jvp(parts)

    @with_slopes.defjvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        out = with_slopes(x)
        _, hazard, _, curvature = out
        # d gap = 1 + d lam; d curvature = -(lam d gap + gap d lam) by the product rule, from the
        # primal values again (third derivatives only)
        gap_slope = snp.add(curvature, 1.0)
        curvature_slope = snp.negative(
            snp.add(snp.multiply(hazard, gap_slope), snp.multiply(out[2], curvature))
        )
        slopes = (hazard, curvature, gap_slope, curvature_slope)
        return out, tuple(snp.multiply(t, v) for v in slopes)

    return lambda x: with_slopes(x)[0]
