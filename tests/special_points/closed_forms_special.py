"""Closed-form derivative references for sg.scipy.special's sweep, where jax's own float64
derivatives are off: they overflow (exp(-x^2) times x at the largest float), flush (x * (1/y)),
cancel (i1e - i0e far out, x + phi/Phi far left) or mix at ties (betaln's min/max). Long double
(80-bit on x86-64) where squares of float64 values must not overflow, scipy.special's float64
functions (digamma, polygamma, i0e, i1e, log_ndtr) where they are exact enough, and asymptotic
series where a difference of them would cancel.

Each returns the leaves of a part: d1 one array per argument, d2 the Hessian's upper triangle
row by row (entries (i, j), j >= i, in the order runners.py builds them).
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import scipy.special as sp

from . import closed_forms, closed_forms_boxcox, closed_forms_integrals
from .closed_forms import _f64
from .closed_forms import quiet as _quiet

L = np.longdouble
_SQRT_PI = np.sqrt(L(np.pi))
_SQRT_2PI = np.sqrt(2 * L(np.pi))


def _ld(*xs):
    return [np.asarray(x, L) for x in xs]


def derivatives(form) -> dict:
    """The d1ref and d2ref arguments of a Sig from one of the forms below."""
    return {"d1ref": _quiet(form(1)), "d2ref": _quiet(form(2))}


# -- error function, normal distribution ----------------------------------------------------------
def erf(order: int):
    def ref(x):
        (x,) = _ld(x)
        g = 2 / _SQRT_PI * np.exp(-x * x)
        return _f64(g if order == 1 else -2 * x * g)

    return ref


def erfc(order: int):
    def ref(x):
        return [-v for v in erf(order)(x)]

    return ref


def ndtr(order: int):
    def ref(x):
        (x,) = _ld(x)
        phi = np.exp(-x * x / 2) / _SQRT_2PI
        return _f64(phi if order == 1 else -x * phi)

    return ref


def _mills_tail(t):
    """c(t) = 1 / (t + 2 / (t + 3 / (t + ...))) for t >= 5 (long double, backward): phi(t) / Phi(-t) = t + c."""
    c = np.zeros_like(t)
    for k in range(300, 1, -1):
        c = k / (t + c)
    return 1 / (t + c)


def log_ndtr(order: int):
    """d1 = lambda = phi / Phi; d2 = -lambda (x + lambda). Below -5 from the continued fraction
    (lambda = t + c, x + lambda = c with t = -x), which does not cancel."""

    def ref(x):
        x = np.asarray(x, np.float64)
        lam = np.exp(-0.5 * x * x - 0.5 * np.log(2 * np.pi) - sp.log_ndtr(x))
        near = np.where(order == 1, lam, -lam * (x + lam))
        t = np.maximum(-np.asarray(x, L), L(5))
        c = _mills_tail(t)
        far = t + c if order == 1 else -(t + c) * c
        far = np.where(np.isinf(t), np.inf if order == 1 else -1.0, far)
        return _f64(np.where(x < -5, far, near))

    return ref


def ndtri(order: int):
    """d1 = 1 / phi(x) and d2 = x / phi(x)**2 at x = ndtri(q), with 1 / phi(x) = R(|x|) / min(q, 1 - q)
    (R(t) = Phi(-t) / phi(t) = sqrt(pi / 2) erfcx(t / sqrt 2), scipy's erfcx): exp(x**2 / 2) would
    multiply the rounding of scipy's x by x**2 (about 700 ulps at q = 2.2e-308, where 1 / phi
    itself is 1.197e306). inf, and -inf / +inf, at q = 0 / 1; the product x / phi**2 overflows to
    -inf from q = 1e-154 or so."""

    def ref(q):
        q = np.asarray(q, np.float64)
        x = sp.ndtri(q)
        tail = np.minimum(q, 1 - q)  # 1 - q is exact from 1/2 on
        mills = L(math.sqrt(math.pi / 2)) * L(sp.erfcx(np.abs(x) / math.sqrt(2)))
        with np.errstate(all="ignore"):
            inv_phi = np.where(tail == 0, L(np.inf), mills / L(tail))
            value = inv_phi if order == 1 else L(x) * inv_phi * inv_phi
        return _f64(np.where((q >= 0) & (q <= 1), value, np.nan))

    return ref


# -- Bessel ---------------------------------------------------------------------------------------
def _hankel(nu: int, k: int) -> float:
    """The k-th coefficient of sqrt(2 pi x) e^-x I_nu(x) = sum_k c_k x^-k (large x)."""
    num = 1.0
    for j in range(1, k + 1):
        num *= (2 * j - 1) ** 2 - 4 * nu * nu
    return num / (math.factorial(k) * 8.0**k)


_FAR = 25.0


def _scaled_far(nu: int, order: int, ax):
    """The order-th derivative of e^-x I_nu(x) at x = ax > 25 from Hankel's expansion, term by term
    (24 terms: below 1e-19 there), in long double."""
    x = np.asarray(np.maximum(ax, _FAR), L)
    total = np.zeros_like(x)
    for k in range(24):
        p = L(k) + L(0.5)  # the power of 1 / x
        factor = [1, -p, p * (p + 1)][order]
        total = total + L(_hankel(nu, k)) * factor * x ** -(p + order)
    return total / _SQRT_2PI


def _scaled_series(nu: int, x):
    """e^-x I_nu(x) for 0 < x <= 25 from the power series of I_nu (positive terms: no cancellation)
    in long double: the derivatives below cancel up to 350x (i1e'' at x = 3), which scipy's float64
    i0e and i1e would turn into hundreds of float64 ulps."""
    term = (x / 2) ** nu / math.factorial(nu)
    total = np.zeros_like(x)
    for k in range(120):  # (25/2)^(2k) / (k! (k+nu)!) < 1e-25 of the sum beyond
        total = total + term
        term = term * (x / 2) ** 2 / ((k + 1) * (k + 1 + nu))
    return total * np.exp(-x)


def _scaled_near(nu: int, order: int, ax):
    """The same for 0 < ax <= 25 from the long-double series of i0e and i1e."""
    x = np.asarray(np.where((ax == 0) | (ax > _FAR), 1.0, ax), L)
    i0e, i1e = _scaled_series(0, x), _scaled_series(1, x)
    gap = i0e - i1e
    table = {
        (0, 0): i0e, (0, 1): -gap, (0, 2): 2 * gap - i1e / x,
        (1, 0): i1e, (1, 1): gap - i1e / x, (1, 2): -2 * gap + i1e / x - gap / x + 2 * i1e / (x * x),
    }  # fmt: skip
    return table[(nu, order)]


def _scaled(nu: int, order: int, x):
    """d^order/dx^order of e^-|x| I_nu(x), by parity from x >= 0 (nan at 0, where |x| kinks)."""
    x = np.asarray(x, np.float64)
    ax, sign = np.abs(x), np.sign(x)
    f = np.where(ax > _FAR, _scaled_far(nu, order, ax), _scaled_near(nu, order, ax))
    odd = (nu + order) % 2 == 1
    return np.where(x == 0, np.nan, sign * f if odd else f)


def _unscaled(nu: int, order: int, x):
    """d^order/dx^order of I_nu(x) = e^|x| i_nu_e(x): e^|x| (f'' + 2 s f' + f) and e^|x| (f' + s f)."""
    x = np.asarray(x, np.float64)
    s = np.sign(x)
    f = [np.asarray(_scaled(nu, k, x), L) for k in range(order + 1)]
    inner = f[1] + s * f[0] if order == 1 else f[2] + 2 * s * f[1] + f[0]
    out = np.exp(np.abs(np.asarray(x, L))) * inner
    small = np.abs(x) < 1  # near 0 the scaled sums cancel: the power series' own terms instead
    return np.where(small, _bessel_series(nu, order, x), out)


def _bessel_series(nu: int, order: int, x):
    """I_nu^(order)(x) = sum_k d^order/dx^order (x/2)^(2k+nu) / (k! (k+nu)!) for |x| < 1."""
    x = np.asarray(x, L)
    total = np.zeros_like(x)
    for k in range(20):
        n = 2 * k + nu
        coef = L(1) / (L(math.factorial(k)) * L(math.factorial(k + nu)) * L(2) ** n)
        falling = 1
        for j in range(order):
            falling *= n - j
        if falling:
            total = total + coef * falling * x ** (n - order)
    return total


def i0(order: int):
    def ref(x):
        return _f64(_unscaled(0, order, x))

    return ref


def i1(order: int):
    def ref(x):
        return _f64(_unscaled(1, order, x))

    return ref


def i0e(order: int):
    def ref(x):
        return _f64(_scaled(0, order, x))

    return ref


def i1e(order: int):
    def ref(x):
        return _f64(_scaled(1, order, x))

    return ref


# -- gamma family ---------------------------------------------------------------------------------
def gammaln(order: int):
    def ref(x):
        x = np.asarray(x, np.float64)
        return _f64(sp.digamma(x) if order == 1 else sp.polygamma(1, x))

    return ref


def digamma(order: int):
    def ref(x):
        x = np.asarray(x, np.float64)
        return _f64(sp.polygamma(order, x))

    return ref


def _polygamma_ld(m: int, x):
    """psi^(m)(x) (m >= 1) in long double: scipy's below 1e8, beyond it (-1)^(m+1) (m-1)! / x^m (1 +
    m / (2x)) (the next term is 1e-17 of it), which stays normal where scipy's 1 / x is subnormal."""
    x = np.asarray(x, np.float64)
    big = x > 1e8
    xl = np.asarray(np.where(big, x, 1e8), L)
    series = (-1) ** (m + 1) * math.factorial(m - 1) / xl**m * (1 + m / (2 * xl))
    return np.where(big, series, np.asarray(sp.polygamma(m, np.where(big, 1.0, x)), L))


