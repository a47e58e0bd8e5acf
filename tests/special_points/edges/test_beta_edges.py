"""The beta distribution, Student's t and the beta functions at the edges the special-point sweep
found (issue 20, part 2), against scipy's float64 values and closed forms."""

import numpy as np
import scipy.special
import scipy.stats

import stablegraph as sg
from stablegraph.test_util import run_graph as _run

F32 = np.float32
BIG32 = F32(np.finfo(F32).max)


def test_beta_support_is_tested_before_the_huge_scale_flushes_z():
    # x just below loc with scale = max float32: z = -1 / 3.4e38 flushes to -0, which is on [0, 1]
    x = np.array([-1.0, -0.5, 0.5, -1.0, 2.0], F32)
    a = np.array([0.5, 1.0, 0.5, 1.0, 0.5], F32)
    b = np.array([0.5, 1e4, np.inf, np.inf, 1.0], F32)
    loc = np.array([0.0, 0.0, 1.0, 0.0, 3.0], F32)
    scale = np.full(5, BIG32)
    logpdf = _run(sg.scipy.stats.beta.logpdf, x, a, b, loc, scale)
    pdf = _run(sg.scipy.stats.beta.pdf, x, a, b, loc, scale)
    np.testing.assert_array_equal(logpdf, np.full(5, -np.inf, F32))
    np.testing.assert_array_equal(pdf, np.zeros(5, F32))
    args64 = [v.astype(np.float64) for v in (x, a, b, loc, scale)]
    np.testing.assert_array_equal(scipy.stats.beta.pdf(*args64), np.zeros(5))


def test_beta_sf_where_one_minus_x_rounds_to_one():
    # 1 - 1.2e-38 is 1 in float32: I_1(b, a) = 1 was returned whatever a; sf = 1 - I_x(a, b) there
    x = np.array([1.1754943508222875e-38] * 3 + [0.25], F32)
    a = np.array([1.1754943508222875e-38, 1.1754943508222875e-38, 2.0, 2.0], F32)
    b = np.array([1.1754943508222875e-38, 0.1, 3.0, 3.0], F32)
    got = _run(sg.scipy.stats.beta.sf, x, a, b)
    want = scipy.special.betaincc(*(v.astype(np.float64) for v in (a, b, x)))
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-30)


def test_beta_logpdf_second_derivatives_off_the_support_are_zero():
    # the density is a constant 0 off [0, 1]: the clamp's zero slope met log(0)'s infinite one (nan)
    x = np.array([-1.0, 2.0, -0.5, 0.5])
    a = np.array([0.5, 2.0, 1.0e-300, 2.5])
    b = np.array([3.0, 0.1, 1.0e-300, 3.0])
    g = sg.Graph()
    with g:
        xs, as_, bs = (sg.placeholder((4,), sg.float64) for _ in range(3))

        def d_a(xv):
            return sg.grad(lambda av: sg.numpy.sum(sg.scipy.stats.beta.logpdf(xv, av, bs)))(as_)

        def d_b(xv):
            return sg.grad(lambda bv: sg.numpy.sum(sg.scipy.stats.beta.logpdf(xv, as_, bv)))(bs)

        d_xa = sg.grad(lambda xv: sg.numpy.sum(d_a(xv)))(xs)
        d_xb = sg.grad(lambda xv: sg.numpy.sum(d_b(xv)))(xs)
    with sg.Session(g) as sess:
        got_a, got_b = sess.run([d_xa, d_xb], {xs: x, as_: a, bs: b})
    # on the support d2/dx da = 1/x, d2/dx db = -1/(1 - x)
    np.testing.assert_array_equal(got_a[:3], 0.0)
    np.testing.assert_array_equal(got_b[:3], 0.0)
    np.testing.assert_allclose([got_a[3], got_b[3]], [2.0, -2.0], rtol=1e-12)


def test_beta_logpdf_is_nan_where_x_minus_loc_is():
    # x = loc = inf: z is nan (scipy and jax answer nan), not a point off the support (-inf)
    inf = np.array([np.inf, -np.inf], F32)
    got = _run(
        sg.scipy.stats.beta.logpdf, inf, np.full(2, F32(0.5)), np.full(2, F32(2.5)), inf, np.ones(2, F32)
    )
    assert np.isnan(got).all()


