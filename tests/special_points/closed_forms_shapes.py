"""Closed-form references (values and derivatives) for the angle distributions of sg.scipy.stats'
sweep, where scipy's float64 value and jax's float64 derivatives are off.

wrapcauchy: scipy and jax write the density's denominator 1 + c**2 - 2c cos x, which cancels as
c -> 1 near x = 0 and 2 pi (the digits of 1 - c are lost: 1e-10 relative error at c = 0.999 in
float64, inf at c = 1 - 2**-53 where the density is 2.9e15). Here it is (1 - c)**2 + 4c sin(x/2)**2
near those ends, evaluated in long double; 1 - c**2 is (1 - c)(1 + c).

Each form returns the leaves of a part as closed_forms_special's do (d1 one array per argument,
d2 the Hessian's upper triangle row by row).
"""

from __future__ import annotations

import numpy as np
import scipy.special
import scipy.stats

L = np.longdouble
_TWO_PI = 2 * np.arccos(L(-1))


def _f64(*xs) -> list:
    return [np.asarray(x, np.float64) for x in xs]


def _wrapcauchy_parts(x, c):
    """log density L and its partials (L_x, L_c, L_xx, L_xc, L_cc), nan for c outside (0, 1),
    and the mask of the support [0, 2 pi]."""
    x, c = np.asarray(x, L), np.asarray(c, L)
    s, cos, sin = np.sin(x / 2), np.cos(x), np.sin(x)
    near = cos > 0.5
    spread = np.where(near, (1 - c) ** 2 + 4 * c * s * s, 1 + c * c - 2 * c * cos)
    s_x, s_xx, s_xc = 2 * c * sin, 2 * c * cos, 2 * sin
    s_c = np.where(near, 4 * s * s - 2 * (1 - c), 2 * c - 2 * cos)
    log = np.log1p(-c) + np.log1p(c) - np.log(_TWO_PI) - np.log(spread)
    l_x = -s_x / spread
    l_c = -1 / (1 - c) + 1 / (1 + c) - s_c / spread
    l_xx = -s_xx / spread + (s_x / spread) ** 2
    l_xc = -s_xc / spread + s_x * s_c / spread**2
    l_cc = -1 / (1 - c) ** 2 - 1 / (1 + c) ** 2 - 2 / spread + (s_c / spread) ** 2
    bad = ~((c > 0) & (c < 1))
    parts = [np.where(bad, np.nan, v) for v in (log, l_x, l_c, l_xx, l_xc, l_cc)]
    return parts, (x >= 0) & (x <= _TWO_PI)


def wrapcauchy_value(log: bool):
    """The log density (log) or the density, -inf or 0 off the support."""

    def ref(x, c):
        with np.errstate(all="ignore"):
            (value, *_), inside = _wrapcauchy_parts(x, c)
            value = np.where(inside | np.isnan(value), value, -np.inf)
            return _f64(value if log else np.exp(value))

    return ref


def wrapcauchy(log: bool):
    """The derivative forms of the log density (log) or of the density: 0 off the support."""

    def form(order: int):
        def ref(x, c):
            with np.errstate(all="ignore"):
                (value, l_x, l_c, l_xx, l_xc, l_cc), inside = _wrapcauchy_parts(x, c)
                if log:
                    out = [l_x, l_c] if order == 1 else [l_xx, l_xc, l_cc]
                else:
                    p = np.exp(value)
                    if order == 1:
                        out = [p * l_x, p * l_c]
                    else:
                        out = [p * (l_xx + l_x * l_x), p * (l_xc + l_x * l_c), p * (l_cc + l_c * l_c)]
                return _f64(*(np.where(inside | np.isnan(v), v, 0) for v in out))

        return ref

    return form


VALUES = {"wrapcauchy.pdf": wrapcauchy_value(False), "wrapcauchy.logpdf": wrapcauchy_value(True)}
FORMS = {"wrapcauchy.pdf": wrapcauchy(False), "wrapcauchy.logpdf": wrapcauchy(True)}


# -- vonmises: log density k cos x - log(2 pi I0(k)) ----------------------------------------------
_VM_FAR = 25.0


