"""The gamma family (gamma, chi2 and the incomplete gamma under them) at the edge points the
special-point sweep found wrong, against long double closed forms: one graph per test."""

from __future__ import annotations

import numpy as np

import stablegraph as sg
from stablegraph.test_util import run_graph

L = np.longdouble
TINY = np.finfo(np.float64).tiny


def _density_slopes_ld(x, a, halved: bool):
    """d/dx and d/da of the gamma density z^(a-1) e^-z / Gamma(a) (chi2: at z = x / 2, halved) in
    long double, whose exponent range holds z^(a - 2) at z = 2.2e-308 for shapes up to 20."""
    from math import lgamma

    from scipy.special import digamma

    x, a = np.asarray(x, L), np.asarray(a, L)
    z = x / 2 if halved else x
    log_gamma = np.array([L(lgamma(float(v))) for v in a])
    pdf = np.exp((a - 1) * np.log(z) - z - log_gamma) / (2 if halved else 1)
    dx = pdf * ((a - 1) / z - 1) / (2 if halved else 1)
    da = pdf * (np.log(z) - np.asarray(digamma(np.asarray(a, np.float64)), L)) / (2 if halved else 1)
    return np.asarray(dx, np.float64), np.asarray(da, np.float64)


def test_density_slopes_where_the_density_underflows_are_zero_not_nan():
    """At x = 2.2e-308 with shape >= 8 the density underflows to 0 and so do its slopes (the long
    double slope (a - 1) x^(a - 2) e^-x / Gamma(a) is below 1e-2000); exp(logpdf)'s chain rule
    gave 0 * inf = nan. Moderate points keep their slopes."""
    x = np.array([TINY, TINY, TINY, TINY, 3.0, 0.5, 1.5])
    a = np.array([10.0, 20.0, 100.0, 1e4, 2.5, 3.0, 12.0])

    def fn(x, a):
        out = []
        for dist in (sg.scipy.stats.gamma, sg.scipy.stats.chi2):
            y = dist.pdf(x, a)
            out += [y, *sg.gradients(sg.numpy.sum(y), [x, a])]
        return out

    got = run_graph(fn, x, a)
    for k, halved in enumerate((False, True)):
        pdf, dx, da = got[3 * k : 3 * k + 3]
        assert not np.isnan(dx).any() and not np.isnan(da).any(), (halved, dx, da)
        np.testing.assert_array_equal(pdf[:4], 0.0)
        np.testing.assert_array_equal(dx[:4], 0.0)
        np.testing.assert_array_equal(da[:4], 0.0)
        want_dx, want_da = _density_slopes_ld(x[4:], a[4:] / (2 if halved else 1), halved)
        np.testing.assert_allclose(dx[4:], want_dx, rtol=1e-13)
        np.testing.assert_allclose(da[4:], want_da, rtol=1e-13)


def _ulps(got, want):
    return np.abs(got - want) / np.spacing(np.abs(want))


def _upper_whole_ld(n: int, x):
    """Q(n, x) = e^-x sum_{k < n} x^k / k! in long double (a whole shape: the Poisson sum)."""
    x = np.asarray(x, L)
    term, total = np.exp(-x), np.exp(-x)
    for k in range(1, n):
        term = term * x / k
        total = total + term
    return np.asarray(total, np.float64)


def test_upper_incomplete_gamma_keeps_its_last_digits():
    """Q(a, x) within 3 ulps of closed forms where the forward continued fraction (Lentz's running
    product) or Q = 1 - P left it 5 to 20 ulps off: whole shapes against the Poisson sum in long
    double, a = 3/2 against erfc(sqrt x) + 2 sqrt(x / pi) e^-x."""
    from scipy.special import erfc

    whole = [(1, 1.5), (1, 1.2), (2, 2.0), (3, 2.5), (5, 10.0), (30, 40.0), (100, 120.0)]
    a = np.array([float(n) for n, _ in whole] + [1.5, 1.5])
    x = np.array([v for _, v in whole] + [3.0, 4.0])
    got = run_graph(lambda a, x: sg.scipy.special.gammaincc(a, x), a, x)
    xl = np.asarray(x[-2:], L)
    half = np.asarray(erfc(np.sqrt(x[-2:])), L) + 2 * np.sqrt(xl / L(np.pi)) * np.exp(-xl)
    want = np.concatenate([[_upper_whole_ld(n, v) for n, v in whole], np.asarray(half, np.float64)])
    assert _ulps(got, want).max() <= 3, (_ulps(got, want), got, want)


