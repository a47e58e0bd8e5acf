"""The special functions at the edges the special-point sweep found (issue 20, part 2), against long
double closed forms: the slopes of i0e and i1e far out (their textbook forms cancel) and in float32,
the sine/cosine and Fresnel integrals near the end of their power series, and the derivatives of
fresnel, spence and erfcx at their edges (infinities, 0, float32 cancellation)."""

import decimal
import math

import numpy as np
import scipy.special

import stablegraph as sg
from stablegraph.test_util import run_graph

S = sg.scipy.special
L = np.longdouble
PI = np.arccos(L(-1))


def _ulps(got, want, dtype):
    """|got - want| in ulps of want rounded to dtype."""
    got, want = np.asarray(got, L), np.asarray(want, L)
    return np.asarray(np.abs(got - want) / np.spacing(np.abs(np.asarray(want, dtype))), np.float64)


def _slopes(fn):
    """x -> [fn(x), fn'(x), fn''(x)] elementwise, in one graph."""

    def build(x):
        d1 = sg.gradients(sg.numpy.sum(fn(x)), [x])[0]
        return [fn(x), d1, sg.gradients(sg.numpy.sum(d1), [x])[0]]

    return build


def _scaled_bessel(x):
    """(i0e, i1e, i0e', i0e'', i1e', i1e'') at x > 0 in long double: the power series of I0 and I1
    (positive terms) for x <= 25, Hankel's expansion differentiated term by term beyond."""
    out = []
    for xi in np.asarray(x, L):
        if xi <= 25:
            i0, i1 = L(0), L(0)
            t0, t1 = L(1), xi / 2
            for k in range(200):
                i0, i1 = i0 + t0, i1 + t1
                t0, t1 = t0 * (xi / 2) ** 2 / (k + 1) ** 2, t1 * (xi / 2) ** 2 / ((k + 1) * (k + 2))
            e0, e1 = i0 * np.exp(-xi), i1 * np.exp(-xi)
            row = [e0, e1, e1 - e0, 2 * e0 - e1 * (2 + 1 / xi)]
            row += [e0 - e1 * (1 + 1 / xi), e1 * (2 + 2 / xi + 2 / xi**2) - e0 * (2 + 1 / xi)]
        else:
            derivs = {0: [L(0)] * 3, 1: [L(0)] * 3}
            for nu in (0, 1):
                c = L(1)
                for k in range(30):
                    p = L(k) + L(0.5)
                    for order, factor in enumerate((1, -p, p * (p + 1))):
                        derivs[nu][order] += c * factor * xi ** -(p + order) / np.sqrt(2 * PI)
                    c = c * ((2 * k + 1) ** 2 - 4 * nu * nu) / (8 * (k + 1))
            row = [derivs[0][0], derivs[1][0], derivs[0][1], derivs[0][2], derivs[1][1], derivs[1][2]]
        out.append(row)
    return np.array(out, L).T


