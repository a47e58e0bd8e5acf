"""Long-double references for pareto's sweep: the values (every method, with loc and scale) and
the standard methods' derivatives in x and b.

scipy computes pareto in float64 as powers of z = (x - loc) / scale: 1 - z**-b rounds to 0 for
b below eps (cdf(3, 1e-38) is 1.1e-38, scipy's 0; its log -87, scipy's -inf), (1 - q)**(-1/b)
rounds 1 - q to 1 (ppf(1e-38, 1e-38) is e, scipy's 1), and z overflows float64 where its log
does not. Here every method is a function of log z and of u = b log z in long double
(expm1 keeps 1 - exp(-u) exact for small u). jax's float64 derivatives are nan off the support
(log of z < 1 on the unused side of a where): off the support every method is constant (0, 1,
-inf or 0), so its derivatives are 0. On the support's end z = 1 the slopes are the right
side's (the support's formula, as scipy's pdf(1) = b is the support's value). Points where a
derivative has no limit (b = inf, z = inf with a log factor) are nan: jax's value decides there.
"""

from __future__ import annotations

import numpy as np
import scipy.special
import scipy.stats

L = np.longdouble
METHODS = ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")


def _f64(*xs) -> list:
    return [np.asarray(x, np.float64) for x in xs]


def _parts(x, b, loc=0.0, scale=1.0):
    """z, log z (0 below the support), u = b log z, and the masks: invalid (nan), below the
    support, regular (1 <= z < inf, 0 < b < inf: the closed forms hold)."""
    x, b, loc, scale = (np.asarray(v, L) for v in (x, b, loc, scale))
    with np.errstate(all="ignore"):
        d = x - loc
        z = d / scale
        invalid = ~(b > 0) | ~(scale > 0) | np.isnan(z)
        below = ~invalid & (z < 1)
        # log z from the difference and the scale where their quotient overflows
        log_z = np.where(
            np.isinf(z) & np.isfinite(d), np.log(np.abs(d)) - np.log(scale), np.log(np.maximum(z, 1))
        )
        log_z = np.where(below | invalid, 0, log_z)
        regular = ~invalid & ~below & np.isfinite(log_z) & np.isfinite(b)
        u = np.where(regular, b * log_z, 0)
    return z, log_z, u, b, scale, invalid, below, regular


def _scipy(method):
    def ref(x, b, loc=0.0, scale=1.0):
        with np.errstate(all="ignore"), scipy.special.errstate(all="ignore"):
            return np.asarray(getattr(scipy.stats.pareto, method)(x, b, loc, scale), np.float64)

    return ref


def value(method: str):
    """The value reference of pareto.<method>(x, b[, loc, scale]): long double on the regular
    points, scipy's float64 value elsewhere (the edges b = inf, z = inf, invalid parameters)."""
    fallback = _scipy(method)

    def ref(x, b, loc=0.0, scale=1.0):
        z, log_z, u, b_, scale_, invalid, below, regular = _parts(x, b, loc, scale)
        with np.errstate(all="ignore"):
            log_sf = -u
            one_minus = -np.expm1(-u)  # the cdf, exact for small u
            out = {
                "pdf": np.exp(np.log(b_) - (b_ + 1) * log_z - np.log(scale_)),
                "logpdf": np.log(b_) - (b_ + 1) * log_z - np.log(scale_),
                "cdf": one_minus,
                "logcdf": np.where(u > 0.5, np.log1p(-np.exp(-u)), np.log(one_minus)),
                "sf": np.exp(log_sf),
                "logsf": log_sf,
            }[method]
        return np.where(regular, np.asarray(out, np.float64), fallback(x, b, loc, scale))

    return ref


def ppf_value(q, b, loc=0.0, scale=1.0):
    """loc + scale exp(-log1p(-q) / b) in long double; scipy's value at the edges (q outside
    [0, 1), b = inf or invalid)."""
    q_, b_, loc_, scale_ = (np.asarray(v, L) for v in (q, b, loc, scale))
    with np.errstate(all="ignore"):
        regular = (
            (q_ >= 0) & (q_ < 1) & (b_ > 0) & np.isfinite(b_) & (scale_ > 0) & np.isfinite(loc_ + scale_)
        )
        out = loc_ + scale_ * np.exp(-np.log1p(-q_) / b_)
    return np.where(regular, np.asarray(out, np.float64), _scipy("ppf")(q, b, loc, scale))


def _zero_off(regular, below, *parts):
    """The parts with 0 below the support (constant there) and nan where not regular."""
    return [np.where(below, 0, np.where(regular, p, np.nan)) for p in parts]