def _psi_difference(n: int, x, y):
    """psi^(n)(x) - psi^(n)(x + y), in long double: for a whole 0 < |y| <= 16 by the recurrence
    psi^(n)(t + 1) = psi^(n)(t) + (-1)^n n! / t^(n+1), exactly (scipy's digamma near a pole is 1e-9
    relative off: psi(1.2e-7) - psi(-1 + 1.2e-7) came out -1.0074, not 1 / (1.2e-7 - 1)); else by its
    Taylor series in y (eight terms) where |y| < 1e-3 of x's distance to the nearest pole (the
    difference cancels: psi(10) - psi(10 + 1.2e-7) keeps 8 digits of 16, psi(-0.5) - psi(-0.5 +
    2.2e-16) 3; y psi'(x) is subnormal in float64 at y = 2.2e-308), 0 at y = 0 (not 0 * psi'(2.2e-308)
    = 0 * inf); directly elsewhere."""
    pole_distance = np.where(x > 0, x, np.abs(x - np.round(x)))
    whole = (y == np.floor(y)) & (np.abs(y) <= 16) & (y != 0)  # exact: before the series
    near = (np.abs(y) < 1e-3 * pole_distance) & ~whole
    ys = np.asarray(np.where(near, y, 0.0), L)
    xs = np.where(near, x, 1.0)
    # eight terms: at |y| = 1e-3 x the k-th is about 1e-3k of the first (four left 6e-13 of
    # psi(1.001) - psi(1))
    series = -sum(ys**k / math.factorial(k) * _polygamma_ld(n + k, xs) for k in range(1, 9))
    series = np.where(y == 0, L(0), series)
    xl, yw = np.asarray(x, L), np.where(whole, y, 0.0)
    step = (-1) ** n * math.factorial(n)
    by_steps = L(0) * xl
    for j in range(16):
        up, down = j < yw, j + 1 <= -yw
        by_steps = by_steps - np.where(up, step / np.where(up, xl + j, L(1)) ** (n + 1), L(0))
        by_steps = by_steps + np.where(down, step / np.where(down, xl - (j + 1), L(1)) ** (n + 1), L(0))
    direct = sp.polygamma(n, x) - sp.polygamma(n, x + y)
    if n <= 1:  # long double psi, psi' for positive arguments: the float64 pair's rounding (1e-15 of
        # psi(1e4) = 9.2) is 4e-11 of log(1/2) + psi(2e4) - psi(1e4) = 2.5e-5, beta.logpdf's slope
        from .closed_forms_beta import _psi, _trigamma

        positive = (x > 0) & (x + y > 0) & np.isfinite(x + y) & ~near & ~whole
        xp, cp = (
            np.asarray(np.where(positive, x, 1.0), L),
            np.where(positive, np.asarray(x, L) + np.asarray(y, L), L(2)),
        )
        fn = _psi if n == 0 else _trigamma
        direct = np.where(positive, fn(xp) - fn(cp), direct)
    return np.where(near, series, np.where(whole, by_steps, direct))


