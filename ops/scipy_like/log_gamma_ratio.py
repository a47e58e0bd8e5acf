"""log Gamma(x + m) - log Gamma(x) for x > 0 and a count m >= 0, without subtracting two log-gammas
(ops layer).

The discrete log-pmfs (nbinom's coefficient, betabinom's beta ratio) need this difference; as
gammaln(x + m) - gammaln(x) it is exact at m = 0 only if both gammaln round alike, and at x = 1e4
both are ~8e4, so float32 keeps no digit of a difference of ~10. Here:

- m = 0 is exactly 0;
- below x = 8, up to 8 factors are peeled off: log Gamma(x + m) / Gamma(x) = log(x (x+1) ...
  (x+j-1)) + log Gamma(x + m) / Gamma(x + j), j = min(m, 8) (so m = 1 is log(x), exact to an ulp);
- what is left (x + j >= 8) is Stirling's difference gamma_ratio_log (log_beta.py), whose large
  terms cancel on paper.

The value and its partials are written separately (partials.py): d/dx = psi(x + m) - psi(x),
d/dm = psi(x + m), the continuous extension in m as jax's gammaln difference has; peeled factors
would otherwise give m no slope. Non-finite or non-positive x falls back to the plain difference.
"""

from __future__ import annotations

import math

from .. import numpy_like as snp
from ..primitives import transcendental as tr
from ..primitives.registry import bind
from .log_beta import gamma_ratio_log
from .partials import with_partials

_PEEL = 8  # factors taken off below x = 8, where Stirling's series is not yet accurate


def _value(x, m):
    """The ratio's value (module docstring), x and m of one shape."""
    regular = snp.logical_and(snp.greater(x, 0.0), snp.less(x, math.inf))
    regular = snp.logical_and(regular, snp.logical_and(snp.greater_equal(m, 0.0), snp.less(m, math.inf)))
    xs, ms = snp.where(regular, x, 1.0), snp.where(regular, m, 0.0)
    small = snp.less(xs, float(_PEEL))
    product = snp.ones_like(xs)
    for j in range(_PEEL):
        factor = snp.where(snp.logical_and(small, snp.less(float(j), ms)), snp.add(xs, float(j)), 1.0)
        product = snp.multiply(product, factor)
    peeled = snp.where(small, snp.minimum(ms, float(_PEEL)), 0.0)
    rest, shifted = snp.subtract(ms, peeled), snp.add(xs, peeled)
    has_rest = snp.greater(rest, 0.0)
    tail = snp.negative(
        gamma_ratio_log(snp.where(has_rest, rest, 1.0), snp.where(has_rest, shifted, float(_PEEL)))
    )
    ratio = snp.add(snp.log(product), snp.where(has_rest, tail, 0.0))
    ratio = snp.where(snp.equal(ms, 0.0), 0.0, ratio)
    plain = snp.subtract(bind(tr.lgamma, snp.add(x, m)), bind(tr.lgamma, x))
    return snp.where(regular, ratio, plain)


def _partials(x, m):
    """psi(x + m) - psi(x) (exactly 0 at m = 0) and psi(x + m)."""
    upper = bind(tr.digamma, snp.add(x, m))
    return snp.where(snp.equal(m, 0.0), 0.0, snp.subtract(upper, bind(tr.digamma, x))), upper


_ratio = with_partials("log_gamma_ratio", _value, _partials)


def log_gamma_ratio(x, m):
    """log Gamma(x + m) - log Gamma(x) of two floats of one dtype (broadcast together)."""
    zero = snp.zeros_like(snp.add(x, m))
    return _ratio(snp.add(x, zero), snp.add(m, zero))


__all__ = ["log_gamma_ratio"]
