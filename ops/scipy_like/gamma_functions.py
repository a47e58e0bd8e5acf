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
from ..primitives.elementwise import stop_gradient
from .float_args import float_args as _floats
from .lgamma1p import log_gamma
from .log_beta import gamma_ratio_log
from .partials import with_partials

_gammaln = log_gamma  # the series near 1..4, where XLA's lgamma loses digits (lgamma1p.py)


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


def _widened(fn, *xs):
    """fn of float64 copies of xs, rounded to their dtype where that is narrower: exp of a gammaln
    difference multiplies the absolute error of float32's gammaln (1e-7 at 2) into relative error
    (factorial(pi) 16 ulps off), float64's rounds to the last float32 digit."""
    if xs[0].dtype.bits >= 64:
        return fn(*xs)
    return fn(*(x.astype("float64") for x in xs)).astype(xs[0].dtype)


def _integer(x):
    """Finite whole numbers."""
    return snp.isfinite(x) & (x == snp.floor(x))


def factorial(n, exact: bool = False):
    """n! = Gamma(n + 1) for real n >= 0 and 0 for n < 0 (scipy's exact=False); exact=True is not
    offered (a graph's values are fixed-width numbers)."""
    if exact:
        raise GraphError(
            located("sg.scipy.special.factorial(exact=True) is not offered: use exact=False", user_location())
        )
    (n,) = _floats(n)
    return _widened(_factorial, n)


def _factorial(n):
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
    return _widened(_comb_with_repetition if repetition else _comb, N, k)


def _comb_with_repetition(N, k):
    """C(N + k - 1, k) = Gamma(N + k) / (Gamma(k + 1) Gamma(N)) for N > 0, k >= 0 (scipy's binom,
    also for 0 < N < 1, where N + k - 1 < k), written in N and k so that N + k - 1 is never rounded;
    for an infinite k it tends to 0, 1, inf as N < 1, = 1, > 1."""
    inside = (N > 0) & (k >= 0)
    finite = inside & snp.isfinite(N) & snp.isfinite(k)
    n_safe, k_safe = snp.where(finite, N, 1.0), snp.where(finite, k, 0.0)
    value = snp.exp(_gammaln(n_safe + k_safe) - _gammaln(k_safe + 1) - _gammaln(n_safe))
    # for N < 1, Gamma(N + k) / Gamma(N) = N / (N + k) Gamma(N + k + 1) / Gamma(N + 1): no gammaln near
    # its pole at 0, whose large values (708 at N = 2e-308) would cancel
    below_one = snp.true_divide(n_safe, n_safe + k_safe) * snp.exp(
        _gammaln(n_safe + k_safe + 1) - _gammaln(k_safe + 1) - _gammaln(n_safe + 1)
    )
    value = snp.where(n_safe < 1, below_one, value)
    # large k: log Gamma(k + N) - log Gamma(k + 1) by Stirling's series, not as a difference of two
    # gammaln near 1.7e9 (k = 1e8) that keeps 8 digits
    large = k_safe >= 8
    ratio = snp.negative(
        gamma_ratio_log(snp.where(large, n_safe - 1, 0.0), snp.where(large, k_safe + 1, 8.0))
    )
    by_ratio = snp.where(
        n_safe < 1,
        n_safe * snp.exp(ratio - _gammaln(n_safe + 1)),
        snp.exp(ratio - _gammaln(n_safe)),
    )
    value = snp.where(large, by_ratio, value)
    # large N >= k: log Gamma(N + k) - log Gamma(N) by Stirling's ratio in the small k (with N - 1 as the
    # small side, its terms of N log k cancel: 1.7e-7 off at N = 1e8, k = 30)
    n_large = (n_safe >= 8) & (n_safe >= k_safe)
    by_n = snp.exp(
        snp.negative(gamma_ratio_log(snp.where(n_large, k_safe, 0.0), snp.where(n_large, n_safe, 8.0)))
        - _gammaln(k_safe + 1)
    )
    value = snp.where(n_large, by_n, value)
    # a whole k: the product of (N + j) / (j + 1), j < k, a rounding or two per factor
    short = _integer(k_safe) & (k_safe <= _SHORT)
    product = _binom_product(snp.where(short, n_safe, 1.0), snp.where(short, k_safe, 0.0), rising=True)
    value = snp.where(short, _product_value(product, value), value)
    limit = snp.where(snp.isfinite(N) & (N < 1), 0.0, snp.where(N == 1, 1.0, math.inf))
    value = snp.where(finite, value, limit)
    return snp.where((k == 0) & (N >= 0), 1.0, snp.where(inside, value, 0.0)).astype(N.dtype)


