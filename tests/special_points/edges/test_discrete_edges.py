"""sg.scipy.stats' discrete distributions at the edges the special-point sweep found (issue 20):
log-pmfs exactly 0 where the probability is 1, nan for k - loc = inf - inf, poisson's cdf at
k = inf, whole slopes at the support's lower end, zero slopes (not nan) off the support."""

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
import scipy.special as sp
from scipy import stats as st

import stablegraph as sg

from ..closed_forms_discrete import _betabinom_exact as exact_betabinom
from ..closed_forms_discrete import log_slopes

S = sg.scipy.stats


def _run(build, *arrays):
    """build(*placeholders) run on ``arrays``."""
    g = sg.Graph()
    with g:
        ps = [sg.placeholder(a.shape, sg.float64 if a.dtype == np.float64 else sg.float32) for a in arrays]
        out = build(*ps)
    with sg.Session(g) as sess:
        return sess.run(out, dict(zip(ps, arrays)))


def _slope(fn, i, *arrays):
    """d fn / d argument i, elementwise."""
    return _run(lambda *ps: sg.grad(lambda *q: sg.numpy.sum(fn(*q)), argnums=i)(*ps), *arrays)


def _f(*xs, dtype=np.float32):
    return [np.asarray(x, dtype) for x in xs]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_certain_outcomes_have_log_probability_exactly_zero(dtype):
    # binom with n = 0 or k = n = 1, p = 1; nbinom at k = 0, p = 1; betabinom with n = 0; poisson at mu = 0
    # log C(n, k) + k log p + (n - k) log(1 - p) with every term 0 (scipy's float32 gammaln leaves
    # 5.6e-8 at n = 5, XLA's lgamma 4.8e-7 at 1); all in one graph
    binom = _f([0, 0, 1, 0], [0, 0, 1, 5], [0.3, 1.0, 1.0, 0.0], dtype=dtype)
    nbinom = _f([0, 0], [3.0, 0.5], [1.0, 1.0], dtype=dtype)
    betabinom = _f([0, 0], [0, 0], [0.5, 2.5], [1.0, 3.0], dtype=dtype)
    poisson = _f([0], [0.0], dtype=dtype)

    def build(*p):
        return (
            S.binom.logpmf(*p[:3]),
            S.binom.pmf(*p[:3]),
            S.nbinom.logpmf(*p[3:6]),
            S.betabinom.logpmf(*p[6:10]),
            S.poisson.logpmf(*p[10:]),
        )

    logs = _run(build, *binom, *nbinom, *betabinom, *poisson)
    np.testing.assert_array_equal(logs[1], 1.0)
    for got in logs[:1] + logs[2:]:
        np.testing.assert_array_equal(got, 0.0)


@pytest.mark.parametrize(
    "dist, params",
    [
        ("poisson", (2.0,)),
        ("bernoulli", (0.5,)),
        ("binom", (5.0, 0.5)),
        ("geom", (0.5,)),
        ("nbinom", (2.0, 0.5)),
    ],
)
def test_infinite_k_minus_infinite_loc_is_nan(dist, params):
    # scipy's k - loc is inf - inf = nan there, and its pmf nan; a comparison of nan k is False,
    # which used to land on "off the support" (-inf, 0)
    k, loc = _f([np.inf, -np.inf, 3.0], [np.inf, -np.inf, 1.0])
    ps = [np.full(3, v, np.float32) for v in params]
    fn = getattr(S, dist)
    got = _run(lambda kk, ll, *pp: fn.logpmf(kk, *pp, loc=ll), k, loc, *ps)
    want = getattr(st, dist).logpmf(k.astype(float), *params, loc=loc.astype(float))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert np.isnan(got[:2]).all()
    np.testing.assert_allclose(got[2], want[2], rtol=1e-6)


def test_poisson_cdf_at_infinite_k():
    # every k up to inf is in: cdf 1 and sf 0 for every mu, mu = inf too (Q(inf, inf) is nan)
    k, mu = _f([np.inf, np.inf, np.inf, -np.inf, 3.0], [np.inf, 2.0, 0.0, np.inf, np.inf])
    cdf, sf = _run(lambda a, b: (S.poisson.cdf(a, b), S.poisson.sf(a, b)), k, mu)
    np.testing.assert_array_equal(cdf, st.poisson.cdf(k, mu))
    np.testing.assert_array_equal(sf, st.poisson.sf(k, mu))
    np.testing.assert_array_equal(cdf, [1, 1, 1, 0, 0])


def test_whole_slope_at_the_supports_lower_end():
    # d/dk of the continuous extension at k = 1 (geom) and k = 0 (nbinom): maximum(k, low)'s tie
    # used to halve it
    k, p = _f([1.0, 1.0], [0.25, 1e-10], dtype=np.float64)
    np.testing.assert_allclose(_slope(S.geom.logpmf, 0, k, p), np.log1p(-p), rtol=1e-12)
    k, n, p = _f([0.0, 0.0], [0.1, 3.0], [0.5, 0.9], dtype=np.float64)
    want = sp.digamma(n) - sp.digamma(1.0) + np.log1p(-p)
    np.testing.assert_allclose(_slope(S.nbinom.logpmf, 0, k, n, p), want, rtol=1e-12)
    np.testing.assert_allclose(_slope(S.nbinom.pmf, 0, k, n, p), st.nbinom.pmf(k, n, p) * want, rtol=1e-12)


def _slopes(fn, *ps):
    """d fn / d each argument, elementwise (one graph for all of them)."""
    return sg.grad(lambda *q: sg.numpy.sum(fn(*q)), argnums=tuple(range(len(ps))))(*ps)


def test_zero_slope_off_the_support():
    # a non-integer k next to p = 0 or 1: the pmf is 0 (log -inf) around the point, so every slope
    # is 0; the formula's own slope there is 0 * inf = nan, which must not leak through the where.
    # Every distribution's logpmf and pmf slopes in one graph.
    cases = [
        ("bernoulli", _f([0.5, 0.5, 0.5, -1.0, 2.0], [0.0, 1.0, 0.3, 0.0, 1.0])),
        ("binom", _f([2.5, 2.5, 7.0], [5.0, 5.0, 5.0], [0.0, 1.0, 1.0])),
        ("poisson", _f([0.5, -1.0], [0.0, 0.0])),
        ("nbinom", _f([0.5, -2.0], [2.0, 2.0], [1.0, 1.0])),
    ]
    arrays = [a for _, args in cases for a in args]

    def build(*ps):
        out, i = [], 0
        for dist, args in cases:
            q = ps[i : i + len(args)]
            i += len(args)
            for method in ("logpmf", "pmf"):
                out.extend(_slopes(getattr(getattr(S, dist), method), *q))
        return out

    for got in _run(build, *arrays):
        np.testing.assert_array_equal(got, 0.0)


