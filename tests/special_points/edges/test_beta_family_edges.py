"""The incomplete beta function and the functions built on it (beta's cdf and sf, betaln,
betabinom) at the points the special-point sweep found off (issue 20, part 2), against exact
values (symmetry, whole-number closed forms) and a long-double continued fraction."""

import decimal

import numpy as np
import scipy.special

import stablegraph as sg
from stablegraph.test_util import run_graph

L = np.longdouble
F32 = np.float32
TINY32, MAX32 = float(np.finfo(F32).tiny), float(np.finfo(F32).max)


def _ulps(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return np.abs(got - want) / np.spacing(np.abs(want))


def _lgamma(x):
    """log Gamma(x) in long double for x >= 1/2: Stirling's series from x + n >= 30 on, less the logs
    of the n factors below."""
    x = L(x)
    shift = L(0)
    while x < 30:
        shift += np.log(x)
        x += 1
    bernoulli = (L(1) / 6, L(-1) / 30, L(1) / 42, L(-1) / 30, L(5) / 66, L(-691) / 2730, L(7) / 6)
    total = (x - L(0.5)) * np.log(x) - x + np.log(2 * np.arccos(L(-1))) / 2
    for k, b in enumerate(bernoulli, 1):
        total += b / (2 * k * (2 * k - 1)) / x ** (2 * k - 1)
    return total - shift


def _betainc_ld(a, b, x):
    """I_x(a, b) by Lentz's continued fraction in long double (moderate a, b: the factor's logs stay
    below 1e3, whose long-double rounding is 1e-16 of it)."""
    a, b, x = L(a), L(b), L(x)
    if x > (a + 1) / (a + b + 2):
        return 1 - _betainc_ld(b, a, 1 - x)
    front = np.exp(a * np.log(x) + b * np.log1p(-x) - (_lgamma(a) + _lgamma(b) - _lgamma(a + b))) / a
    c, d = L(1), 1 / (1 - (a + b) * x / (a + 1))
    h = d
    for m in range(1, 10_000):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):  # fmt: skip
            d = 1 / (1 + numerator * d)
            c = 1 + numerator / c
            h *= d * c
        if abs(d * c - 1) < L(1e-19):
            break
    return float(front * h)


def test_betainc_float64_against_long_double():
    # the factor x^a (1 - x)^b / (a B(a, b)) came from XLA's lgamma (1e-15 relative, so 3e-11 of
    # the result at a = b = 1e4) and XLA's log1p, 127 ulps off at -0.4: 168 ulps at (2.5, 3.5, 0.4),
    # 79 at (30, 40, 0.45), 8e4 at (100, 1e4, 0.01), 2.4e5 at (0.1, 1e4, 1e-5)
    points = [(2.5, 3.5, 0.4), (30.0, 40.0, 0.45), (100.0, 1e4, 0.01), (1e4, 100.0, 0.99), (0.1, 1e4, 1e-5),
              (1.0, 10.0, 0.1), (0.5, 0.5, 0.3), (5.0, 5.0, 0.1), (1000.0, 1000.0, 0.49), (8.0, 20.0, 0.3),
              (3.0, 1e3, 0.002), (1e3, 3.0, 0.998)]  # fmt: skip
    a, b, x = (np.array(v) for v in zip(*points))
    got = run_graph(sg.scipy.special.betainc, a, b, x)
    want = np.array([_betainc_ld(*p) for p in points])
    # what is left at large shapes is the continued fraction's own float64 rounding (Lentz's
    # recurrence loses 640 ulps at (100, 1e4, 0.01) in plain float64 arithmetic too)
    bound = [4, 4, 400, 400, 4, 8, 4, 4, 64, 12, 4, 4]
    np.testing.assert_array_less(_ulps(got, want), bound)


def test_betainc_far_tail_of_moderate_shapes():
    # both shapes in [8, 16) far below the mode: Stirling's factor exp(-2 bd0 ...) rounded a log of
    # up to 700 (153 ulps at (10, 10, 2.2e-16), 60 at (10, 10, 1e-5), 33 at (15, 15, 0.05)); now
    # the powers times Gamma products
    points = [(10.0, 10.0, 2.220446049250313e-16), (10.0, 10.0, 1e-5), (12.5, 9.0, 1e-3), (15.0, 15.0, 0.05)]
    a, b, x = (np.array(v) for v in zip(*points))
    got = run_graph(sg.scipy.special.betainc, a, b, x)
    np.testing.assert_array_less(_ulps(got, [_betainc_ld(*p) for p in points]), 4)


