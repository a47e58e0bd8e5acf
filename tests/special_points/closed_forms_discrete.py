"""Closed-form derivative references for the discrete distributions' pmf and logpmf (poisson,
bernoulli, binom, geom, nbinom, betabinom; the standard variant, loc 0).

jax in float64 is no reference for them off the support: its logpmf is a formula of k and the
parameters wrapped in a where, so its slopes there are the formula's (nan where the formula meets
0 * inf, -inf at a non-integer k next to p = 0) while the function is constant (-inf, or 0 for
the pmf) around every point off the support: its derivatives there are 0.

On the support (k an integer in it, the parameters valid) the derivatives are those of the
continuous extension, the same sum of gammaln and x log y terms that both libraries
differentiate: d/dk of gammaln(k + 1) is digamma(k + 1), d/dp of k log p is k / p. A term
x log y with x = 0 is 0 for every y, so its slope in y is 0 there (not 0 / 0). The pmf's
derivatives follow from the logpmf's: f' = f l', f'' = f (l'' + l' l'), nan where f = 0 meets an
infinite slope of l (a boundary of p or mu: jax's value decides there). Invalid parameters
give nan. Long double, and scipy's polygamma in float64.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import scipy.special as sp

L = np.longdouble


@dataclass(frozen=True)
class Lgamma:
    """sign * gammaln(c . x + c0)."""

    sign: float
    c: tuple
    c0: float = 0.0


@dataclass(frozen=True)
class Xlogy:
    """sign * u log v with u = cu . x + u0 and v = cv . x + v0 (0 where u = 0)."""

    sign: float
    cu: tuple
    u0: float
    cv: tuple
    v0: float


@dataclass(frozen=True)
class Linear:
    """c . x."""

    c: tuple


def _lin(c, c0, x):
    return sum((ci * xi for ci, xi in zip(c, x) if ci), np.asarray(L(c0)))


def _log_of(term, x):
    """log v of an Xlogy term, log1p(cv . x) where v0 = 1: 1 - p rounds to 1 in long double at
    p = 1e-30, where log1p(-p) = -1e-30 keeps a slope the pmf's derivatives need."""
    if term.v0 == 1:
        return np.log1p(_lin(term.cv, 0.0, x))
    return np.log(_lin(term.cv, term.v0, x))


def _value(term, x):
    if isinstance(term, Lgamma):
        return term.sign * np.asarray(sp.gammaln(np.asarray(_lin(term.c, term.c0, x), np.float64)), L)
    if isinstance(term, Xlogy):
        u = _lin(term.cu, term.u0, x)
        return term.sign * np.where(u == 0, L(0), u * _log_of(term, x))
    return _lin(term.c, 0.0, x)


def _psi(n: int, z):
    return np.asarray(sp.polygamma(n, np.asarray(z, np.float64)), L)


def _d1(term, x, i):
    zero = np.zeros(np.shape(x[0]), L)
    if isinstance(term, Lgamma):
        return zero + (term.sign * term.c[i] * _psi(0, _lin(term.c, term.c0, x)) if term.c[i] else 0)
    if isinstance(term, Xlogy):
        u, v = _lin(term.cu, term.u0, x), _lin(term.cv, term.v0, x)
        out = zero + (term.cu[i] * _log_of(term, x) if term.cu[i] else 0)
        if term.cv[i]:
            out = out + np.where(u == 0, L(0), u * term.cv[i] / v)
        return term.sign * out
    return zero + term.c[i]


def _d2(term, x, i, j):
    zero = np.zeros(np.shape(x[0]), L)
    if isinstance(term, Lgamma):
        cij = term.c[i] * term.c[j]
        return zero + (term.sign * cij * _psi(1, _lin(term.c, term.c0, x)) if cij else 0)
    if isinstance(term, Xlogy):
        u, v = _lin(term.cu, term.u0, x), _lin(term.cv, term.v0, x)
        cross = term.cu[i] * term.cv[j] + term.cu[j] * term.cv[i]
        out = zero + (cross / v if cross else 0)
        if term.cv[i] * term.cv[j]:
            out = out - np.where(u == 0, L(0), u * term.cv[i] * term.cv[j] / (v * v))
        return term.sign * out
    return zero


