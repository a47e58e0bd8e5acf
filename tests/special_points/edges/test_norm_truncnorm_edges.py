"""norm and truncnorm at the edges the special-point sweep found (issue 20), against closed forms in
long double and scipy: the density from exp(logpdf) (rounding of a logpdf near -25 or of log(scale)
multiplied up), z = (x - loc) / scale where x - loc overflows though z is finite, the float32
quantile an ulp off (amplified by loc + scale * z), and the quantile's second derivative at p = 0 and
1 (nan from inf * 0, the true -inf and inf)."""

import numpy as np
import scipy.special

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.test_util import run_graph

L = np.longdouble
N = sg.scipy.stats.norm
F32 = np.float32


def _ulps(got, want, dtype):
    """|got - want| in ulps of want rounded to dtype."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return np.abs(got - want) / np.spacing(np.abs(want).astype(dtype)).astype(np.float64)


def _long_pdf(x, loc, scale):
    """The normal density in long double."""
    z = (L(x) - L(loc)) / L(scale)
    return np.exp(-z * z / 2) / (np.sqrt(2 * L(np.pi)) * L(scale))


def test_norm_density_keeps_its_digits_far_out_and_at_tiny_scales():
    x = np.array([1.0, 0.5, 1.0, 1.2e-38, 0.0, 3.0, -4.0], F32)
    loc = np.array([-2.5, -2.5, 1.0, 0.0, 0.0, 0.0, 0.5], F32)
    scale = np.array([0.5, 0.5, 1.1754944e-38, 1.1754944e-38, 1.0, 0.25, 0.5], F32)
    got, logs = run_graph(lambda *a: (N.pdf(*a), N.logpdf(*a)), x, loc, scale)
    want = np.array([_long_pdf(*a) for a in zip(x, loc, scale)])
    assert _ulps(got, want, F32).max() <= 3, (got, want)
    np.testing.assert_allclose(logs, np.log(want).astype(np.float64), rtol=2e-7)


def test_norm_standardizes_where_x_minus_loc_overflows():
    big = np.finfo(F32).max
    x = np.array([-big, big, -big, 1.0], F32)
    loc = np.array([big, -big, big, 0.0], F32)
    scale = np.array([big, big, 2 * (big / 4), 1.0], F32)
    logpdf, cdf, sf = run_graph(lambda *a: (N.logpdf(*a), N.cdf(*a), N.sf(*a)), x, loc, scale)
    z = (x.astype(np.float64) - loc) / scale  # exact in float64: -2, 2, -4, 1
    np.testing.assert_allclose(
        logpdf, -z * z / 2 - np.log(scale.astype(np.float64)) - np.log(2 * np.pi) / 2, rtol=1e-6
    )
    np.testing.assert_allclose(cdf, scipy.special.ndtr(z), rtol=1e-6)
    np.testing.assert_allclose(sf, scipy.special.ndtr(-z), rtol=1e-6)


def test_norm_float32_quantile_is_rounded_from_float64():
    q = np.array([1 - 2.0**-24, 2.0**-24, 0.975, 1e-7, 0.3, 1 - 2.0**-20], F32)
    loc = np.full(q.shape, -2.5, F32)
    scale = np.full(q.shape, 0.5, F32)
    ppf, isf = run_graph(lambda *a: (N.ppf(*a), N.isf(*a)), q, loc, scale)
    # the best float32 can do: scipy's quantile rounded to float32, then loc + scale * z in float32
    # (the cancellation in -2.5 + 0.5 * 5.29 leaves a few ulps even then)
    z = scipy.special.ndtri(q.astype(np.float64)).astype(F32)
    assert _ulps(ppf, loc + scale * z, F32).max() <= 1, (ppf, loc + scale * z)
    assert _ulps(isf, loc - scale * z, F32).max() <= 1, (isf, loc - scale * z)


def test_normal_quantile_second_derivative_at_the_range_ends():
    """d2 ndtri / dp2 = z (d ndtri / dp)**2: -inf at p = 0, inf at p = 1 (float32 took its slope
    from a float64 quantile whose branch select had no slope: inf * 0 = nan)."""

    def second(fn):
        return sg.vmap(sg.grad(sg.grad(lambda p: snp.sum(fn(p)))))

    for dtype in (np.float32, np.float64):
        p = np.array([0.0, -0.0, 1.0, 0.25, 1e-30], dtype)
        ppf2, isf2 = run_graph(lambda q: (second(N.ppf)(q), second(N.isf)(q)), p)
        z = scipy.special.ndtri(p[3:].astype(np.float64))
        want = z * 2 * np.pi * np.exp(z * z)
        with np.errstate(over="ignore"):
            want = want.astype(dtype)
        np.testing.assert_array_equal(ppf2[:3], [-np.inf, -np.inf, np.inf])
        np.testing.assert_array_equal(isf2[:3], [np.inf, np.inf, -np.inf])
        np.testing.assert_allclose(ppf2[3:], want, rtol=1e-5)
        np.testing.assert_allclose(isf2[3:], -want, rtol=1e-5)


def test_log_ndtr_above_zero_keeps_its_digits_in_float64():
    """log_ndtr(x) for x > 0 was log1p(-ndtr(-x)), and XLA's float64 log_plus_one is 54 ulps off at
    -0.40 (x = 0.25); norm.logcdf and logsf follow."""
    x = np.array([0.25, 0.1, 0.6, 0.674, 0.7, 1.0, 3.0, 8.0, 0.0])
    ours, logcdf, logsf = run_graph(
        lambda v: (sg.scipy.special.log_ndtr(v), N.logcdf(v, 0.0, 2.0), N.logsf(-v, 0.0, 2.0)), x
    )
    assert _ulps(ours, scipy.special.log_ndtr(x), np.float64).max() <= 2
    assert _ulps(logcdf, scipy.special.log_ndtr(x / 2), np.float64).max() <= 2
    assert _ulps(logsf, scipy.special.log_ndtr(x / 2), np.float64).max() <= 2


T = sg.scipy.stats.truncnorm


def _long_truncnorm_pdf(x, a, b, loc, scale):
    """The truncated normal density in long double (mass from scipy's float64 ndtr, exact enough for
    bounds near the centre)."""
    z = (L(x) - L(loc)) / L(scale)
    if not a <= z <= b:
        return L(0.0)
    mass = L(scipy.special.ndtr(b)) - L(scipy.special.ndtr(a))
    return np.exp(-z * z / 2) / (np.sqrt(2 * L(np.pi)) * L(scale) * mass)


def test_truncnorm_density_far_out_at_tiny_and_huge_scales():
    big = float(np.finfo(F32).max)
    cases = [  # x, a, b, loc, scale
        (1.0, 0.0, np.inf, -2.5, 0.5),
        (0.5, 1.0, np.inf, -2.5, 0.5),
        (-0.5, 0.0, np.inf, -2.5, 0.5),
        (1.0, 0.0, 1.0, 1.0, 1.1754944e-38),
        (0.0, -2.5, np.inf, 0.0, 1.1754944e-38),
        (1.0, -2.5, 0.0, 0.0, big),  # z = 2.9e-39 > b = 0 (flushed, it looked like the end b)
        (np.inf, 0.0, 1.0, np.inf, 1.0),  # x - loc is nan
    ]
    x, a, b, loc, scale = (np.array(c, F32) for c in zip(*cases))
    pdf, logpdf = run_graph(lambda *v: (T.pdf(*v), T.logpdf(*v)), x, a, b, loc, scale)
    want = np.array([_long_truncnorm_pdf(*c) for c in cases[:-1]])
    assert _ulps(pdf[:-1], want, F32).max() <= 3, (pdf, want)
    assert logpdf[5] == -np.inf and pdf[5] == 0
    assert np.isnan(pdf[-1]) and np.isnan(logpdf[-1])
    np.testing.assert_allclose(logpdf[:5], np.log(want[:5]).astype(np.float64), rtol=3e-7)


def test_truncnorm_probability_slopes_equal_central_differences_and_their_end_limits():
    """cdf, sf, logcdf and logsf slopes in x, a and b (and loc, scale) come from the density: at
    inner points against central differences of scipy.stats.truncnorm (float64), and at x = a =
    1.8e308, b = inf (the mass underflows) the limits dF/dx = p(a) ~ a, dF/da = -p(a),
    d2F/dx2 = -a p(a) = -inf, where the chain rule through differences of log-probabilities gave
    0 (jax nan)."""
    import scipy.stats

    x = np.array([0.3, -0.5, 1.0, 3.0, -3.0, 0.9])
    a = np.array([-1.0, -1.0, 0.0, 1.5, -np.inf, -2.5])
    b = np.array([1.0, 0.5, np.inf, 3.0, np.inf, 1.0])
    loc, scale = 0.2, 1.5
    methods = ("cdf", "sf", "logcdf", "logsf")

    def slopes(x, a, b, loc, scale):
        out = []
        for name in methods:
            value = getattr(sg.scipy.stats.truncnorm, name)(x, a, b, loc, scale)
            out += sg.gradients(snp.sum(value), [x, a, b, loc, scale])
        return out

    got = run_graph(slopes, x, a, b, np.full(6, loc), np.full(6, scale))
    h = 1e-6
    for i, name in enumerate(methods):
        fn = getattr(scipy.stats.truncnorm, name)
        for j in range(5):
            args = [x, a, b, np.full(6, loc), np.full(6, scale)]
            up = [v.copy() for v in args]
            down = [v.copy() for v in args]
            up[j] = up[j] + h
            down[j] = down[j] - h
            want = (fn(*up) - fn(*down)) / (2 * h)
            np.testing.assert_allclose(got[5 * i + j], want, rtol=1e-6, atol=1e-8, err_msg=f"{name} arg {j}")

    big = np.finfo(np.float64).max
    edge = (np.array([big]), np.array([big]), np.array([np.inf]))

    def at_the_end(x, a, b):
        cdf = sg.scipy.stats.truncnorm.cdf(x, a, b)
        d_x, d_a = sg.gradients(snp.sum(cdf), [x, a])
        return [d_x, d_a, sg.gradients(snp.sum(d_x), [x])[0]]

    d_x, d_a, d_xx = run_graph(at_the_end, *edge)
    # p(a) = a / (1 - 1/a^2 + ...) = a in float64; exp of a log density of 709.78 keeps it to 1e-13
    np.testing.assert_allclose(d_x, big, rtol=1e-12)
    np.testing.assert_allclose(d_a, -big, rtol=1e-12)
    assert d_xx[0] == -np.inf
