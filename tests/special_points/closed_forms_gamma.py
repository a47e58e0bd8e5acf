"""Long double value references for gamma's and chi2's pdf, cdf, sf, logcdf and logsf, where scipy's
float64 values are off: its incomplete gamma rounds a log x - x - lgamma(a) into the factor
x^a e^-x / Gamma(a) (6e-15 off at a = 0.5, x = 1, which logcdf = -0.171 turns into 170 ulps), gives
P(2.2e-16, 0.5) = 1 + 2.2e-15 (above 1), and P(2.2e-16, 2.2e-308) 3.4e-15 off 1 - 1.57e-13.

Here P and Q are summed in long double (the power series below a + 1, Legendre's continued
fraction above, the other as the complement where that keeps its digits), for shapes up to 200
and standardized arguments up to 1000, where the factor's long double rounding stays below a float64
ulp; everywhere else (edges, nan, off the support, larger arguments) scipy's own value stands.
"""

from __future__ import annotations

import numpy as np
import scipy.stats

from . import closed_forms_igamma as cfi
from .closed_forms_shapes import _log_gamma_ld, _lower_upper_ld

L = np.longdouble
_MAX_A, _MAX_Y = 200.0, 1000.0


def _method_ld(method: str, a, y):
    """cdf, sf, logcdf or logsf from the side that is summed directly, and where it is exact: the
    complement of the summed side keeps its digits only while it stays above 1/10 (Q = 1 - P at
    a = 2.2e-16, x = 0.5 is 1.2e-16, where P's last long double digit is 3% of it); scipy's value
    stands where it is not."""
    lower, upper, series = _lower_upper_ld(a, y)
    if method in ("cdf", "logcdf"):
        direct, other, own_side = lower, upper, series
    else:
        direct, other, own_side = upper, lower, ~series
    if method.startswith("log"):
        # log of a summed side near 1 keeps only its last digit's absolute error, as does log1p of
        # minus one near 1: leave those points to scipy
        value = np.where(own_side, np.log(direct), np.log1p(-other))
        return value, np.where(own_side, direct <= L(0.99), other <= L(0.9))
    return np.where(own_side, direct, 1 - other), own_side | (other <= L(0.9))


def _decimal_or(method: str, a, y, where, fallback):
    """``method`` of the standard gamma (a, y) by closed_forms_igamma's decimal sums at the points
    ``where`` inside its domain, ``fallback`` elsewhere."""
    pick = {
        "cdf": lambda p, q: p,
        "sf": lambda p, q: q,
        "logcdf": lambda p, q: p.ln(),
        "logsf": lambda p, q: q.ln(),
    }

    def one(a, y):
        p, q = cfi.lower_upper(a, y)
        side = p if method.endswith("cdf") else q
        return float(pick[method](p, q)) if side > 0 else (-np.inf if method.startswith("log") else 0.0)

    return cfi.pointwise(one, np.where(where, a, np.nan), y, fallback)


def _standardized(x, shape, loc, scale, halved: bool):
    """The arguments as float64 arrays of one shape, with z = (x - loc) / scale and the gamma's
    (a, y): (shape, z), or (shape / 2, z / 2) for chi2 (``halved``)."""
    x, shape, loc, scale = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (x, shape, loc, scale)))
    with np.errstate(all="ignore"):
        z = (x - loc) / scale
    a, y = (shape / 2, z / 2) if halved else (shape, z)
    return x, shape, loc, scale, z, a, y


def _reference(name: str, method: str, halved: bool):
    """The reference of ``name.method`` (x, shape[, loc[, scale]]): long double inside the range,
    scipy's value elsewhere. chi2 (``halved``) is the gamma of df / 2 at z / 2."""
    theirs = getattr(getattr(scipy.stats, name), method)

    def ref(x, shape, loc=0.0, scale=1.0):
        x, shape, loc, scale, z, a, y = _standardized(x, shape, loc, scale, halved)
        with np.errstate(all="ignore"):
            tiny = np.finfo(np.float64).tiny
            ok = (scale > 0) & (a >= tiny) & (a <= _MAX_A) & (y >= tiny) & (y <= _MAX_Y)
            out, exact = _method_ld(method, np.where(ok, a, 1.0), np.where(ok, y, 1.0))
            # where long double loses the complement's digits (or past its range), decimal sums
            other = _decimal_or(method, a, y, ~(ok & exact) & (scale > 0), theirs(x, shape, loc, scale))
            return np.where(ok & exact, np.asarray(out, np.float64), other)

    return ref


def _density_reference(name: str, halved: bool):
    """The density (x, shape[, loc[, scale]]) in long double, exp((a - 1) log y - y - log Gamma(a)) /
    scale (chi2: at y = z / 2, halved), inside the same range; scipy's float64 exp of the same log
    rounds a log of up to 700 (17 ulps at a = 2.2e-16, x = 1; 108 at x = 2.2e-308)."""
    theirs = getattr(scipy.stats, name).pdf

    def ref(x, shape, loc=0.0, scale=1.0):
        x, shape, loc, scale, z, a, y = _standardized(x, shape, loc, scale, halved)
        with np.errstate(all="ignore"):
            tiny = np.finfo(np.float64).tiny
            ok = (scale > 0) & (a >= tiny) & (a <= _MAX_A) & (z >= tiny) & (y <= _MAX_Y)
            al = np.asarray(np.where(ok, a, 1.0), L)
            zl = np.asarray(np.where(ok, z, 1.0), L)
            yl = zl / 2 if halved else zl
            out = np.exp((al - 1) * np.log(yl) - yl - _log_gamma_ld(al)) / np.asarray(
                np.where(ok, scale, 1.0), L
            )
            out = out / 2 if halved else out
            return np.where(ok, np.asarray(out, np.float64), theirs(x, shape, loc, scale))

    return ref


VALUES = {f"{name}.pdf": _density_reference(name, name == "chi2") for name in ("gamma", "chi2")}
VALUES.update(
    {
        f"{name}.{method}": _reference(name, method, name == "chi2")
        for name in ("gamma", "chi2")
        for method in ("cdf", "sf", "logcdf", "logsf")
    }
)
