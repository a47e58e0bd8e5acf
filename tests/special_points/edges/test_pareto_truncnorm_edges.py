"""pareto and truncnorm at the edges the special-point sweep found (issue 20), against closed forms
in long double: powers that exp(b log z) rounded (pareto's sf, pdf, log cdf, ppf), slopes that a
flushed b log z or an untaken branch turned into inf or nan, signs of zero, z = (x - loc) / scale
overflowing as scale -> 0, and truncnorm's bounds far in a tail."""

import numpy as np
import pytest
import scipy.special
import scipy.stats

import stablegraph as sg
from stablegraph import numpy as snp

L = np.longdouble
P = sg.scipy.stats.pareto
T = sg.scipy.stats.truncnorm


def _values(fn, args, dtype):
    """fn(*args) run in ``dtype``, every argument fed."""
    g = sg.Graph()
    with g:
        holders = [sg.placeholder(np.shape(a), sg.dtype(dtype)) for a in args]
        out = fn(*holders)
    with sg.Session(g) as sess:
        return sess.run(out, {h: np.asarray(a, dtype) for h, a in zip(holders, args)})


def _slopes(fn, args, dtype, i, j=None):
    """d fn / d arg i (and then d / d arg j) of fn's sum, in ``dtype``."""

    def first(*xs):
        return sg.grad(lambda *ys: snp.sum(fn(*ys)), argnums=i)(*xs)

    second = first if j is None else (lambda *xs: sg.grad(lambda *ys: snp.sum(first(*ys)), argnums=j)(*xs))
    return _values(second, args, dtype)


def _ulps(got, want, dtype):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return np.abs(got - want) / np.spacing(np.abs(want).astype(dtype)).astype(np.float64)


# -- pareto --------------------------------------------------------------------------------------
def test_pareto_powers_keep_their_digits():
    """sf, pdf and log cdf are powers of z: 2**-30, 10 * 2**-11 exactly, where exp(-b log z) was up
    to 10 float32 ulps off; the quantile is (1 - q)**(-1/b) where 1 - q is exact."""
    f32 = np.float32
    x, b = np.array([2.0, 2.0, 3.0]), np.array([30.0, 10.0, 30.0])
    sf = _values(P.sf, (x, b), f32)
    np.testing.assert_array_equal(sf[:2], [2.0**-30, 2.0**-10])
    pdf = _values(P.pdf, (x, b), f32)
    assert pdf[1] == f32(10 * 2.0**-11)
    logcdf = _values(P.logcdf, (x, b), f32)
    want = np.log1p(-(L(x) ** -L(b)))
    assert (_ulps(logcdf, want, f32) <= 2).all(), (logcdf, want)
    # XLA's float64 power is itself 27 ulps off at 0.75**-1000 (jax's value); exp of the rounded
    # -log1p(-q) / b = 287.7 was 53
    q = _values(P.ppf, (np.array([0.25]), np.array([0.001])), np.float64)
    want = L(0.75) ** (-1 / L(0.001))
    assert _ulps(q, want, np.float64)[0] <= 32, (q, want)


def test_pareto_tiny_shape():
    """b = 1e-38: the cdf is b log z, not 1 - z**-b rounded to 0; its log's slope in x is
    1 / (z log z) (b log z flushed to 0 gave inf), the density's slope in b is 1 / z
    (exp(log b) flushed to 0 gave 0), and the quantile's first value past q = 0 is e**(q / b)."""
    f32, b = np.float32, np.float32(np.finfo(np.float32).tiny)
    x = np.array([2.0, 3.0], f32)
    cdf = _values(P.logcdf, (x, np.full(2, b)), f32)
    np.testing.assert_allclose(cdf, np.log(L(b) * np.log(L(x))), rtol=1e-6)
    slope = _slopes(P.logcdf, (x, np.full(2, b)), f32, 0)
    np.testing.assert_allclose(slope, 1 / (L(x) * np.log(L(x))), rtol=1e-6)
    d_b = _slopes(P.pdf, (np.array([1.0, 2.0], f32), np.full(2, b)), f32, 1)
    np.testing.assert_allclose(d_b, [1.0, 0.5], rtol=1e-6)
    q = _values(P.ppf, (np.array([b]), np.array([b])), np.float64)
    np.testing.assert_allclose(q, np.e, rtol=1e-15)


