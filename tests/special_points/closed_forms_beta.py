"""Closed-form derivative references for the beta distribution's pdf and logpdf in (x, a, b),
where jax's float64 derivatives are off: betaln's derivatives at ties a == b (jax's min/max
formulation splits them), nan where a shape is infinite or x is off the support (a constant
-inf / 0 there, whose derivatives are 0), nan at the smallest shapes (digamma's pole).

With g = d log f and h = d2 log f (long double; the psi and psi' differences as
closed_forms_special._psi_difference, without their cancellation where a shape is tiny):
g = ((a - 1)/x - (b - 1)/(1 - x), log x - psi(a) + psi(a + b), log1p(-x) - psi(b) + psi(a + b)),
h = (-(a - 1)/x^2 - (b - 1)/(1 - x)^2, 1/x, -1/(1 - x), psi'(a + b) - psi'(a), psi'(a + b),
psi'(a + b) - psi'(b)), and for the pdf f g and f (g_i g_j + h_ij). Off the support [0, 1]
every derivative is 0; at x = 0 and 1 the formulas give the one-sided limits (nan where they
are 0 * inf or inf - inf: jax's value decides there, compare.py).
"""

from __future__ import annotations

import numpy as np
import scipy.special as sp

L = np.longdouble
_PAIRS = ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))


def _log_parts(x, a, b):
    """g (three arrays) and h (six, the Hessian's upper triangle row by row) of log f, and
    where x is on the support."""
    x, a, b = (np.asarray(v, np.float64) for v in (x, a, b))
    on = (x >= 0) & (x <= 1)
    from .closed_forms_special import _psi_difference  # that module imports this one's lgamma

    xl, al, bl = (np.asarray(v, L) for v in (np.where(on, x, 0.5), a, b))
    tri_c = sp.polygamma(1, a + b)
    u = 1 - xl
    g = [(al - 1) / xl - (bl - 1) / u, np.log(xl) - _psi_difference(0, a, b),
         np.log1p(-xl) - _psi_difference(0, b, a)]  # fmt: skip
    h = [-(al - 1) / (xl * xl) - (bl - 1) / (u * u), 1 / xl, -1 / u,
         -_psi_difference(1, a, b), L(tri_c) + 0 * xl, -_psi_difference(1, b, a)]  # fmt: skip
    return g, h, on, (xl, al, bl)


def _xlogy(k, y):
    """k log y, 0 where k is 0 (also at y = 0), in long double."""
    return np.where(k == 0, L(0), k * np.log(y))


def _off(on, parts):
    return [np.asarray(np.where(on, p, 0.0), np.float64) for p in parts]


def logpdf(order: int):
    def ref(x, a, b):
        with np.errstate(all="ignore"):
            g, h, on, _ = _log_parts(x, a, b)
            return _off(on, g if order == 1 else h)

    return ref


def _log_beta(a, b):
    """log B(a, b): long double for positive finite shapes (scipy's float64 betaln(2.2e-308, 10) = 708.4
    rounds 1e-13 into the density), scipy's elsewhere."""
    from .closed_forms_special import _betaln_ld

    out, regular = _betaln_ld(a, b)
    return np.where(regular, out, L(sp.betaln(a, b)))


def pdf(order: int):
    def ref(x, a, b):
        with np.errstate(all="ignore"):
            g, h, on, (xl, al, bl) = _log_parts(x, a, b)
            log_f = _xlogy(al - 1, xl) + _xlogy(bl - 1, 1 - xl) - _log_beta(a, b)
            f = np.exp(np.asarray(log_f, L))
            if order == 1:
                return _off(on, [f * gi for gi in g])
            return _off(on, [f * (g[i] * g[j] + hij) for (i, j), hij in zip(_PAIRS, h)])

    return ref


# -- values ----------------------------------------------------------------------------------------
# B_2k / (2k (2k - 1)), k = 1 .. 8: Stirling's correction, below 1e-19 from x = 16 on
_STIRLING = (L(1) / 12, L(-1) / 360, L(1) / 1260, L(-1) / 1680, L(1) / 1188, L(-691) / 360360, L(1) / 156,
             L(-3617) / 122400)  # fmt: skip
