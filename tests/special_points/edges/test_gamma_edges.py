"""The gamma and chi2 distributions and the incomplete gamma function at the edges the special-point
sweep found (issue 20, part 2), against scipy's float64 values and closed forms."""

import numpy as np
import scipy.special
import scipy.stats

import stablegraph as sg
from stablegraph.test_util import run_graph as _run

F32 = np.float32
TINY32 = F32(np.finfo(F32).tiny)
BIG32 = F32(np.finfo(F32).max)


def _grads(fn, *arrays):
    """The gradients of sum(fn(...)) with respect to every argument."""
    argnums = tuple(range(len(arrays)))
    return _run(lambda *xs: list(sg.grad(lambda *ys: sg.numpy.sum(fn(*ys)), argnums=argnums)(*xs)), *arrays)


def test_chi2_at_the_smallest_normal_df_is_not_an_invalid_shape():
    # df / 2 of the smallest normal float32 is subnormal: it was flushed to 0 and called invalid (nan)
    x = np.array([2.0, 1.0, 0.5], F32)
    df = np.full(3, TINY32)
    cdf = _run(sg.scipy.stats.chi2.cdf, x, df)
    sf = _run(sg.scipy.stats.chi2.sf, x, df)
    np.testing.assert_allclose(cdf, scipy.stats.chi2.cdf(x.astype(float), float(TINY32)), rtol=1e-6)
    assert np.all(np.isfinite(sf)) and np.all(sf <= F32(1e-37))
    logpdf = _run(sg.scipy.stats.chi2.logpdf, x, df)
    assert not np.isnan(logpdf).any()


def test_chi2_density_at_the_largest_scale_and_the_smallest_x():
    # 2 * scale overflowed to inf at scale = max (inf - inf = nan), and x / 2 at x = tiny flushed to
    # 0, where the density of df < 2 is infinite
    x = np.array([1.0, TINY32, TINY32], F32)
    df = np.array([0.5, 0.5, 2.5], F32)
    scale = np.array([BIG32, 1.0, 1.0], F32)
    got = _run(lambda x, d, s: sg.scipy.stats.chi2.logpdf(x, d, 0.0, s), x, df, scale)
    want = scipy.stats.chi2.logpdf(x.astype(float), df.astype(float), 0.0, scale.astype(float))
    assert not np.isnan(got[0])  # the float32 z = 1 / max flushes: +inf (jax's value), not nan
    np.testing.assert_allclose(got[1:], want[1:], rtol=1e-6)


def test_gamma_support_is_tested_on_x_minus_loc():
    # at scale = max, (x - loc) / scale flushes to -0 below the support: the density is 0, not inf
    x = np.array([-1.0, 0.5, -1.0])
    a = np.array([0.5, 0.5, 1.0])
    loc = np.array([0.0, 1.0, 0.0])
    scale = np.full(3, np.finfo(np.float64).max)
    got = _run(sg.scipy.stats.gamma.logpdf, x, a, loc, scale)
    np.testing.assert_array_equal(got, np.full(3, -np.inf))
    np.testing.assert_array_equal(scipy.stats.gamma.logpdf(x, a, loc, scale), np.full(3, -np.inf))


def test_gamma_nan_location_and_infinite_ends():
    # x - loc = inf - inf is nan (scipy: nan, ours was the off-support 0); cdf(inf) = 1 for a = inf
    x = np.array([np.inf, np.inf, np.inf])
    a = np.array([0.5, np.inf, 2.0])
    loc = np.array([np.inf, 0.0, 0.0])
    pdf = _run(lambda x, a, at: sg.scipy.stats.gamma.pdf(x, a, at), x, a, loc)
    cdf = _run(lambda x, a, at: sg.scipy.stats.gamma.cdf(x, a, at), x, a, loc)
    sf = _run(lambda x, a, at: sg.scipy.stats.gamma.sf(x, a, at), x, a, loc)
    assert np.isnan(pdf[0]) and np.isnan(scipy.stats.gamma.pdf(np.inf, 0.5, np.inf))
    np.testing.assert_array_equal(cdf[1:], scipy.stats.gamma.cdf(x[1:], a[1:]))
    np.testing.assert_array_equal(sf[1:], scipy.stats.gamma.sf(x[1:], a[1:]))


