"""The gamma (and chi2) density itself, not exp of its log (ops layer).

exp(logpdf) keeps the rounding of a log density whose terms are far larger than the result: at
chi2's x = 2.2e-308, df = 1, -0.5 log x is 354, so the float64 density (1.3e230) is 300 ulps off;
at x = 3, df = 30 in float32 the log density -21.7 is rounded to 2e-6, 35 ulps of the density.
For a shape a < 8 and z < 600 the density is the product z^(a-1) e^-z / Gamma(a), each factor
within an ulp: pow and exp are, and Gamma(a) = Gamma(1 + t) / (t (t + 1) ... ) for a = n + t with
|t| <= 1/2 comes from lgamma1p's series times exact factors. For a >= 8 it is Stirling's form
sqrt(a / (2 pi)) exp(-bd0(a, z) - w(a)) / z, where bd0 = a log(a / z) + z - a gathers the terms
that cancel (a log z against lgamma(a): 360 and 359 at chi2's x = 3, df = 100) into one that is
small near the mode and exact-signed everywhere, and w is Stirling's correction (log_beta.py).
Elsewhere (a < 8 in the far tail, extreme scales) exp of the log density stands, as before, in
float64 for float32 arguments (wide.py), so its rounding stays below float32's resolution there too.
"""

from __future__ import annotations

import numpy as np

from ... import numpy_like as snp
from ...primitives.gamma_lowering import PSI_ASYMPTOTIC
from ..lgamma1p import lgamma1p
from ..log_beta import stirling_correction
from ..partials import with_partials
from ..special import digamma, gammaln, xlogy
from ._common import const

_SMALL_SHAPE, _FAR = 8.0, 600.0
_POWER_SHAPE = 250.0  # a^(a/2) is finite below 280


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


def _bd0(a, z):
    """a log(a / z) + z - a >= 0 without its cancellation near z = a: with v = (a - z) / (a + z) it
    is (a - z) v + 2 a (v^3 / 3 + v^5 / 5 + ...) for |v| < 1/2; directly beyond, where the terms
    no longer cancel to a small result (log a - log z: a / z overflows at z = 2.2e-308). Halves
    keep a + z finite at the largest floats."""
    half = const(0.5, z)
    v = (a * half - z * half) / (a * half + z * half)
    near = snp.abs(v) < half
    vs = snp.where(near, v, const(0.0, z))
    v2 = vs * vs
    term = const(2.0, z) * a * vs
    total = (a - z) * vs
    for j in range(1, 30):
        term = term * v2
        total = total + term / const(2.0 * j + 1.0, z)
    direct = a * (snp.log(a) - snp.log(z)) + z - a
    return snp.where(near, total, direct)


# B_2k / (2k): log a - digamma(a) = 1 / (2a) + sum_k B_2k / (2k a^2k), below 1e-19 from its 8th term on at a >= 16
_DIGAMMA_TAIL = PSI_ASYMPTOTIC[:7]
_SERIES_SHAPE = 16.0


def _log_less_digamma(a):
    """log a - digamma(a) for a >= 8 (about 1 / (2a)): by its asymptotic series from a = 16 on, where
    log a and digamma(a) would cancel to a few of their ulps (1e-15 of 0.03); directly below."""
    series = a >= const(_SERIES_SHAPE, a)
    a_s = snp.where(series, a, const(_SERIES_SHAPE, a))
    t2 = const(1.0, a) / (a_s * a_s)
    total = const(_DIGAMMA_TAIL[-1], a)
    for c in _DIGAMMA_TAIL[-2::-1]:
        total = total * t2 + const(c, a)
    by_series = const(0.5, a) / a_s + total * t2
    a_d = snp.where(series, const(_SMALL_SHAPE, a), a)
    return snp.where(series, by_series, snp.log(a_d) - digamma(a_d))


def log_stirling_density(z, a):
    """log(z^(a-1) e^-z / Gamma(a)) for a >= 8 and z within a factor 3 of a (bd0's series range), as
    the log of Stirling's form: log(a / (2 pi)) / 2 - w(a) - bd0(a, z) - log z. The plain sum
    (a - 1) log z - z - lgamma(a) keeps the rounding of terms far larger than the result (poisson's
    log-pmf at k = mu = 1e4: 9.2e4 - 1e4 - 8.2e4 = -5.5 kept 1e-11)."""
    front = const(0.5, a) * snp.log(a / const(2 * np.pi, a)) - stirling_correction(a)
    return front - _bd0(a, z) - snp.log(z)