def test_betainc_at_the_symmetry_point():
    # I_1/2(a, a) = 1/2 exactly: ours was 0.5 + 1.5e-11 at a = 1e4 (jax 0.5 - 1.5e-11) and
    # 0.5 + 2.7e-14 at a = 2.2e-308 (scipy gives 0 there); now the continued fraction's rounding
    a = np.array([2.2250738585072014e-308, 1e-3, 0.5, 8.0, 100.0, 1e4, 1e5])
    got = run_graph(sg.scipy.special.betainc, a, a, np.full_like(a, 0.5))
    np.testing.assert_array_less(_ulps(got, np.full_like(a, 0.5)), [2, 8, 8, 2, 16, 128, 1024])
    cdf, sf = run_graph(lambda a: (sg.scipy.stats.beta.cdf(0.5, a, a), sg.scipy.stats.beta.sf(0.5, a, a)), a)
    np.testing.assert_array_less(_ulps(cdf, np.full_like(a, 0.5)), [2, 8, 8, 2, 16, 128, 1024])
    np.testing.assert_array_less(_ulps(sf, np.full_like(a, 0.5)), [2, 8, 8, 2, 16, 128, 1024])


def test_betainc_where_one_minus_x_rounds_to_one():
    # I_x(1, b) = 1 - (1 - x)^b: at x = 1.2e-38, b = 3.4e38 it is 1 - e^-4 = 0.98168 (scipy); the
    # symmetric side saw 1 - x = 1 and gave 1.0 (now float32 is computed in float64, 0.0)
    a = np.array([1.0, 1.0, 2.0], F32)
    b = np.array([MAX32, 1e30, 1e20], F32)
    x = np.array([TINY32, 1e-30, 1e-21], F32)
    got = run_graph(sg.scipy.special.betainc, a, b, x)
    want = scipy.special.betainc(*(v.astype(np.float64) for v in (a, b, x)))
    np.testing.assert_allclose(got, want, rtol=3e-7)


def _betainc_tiny_b(a: int, b: float, x: float) -> float:
    """I_x(a, b) for a whole a and b below 1e-20, in 50-digit decimals: (a b / (a + b)) int_0^x t^(a-1)
    / (1 - t) dt (the O(b) rest is below 1e-18 relative), the integral -log(1 - x) - sum_k<a x^k / k."""
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        xd, bd = decimal.Decimal(x), decimal.Decimal(b)
        integral = -(1 - xd).ln() - sum(xd**k / k for k in range(1, a))
        return float(a * bd / (a + bd) * integral)


def test_betainc_with_a_tiny_second_shape_near_x_one():
    # I_x(a, b) = b (-log(1 - x) - ...) for a tiny b: the swapped side's 1 - I_(1-x)(b, a) rounded it
    # to 2.2e-16 (float32 (1, 1.2e-38, 1 - 6e-8): 1.96e-37) and to 0 or 1e-307 in float64 (scipy's too)
    a32 = np.array([1.0, 10.0, TINY32], F32)
    b32 = np.array([TINY32, TINY32, TINY32], F32)
    x32 = np.array([1 - 2**-24, 1 - 2**-24, 0.9], F32)
    a64 = np.array([1.0, 2.0, 1.0, 3.0, 100.0, 1.0])
    b64 = np.array([2.2250738585072014e-308, 2.2250738585072014e-308, 1e-300, 1e-25, 1e-30, 1e-21])
    x64 = np.array([1 - 2**-53, 1 - 2**-53, 0.9, 0.99, 0.995, 0.75])
    got32, got64 = run_graph(
        lambda a, b, x, c, d, y: (sg.scipy.special.betainc(a, b, x), sg.scipy.special.betainc(c, d, y)),
        a32, b32, x32, a64, b64, x64,
    )  # fmt: skip
    want32 = [_betainc_tiny_b(int(a), float(b), float(x)) for a, b, x in zip(a32[:2], b32[:2], x32[:2])]
    np.testing.assert_allclose(got32[:2], want32, rtol=3e-7)
    assert got32[2] == 0.5  # I_x(e, e) -> 1/2 inside (0, 1): the mass splits between the ends
    want64 = [_betainc_tiny_b(int(a), b, x) for a, b, x in zip(a64, b64, x64)]
    np.testing.assert_array_less(_ulps(got64, want64), 8)


