"""Closed-form derivative references for sg.scipy.stats' sweep: the standard (loc 0, scale 1)
methods of the distributions whose derivatives have closed forms in elementary functions, where
jax's own float64 derivatives are off: they overflow or flush in the tails (norm's log cdf far
left, logistic's slope past 30, expon's log cdf near 0), differentiate the unused side of a where
(nan), or stop short of the infinite slope of a quantile at q = 0 and 1.

Long double (80-bit on x86-64) where float64 would overflow or cancel. At a kink (laplace at 0)
and off a quantile's domain the reference is nan: jax's value decides there (compare.py).
Each form returns the leaves of a part as closed_forms_special's do: d1 one array, d2 one array.
"""

from __future__ import annotations

import numpy as np

from . import closed_forms_beta as cfb
from . import closed_forms_discrete as cfd
from . import closed_forms_gamma as cfg
from . import closed_forms_pareto as cfp
from . import closed_forms_shapes as cfsh
from . import closed_forms_special as cfs
from . import closed_forms_truncnorm as cft

L = np.longdouble
_PI = L(np.pi)
_SQRT_2PI = np.sqrt(2 * _PI)


def _ld(x):
    return np.asarray(x, L)


def _f64(x) -> list:
    return [np.asarray(x, np.float64)]


def _probability(q, value):
    """``value`` for q in [0, 1], nan outside (a quantile's domain)."""
    return np.where((q >= 0) & (q <= 1), value, np.nan)


def _pick(order: int, first, second):
    return first if order == 1 else second


def _reflect(form):
    """The derivatives of f(-x) from f's: d1 changes sign, d2 does not."""

    def reflected(order: int):
        base = form(order)
        return lambda x: [(-1) ** order * v for v in base(-np.asarray(x))]

    return reflected


def _negate(form):
    """The derivatives of -f(x)."""

    def negated(order: int):
        base = form(order)
        return lambda x: [-v for v in base(x)]

    return negated


# -- norm ------------------------------------------------------------------------------------------
def _norm_pdf(order: int):
    def ref(x):
        x = _ld(x)
        phi = np.exp(-x * x / 2) / _SQRT_2PI
        return _f64(_pick(order, -x * phi, (x * x - 1) * phi))

    return ref


def _norm_logpdf(order: int):
    return lambda x: _f64(_pick(order, -_ld(x), np.full(np.shape(x), -1.0)))


# -- logistic --------------------------------------------------------------------------------------
def _logistic_parts(x):
    """pdf, cdf and sf in long double, each in the form that keeps its digits."""
    x = _ld(x)
    e = np.exp(-np.abs(x))
    small, large = e / (1 + e), 1 / (1 + e)
    cdf = np.where(x < 0, small, large)
    sf = np.where(x < 0, large, small)
    return small * large, cdf, sf


def _logistic(method: str):
    def form(order: int):
        def ref(x):
            pdf, cdf, sf = _logistic_parts(x)
            slope = sf - cdf  # pdf'/pdf = -tanh(x / 2)
            d = {
                "pdf": (pdf * slope, pdf * (slope * slope - 2 * pdf)),
                "logpdf": (slope, -2 * pdf),
                "cdf": (pdf, pdf * slope),
                "sf": (-pdf, -pdf * slope),
                "logcdf": (sf, -pdf),
                "logsf": (-cdf, -pdf),
            }[method]
            return _f64(d[order - 1])

        return ref

    return form


def _logistic_ppf(order: int):
    """1 / (q (1 - q)) and (2q - 1) / (q (1 - q))**2 (scipy.special.logit's derivatives)."""
    base = cfs.logit(order)
    return lambda q: _f64(_probability(np.asarray(q), base(q)[0]))


# -- cauchy ----------------------------------------------------------------------------------------
def _cauchy_parts(x):
    """pdf, pdf', pdf'' and the cdf (atan2 in each tail: no cancellation) in long double."""
    x = _ld(x)
    w = 1 + x * x
    pdf = 1 / (_PI * w)
    d1 = -2 * x / (_PI * w * w)
    d2 = (6 * x * x - 2) / (_PI * w * w * w)
    cdf = np.where(x < 0, np.arctan2(L(1), -x), _PI - np.arctan2(L(1), x)) / _PI
    # x = -inf: w is inf, every derivative 0
    return (np.nan_to_num(v, nan=0.0) for v in (pdf, d1, d2)), cdf


