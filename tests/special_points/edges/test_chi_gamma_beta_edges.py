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


def test_gennorm_cdf_slopes_at_and_next_to_zero():
    """d/dx gennorm.cdf is the density, also at x = 0 and at subnormal x, where the chain rule of
    P(1 / beta, |x|**beta) multiplies P's slope 0 by |x|**beta's infinite one (nan, jax's too, or
    0 where XLA flushed the subnormal); d/dbeta there is x d/dbeta (1 / (2 Gamma(1 + 1/beta))) to
    O(|x|**beta), 0 at x = 0. Against scipy's density and that closed form."""
    from scipy import special, stats

    xs = np.array([0.0, -0.0, 5e-324, 1e-300, -1e-300, 1e-20, 1e-9, -1e-9])
    betas = np.array([0.1, 0.5, 1.0, 2.0, 1e4])
    x, beta = (a.ravel() for a in np.meshgrid(xs, betas))
    cdf = sg.scipy.stats.gennorm.cdf
    value, d_x, d_beta = run_graph(
        lambda x, b: (cdf(x, b), *sg.grad(lambda u, v: sg.numpy.sum(cdf(u, v)), argnums=(0, 1))(x, b)),
        x,
        beta,
    )
    # 1/2 + x pdf(0) to O(x |x|**beta); scipy's cdf is 1/2 at beta = 1e4, x = 1e-9 (|x|**beta underflows)
    np.testing.assert_allclose(value, 0.5 + x * stats.gennorm.pdf(0.0, beta), rtol=1e-13, atol=0)
    np.testing.assert_allclose(d_x, stats.gennorm.pdf(x, beta), rtol=1e-14)
    a = 1 / beta
    want = x / 2 * special.digamma(1 + a) / (beta**2 * special.gamma(1 + a))
    with np.errstate(divide="ignore", invalid="ignore"):
        first_order = np.abs(x) ** beta * np.abs(np.log(np.abs(x))) < 1e-10  # the next term's size
    normal = first_order & (np.abs(x) > 1e-250)
    assert normal.sum() >= 5
    np.testing.assert_allclose(d_beta[normal], want[normal], rtol=1e-9, atol=0)
    # at |x| = 1e-300 the reverse pass's cotangents through the Gamma factor's series fall below the
    # smallest normal, which XLA flushes: 1.4e-8 off at beta = 2, and 0 for beta = 1e4's 2.9e-309
    tiny = first_order & (np.abs(x) < 1e-250)
    np.testing.assert_allclose(d_beta[tiny], want[tiny], rtol=1e-7, atol=1e-307)
    assert (d_beta[x == 0] == 0).all()

    # float32: at the smallest subnormal the density at 0 (jax 0, ours was nan)
    x32, b32 = np.array([1.4e-45, 0.0], np.float32), np.array([0.5, 0.1], np.float32)
    (d32,) = run_graph(lambda x, b: (sg.grad(lambda u: sg.numpy.sum(cdf(u, b)))(x),), x32, b32)
    # (the float32 cdf is float32 arithmetic: its gammaln(1 / beta) leaves 4e-6 at beta = 0.1)
    np.testing.assert_allclose(d32, stats.gennorm.pdf(0.0, b32.astype(np.float64)), rtol=1e-5)


_BERNOULLI = ((1, 6), (-1, 30), (1, 42), (-1, 30), (5, 66), (-691, 2730), (7, 6), (-3617, 510))


def _shifted(a, step):
    """z = a + n >= 60 and the sum of step(a + k), k < n (the recurrence's terms), in 40 digits."""
    z, shift = a, 0
    while z < 60:
        shift += step(z)
        z += 1
    return z, shift


def _log_gamma_decimal(a):
    """log Gamma(a) by the recurrence up past 60, then Stirling's series (8 terms)."""
    from decimal import Decimal

    z, shift = _shifted(a, lambda z: z.ln())
    pi = Decimal("3.141592653589793238462643383279502884197")
    total = (z - Decimal("0.5")) * z.ln() - z + (2 * pi).ln() / 2
    for k, (num, den) in enumerate(_BERNOULLI, 1):
        total += Decimal(num) / (Decimal(den) * (2 * k) * (2 * k - 1) * z ** (2 * k - 1))
    return total - shift


def _digamma_decimal(a):
    """digamma(a) by the recurrence up past 60, then its asymptotic series (8 terms)."""
    from decimal import Decimal

    z, shift = _shifted(a, lambda z: 1 / z)
    total = z.ln() - 1 / (2 * z)
    for k, (num, den) in enumerate(_BERNOULLI, 1):
        total -= Decimal(num) / (Decimal(den) * (2 * k) * z ** (2 * k))
    return total - shift