def _comb(N, k):
    inside = (k <= N) & (N >= 0) & (k >= 0)
    finite = inside & snp.isfinite(N)
    value = _binom(snp.where(finite, N, 1.0), snp.where(finite, k, 0.0))
    # large N: log Gamma(N + 1) - log Gamma(N + 1 - k) by Stirling's ratio, where the two gammaln would
    # cancel to 0 (float64 N = 3.4e38: N - k + 1 rounds to N, and the difference gave 1 / Gamma(k + 1))
    large = finite & (N >= 8) & (N - k >= 7)
    n_l, k_l = snp.where(large, N, 8.0), snp.where(large, k, 0.0)
    by_ratio = snp.exp(gamma_ratio_log(snp.negative(k_l), n_l + 1) - _gammaln(k_l + 1))
    value = snp.where(large, by_ratio, value)
    short = finite & _integer(k) & (k <= _SHORT)
    product = _binom_product(snp.where(short, N, 1.0), snp.where(short, k, 0.0))
    value = snp.where(short, _product_value(product, value), value)
    value = snp.where(finite, value, snp.where(k == 0, 1.0, math.inf))
    return snp.where(inside, value, 0.0).astype(N.dtype)


def _binom_product(N, k, rising: bool = False):
    """C(N, k) for a whole 0 <= k <= _SHORT as the product of (N - j) / (j + 1), j < k (with
    ``rising``, C(N + k - 1, k) as that of (N + j) / (j + 1)): a rounding or two per factor
    (C(1 + eps, 1) = 1 + eps), where exp of a gammaln difference carries gammaln's absolute error
    (8 ulps there)."""
    product = snp.ones_like(N)
    for j in range(_SHORT):
        product = product * snp.where(j < k, ((N + j) if rising else (N - j)) / (j + 1), 1.0)
    return product


_SHORT = 16


def _product_value(product, formula):
    """The product's value with the smooth formula's derivatives: a product over a whole m or k has
    no slope in m or k (d/dm poch(1, m) = psi(1 + m) poch(1, m), not 0). formula + (product - formula)
    is the product exactly where the two are within a factor 2 (Sterbenz); the product alone where
    the formula is not finite."""
    finite = snp.isfinite(formula)
    safe = snp.where(finite, formula, 1.0)
    carried = safe + stop_gradient(snp.where(finite, product, 1.0) - safe)
    return snp.where(finite, carried, product)


def _rising_product(z, m):
    """(z)_m for a whole |m| <= _SHORT as its product: z (z + 1) ... (z + m - 1), or 1 / ((z - 1) ...
    (z - |m|)) for m < 0 (inf where a factor is 0: a pole of Gamma(z + m)); a rounding per factor,
    where exp of a gammaln difference carries gammaln's absolute error (13 ulps at (-1 - eps, -1))."""
    product = snp.ones_like(z)
    for j in range(_SHORT):
        factor = snp.where(m > 0, z + j, z - (j + 1))
        product = product * snp.where(j < snp.abs(m), factor, 1.0)
    zero = product == 0
    inverse = 1.0 / snp.where(zero, 1.0, product)
    return snp.where(m >= 0, product, snp.where(zero, math.inf, inverse))


def poch(z, m):
    """The rising factorial (z)_m = Gamma(z + m) / Gamma(z) (1 for m == 0); where z and z + m are both
    poles of Gamma (non-positive integers), the finite limit (-1)^m Gamma(1 - z) / Gamma(1 - z - m)
    (scipy's; jax: nan); 0 where only z is a pole, inf where only z + m is; sign(Gamma(z)) inf for
    m = inf (0 for a pole z), nan for m = -inf."""
    z, m = _floats(z, m)
    return _widened(_poch, z, m)