@dataclass(frozen=True)
class Discrete:
    """A discrete distribution's logpmf as a sum of terms of (k, *params), its support's ends and
    its valid parameters."""

    terms: tuple
    low: float
    high: object  # (k, *params) -> the upper end of the support, or None for none
    valid: object  # (k, *params) -> bool array


def _on_support(dist: Discrete, x):
    k = x[0]
    finite = np.all([np.isfinite(a) for a in x], axis=0)
    ok = finite & (k == np.floor(np.where(finite, k, 0))) & (k >= dist.low)
    high = dist.high(*x)
    if high is not None:
        ok &= k <= high
    return ok


def _form(dist: Discrete, mass: bool):
    def form(order: int):
        def ref(*args):
            x = [np.asarray(a, L) for a in args]
            m = len(x)
            on = _on_support(dist, x)
            bad = ~dist.valid(*x) | np.any([np.isnan(a) for a in x], axis=0)
            d1 = [sum(_d1(t, x, i) for t in dist.terms) for i in range(m)]
            if order == 1:
                parts = d1
            else:
                parts = [sum(_d2(t, x, i, j) for t in dist.terms) for i in range(m) for j in range(i, m)]
            if mass:
                f = np.exp(sum(_value(t, x) for t in dist.terms))
                if order == 1:
                    parts = [f * d for d in parts]
                else:
                    pairs = [(i, j) for i in range(m) for j in range(i, m)]
                    parts = [f * (d + d1[i] * d1[j]) for d, (i, j) in zip(parts, pairs)]
            return [np.asarray(np.where(bad, np.nan, np.where(on, d, 0)), np.float64) for d in parts]

        return ref

    return form


def _prob(p):
    return (p >= 0) & (p <= 1)


def _no_end(*x):
    return None


def _count(n):
    """n a whole number >= 0, +inf included (scipy's binom and betabinom take it)."""
    return (n >= 0) & (n == np.floor(n))


DISTRIBUTIONS = {
    "poisson": Discrete(
        (Xlogy(1, (1, 0), 0, (0, 1), 0), Lgamma(-1, (1, 0), 1), Linear((0, -1))),
        0,
        _no_end,
        lambda k, mu: mu >= 0,
    ),
    "bernoulli": Discrete(
        (Xlogy(1, (1, 0), 0, (0, 1), 0), Xlogy(1, (-1, 0), 1, (0, -1), 1)),
        0,
        lambda k, p: 1,
        lambda k, p: _prob(p),
    ),
    "binom": Discrete(
        (
            Lgamma(1, (0, 1, 0), 1),
            Lgamma(-1, (1, 0, 0), 1),
            Lgamma(-1, (-1, 1, 0), 1),
            Xlogy(1, (1, 0, 0), 0, (0, 0, 1), 0),
            Xlogy(1, (-1, 1, 0), 0, (0, 0, -1), 1),
        ),
        0,
        lambda k, n, p: n,
        lambda k, n, p: _prob(p) & _count(n),
    ),
    "geom": Discrete(
        (Xlogy(1, (1, 0), -1, (0, -1), 1), Xlogy(1, (0, 0), 1, (0, 1), 0)),
        1,
        _no_end,
        lambda k, p: (p > 0) & (p <= 1),
    ),
    "nbinom": Discrete(
        (
            Lgamma(1, (1, 1, 0)),
            Lgamma(-1, (1, 0, 0), 1),
            Lgamma(-1, (0, 1, 0)),
            Xlogy(1, (0, 1, 0), 0, (0, 0, 1), 0),
            Xlogy(1, (1, 0, 0), 0, (0, 0, -1), 1),
        ),
        0,
        _no_end,
        lambda k, n, p: (n > 0) & (p > 0) & (p <= 1),
    ),
    "betabinom": Discrete(
        (
            Lgamma(1, (0, 1, 0, 0), 1),
            Lgamma(-1, (1, 0, 0, 0), 1),
            Lgamma(-1, (-1, 1, 0, 0), 1),
            Lgamma(1, (1, 0, 1, 0)),
            Lgamma(1, (-1, 1, 0, 1)),
            Lgamma(-1, (0, 1, 1, 1)),
            Lgamma(-1, (0, 0, 1, 0)),
            Lgamma(-1, (0, 0, 0, 1)),
            Lgamma(1, (0, 0, 1, 1)),
        ),
        0,
        lambda k, n, a, b: n,
        lambda k, n, a, b: _count(n) & (a > 0) & (b > 0),
    ),
}