def _cauchy(method: str):
    """cdf, sf, pdf, logpdf, logcdf (logsf is logcdf's reflection)."""

    def form(order: int):
        def ref(x):
            (pdf, d_pdf, d2_pdf), cdf = _cauchy_parts(x)
            x = _ld(x)
            w = 1 + x * x
            with np.errstate(invalid="ignore", divide="ignore"):
                ratio = pdf / cdf
                d = {
                    "cdf": (pdf, d_pdf),
                    "sf": (-pdf, -d_pdf),
                    "pdf": (d_pdf, d2_pdf),
                    "logpdf": (-2 * x / w, (2 * x * x - 2) / (w * w)),
                    "logcdf": (ratio, d_pdf / cdf - ratio * ratio),
                }[method][order - 1]
            return _f64(np.where(np.isinf(x), 0.0, d))  # every slope tends to 0 at +-inf

        return ref

    return form


def _cauchy_ppf(order: int):
    """pi / sin(pi q)**2 and -2 pi**2 cos(pi q) / sin(pi q)**3, the sine taken at the nearer end
    (min(q, 1 - q), exact in float64) so that it keeps its digits near q = 1."""

    def ref(q):
        q = np.asarray(q, np.float64)
        m = _ld(np.minimum(q, 1 - q))
        s = np.sin(_PI * m)
        c = np.cos(_PI * m) * np.where(q > 0.5, -1, 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = _pick(order, _PI / (s * s), -2 * _PI * _PI * c / (s * s * s))
        return _f64(_probability(q, out))

    return ref


# -- expon: on x >= 0 (-0 included, as scipy's x >= 0); the slopes at 0 are the right side's ------
def _expon(method: str):
    def form(order: int):
        def ref(x):
            x = _ld(x)
            inside = x >= 0
            e = np.exp(-np.where(inside, x, 0))
            em1 = np.expm1(np.where(inside, x, 1))
            with np.errstate(divide="ignore"):
                d = {
                    "pdf": (-e, e),
                    "logpdf": (np.full(x.shape, L(-1)), np.zeros(x.shape, L)),
                    "cdf": (e, -e),
                    "sf": (-e, e),
                    "logsf": (np.full(x.shape, L(-1)), np.zeros(x.shape, L)),
                    "logcdf": (1 / em1, -1 / (em1 * -np.expm1(-np.where(inside, x, 1)))),
                }[method][order - 1]
            return _f64(np.where(inside, d, 0.0))

        return ref

    return form


def _expon_ppf(order: int):
    """-log1p(-q): 1 / (1 - q) and 1 / (1 - q)**2."""

    def ref(q):
        q = np.asarray(q, np.float64)
        with np.errstate(divide="ignore"):
            p = 1 / (1 - _ld(q))
        return _f64(_probability(q, _pick(order, p, p * p)))

    return ref


def _expon_isf(order: int):
    """-log(q): -1 / q and 1 / q**2."""

    def ref(q):
        q = np.asarray(q, np.float64)
        with np.errstate(divide="ignore"):
            p = 1 / _ld(q)
        return _f64(_probability(q, _pick(order, -p, p * p)))

    return ref


# -- laplace: a kink at 0, where the second derivatives (and the density's first) have two sides --
def _laplace(method: str):
    def form(order: int):
        def ref(x):
            x = _ld(x)
            half = np.exp(-np.abs(x)) / 2
            sign = np.sign(x)
            t = np.exp(-np.maximum(x, 0))
            d, kinked = {
                "pdf": ((-sign * half, half), (True, True)),
                "logpdf": ((-sign, np.zeros(x.shape, L)), (True, True)),
                "cdf": ((half, -sign * half), (False, True)),
                "sf": ((-half, sign * half), (False, True)),
                "logcdf": (
                    (np.where(x < 0, 1, t / (2 - t)), np.where(x < 0, 0, -2 * t / (2 - t) ** 2)),
                    (False, True),
                ),
            }[method]
            return _f64(np.where((x == 0) & kinked[order - 1], np.nan, d[order - 1]))

        return ref

    return form


def _laplace_ppf(order: int):
    """log(2q) below 1/2, -log(2 - 2q) above: d1 1/q or 1/(1 - q); d2 has a kink at 1/2."""

    def ref(q):
        q = np.asarray(q, np.float64)
        ql = _ld(q)
        with np.errstate(divide="ignore"):
            low = _pick(order, 1 / ql, -1 / (ql * ql))
            high = _pick(order, 1 / (1 - ql), 1 / ((1 - ql) * (1 - ql)))
        out = np.where(q < 0.5, low, high)
        if order == 2:
            out = np.where(q == 0.5, np.nan, out)
        return _f64(_probability(q, out))

    return ref


# -- gumbel_r: cdf exp(-u), u = exp(-x) --------------------------------------------------------------
def _u_over_expm1(u):
    """h(u) = u / expm1(u) and u h'(u), by their series below 1e-3 (the closed forms cancel there)."""
    u = _ld(u)
    big = u > 1e-3
    ub = np.where(big, u, 1)
    with np.errstate(over="ignore", invalid="ignore"):
        em1 = np.expm1(ub)
        h_big = np.where(np.isinf(em1), 0, ub / em1)
        uh_big = np.where(np.isinf(em1), 0, ub * (em1 - ub * (em1 + 1)) / (em1 * em1))
    h_small = 1 - u / 2 + u * u / 12
    uh_small = -u / 2 + u * u / 6
    return np.where(big, h_big, h_small), np.where(big, uh_big, uh_small)


def _gumbel_r(method: str):
    def form(order: int):
        def ref(x):
            x = _ld(x)
            with np.errstate(over="ignore", invalid="ignore"):
                u = np.exp(-x)
                pdf = np.where(np.isinf(u), 0, np.exp(-x - u))
                g = u - 1  # pdf'/pdf
                d_pdf = (pdf * g, pdf * (g * g - u))
                d_pdf = tuple(np.where(np.isinf(u) | (pdf == 0), 0, v) for v in d_pdf)
            h, uh = _u_over_expm1(u)
            d = {
                "pdf": d_pdf,
                "logpdf": (g, -u),
                "cdf": (pdf, d_pdf[0]),
                "sf": (-pdf, -d_pdf[0]),
                "logcdf": (u, -u),
                "logsf": (-h, uh),
            }[method][order - 1]
            return _f64(d)

        return ref

    return form


def _gumbel_r_ppf(order: int):
    """x = -log(l) with l = -log(q): 1 / (q l) and (1 - l) / (q l)**2; inf and -inf at q = 0,
    inf and inf at q = 1."""

    def ref(q):
        q = np.asarray(q, np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            minus_log = -np.log(_ld(q))
            ql = q * minus_log
            out = _pick(order, 1 / ql, (1 - minus_log) / (ql * ql))
        out = np.where(q == 0, np.inf if order == 1 else -np.inf, out)
        return _f64(_probability(q, out))

    return ref


def _gumbel_l_ppf(order: int):
    """gumbel_l's ppf is -(gumbel_r's ppf at 1 - q)."""
    base = _gumbel_r_ppf(order)
    return lambda q: [-((-1) ** order) * v for v in base(1 - _ld(q))]


_LOCSCALE_METHODS = ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")
_GUMBEL_L = {"pdf": "pdf", "logpdf": "logpdf", "cdf": "sf", "sf": "cdf", "logcdf": "logsf", "logsf": "logcdf"}

FORMS = {
    **cfb.FORMS,
    "norm.pdf": _norm_pdf,
    "norm.logpdf": _norm_logpdf,
    "norm.cdf": cfs.ndtr,
    "norm.sf": _reflect(cfs.ndtr),
    "norm.logcdf": cfs.log_ndtr,
    "norm.logsf": _reflect(cfs.log_ndtr),
    "norm.ppf": cfs.ndtri,
    "norm.isf": _negate(cfs.ndtri),
    **{f"logistic.{m}": _logistic(m) for m in _LOCSCALE_METHODS},
    "logistic.ppf": _logistic_ppf,
    "logistic.isf": _negate(_logistic_ppf),
    **{f"cauchy.{m}": _cauchy(m) for m in ("pdf", "logpdf", "cdf", "sf", "logcdf")},
    "cauchy.logsf": _reflect(_cauchy("logcdf")),
    "cauchy.ppf": _cauchy_ppf,
    "cauchy.isf": _negate(_cauchy_ppf),
    **{f"laplace.{m}": _laplace(m) for m in ("pdf", "logpdf", "cdf", "sf", "logcdf")},
    "laplace.logsf": _reflect(_laplace("logcdf")),
    "laplace.ppf": _laplace_ppf,
    "laplace.isf": _negate(_laplace_ppf),
    **{f"expon.{m}": _expon(m) for m in _LOCSCALE_METHODS},
    "expon.ppf": _expon_ppf,
    "expon.isf": _expon_isf,
    **{f"gumbel_r.{m}": _gumbel_r(m) for m in _LOCSCALE_METHODS},
    "gumbel_r.ppf": _gumbel_r_ppf,
    **{f"gumbel_l.{m}": _reflect(_gumbel_r(r)) for m, r in _GUMBEL_L.items()},
    "gumbel_l.ppf": _gumbel_l_ppf,
    **cfp.FORMS,
    **cft.FORMS,
    **cfsh.FORMS,
    **cfd.FORMS,
}

# value references where scipy's float64 value is off (signatures_stats uses them instead of scipy's)
VALUES = {**cfp.VALUES, **cfsh.VALUES, **cfb.VALUES, **cfg.VALUES, **cfd.VALUES, **cft.VALUES}