def test_scaled_bessel_slopes_far_out_and_in_float32():
    """i0e' = i1e - i0e and i1e' = i0e - i1e (1 + 1/x) cancel as x grows: at x = 1e4 the old float64
    slopes were 3e4 ulps off, at 1e154 rounding noise of 5e-94 (the slope is 1e-232); float32's
    second derivatives were 500 ulps off at x = 10. i1e'' = i1e (2 + 2/x + 2/x^2) - i0e (2 + 1/x)
    cancels 30-1000x from x = 1 to 30 (it crosses 0 at 2.78): the textbook i1e'' was 1792 ulps off at
    2.75, 505 at 3 (the sweep's point), 461 at 4.75, and i1e' 130 at 1.5 (near its zero); now Taylor
    polynomials with exact coefficients. Against long double closed forms (both signs: i1e' is even,
    i1e'' odd)."""
    far = np.array([45.0, 100.0, 744.44, 1e4, 1e8, 1.34e154, -1.34e154])
    band = np.array([1.5, 2.0, 2.75, 3.0, -3.0, 4.75, 5.25, 10.0, -20.0, 29.0])
    got = run_graph(lambda x: _slopes(S.i0e)(x)[1:] + _slopes(S.i1e)(x)[1:], np.concatenate([far, band]))
    want = _scaled_bessel(far[:5])
    for g, w in zip(got, want[[2, 3, 4, 5]]):
        assert np.all(_ulps(g[:5], w, np.float64) <= 8), (g, w)
        assert np.all(np.abs(g[5:7]) < 1e-200), g  # the slopes are about 1e-232, the curvatures 0
    want_band = _scaled_bessel(np.abs(band))[[4, 5]] * np.array([np.ones_like(band), np.sign(band)])
    for g, w in zip(got[2:], want_band):
        assert np.all(_ulps(g[7:], w, np.float64) <= 8), (g[7:], w, _ulps(g[7:], w, np.float64))
    near = np.array([1.5, 3.0, 10.0, 20.0, 0.1, 2.75, -3.0, 4.75], np.float32)
    got32 = run_graph(lambda x: _slopes(S.i0e)(x)[1:] + _slopes(S.i1e)(x)[1:], near)
    want32 = _scaled_bessel(np.abs(near).astype(np.float64))
    signs = np.array([np.sign(near), np.ones_like(near), np.ones_like(near), np.sign(near)])  # parity
    for g, w in zip(got32, want32[[2, 3, 4, 5]] * signs):
        assert np.all(_ulps(g, w, np.float32) <= 4), (g, w)


def _upper_normal_tail(h: float) -> float:
    """Q(h) = erfc(h / sqrt 2) / 2 for 0 <= h <= 8 from erf's power series in 60-digit decimals."""
    with decimal.localcontext() as context:
        context.prec = 60
        x = decimal.Decimal(h) / decimal.Decimal(2).sqrt()
        total, term, n = decimal.Decimal(0), x, 0
        while abs(term) > decimal.Decimal(10) ** -55:
            total += term / (2 * n + 1)
            n += 1
            term = -term * x * x / n
        pi = decimal.Decimal("3.14159265358979323846264338327950288419716939937510582097494459")
        return float((1 - 2 * total / pi.sqrt()) / 2)


def test_owens_t_where_a_exceeds_1():
    """For a > 1 Owen's T takes Q(h) = erfc(h / sqrt 2) / 2, and erfc of the rounded h / sqrt 2 cost
    2 u^2 of its relative error: T(3, 3) was 0.0006749490158150465, 7.5 ulps under the true ...473,
    T(6.5, inf) 34 ulps. The rounding is put back now. Against T(h, a) = Q(|h|) / 2 for a = inf and
    1e10 (Phi(ah) = 1, Q(ah) = 0, T(ah, 1 / a) = 0 in float64) with Q in decimals; at h ~ 0 against
    atan(a) / (2 pi)."""
    h = np.array([1.0, 2.0, 3.0, -3.0, 4.0, 5.0, 6.5, 2.2250738585072014e-308, -1e-10])
    a = np.array([np.inf, 1e10, np.inf, -np.inf, 1e10, np.inf, 1e10, 1.0, -0.5])
    got = run_graph(lambda h, a: S.owens_t(h, a), h, a)
    want = np.array([_upper_normal_tail(abs(v)) / 2 for v in h[:7]]) * np.sign(a[:7])
    # h ~ 0: T = atan(a) / (2 pi) (1/8 at a = 1; the Gauss-Legendre sum gave 5 ulps under it)
    want = np.concatenate([want, np.arctan(np.array([1.0, -0.5], np.longdouble)) / (2 * np.pi)])
    # 0-5 ulps (the old code 1-46): past u = 3, XLA's erfc itself is a few ulps off
    assert np.all(_ulps(got, want, np.float64) <= 5), (got, want, _ulps(got, want, np.float64))


