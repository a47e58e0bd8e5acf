"""A probability mass from its log whose slopes are 0, not 0 * inf = nan, where it underflows
(ops layer).

exp(logpmf)'s chain rule multiplies the mass (0 once its log is below the smallest subnormal's)
by the log's slopes, which overflow at the same points: k / mu at mu = 2.2e-308 for poisson,
(k - 1) / (1 - p) at k = 1.8e308 for geom, n / p for nbinom. There the mass is taken as 0 and its
log is evaluated at stand-in arguments (a point inside the support), so no slope overflows; an
exact 0 (a log of -inf) is not touched, but past 2^53 counts, where -inf is log k! overflowing. Its
true slopes there are below the smallest normal too (x^(k - 1) with k >= 4 at 2.2e-308), except
where the log of the mass is barely past the edge, where jax's chain rule rounds them to 0 as well.
"""

from __future__ import annotations

import numpy as np

from ... import numpy_like as snp
from ._common import const, floats

# exp of anything below this is 0 in float64 (the smallest subnormal is e^-744.4)
_LOG_UNDERFLOW = float(np.log(np.finfo(np.float64).smallest_subnormal)) - 1.0
_HUGE_COUNT = 2.0**53  # counts from here on are not whole numbers apart


def mass_of(logpmf, k_inside: float, *standins: float):
    """pmf(k, *params, loc=0) = exp(logpmf(...)), with k at loc + ``k_inside`` and the parameters at
    ``standins`` where the mass underflows."""
    count = len(standins)

    def pmf(k, *rest, **kwargs):
        params, extra = list(rest[:count]), list(rest[count:])
        loc = kwargs.get("loc", extra[0] if extra else 0.0)
        log_mass = logpmf(k, *params, *extra, **kwargs)
        (k, loc) = floats(k, loc)
        # a log of -inf is an exact 0 (k >= 1 at mu = 0), whose slope (1 at k = 1) is not 0: left as
        # it was; but past 2^53 failures it is log k! overflowing (poisson and geom at k = 1.8e308,
        # whose slopes were 0 * inf = nan)
        huge = k - loc >= const(_HUGE_COUNT, k)
        under = (log_mass < const(_LOG_UNDERFLOW, log_mass)) & ((log_mass > const(-np.inf, log_mass)) | huge)
        k = snp.where(under, loc + const(k_inside, k), k)
        params = [snp.where(under, const(s, log_mass), p) for p, s in zip(floats(*params), standins)]
        inner = logpmf(k, *params, *extra, **kwargs)
        return snp.where(under, snp.zeros_like(inner), snp.exp(inner))

    pmf.__doc__ = "the probability mass, exp(logpmf), with slopes 0 where it underflows"
    return pmf


__all__ = ["mass_of"]
