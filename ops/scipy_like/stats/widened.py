"""Evaluate a float32 distribution method in float64 and round once (ops layer).

Some closed forms lose float32 digits that no rearrangement in float32 keeps: loc + scale * ppf(q)
cancels (cauchy's ppf at q = 0.9, loc = -2.5: one ulp of 3.08 is five of 0.578), exp(kappa (cos x
- 1)) multiplies cos x's rounding by kappa (vonmises), and wrapcauchy's second derivatives sum
terms 100 times their result. In float64 those losses sit far below a float32 ulp, so the rounded
result (and its derivatives, which flow through the conversions) is the float32 one to an ulp."""

from __future__ import annotations

import functools

from ....graph import dtypes
from ...numpy_like import asarray
from ...primitives.compare import convert
from ._common import floats

_NARROW = (dtypes.float16, dtypes.bfloat16, dtypes.float32)


def in_float64(fn):
    """``fn`` evaluated in float64 where its arguments' common dtype is a narrower float, the result
    converted back; float64 arguments go to ``fn`` as they are."""

    @functools.wraps(fn)
    def widened(*args, **kwargs):
        names = list(kwargs)
        values = floats(*args, *(kwargs[n] for n in names))
        given = values[0].dtype
        if given not in _NARROW:
            return fn(*args, **kwargs)
        wide = [convert(asarray(v), dtypes.float64) for v in values]
        out = fn(*wide[: len(args)], **dict(zip(names, wide[len(args) :])))
        return convert(out, given)

    return widened