def test_pareto_slopes_off_the_support_and_at_b_inf():
    """Below z = 1 every method is constant: slope 0 in x and b (the log cdf's b-slope was nan);
    b = inf below the support: the sf's mixed slope 0 (was 1**-inf's inf times 0)."""
    f32 = np.float32
    x, b = np.array([0.5, 0.5, 1e-38], f32), np.array([2.0, 0.1, 0.5], f32)
    np.testing.assert_array_equal(_slopes(P.logcdf, (x, b), f32, 1), 0.0)
    np.testing.assert_array_equal(_slopes(P.logcdf, (x, b), f32, 1, 1), 0.0)
    np.testing.assert_array_equal(_slopes(P.sf, (x[:1], np.array([np.inf], f32)), f32, 0, 1), 0.0)


def test_pareto_log_cdf_second_slope_near_the_end():
    """d2/dx db of log(1 - z**-b) = log(b) + log(log z) + log((1 - e**-u) / u): -1/2 at z = b = 1 + eps
    (twice that before), and at u = 0.069 within the float32 bound (log1mexp's 1/u**2 and 1/u cancel)."""
    f32 = np.float32
    x, b = np.array([1 + 2.0**-23, 2.0], f32), np.array([1 + 2.0**-23, 0.1], f32)
    got = _slopes(P.logcdf, (x, b), f32, 0, 1)
    xl, bl = L(x), L(b)
    u = bl * np.log(xl)
    r = 1 / np.expm1(u)
    want = (1 - u) * r / xl - (bl * r / xl) * (np.log(xl) * r)
    np.testing.assert_allclose(got, want.astype(np.float64), rtol=2e-6)


def test_pareto_edges_of_zero_and_inf():
    """logsf is +0 below the support and -0 on its end (scipy's -b log 1); logcdf's 0 far out is -0;
    ppf(1, b = inf) is +inf (was 0**-0's nan path)."""
    f32 = np.float32
    logsf = _values(P.logsf, (np.array([0.5, 1.0], f32), np.array([2.0, 2.0], f32)), f32)
    assert not np.signbit(logsf[0]) and logsf[0] == 0
    assert np.signbit(logsf[1]) and logsf[1] == 0
    logcdf = _values(P.logcdf, (np.array([2.0], f32), np.array([np.inf], f32)), f32)
    assert logcdf[0] == 0 and np.signbit(logcdf[0])
    assert _values(P.ppf, (np.array([1.0], f32), np.array([np.inf], f32)), f32)[0] == np.inf


def test_pareto_scale_to_zero():
    """scale = 1.2e-38 in float32: z = 4.5 / scale overflows, log z does not (logpdf -222.7, was
    -inf); the density b z**-b / (x - loc) keeps its digits (was 1e-5 off through exp)."""
    f32, tiny = np.float32, np.float32(np.finfo(np.float32).tiny)
    logpdf = _values(lambda x, b, at, s: P.logpdf(x, b, at, s), ([2.0], [2.5], [-2.5], [tiny]), f32)
    z = L(4.5) / L(tiny)
    want = np.log(L(2.5)) - L(3.5) * np.log(z) - np.log(L(tiny))
    np.testing.assert_allclose(logpdf, want.astype(np.float64), rtol=1e-6)
    pdf = _values(lambda x, b, at, s: P.pdf(x, b, at, s), ([0.5], [0.5], [0.0], [tiny]), f32)
    z = L(0.5) / L(tiny)
    want = L(0.5) * z ** -L(1.5) / L(tiny)
    np.testing.assert_allclose(pdf, want.astype(np.float64), rtol=1e-6)


def test_pareto_float64_cdf_slope_in_b():
    """d/db (1 - z**-b) = log(z) z**-b at z = max, b = 1/2: from the power (exp(-b log z)'s argument
    rounding cost ~250 ulps)."""
    x, b = np.array([np.finfo(np.float64).max]), np.array([0.5])
    got = _slopes(P.cdf, (x, b), np.float64, 1)
    want = np.log(L(x)) * L(x) ** -L(b)
    assert _ulps(got, want, np.float64)[0] <= 8, (got, want)


@pytest.mark.parametrize("q, b", [(1e-7, 1e-3), (0.5, float(np.finfo(np.float32).tiny))])
def test_pareto_quantile_slope_in_b_where_the_other_branch_overflows(q, b):
    """d/db of (1 - q)**(-1/b) = -x m / b**2 (m = -log1p(-q)): finite or -inf, never the nan of the
    untaken branch's inf slope."""
    got = _slopes(P.ppf, (np.array([q]), np.array([b])), np.float32, 1)
    ql, bl = L(np.float32(q)), L(np.float32(b))
    m = -np.log1p(-ql)
    with np.errstate(over="ignore"):
        want = -np.exp(m / bl) * m / bl**2
    np.testing.assert_allclose(got, np.float32(want), rtol=1e-5)


