"""Closed-form derivative references for truncnorm's sweep: the standard methods' first and second
derivatives in x and the bounds a, b.

jax's float64 derivatives are nan off the support (the unused side of a where) and at infinite
bounds (inf * 0 in phi(a) a). On [a, b] every derivative is a polynomial in the cdf F, the sf S,
the density f(x) and the density at the bounds f(a) = phi(a) / Z, f(b) = phi(b) / Z (Z the
mass): d/da F = -f(a) S, d/db F = -f(b) F, d/da f(a) = f(a)**2 - a f(a)... Those five come from
scipy.stats.truncnorm in float64 (its tails are computed in log space), their products in long
double. Off [a, b] each method is constant: its derivatives are 0. On an end the slopes are the
support's (one-sided). Where a log method's value is -inf on an end (log cdf at a, log sf at b)
or x is infinite, the reference is nan: jax's value decides there.
"""

from __future__ import annotations

import numpy as np
import scipy.special
import scipy.stats

L = np.longdouble
METHODS = ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")


def _parts(x, a, b):
    """F, S, f(x), f(a), f(b), a f(a), b f(b) (0 at an infinite bound) in long double, and the
    masks: invalid, below, above, inside (ends included)."""
    x, a, b = (np.asarray(v, np.float64) for v in (x, a, b))
    st = scipy.stats.truncnorm
    with np.errstate(all="ignore"), scipy.special.errstate(all="ignore"):
        invalid = ~(a < b) | np.isnan(x)
        aa, bb = np.where(invalid, 0.0, a), np.where(invalid, 1.0, b)
        xx = np.where(invalid, 0.0, x)
        cdf, sf = L(st.cdf(xx, aa, bb)), L(st.sf(xx, aa, bb))
        f = L(st.pdf(np.clip(xx, aa, bb), aa, bb))
        fa = np.where(np.isinf(aa), 0, L(st.pdf(aa, aa, bb)))
        fb = np.where(np.isinf(bb), 0, L(st.pdf(bb, aa, bb)))
        afa = np.where(np.isinf(aa), 0, aa * fa)
        bfb = np.where(np.isinf(bb), 0, bb * fb)
    below, above = ~invalid & (x < a), ~invalid & (x > b)
    inside = ~invalid & ~below & ~above
    return (cdf, sf, f, fa, fb, afa, bfb, L(xx)), invalid, below, above, inside


def _cdf_derivatives(F, S, f, fa, fb, afa, bfb, x):
    """(F_x, F_a, F_b), (F_xx, F_xa, F_xb, F_aa, F_ab, F_bb) of the cdf F."""
    xf = np.where(np.isinf(x), 0, x * f)
    d1 = (f, -fa * S, -fb * F)
    d2 = (-xf, f * fa, -f * fb, -S * (2 * fa * fa - afa), fa * fb * (S - F), F * (bfb + 2 * fb * fb))
    return d1, d2