def _betaln_parts(order: int, a, b):
    """betaln's d1 (order 1) or d2 (order 2) leaves, in long double where they are small."""
    if order == 1:
        return _psi_difference(0, a, b), _psi_difference(0, b, a)
    return _psi_difference(1, a, b), -sp.polygamma(1, a + b), _psi_difference(1, b, a)


def betaln(order: int):
    """d1 = (psi(a) - psi(a + b), psi(b) - psi(a + b)); d2 = (psi'(a) - psi'(c), -psi'(c), psi'(b) - psi'(c))."""

    def ref(a, b):
        return _f64(*_betaln_parts(order, np.asarray(a, np.float64), np.asarray(b, np.float64)))

    return ref


def beta(order: int):
    """With B = beta(a, b), g = betaln's d1 and h its d2: d1 = B g, d2 = B (g_i g_j + h_ij); B is
    beta_value's and g, h stay long double (scipy's B(1e4, 2.2e-308) = 1 / b is 5.7e-15 relative
    off, and the slope -b psi'(a) of log B there is subnormal in float64)."""

    def ref(a, b):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        value = np.asarray(beta_value(a, b), L)
        g, h = _betaln_parts(1, a, b), _betaln_parts(2, a, b)
        if order == 1:
            return _f64(*(value * gi for gi in g))
        pairs = ((0, 0), (0, 1), (1, 1))
        return _f64(*(value * (g[i] * g[j] + hij) for (i, j), hij in zip(pairs, h)))

    return ref