FORMS = {
    f"{name}.{method}": _form(dist, method == "pmf")
    for name, dist in DISTRIBUTIONS.items()
    for method in ("logpmf", "pmf")
}


def _poisson_cdf(order: int):
    """poisson.cdf's first derivatives (jax defines no second in mu): d/dmu Q(floor(k) + 1, mu) =
    -mu^j e^-mu / j! (j = floor(k)) for 0 <= k < inf, its limit 0 at mu = inf; 0 below k = 0 and at
    k = inf, where the cdf is the constant 0 or 1; d/dk is 0 (a step function of k)."""

    def ref(k, mu):
        k, mu = np.asarray(k, L), np.asarray(mu, L)
        inside = (k >= 0) & np.isfinite(k)
        j = np.floor(np.where(inside, k, 0))
        log_pmf = (
            np.where(j == 0, L(0), j * np.log(mu))
            - np.asarray(sp.gammaln(np.asarray(j + 1, np.float64)), L)
            - mu
        )
        slope = np.where(inside & (mu < np.inf), -np.exp(log_pmf), L(0))
        bad = (mu < 0) | np.isnan(k) | np.isnan(mu)
        return [np.asarray(np.where(bad, np.nan, v), np.float64) for v in (np.zeros_like(slope), slope)]

    return ref


FORMS["poisson.cdf"] = _poisson_cdf


# -- betabinom's value: exact rational products ---------------------------------------------------
_EXACT_TRIALS = 64  # n up to this: the exact product (the sweep's counts go to 20)


def _betabinom_exact(k: float, n: float, a: float, b: float, log: bool) -> float:
    """betabinom's pmf (or its log) at whole 0 <= k <= n <= _EXACT_TRIALS and finite a, b > 0:
    C(n, k) prod_{j < k} (a + j) prod_{j < n-k} (b + j) / prod_{j < n} (a + b + j) as an exact
    Fraction (the floats a and b are exact rationals), its log by 40-digit Decimal arithmetic.
    scipy's float64 log-beta difference loses the digits where the pmf is near 1
    (pmf(0; 1, 2.5, 1e4) = 1e4 / 10002.5: scipy 0.9997500624852256, exact 0.99975006248437890...)."""
    fa, fb = Fraction(a), Fraction(b)
    value = Fraction(math.comb(int(n), int(k)))
    for j in range(int(k)):
        value *= fa + j
    for j in range(int(n - k)):
        value *= fb + j
    for j in range(int(n)):
        value /= fa + fb + j
    if not log:
        return float(value)
    with localcontext() as ctx:
        ctx.prec = 40
        return float((Decimal(value.numerator) / Decimal(value.denominator)).ln())


def _value_reference(name: str, log: bool, count: int, applies, exact):
    """The value reference of ``name``.pmf / logpmf(k, *params[, loc]) with ``count`` parameters:
    ``exact(k - loc, *params, log)`` where ``applies`` to that point, scipy's float64 value elsewhere."""
    method = "logpmf" if log else "pmf"

    def ref(k, *rest):
        from .signatures_stats import _scipy_ref  # the table imports this module

        fallback = _scipy_ref(lambda xp, *args: getattr(getattr(xp.stats, name), method)(*args))(k, *rest)
        params, loc = rest[:count], rest[count:]
        with np.errstate(all="ignore"):
            kk = np.asarray(k, np.float64) - np.asarray(loc[0] if loc else 0.0, np.float64)
            args = np.broadcast_arrays(kk, *(np.asarray(v, np.float64) for v in params))
        out = np.array(np.broadcast_to(fallback, args[0].shape), np.float64)
        for i, point in enumerate(zip(*(x.ravel() for x in args))):
            if applies(*point):
                out.flat[i] = exact(*point, log)
        return out

    return ref