def test_gamma_logpdf_slopes_off_the_support_are_zero():
    # below the support the log density is the constant -inf: the where's zero slope met log(0)'s
    # infinite one in d/da (nan)
    x = np.array([-1.0, -0.5, -2.0])
    a = np.array([1e-300, 0.5, 3.0])
    for fn in (sg.scipy.stats.gamma.logpdf, sg.scipy.stats.gamma.pdf, sg.scipy.stats.chi2.pdf):
        dx, da = _grads(fn, x, a)
        np.testing.assert_array_equal(dx, np.zeros(3))
        np.testing.assert_array_equal(da, np.zeros(3))


def test_cdf_slopes_at_infinite_x_are_zero():
    # cdf(inf) = 1 whatever a: the slopes through the where were 0 * nan at x = inf
    x = np.full(3, np.inf)
    a = np.array([1.5, 2.0, 30.0])
    for fn in (sg.scipy.stats.gamma.cdf, sg.scipy.stats.gamma.sf, sg.scipy.stats.chi2.cdf):
        dx, da = _grads(fn, x, a)
        np.testing.assert_array_equal(np.abs(dx), np.zeros(3))
        np.testing.assert_array_equal(np.abs(da), np.zeros(3))


def test_incomplete_gamma_slope_in_x_at_zero_for_a_one():
    # P(1, x) = 1 - e^-x has slope 1 at x = 0; (a - 1) log x was 0 * -inf = nan
    a = np.array([1.0, 1.0, 2.0])
    x = np.array([0.0, 1.0, 0.0])
    _, dx = _grads(sg.scipy.special.gammainc, a, x)
    np.testing.assert_allclose(dx, [1.0, np.exp(-1.0), 0.0], rtol=1e-15)
    pdf_at_0 = scipy.stats.gamma.pdf(0.0, 1.0)  # the cdf's slope is the density
    assert pdf_at_0 == 1.0


def test_lower_incomplete_gamma_near_one_for_small_a():
    # the series lost P's last digits as a -> 0 (1 - 9e-16 at a = eps, x = 1): P = 1 - Q there
    a = np.array([2.220446049250313e-16, 1e-3, 0.1, 0.5])
    x = np.array([1.0, 1.0, 1.0, 1.5])
    got = _run(sg.scipy.special.gammainc, a, x)
    q = scipy.special.gammaincc(a, x)
    want = 1.0 - np.array(q, np.longdouble)
    np.testing.assert_allclose(got, np.asarray(want, np.float64), rtol=2.5e-16, atol=0)


def test_slope_in_a_at_a_zero_is_the_limit_minus_e1():
    # P(a, x) = 1 - a E1(x) + O(a^2): dP/da at a = 0 is -E1(x) (was the edge's 0; jax: nan)
    a = np.zeros(4)
    x = np.array([1e-3, 0.5, 1.0, 30.0])
    da, _ = _grads(sg.scipy.special.gammainc, a, x)
    np.testing.assert_allclose(da, -scipy.special.exp1(x), rtol=1e-13)
    da32, _ = _grads(sg.scipy.special.gammainc, a.astype(F32), x.astype(F32))
    np.testing.assert_allclose(da32, -scipy.special.exp1(x.astype(F32).astype(float)), rtol=1e-6)


def test_subnormal_x_is_the_x_zero_edge_in_float64():
    # x = 5e-324 took the series with log x = -744: dQ/da was 0.18..1.0 where Q(a, 0) = 1 for all a
    a = np.array([0.5, 2.0, 100.0])
    x = np.full(3, 5e-324)
    da, _ = _grads(sg.scipy.special.gammaincc, a, x)
    np.testing.assert_array_equal(da, np.zeros(3))
    np.testing.assert_array_equal(_run(sg.scipy.special.gammaincc, a, x), np.ones(3))