def comb_with_repetition(n, k):
    """The value reference of comb(N, k, repetition=True): scipy's binom(N + k - 1, k) where N + k - 1
    keeps N, else (scipy's then rounds N away: 0 at N = 1e-38, k = 1e-7, where the value is N / k;
    1 at N = 1.5, k = 1.8e19, where it is 4.8e9) Gamma(N + k) / (Gamma(k + 1) Gamma(N)) as
    poch(k + 1, N - 1) / Gamma(N), or N / (N + k) poch(k + 1, N) / Gamma(N + 1) for N < 1 (no
    gammaln near its pole at 0)."""
    n, k = np.asarray(n, np.float64), np.asarray(k, np.float64)
    with np.errstate(all="ignore"):
        below_one = n / (n + k) * sp.poch(k + 1, n) / sp.gamma(n + 1)
        above_one = sp.poch(k + 1, n - 1) / sp.gamma(n)
        scipy_value = sp.comb(n, k, repetition=True)
        rounded = ((n + k - 1) - (k - 1) != n) | np.isnan(scipy_value)
    mine = rounded & (n > 0) & (k > 0) & np.isfinite(n) & np.isfinite(k)
    return np.where(mine, np.where(n < 1, below_one, above_one), scipy_value)


_EULER_LD = L("0.577215664901532860606512090082402431")


def _integral_over_one_minus_t(a, x, y):
    """J(a, x) = int_0^x t^(a-1) / (1 - t) dt (long double, a > 0, 0 < x < 1): sum_k x^(a+k) / (a + k)
    up to x = 1/2 and where a (1 - x) > 1 (to x = 0.99); -log(1 - x) - psi(a) - euler - sum_k>=1 C(a - 1,
    k) (x - 1)^k / k (the first integral less int_0^1 ((1 - u)^(a-1) - 1) / u du = -psi(a) - euler,
    from 1 - x) where a (1 - x) <= 1; nan elsewhere. y is 1 - x, passed in: x = 1 - 1.2e-38 rounds to 1."""
    from .closed_forms_beta import _psi

    a, x, y = np.asarray(a, L), np.asarray(x, L), np.asarray(y, L)
    by_powers = (x <= 0.5) | ((a * y > 1) & (x <= 0.99))
    xp = np.where(by_powers, x, L(0.5))
    powers = sum(xp ** (a + k) / (a + k) for k in range(4000))
    ys = np.where(by_powers, L(0.25), y)
    term, tail = np.ones_like(a), np.zeros_like(a)
    for k in range(1, 40):
        term = term * (a - k) * -ys / k
        tail = tail + term / k
    near_one = -np.log(ys) - _psi(a) - _EULER_LD - tail
    return np.where(by_powers, powers, np.where(a * y <= 1, near_one, L(np.nan)))


