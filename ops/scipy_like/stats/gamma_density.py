"""The gamma (and chi2) density itself, not exp of its log (ops layer).

exp(logpdf) keeps the rounding of a log density whose terms are far larger than the result: at
chi2's x = 2.2e-308, df = 1, -0.5 log x is 354, so the float64 density (1.3e230) is 300 ulps off;
at x = 3, df = 30 in float32 the log density -21.7 is rounded to 2e-6, 35 ulps of the density.
For a shape a < 8 and z < 600 the density is the product z^(a-1) e^-z / Gamma(a), each factor
within an ulp: pow and exp are, and Gamma(a) = Gamma(1 + t) / (t (t + 1) ... ) for a = n + t with
|t| <= 1/2 comes from lgamma1p's series times exact factors. Elsewhere (large shapes, far tails)
exp of the log density stands, as before, in float64 for float32 arguments (wide.py), so its
rounding stays below float32's resolution there too.
"""

from __future__ import annotations

import numpy as np

from ... import numpy_like as snp
from ..lgamma1p import lgamma1p
from ..partials import with_partials
from ..special import digamma, gammaln, xlogy
from ._common import const

_SMALL_SHAPE, _FAR = 8.0, 600.0


def gamma_of_small(a):
    """Gamma(a) for 0 < a < 8: Gamma(1 + t) (t = a - n in [-1/2, 1/2), n = floor(a + 1/2)) by
    lgamma1p, divided by a and multiplied by the exact (t + 1) ... (t + n - 1) that lead from
    Gamma(1 + t) to Gamma(a) = Gamma(1 + a) / a."""
    one = const(1.0, a)
    n = snp.floor(a + const(0.5, a))
    t = a - n
    out = snp.exp(lgamma1p(t))
    for k in range(1, int(_SMALL_SHAPE) + 1):
        kk = const(float(k), a)
        out = out * snp.where(kk <= n, t + kk, one)
    return out / a


def _product(halved: bool):
    """z^(a-1) e^-z / Gamma(a) (``halved``: at z / 2, halved, with (z/2)^(a-1) as z^(a-1) 2^(1-a), as
    z / 2 flushes at the smallest normal z). Its partials are exp(log density) times the log
    density's slopes, the chain rule exp(logpdf) had before (so the derivatives stay as they were):
    the product's own chain rule forms z^(a-2), which overflows at z = 2.2e-308 where the slope is
    finite."""
    half = 0.5 if halved else 1.0

    def value(z, a):
        one = const(1.0, z)
        power = z ** (a - one)
        if halved:
            power = power * const(2.0, z) ** (one - a)
        return power * snp.exp(-z * const(half, z)) / gamma_of_small(a) * const(half, z)

    def partials(z, a):
        one = const(1.0, z)
        log_two = const(np.log(2.0) if halved else 0.0, z)
        log_density = xlogy(a - one, z) - (a - one) * log_two - z * const(half, z) - gammaln(a) - log_two
        v = snp.exp(log_density)
        # where the density underflows to 0 its slopes are 0: (a - 1) / z overflows at z = 2.2e-308
        # (0 * inf), but the density falls faster than any power of z rises
        zero = const(0.0, z)
        slope_z = snp.where(v == zero, zero, v * ((a - one) / z - const(half, z)))
        slope_a = snp.where(v == zero, zero, v * (snp.log(z) - log_two - digamma(a)))
        return slope_z, slope_a

    return with_partials("chi2_density" if halved else "gamma_density", value, partials)


_PRODUCTS = {False: _product(False), True: _product(True)}


def gamma_density(z, a, valid, log_pdf, scale, halved: bool = False):
    """The gamma density at z = (x - loc) / scale (shape a; ``halved``: chi2's, the gamma's at z / 2
    halved), given where the call is valid with z on the support, and the log density less
    log(scale) (the value outside the product's range). The product's lanes see stand-ins
    elsewhere, so its slopes stay finite where it is not taken."""
    one = const(1.0, z)
    zz = z * const(0.5, z) if halved else z
    product = valid & (z > const(0.0, z)) & (a < const(_SMALL_SHAPE, a)) & (zz < const(_FAR, z))
    # XLA folds (v / Gamma(a)) / scale into v / (Gamma(a) scale), which overflows (or its reciprocal
    # flushes) at the extreme scales: those keep exp(logpdf)
    moderate = (scale > const(1e-270, scale)) & (scale < const(1e270, scale)) if z.dtype.bits == 64 else True
    product = product & (a > const(0.0, a)) & moderate
    a_p = snp.where(product, a, one)
    z_p = snp.where(product, z, one)
    z_p, a_p = snp.broadcast_arrays(z_p, a_p)
    value = _PRODUCTS[halved](z_p, a_p)
    return snp.where(product, value / snp.where(product, scale, one), snp.exp(log_pdf))


__all__ = ["gamma_density", "gamma_of_small"]