def _few_trials(k: float, n: float, a: float, b: float) -> bool:
    """Whether (k, n, a, b) is on betabinom's support with few trials: whole 0 <= k <= n <=
    _EXACT_TRIALS, finite a, b > 0 (where the exact references apply)."""
    regular = bool(np.isfinite([k, n, a, b]).all()) and a > 0 and b > 0
    return regular and k == math.floor(k) and n == math.floor(n) and 0 <= k <= n <= _EXACT_TRIALS


def _poisson_applies(k: float, mu: float) -> bool:
    """A whole 0 <= k < 2^53 and 0 < mu < inf (where _poisson_exact applies)."""
    return 0 <= k < 2.0**53 and k == math.floor(k) and 0 < mu < np.inf


def _poisson_exact(k: float, mu: float, log: bool) -> float:
    """poisson's pmf (or its log) as k log mu - mu - log k! at 40 digits: scipy's gammaln difference
    keeps 1e-11 of the terms it cancels at k = mu = 1e4 (logpmf -5.5)."""
    import mpmath  # noqa: PLC0415

    with mpmath.workdps(40):
        log_mass = k * mpmath.log(mu) - mu - mpmath.loggamma(k + 1)
        return float(log_mass if log else mpmath.exp(log_mass))


VALUES = {
    f"{name}.{method}": _value_reference(name, method == "logpmf", count, applies, exact)
    for name, count, applies, exact in (
        ("betabinom", 3, _few_trials, _betabinom_exact),
        ("poisson", 1, _poisson_applies, _poisson_exact),
    )
    for method in ("pmf", "logpmf")
}


def log_slopes(name: str, point, order: int) -> list:
    """The logpmf's first slopes in (k, *params) (order 1) or its second slopes d2/dx_i dx_j, i <= j
    (order 2), of distribution ``name`` at ``point`` as mpmath numbers of the current precision:
    the terms' digamma and trigamma sums and u log v slopes (of the continuous extension)."""
    import mpmath  # noqa: PLC0415  (the one reference that needs more than long double)

    terms, x = DISTRIBUTIONS[name].terms, [mpmath.mpf(v) for v in point]
    m = len(x)

    def lin(c, c0):
        return sum((ci * v for ci, v in zip(c, x) if ci), mpmath.mpf(c0))

    def d1(t, i):
        if isinstance(t, Linear):
            return t.c[i]
        if isinstance(t, Lgamma):
            return t.sign * t.c[i] * mpmath.psi(0, lin(t.c, t.c0)) if t.c[i] else 0
        u, v = lin(t.cu, t.u0), lin(t.cv, t.v0)
        out = t.cu[i] * _mp_log(t, x) if t.cu[i] else 0
        return t.sign * (out + (u * t.cv[i] * _reciprocal(v) if t.cv[i] and u != 0 else 0))

    def d2(t, i, j):
        if isinstance(t, Linear):
            return 0
        if isinstance(t, Lgamma):
            cij = t.c[i] * t.c[j]
            return t.sign * cij * mpmath.psi(1, lin(t.c, t.c0)) if cij else 0
        u, v = lin(t.cu, t.u0), lin(t.cv, t.v0)
        cross = t.cu[i] * t.cv[j] + t.cu[j] * t.cv[i]
        out = cross * _reciprocal(v) if cross else 0
        return t.sign * (
            out - (u * t.cv[i] * t.cv[j] * _reciprocal(v) ** 2 if t.cv[i] * t.cv[j] and u != 0 else 0)
        )

    if order == 1:
        return [sum(d1(t, i) for t in terms) for i in range(m)]
    return [sum(d2(t, i, j) for t in terms) for i in range(m) for j in range(i, m)]