def _betainc_tiny_shape(a, b, x):
    """I_x(a, b) where a or b < 1e-20 (normal, 0 < x < 1), long double: 1 / B(a, b) = a b / (a + b) (1 + O(a b))
    and (1 - t)^(b-1) = (1 + O(b log(1 - t))) / (1 - t) make I_x(a, b) = a b / (a + b) J(a, x) for a tiny b
    (1 - the same of (b, a, 1 - x) for a tiny a)."""
    a, b, x = np.asarray(a, L), np.asarray(b, L), np.asarray(x, L)
    tiny_b = b < 1e-20
    lo, hi = np.where(tiny_b, a, b), np.where(tiny_b, b, a)
    z, z_bar = np.where(tiny_b, x, 1 - x), np.where(tiny_b, 1 - x, x)
    part = lo * hi / (lo + hi) * _integral_over_one_minus_t(lo, z, z_bar)
    return np.asarray(np.where(tiny_b, part, 1 - part), np.float64)


def betainc_value(a, b, x):
    """The value reference of betainc(a, b, x): 1/2 at x = 1/2 with a == b (finite, > 0), exact by
    the symmetry I_x(a, b) = 1 - I_(1-x)(b, a), where scipy's is not (0 at a = b = 2.2e-308);
    _betainc_tiny_shape where a normal a or b is below 1e-20 (scipy's I_(1 - 1.1e-16)(0.1, 2.2e-308) is
    0, not 1.04e-306); scipy's value elsewhere."""
    a, b, x = (np.asarray(v, np.float64) for v in (a, b, x))
    with np.errstate(all="ignore"):
        scipy_value = sp.betainc(a, b, x)
        normal = (np.minimum(a, b) >= np.finfo(np.float64).tiny) & np.isfinite(a) & np.isfinite(b)
        tiny = normal & (np.minimum(a, b) < 1e-20) & (x > 0) & (x < 1)
        ones = np.ones_like(a)
        mine = _betainc_tiny_shape(
            np.where(tiny, a, ones), np.where(tiny, b, ones), np.where(tiny, x, 0.5 * ones)
        )
        mine = np.where(np.isnan(mine), scipy_value, mine)
    symmetric = (a == b) & (a > 0) & np.isfinite(a) & (x == 0.5)
    return np.where(symmetric, 0.5, np.where(tiny, mine, scipy_value))


def _stirling_w(x):
    """log Gamma(x) - (x - 1/2) log x + x - log(2 pi) / 2 for x >= 16, long double (8 terms)."""
    t = 1 / x
    total = L(0)
    for c in _STIRLING_LD[::-1]:
        total = total * t * t + c
    return total * t


_STIRLING_LD = tuple(L(n) / L(d) for n, d in ((1, 12), (-1, 360), (1, 1260), (-1, 1680), (1, 1188), (-691, 360360),
                                             (1, 156), (-3617, 122400)))  # fmt: skip


def _betaln_ld(a, b):
    """log B(a, b) in long double where a and b are positive and finite (see betaln_value), and that
    mask."""
    from .closed_forms_beta import lgamma

    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    with np.errstate(all="ignore"):
        regular = (np.minimum(a, b) > 0) & np.isfinite(a) & np.isfinite(b)
        lo = np.asarray(np.where(regular, np.minimum(a, b), 1.0), L)
        hi = np.asarray(np.where(regular, np.maximum(a, b), 1.0), L)
        large_hi = np.where(hi >= 16, hi, L(16))
        large_lo = np.where(lo >= 16, lo, L(16))
        both = ((large_lo - L(0.5)) * -np.log1p(large_hi / large_lo) + (large_hi - L(0.5)) * -np.log1p(large_lo / large_hi)
                - np.log(large_lo + large_hi) / 2 + np.log(2 * np.arccos(L(-1))) / 2
                + _stirling_w(large_lo) + _stirling_w(large_hi) - _stirling_w(large_lo + large_hi))  # fmt: skip
        ratio = (-lo * np.log(large_hi) - (lo + large_hi - L(0.5)) * np.log1p(lo / large_hi) + lo
                 + _stirling_w(large_hi) - _stirling_w(lo + large_hi))  # fmt: skip
        small = lgamma(lo) + lgamma(hi) - lgamma(lo + hi)
        out = np.where(lo >= 16, both, np.where(hi >= 16, lgamma(lo) + ratio, small))
    return out, regular