def _gamma_density_decimal(x, a):
    """x^(a-1) e^-x / Gamma(a) and its slopes pdf ((a - 1) / x - 1), pdf (log x - digamma(a)) in
    40-digit decimal."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 40
        x, a = Decimal(x), Decimal(a)
        pdf = ((a - 1) * x.ln() - x - _log_gamma_decimal(a)).exp()
        return float(pdf), float(pdf * ((a - 1) / x - 1)), float(pdf * (x.ln() - _digamma_decimal(a)))


def test_gamma_density_at_large_shapes_keeps_its_digits():
    """For a >= 8 the density is Stirling's form with (z / a)^a as a ratio of two pows, not exp of a
    log density of up to -700 (chi2 x = 3, df = 100: 24 ulps, and 140 by bd0 alone far below the
    mode); its slopes are the value times the log slopes written without their cancellation at the
    mode (((a - 1) - z) / z, log1p((z - a) / a) + log a - digamma(a)). Against 40-digit decimals."""
    x = np.array([1.5, 0.5, 50.0, 49.5, 8.0, 5e3, 30.0, 150.0, 2.0, 120.0])
    a = np.array([50.0, 8.5, 50.0, 50.0, 8.0, 5e3, 15.0, 100.0, 30.0, 240.0])
    got = run_graph(
        lambda x, a: (
            y := sg.scipy.stats.gamma.pdf(x, a),
            *sg.gradients(sg.numpy.sum(y), [x, a]),
            sg.scipy.stats.chi2.pdf(2 * x, 2 * a),
        ),
        x,
        a,
    )
    pdf, dx, da, chi = got
    want = np.array([_gamma_density_decimal(v, s) for v, s in zip(x, a)])
    assert _ulps(pdf, want[:, 0]).max() <= 4, _ulps(pdf, want[:, 0])
    assert _ulps(chi, want[:, 0] / 2).max() <= 4, _ulps(chi, want[:, 0] / 2)
    assert _ulps(dx, want[:, 1]).max() <= 8, _ulps(dx, want[:, 1])
    # at (49.5, 50) d/da is near its zero (log x = digamma(a) at x ~ a - 1/2): the bracket is 1.7e-5
    # from terms of 0.01, whose last digits are 100 ulps of it (log x - digamma(a): 1e5 ulps)
    bound = np.where(np.arange(x.size) == 3, 300, 40)
    assert (_ulps(da, want[:, 2]) <= bound).all(), _ulps(da, want[:, 2])


def _wrapcauchy_log_decimal(x, c):
    """wrapcauchy's log density, d/dc and d2/dc2 in 50-digit decimal (cos by its Taylor series):
    log((1 - c^2) / (2 pi S)), S = 1 + c^2 - 2c cos x."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 50
        x, c = Decimal(x), Decimal(c)
        term, cos, k = Decimal(1), Decimal(1), 0
        while abs(term) > Decimal(10) ** -48:
            k += 2
            term = -term * x * x / (k * (k - 1))
            cos += term
        spread = 1 + c * c - 2 * c * cos
        two_pi = 2 * Decimal("3.14159265358979323846264338327950288419716939937510")
        value = ((1 - c * c) / (two_pi * spread)).ln()
        slope = -2 * c / (1 - c * c) - (2 * c - 2 * cos) / spread
        curve = -2 * (1 + c * c) / (1 - c * c) ** 2 - 2 / spread + (2 * c - 2 * cos) ** 2 / spread**2
        return float(value), float(slope), float(curve)


def test_wrapcauchy_log_density_curvature_in_c_away_from_zero():
    """Where cos x < -1/2 the log density is -2 atanh(c) - log1p(-4c cos(x/2)^2 / (1 + c)^2) -
    log(2 pi): at x = pi its d2/dc2 is -4c / (1 - c^2)^2, which the plain form summed from -2 and +2
    (float64 -2.2e-15 for -8.9e-16 at c = 2.2e-16, -4.000000019e-7 for -4e-7 at c = 1e-7)."""
    x = np.array([np.pi, np.pi, np.pi, np.pi, 2.5, 4.0, 3.0, 1.0])
    c = np.array([2.220446049250313e-16, 1e-7, 1e-5, 0.01, 0.3, 0.9, 0.97, 0.5])

    def fn(x, c):
        y = sg.scipy.stats.wrapcauchy.logpdf(x, c)
        (dc,) = sg.gradients(sg.numpy.sum(y), [c])
        (dcc,) = sg.gradients(sg.numpy.sum(dc), [c])
        return [y, dc, dcc]

    value, slope, curve = run_graph(fn, x, c)
    want = np.array([_wrapcauchy_log_decimal(v, s) for v, s in zip(x, c)])
    assert _ulps(value, want[:, 0]).max() <= 4, _ulps(value, want[:, 0])
    assert _ulps(slope, want[:, 1]).max() <= 8, _ulps(slope, want[:, 1])
    assert _ulps(curve, want[:, 2]).max() <= 8, _ulps(curve, want[:, 2])