def _reciprocal(v):
    """1 / v in mpmath, +inf at v = 0 (a log's argument reaches 0 from above: 1 - p at p = 1)."""
    import mpmath  # noqa: PLC0415

    return mpmath.inf if v == 0 else 1 / v


def _mp_log(term, x):
    """log v of an Xlogy term in mpmath, log1p(cv . x) where v0 = 1 (as ``_log_of``: 1 - p is 1 at
    40 digits for p = 2.2e-308)."""
    import mpmath  # noqa: PLC0415

    z = sum((c * v for c, v in zip(term.cv, x) if c), mpmath.mpf(0))
    return mpmath.log1p(z) if term.v0 == 1 else mpmath.log(z + term.v0)


def _log_mass(name: str, point):
    """The logpmf at ``point`` as an mpmath number of the current precision."""
    import mpmath  # noqa: PLC0415

    x = [mpmath.mpf(v) for v in point]
    total = mpmath.mpf(0)
    for t in DISTRIBUTIONS[name].terms:
        if isinstance(t, Linear):
            total += sum(c * v for c, v in zip(t.c, x))
        elif isinstance(t, Lgamma):
            total += t.sign * mpmath.loggamma(sum((c * v for c, v in zip(t.c, x)), mpmath.mpf(t.c0)))
        else:
            u = sum((c * v for c, v in zip(t.cu, x)), mpmath.mpf(t.u0))
            total += t.sign * u * _mp_log(t, x) if u != 0 else 0
    return total


def _exact_slopes(name: str, mass: bool, applies):
    """A derivative reference of ``name``'s logpmf (or pmf, with ``mass``): log_slopes in mpmath (at
    ``_digits``) where ``applies(*point)``, the pmf's as f l' and f (l'' + l' l'); the long-double form
    elsewhere. scipy's float64 polygammas and long double do not survive the cancellations there:
    betabinom's psi(10000.5) - psi(10001) of two 9.2 (d/db logpmf(0, 1, 0.5, 1e4) = 1/b - 1/(a + b)
    was 4.99975e-9 against the true 4.9997500125e-9), nbinom's psi'(1e4) - psi'(10001) (d2/dk2 at
    (1e4, 2.2e-308, 1e-7) is 1/k^2 = 1e-8, was 9.999999999994822e-9), binom's d/dp pmf(1; 1e4, p)
    at p = 2.2e-308 (1e4 within an ulp, was 10000.00000004964)."""
    import mpmath  # noqa: PLC0415

    generic = _form(DISTRIBUTIONS[name], mass)

    def exact(point, order: int) -> list:
        d1 = log_slopes(name, point, 1)
        values = d1 if order == 1 else log_slopes(name, point, 2)
        if not mass:
            return values
        f = mpmath.exp(_log_mass(name, point))
        if order == 1:
            return [f * v for v in values]
        m = len(point)
        pairs = [(i, j) for i in range(m) for j in range(i, m)]
        return [f * (v + d1[i] * d1[j]) for v, (i, j) in zip(values, pairs)]

    def form(order: int):
        def ref(*args):
            x = np.broadcast_arrays(*(np.asarray(a, np.float64) for a in args))
            out = [np.array(np.broadcast_to(p, x[0].shape), np.float64) for p in generic(order)(*args)]
            for idx in np.ndindex(x[0].shape):
                point = tuple(float(v[idx]) for v in x)
                if applies(*point):
                    with mpmath.workdps(_digits(point) if mass and order == 2 else 40):
                        for part, v in zip(out, exact(point, order)):
                            part[idx] = float(v)
            return out

        return ref

    return form


def _digits(point) -> int:
    """The working precision of the pmf's second slopes at ``point``: 40 digits, and twice as many
    more as its smallest coordinate has leading zeros: f (l'' + l' l') cancels two terms of 1/x^2
    for a tiny parameter x (nbinom's d2/dn2 at n = 1.2e-38 is 2 (1 - p) log p = -32.2, from two
    7e75). The first slopes and the logpmf's second keep their leading terms: 40 digits do."""
    tiny = min((abs(v) for v in point if v != 0), default=1.0)
    return 40 + 2 * max(0, -math.floor(math.log10(tiny)))