def betaln_value(a, b):
    """The value reference of betaln(a, b): long double for positive finite shapes, with the large
    lgamma terms cancelled on paper (scipy's and jax's float64 leave 17 ulps at a = b = 1.3e154 and
    scipy's 900 at (0.5, 1e4)): with lo <= hi, c = lo + hi, Stirling's (lo - 1/2) log(lo/c) + (hi -
    1/2) log(hi/c) - log(c)/2 + log(2 pi)/2 + w(lo) + w(hi) - w(c) for lo >= 16; lgamma(lo) - lo log
    hi - (c - 1/2) log1p(lo/hi) + lo + w(hi) - w(c) for lo < 16 <= hi; the three lgamma below (long
    double, closed_forms_beta.lgamma); scipy's value elsewhere."""
    out, regular = _betaln_ld(a, b)
    with np.errstate(all="ignore"):
        scipy_value = sp.betaln(np.asarray(a, np.float64), np.asarray(b, np.float64))
    return np.where(regular, np.asarray(out, np.float64), scipy_value)


def beta_value(a, b):
    """The value reference of beta(a, b): exp of betaln_value's long double for positive finite
    shapes (scipy's exp of a float64 betaln keeps its error: 64 ulps at (2.5, 1e8)), scipy's
    value elsewhere."""
    out, regular = _betaln_ld(a, b)
    with np.errstate(all="ignore"):
        scipy_value = sp.beta(np.asarray(a, np.float64), np.asarray(b, np.float64))
        return np.where(regular, np.exp(out).astype(np.float64), scipy_value)


# -- information measures, logit ------------------------------------------------------------------
def entr(order: int):
    def ref(x):
        (x,) = _ld(x)
        return _f64(-(np.log(x) + 1) if order == 1 else -1 / x)

    return ref


def logit(order: int):
    """1 / (p (1 - p)) and its derivative (2p - 1) / (p (1 - p))^2."""

    def ref(p):
        (p,) = _ld(p)
        q = p * (1 - p)
        return _f64(1 / q if order == 1 else (2 * p - 1) / (q * q))

    return ref


def xlogy(order: int, shift: float = 0.0):
    """x log(y + shift): d1 = (log(y + s), x / (y + s)); d2 = (0, 1 / (y + s), -x / (y + s)^2)."""

    def ref(x, y):
        x, y = _ld(x, y)
        v = y + L(shift)
        log_v = np.log1p(y) if shift else np.log(v)
        if order == 1:
            return _f64(log_v, x / v)
        return _f64(np.zeros_like(x + y), 1 / v, -x / (v * v))

    return ref


def xlog1py(order: int):
    return xlogy(order, 1.0)


def rel_entr(order: int):
    """x log(x / y) for x, y > 0 (jax's edges elsewhere: partials (0, 0) at x == 0 <= y... as the
    value's branches): d1 = (log(x / y) + 1, -x / y); d2 = (1 / x, -1 / y, x / y^2)."""

    def ref(x, y):
        x, y = _ld(x, y)
        both = (x > 0) & (y > 0)
        nan = np.isnan(x) | np.isnan(y)
        if order == 1:
            d = [np.log(x) - np.log(y) + 1, -x / y]
        else:
            d = [1 / x, -1 / y, x / (y * y)]
        return _f64(*(np.where(both | nan, v, 0) for v in d))

    return ref


def kl_div(order: int):
    """rel_entr(x, y) - x + y: d1 adds (-1, 1), d2 is rel_entr's."""

    def ref(x, y):
        d = rel_entr(order)(x, y)
        return [d[0] - 1, d[1] + 1] if order == 1 else d

    return ref


# -- Owen's T --------------------------------------------------------------------------------------
_PI_DECIMAL = Decimal("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899863")