def _log_i0_slopes(k):
    """(1 - h, -h') with h = d/dk log I0(k) = I1/I0 and -h' = -(1 - h/k - h**2), in long double: I0's and
    I1's power series below 25, Hankel's expansion of log I0 = k - log(2 pi k)/2 + log A(1/k) beyond
    (whose slopes 1 - 1/(2k) + (log A)' and 1/(2k**2) + (log A)'' do not cancel; h' itself cancels
    to 1/(2k**2) from terms of 1/k, losing the digits jax's float64 reference loses)."""
    k = np.asarray(k, L)
    near = np.where(k < _VM_FAR, k, L(1))
    t, term0, term1 = near * near / 4, np.ones_like(near), near / 2
    i0, i1 = term0.copy(), term1.copy()
    for n in range(1, 90):
        term0 = term0 * t / (n * n)
        term1 = term1 * t / (n * (n + 1))
        i0, i1 = i0 + term0, i1 + term1
    h_near = i1 / i0
    g_near = (i0 - i1) / i0
    dh_near = 1 - h_near / near - h_near * h_near
    far = np.where(k >= _VM_FAR, k, L(_VM_FAR))
    a, da, d2a, c = np.zeros_like(far), np.zeros_like(far), np.zeros_like(far), L(1)
    for n in range(30):
        if n:
            c = c * L((2 * n - 1) ** 2) / (8 * n)
        a = a + c * far**-n
        da = da - n * c * far ** -(n + 1)
        d2a = d2a + n * (n + 1) * c * far ** -(n + 2)
    g_far = 1 / (2 * far) - da / a
    dh_far = 1 / (2 * far * far) + d2a / a - (da / a) ** 2
    small = k < _VM_FAR
    return np.where(small, g_near, g_far), -np.where(small, dh_near, dh_far)


def _log_i0e(k):
    """log(e^-k I0(k)) in long double: I0's power series below 25, Hankel's expansion beyond."""
    k = np.asarray(k, L)
    near = np.where(k < _VM_FAR, k, L(1))
    t, term, i0 = near * near / 4, np.ones_like(near), np.ones_like(near)
    for n in range(1, 90):
        term = term * t / (n * n)
        i0 = i0 + term
    far = np.where(k >= _VM_FAR, k, L(_VM_FAR))
    a, c = np.ones_like(far), L(1)
    for n in range(1, 30):
        c = c * L((2 * n - 1) ** 2) / (8 * n)
        a = a + c * far**-n
    far_log = np.log(a) - np.log(2 * np.arccos(L(-1)) * far) / 2
    return np.where(k < _VM_FAR, np.log(i0) - near, far_log)


def vonmises(log: bool):
    """The derivative forms of vonmises' log density (log) or density in x and kappa; nan for
    kappa < 0 (the value's reference decides there)."""

    def form(order: int):
        def ref(x, k):
            with np.errstate(all="ignore"):
                x, k = np.asarray(x, L), np.asarray(k, L)
                g, l_kk = _log_i0_slopes(k)
                l_x, l_k = -k * np.sin(x), g - 2 * np.sin(x / 2) ** 2  # cos x - h = (1 - h) + (cos x - 1)
                l_xx, l_xk = -k * np.cos(x), -np.sin(x)
                if log:
                    out = [l_x, l_k] if order == 1 else [l_xx, l_xk, l_kk]
                else:
                    p = np.exp(-2 * k * np.sin(x / 2) ** 2 - _log_i0e(k)) / (2 * np.arccos(L(-1)))
                    if order == 1:
                        out = [p * l_x, p * l_k]
                    else:
                        out = [p * (l_xx + l_x * l_x), p * (l_xk + l_x * l_k), p * (l_kk + l_k * l_k)]
                return _f64(*(np.where(k < 0, np.nan, v) for v in out))

        return ref

    return form


FORMS.update({"vonmises.pdf": vonmises(False), "vonmises.logpdf": vonmises(True)})


# -- gennorm: cdf 1/2 + sign(x) P(1/beta, |x|**beta) / 2 ----------------------------------------------
_LD_TERMS = 4000  # terms of the long double series and fraction (each converges to 1e-19)


def _log_gamma_ld(a):
    """log Gamma(a) for a > 0 in long double: shifted up past 100 by the recurrence, then Stirling."""
    a = np.asarray(a, L)
    shift = np.zeros_like(a)
    for _ in range(100):
        small = a < 100
        shift = shift + np.where(small, np.log(np.where(small, a, 1)), 0)
        a = np.where(small, a + 1, a)
    inv = 1 / a
    series = inv * (L(1) / 12 - inv**2 * (L(1) / 360 - inv**2 * (L(1) / 1260 - inv**2 / 1680)))
    return (a - L(0.5)) * np.log(a) - a + np.log(2 * np.arccos(L(-1))) / 2 + series - shift


def _lower_upper_ld(a, y):
    """P(a, y) by its series and Q(a, y) by its fraction in long double, for 0 < a <= 200 and
    0 < y <= 1000 (arrays), and where the series is the one that converges (y < a + 1)."""
    a, y = np.asarray(a, L), np.asarray(y, L)
    prefix = np.exp(a * np.log(y) - y - _log_gamma_ld(a))
    term, total = 1 / a, 1 / a
    for n in range(1, _LD_TERMS):
        term = term * y / (a + n)
        total = total + term
    lower = prefix * total
    tiny = L(1e-300)
    b = y + 1 - a
    c, d = 1 / tiny, 1 / np.where(b == 0, tiny, b)
    h = d
    for n in range(1, _LD_TERMS):
        an, b = -n * (n - a), b + 2
        d = an * d + b
        d = 1 / np.where(d == 0, tiny, d)
        c = b + an / c
        c = np.where(c == 0, tiny, c)
        h = h * d * c
    upper = prefix * h
    return lower, upper, y < a + 1