def _derivatives(method: str, x, b):
    """(d/dx, d/db) and (d2/dx2, d2/dxdb, d2/db2) of pareto.<method>(x, b) in long double."""
    z, log_z, u, b, _, invalid, below, regular = _parts(x, b)
    zr = np.where(regular, z, 2)
    s = np.exp(-u)  # the sf
    if method in ("sf", "cdf"):
        sign = 1 if method == "sf" else -1
        d1 = (-b * s / zr, -log_z * s)
        d2 = (b * (b + 1) * s / zr**2, s * (u - 1) / zr, log_z**2 * s)
        d1, d2 = [tuple(sign * v for v in d) for d in (d1, d2)]
    elif method == "logsf":
        d1 = (-b / zr, -log_z)
        d2 = (b / zr**2, -1 / zr, np.zeros_like(zr))
    elif method == "logcdf":
        r = 1 / np.expm1(u)  # s / (1 - s)
        cx, cb = b * r / zr, log_z * r
        d1 = (cx, cb)
        d2 = (-b * (b + 1) * r / zr**2 - cx * cx, (1 - u) * r / zr - cx * cb, -(log_z**2) * r - cb * cb)
        # on the support's end (the value -inf for every b) the right side's limits, as z -> 1 of
        # log(b) + log(log z) + log((1 - exp(-u)) / u)
        # (b = inf, the point mass's atom, included for the b slopes: 1/b and -1/b**2 are 0 there)
        end = z == 1
        atom = end & ~invalid & np.isinf(b)
        x_end = np.where(atom, np.nan, 1)  # the atom's x slopes: none (nan, jax's decides)
        d1 = (np.where(end, np.inf * x_end, d1[0]), np.where(end, 1 / b, d1[1]))
        d2 = (
            np.where(end, -np.inf * x_end, d2[0]),
            np.where(end, -0.5 * x_end, d2[1]),
            np.where(end, -1 / b**2, d2[2]),
        )
        regular = regular | atom
    elif method == "logpdf":
        d1 = (-(b + 1) / zr, 1 / b - log_z)
        d2 = ((b + 1) / zr**2, -1 / zr, -1 / b**2)
    else:  # pdf = b s / z, its b-derivatives multiplied out (1/b**2 - 1/b**2 would cancel)
        d1 = (-b * (b + 1) * s / zr**2, s * (1 - u) / zr)
        d2 = (
            b * (b + 1) * (b + 2) * s / zr**3,
            s * (b * (b + 1) * log_z - 2 * b - 1) / zr**2,
            s * log_z * (u - 2) / zr,
        )
    d1, d2 = _zero_off(regular, below, *d1), _zero_off(regular, below, *d2)
    # z = inf (b finite): every slope tends to 0 (the powers of log z times z**-b do), but log z's own
    far = ~invalid & (z == np.inf) & np.isfinite(b)
    limits = {
        "logsf": ((0, -np.inf), (0, 0, 0)),
        "logpdf": ((0, -np.inf), (0, 0, -1 / b**2)),
    }.get(method, ((0, 0), (0, 0, 0)))
    return [[np.where(far, lim, v) for v, lim in zip(d, lims)] for d, lims in zip((d1, d2), limits)]


def derivative(method: str):
    """A closed_forms_stats form (order -> reference) of pareto.<method>'s derivatives."""

    def form(order: int):
        def ref(x, b):
            with np.errstate(all="ignore"):
                return _f64(*_derivatives(method, x, b)[order - 1])

        return ref

    return form


def _ppf_derivatives(q, b):
    """x = exp(m / b), m = -log1p(-q): (x_q, x_b), (x_qq, x_qb, x_bb); the limits at q = 1 (inf)."""
    q, b = np.asarray(q, L), np.asarray(b, L)
    regular = (q >= 0) & (q <= 1) & (b > 0) & np.isfinite(b)
    w = 1 - q
    m = -np.log1p(-q)
    x = np.exp(m / b)
    d1 = (x / (b * w), -x * m / b**2)
    d2 = (x / (b * w * w) * (1 / b + 1), -x / (b * b * w) * (m / b + 1), x * m * m / b**4 + 2 * x * m / b**3)
    return [[np.where(regular, v, np.nan) for v in d] for d in (d1, d2)]


def ppf_derivative(order: int):
    def ref(q, b):
        with np.errstate(all="ignore"):
            return _f64(*_ppf_derivatives(q, b)[order - 1])

    return ref


VALUES = {**{f"pareto.{m}": value(m) for m in METHODS}, "pareto.ppf": ppf_value}
FORMS = {**{f"pareto.{m}": derivative(m) for m in METHODS}, "pareto.ppf": ppf_derivative}