def _hurwitz_decimal(s, q, terms: int = 40):
    """zeta(s, q) for s > 1 in decimal: the first terms, the tail's integral and five of its
    Euler-Maclaurin corrections B_2j / (2j)! s (s + 1) ... (s + 2j - 2) a^(-s-2j+1)."""
    Dec = decimal.Decimal
    s, q = Dec(s), Dec(q)
    a = q + terms
    total = sum(((q + k) ** -s for k in range(terms)), Dec(0)) + a ** (1 - s) / (s - 1) + a**-s / 2
    rising, factorial = s, Dec(2)
    for j, (num, den) in enumerate(((1, 6), (-1, 30), (1, 42), (-1, 30), (5, 66)), start=1):
        total += Dec(num) / den / factorial * rising * a ** (-s - 2 * j + 1)
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        factorial *= (2 * j + 1) * (2 * j + 2)
    return total


def test_zeta_slopes_in_q_where_its_terms_flush():
    """d/dq zeta(x, q) = -x zeta(x + 1, q): in float32 the terms q^-(x+1) of the inner zeta are
    subnormal at q = 1.8e19 (flushed: the slope came out 0, true -5.4e-20) and x + 1 rounds; the
    second derivative x (x + 1) zeta(x + 2, q) at (3, 1e8) was 0 (true 3e-32). Against scipy's zeta
    in float64 at the same points. In float64 the same at q = 1.34e154 and 1e300 (-0 where the
    slope is -7.46e-155, -6.44e-232, -1e-150): against Euler-Maclaurin's head
    -q^-x (1 + x / (2q)) in decimal (the next term, x (x + 1) / (12 q^2), is below 1e-300). And
    d2/dx dq = -d/dx (x zeta(x + 1, q)) next to the pole x = 1, where the slope in x's tail integral
    cancelled two terms of 4.5e15 (-330.7186 at (1 + eps, 0.1), true -330.6949): against a central
    difference of zeta in decimal. d/dx at x = q = 1.34e154 was NaN (true 0)."""
    x = np.array([1.0000001192092896, 1.5, 3.0, 2.0], np.float32)
    q = np.array([1.8446742974197924e19, 1.8446742974197924e19, 1e8, 1.5], np.float32)
    eps = np.finfo(np.float64).eps
    big = 1.3407807929942596e154
    x64 = np.array([1 + eps, 1.5, 0.5, 1 + eps, 1 + eps, 1 + eps, 1.1, big])
    q64 = np.array([big, big, 1e300, 0.001, 0.1, 0.5, 2.0, big])

    def slopes(x, q, x64, q64):
        d1 = sg.gradients(sg.numpy.sum(S.zeta(x, q)), [q])[0]
        dx64, dq64 = sg.gradients(sg.numpy.sum(S.zeta(x64, q64)), [x64, q64])
        return [
            d1,
            sg.gradients(sg.numpy.sum(d1), [q])[0],
            dq64,
            dx64,
            sg.gradients(sg.numpy.sum(dx64), [q64])[0],
        ]

    d1, d2, dq64, dx64, dxq64 = run_graph(slopes, x, q, x64, q64)
    xd, qd = x.astype(np.float64), q.astype(np.float64)
    want1, want2 = -xd * scipy.special.zeta(xd + 1, qd), xd * (xd + 1) * scipy.special.zeta(xd + 2, qd)
    want2 = np.where(np.abs(want2) < np.finfo(np.float32).tiny, 0.0, want2)  # subnormal: flushed
    assert np.all(_ulps(d1, want1, np.float32) <= 2), (d1, want1)
    assert np.all(_ulps(d2, want2, np.float32) <= 2), (d2, want2)
    Dec = decimal.Decimal
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        want_far = [
            float(-(Dec(b) ** -Dec(a)) * (1 + Dec(a) / (2 * Dec(b)))) for a, b in zip(x64[:3], q64[:3])
        ]
        h = Dec(10) ** -20

        def q_slope(t, b):
            return -t * _hurwitz_decimal(t + 1, b)

        want_mixed = [
            float((q_slope(Dec(a) + h, b) - q_slope(Dec(a) - h, b)) / (2 * h))
            for a, b in zip(x64[3:7], q64[3:7])
        ]
    assert np.all(_ulps(dq64[:3], np.array(want_far), np.float64) <= 2), (dq64, want_far)
    assert np.all(_ulps(dxq64[3:7], np.array(want_mixed), np.float64) <= 16), (dxq64, want_mixed)
    # at (1.34e154, 1.34e154) every term log(q + k) (q + k)^-x is below 1e-300000: 0, not NaN
    assert dx64[7] == 0 and dxq64[7] == 0, (dx64, dxq64)