_PI = 4 * np.arctan(L(1))  # pi to long double (L(np.pi) is float64's pi, 1e-16 off)
_HALF_LOG_2PI = np.log(2 * _PI) / 2


def lgamma(x):
    """log Gamma(x) for x > 0 in long double: Stirling's series at x + n >= 16, less the logs of the
    n factors below (recurrence)."""
    x = np.asarray(x, L)
    shift = np.zeros_like(x)
    for k in range(16):
        shift = shift + np.where(x + k < 16, np.log(x + k), L(0))
    y = x + np.maximum(np.ceil(16 - x), 0)
    t = 1 / y
    w = L(0)
    for c in _STIRLING[::-1]:
        w = w * t * t + c
    out = (y - L(0.5)) * np.log(y) - y + _HALF_LOG_2PI + w * t - shift
    return np.where((x == 1) | (x == 2), L(0), out)  # exact zeros where the series leaves 1e-18


def _scipy(name: str, method: str):
    """scipy.stats' float64 value of name.method, boost's overflow errors handled point by point as
    the table's own reference does (signatures_stats._scipy_ref)."""
    from .signatures_stats import _scipy_ref  # the table imports this module

    return _scipy_ref(lambda xp, *args: getattr(getattr(xp.stats, name), method)(*args))


def _beta_value(log: bool):
    """The value reference of beta.pdf / logpdf(x, a, b[, loc, scale]): long double on the regular
    points (finite shapes, 0 <= z <= 1: scipy's boost rounds beta.pdf(1, 10, 1) = 10 to 9.999996 and
    loses 1e-11 of the peak at a = b = 1e4), scipy's float64 value elsewhere."""

    def ref(x, a, b, *loc_scale):
        loc, scale = loc_scale or (0.0, 1.0)
        x_, a_, b_, loc_, scale_ = (np.asarray(v, L) for v in (x, a, b, loc, scale))
        with np.errstate(all="ignore"):
            z = (x_ - loc_) / scale_
            regular = (
                (a_ > 0)
                & (b_ > 0)
                & np.isfinite(a_ + b_)
                & (scale_ > 0)
                & np.isfinite(scale_)
                & (z >= 0)
                & (z <= 1)
            )
            zs, as_, bs = (np.where(regular, v, L(0.5)) for v in (z, a_, b_))
            out = _xlogy(as_ - 1, zs) + _xlogy(bs - 1, 1 - zs) - (lgamma(as_) + lgamma(bs) - lgamma(as_ + bs))
            out = out - np.log(np.where(regular, scale_, L(1)))
            out = out if log else np.exp(out)
            fallback = _scipy("beta", "logpdf" if log else "pdf")(x, a, b, *loc_scale)
        return np.where(regular, np.asarray(out, np.float64), fallback)

    return ref


def _t_log_ratio(df):
    """log Gamma((df + 1) / 2) - log Gamma(df / 2) - log(df pi) / 2 in long double: lgamma's
    difference below df = 1e6, above it the series -log(2 pi)/2 - 1/(8h) + 1/(192 h^3) + 1/(640 h^5)
    in h = df / 2 (the next term, 17 / (14336 h^7), is below 1e-40)."""
    h = df / 2
    small = np.where(df < 1e6, df, L(1))
    by_lgamma = lgamma(small / 2 + L(0.5)) - lgamma(small / 2) - np.log(small * _PI) / 2
    hs = np.where(df < 1e6, L(1e6), h)
    by_series = -_HALF_LOG_2PI - 1 / (8 * hs) + 1 / (192 * hs**3) + 1 / (640 * hs**5)
    return np.where(df < 1e6, by_lgamma, by_series)