def test_log_tails_near_one_come_from_the_complement():
    """logsf and logcdf where the probability is near 1: gamma(a = 1).logsf(x) = -x, chi2(df = 2)
    .logsf(x) = -x / 2 exactly, gamma(1).logcdf(x) = log1p(-e^-x); log(Q) of a Q near 1 turned Q's
    last-digit error into 10 ulps of the log."""
    x = np.array([0.1, 0.05, 0.3, 0.01])
    ones = np.ones_like(x)

    def fn(x, a):
        gamma, chi2 = sg.scipy.stats.gamma, sg.scipy.stats.chi2
        return [gamma.logsf(x, a), chi2.logsf(x, 2 * a), gamma.logcdf(x + 3, a), chi2.logcdf(x + 6, 2 * a)]

    g_sf, c_sf, g_cdf, c_cdf = run_graph(fn, x, ones)
    assert _ulps(g_sf, -x).max() <= 2, g_sf
    assert _ulps(c_sf, -x / 2).max() <= 2, c_sf
    want = np.asarray(np.log1p(-np.exp(-np.asarray(x + 3, L))), np.float64)
    assert _ulps(g_cdf, want).max() <= 2, (g_cdf, want)
    want = np.asarray(np.log1p(-np.exp(-np.asarray(x + 6, L) / 2)), np.float64)
    assert _ulps(c_cdf, want).max() <= 2, (c_cdf, want)


def test_mass_slopes_where_the_mass_underflows_are_zero_not_nan():
    """poisson, geom and nbinom pmfs where the mass underflows (mu = 2.2e-308 with k >= 4; k =
    1.8e308; p = 2.2e-308 with n = 10): the mass is 0 and so are its slopes (mu^(k-1), p^(n-1) are
    below 1e-900); exp(logpmf)'s chain rule gave 0 * inf = nan. Moderate points keep the closed
    forms' slopes: d/dmu = pmf (k / mu - 1), d/dp of p (1 - p)^(k-1) and of C(n+k-1, k) p^n (1-p)^k."""
    big = np.finfo(np.float64).max
    k = np.array([4.0, 10.0, 1e8, big, 3.0, 3.0, 2.0])
    q = np.array([TINY, TINY, TINY, 1e-10, 2.5, 0.25, 0.4])
    n = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0])

    def fn(k, q, n):
        stats = sg.scipy.stats
        out = []
        for y in (stats.poisson.pmf(k, q), stats.geom.pmf(k, q), stats.nbinom.pmf(k, n * 10, q)):
            out.append(sg.gradients(sg.numpy.sum(y), [q])[0])
        return out

    d_poisson, d_geom, d_nbinom = run_graph(fn, k, q, n)
    # at k = 1.8e308 poisson's and nbinom's log mass overflows to -inf itself (k log mu, Gamma(n + k)):
    # an exact 0 to mass_of, left as it was (still nan)
    for d in (np.delete(d_poisson, 3), d_geom, np.delete(d_nbinom, 3)):
        assert not np.isnan(d).any(), d
    np.testing.assert_array_equal(d_poisson[:3], 0.0)
    np.testing.assert_array_equal(d_geom[3], 0.0)
    np.testing.assert_array_equal(d_nbinom[:3], 0.0)
    pmf = 2.5**3 * np.exp(-2.5) / 6
    np.testing.assert_allclose(d_poisson[4], pmf * (3 / 2.5 - 1), rtol=1e-14)
    np.testing.assert_allclose(d_geom[5], 0.75**2 - 2 * 0.25 * 0.75, rtol=1e-14)
    n30, k2, p = 30.0, 2.0, 0.4  # nbinom(2; n = 30, p = 0.4): C(31, 2) p^30 (1-p)^2
    want = 465 * (n30 * p ** (n30 - 1) * (1 - p) ** k2 - k2 * p**n30 * (1 - p))
    np.testing.assert_allclose(d_nbinom[6], want, rtol=1e-12)


def test_tail_slopes_below_the_support_are_zero():
    """Below the support (x < 0) the cdf and sf are the constants 0 and 1 and so are their logs:
    every slope in x is 0, also in float32 where chi2's x / 2 of x = -1.2e-38 flushes to -0 (the
    probability took the slope 1/2 of the support's end there, and logsf = log(1 - P) with 0 - P
    passed it on as -1/2). On the support the slopes are -pdf / sf and pdf / cdf (x = 0.5, df = 2:
    the exponential's -1/2 and e^-1/4 / (2 (1 - e^-1/4)))."""
    tiny32 = float(np.finfo(np.float32).tiny)
    for dtype, tiny in ((np.float32, tiny32), (np.float64, TINY)):
        x = np.array([-tiny, -0.5, -1.0, 0.5], dtype)
        df = np.full_like(x, 2.0)

        def fn(x, df):
            stats = sg.scipy.stats
            out = []
            for y in (stats.chi2.logsf(x, df), stats.chi2.cdf(x, df), stats.gamma.logsf(x, df / 2)):
                out.append(sg.gradients(sg.numpy.sum(y), [x])[0])
            return out

        logsf, cdf, gamma_logsf = run_graph(fn, x, df)
        for got in (logsf, cdf, gamma_logsf):
            np.testing.assert_array_equal(got[:3], 0.0)
        np.testing.assert_allclose(logsf[3], -0.5, rtol=1e-6)
        np.testing.assert_allclose(cdf[3], np.exp(-0.25) / 2, rtol=1e-6)
        np.testing.assert_allclose(gamma_logsf[3], -1.0, rtol=1e-6)