def test_poisson_cdf_slope_off_the_support_is_zero():
    # below k = 0 the cdf is the constant 0: its slope in mu is 0 even at mu = inf
    k, mu = _f([-2.0, -1.0, np.inf], [np.inf, np.inf, 3.0])
    np.testing.assert_array_equal(_slope(S.poisson.cdf, 1, k, mu), 0.0)


L = np.longdouble


def _ulps(got, want, dtype):
    """|got - want| in ulps of want rounded to dtype."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return np.abs(got - want) / np.spacing(np.abs(want).astype(dtype)).astype(np.float64)


def _log_rising(x, m):
    """log Gamma(x + m) / Gamma(x) = sum of log(x + j), j < m, in long double (m a whole number)."""
    return sum((np.log(L(x) + j) for j in range(int(m))), L(0))


def test_float32_log_pmfs_keep_the_digits_their_log_gamma_terms_cancel():
    # float32 is computed in float64 and rounded once: betabinom's beta ratio at b = 1e4 is
    # log(1e4 / 10001) = -1e-4 from two logs of ~9.2 (float32 gave -9.918e-5), at n = 0 exactly 0
    # (float32 gave -4.8e-7); nbinom's gammaln(n + k) - gammaln(n) at n = 1e4 is ~18 out of two
    # gammaln of ~8e4 (9 float32 ulps off). Oracles: the rising factorials' logs in long double.
    def betabinom(k, n, a, b):
        return (
            _log_rising(L(k) + 1, n - k)
            - _log_rising(1, n - k)
            + _log_rising(a, k)
            + _log_rising(b, n - k)
            - _log_rising(L(a) + L(b), n)
        )

    def nbinom(k, n, p):
        return _log_rising(n, k) - _log_rising(1, k) + L(n) * np.log(L(p)) + L(k) * np.log1p(-L(p))

    k, n, a, b = _f([0, 0, 0, 3, 2], [1, 1, 0, 7, 1e4], [1, 1, 0.5, 0.3, 2.5], [1e4, 1, 0.5, 2.5, 1e4])
    k2, n2, p = _f([2, 5, 3, 0], [1e4, 1e4, 2.5, 1e4], [0.9, 1 - 2.0**-24, 0.3, 0.5])

    def build(*x):
        return (
            S.betabinom.logpmf(*x[:4]),
            S.betabinom.pmf(*x[:4]),
            S.nbinom.logpmf(*x[4:]),
            S.nbinom.pmf(*x[4:]),
        )

    got, pmf, got2, pmf2 = _run(build, k, n, a, b, k2, n2, p)
    want = np.array([betabinom(*map(float, z)) for z in zip(k, n, a, b)])
    assert _ulps(got, want, np.float32).max() <= 1, (got, want)
    assert _ulps(pmf, np.exp(want), np.float32).max() <= 1, (pmf, np.exp(want))
    got, pmf = got2, pmf2
    want = np.array([nbinom(*map(float, z)) for z in zip(k2, n2, p)])
    assert _ulps(got, want, np.float32).max() <= 1, (got, want)
    assert _ulps(pmf, np.exp(want), np.float32).max() <= 1, (pmf, np.exp(want))


def test_poisson_cdf_of_few_counts_is_its_finite_sum():
    # Q(k + 1, mu) = e^-mu sum_{j <= k} mu^j / j!; its slope in mu is -e^-mu mu^k / k! (4.5e-81 at
    # k = 5, mu = eps, where j log mu - mu - log j! loses digits)
    k, mu = _f([0, 1, 1.5, 7, 5, 3], [1.5, 2.0, 2.0, 30.0, 2.0**-52, 0.0], dtype=np.float64)
    cdf, slope = _run(
        lambda *x: (S.poisson.cdf(*x), sg.grad(lambda m: sg.numpy.sum(S.poisson.cdf(x[0], m)))(x[1])), k, mu
    )
    j = np.floor(k)
    terms = [[L(m) ** i / L(sp.factorial(i)) for i in range(int(jj) + 1)] for jj, m in zip(j, mu)]
    want = np.array([np.exp(-L(m)) * sum(t) for t, m in zip(terms, mu)])
    assert _ulps(cdf, want, np.float64).max() <= 2, (cdf, want)
    want_slope = np.array([-np.exp(-L(m)) * t[-1] for t, m in zip(terms, mu)])
    assert _ulps(slope, want_slope, np.float64).max() <= 4, (slope, want_slope)
    np.testing.assert_allclose(cdf, st.poisson.cdf(k, mu), rtol=1e-14)


def _betabinom_exact(k, n, a, b):
    """The exact pmf as a Fraction (closed_forms_discrete): its float and its log to 40 digits."""
    return exact_betabinom(k, n, a, b, log=False), exact_betabinom(k, n, a, b, log=True)


def test_betabinom_near_certain_outcomes_and_flat_slopes():
    # pmf(0; 1, 2.5, 1e4) = 1e4 / 10002.5: the log-beta difference betaln(2.5, 10001) - betaln(2.5,
    # 1e4) left the log-pmf -2.4997e-4 40470 ulps off (pmf 10 ulps); at n = 0 the log-pmf is 0 for
    # every a and b, so its slopes there are exactly 0 (digamma differences left 1.1e-16 at a = b =
    # 1e4, second derivatives -1.8e-15 at a = b = 1)
    k, n, a, b = _f([0, 1, 3, 2, 7, 0], [1, 1, 5, 20, 20, 0], [2.5, 1e4, 0.5, 1e4, 0.3, 1e4], [1e4, 2.5, 2.5, 1e4, 2.5, 1e4],
                    dtype=np.float64)  # fmt: skip
    # the slopes at n = 0 (below) ride on the last two points: values and slopes in one graph
    flat = _f([0, 0], [0, 0], [1e4, 1.0], [1e4, 1.0], dtype=np.float64)

    def build(*x):  # values; d/dk, d/da, d/db (d/dn is psi(b) - psi(a + b) there) and d2/da2
        first = sg.grad(lambda *q: sg.numpy.sum(S.betabinom.logpmf(*q)), argnums=(0, 2, 3))(*x)
        in_a = sg.grad(lambda q: sg.numpy.sum(S.betabinom.logpmf(x[0], x[1], q, x[3])))
        second = sg.grad(lambda q: sg.numpy.sum(in_a(q)))(x[2])
        return (S.betabinom.logpmf(*x), S.betabinom.pmf(*x), *first, second)

    logpmf, pmf, *slopes = _run(build, *(np.concatenate([u, v]) for u, v in zip((k, n, a, b), flat)))
    for got in slopes:
        np.testing.assert_array_equal(got[-2:], 0.0)
    logpmf, pmf = logpmf[:-2], pmf[:-2]
    want_pmf, want = np.array([_betabinom_exact(*z) for z in zip(k, n, a, b)]).T
    assert _ulps(logpmf, want, np.float64).max() <= 4, (logpmf, want)  # log C(20, 7) + sums of -15: 4
    # exp(logpmf): one ulp of a log of -8.6 is 8 ulps of the pmf
    assert _ulps(pmf, want_pmf, np.float64).max() <= 2 + 2 * np.abs(want).max(), (pmf, want_pmf)


def test_binom_pmf_products_and_nbinom_log_coefficients():
    # binom's pmf for few trials is C(n, k) p^k (1 - p)^(n - k) (exp of its log-pmf was up to 20 ulps
    # off: 4.99999800000029e-07 at (1, 5, 1e-7)); where it underflows (p^5 at p = 2.2e-308) its slope
    # is 0, not 0 * inf; nbinom's log Gamma(n + k) / Gamma(n) at n = 1e4 by gamma_ratio_log (109 ulps
    # off at (2, 1e4, 0.9)). Oracles: exact Fractions, 40-digit Decimal logs.
    import math
    from decimal import Decimal, localcontext
    from fractions import Fraction

    k, n, p = _f([1, 4, 7, 3, 5], [5, 5, 31, 20, 5], [1e-7, 0.1, 0.9, 0.3, 2.0**-1022], dtype=np.float64)
    nb_log = _f([2, 4, 3], [1e4, 1e4, 2.5], [0.9, 0.5, 0.3], dtype=np.float64)
    # nbinom's pmf for few failures: prod (n + j) / (j + 1) p^n (1 - p)^k (exp of its log was 48 ulps
    # off at (1, 10, 0.1))
    nb_pmf = _f([1, 3, 5], [10, 2.5, 3], [0.1, 0.3, 0.5], dtype=np.float64)

    def build(a, b, c, *x):
        slope = sg.grad(lambda q: sg.numpy.sum(S.binom.pmf(a, b, q)))(c)
        return S.binom.pmf(a, b, c), slope, S.nbinom.logpmf(*x[:3]), S.nbinom.pmf(*x[3:])

    pmf, slope, nb_logpmf, nb_pmf_got = _run(build, k, n, p, *nb_log, *nb_pmf)
    exact = [
        math.comb(int(b), int(a)) * Fraction(c) ** int(a) * (1 - Fraction(c)) ** int(b - a)
        for a, b, c in zip(k, n, p)
    ]
    assert _ulps(pmf[:4], [float(e) for e in exact[:4]], np.float64).max() <= 2, pmf
    assert pmf[4] == 0 and slope[4] == 0, (pmf, slope)
    k, n, p = nb_log
    got = nb_logpmf
    with localcontext() as ctx:
        ctx.prec = 40
        want = []
        for a, b, c in zip(k, n, p):
            coef = math.prod(Fraction(b) + j for j in range(int(a))) / math.factorial(int(a))
            logs = Decimal(coef.numerator).ln() - Decimal(coef.denominator).ln()
            want.append(float(logs + Decimal(b) * Decimal(c).ln() + Decimal(a) * (1 - Decimal(c)).ln()))
    assert _ulps(got, want, np.float64).max() <= 2, (got, want)
    k, n, p = nb_pmf
    pmf = nb_pmf_got
    exact = [
        math.comb(int(b) + int(a) - 1, int(a)) * Fraction(c) ** int(b) * (1 - Fraction(c)) ** int(a)
        for a, b, c in zip(k, n, p)
        if b == int(b)
    ]
    assert _ulps(pmf[[0, 2]], [float(e) for e in exact], np.float64).max() <= 2, pmf
    np.testing.assert_allclose(pmf[1], st.nbinom.pmf(3, 2.5, 0.3), rtol=1e-14)


def test_geom_slope_where_k_p_is_near_one():
    # d/dp logpmf = 1/p - (k - 1)/(1 - p) = (1 - k p) / (p (1 - p)): at k p = 1 + 5.6e-17 (k = 10, p =
    # 0.1) the two terms cancelled to 0 (jax -4.4e-16); oracle: the exact rational of the float p
    from fractions import Fraction

    k, p = _f([10, 3, 1], [0.1, 1 / 3, 0.5], dtype=np.float64)
    got = _slope(S.geom.logpmf, 1, k, p)
    want = [float((1 - int(a) * Fraction(b)) / (Fraction(b) * (1 - Fraction(b)))) for a, b in zip(k, p)]
    assert _ulps(got, want, np.float64).max() <= 4, (got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_geom_pmf_slopes_in_p_from_its_product(dtype):
    """pmf = p (1 - p)^(k - 1): d2/dp2 = (k - 1)(1 - p)^(k - 3)((k - 2) p - 2 (1 - p)), 0 at k = 1
    (exp(logpmf)'s f (l'' + l'^2) cancelled 1/p^2 terms: 4.7e13 at (1, 1e-30), 3.3e-11 at
    (1, 1e-5)); d/dp = (1 - p)^(k - 2)(1 - k p) at (10, 0.1), where 1 - k p = -5.6e-17 (the
    product's own chain rule left an ulp of 0.39, 2.3x the slope). Oracle: the exact rationals of
    the float points."""
    from fractions import Fraction

    k, p = _f([1, 2, 3, 1, 1, 10, 5, 10], [1e-30, 1e-30, 1e-30, 1e-5, 0.1, 0.1, 0.999, 0.1], dtype=dtype)

    def slopes(k, p):
        d1 = sg.gradients(sg.numpy.sum(S.geom.pmf(k, p)), [p])[0]
        return [d1, sg.gradients(sg.numpy.sum(d1), [p])[0]]

    def exact(k, p):
        """(d/dp, d2/dp2) of p (1 - p)^(k - 1) at the float p, in rationals."""
        k, p = int(k), Fraction(float(p))
        d1 = (1 - p) ** (k - 1) - (k - 1) * p * (1 - p) ** (k - 2)
        d2 = (k - 1) * (1 - p) ** (k - 3) * ((k - 2) * p - 2 * (1 - p))
        return float(d1), float(d2)

    d1, d2 = _run(slopes, k, p)
    want_d1, want_d2 = np.array([exact(a, b) for a, b in zip(k, p)]).T
    assert _ulps(d1, want_d1, dtype).max() <= 4, (d1, want_d1)
    zero = want_d2 == 0
    assert np.all(d2[zero] == 0), d2
    assert _ulps(d2[~zero], want_d2[~zero], dtype).max() <= 8, (d2, want_d2)


def _binom_exact(k, n, p):
    """log C(n, k) + k log p + (n - k) log(1 - p), its slope and curvature in n (digamma and
    trigamma differences as finite sums), in 50-digit decimals, for whole k and n."""
    from decimal import Decimal, getcontext

    getcontext().prec = 50
    p = Decimal(p)
    log1m = -sum(p**j / j for j in range(1, 60)) if p < Decimal("0.01") else (1 - p).ln()
    value = sum((Decimal(n - j).ln() - Decimal(j + 1).ln()) for j in range(k)) + (n - k) * log1m
    value += k * p.ln() if k else 0
    slope = sum(Decimal(1) / j for j in range(n - k + 1, n + 1)) + log1m
    curvature = -sum(Decimal(1) / j**2 for j in range(n - k + 1, n + 1))
    return [float(v) for v in (value, slope, curvature)]


def test_binom_log_pmf_and_its_slopes_in_n_at_n_1e4():
    """The sweep's float64 points at n = 1e4: ours within 2 ulps of the exact values; jax's (the
    sweep's reference there) are 5 to 5600 ulps off (issue 20, listed as DIFFERENCES)."""
    k = np.array([1, 1, 1, 1, 1, 2, 2, 2, 2, 5, 20, 20], np.float64)
    p = np.array([2.2250738585072014e-308, 1e-7, 2.220446049250313e-16, 0.1, 0.5, 2.2250738585072014e-308,
                  1e-7, 2.220446049250313e-16, 0.1, 0.0, 0.5, 1e-7])  # fmt: skip
    n = np.full_like(k, 1e4)

    def build(k, n, p):
        value = S.binom.logpmf(k, n, p)
        slope = sg.grad(lambda m: sg.numpy.sum(S.binom.logpmf(k, m, p)))
        return value, slope(n), sg.grad(lambda m: sg.numpy.sum(slope(m)))(n)

    got = _run(build, k, n, p)
    want = np.array([_binom_exact(int(a), 10000, float(b)) for a, b in zip(k, p)]).T
    for part, g, w in zip(("value", "d/dn", "d2/dn2"), got, want):
        with np.errstate(invalid="ignore"):  # -inf - -inf: log 0 at p = 0, where g == w
            close = (g == w) | (np.abs(g - w) <= 2.5 * np.spacing(np.abs(w)))
        assert np.all(close), (part, g, w, (g - w) / np.spacing(w))


def _nbinom_closed_forms():
    """(point, which slope, exact value) for nbinom.pmf = C(k + n - 1, k) p^n (1 - p)^k where the
    derivative has a closed form: in 50-digit decimals (or exact by hand) at points the sweep found."""
    from decimal import Decimal, getcontext

    getcontext().prec = 50
    tiny = 2.2250738585072014e-308
    p = Decimal(1) - Decimal(2) ** -53  # 1 - 2^-53, a float64
    n = Decimal(10000)
    # d/dp at k = 1: n p^(n - 1) (n (1 - p) - p); at k = 5 the same of C(n + 4, 5) p^n (1 - p)^5
    d_p_k1 = n * (p.ln() * (n - 1)).exp() * (n * (1 - p) - p)
    c5 = Decimal(1)
    for i in range(5):
        c5 = c5 * (n + i) / (i + 1)
    d_p_k5 = c5 * (p.ln() * (n - 1)).exp() * (1 - p) ** 4 * (n * (1 - p) - 5 * p)
    eps, q = Decimal(2.220446049250313e-16), Decimal("1e-7")
    log1m_eps = -sum(eps**j / j for j in range(1, 6))
    log1m_q = -sum(Decimal(float(q)) ** j / j for j in range(1, 8))
    return [
        # mass underflows (p^2 = 5e-616) but d2/dp2 of C p^2 (1 - p)^k is 2 C = 2 (k + 1)
        ((0.0, 2.0, tiny), (2, 2), 2.0),
        ((1.0, 2.0, tiny), (2, 2), 4.0),
        ((2.0, 2.0, tiny), (2, 2), 6.0),
        ((1.0, 2.0, tiny), (2,), 4 * tiny),
        # d/dk where the digamma terms cancel (n = 1): p (1 - p)^k log(1 - p)
        ((2.0, 1.0, float(eps)), (0,), float(eps * (1 - eps) ** 2 * log1m_eps)),
        ((20.0, 1.0, 1e-7), (0,), float(Decimal(1e-7) * (1 - Decimal(1e-7)) ** 20 * log1m_q)),
        # n = 1e4, p = 1 - 2^-53: exp(logpmf)'s slopes were 5e4 ulps off (and jax's are)
        ((1.0, 1e4, float(p)), (2,), float(d_p_k1)),
        ((5.0, 1e4, float(p)), (2,), float(d_p_k5)),
        # n = 2.2e-308: d2/dn2 of p^n at k = 0 is p^n log(p)^2; of n p^n (1 - p) at k = 1, (1 - p) 2 log p
        ((0.0, tiny, 0.5), (1, 1), float(Decimal(0.5).ln() ** 2)),
        ((1.0, tiny, 0.5), (1, 1), float(Decimal(0.5).ln())),
        ((1.0, tiny, float(eps)), (1, 1), float((1 - eps) * 2 * eps.ln())),
    ]


def test_nbinom_pmf_where_its_mass_or_its_slopes_lost_their_digits():
    """nbinom.pmf's value where a factor of its product is subnormal (XLA's power gives 0 there:
    the pmf was 0 for 3.4e-258), and slopes the sweep found wrong: 0 for 2, 4, 6 where the mass
    underflows, 15% off where the digamma terms cancel, 5e4 ulps off at n = 1e4 (issue 20)."""
    p = 1.0 - 2.0**-53
    k = np.array([20.0, 21.0, 5.0], np.float64)
    values = _run(lambda a, b, c: S.nbinom.pmf(a, b, c), k, np.full(3, 1e4), np.full(3, p))
    np.testing.assert_allclose(values, st.nbinom.pmf(k, 1e4, p), rtol=1e-12)
    assert values[0] > 1e-258

    cases = _nbinom_closed_forms()
    points = np.array([c[0] for c in cases], np.float64).T
    want = np.array([c[2] for c in cases])

    def build(k, n, q):
        args = (k, n, q)
        pmf = lambda *a: sg.numpy.sum(S.nbinom.pmf(*a))  # noqa: E731
        first = [sg.grad(pmf, argnums=i)(*args) for i in range(3)]
        second = {}
        for i, j in {c[1] for c in cases if len(c[1]) == 2}:
            slope = sg.grad(pmf, argnums=i)
            second[i, j] = sg.grad(lambda *a, slope=slope: sg.numpy.sum(slope(*a)), argnums=j)(*args)
        return first, second

    first, second = _run(build, *points)
    got = np.array([first[c[1][0]][m] if len(c[1]) == 1 else second[c[1]][m] for m, c in enumerate(cases)])
    assert (_ulps(got, want, np.float64) <= 4).all(), list(zip(cases, got, _ulps(got, want, np.float64)))

    # float32: d2/dn2 at n = 1.2e-38 (computed in float64): (1 - p) p^n log p (2 + n log p), not -7.6e22
    n32, q32 = np.float32(1.1754943508222875e-38), np.float32(1e-7)

    def curvature_in_n(k, n, q):
        slope = sg.grad(lambda m: sg.numpy.sum(S.nbinom.pmf(k, m, q)))
        return sg.grad(lambda m: sg.numpy.sum(slope(m)))(n)

    got32 = _run(curvature_in_n, *_f([1.0], [n32], [q32]))
    want32 = (1 - float(q32)) * np.log(float(q32)) * 2
    np.testing.assert_allclose(got32, want32, rtol=1e-6)


def test_poisson_slope_in_k_where_log_mu_and_digamma_cancel():
    """poisson.logpmf's d/dk = log(mu) - psi(k + 1) within 1.5 ulps of 40-digit mpmath next to its
    root mu = exp(psi(k + 1)) (about k + 1/2), on both sides of log_less_digamma's table end
    (k + 1 = 128) and away from the root; the pmf's d/dk is the pmf times it. (2, 2.5) was 250 ulps
    off and (100, 100) 850: each term's own rounding, the difference 140x and 900x smaller."""
    import mpmath  # noqa: PLC0415

    k = np.array([0, 1, 2, 2, 9, 100, 100, 126, 127, 128, 200, 1e4, 1e4, 3, 50], np.float64)
    mu = np.array(
        [0.5, 1.5, 2.5, 2.4, 9.5, 100, 100.5, 126.5, 127.5, 128.4, 200.5, 1e4, 1e4 + 0.5, 100, 1e-5]
    )

    def build(a, b):
        logpmf, pmf = (lambda q, f=f: sg.numpy.sum(f(q, b)) for f in (S.poisson.logpmf, S.poisson.pmf))
        return sg.grad(logpmf)(a), sg.grad(pmf)(a), S.poisson.pmf(a, b)

    log_slope, mass_slope, mass = _run(build, k, mu)
    with mpmath.workdps(40):
        want = np.array([float(mpmath.log(b) - mpmath.digamma(a + 1)) for a, b in zip(k, mu)])
    ulps = np.abs(log_slope - want) / np.spacing(np.abs(want))
    assert np.all(ulps <= 1.5), ulps
    np.testing.assert_allclose(mass_slope, mass * log_slope, rtol=4e-16, atol=1e-300)


def test_poisson_and_geom_pmf_slopes_at_the_largest_count_and_past_underflow():
    """poisson.pmf and geom.pmf at k = 1.8e308, where log k! (or (k - 1) log(1 - p)) is infinite:
    the pmf is 0 and so are its slopes (they were nan: 0 * inf), as the closed forms say; and
    poisson's d2/dmu2 at (2, 2.2e-308), mu^2 e^-mu / 2's 1, where its mass underflows (was 0)."""
    big, tiny = np.finfo(np.float64).max, np.finfo(np.float64).tiny
    k = np.array([big, big, big, 2.0, 3.0], np.float64)
    mu = np.array([tiny, 0.5, 1e-3, tiny, 1e-100])

    def build(k, mu):
        pmf = lambda a, b: sg.numpy.sum(S.poisson.pmf(a, b))  # noqa: E731
        slope = sg.grad(pmf, argnums=1)
        return (
            S.poisson.pmf(k, mu),
            sg.grad(pmf)(k, mu),
            slope(k, mu),
            sg.grad(lambda a, b: sg.numpy.sum(slope(a, b)), argnums=1)(k, mu),
        )

    value, d_k, d_mu, d_mu2 = _run(build, k, mu)
    np.testing.assert_array_equal(value[:4], 0.0)
    for got in (d_k, d_mu, d_mu2):
        np.testing.assert_array_equal(got[:3], 0.0)
    # mu^k e^-mu / k!, its d/dmu mu^(k-1) e^-mu (k - mu) / k! and d2/dmu2 mu^(k-2) e^-mu ((k - mu)^2 - k) / k!
    # at (2, 2.2e-308) (the mass underflows) and (3, 1e-100) (exp of a log of -693: 1e-13 of rounding)
    np.testing.assert_allclose(value[4], 1e-300 / 6, rtol=1e-12)
    np.testing.assert_allclose(d_mu[3:], [tiny, 1e-200 / 2], rtol=1e-12, atol=0)
    np.testing.assert_allclose(d_mu2[3:], [1.0, 1e-100], rtol=1e-12, atol=0)

    gk, gp = np.array([big, big], np.float64), np.array([0.75, 0.999])
    g_value, g_dk, g_dp = _run(
        lambda a, b: (
            S.geom.pmf(a, b),
            *sg.grad(lambda x, y: sg.numpy.sum(S.geom.pmf(x, y)), argnums=(0, 1))(a, b),
        ),
        gk,
        gp,
    )
    for got in (g_value, g_dk, g_dp):
        np.testing.assert_array_equal(got, 0.0)


def test_poisson_slopes_at_mu_zero_are_the_one_sided_closed_forms():
    """poisson at the end of its range, mu = +0: pmf(k, mu) = mu^k e^-mu / k! has the one-sided
    slopes [k = 1] - [k = 0] and [k = 0] - 2 [k = 1] + [k = 2], and logpmf(0, mu) = -mu has -1 and
    0 (all were nan, 0 * inf or 0 / 0, as jax's are); mu = -0 keeps scipy's values. Both float
    kinds, k past the product's 32 counts included."""
    k = np.array([0.0, 1.0, 2.0, 3.0, 5.0, 40.0, 1.5])
    want_d1 = np.array([-1.0, 1.0, 0, 0, 0, 0, 0])
    want_d2 = np.array([1.0, -2.0, 1.0, 0, 0, 0, 0])

    def build(k, mu):
        pmf = lambda a, b: sg.numpy.sum(S.poisson.pmf(a, b))  # noqa: E731
        log0 = lambda b: sg.numpy.sum(S.poisson.logpmf(sg.numpy.zeros_like(b), b))  # noqa: E731
        slope = sg.grad(pmf, argnums=1)
        return (
            S.poisson.pmf(k, mu),
            slope(k, mu),
            sg.grad(lambda a, b: sg.numpy.sum(slope(a, b)), argnums=1)(k, mu),
            sg.grad(log0)(mu),
            sg.grad(lambda b: sg.numpy.sum(sg.grad(log0)(b)))(mu),
            S.poisson.pmf(k, -mu),
        )

    for dtype in (np.float32, np.float64):
        value, d1, d2, log_d1, log_d2, at_minus_zero = _run(build, k.astype(dtype), np.zeros(7, dtype))
        want = st.poisson.pmf(k, 0.0)
        np.testing.assert_array_equal(value, want, err_msg=str(dtype))
        np.testing.assert_array_equal(d1, want_d1, err_msg=str(dtype))
        np.testing.assert_array_equal(d2, want_d2, err_msg=str(dtype))
        np.testing.assert_array_equal(log_d1, -1.0, err_msg=str(dtype))
        np.testing.assert_array_equal(log_d2, 0.0, err_msg=str(dtype))
        np.testing.assert_array_equal(at_minus_zero, want, err_msg=str(dtype))
        assert not np.signbit(at_minus_zero).any() and not np.signbit(value).any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bernoulli_pmf_is_linear_in_p_and_its_slopes_in_k_are_the_closed_forms(dtype):
    """bernoulli.pmf is p or 1 - p: its d2/dp2 is 0 (exp(logpmf)'s was -183.5 at (1, 1e-10) in
    float32 and 1.0 at (1, 1 - 2^-53)); in k it is p^k (1 - p)^(1 - k), whose slopes are the pmf
    times log(p / (1 - p)) (squared for d2/dk2)."""
    k = np.array([1, 1, 1, 0, 0, 1], dtype)
    p = np.array([1e-10, 1 - 2.0**-24 if dtype == np.float32 else 1 - 2.0**-53, 0.3, 0.01, 0.7, 0.5], dtype)

    def build(k, p):
        pmf = lambda a, b: sg.numpy.sum(S.bernoulli.pmf(a, b))  # noqa: E731
        d_k, d_p = sg.grad(pmf, argnums=0), sg.grad(pmf, argnums=1)
        again = lambda f, i: sg.grad(lambda a, b: sg.numpy.sum(f(a, b)), argnums=i)(k, p)  # noqa: E731
        return d_k(k, p), d_p(k, p), again(d_p, 1), again(d_k, 0), again(d_k, 1)

    d_k, d_p, d_pp, d_kk, d_kp = _run(build, k, p)
    k64, p64 = k.astype(np.float64), p.astype(np.float64)
    mass = np.where(k64 == 1, p64, 1 - p64)
    odds = np.log(p64) - np.log1p(-p64)
    np.testing.assert_array_equal(d_pp, 0.0)
    np.testing.assert_array_equal(d_p, np.where(k == 1, 1.0, -1.0))
    rtol = 2e-6 if dtype == np.float32 else 1e-14
    np.testing.assert_allclose(d_k, mass * odds, rtol=rtol)
    np.testing.assert_allclose(d_kk, mass * odds**2, rtol=rtol)
    # d/dp (mass * odds) = +-odds + mass (1 / p + 1 / (1 - p))
    np.testing.assert_allclose(
        d_kp, np.where(k64 == 1, 1, -1) * odds + mass * (1 / p64 + 1 / (1 - p64)), rtol=rtol
    )


def test_binom_pmf_slopes_from_its_product():
    """binom.pmf's slopes in p and n from C(n, k) p^k (1 - p)^(n - k) itself: exp(logpmf)'s
    d2/dp2 at (1, 5, 1e-7) was 1.25e6 ulps off and d2/dn2 at (1, 5, 2.2e-16) 4.5e15 ulps (the
    closed forms here; jax's are as far off), and in float32 d2/dp2 at (1, n, 1.2e-38) is the
    closed form's -2 n (n - 1) (jax nan), in float64 at p = 2.2e-308 too (was -inf)."""
    eps = 2.220446049250313e-16
    k, n, p = np.array([1.0, 1.0]), np.array([5.0, 5.0]), np.array([1e-7, eps])

    def build(k, n, p):
        pmf = lambda a, b, c: sg.numpy.sum(S.binom.pmf(a, b, c))  # noqa: E731
        d_p, d_n = sg.grad(pmf, argnums=2), sg.grad(pmf, argnums=1)
        return (
            sg.grad(lambda a, b, c: sg.numpy.sum(d_p(a, b, c)), argnums=2)(k, n, p),
            sg.grad(lambda a, b, c: sg.numpy.sum(d_n(a, b, c)), argnums=1)(k, n, p),
        )

    d_pp, d_nn = _run(build, k, n, p)
    # k = 1: f = n p (1 - p)^(n - 1); f_pp = n (n - 1) (1 - p)^(n - 3) ((n - 2) p - 2 (1 - p))
    q = 1 - p
    want_pp = n * (n - 1) * q ** (n - 3) * ((n - 2) * p - 2 * q)
    assert (_ulps(d_pp, want_pp, np.float64) <= 8).all(), (d_pp, want_pp)
    # f_nn = p (1 - p)^(n - 1) log(1 - p) (2 + n log(1 - p)), log(1 - eps) = -eps - eps^2 / 2
    log_q = -p[1] - p[1] ** 2 / 2
    want_nn = p[1] * q[1] ** 4 * log_q * (2 + 5 * log_q)
    assert _ulps(d_nn[1], want_nn, np.float64) <= 8, (d_nn[1], want_nn)

    def curvature_in_p(k, n, p):
        slope = sg.grad(lambda y: sg.numpy.sum(S.binom.pmf(k, n, y)))
        return sg.grad(lambda y: sg.numpy.sum(slope(y)))(p)

    tiny32 = np.float32(1.1754943508222875e-38)
    got32 = _run(curvature_in_p, *_f([1.0, 1.0, 1.0], [5.0, 20.0, 2.0], [tiny32] * 3))
    np.testing.assert_allclose(got32, [-40.0, -760.0, -4.0], rtol=1e-6)

    # float64 at p = 2.2e-308, where 1 - p = 1: f_pp = n (n - 1) at k = 0, -2 n (n - 1) at k = 1,
    # n (n - 1) at k = 2, 6 C(n, 3) p at k = 3 (exp(logpmf)'s was -inf at k = 1, as jax's nan);
    # d2/dk dp at k = 1 is n (psi(n) - psi(2) + log p + 1) (the odds' slope 1 / p, finite)
    tiny = np.finfo(np.float64).tiny
    k64, n64 = np.array([0.0, 1.0, 1.0, 1.0, 2.0, 3.0]), np.array([5.0, 5.0, 20.0, 2.0, 20.0, 20.0])
    mixed = lambda a, b, c: sg.grad(  # noqa: E731
        lambda u, v, w: sg.numpy.sum(sg.grad(lambda x: sg.numpy.sum(S.binom.pmf(u, v, x)))(w)), argnums=0
    )(a, b, c)
    got, got_kp = _run(lambda a, b, c: (curvature_in_p(a, b, c), mixed(a, b, c)), k64, n64, np.full(6, tiny))
    want = n64 * (n64 - 1) * np.array([1.0, -2.0, -2.0, -2.0, 1.0, 0.0])
    want[5] = 6 * sp.comb(20, 3) * tiny
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)
    want_kp = n64 * (sp.digamma(n64) - sp.digamma(2.0) + np.log(tiny) + 1)
    np.testing.assert_allclose(got_kp[1:4], want_kp[1:4], rtol=1e-13)


def test_betabinom_with_one_large_shape_keeps_its_digits():
    """betabinom's few-trials product with a large a or b: each ratio (b + j) / (a + b + j) near 0 is
    logged as a ratio, not as log1p(-r) of an r near 1 (pmf(0; 1, 1e4, 0.5) = 0.5 / 10000.5 was 4000
    ulps off), and the terms' sum is compensated (1/21 at n = 20, a = b = 1 was 21 ulps off):
    the log-pmf within 4 ulps of the exact rational product's log (to 40 digits), the pmf (its exp,
    which turns the log's last bit into |log pmf| ulps) within 4 + |log pmf| ulps of the product."""
    shapes = [(1e4, 0.5), (0.5, 1e4), (1e4, 2.5), (5.0, 1e4), (1.0, 1.0), (2.5, 1e4)]
    rows = [(k, n, a, b) for n in (1, 5, 20) for k in sorted({0, 1, n // 2, n}) for a, b in shapes]
    k, n, a, b = (np.array(col) for col in zip(*rows))
    pmf, logpmf = _run(lambda *p: (S.betabinom.pmf(*p), S.betabinom.logpmf(*p)), k, n, a, b)
    want = np.array([exact_betabinom(*r, log=False) for r in rows])
    want_log = np.array([exact_betabinom(*r, log=True) for r in rows])
    assert (_ulps(logpmf, want_log, np.float64) <= 4).all()
    assert (np.abs(pmf - want) <= want * np.finfo(np.float64).eps * (4 + np.abs(want_log))).all()


def test_nbinom_with_many_more_failures_than_successes():
    """nbinom's log C(k + n - 1, k) as -log k - betaln(k, n): at k = 1e4, 1e5 with n = 0.5 .. 3 the
    log-gammas of 8e4 that log Gamma(n + k) - log Gamma(k + 1) subtracts left 1e-11 (logpmf(1e4,
    3, 1e-7) 1820 ulps off, the pmf 5e4). Against the log of the exact binomial coefficient and
    40-digit logs of p and 1 - p: the log-pmf within 4 ulps, the pmf (its exp) within 1e-14."""
    rows = [(1e4, 3, 1e-7), (1e4, 1, 0.5), (1e5, 2, 1e-4), (1e4, 2, 0.3), (3e4, 5, 1e-3), (50, 3, 0.5)]
    k, n, p = (np.array(col, np.float64) for col in zip(*rows))
    logpmf, pmf = _run(lambda *q: (S.nbinom.logpmf(*q), S.nbinom.pmf(*q)), k, n, p)
    with localcontext() as ctx:
        ctx.prec = 40
        want = np.array(
            [
                float(
                    Decimal(math.comb(int(kk + nn - 1), int(kk))).ln()
                    + nn * Decimal(pp).ln()
                    + int(kk) * (1 - Decimal(pp)).ln()
                )
                for kk, nn, pp in rows
            ]
        )
    assert (_ulps(logpmf, want, np.float64) <= 4).all(), (logpmf, want)
    np.testing.assert_allclose(pmf, np.exp(want), rtol=1e-14, atol=0)


def test_betabinom_log_pmf_slopes_keep_the_digits_their_digamma_differences_cancel():
    """betabinom.logpmf's slopes are differences of digammas; paired so that their common part cancels
    on paper (_paired_steps), the steps taken by psi's asymptotic series and recurrence
    (log_beta.digamma_step): d/db at (0, 1, 0.5, 1e4) = 1/b - 1/(a + b) was 9700 ulps off as two
    sums, d/dn there 1.4e5 as two digammas of 9.2, d/dk at (0, 1, 1, 1), where the pmf is flat in k,
    9e-16 for 0. Every first and second slope within 8 ulps of the digamma and trigamma sums at 40
    digits (mpmath); d/dk and d2/dk2 exactly 0 at a = b = 1."""
    mpmath = pytest.importorskip("mpmath")
    rows = [(0, 1, 0.5, 1e4), (1, 1, 1e4, 0.5), (0, 20, 1.0, 1e4), (5, 5, 0.5, 1.0), (5, 20, 2.5, 1e4),
            (3, 10, 0.7, 2.5), (7, 12, 1e4, 1e4), (0, 1, 1.0, 1.0), (4, 20, 1.0, 1.0), (0, 3, 0.3, 1e-3)]  # fmt: skip
    cols = [np.array(col, np.float64) for col in zip(*rows)]

    def build(*p):
        slopes = sg.gradients(sg.numpy.sum(S.betabinom.logpmf(*p)), list(p))
        return slopes, [sg.gradients(sg.numpy.sum(s), list(p)) for s in slopes]

    slopes, curvatures = _run(build, *cols)
    upper = [(i, j) for i in range(4) for j in range(i, 4)]
    with mpmath.workdps(40):
        for m, row in enumerate(rows):
            # d2/dx_i dx_j for i <= j: d/dn of d/db sums psi'(b + m) - psi'(a + b + n), two
            # partials of one call in n, whose digits cancel (9000 ulps at (0, 1, 0.5, 1e4))
            got = [s[m] for s in slopes] + [curvatures[i][j][m] for i, j in upper]
            want = log_slopes("betabinom", row, 1) + log_slopes("betabinom", row, 2)
            want = np.array([float(w) if abs(w) > 1e-30 else 0.0 for w in want])
            ulps = np.abs(np.array(got) - want) / np.spacing(np.abs(want))
            assert (ulps <= 8).all(), (row, ulps)
    flat = [i for i, r in enumerate(rows) if r[2] == r[3] == 1.0]
    assert (slopes[0][flat] == 0).all() and (curvatures[0][0][flat] == 0).all()


def test_count_pmf_slopes_keep_the_digits_where_two_quotients_cancel():
    """Slopes of poisson, geom, binom and nbinom whose textbook forms cancel: poisson's d/dmu
    log-pmf k/mu - 1 is (k - mu)/mu (2x the 4.08e-17 at (1, 1 - 2^-53)) with d2 -k/mu^2 (the
    quotient rule left 5e-13 of -1e-8 at (1, 1e4)); geom's d2/dp2 comes from p (1 - p)^(k - 1)
    (f (l'' + l'^2) cancelled 1/p^2 = 1e20 at (1e4, 1e-10): 3.2e5 ulps); binom's d/dp has k - n p
    exact (3.1x the -3.5e-16 at (2, 20, 0.1)) and at n = 1e4, p = 2.2e-308 its d2/dp2 is -2e8
    (was -inf); nbinom's d/dp has n - (n + k) p exact (-1.8e-15 for the 0 at (1e4, 1e4, 0.5)).
    Each within 4 ulps of 50-digit mpmath."""
    mpmath = pytest.importorskip("mpmath")
    mp = mpmath.mp

    def binom(k, n, p):
        return mpmath.binomial(n, k) * p**k * (1 - p) ** (n - k)

    def nbinom(k, n, p):
        return mpmath.gamma(k + n) / (mpmath.gamma(k + 1) * mpmath.gamma(n)) * p**n * (1 - p) ** k

    cases = [  # (sg method, mpmath function, point, argument, order)
        (S.poisson.pmf, lambda k, mu: mu**k * mpmath.exp(-mu) / mpmath.factorial(k), (1, 1 - 2**-53), 1, 1),
        (
            S.poisson.logpmf,
            lambda k, mu: k * mpmath.log(mu) - mu - mpmath.log(mpmath.factorial(k)),
            (1, 1e4),
            1,
            2,
        ),
        (
            S.poisson.logpmf,
            lambda k, mu: k * mpmath.log(mu) - mu - mpmath.log(mpmath.factorial(k)),
            (5, 0.5),
            1,
            2,
        ),
        (S.geom.pmf, lambda k, p: p * (1 - p) ** (k - 1), (1e4, 1e-10), 1, 2),
        (S.geom.pmf, lambda k, p: p * (1 - p) ** (k - 1), (100, 2**-52), 1, 2),
        (S.geom.pmf, lambda k, p: p * (1 - p) ** (k - 1), (10, 0.1), 1, 1),
        (S.binom.pmf, binom, (2, 20, 0.1), 2, 1),
        (S.binom.pmf, binom, (2, 20, 0.1), 2, 2),
        (S.binom.pmf, binom, (1, 5, 1e-7), 2, 2),
        (S.binom.pmf, binom, (1, 1e4, 2.2250738585072014e-308), 2, 2),
        (S.nbinom.pmf, nbinom, (1e4, 1e4, 0.5), 2, 1),
        (S.nbinom.pmf, nbinom, (5, 5, 0.5), 2, 1),
        (S.nbinom.pmf, nbinom, (3, 2.5, 0.3), 2, 1),
        (S.nbinom.logpmf, lambda k, n, p: mpmath.log(nbinom(k, n, p)), (7, 3, 0.3), 2, 1),
    ]

    def build(*ps):
        out, start = [], 0
        for method, _, point, arg, order in cases:
            args = ps[start : start + len(point)]
            start += len(point)

            def slope(x, method=method, args=args, arg=arg):
                xs = list(args)
                xs[arg] = x
                return sg.numpy.sum(method(*xs))

            first = sg.grad(slope)
            out.append(
                first(args[arg]) if order == 1 else sg.grad(lambda x, first=first: first(x))(args[arg])
            )
        return out

    got = _run(build, *[np.array(v, np.float64) for _, _, point, _, _ in cases for v in point])
    with mpmath.workdps(50):
        for value, (method, truth, point, arg, order) in zip(got, cases):
            xs = [mp.mpf(v) for v in point]

            def along(x, xs=xs, arg=arg, truth=truth):
                return truth(*(x if i == arg else v for i, v in enumerate(xs)))

            want = float(mpmath.diff(along, xs[arg], order))
            ulps = abs(float(value) - want) / np.spacing(abs(want)) if want != 0 else abs(float(value))
            assert ulps <= 4, (method.__name__, point, order, float(value), want)