def _poch(z, m):
    """poch's value (its docstring); a whole m where z + m rounds onto a pole and z is not whole takes
    the reflection too, which stays finite there (poch(1e-38, -1) = -1, not inf). Only there: its
    slope in m, psi(1 - z - m), is not psi(z + m) (they differ by pi cot(pi (z + m)))."""
    both = _pole(z) & _pole(z + m) & snp.isfinite(z)
    reflect = both | (_integer(m) & _pole(z + m) & snp.isfinite(z) & ~_integer(z))
    safe_z = snp.where(_pole(z), 0.5, z)
    safe_zm = snp.where(_pole(z + m), 0.5, z + m)
    regular = _sign(safe_zm) * _sign(safe_z) * snp.exp(_gammaln(safe_zm) - _gammaln(safe_z))
    regular = snp.where(_pole(z), 0.0, snp.where(_pole(z + m), math.inf, regular))
    one_minus_z = snp.where(reflect, 1 - z, 1.0)
    reflected = (
        snp.where(snp.remainder(m, 2) == 0, 1.0, -1.0)
        * _sign(one_minus_z)
        * snp.exp(_gammaln(one_minus_z) - _gammaln(snp.where(reflect, one_minus_z - m, 1.0)))
    )
    value = snp.where(reflect, reflected, regular)
    short = _integer(m) & (snp.abs(m) <= _SHORT) & snp.isfinite(z)
    product = _rising_product(snp.where(short, z, 0.5), snp.where(short, m, 0.0))
    value = snp.where(short, _product_value(product, value), value)
    value = snp.where((m == 0) & _pole(z), 1.0, value)
    # Gamma(z + m) / Gamma(z) -> sign(Gamma(z)) inf as m -> inf (0 for a pole z: (-n)_m = 0 for m > n)
    at_inf = snp.where(_pole(z), 0.0, _sign(snp.where(_pole(z), 0.5, z)) * math.inf)
    value = snp.where(m == math.inf, snp.where(snp.isfinite(z), at_inf, math.nan), value)
    return snp.where(snp.isfinite(m) | (m == math.inf), value, math.nan).astype(z.dtype)


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


def _box_cox_value(log_x, lmbda):
    """log_x * exprel(lmbda log_x), exprel(t) = expm1(t) / t: its series 1 + t/2 + t^2/6 where |t|
    is small, expm1(t) / lmbda elsewhere (which also covers an infinite log_x: x = 0 or inf)."""
    finite = snp.isfinite(log_x)
    log_finite = snp.where(finite, log_x, 0.0)
    t = lmbda * log_finite
    small = finite & (snp.abs(t) < (1e-3 if t.dtype.bits <= 32 else 1e-5))
    series = log_finite * (1 + t * (0.5 + t / 6))
    general = snp.expm1(lmbda * log_x) / snp.where(small, 1.0, lmbda)
    value = snp.where(small, series, general)
    return snp.where((lmbda == 0) & ~finite, log_x, value)


_BOX_COX_SERIES = [(k + 1) / math.factorial(k + 2) for k in range(20)]


def _box_cox_slope(log_x, lmbda):
    """The slope in lmbda, log_x^2 (t e^t - expm1(t)) / t^2, t = lmbda log_x: the series log_x^2 sum_k
    (k + 1) t^k / (k + 2)! for |t| < 1 (the closed form cancels to 6 digits at t = 1e-5; log_x^2 / 2 at
    lmbda = 0, where the chain rule through the value's where-splices gave 0 at x = 0.5 and nan at
    x = 0), 1 / lmbda^2 where t = -inf (x^lmbda -> 0), inf where t = inf."""
    finite = snp.isfinite(log_x)
    t = lmbda * snp.where((lmbda == 0) & ~finite, 0.0, log_x)
    small = finite & (snp.abs(t) < 1)
    ts = snp.where(small, t, 0.0)
    series = snp.zeros_like(ts)
    for coefficient in reversed(_BOX_COX_SERIES):
        series = series * ts + coefficient
    series = series * log_x * log_x
    safe = snp.where(small | (lmbda == 0), 1.0, lmbda)
    tg = snp.where(small | snp.isinf(t), 1.0, t)  # a stand-in where not chosen: no nan in its slope
    inverse = 1 / safe  # squared after inverting: 1 / lmbda^2's chain rule at lmbda = inf is 0 * inf
    general = (tg * snp.exp(tg) - snp.expm1(tg)) * inverse * inverse
    # where x^lmbda overflows the slope is inf, and so is its own slope in lmbda (|lmbda| inf, not a constant)
    overflow = snp.abs(snp.where(t == math.inf, lmbda, 1.0)) * math.inf  # lmbda only there: no 0 * inf
    general = snp.where(t == -math.inf, inverse * inverse, snp.where(t == math.inf, overflow, general))
    slope = snp.where(small, series, general)
    return snp.where((lmbda == 0) & ~finite, math.inf, slope)