def _t_logpdf_ld(x, df, loc=0.0, scale=1.0):
    """Student's t log density in long double: log Gamma((df + 1)/2) - log Gamma(df/2) - log(df pi)/2
    by its series in h = df/2 (-log(2 pi)/2 - 1/(8h) + 1/(192 h^3) + 1/(640 h^5), for h >= 500), less
    log(scale) and (df + 1)/2 log1p(z^2 / df) with log1p(u) = log(u) + log1p(1/u) where u overflows."""
    L = np.longdouble
    x, df, loc, scale = (np.asarray(v, L) for v in (x, df, loc, scale))
    h = df / 2
    ratio = -np.log(2 * np.pi * L(1)) / 2 - 1 / (8 * h) + 1 / (192 * h**3) + 1 / (640 * h**5)
    z = (x - loc) / scale
    return ratio - np.log(scale) - (df + 1) / 2 * np.log1p(z * z / df)


def test_t_logpdf_at_huge_df_and_tiny_scale():
    big, tiny = F32(np.finfo(F32).max), F32(np.finfo(F32).tiny)
    # df = 3.4e38: df pi overflowed (-inf); scale = tiny: z^2 overflowed (-inf); z itself overflows
    # at x - loc = 4.5, scale = tiny; df = inf is the normal distribution (nan before)
    x = np.array([0.0, 1.0, 1.0, 2.0, big, 1.0], F32)
    df = np.array([big, big, 0.5, 0.5, 1.0, np.inf], F32)
    loc = np.array([0.0, 0.0, 0.0, -2.5, 0.0, 0.0], F32)
    scale = np.array([1.0, 1.0, tiny, tiny, tiny, 1.0], F32)
    got = _run(sg.scipy.stats.t.logpdf, x, df, loc, scale)
    want = scipy.stats.t.logpdf(*(v.astype(np.float64) for v in (x, df, loc, scale)))
    np.testing.assert_allclose(got, want, rtol=4 * np.finfo(F32).eps)
    np.testing.assert_allclose(got[:2], [-0.5 * np.log(2 * np.pi), -0.5 - 0.5 * np.log(2 * np.pi)], rtol=1e-7)


def test_t_logpdf_float64_at_large_df_keeps_its_digits():
    # log Gamma((df+1)/2) - log Gamma(df/2) - log(df pi)/2 lost 4e3 ulps to the cancelling logs at df = 1e4
    x = np.array([-2.0, 1.0, 0.5, 1.0])
    df = np.array([1e4, 1e8, 2e3, 1e300])
    got = _run(sg.scipy.stats.t.logpdf, x, df)
    want = np.asarray(_t_logpdf_ld(x, df), np.float64)
    np.testing.assert_allclose(got, want, rtol=4 * np.finfo(np.float64).eps)


def test_betaln_derivatives_where_b_is_near_the_largest_float():
    # d/da log(a / b) through the quotient: its cotangent (a - 1/2) b / a times a / b^2 overflowed
    # (nan), and 1 / b flushed (0); d/da betaln = psi(a) - psi(a + b), d2/da2 = psi'(a) - psi'(a + b)
    for dtype, big in ((F32, np.finfo(F32).max), (np.float64, 1.7e308)):
        a = np.array([10.0, 30.0, 1e4], dtype)
        b = np.full(3, big, dtype)
        g = sg.Graph()
        with g:
            kind = sg.float32 if dtype == F32 else sg.float64
            ah, bh = sg.placeholder((3,), kind), sg.placeholder((3,), kind)

            def d_a(av):  # built and run within this iteration
                return sg.grad(lambda v: sg.numpy.sum(sg.scipy.special.betaln(v, bh)))(av)  # noqa: B023

            d1 = d_a(ah)
            d2 = sg.grad(lambda v: sg.numpy.sum(d_a(v)))(ah)
        with sg.Session(g) as sess:
            got1, got2 = sess.run([d1, d2], {ah: a, bh: b})
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        np.testing.assert_allclose(
            got1, scipy.special.digamma(a64) - scipy.special.digamma(a64 + b64), rtol=1e-6
        )
        np.testing.assert_allclose(got2, scipy.special.polygamma(1, a64), rtol=1e-5)


