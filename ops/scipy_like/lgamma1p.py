"""log Gamma(1 + t) for |t| <= 1/2 by its Taylor series (ops layer).

gammaln(1 + t) rounds 1 + t first: at t = 1e-8 (gennorm's 1 / beta at beta = 1e8) that rounding
alone is 1e-8 / 2**52 of t, and the result, about -0.577 t, keeps the absolute error of the
rounded argument (6e-17 of a 6e-9, 3.5 ulps of gennorm's log density -0.69). The series
-euler t + sum_k (-t)^k zeta(k) / k has no such step; its coefficients are the ones the incomplete
gamma lowering uses (ops/primitives/special_lowering.py), and its derivatives are the series'
own, so d/dt is -euler at t = 0 exactly.

log_gamma is log |Gamma(x)| through that series on [1/2, 9/2] (XLA's lgamma keeps no digit near
its zeros 1 and 2 and is 11 ulps off at 3), the primitive elsewhere; betaln's and the gamma
family's small arguments use it.
"""

from __future__ import annotations

from .. import numpy_like as snp
from ..primitives import transcendental as tr
from ..primitives.registry import bind
from ..primitives.special_lowering import lgamma1p_coefficients
from .partials import with_partials


def lgamma1p(t):
    """log Gamma(1 + t) of a float Tensor with |t| <= 1/2 (Horner's rule over the series)."""
    coefficients = lgamma1p_coefficients()
    total = coefficients[-1]
    for c in coefficients[-2::-1]:
        total = snp.add(snp.multiply(total, t), c)
    return total


def _log_gamma_value(x, shifts: int = 3):
    """log |Gamma(x)|, by the Taylor series of log Gamma(1 + a) on [1/2, shifts + 3/2] (log Gamma(n + 1 +
    a) = log((1 + a) ... (n + a)) + log Gamma(1 + a)), where XLA's float64 lgamma keeps no digit near
    its zeros (lgamma(1 + eps): 8.9e-16, not -1.3e-16) and 11 ulps at 3; the primitive elsewhere."""
    shift = snp.clip(snp.ceil(x - 0.5), 1.0, float(shifts + 1)) - 1  # 0 ... shifts; |a| <= 1/2
    near = (x >= 0.5) & (x <= shifts + 1.5)
    a = snp.where(near, x - (shift + 1), 0.0)  # exact: Sterbenz
    series = lgamma1p(a)
    factors = snp.ones_like(x)
    for j in range(1, shifts + 1):
        factors = factors * snp.where(near & (shift >= j), x - j, 1.0)
    return snp.where(near, snp.log(factors) + series, bind(tr.lgamma, x))


def _digamma_partial(x):
    return (bind(tr.digamma, x),)


# its derivative is digamma's primitive: the series' own chain rule would grow every derivative
# graph by its 55 terms. log_gamma_wide reaches 8.5 (betaln's small shapes: XLA's lgamma(5) left
# 3 ulps in beta.logpdf(0.5, 2.5, 2.5))
log_gamma = with_partials("gammaln", _log_gamma_value, _digamma_partial)
log_gamma_wide = with_partials("gammaln_wide", lambda x: _log_gamma_value(x, 7), _digamma_partial)

__all__ = ["lgamma1p", "log_gamma", "log_gamma_wide"]