def _t_value(log: bool):
    """The value reference of t.pdf / logpdf(x, df[, loc, scale]): long double on the regular points
    (finite df > 0, x, loc; 0 < scale < inf: scipy's loses 3e3 ulps at df = 1e4 to gammaln's
    cancellation), scipy's float64 value elsewhere."""

    def ref(x, df, *loc_scale):
        loc, scale = loc_scale or (0.0, 1.0)
        x_, df_, loc_, scale_ = (np.asarray(v, L) for v in (x, df, loc, scale))
        with np.errstate(all="ignore"):
            z = (x_ - loc_) / scale_
            regular = (df_ > 0) & np.isfinite(df_) & (scale_ > 0) & np.isfinite(scale_) & np.isfinite(z)
            zs, dfs, ss = (
                np.where(regular, z, L(0)),
                np.where(regular, df_, L(1)),
                np.where(regular, scale_, L(1)),
            )
            out = _t_log_ratio(dfs) - np.log(ss) - (dfs + 1) / 2 * np.log1p(zs * zs / dfs)
            out = out if log else np.exp(out)
            fallback = _scipy("t", "logpdf" if log else "pdf")(x, df, *loc_scale)
        return np.where(regular, np.asarray(out, np.float64), fallback)

    return ref


def _beta_tail(method: str):
    """The value reference of beta.cdf / sf / logcdf / logsf(x, a, b[, loc, scale]): 1/2 (its log)
    at z = 1/2 with a == b, where the symmetry I_z(a, a) = I_(1-z)(a, a) makes it exact and scipy's
    is not (0 at a = b = 2.2e-308, 0.4999999999999989 at a = b = 1e4); scipy's value elsewhere."""

    def ref(x, a, b, *loc_scale):
        loc, scale = loc_scale or (0.0, 1.0)
        x_, a_, b_, loc_, scale_ = (np.asarray(v, np.float64) for v in (x, a, b, loc, scale))
        with np.errstate(all="ignore"):
            z = (x_ - loc_) / scale_
            symmetric = (
                (a_ == b_) & (a_ > 0) & np.isfinite(a_) & (scale_ > 0) & np.isfinite(scale_) & (z == 0.5)
            )
            fallback = _scipy("beta", method)(x, a, b, *loc_scale)
        return np.where(symmetric, np.log(0.5) if method.startswith("log") else 0.5, fallback)

    return ref


VALUES = {"beta.pdf": _beta_value(False), "beta.logpdf": _beta_value(True),
          "t.pdf": _t_value(False), "t.logpdf": _t_value(True)}  # fmt: skip
VALUES.update({f"beta.{method}": _beta_tail(method) for method in ("cdf", "sf", "logcdf", "logsf")})
FORMS = {"beta.pdf": pdf, "beta.logpdf": logpdf}


# -- Student's t's derivatives ---------------------------------------------------------------------
_PSI = (L(1) / 12, L(-1) / 120, L(1) / 252, L(-1) / 240, L(1) / 132, L(-691) / 32760, L(1) / 12)  # B_2k / 2k
_TRI = (L(1) / 6, L(-1) / 30, L(1) / 42, L(-1) / 30, L(5) / 66, L(-691) / 2730, L(7) / 6)  # B_2k


def _shifted(x, terms):
    """y = x shifted up to >= 32, the sum over k < shift of terms(x + k), and t = 1 / y."""
    total = np.zeros_like(x)
    for k in range(32):
        total = total + np.where(x + k < 32, terms(x + k), L(0))
    y = x + np.maximum(np.ceil(32 - x), 0)
    return y, total, 1 / y


def _psi(x):
    """digamma in long double: recurrence up to 32, then its asymptotic series."""
    y, total, t = _shifted(x, lambda v: 1 / v)
    s = L(0)
    for c in _PSI[::-1]:
        s = s * t * t + c
    return np.log(y) - t / 2 - s * t * t - total


def _trigamma(x):
    y, total, t = _shifted(x, lambda v: 1 / (v * v))
    s = L(0)
    for c in _TRI[::-1]:
        s = s * t * t + c
    return t + t * t / 2 + s * t**3 + total


