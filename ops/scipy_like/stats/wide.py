"""Float32 (and narrower) distributions computed in float64 and rounded once (ops layer).

The discrete log-pmfs add and subtract log-gamma terms far larger than their result (binom's
log-choose at n = 1e4 is ~5e3 for a log-pmf of -2; betabinom's beta ratio at b = 1e4 cancels two
~9.2 to 1e-4): in float32 each term's rounding is a whole float32 ulp of the large term, hundreds
of ulps of the result. float64 keeps those digits, and one rounding at the end leaves the result
within an ulp; the derivatives flow through the casts.
"""

from __future__ import annotations

import functools

from ... import numpy_like as snp
from ._common import floats


def in_float64(fn):
    """``fn(*args, **kwargs)`` on float64 copies of its arguments where their common float dtype is
    narrower, its result rounded back to that dtype (module docstring)."""

    @functools.wraps(fn)
    def wide(*args, **kwargs):
        names = list(kwargs)
        xs = floats(*args, *kwargs.values())
        dtype = xs[0].dtype
        if dtype.bits >= 64:
            return fn(*xs[: len(args)], **dict(zip(names, xs[len(args) :], strict=True)))
        xs = [snp.asarray(x, "float64") for x in xs]
        out = fn(*xs[: len(args)], **dict(zip(names, xs[len(args) :], strict=True)))
        return snp.asarray(out, dtype)

    return wide


__all__ = ["in_float64"]