def _derivatives(method: str, x, a, b):
    (F, S, f, fa, fb, afa, bfb, xl), invalid, below, above, inside = _parts(x, a, b)
    with np.errstate(all="ignore"):
        c1, c2 = _cdf_derivatives(F, S, f, fa, fb, afa, bfb, xl)
        if method == "cdf":
            d1, d2 = c1, c2
        elif method == "sf":
            d1, d2 = tuple(-v for v in c1), tuple(-v for v in c2)
        elif method in ("logcdf", "logsf"):
            p = F if method == "logcdf" else S
            sign = 1 if method == "logcdf" else -1
            g1 = tuple(sign * v / p for v in c1)
            pairs = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]
            g2 = tuple(sign * v / p - g1[i] * g1[j] for v, (i, j) in zip(c2, pairs))
            d1, d2 = g1, g2
        else:
            g1 = (-xl, fa, -fb)
            g2 = (
                np.full(xl.shape, L(-1)),
                np.zeros(xl.shape, L),
                np.zeros(xl.shape, L),
                fa * fa - afa,
                -fa * fb,
                fb * fb + bfb,
            )
            if method == "logpdf":
                d1, d2 = g1, g2
            else:
                pairs = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]
                xf = np.where(np.isinf(xl), 0, -xl * f)
                d1 = (xf, f * fa, -f * fb)
                d2 = tuple(f * (g1[i] * g1[j] + v) for v, (i, j) in zip(g2, pairs))
                d2 = (np.where(np.isinf(xl), 0, d2[0]),) + d2[1:]
        # the log methods' slopes in the bounds that are identities for every x on [a, b] (F and S
        # cancel), exact where F or S is 0 (an end, or x far in a tail) or x is infinite: log cdf's
        # d/db -f(b), d2/dx db 0, d2/da db -f(a) f(b), d2/db2 b f(b) + f(b)**2; log sf's mirrored;
        # log pdf's in the bounds do not involve x at all, its d/dx is -x
        if method == "logcdf":
            exact = {(1, 2): -fb, (2, 2): 0 * fb, (2, 4): -fa * fb, (2, 5): bfb + fb * fb}
            undefined = np.isinf(xl) | (F == 0)
        elif method == "logsf":
            exact = {(1, 1): fa, (2, 1): 0 * fa, (2, 4): -fa * fb, (2, 3): fa * fa - afa}
            undefined = np.isinf(xl) | (S == 0)
        elif method == "logpdf":
            exact = {(1, 1): fa, (1, 2): -fb, (2, 3): fa * fa - afa, (2, 4): -fa * fb, (2, 5): fb * fb + bfb}
            exact.update({(2, 1): 0 * fa, (2, 2): 0 * fa, (2, 0): np.where(np.isinf(xl), np.nan, L(-1))})
            exact[(1, 0)] = np.where(np.isinf(xl), np.nan, -xl)
            undefined = np.ones(xl.shape, bool)
        else:
            exact = {}
            undefined = np.isinf(xl)

    # the first slopes where the log's value is -inf on an end: one-sided limits (log cdf at a:
    # d/dx +inf, d/da -inf; log sf at b: d/dx -inf, d/db +inf)
    ends = {}
    if method == "logcdf":
        at = inside & (xl == L(np.asarray(a, np.float64)))
        ends = {(1, 0): np.inf, (1, 1): -np.inf}
    elif method == "logsf":
        at = inside & (xl == L(np.asarray(b, np.float64)))
        ends = {(1, 0): -np.inf, (1, 2): np.inf}

    # the log methods' d/dx where the probability underflows far in an open tail (a = -inf, x <=
    # -38 for the log cdf; b = inf, x >= 38 for the log sf): phi(x) / Phi(x) = 1 / R(-x), R the
    # Mills ratio (3.4e38 at x = -3.4e38), not F's 0 / 0
    a64, b64 = (np.asarray(v, np.float64) for v in (a, b))
    far = np.zeros(xl.shape, bool)
    slope = np.zeros(xl.shape, L)
    if method in ("logcdf", "logsf"):
        far = (F == 0) & (a64 == -np.inf) if method == "logcdf" else (S == 0) & (b64 == np.inf)
        far &= inside & np.isfinite(xl) & (np.abs(xl) > _FAR)
        with np.errstate(all="ignore"):
            mills = np.exp(-_log_mills(np.where(far, np.abs(xl), L(_FAR + 1))))
        slope = mills if method == "logcdf" else -mills
    # slopes in a bound at infinity, and every slope at an infinite x where the method is constant
    # around it (cdf, sf, pdf; the log cdf at x = inf, the log sf at x = -inf): 0, the limits (no
    # finite difference steps away from an infinity; scipy's F and S there say nothing of them)
    pairs = [(0,), (1,), (2,)], [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]
    constant_at = {"logcdf": xl == np.inf, "logsf": xl == -np.inf}.get(method, np.isinf(xl))
    if method == "logpdf":
        constant_at = np.zeros(xl.shape, bool)

    def limit(key):
        args = pairs[key[0] - 1][key[1]]
        zero = inside & constant_at
        if 1 in args:
            zero |= inside & np.isinf(a64)
        if 2 in args:
            zero |= inside & np.isinf(b64)
        return zero

    def fix(v, key):
        v = np.where(inside & ~undefined, v, np.nan)
        if key in exact:
            v = np.where(inside, exact[key], v)
        if key in ends:
            v = np.where(at, ends[key], v)
        if key == (1, 0):
            v = np.where(far, slope, v)
        v = np.where(limit(key), 0, v)
        return np.asarray(np.where(below | above, 0, v), np.float64)

    return [fix(v, (1, k)) for k, v in enumerate(d1)], [fix(v, (2, k)) for k, v in enumerate(d2)]


def derivative(method: str):
    """A closed_forms_stats form (order -> reference) of truncnorm.<method>'s derivatives."""

    def form(order: int):
        def ref(x, a, b):
            return _derivatives(method, x, a, b)[order - 1]

        return ref

    return form


FORMS = {f"truncnorm.{m}": derivative(m) for m in METHODS}


# past this |c| the log of the normal's tail is its asymptotic series, summed in long double
_FAR = 30.0


def _log_mills(t):
    """log(Q(t) / phi(t)) for t > _FAR in long double: -log t + log(1 - 1/t**2 + 3/t**4 - ...)."""
    inv = 1 / (t * t)
    series, term = L(1), L(1)
    for k in range(1, 20):
        term = -term * inv * (2 * k - 1)
        series += term
    return np.log(series) - np.log(t)


def logpdf_value(x, a, b, loc=0.0, scale=1.0):
    """truncnorm.logpdf's reference: scipy's, except where the support lies in a far tail (the
    bound c nearest 0 beyond +-30): there scipy's -z**2 / 2 - log(mass) cancels two numbers near
    -c**2 / 2 (1.9e61 at x = a = 3.4e38, b = inf, where the log density is log(a) = 88.7), and the
    reference is -(z - c) c - (z - c)**2 / 2 - log(Q(|c|) / phi(c)) - log(mass / Q(|c|)) in long
    double (every term the size of the result)."""
    x, a, b, loc, scale = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (x, a, b, loc, scale)))
    with np.errstate(all="ignore"), scipy.special.errstate(all="ignore"):
        out = np.asarray(scipy.stats.truncnorm.logpdf(x, a, b, loc, scale), np.float64)
        c = np.where(a > 0, a, np.where(b < 0, b, 0.0))
        tail = (np.abs(c) > _FAR) & (a < b) & (scale > 0)
        if not tail.any():
            return out
        xl, al, bl, ll, sl, cl = (L(v[tail]) for v in (x, a, b, loc, scale, c))
        z = (xl - ll) / sl
        t = np.abs(cl)
        far = np.where(al > 0, bl, -al)  # the bound beyond c, as a distance from 0
        ratio = np.where(
            np.isinf(far), 0, np.exp(-(far - t) * (far + t) / 2 + _log_mills(far) - _log_mills(t))
        )
        step = z - cl
        value = -step * cl - step * step / 2 - _log_mills(t) - np.log1p(-ratio) - np.log(sl)
        value = np.where((z < al) | (z > bl), -np.inf, value)
        value = np.where(np.isnan(z), np.nan, value)
        out[tail] = np.asarray(value, np.float64)
    return out


VALUES = {"truncnorm.logpdf": logpdf_value}
