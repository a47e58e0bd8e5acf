"""Float32 (and narrower) distributions computed in float64 and rounded once (ops layer).

Some formulas lose float32 digits that no rearrangement in float32 keeps. The discrete log-pmfs
add and subtract log-gamma terms far larger than their result (binom's log-choose at n = 1e4 is
~5e3 for a log-pmf of -2; betabinom's beta ratio at b = 1e4 cancels two ~9.2 to 1e-4); loc + scale
* ppf(q) cancels (cauchy's ppf at q = 0.9, loc = -2.5: one ulp of 3.08 is five of 0.578); exp(kappa
(cos x - 1)) multiplies cos x's rounding by kappa (vonmises); wrapcauchy's second derivatives sum
terms 100 times their result. In float32 each rounding is a whole ulp of the large term, many ulps
of the result; float64 keeps those digits, and one rounding at the end leaves the result within an
ulp. The derivatives flow through the casts.

``flush_subnormals=True`` first flushes float32 subnormal arguments to (signed) zeros, as float32
arithmetic would, for densities whose float32 answer at a subnormal x is its answer at 0 (gamma,
chi2 and beta: the sweep compares with float32 jax there); XLA's convert reads the others as
zeros of their sign too (gennorm).
"""

from __future__ import annotations

import functools

import numpy as np

from ... import numpy_like as snp
from ...primitives.elementwise import stop_gradient
from ._common import floats


def in_float64(fn, *, flush_subnormals: bool = False):
    """``fn(*args, **kwargs)`` on float64 copies of its arguments where their common float dtype is
    narrower, its result rounded back to that dtype (module docstring)."""

    @functools.wraps(fn)
    def wide(*args, **kwargs):
        names = list(kwargs)
        xs = floats(*args, *kwargs.values())
        dtype = xs[0].dtype
        if dtype.bits >= 64:
            return fn(*xs[: len(args)], **dict(zip(names, xs[len(args) :], strict=True)))
        if flush_subnormals:
            xs = [_flushed(x) for x in xs]
        xs = [snp.asarray(x, "float64") for x in xs]
        out = fn(*xs[: len(args)], **dict(zip(names, xs[len(args) :], strict=True)))
        return snp.asarray(out, dtype)

    return wide


def _flushed(x):
    """``x`` with its subnormals (and zeros) made zeros of x's sign; the flushed value keeps x's own
    slope 1 (0 * x would pass a density's -inf slope at 0 on as 0 * inf = nan): x - stop_gradient(x)
    is +0 even for x = -0, so the negative side takes -(stop_gradient(x) - x), whose value is -0
    (-0 is not +0 to a density's slope: (a - 1) / x is +inf there, as in float64)."""
    tiny = np.finfo(x.dtype.np).tiny
    fixed = stop_gradient(x)
    zero = snp.where(snp.signbit(x), -(fixed - x), x - fixed)
    return snp.where(snp.abs(x) < snp.asarray(tiny, x.dtype), zero, x)


__all__ = ["in_float64"]