def test_zeta_slopes_in_q_at_x_zero():
    """zeta(0, q) = 1/2 - q for every q: d/dq = -1, d2/dq2 = 0, and d2/dx dq = psi(q) (the x-slope of
    -x zeta(x + 1, q) = -1 + x psi(q) + ...). The rule -x zeta(x + 1, q) was 0 times the pole
    zeta(1, q): NaN at every q, and at q = -inf where jax gives -1. psi against scipy.special.digamma;
    at q = -inf and at psi's poles q = 0, -2 (and 5e-324, flushed to 0) the mixed slope is 0 (not
    finite there)."""
    for dtype in (np.float32, np.float64):
        q = np.array([0.3, 2.0, -2.5, 1e10, -np.inf, 0.0, -2.0, 5e-324], dtype)
        x = np.zeros_like(q)
        x[1] = -0.0

        def slopes(x, q):
            dq = sg.gradients(sg.numpy.sum(S.zeta(x, q)), [q])[0]
            d_qq, d_qx = sg.gradients(sg.numpy.sum(dq), [q, x])
            return [dq, d_qq, d_qx]

        dq, d_qq, d_qx = run_graph(slopes, x, q)
        np.testing.assert_array_equal(dq, -1.0)
        np.testing.assert_array_equal(d_qq, 0.0)
        psi = scipy.special.digamma(q[:4].astype(np.float64))
        assert np.all(_ulps(d_qx[:4], psi, dtype) <= 8), (dtype, d_qx, psi)  # XLA's digamma: 6 ulps at 2
        np.testing.assert_array_equal(d_qx[4:], 0.0)