def _stirling(halved: bool):
    """z^(a-1) e^-z / Gamma(a) for a >= 8 (``halved``: at z / 2, halved) by Stirling's Gamma(a) =
    sqrt(2 pi / a) a^a e^-a e^w(a): sqrt(a / (2 pi)) e^-w(a) / z times (z / a)^a e^a e^-z, the power
    as r^2 with r = z^(a/2) / a^(a/2) (each pow within an ulp; pow(z / a, a) would multiply z / a's
    rounding by a) where each pow is finite and normal (a <= 250, z < 700, |a log(z) / 2| < 700);
    elsewhere (the far tails of large
    shapes) exp(-bd0(a, z)) for (z / a)^a e^(a - z). Its partials are the value times the log
    density's slopes (a - 1) / z - 1 and log z - digamma(a), so the derivatives keep its digits."""
    half = 0.5 if halved else 1.0

    def value(z, a):
        zz = z * const(half, z)
        one = const(1.0, z)
        front = snp.sqrt(a / const(2 * np.pi, z)) * snp.exp(-stirling_correction(a)) / zz
        # z^(a/2) itself finite and normal: at a = 243 it overflows from z = 341 on (the density was
        # inf there), below 1 it underflows early
        half_log_power = a * const(0.5, z) * snp.log(zz)
        powers = (
            (a <= const(_POWER_SHAPE, a))
            & (zz < const(_FAR, z))
            & (snp.abs(half_log_power) < const(700.0, z))
        )
        a_p, z_p = snp.where(powers, a, one), snp.where(powers, zz, one)
        ratio = z_p ** (a_p * const(0.5, z)) / a_p ** (a_p * const(0.5, z))
        by_powers = front * ratio * snp.exp(a_p) * ratio * snp.exp(-z_p)
        by_bd0 = front * snp.exp(-_bd0(a, zz))
        return snp.where(powers, by_powers, by_bd0) * const(half, z)

    def partials(z, a):
        one, zero = const(1.0, z), const(0.0, z)
        zz = z * const(half, z)
        v = density(z, a)
        # the log slopes without their cancellation at the mode: ((a - 1) - z) / z, not (a - 1) / z - 1,
        # and log1p((z - a) / a) + (log a - digamma(a)), not log z - digamma(a) (both ~ log a)
        # where the density underflows to 0 its slopes are 0 ((a - 1) / z overflows at z = 2.2e-308)
        slope_z = snp.where(v == zero, zero, v * ((a - one - zz) / z))
        slope_a = snp.where(v == zero, zero, v * (snp.log1p((zz - a) / a) + _log_less_digamma(a)))
        return slope_z, slope_a

    density = with_partials("chi2_density_stirling" if halved else "gamma_density_stirling", value, partials)
    return density


_STIRLINGS = {False: _stirling(False), True: _stirling(True)}


def gamma_density(z, a, valid, log_pdf, scale, halved: bool = False):
    """The gamma density at z = (x - loc) / scale (shape a; ``halved``: chi2's, the gamma's at z / 2
    halved), given where the call is valid with z on the support (and the density does not
    underflow), and the log density less log(scale) (the value outside the product's and Stirling's
    ranges). Their lanes see stand-ins elsewhere, so their slopes stay finite where they are not
    taken."""
    one = const(1.0, z)
    zz = z * const(0.5, z) if halved else z
    product = valid & (z > const(0.0, z)) & (a < const(_SMALL_SHAPE, a)) & (zz < const(_FAR, z))
    # XLA folds (v / Gamma(a)) / scale into v / (Gamma(a) scale), which overflows (or its reciprocal
    # flushes) at the extreme scales: those keep exp(logpdf)
    moderate = (scale > const(1e-270, scale)) & (scale < const(1e270, scale)) if z.dtype.bits == 64 else True
    product = product & (a > const(0.0, a)) & moderate
    large = const(_SMALL_SHAPE, a)
    stirling = valid & (z > const(0.0, z)) & (a >= large) & (a < const(np.inf, a)) & moderate
    a_p = snp.where(product, a, one)
    z_p = snp.where(product, z, one)
    z_p, a_p = snp.broadcast_arrays(z_p, a_p)
    value = _PRODUCTS[halved](z_p, a_p)
    a_s = snp.where(stirling, a, large)
    z_s = snp.where(stirling, z, large)
    z_s, a_s = snp.broadcast_arrays(z_s, a_s)
    value = snp.where(stirling, _STIRLINGS[halved](z_s, a_s), value)
    taken = product | stirling
    return snp.where(taken, value / snp.where(taken, scale, one), snp.exp(log_pdf))


__all__ = ["gamma_density", "gamma_of_small", "log_stirling_density"]