def _inside(name: str, mass: bool):
    """Whether a point is on ``name``'s support, valid, finite, with every log-gamma argument
    positive and every log's argument too, or for the logpmf (not ``mass``) not negative (a log of
    0, 1 - p at p = 1, gives its infinite terms, and the digamma sums stay exact; the pmf's
    f (l'' + l' l') there is the long-double form's nan or infinity)."""
    dist = DISTRIBUTIONS[name]

    def applies(*point) -> bool:
        x = [np.asarray(v, L) for v in point]
        if not (bool(_on_support(dist, x)) and bool(dist.valid(*x))):
            return False
        for t in dist.terms:
            if isinstance(t, Lgamma) and sum(c * v for c, v in zip(t.c, point)) + t.c0 <= 0:
                return False
            if isinstance(t, Xlogy):
                v = sum(c * v for c, v in zip(t.cv, point)) + t.v0
                if v < 0 or (mass and v == 0):
                    return False
        return True

    return applies


FORMS["betabinom.logpmf"] = _exact_slopes("betabinom", False, _few_trials)
FORMS["betabinom.pmf"] = _exact_slopes("betabinom", True, _few_trials)
for _name in ("binom", "nbinom", "geom", "poisson"):
    FORMS[f"{_name}.logpmf"] = _exact_slopes(_name, False, _inside(_name, False))
    FORMS[f"{_name}.pmf"] = _exact_slopes(_name, True, _inside(_name, True))


_ENTROPY_SUMMED_UP_TO = (
    5e3  # mu beyond this: the asymptotic series' derivatives (the sums cancel 9.2 to 5e-5 at 1e4)
)


def _poisson_entropy_at(mu: float, order: int) -> float:
    """H'(mu) = E[log(K + 1)] - log mu and H''(mu) = E[log1p(1 / (K + 1))] - 1/mu (from p_k' =
    p_{k-1} - p_k), summed in long double with log k! as a running sum of logs; for large mu the
    derivatives of 1/2 log(2 pi e mu) - 1/(12 mu) - 1/(24 mu^2) - 19/(360 mu^3)."""
    m = L(mu)
    if mu > _ENTROPY_SUMMED_UP_TO:
        if order == 1:
            return float(1 / (2 * m) + 1 / (12 * m**2) + 1 / (12 * m**3) + 19 / (120 * m**4))
        return float(-1 / (2 * m**2) - 1 / (6 * m**3) - 1 / (4 * m**4) - 19 / (30 * m**5))
    top = int(mu + 40 * math.sqrt(mu) + 60)
    k = np.arange(top, dtype=L)
    log_factorial = np.concatenate([[L(0)], np.cumsum(np.log(k[1:]))])
    p = np.exp(k * np.log(m) - m - log_factorial)
    if order == 1:
        return float(np.sum(p * np.log(k + 1)) - np.log(m))
    return float(np.sum(p * np.log1p(1 / (k + 1))) - 1 / m)


def _poisson_entropy(order: int):
    """poisson.entropy's derivatives (_poisson_entropy_at); at mu = 0 (a subnormal mu is 0 to the
    reference, as to XLA) their limits: H = mu - mu log mu + O(mu^2), so H' -> +inf, H'' -> -inf;
    at mu = inf their limits 0 (H' ~ 1/(2 mu)); nan for mu < 0 or nan."""

    def ref(mu):
        mu = np.asarray(mu, np.float64)
        out = np.full(mu.shape, np.nan)
        for i, v in enumerate(mu.ravel()):
            if v == 0:
                out.flat[i] = np.inf if order == 1 else -np.inf
            elif v == np.inf:
                out.flat[i] = 0.0
            elif 0 < v < np.inf:
                out.flat[i] = _poisson_entropy_at(v, order)
        return [out]

    return ref


FORMS["poisson.entropy"] = _poisson_entropy