def _sici_fresnel_series(x):
    """(Si, Ci, S, C) at 0 < x <= 4 from their power series in long double."""
    out = []
    for a in np.asarray(x, L):
        power, si, ci = L(1), L(0), L(0)
        for j in range(1, 90):
            power = power * a / j
            if j % 2:
                si += (-1) ** (j // 2) * power / j
            else:
                ci += (-1) ** (j // 2) * power / j
        ci += L("0.577215664901532860606512090082402431") + np.log(a)
        u, power, s, c = PI / 2 * a * a, L(1), L(0), L(1)
        for j in range(1, 90):
            power = power * u / j
            if j % 2:
                s += (-1) ** (j // 2) * power / (2 * j + 1)
            else:
                c += (-1) ** (j // 2) * power / (2 * j + 1)
        out.append([si, ci, a * s, a * c])
    return np.array(out, L).T


def test_sine_cosine_and_fresnel_integrals_where_the_series_cancels():
    """Ci near its zero 3.38 and C near pi/2 lose digits in their series (Ci(pi) was 7 float64 ulps off,
    C(pi/2) 6.5); the continued fractions now start at 2 and 1.3."""
    x = np.array([1.2, 1.4, math.pi / 2, 1.6, 2.0, 2.5, 3.0, math.pi, 3.5, 4.0])
    si, ci = run_graph(lambda t: S.sici(t), x)
    fs, fc = run_graph(lambda t: S.fresnel(t), x[x <= 1.6])
    want = _sici_fresnel_series(x)
    assert np.all(_ulps(si, want[0], np.float64) <= 2), si
    assert np.all(_ulps(ci, want[1], np.float64) <= 2), ci
    assert np.all(_ulps(fs, want[2][x <= 1.6], np.float64) <= 2), fs
    assert np.all(_ulps(fc, want[3][x <= 1.6], np.float64) <= 2), fc


def test_fresnel_spence_and_erfcx_derivatives_at_their_edges():
    """fresnel' at +-inf is nan (sin and cos of pi x^2 / 2 have no limit; it was 1) and S'' at the largest
    float is pi x = +inf (it was 0: the phase's where-splice); spence'' at 0 is +inf (1/x beats log x;
    it was inf - inf = nan); erfcx'' in float32 at pi within 4 ulps (its cancellation made it 1000)."""
    big = np.finfo(np.float64).max
    x = np.array([np.inf, -np.inf, big, 2.0**60, 1.0])

    def fresnel_parts(t):
        s_slopes, c_slopes = _slopes(lambda u: S.fresnel(u)[0])(t), _slopes(lambda u: S.fresnel(u)[1])(t)
        return s_slopes[1:] + c_slopes[1:]

    ds, dds, dc, ddc = run_graph(fresnel_parts, x)
    assert np.all(np.isnan(ds[:2])) and np.all(np.isnan(dc[:2])) and np.all(np.isnan(dds[:2]))
    # at x = max and 2^60 (even integers) the phase is 0 mod 2 pi: S' = 0, C' = 1, S'' = pi x, C'' = 0
    assert ds[2] == 0 and dc[2] == 1 and dds[2] == np.inf and ddc[2] == 0
    assert dds[3] == np.float64(PI * L(2.0**60)) and ddc[3] == 0
    assert np.isclose(ds[4], 1.0) and abs(dc[4]) < 1e-15 and np.isclose(ddc[4], -math.pi)

    spence = run_graph(lambda t: _slopes(S.spence)(t)[1:], np.array([0.0, -0.0, 1.0, 2.0]))
    assert list(spence[0][:3]) == [-np.inf, -np.inf, -1.0] and np.isclose(spence[0][3], -math.log(2))
    assert list(spence[1][:3]) == [np.inf, np.inf, 0.5]
    assert np.isclose(spence[1][3], (1 - 2 + 2 * math.log(2)) / 2, rtol=1e-14)

    xs = np.array([math.pi, 3.0, 1.5], np.float32)
    d1, d2 = run_graph(lambda t: _slopes(S.erfcx)(t)[1:], xs)
    xl = xs.astype(L)
    t = np.zeros_like(xl)  # erfc's continued fraction, long double: erfcx = 1 / (sqrt(pi) (x + t))
    for k in range(4000, 0, -1):
        t = (L(k) / 2) / (xl + t)
    value = 1 / (np.sqrt(PI) * (xl + t))
    assert np.all(_ulps(d1, 2 * xl * value - 2 / np.sqrt(PI), np.float32) <= 4), d1
    assert np.all(_ulps(d2, (4 * xl * xl + 2) * value - 4 * xl / np.sqrt(PI), np.float32) <= 4), d2


def test_hurwitz_zeta_slope_in_x_in_float32_at_large_x():
    """d/dx zeta(x, q) = -sum_k log(q + k) (q + k)^-x; in float32 at x = 100 its Euler-Maclaurin terms
    x (x + 1) ... overflowed (inf * 0 = nan at every q). Against the direct sum in long double."""
    x = np.array([100.0, 100.0, 100.0, 30.0], np.float32)
    q = np.array([0.5, 1.5, 3.0, 2.0], np.float32)
    (got,) = run_graph(lambda a, b: sg.gradients(sg.numpy.sum(S.zeta(a, b)), [a]), x, q)
    base = q.astype(L)[:, None] + np.arange(60, dtype=L)[None, :]
    want = -np.sum(np.log(base) * base ** -x.astype(L)[:, None], axis=1)
    assert np.all(_ulps(got, want, np.float32) <= 4), (got, want)


def test_spherical_harmonics_outside_zero_to_pi_and_in_float32():
    """Y_n^m is a function of cos theta (scipy's and jax's): at theta = -1, 100 or 1e4 odd m used to flip
    its sign (the signed sin theta in the Legendre start), and float32 lost 14 ulps at theta = 1."""
    import scipy.special as ss

    n = np.array([1, 1, 3, 2, 3, 5, 1])
    m = np.array([-1, 1, 1, 1, -3, 3, 0])
    theta = np.array([-1.0, 100.0, 1e4, -2.5, 7.0, -0.3, 1.0])
    phi = np.array([0.5, 1.0, 2.0, -1.0, 0.25, 3.0, 0.0])
    got64, got32 = run_graph(
        lambda t, p, t32, p32: [S.sph_harm_y(n, m, t, p), S.sph_harm_y(n, m, t32, p32)],
        theta,
        phi,
        theta.astype(np.float32),
        phi.astype(np.float32),
    )
    np.testing.assert_allclose(got64, ss.sph_harm_y(n, m, theta, phi), rtol=1e-13, atol=1e-15)
    want32 = ss.sph_harm_y(
        n, m, theta.astype(np.float32).astype(np.float64), phi.astype(np.float32).astype(np.float64)
    )
    np.testing.assert_allclose(got32, want32, rtol=3e-7, atol=1e-8)


def test_box_cox_slopes_at_zero_and_small_lambda_and_i0_slope():
    """d/dx boxcox(0, lmbda) = x^(lmbda - 1): inf for lmbda < 1 (it was 0 * inf = nan), 1 at lmbda = 1; the slope
    in lmbda near 0 from its series (the closed form's cancellation); I0'(88.72) = I1 = 1.4e37 in float32
    (it was inf - inf = nan where e^x overflows), I0' at 1e-7 is 5e-8 (not 1.5x that)."""
    x = np.array([0.0, 0.0, 0.0, 2.0, 3.0])
    lam = np.array([0.5, -0.5, 1.0, 1e-3, -1e-4])
    dx, dl = run_graph(lambda a, b: sg.gradients(sg.numpy.sum(S.boxcox(a, b)), [a, b]), x, lam)
    assert dx[0] == np.inf and dx[1] == np.inf and dx[2] == 1.0
    log_x, t = np.log(x[3:].astype(L)), lam[3:].astype(L) * np.log(x[3:].astype(L))
    series = sum((k + 1) * t**k / math.factorial(k + 2) for k in range(30))
    assert np.all(_ulps(dl[3:], log_x**2 * series, np.float64) <= 4), dl
    xs = np.array([88.72283935546875, 1e-7], np.float32)
    (slope,) = run_graph(lambda a: sg.gradients(sg.numpy.sum(S.i0(a)), [a]), xs)
    want = [
        np.exp(L(xs[0])) / np.sqrt(2 * PI * L(xs[0])) * (1 - 3 / (8 * L(xs[0])) - 15 / (128 * L(xs[0]) ** 2)),
        L(xs[1]) / 2,
    ]
    np.testing.assert_allclose(slope.astype(np.float64), np.array(want, np.float64), rtol=1e-5)


def test_comb_with_repetition_at_large_n():
    """C(N + k - 1, k) for N >= k from Stirling's ratio in the small k: with N - 1 as the small side its
    terms N log k cancelled, 1.7e-7 relative off at N = 1e8, k = 30. Against exact integer binomials."""
    n = np.array([1e8, 1e6, 30.0, 200.0])
    k = np.array([30.0, 20.0, 30.0, 17.0])
    got = run_graph(lambda a, b: S.comb(a, b, repetition=True), n, k)
    want = np.array([float(math.comb(int(a + b - 1), int(b))) for a, b in zip(n, k)])
    np.testing.assert_allclose(got, want, rtol=1e-12)
