"""log(1 - exp(-u)) with its digits on both sides and its slope everywhere: one implementation
for sg.nn.log1mexp and the log tails of scipy.stats' distributions (expon's logcdf, gumbel's, pareto's)."""

from __future__ import annotations

import numpy as np

from .. import numpy_like as snp
from .partials import with_partials

# The value switches from log(-expm1(-u)) to log1p(-exp(-u)) here: measured on XLA's CPU float64,
# log1p(-y) is up to 99 ulps off for y in (0.22, 0.5) (u in (0.7, 1.5)), and the log form reaches
# 5 ulps at u = 3 and grows past it; either is within 2 ulps on its own side of 1.5
SWITCH = 1.5


def _value(u):
    far = u > _like(SWITCH, u)
    big = snp.where(far, u, _like(2.0, u))  # each branch's argument held on its own side of the switch,
    small = snp.where(far, _like(1.0, u), u)  # so the other's inf meets no zero cotangent
    out = snp.where(far, snp.log1p(-snp.exp(-big)), snp.log(-snp.expm1(-small)))
    return snp.where(u == _like(np.inf, u), _like(0.0, u), out)  # +0 at u = inf (log1p gives -0)


def _slope(u):
    """1 / expm1(u): +inf at u = +0, -inf at -0, -1 far below 0 (where the value is nan), as jax.
    Above 0 written exp(-u) / -expm1(-u), whose own derivative is finite (0) at u = inf, where
    1 / expm1(u)'s is inf / inf."""
    positive = u > _like(0.0, u)
    above = snp.where(positive, u, _like(1.0, u))
    below = snp.where(positive, _like(-1.0, u), u)
    e = snp.exp(-above)
    return (snp.where(positive, e / -snp.expm1(-above), _like(1.0, u) / snp.expm1(below)),)


def _like(value: float, x) -> np.ndarray:
    return np.asarray(value, x.dtype.np)  # a numpy scalar of x's dtype: never widens float32 math


log1mexp = with_partials("log1mexp", _value, _slope)
log1mexp.__doc__ = (
    "log(1 - exp(-u)) of a floating tensor u: nan below 0, -inf at 0, +0 at inf; slope 1 / expm1(u)."
)