def _erfc_decimal(x: Decimal) -> Decimal:
    """erfc(x) for 0 <= x <= 8.5 from erf's power series at 90 digits (its terms reach e^(x^2) = 3e31)."""
    total, term, n = Decimal(0), x, 0
    while abs(term) > Decimal(10) ** -85:
        total += term / (2 * n + 1)
        n += 1
        term = -term * x * x / n
    return 1 - 2 * total / _PI_DECIMAL.sqrt()


def _owens_t_small_decimal(h: Decimal, a: Decimal) -> Decimal:
    """T(h, a) for 0 < a <= 1 by Owen's series (atan(a) - sum_j c_j a^(2j+1)) / (2 pi), c_j =
    (-1)^j (1 - e^(-h^2/2) sum_(i<=j) (h^2/2)^i / i!) / (2j + 1): its terms fall as a Poisson tail."""
    half_h2, t = h * h / 2, (1 - a) / (1 + a)
    # atan(a) by its series, or as pi/4 - atan(t) on 1/2 <= a <= 1 (|t| <= 1/3: a near 1 converges)
    near_one = a >= Decimal("0.5")
    atan, u = (_PI_DECIMAL / 4, -t) if near_one else (Decimal(0), a)
    power, j = u, 0
    while abs(power) > Decimal(10) ** -88:
        atan += (-1) ** j * power / (2 * j + 1)
        power, j = power * u * u, j + 1
    e, partial, poisson, power, total, j = (-half_h2).exp(), Decimal(0), Decimal(1), a, Decimal(0), 0
    while True:
        partial += poisson
        term = (-1) ** j * (1 - e * partial) / (2 * j + 1) * power
        total += term
        j += 1
        poisson, power = poisson * half_h2 / j, power * a * a
        if j > 2 * half_h2 + 20 and abs(term) < Decimal(10) ** -85:
            return (atan - total) / (2 * _PI_DECIMAL)


def owens_t_value(h, a):
    """T(h, a): scipy's, except for 0 < |h| <= 8 with 1 < |a| (inf included), where it is Owen's identity
    T(h, a) = (Phi(h) Q(ah) + Phi(ah) Q(h)) / 2 - T(ah, 1 / a) in 90-digit decimals (Q(x) = erfc(x /
    sqrt 2) / 2 by its series, T(ah, 1 / a) by Owen's; scipy's past ah = 12, where both are below
    3e-18 of the result): scipy's T(3, 2) is 0.0006749490155352169, 7 ulps above ...161 (its erfc of
    the rounded 3 / sqrt 2)."""
    h, a = np.broadcast_arrays(np.asarray(h, np.float64), np.asarray(a, np.float64))
    out = np.array(sp.owens_t(h, a), np.float64)
    with localcontext() as context:
        context.prec = 90
        for i in zip(*np.nonzero((np.abs(h) > 0) & (np.abs(h) <= 8) & (np.abs(a) > 1))):
            hd, ad = Decimal(float(abs(h[i]))), Decimal(float(abs(a[i])))
            ah = hd * ad
            q_h = _erfc_decimal(hd / Decimal(2).sqrt()) / 2
            if ah <= 12:
                q_ah = _erfc_decimal(ah / Decimal(2).sqrt()) / 2
                inner = _owens_t_small_decimal(ah, 1 / ad)
            else:
                q_ah, inner = (
                    Decimal(float(sp.ndtr(-float(ah)))),
                    Decimal(float(sp.owens_t(float(ah), float(1 / ad)))),
                )
            value = ((1 - q_h) * q_ah + (1 - q_ah) * q_h) / 2 - inner
            out[i] = float(value) * np.sign(a[i])
    return out


FORMS = {
    "erf": erf,
    "erfc": erfc,
    "ndtr": ndtr,
    "log_ndtr": log_ndtr,
    "ndtri": ndtri,
    "i0": i0,
    "i1": i1,
    "i0e": i0e,
    "i1e": i1e,
    "gammaln": gammaln,
    "digamma": digamma,
    "betaln": betaln,
    "beta": beta,
    "entr": entr,
    "logit": logit,
    "expit": closed_forms.logistic,
    "xlogy": xlogy,
    "xlog1py": xlog1py,
    "rel_entr": rel_entr,
    "kl_div": kl_div,
    **closed_forms_integrals.FORMS,
    **closed_forms_boxcox.FORMS,
}
