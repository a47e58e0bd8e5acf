"""gamma, chi2 and gennorm at the points the special-point sweep found off (issue 20), against closed
forms in long double: the regularized incomplete gamma's factor x^a e^-x / Gamma(a) (XLA's lgamma
up to 32 ulps off at 1.5, and a log x - lgamma(a) cancelling for large a), and gennorm's
log(beta) - gammaln(1 / beta), which cancels for large beta."""

import numpy as np

import stablegraph as sg
from stablegraph.test_util import run_graph

L = np.longdouble


def _ulps(got, want):
    """|got - want| in float64 ulps of want."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return np.abs(got - want) / np.spacing(np.abs(want))


def _poisson_sums(n: int, x: float):
    """P(n, x) and Q(n, x) for a whole shape n in long double: Q = e^-x sum_{k<n} x^k / k!, P its
    complement summed directly (sum_{k>=n}), so neither side cancels."""
    xl = L(x)
    terms = [L(1)]
    for k in range(1, n + 400):
        terms.append(terms[-1] * xl / k)
    head, tail = sum(terms[:n], L(0)), sum(terms[n:], L(0))
    return float(np.exp(-xl) * tail), float(np.exp(-xl) * head)


def test_incomplete_gamma_keeps_its_digits_at_whole_shapes():
    small = [(n, v) for n in (1, 2, 3) for v in (0.001, 0.1, 0.5, 1.0, 2.0, 2.1, 2.5, 3.0, 10.0, 30.0, 100.0)]
    a, x = np.array(small + [(30, 30.0), (100, 100.0), (30, 25.0), (100, 110.0)]).T
    p, q = run_graph(lambda a, x: (sg.scipy.special.gammainc(a, x), sg.scipy.special.gammaincc(a, x)), a, x)
    want = np.array([_poisson_sums(int(n), v) for n, v in zip(a, x)])
    # near the mode of a large shape the factor is exp of a log near -4 (its rounding is a few ulps)
    bound = np.where(a < 30, 4, 8)
    assert (_ulps(p, want[:, 0]) <= bound).all(), np.c_[a, x, _ulps(p, want[:, 0])]
    assert (_ulps(q, want[:, 1]) <= bound).all(), np.c_[a, x, _ulps(q, want[:, 1])]


def _log_gamma_ld(a):
    """log Gamma(a) in long double: the recurrence up past 40, then Stirling."""
    a, shift = L(a), L(0)
    while a < 40:
        shift += np.log(a)
        a += 1
    inv = 1 / a
    w = inv * (L(1) / 12 - inv**2 * (L(1) / 360 - inv**2 * (L(1) / 1260 - inv**2 / 1680)))
    return (a - L(0.5)) * np.log(a) - a + np.log(2 * np.arccos(L(-1))) / 2 + w - shift


def _chi2_density_ld(x, df):
    a, y = L(df) / 2, L(x) / 2
    return np.exp((a - 1) * np.log(y) - y - _log_gamma_ld(a)) / 2


def test_gamma_and_chi2_densities_are_products_not_exp_of_a_large_log():
    x = np.array([2.2250738585072014e-308, 2.2250738585072014e-308, 0.5, 1.0, 2.0, 7.0, 3.0])
    df = np.array([0.5, 1.0, 2.220446049250313e-16, 2.220446049250313e-16, 0.001, 3.0, 5.0])
    chi, gam = run_graph(
        lambda x, d: (sg.scipy.stats.chi2.pdf(x, d), sg.scipy.stats.gamma.pdf(x, d / 2)), x, df
    )
    want = np.array([_chi2_density_ld(v, d) for v, d in zip(x, df)])
    # gamma(a, x) at x = 2 z is chi2(2 a) at 2 z times 2
    want_gamma = np.array([_chi2_density_ld(2 * L(v), d) * 2 for v, d in zip(x, df)])
    assert _ulps(chi, want).max() <= 3, _ulps(chi, want)
    assert _ulps(gam, want_gamma).max() <= 3, _ulps(gam, want_gamma)
    # float32: z = 3, df = 30 (shape 15) rounds a log density of -21.7 in float32 unless widened
    x32, df32 = np.array([3.0, 1e-30, 40.0], np.float32), np.array([30.0, 1.5, 20.0], np.float32)
    (chi32,) = run_graph(lambda x, d: (sg.scipy.stats.chi2.pdf(x, d),), x32, df32)
    want32 = np.array([_chi2_density_ld(float(v), float(d)) for v, d in zip(x32, df32)])
    err = np.abs(chi32 - want32.astype(np.float64)) / np.spacing(want32.astype(np.float32)).astype(np.float64)
    assert err.max() <= 1, err


def _lgamma1p_ld(t):
    """log Gamma(1 + t) in long double."""
    return _log_gamma_ld(L(1) + L(t))


def test_gennorm_density_at_large_shapes():
    x = np.array([0.0, 1.0, 0.5, -1.0, 1.0 + 2**-52, 0.3, 0.9])
    beta = np.array([1e8, 1e8, 1e4, 100.0, 1e8, 2.0, 3.0])
    logs, dens = run_graph(
        lambda x, b: (sg.scipy.stats.gennorm.logpdf(x, b), sg.scipy.stats.gennorm.pdf(x, b)), x, beta
    )
    want = np.array([-np.log(L(2)) - _lgamma1p_ld(1 / L(b)) - np.abs(L(v)) ** L(b) for v, b in zip(x, beta)])
    assert _ulps(logs, want).max() <= 2, _ulps(logs, want)
    assert _ulps(dens, np.exp(want)).max() <= 2, _ulps(dens, np.exp(want))