def test_betaln_and_betabinom_at_whole_shapes():
    # log B(1, 2) = -log 2 exactly; XLA's lgamma(3) is 11 ulps off, so betaln(1, 2) and
    # betabinom.pmf(0, 1, 1, 1) = B(1, 2) / B(1, 1) = 1/2 came out 6 and 3 ulps off
    a = np.array([1.0, 1.0, 2.0, 3.0, 1.0, 2.0])
    b = np.array([2.0, 1.0, 2.0, 1.0, 3.0, 3.0])
    betaln, pmf, logpmf = run_graph(
        lambda a, b: (
            sg.scipy.special.betaln(a, b),
            sg.scipy.stats.betabinom.pmf(0.0, 1.0, a, b),
            sg.scipy.stats.betabinom.logpmf(0.0, 1.0, a, b),
        ),
        a,
        b,
    )
    # B(a, b) = (a - 1)! (b - 1)! / (a + b - 1)!, P(K = 0) for n = 1 is b / (a + b)
    whole = np.array([1 / 2, 1.0, 1 / 6, 1 / 3, 1 / 3, 1 / 12])
    np.testing.assert_array_less(_ulps(betaln, np.log(whole)) * (np.log(whole) != 0), 2)
    np.testing.assert_array_less(np.abs(betaln[np.log(whole) == 0]), 1e-300)
    # exp of a difference of two betaln (each within an ulp of ~2) keeps a few ulps, none at (1, 1), (1, 2)
    bound = np.where((a == 1) & (b <= 2), 1.5, 6)
    np.testing.assert_array_less(_ulps(pmf, b / (a + b)), bound)
    # the log is a difference of two betaln near 2: an ulp of those, exact at (1, 1)
    np.testing.assert_allclose(logpmf, np.log(b / (a + b)), rtol=0, atol=1e-15)
    assert logpmf[1] == np.log(0.5)


def _stirling_log_ratio(a, x):
    """log Gamma(x) - log Gamma(x + a) in long double for x >= 1e4: -a log x - (x + a - 1/2) log1p(a/x)
    + a + w(x) - w(x + a), every term free of the large cancelling logs."""
    a, x = L(a), L(x)

    def w(y):
        return 1 / (12 * y) - 1 / (360 * y**3) + 1 / (1260 * y**5)

    return -a * np.log(x) - (x + a - L(0.5)) * np.log1p(a / x) + a + w(x) - w(x + a)


def test_beta_with_one_large_shape_and_betaln_slopes_where_a_plus_b_rounds():
    # B(2.5, 1e8) = Gamma(2.5) e^(log Gamma(1e8) - log Gamma(1e8 + 2.5)) was exp(betaln ~ -46): 64 ulps
    # off (scipy's and jax's too); betaln(1, 1 + eps) = -log(1 + eps) came out -1.3e-16 (a + b = 2 + eps
    # rounds to 2); d betaln(10, 2e-16) / da = -2e-16 psi'(10) came out 0.6% off (w(10) - w(10 + 2e-16))
    a = np.array([2.5, 3.0, 0.5, 1.0, 10.0])
    b = np.array([1e8, 1e30, 1e4, 1.0 + 2**-52, 2.220446049250313e-16])

    def fn(a, b):
        slope = sg.grad(lambda av: sg.numpy.sum(sg.scipy.special.betaln(av, b)))(a)
        return sg.scipy.special.beta(a, b), sg.scipy.special.betaln(a, b), slope

    beta, betaln, slope = run_graph(fn, a, b)
    for i in range(3):
        want = np.exp(_lgamma(a[i]) + _stirling_log_ratio(a[i], b[i]))
        assert _ulps(beta[i], float(want)) <= 2, (a[i], b[i], beta[i], want)
    assert _ulps(betaln[3], -np.log1p(2.0**-52)) <= 1
    want_slope = -b[4] * scipy.special.polygamma(1, a[4])
    assert abs(slope[4] - want_slope) <= 1e-9 * abs(want_slope)  # jax: 2e-6


def test_betaln_slopes_next_to_a_pole_and_a_tiny_shape():
    # d betaln / da = psi(a) - psi(a + b): at b = -1, -2 (poles of Gamma(b)) the recurrence gives
    # 1/(a - 1) (+ 1/(a - 2)) and d2 = -(1/(a - 1)^2 + 1/(a - 2)^2), where the digammas near their
    # poles cancel (float32 d2 came out -1.265625, not -1.25); at b = 1.2e-38 next to a = 1.2e-7
    # it is -b psi'(a) = -8.3e-25 (came out 0: a + b rounds to a)
    a = np.array([1.1920928955078125e-07, 1.1920928955078125e-07, 1.1920928955078125e-07])
    b = np.array([-1.0, -2.0, 1.1754943508222875e-38])

    def slopes(a, b):
        def slope(av):
            return sg.grad(lambda t: sg.numpy.sum(sg.scipy.special.betaln(t, b)))(av)

        return slope(a), sg.grad(lambda av: sg.numpy.sum(slope(av)))(a)

    got = run_graph(
        lambda a, b, a32, b32: (slopes(a, b), slopes(a32, b32)), a, b, a.astype(F32), b.astype(F32)
    )
    for (d1, d2), dtype, rtol in zip(got, (np.float64, F32), (1e-14, 2e-7)):
        a64 = a.astype(dtype).astype(np.float64)
        want1 = [
            1 / (a64[0] - 1),
            1 / (a64[1] - 1) + 1 / (a64[1] - 2),
            -b[2] * scipy.special.polygamma(1, a64[2]),
        ]
        want2 = [-1 / (a64[0] - 1) ** 2, -1 / (a64[1] - 1) ** 2 - 1 / (a64[1] - 2) ** 2,
                 -b[2] * scipy.special.polygamma(2, a64[2])]  # fmt: skip
        np.testing.assert_allclose(d1, want1, rtol=rtol)
        np.testing.assert_allclose(d2, want2, rtol=rtol)