# -- truncnorm -----------------------------------------------------------------------------------
def test_truncnorm_mass_underflowing():
    """a = 3.4e38, b = inf in float32: the mass's log is -inf, the cdf still 0 below a and 1 at
    b = inf (nan before); x = -max with a = -inf: cdf 0 (log_ndtr(-inf) - log_ndtr(-inf) gave nan)."""
    f32, big = np.float32, float(np.finfo(np.float32).max)
    x = np.array([1.0, -2.0, np.inf, -big], f32)
    a = np.array([big, big, big, -np.inf], f32)
    b = np.array([np.inf, np.inf, np.inf, 0.0], f32)
    np.testing.assert_array_equal(_values(T.cdf, (x, a, b), f32), [0.0, 0.0, 1.0, 0.0])
    np.testing.assert_array_equal(_values(T.logsf, (x[:3], a[:3], b[:3]), f32), [0.0, 0.0, -np.inf])


def test_truncnorm_log_probability_near_one():
    """log cdf near 0 (cdf near 1) from log1p(-sf): x = 2 on [0, inf) is log1p(-2 Phi(-2)) to float32's
    last digits (20 ulps off as a difference of logs), and 7 scales into the tail it is -2.6e-12, not 0."""
    f32 = np.float32
    got = _values(T.logcdf, (np.array([2.0], f32), np.array([0.0], f32), np.array([np.inf], f32)), f32)
    want = np.log1p(-2 * scipy.special.ndtr(-2.0))
    assert _ulps(got, want, f32)[0] <= 2, (got, want)
    tail = _values(
        lambda x, a, b, at, s: T.logcdf(x, a, b, at, s), ([1.0], [0.0], [np.inf], [-2.5], [0.5]), f32
    )
    want = np.log1p(-2 * scipy.special.ndtr(-7.0))
    np.testing.assert_allclose(tail, want, rtol=1e-5)


def test_truncnorm_slopes_off_the_support_with_an_infinite_bound():
    """Below a the cdf is 0 for every a and b: its slopes in a and b are 0, also with b = inf or
    a = -inf (log_ndtr's own inf slope at the infinite end met a zero cotangent: nan)."""
    f32 = np.float32
    x = np.array([-1.0, -2.0, 1.0], f32)
    a = np.array([0.0, 1.0, 0.0], f32)
    b = np.array([np.inf, np.inf, 0.5], f32)
    np.testing.assert_array_equal(_slopes(T.cdf, (x, a, b), f32, 2), 0.0)
    # the log density's slope in b with a = -inf: -phi(b) / Phi(b), 0 at b = inf
    x, a, b = np.array([1.0, 0.5], f32), np.array([-np.inf, -np.inf], f32), np.array([np.inf, 2.0], f32)
    want = [0.0, -scipy.stats.norm.pdf(2.0) / scipy.stats.norm.cdf(2.0)]
    np.testing.assert_allclose(_slopes(T.logpdf, (x, a, b), f32, 2), want, rtol=1e-6, atol=0)


def test_truncnorm_log_density_near_zero_and_in_a_far_tail():
    """log density = -z**2 / 2 - log(sqrt(2 pi)) - log(mass) - log(scale): in float32 three terms near
    1 cancelled to -0.0456 (16 ulps off scipy's float64); at x = a = max, b = inf -z**2 / 2 and
    log(mass) (both -c**2 / 2, -5.8e76 or overflowing) met as -inf + inf = nan, where the log density
    is log(a) + 1/a**2 + ... (88.72 in float32, 709.78 in float64: log a, the Mills ratio 1/a)."""
    for dtype in (np.float32, np.float64):
        big = float(np.finfo(dtype).max)
        cases = [  # x, a, b, loc, scale
            (1.0, -2.5, 1.0, 1.0, 0.5),
            (0.0, -2.5, 1.0, 0.0, 0.5),
            (big, big, np.inf, 0.0, 1.0),
            (np.inf, big, np.inf, 0.0, 1.0),
            (40.0, 35.0, np.inf, 0.0, 1.0),
            (-40.0, -np.inf, -35.0, 0.0, 1.0),
        ]
        got = _values(T.logpdf, list(map(list, zip(*cases))), dtype)
        near = scipy.stats.truncnorm.logpdf(0.0, -2.5, 1.0, 0.0, 0.5)  # no cancellation in float64
        assert _ulps(got[:2], near, dtype).max() <= 1, got
        assert got[2] == dtype(np.log(big)) and got[3] == -np.inf, got
        # -(5 * 35) - 25 / 2 - log(R(35)), R the Mills ratio: scipy's float64 loses ~1e-13 of -184
        want = scipy.stats.truncnorm.logpdf(40.0, 35.0, np.inf)
        np.testing.assert_allclose(got[4:], want, rtol=max(1e-12, float(np.finfo(dtype).eps)))