def test_beta_zeros_at_the_poles_of_gamma_a_plus_b_have_the_numerators_sign():
    # B(-0.5, -0.5) = Gamma(-0.5)^2 / Gamma(-1) = +0 (scipy); the sign of Gamma at the pole made it -0
    a = np.array([-0.5, -1.5, 0.5, 0.5, -0.5], F32)
    b = np.array([-0.5, -0.5, -1.5, -0.5, 0.5], F32)
    got = _run(sg.scipy.special.beta, a, b)
    want = scipy.special.beta(a.astype(np.float64), b.astype(np.float64)).astype(F32)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def _t_pdf_mp(x, df):
    import mpmath

    return (
        mpmath.gamma((df + 1) / 2)
        / (mpmath.gamma(df / 2) * mpmath.sqrt(df * mpmath.pi))
        * (1 + x * x / df) ** (-(df + 1) / 2)
    )


def test_t_pdf_and_its_slopes_in_a_small_df_keep_their_digits():
    """Below df = 1 the density is written with log Gamma(df / 2) = lgamma1p(df / 2) - log(df / 2) and,
    past z^2 = df, with its factor df outside the exp: as exp(logpdf), its second slope in df was
    what is left of two terms of 1/df^2 (-7710 for -23.47 at df = 1e-20, x = 1; 2.6e-12 relative off
    at df = 1e-5). Within 32 ulps of 40-digit mpmath derivatives (17 at most seen); float32 rounds a
    float64 density."""
    import mpmath

    dfs = np.array([1.1754943508222875e-38, 1e-20, 1e-10, 1e-5, 1e-3, 0.1, 0.7])
    xs = np.array([0.0, 0.5, -1.0, 3.0, 1e3])
    x, df = (a.ravel() for a in np.meshgrid(xs, dfs))
    g = sg.Graph("t_small_df")
    with g:
        xt = sg.placeholder(x.shape, sg.float64, name="x")
        dt = sg.placeholder(x.shape, sg.float64, name="df")
        pdf = sg.scipy.stats.t.pdf(xt, dt)
        slope = sg.gradients(pdf, dt)[0]
        fetches = [pdf, slope, sg.gradients(slope, dt)[0], sg.gradients(slope, xt)[0]]
        fetches.append(sg.scipy.stats.t.pdf(sg.cast(xt, sg.float32), sg.cast(dt, sg.float32)))
    with sg.Session(g) as sess:
        value, d_df, d_df2, d_df_dx, value32 = sess.run(fetches, {xt: x, dt: df})
    with mpmath.workdps(40):
        for i, (xv, dv) in enumerate(zip(x, df)):
            xm, dm = mpmath.mpf(xv), mpmath.mpf(dv)
            h = dm / 10**12
            want = [
                _t_pdf_mp(xm, dm),
                mpmath.diff(lambda d, xm=xm: _t_pdf_mp(xm, d), dm, 1, h=h),
                mpmath.diff(lambda d, xm=xm: _t_pdf_mp(xm, d), dm, 2, h=h),
                mpmath.diff(lambda u, d: _t_pdf_mp(u, d), (xm, dm), (1, 1), h=h),
            ]
            for name, got, w in zip(
                ("pdf", "d/ddf", "d2/ddf2", "d2/dx ddf"), (value, d_df, d_df2, d_df_dx), want
            ):
                w = float(w)
                tolerance = 32 * np.spacing(abs(w)) + (1e-300 if w == 0 else 0)
                assert abs(got[i] - w) <= tolerance, (name, xv, dv, got[i], w)
            w32 = float(want[0])
            if w32 >= float(np.finfo(F32).tiny):  # a subnormal float32 density is flushed
                assert abs(value32[i] - w32) <= np.spacing(F32(w32)), (xv, dv, value32[i], w32)
