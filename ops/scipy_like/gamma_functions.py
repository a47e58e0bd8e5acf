"""scipy.special's functions of the gamma function that sg.scipy.special lacked: gammasgn,
loggamma (real), factorial, comb, poch, bernoulli; and the Box-Cox transforms boxcox, boxcox1p
(ops layer, user-facing through sg.scipy.special).

jax's formulas where they are right, scipy's values where jax's are not: loggamma(+-0) is +inf (the
limit), comb(inf, k) is inf, poch at the poles of both Gamma(z) and Gamma(z + m) is the finite
limit of the rising factorial (reflection: (-1)^m Gamma(1 - z) / Gamma(1 - z - m)). The Box-Cox
transforms are log(x) * exprel(lambda log(x)) with exprel(t) = expm1(t) / t taken from its series
near t = 0, so the value and its derivative in lambda are right at and near lambda = 0 (where
(x**lambda - 1) / lambda is 0 / 0).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ...graph import GraphError, located, user_location
from .. import numpy_like as snp
from ..primitives import transcendental as tr
from ..primitives.registry import bind
from .float_args import float_args as _floats


def _gammaln(x):
    return bind(tr.lgamma, x)


def _sign(x):
    """The sign of Gamma(x) off its poles: -1 on (-2k-1, -2k), else 1 (-0 counts as negative)."""
    negative_odd = (x < 0) & (snp.remainder(snp.floor(x), 2) != 0)
    return snp.where(negative_odd | ((x == 0) & snp.signbit(x)), -1.0, 1.0).astype(x.dtype)


def _pole(x):
    """Non-positive integers (and -inf), where Gamma has its poles."""
    return (x <= 0) & (x == snp.floor(x))


def gammasgn(x):
    """The sign of Gamma(x): +-1, -1 at -0, nan at the negative integers, -inf and nan (scipy's)."""
    (x,) = _floats(x)
    undefined = ((x < 0) & (x == snp.floor(x))) | snp.isnan(x)
    return snp.where(undefined, math.nan, _sign(x)).astype(x.dtype)


def loggamma(x):
    """The principal log of Gamma(x) for real x: log Gamma(x) for x > 0, +inf at +-0 (its limit),
    nan for x < 0 (a complex value) and at nan."""
    (x,) = _floats(x)
    value = snp.where(x == 0, math.inf, _gammaln(snp.where(x > 0, x, 1.0)))
    return snp.where((x < 0) | snp.isnan(x), math.nan, value).astype(x.dtype)


def factorial(n, exact: bool = False):
    """n! = Gamma(n + 1) for real n >= 0 and 0 for n < 0 (scipy's exact=False); exact=True is not
    offered (a graph's values are fixed-width numbers)."""
    if exact:
        raise GraphError(
            located("sg.scipy.special.factorial(exact=True) is not offered: use exact=False", user_location())
        )
    (n,) = _floats(n)
    value = snp.exp(_gammaln(snp.where(n >= 0, n + 1, 1.0)))
    return snp.where(n < 0, 0.0, snp.where(snp.isnan(n), math.nan, value)).astype(n.dtype)


def _binom(n, k):
    """C(n, k) = exp(lgamma(n+1) - lgamma(k+1) - lgamma(n-k+1)) for 0 <= k <= n, n finite."""
    return snp.exp(_gammaln(n + 1) - _gammaln(k + 1) - _gammaln(n - k + 1))


def comb(N, k, *, repetition: bool = False):
    """The number of combinations of N things taken k at a time (scipy's exact=False): 0 unless
    0 <= k <= N; with ``repetition``, C(N + k - 1, k) (1 for k == 0 and N >= 0); C(inf, k) = inf
    for k > 0, as scipy (jax: nan)."""
    N, k = _floats(N, k)
    if repetition:  # C(N + k - 1, k), inside where k <= N + k - 1, i.e. N >= 1 (exact, unlike the sum)
        inside = (N >= 1) & (k >= 0)
        finite = inside & snp.isfinite(N) & snp.isfinite(k)
        value = _binom(snp.where(finite, N + k - 1, 1.0), snp.where(finite, k, 0.0))
        value = snp.where(finite, value, math.inf)
        return snp.where((k == 0) & (N >= 0), 1.0, snp.where(inside, value, 0.0)).astype(N.dtype)
    inside = (k <= N) & (N >= 0) & (k >= 0)
    finite = inside & snp.isfinite(N)
    value = _binom(snp.where(finite, N, 1.0), snp.where(finite, k, 0.0))
    value = snp.where(finite, value, snp.where(k == 0, 1.0, math.inf))
    return snp.where(inside, value, 0.0).astype(N.dtype)


def poch(z, m):
    """The rising factorial (z)_m = Gamma(z + m) / Gamma(z) (1 for m == 0); where z and z + m are both
    poles of Gamma (non-positive integers), the finite limit (-1)^m Gamma(1 - z) / Gamma(1 - z - m)
    (scipy's; jax: nan); 0 where only z is a pole, inf where only z + m is; nan for an infinite m."""
    z, m = _floats(z, m)
    both = _pole(z) & _pole(z + m) & snp.isfinite(z)
    safe_z = snp.where(_pole(z), 0.5, z)
    safe_zm = snp.where(_pole(z + m), 0.5, z + m)
    regular = _sign(safe_zm) * _sign(safe_z) * snp.exp(_gammaln(safe_zm) - _gammaln(safe_z))
    regular = snp.where(_pole(z), 0.0, snp.where(_pole(z + m), math.inf, regular))
    one_minus_z = snp.where(both, 1 - z, 1.0)
    reflected = snp.where(snp.remainder(m, 2) == 0, 1.0, -1.0) * snp.exp(
        _gammaln(one_minus_z) - _gammaln(snp.where(both, one_minus_z - m, 1.0))
    )
    value = snp.where(both, reflected, regular)
    value = snp.where((m == 0) & _pole(z), 1.0, value)
    return snp.where(snp.isfinite(m), value, math.nan).astype(z.dtype)


def bernoulli(n: int):
    """The Bernoulli numbers B_0 ... B_n (B_1 = -1/2, scipy's convention), exact rationals rounded
    once to float32 (jax's dtype)."""
    if not isinstance(n, int | np.integer) or n < 0:
        raise GraphError(
            located(f"sg.scipy.special.bernoulli wants an int n >= 0, got {n!r}", user_location())
        )
    numbers = [Fraction(1)]
    for m in range(1, int(n) + 1):  # sum_{j<=m} C(m+1, j) B_j = 0
        numbers.append(-sum(math.comb(m + 1, j) * numbers[j] for j in range(m)) / (m + 1))
    return snp.asarray(np.array([float(b) for b in numbers], np.float32))


def _box_cox(log_x, lmbda):
    """log_x * exprel(lmbda log_x), exprel(t) = expm1(t) / t: its series 1 + t/2 + t^2/6 where |t|
    is small (so lmbda == 0 gives log_x with the right slope log_x^2 / 2 in lmbda), expm1(t) / lmbda
    elsewhere (which also covers an infinite log_x: x = 0 or inf)."""
    finite = snp.isfinite(log_x)
    log_finite = snp.where(finite, log_x, 0.0)
    t = lmbda * log_finite
    small = finite & (snp.abs(t) < (1e-3 if t.dtype.bits <= 32 else 1e-5))
    series = log_finite * (1 + t * (0.5 + t / 6))
    general = snp.expm1(lmbda * log_x) / snp.where(small, 1.0, lmbda)
    value = snp.where(small, series, general)
    return snp.where((lmbda == 0) & ~finite, log_x, value)


def boxcox(x, lmbda):
    """The Box-Cox transform (x**lmbda - 1) / lmbda, log(x) at lmbda == 0; nan for x < 0."""
    x, lmbda = _floats(x, lmbda)
    return _box_cox(snp.log(x), lmbda)


def boxcox1p(x, lmbda):
    """The Box-Cox transform of 1 + x: ((1 + x)**lmbda - 1) / lmbda, log1p(x) at lmbda == 0."""
    x, lmbda = _floats(x, lmbda)
    return _box_cox(snp.log1p(x), lmbda)


__all__ = ["bernoulli", "boxcox", "boxcox1p", "comb", "factorial", "gammasgn", "loggamma", "poch"]