def _upper_gamma_ld(a, y):
    """Q(a, y) in long double: 1 - the power series below a + 1, Legendre's continued fraction above
    (each to 1e-19); scipy's float64 gammaincc is 26 ulps off at (0.5, 1)."""
    lower, upper, series = _lower_upper_ld(a, y)
    return np.where(series, 1 - lower, upper)


def _gennorm_cdf(x, beta):
    """The upper tail Q/2 below 0 (scipy's 1/2 - P/2 cancels: 0.0786496035251405 at x = -1, beta = 2,
    where erfc(1)/2 is 0.07864960352514258), 1 - Q/2 above, in long double."""
    x, beta = np.asarray(x, np.float64), np.asarray(beta, np.float64)
    with np.errstate(all="ignore"):
        a, y = 1 / np.asarray(beta, L), np.abs(np.asarray(x, L)) ** np.asarray(beta, L)
        q = np.where(
            y == 0, 1, np.where(np.isinf(y), 0, _upper_gamma_ld(a, np.where((y == 0) | np.isinf(y), 1, y)))
        )
        out = np.where(x < 0, q / 2, np.where(x == 0, 0.5, 1 - q / 2))
        return np.where(beta > 0, np.asarray(out, np.float64), np.nan)


VALUES["gennorm.cdf"] = _gennorm_cdf


def _gennorm_log_density(log: bool):
    """log(beta / (2 Gamma(1/beta))) - |x|**beta, as -log 2 - log Gamma(1 + 1/beta) - |x|**beta in long
    double: scipy's float64 log(beta) - gammaln(1/beta) cancels (both 18.4 at beta = 1e8, 6e-16 off)."""

    def ref(x, beta):
        x, beta = np.asarray(x, np.float64), np.asarray(beta, np.float64)
        with np.errstate(all="ignore"):
            bl = np.asarray(np.where((beta > 0) & np.isfinite(beta), beta, 1.0), L)
            out = -np.log(L(2)) - _log_gamma_ld(1 + 1 / bl) - np.abs(np.asarray(x, L)) ** bl
            out = np.asarray(out if log else np.exp(out), np.float64)
            # beta = inf (and nan x) keep scipy's own value
            theirs = (scipy.stats.gennorm.logpdf if log else scipy.stats.gennorm.pdf)(x, beta)
            return np.where((beta > 0) & np.isfinite(beta) & ~np.isnan(x), out, theirs)

    return ref


VALUES["gennorm.logpdf"] = _gennorm_log_density(True)
VALUES["gennorm.pdf"] = _gennorm_log_density(False)


def gennorm(log: bool):
    """The derivative forms of gennorm's log density (log) or density in x and beta: with
    t = 1/beta, l = -log 2 - log Gamma(1 + t) - |x|**beta has l_beta = psi(1 + t) t**2 - |x|**beta
    log|x| (jax's float64 1/beta + psi(1/beta)/beta**2 cancels: 2e-12 off at beta = 100) and
    l_beta_beta = -t**4 psi'(1 + t) - 2 t**3 psi(1 + t) - |x|**beta log(|x|)**2; psi and psi' from scipy
    in float64, the powers in long double. nan for beta <= 0 (the value's reference decides there)."""

    def form(order: int):
        def ref(x, beta):
            with np.errstate(all="ignore"):
                x64, b64 = np.asarray(x, np.float64), np.asarray(beta, np.float64)
                t64 = 1 / b64
                psi = np.asarray(scipy.special.digamma(1 + t64), L)
                tri = np.asarray(scipy.special.polygamma(1, 1 + t64), L)
                x, b, t = np.asarray(x64, L), np.asarray(b64, L), np.asarray(t64, L)
                ax, sx = np.abs(x), np.sign(x)
                pw, lg = ax**b, np.log(ax)
                pw_lg = np.where(ax == 0, 0, pw * lg)  # |x|**beta log|x| -> 0 as x -> 0
                l_x = -b * ax ** (b - 1) * sx
                l_b = psi * t * t - pw_lg
                l_xx = -b * (b - 1) * ax ** (b - 2)
                l_xb = -sx * ax ** (b - 1) * (1 + b * lg)
                l_bb = -(t**4) * tri - 2 * t**3 * psi - np.where(ax == 0, 0, pw_lg * lg)
                if log:
                    out = [l_x, l_b] if order == 1 else [l_xx, l_xb, l_bb]
                else:
                    p = np.exp(-np.log(L(2)) - _log_gamma_ld(1 + t) - pw)
                    if order == 1:
                        out = [p * l_x, p * l_b]
                    else:
                        out = [p * (l_xx + l_x * l_x), p * (l_xb + l_x * l_b), p * (l_bb + l_b * l_b)]
                return _f64(*(np.where(b64 > 0, v, np.nan) for v in out))

        return ref

    return form


FORMS.update({"gennorm.pdf": gennorm(False), "gennorm.logpdf": gennorm(True)})
