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


def _psi_difference(n: int, x, y):
    """psi^(n)(x) - psi^(n)(x + y); by its Taylor series in y where |y| < 1e-3 |x| (the difference
    cancels: psi(10) - psi(10 + 1.2e-7) keeps 8 digits of 16); directly for x <= 0 (poles)."""
    near = (np.abs(y) < 1e-3 * np.abs(x)) & (x > 0)
    ys = np.where(near, y, 0.0)
    series = -sum(ys**k / math.factorial(k) * sp.polygamma(n + k, x) for k in range(1, 5))
    return np.where(near, series, sp.polygamma(n, x) - sp.polygamma(n, x + y))


def betaln(order: int):
    """d1 = (psi(a) - psi(a + b), psi(b) - psi(a + b)); d2 = (psi'(a) - psi'(c), -psi'(c), psi'(b) - psi'(c))."""

    def ref(a, b):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        c = a + b
        if order == 1:
            return _f64(_psi_difference(0, a, b), _psi_difference(0, b, a))
        t = sp.polygamma(1, c)
        return _f64(_psi_difference(1, a, b), -t, _psi_difference(1, b, a))

    return ref


def beta(order: int):
    """With B = beta(a, b), g = betaln's d1 and h its d2: d1 = B g, d2 = B (g_i g_j + h_ij)."""

    def ref(a, b):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        value = sp.beta(a, b)
        g, h = betaln(1)(a, b), betaln(2)(a, b)
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


def betainc_value(a, b, x):
    """The value reference of betainc(a, b, x): 1/2 at x = 1/2 with a == b (finite, > 0), exact by
    the symmetry I_x(a, b) = 1 - I_(1-x)(b, a), where scipy's is not (0 at a = b = 2.2e-308);
    scipy's value elsewhere."""
    a, b, x = (np.asarray(v, np.float64) for v in (a, b, x))
    with np.errstate(all="ignore"):
        scipy_value = sp.betainc(a, b, x)
    symmetric = (a == b) & (a > 0) & np.isfinite(a) & (x == 0.5)
    return np.where(symmetric, 0.5, scipy_value)


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