def test_beta_and_betaln_slopes_at_a_negative_shape_next_to_a_tiny_one():
    # d betaln / da = psi(a) - psi(a + b) = -b psi'(a) - b^2 psi''(a) / 2 for a tiny b, and d B / da =
    # B times it, B b = 1 + O(b): the two digammas at a = -0.5 kept 3 digits (d B / da came out -9.406
    # where it is -psi'(-0.5) = -(pi^2 / 2 + 4)); now the series as for a positive a
    a = np.array([-0.5, -2.5, 2.220446049250313e-16])
    b = np.array([2.220446049250313e-16, 1e-10, -0.5])

    def slopes(a, b):
        def d_da(fn):
            return sg.grad(lambda t: sg.numpy.sum(fn(t, b)))(a)

        def d_db(fn):
            return sg.grad(lambda t: sg.numpy.sum(fn(a, t)))(b)

        special = sg.scipy.special
        return d_da(special.betaln), d_da(special.beta), d_db(special.betaln), d_db(special.beta)

    ln_a, beta_a, ln_b, beta_b = run_graph(slopes, a, b)
    shape, tiny = (
        np.array([-0.5, -2.5, -0.5]),
        np.array([2.220446049250313e-16, 1e-10, 2.220446049250313e-16]),
    )
    trigamma = scipy.special.polygamma(1, shape)
    np.testing.assert_allclose(trigamma[[0, 2]], np.pi**2 / 2 + 4, rtol=1e-15)  # the oracle's own check
    want = -tiny * (trigamma + tiny * scipy.special.polygamma(2, shape) / 2)
    np.testing.assert_allclose(ln_a[:2], want[:2], rtol=1e-13)
    np.testing.assert_allclose(ln_b[2], want[2], rtol=1e-13)
    np.testing.assert_allclose(beta_a[0], -trigamma[0], rtol=1e-13)
    np.testing.assert_allclose(beta_b[2], -trigamma[2], rtol=1e-13)


def test_beta_and_betaln_slopes_where_a_shape_is_small_beside_the_other():
    """betaln's slopes psi(a) - psi(a + b) and psi'(a) - psi'(a + b), and beta's B (psi(a) - psi(a + b)),
    with b small beside a or a large beside 12 (log_beta.digamma_step takes the step by psi's
    recurrence and asymptotic series instead of two digammas): d/da B(0.5, 1e-3) was 193 ulps off,
    d2/da2 betaln(1 + eps, 1e-3) 2400 (jax 160), d/da betaln(1e4, 0.5) 1e5. Within 4 ulps of 40-digit
    values (mpmath), beta's slope within 4 + |log B| (B is the exp of a log)."""
    import pytest  # noqa: PLC0415

    mpmath = pytest.importorskip("mpmath")
    points = [(0.5, 1e-3), (1.0 + 2.0**-52, 1e-3), (1.5, 1e-3), (2.0, 1e-3), (0.1, 2.5), (3.0, 0.7),
              (1e4, 0.5), (12.0, 1e4), (30.0, -14.5), (1e8, 2.5), (16.0, 0.3)]  # fmt: skip
    a, b = (np.array(col) for col in zip(*points))

    def build(x, y):
        slope_b = sg.grad(lambda u: sg.numpy.sum(sg.scipy.special.beta(u, y)))(x)
        slope = sg.grad(lambda u: sg.numpy.sum(sg.scipy.special.betaln(u, y)))
        return slope_b, slope(x), sg.grad(lambda u: sg.numpy.sum(slope(u)))(x)

    got = np.array(run_graph(build, a, b))
    with mpmath.workdps(40):
        want = np.array(
            [
                [float(f(mpmath.mpf(x), mpmath.mpf(y))) for x, y in points]
                for f in (
                    lambda x, y: mpmath.beta(x, y) * (mpmath.psi(0, x) - mpmath.psi(0, x + y)),
                    lambda x, y: mpmath.psi(0, x) - mpmath.psi(0, x + y),
                    lambda x, y: mpmath.psi(1, x) - mpmath.psi(1, x + y),
                )
            ]
        )
    # beta's own value is exp(betaln): |betaln| ulps of it at (12, 1e4), where log B = -91, on top
    allowed = np.array([[4] * len(points)] * 3, np.float64)
    allowed[0] += np.abs([float(mpmath.log(abs(mpmath.beta(x, y)))) for x, y in points])
    assert (_ulps(got, want) <= allowed).all(), _ulps(got, want)