def _t_df_parts(df):
    """d/ddf and d2/ddf2 of log Gamma((df + 1)/2) - log Gamma(df/2) - log(df)/2, h = df / 2:
    (psi(h + 1/2) - psi(h) - 1/(2h)) / 2 and (psi'(h + 1/2) - psi'(h) + 1/(2h^2)) / 4, from h = 1e3
    on by their series (the differences cancel): 1/(8h^2) - 1/(64h^4) - 1/(128h^6) + 17/(2048h^8) and
    -1/(4h^3) + 1/(16h^5) + 3/(64h^7) - 17/(256h^9)."""
    h = df / 2
    large = h >= 1000
    hs = np.where(large, L(1000), h)
    d1_small = (_psi(hs + L(0.5)) - _psi(hs) - 1 / (2 * hs)) / 2
    d2_small = (_trigamma(hs + L(0.5)) - _trigamma(hs) + 1 / (2 * hs * hs)) / 4
    hl = np.where(large, h, L(1000))
    d1_large = (1 / (8 * hl**2) - 1 / (64 * hl**4) - 1 / (128 * hl**6) + 17 / (2048 * hl**8)) / 2
    d2_large = (-1 / (4 * hl**3) + 1 / (16 * hl**5) + 3 / (64 * hl**7) - 17 / (256 * hl**9)) / 4
    return np.where(large, d1_large, d1_small), np.where(large, d2_large, d2_small)


def _t_log_parts(x, df):
    """g = (d/dx, d/ddf) and h = (xx, x df, df df) of Student's t log density, long double; nan off
    finite x and df > 0 (jax's value judges there); at df = inf the normal's. -log1p(u)/2 + u/(2(1 + u)), u = x^2/df,
    by its series sum_k>=2 (-1)^(k+1) (1 - 1/k) u^k / 2 below u = 0.1 (it cancels)."""
    x, df = np.asarray(x, L), np.asarray(df, L)
    normal = np.isfinite(x) & (df == np.inf)  # the limit df -> inf: -x, 0; -1, 0, 0
    ok = np.isfinite(x) & np.isfinite(df) & (df > 0)
    xn = np.where(normal, x, L(0))
    x, df = np.where(ok, x, L(1)), np.where(ok, df, L(1))
    x2 = x * x
    s = df + x2
    u = x2 / df
    near = u < 0.1
    un = np.where(near, u, L(0))
    series = sum((-1) ** (k + 1) * (1 - L(1) / k) * un**k for k in range(2, 40)) / 2
    bracket = np.where(near, series, -np.log1p(u) / 2 + u / (2 * (1 + u)))
    d1_df, d2_df = _t_df_parts(df)
    g = [-(df + 1) * x / s, d1_df + bracket + u / (2 * df * (1 + u))]
    h = [-(df + 1) * (df - x2) / (s * s), -x * (x2 - 1) / (s * s),
         d2_df + x2 * (df * x2 - 2 * df - x2) / (2 * df * df * s * s)]  # fmt: skip
    g = [np.where(normal, -xn, g[0]), np.where(normal, L(0), g[1])]
    h = [np.where(normal, L(-1), h[0]), np.where(normal, L(0), h[1]), np.where(normal, L(0), h[2])]
    return g, h, ok | normal, (x, df, normal, xn)


def _t_nan_off(ok, parts):
    return [np.asarray(np.where(ok, p, np.nan), np.float64) for p in parts]


def t_logpdf(order: int):
    def ref(x, df):
        with np.errstate(all="ignore"):
            g, h, ok, _ = _t_log_parts(x, df)
            return _t_nan_off(ok, g if order == 1 else h)

    return ref


def t_pdf(order: int):
    def ref(x, df):
        with np.errstate(all="ignore"):
            g, h, ok, (xl, dfl, normal, xn) = _t_log_parts(x, df)
            f = np.exp(_t_log_ratio(dfl) - (dfl + 1) / 2 * np.log1p(xl * xl / dfl))
            f = np.where(normal, np.exp(-xn * xn / 2 - _HALF_LOG_2PI), f)
            if order == 1:
                return _t_nan_off(ok, [f * gi for gi in g])
            pairs = ((0, 0), (0, 1), (1, 1))
            return _t_nan_off(ok, [f * (g[i] * g[j] + hij) for (i, j), hij in zip(pairs, h)])

    return ref


FORMS.update({"t.logpdf": t_logpdf, "t.pdf": t_pdf})
