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
