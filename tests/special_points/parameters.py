"""The special points of distribution and special-function parameters: elementwise kinds with a
domain of their own (points.py crosses them like "x").

- "prob": a probability (q, p): 0, -0, the subnormal and smallest normal, tiny tails, eps, the
  middle, 1 - eps, 1, 1 + eps, and outside [0, 1] (-0.5, 1.5, +-inf, nan);
- "shape": a positive shape parameter (a, b, df, mu, kappa, beta, n of nbinom): 0 and -0, the
  subnormal and smallest normal, eps, 1 - eps, 1, 1 + eps, half-integers, large values up to the
  largest finite, inf, and below the domain (negative, -inf, nan);
- "ashape": "shape" without the values past 1e8 (1e4 in float32): jax's incomplete gamma loops for
  hours on them;
- "scale": a scale parameter: 1, its neighbours, -> 0 (tiny, subnormal, 0), large, inf, -1, nan;
- "loc": a location: 0, +-1, a half-integer, the largest finite, +-inf, nan;
- "count": the integer n of binom/betabinom (integer-valued floats >= 0, and 0.5, -1, inf, nan);
- "k": the integer argument of a pmf/cdf (negative, 0, small, large, non-integers, +-inf, nan);
- "angle": an angle: 0, -0, pi/2, pi, 2 pi and its neighbours, negative, large, +-inf, nan;
- "order": an integer order (polygamma's n): 0 .. 5, 10, and negative;
- "bx": the "x" points without 0 < |x| <= eps, where jax's exp1 family loops (see _bounded_x);
- "hx": the "x" points without +max, +inf, where scipy's hyp1f1 does not return (see _hyp1f1_x).

Each kind has a long list for functions of one or two arguments, a shorter one for three, and a
short one for four or more (crossed, they stay a few thousand points).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Kind:
    """A parameter kind: floating (differentiated) or integer, and its points by arity."""

    floating: bool
    points: Callable  # (dtype, arity) -> list of values


def _by_arity(long, medium, short):
    def points(dtype, arity):
        fi = np.finfo(dtype)
        chosen = long if arity <= 2 else medium if arity == 3 else short
        return chosen(fi, dtype)

    return points


def _below(dtype, v):
    return np.nextafter(dtype(v), dtype(-np.inf))


def _above(dtype, v):
    return np.nextafter(dtype(v), dtype(np.inf))


_NAN, _INF = np.nan, np.inf

PROB = _by_arity(
    lambda fi, d: [0.0, -0.0, fi.smallest_subnormal, fi.tiny, 1e-30, 1e-10, 1e-7, 1e-5, fi.eps, 0.01, 0.1,
                   0.25, 0.5, 0.75, 0.9, 0.99, 1 - 1e-7 if d == np.float64 else 0.999, _below(d, 1), 1.0,
                   _above(d, 1), -fi.tiny, -0.5, 1.5, 2.0, _INF, -_INF, _NAN],
    lambda fi, d: [0.0, fi.smallest_subnormal, fi.tiny, 1e-7, fi.eps, 0.1, 0.5, 0.9, _below(d, 1), 1.0, -0.5,
                   1.5, _NAN],
    lambda fi, d: [0.0, fi.tiny, 0.1, 0.5, _below(d, 1), 1.0, 1.5, _NAN],
)  # fmt: skip

SHAPE = _by_arity(
    lambda fi, d: [0.0, -0.0, fi.smallest_subnormal, fi.tiny, fi.eps, 1e-3, 0.1, 0.5, _below(d, 1), 1.0,
                   _above(d, 1), 1.5, 2.0, 2.5, 3.0, 5.0, 10.0, 30.0, 100.0, 1e4, 1e8, np.sqrt(fi.max), fi.max,
                   _INF, -0.5, -1.0, -2.0, -_INF, _NAN],
    lambda fi, d: [0.0, fi.tiny, 0.1, 0.5, 1.0, 2.0, 3.0, 10.0, 1e4, fi.max, _INF, -1.0, _NAN],
    lambda fi, d: [0.0, 0.5, 1.0, 2.5, 1e4, _INF, -1.0, _NAN],
)  # fmt: skip


def _bounded(points):
    def bounded(dtype, arity):
        limit = 1e8 if dtype == np.float64 else 1e4  # jax's float32 loop crawls at 1e8 too
        return [v for v in points(dtype, arity) if not (limit < abs(v) < np.inf)]

    return bounded


SCALE = _by_arity(
    lambda fi, d: [1.0, _below(d, 1), _above(d, 1), 0.5, 2.0, 1e-3, 0.0, -0.0, fi.tiny, fi.smallest_subnormal,
                   1e4, fi.max, _INF, -1.0, _NAN],
    lambda fi, d: [1.0, 0.5, 2.0, 0.0, fi.tiny, 1e4, fi.max, _INF, -1.0, _NAN],
    lambda fi, d: [1.0, 0.5, 0.0, fi.tiny, fi.max, -1.0, _NAN],
)  # fmt: skip

LOC = _by_arity(
    lambda fi, d: [0.0, -0.0, 1.0, -1.0, 2.5, -1e4, fi.max, -fi.max, _INF, -_INF, _NAN],
    lambda fi, d: [0.0, 1.0, -2.5, fi.max, _INF, -_INF, _NAN],
    lambda fi, d: [0.0, 1.0, -2.5, _INF, _NAN],
)  # fmt: skip

COUNT = _by_arity(
    lambda fi, d: [0.0, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 100.0, 1e4, 1e8, 0.5, 2.5, -1.0, _INF, _NAN],
    lambda fi, d: [0.0, 1.0, 2.0, 5.0, 20.0, 1e4, 0.5, -1.0, _INF, _NAN],
    lambda fi, d: [0.0, 1.0, 5.0, 20.0, 0.5, -1.0, _NAN],
)  # fmt: skip

K = _by_arity(
    lambda fi, d: [-2.0, -1.0, -0.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 20.0, 100.0, 1e4, 1e8, 0.5, 2.5,
                   -0.5, fi.max, _INF, -_INF, _NAN],
    lambda fi, d: [-1.0, 0.0, 1.0, 2.0, 5.0, 20.0, 1e4, 0.5, _INF, _NAN],
    lambda fi, d: [-1.0, 0.0, 1.0, 5.0, 20.0, 0.5, _INF, _NAN],
)  # fmt: skip


def _angles(fi, d, short: bool):
    two_pi = d(2 * np.pi)
    if short:
        return [0.0, 1.0, np.pi, two_pi, -1.0, 10.0, _INF, _NAN]
    return [0.0, -0.0, fi.tiny, 0.5, 1.0, np.pi / 2, np.pi, _below(d, two_pi), two_pi, _above(d, two_pi),
            -1.0, -np.pi, 3 * np.pi, 100.0, 1e4, fi.max, _INF, -_INF, _NAN]  # fmt: skip


ANGLE = _by_arity(lambda fi, d: _angles(fi, d, False), lambda fi, d: _angles(fi, d, True),
                  lambda fi, d: _angles(fi, d, True))  # fmt: skip


def _bounded_x(dtype, arity):
    """Kind "bx": the "x" points (points.float_points) without those of 0 < |x| <= eps (the
    subnormal, the smallest normal, eps). jax's exp1, expi and expn evaluate every branch on every
    point of a batch (jnp.piecewise under jnp.vectorize), and their continued fraction for x > 1 run
    at such an x does not end: a batch holding eps (float32) or the smallest normal or eps (float64)
    ran past 20 s (a lone point does not: vectorize makes it a scalar and only its own branch runs).
    Ours at those points is checked against scipy and 60-digit references in
    tests/ops/scipy_like/test_special_integrals.py."""
    from .points import float_points

    eps = np.finfo(dtype).eps
    return [v for v in float_points(dtype, arity).tolist() if not 0 < abs(v) <= eps]


def _hyp1f1_x(dtype, arity):
    """Kind "hx": the "x" points without +max and +inf. scipy's hyp1f1 (the float64 reference) does
    not return there (its C loop ran past 3 s per point, and one past 200 s, at (a, b) of "ashape"
    such as (0.5, 2), (2, 0.1), (3, 1e4); a per-point alarm cannot stop C code). Ours there (inf for
    a > 0, b > 0) is checked in tests/ops/scipy_like/test_hypergeometric.py."""
    from .points import float_points

    return [v for v in float_points(dtype, arity).tolist() if not v >= np.finfo(dtype).max]


def _finite_shape(dtype, arity):
    """Kind "fshape": "ashape" without +-inf and nan: jax's hyp2f1 (the derivatives' reference) loops
    without end at infinite or nan parameters (its float32 value at them ran past 120 s). Ours there
    is checked in tests/ops/scipy_like/test_hypergeometric.py (nan in, nan out)."""
    return [v for v in _bounded(SHAPE)(dtype, arity) if np.isfinite(v)]


def _orders(dtype, arity):
    return [0, 1, 2, 3, 4, 5, 10, -1, -2]


PARAMETER_KINDS: dict[str, Kind] = {
    "prob": Kind(True, PROB),
    "shape": Kind(True, SHAPE),
    "ashape": Kind(True, _bounded(SHAPE)),
    "scale": Kind(True, SCALE),
    "loc": Kind(True, LOC),
    "count": Kind(True, COUNT),
    "k": Kind(True, K),
    "angle": Kind(True, ANGLE),
    "order": Kind(False, _orders),
    "bx": Kind(True, _bounded_x),
    "hx": Kind(True, _hyp1f1_x),
    "fshape": Kind(True, _finite_shape),
}


def parameter_points(kind: str, float_dtype, int_dtype, arity: int) -> np.ndarray:
    """The points of a parameter kind as an array of its dtype (the family's float or int)."""
    spec = PARAMETER_KINDS[kind]
    dtype = float_dtype if spec.floating else int_dtype
    with np.errstate(all="ignore"):
        return np.array(spec.points(float_dtype, arity), np.float64).astype(dtype)
