"""log Gamma(1 + t) for |t| <= 1/2 by its Taylor series (ops layer).

gammaln(1 + t) rounds 1 + t first: at t = 1e-8 (gennorm's 1 / beta at beta = 1e8) that rounding
alone is 1e-8 / 2**52 of t, and the result, about -0.577 t, keeps the absolute error of the
rounded argument (6e-17 of a 6e-9, 3.5 ulps of gennorm's log density -0.69). The series
-euler t + sum_k (-t)^k zeta(k) / k has no such step; its coefficients are the ones the incomplete
gamma lowering uses (ops/primitives/special_lowering.py), and its derivatives are the series'
own, so d/dt is -euler at t = 0 exactly.
"""

from __future__ import annotations

from .. import numpy_like as snp
from ..primitives.special_lowering import lgamma1p_coefficients


def lgamma1p(t):
    """log Gamma(1 + t) of a float Tensor with |t| <= 1/2 (Horner's rule over the series)."""
    coefficients = lgamma1p_coefficients()
    total = coefficients[-1]
    for c in coefficients[-2::-1]:
        total = snp.add(snp.multiply(total, t), c)
    return total


__all__ = ["lgamma1p"]