def _base_power(log_fn, base_fn, exponent, sign: float = 1.0):
    """base^(sign (lmbda - exponent)), base = x (boxcox: by pow, exact where exp of (lmbda - 1) log x is 236 ulps
    off at x = 1.8e308) or 1 + x (boxcox1p: e^((lmbda - exponent) log1p x), which keeps a tiny x); at
    base 0 the limit from the domain's side (pow(-0, -1) would be -inf); nan for base < 0."""

    def power(x, lmbda):
        if base_fn is None:
            log_b = log_fn(x)
            inert = snp.where((lmbda == exponent) & ~snp.isfinite(log_b), 0.0, log_b)  # 0 * inf
            # from x = 1 on pow(1 + x, .): e^(y log1p x) scales the rounding of a log of 709 (236 ulps)
            big = x >= 1
            by_pow = snp.power(snp.where(big, 1 + x, 2.0), sign * (lmbda - exponent))
            return snp.where(big, by_pow, snp.exp(sign * (lmbda - exponent) * inert))
        base = base_fn(x)
        positive = snp.where(base == 0, 0.0, base)  # -0 -> +0
        return snp.where(base < 0, math.nan, snp.power(positive, sign * (lmbda - exponent)))

    return power


def _box_cox_of(log_fn, base_fn, name: str):
    """The transform of log_fn(x) (log: boxcox, log1p: boxcox1p) with closed-form partials: in x,
    base^(lmbda - 1) (x^(lmbda - 1): inf, 1 or 0 at x = 0 as lmbda <, =, > 1, where the chain rule
    x^lmbda * (1 / x) is 0 * inf), itself with the closed-form partials (lmbda - 1) base^(lmbda - 2) and
    log(base) base^(lmbda - 1) (the chain rule through 1 / x made +inf of d2/dx2 log x at x = -0); in lmbda
    _box_cox_slope."""
    first, second = _base_power(log_fn, base_fn, 1), _base_power(log_fn, base_fn, 2)
    first_inverse = _base_power(log_fn, base_fn, 1, -1.0)

    def cross(x, lmbda):
        """log(base) base^(lmbda - 1) as log(base) / base^(1 - lmbda): the product flushed the
        subnormal max^(tiny - 1) to 0 where the result, 3.9e-306, is normal; 0 at base 0 for lmbda > 1."""
        log_b = log_fn(x)
        ratio = log_b / first_inverse(x, lmbda)
        return snp.where((log_b == -math.inf) & (lmbda > 1), 0.0, ratio)

    slope_x = with_partials(
        name + "_slope",
        first,
        # (lmbda - 1) base^(lmbda - 2) is 0 at lmbda = 1 also where base^-1 is inf (x = 0)
        lambda x, lmbda: (
            snp.where(lmbda == 1, 0.0, (lmbda - 1) * second(x, lmbda)),
            cross(x, lmbda),
        ),
    )
    return with_partials(
        name,
        lambda x, lmbda: _box_cox_value(log_fn(x), lmbda),
        lambda x, lmbda: (slope_x(x, lmbda), _box_cox_slope(log_fn(x), lmbda)),
    )


_boxcox = _box_cox_of(snp.log, lambda x: x, "boxcox")
_boxcox1p = _box_cox_of(snp.log1p, None, "boxcox1p")


def boxcox(x, lmbda):
    """The Box-Cox transform (x**lmbda - 1) / lmbda, log(x) at lmbda == 0; nan for x < 0."""
    x, lmbda = _floats(x, lmbda)
    return _boxcox(*snp.broadcast_arrays(x, lmbda))


def boxcox1p(x, lmbda):
    """The Box-Cox transform of 1 + x: ((1 + x)**lmbda - 1) / lmbda, log1p(x) at lmbda == 0."""
    x, lmbda = _floats(x, lmbda)
    return _boxcox1p(*snp.broadcast_arrays(x, lmbda))


__all__ = ["bernoulli", "boxcox", "boxcox1p", "comb", "factorial", "gammasgn", "loggamma", "poch"]
