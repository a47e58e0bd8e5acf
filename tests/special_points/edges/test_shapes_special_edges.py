"""Edges of the angle, extreme-value and location-scale distributions and of rel_entr found by the
special-point sweep (issue 20), against scipy, numpy and closed forms in long double: wrapcauchy
as c -> 1 (1 + c**2 - 2c cos x cancels), vonmises' slopes in kappa (i0e's kink at 0, i1e/i0e - 1
far out), gumbel's tails (inf - inf, the slope -1 + exp(-z) near 0, the sign of a vanishing log sf),
expon's and uniform's support at a flushed or nan z, cauchy's log tails past the largest float,
scipy.stats.mode over nans, and rel_entr's second derivatives where 1/(x/y) is subnormal."""

import numpy as np
import pytest
import scipy.special
import scipy.stats

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.test_util import run_graph as _run

L = np.longdouble


def _grad(fn, arg: int):
    """d/d(args[arg]) of sum(fn(*args)), as a function of the arguments."""

    def grad(*args):
        def of(t):
            return snp.sum(fn(*[t if k == arg else a for k, a in enumerate(args)]))

        return sg.grad(of)(args[arg])

    return grad


def _rel(ours, ref):
    ours, ref = np.asarray(ours, np.float64), np.asarray(ref, np.float64)
    return np.max(np.abs(ours - ref) / np.abs(ref))


# -- wrapcauchy --------------------------------------------------------------------------------------
def _wrapcauchy_ld(x, c):
    """density and d/dc in long double, from (1 - c)**2 + 4c sin(x/2)**2 (no cancellation)."""
    x, c = np.asarray(x, L), np.asarray(c, L)
    s2 = np.sin(x / 2) ** 2
    spread = (1 - c) ** 2 + 4 * c * s2
    p = (1 - c) * (1 + c) / (2 * np.arccos(L(-1)) * spread)
    dp = p * (-2 * c / ((1 - c) * (1 + c)) - (4 * s2 - 2 * (1 - c)) / spread)
    return p, dp


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_wrapcauchy_keeps_the_digits_of_one_minus_c(dtype):
    x = np.array([0.0, 0.5, 1.0, np.pi / 2, np.pi, 6.0], dtype)
    c = np.full(x.shape, 0.999, dtype)
    pdf, dpdc = _run(
        lambda a, b: [sg.scipy.stats.wrapcauchy.pdf(a, b), _grad(sg.scipy.stats.wrapcauchy.pdf, 1)(a, b)],
        x,
        c,
    )
    p, dp = _wrapcauchy_ld(x, c)
    eps = np.finfo(dtype).eps
    assert _rel(pdf, p) <= 8 * eps  # was 1.7e-4 relative at x = 0 in float32
    assert _rel(dpdc, dp) <= 64 * eps  # d/dc was 15% off at x = 0


def test_wrapcauchy_support_ends_at_2pi_rounded_down():
    x = np.array([6.2831854820251465, 6.283185005187988], np.float32)  # float32(2 pi) is above 2 pi
    out = _run(sg.scipy.stats.wrapcauchy.pdf, x, np.full(2, 0.5, np.float32))
    assert out[0] == 0.0 and out[1] > 0
    assert scipy.stats.wrapcauchy.pdf(np.float64(x[0]), 0.5) == 0.0


# -- vonmises ----------------------------------------------------------------------------------------
def _log_i0_slope(k):
    """I1(k)/I0(k) by the power series in long double (k <= 20), Hankel's expansion beyond."""
    k = np.asarray(k, L)
    near = np.minimum(k, 20)
    t, a0, a1 = near * near / 4, np.ones_like(near), near / 2
    s0, s1 = a0.copy(), a1.copy()
    for n in range(1, 80):
        a0, a1 = a0 * t / (n * n), a1 * t / (n * (n + 1))
        s0, s1 = s0 + a0, s1 + a1
    far = np.maximum(k, 20)
    c0, c1, f0, f1 = L(1), L(1), np.ones_like(far), np.ones_like(far)
    for n in range(1, 30):
        c0 *= L((2 * n - 1) ** 2) / (8 * n)
        c1 *= L((2 * n - 1) ** 2 - 4) / (8 * n)
        f0, f1 = f0 + c0 * far**-n, f1 + c1 * far**-n
    return np.where(k <= 20, s1 / s0, f1 / f0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vonmises_slope_in_kappa(dtype):
    """d/dkappa logpdf = cos x - I1/I0: cos x at kappa = 0 (i0e's kink gave cos x - 1), and far out
    the small 1 - I1/I0 ~ 1/(2 kappa) (i1e/i0e - 1 cancelled to 1e-16 at kappa = 1e154)."""
    big = 1e8 if dtype == np.float32 else 1e154
    x = np.array([0.5, 1.0, 0.0, 0.0, np.pi / 2], dtype)
    k = np.array([0.0, 1e-3, 1e4, big, 0.5], dtype)
    slope = _run(_grad(sg.scipy.stats.vonmises.logpdf, 1), x, k)
    ref = np.cos(np.asarray(x, L)) - _log_i0_slope(k)
    tol = 64 * np.finfo(dtype).eps
    assert np.all(np.abs(slope - ref.astype(np.float64)) <= tol * np.maximum(np.abs(ref), 1e-3 * (k > 1))), (
        slope,
        ref,
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vonmises_density_far_out(dtype):
    x = np.array([0.0, 1.0, 0.0], dtype)
    k = np.array([30.0, 30.0, 1e8], dtype)
    out = _run(sg.scipy.stats.vonmises.pdf, x, k)
    ref = scipy.stats.vonmises.pdf(x.astype(np.float64), k.astype(np.float64))
    assert _rel(out, ref) <= 16 * np.finfo(dtype).eps


def test_vonmises_density_where_kappa_is_past_1e150():
    """Past kappa = 1e150 the density was exp of its log (~176): the log's rounding made it 58-102
    ulps off at kappa = 1e151 - 1.34e154. Where float64's cos x rounds to 1 (|x| < 1e-8, as scipy
    takes it) the density is its peak sqrt(kappa / 2 pi) (Hankel's series is 1 to 1e-151), in long
    double; where it does not, kappa (cos x - 1) is below -1e134 and the density 0."""
    x = np.array([0.0, -0.0, 1e-78, -2e-78, 3e-100, 1e-154, 1e-8, -0.5, 3.0], np.float64)
    k = np.array([1e151, 1.3407807929942596e154, 1e200, 1.7976931348623157e308])
    xx, kk = (a.ravel() for a in np.meshgrid(x, k, indexing="ij"))
    out = _run(sg.scipy.stats.vonmises.pdf, xx, kk)
    peak = np.cos(xx) == 1.0
    ref = np.sqrt(kk.astype(L) / (2 * np.pi * L(1))).astype(np.float64)
    ulps = np.abs(out - ref) / np.spacing(ref)
    assert peak.sum() == 28 and np.all(ulps[peak] <= 2), list(zip(xx[peak], kk[peak], out[peak], ulps[peak]))
    assert np.all(out[~peak] == 0.0)


# -- gumbel ------------------------------------------------------------------------------------------
def test_gumbel_tails():
    f32 = np.float32
    # z = (1 - 3.4e38) / 0.5 overflows float32 to -inf: the density is 0 (scipy's float64 z is finite)
    x, loc, scale = (np.array(v, f32) for v in ([1.0, -1.0], [3.4e38, 3.4e38], [0.5, 0.5]))
    assert np.all(_run(sg.scipy.stats.gumbel_r.pdf, x, loc, scale) == 0)
    # log sf far left is a negative number too small to show: -0, as scipy's log1p(-exp(-exp(100)))
    logsf = _run(sg.scipy.stats.gumbel_r.logsf, np.array([-100.0, -1e4], f32))
    assert np.all(logsf == 0) and np.all(np.signbit(logsf))
    # the density's slope exp(-z - u) (u - 1) near 0, and logsf's second derivative at z = 10
    z = np.array([1.1920929e-07, -1.1920929e-07], f32)
    d = _run(_grad(sg.scipy.stats.gumbel_r.pdf, 0), z)
    zl = z.astype(L)
    ref = np.exp(-zl - np.exp(-zl)) * np.expm1(-zl)
    assert _rel(d, ref) <= 4 * np.finfo(f32).eps  # was a quarter of it
    z64 = np.array([10.0, 3.0])
    d2 = _run(lambda t: sg.grad(lambda s: snp.sum(_grad(sg.scipy.stats.gumbel_r.logsf, 0)(s)))(t), z64)
    u = np.exp(-z64.astype(L))
    # d2/dz2 log sf = u h'(u) for h(u) = u / expm1(u) = 1 - u/2 + u**2/12 - u**4/720 + u**6/30240 ...
    ref2 = -u / 2 + u**2 / 6 - u**4 / 180 + u**6 / 5040
    assert _rel(d2, ref2) <= 64 * np.finfo(np.float64).eps  # was 56000 ulps at z = 10


# -- expon, uniform, cauchy with loc and scale ---------------------------------------------------------
def test_support_tested_on_x_minus_loc():
    f32 = np.float32
    x, loc, scale = (
        np.array(v, f32) for v in ([-1.1754944e-38, -1.0, -3.4e38], [0.0, 0.0, 3.4e38], [2.0, 3.4e38, np.inf])
    )
    assert np.all(_run(sg.scipy.stats.expon.pdf, x, loc, scale) == 0)  # z flushed or nan: still below
    assert np.all(_run(sg.scipy.stats.expon.cdf, x, loc, scale) == 0)
    assert _run(sg.scipy.stats.uniform.cdf, x[2:], loc[2:], scale[2:])[0] == 0  # -inf / inf
    assert np.all(_run(sg.scipy.stats.expon.sf, x, loc, scale) == 1)


def test_cauchy_log_tails_past_the_largest_float():
    f32 = np.float32
    x, loc, scale = (np.array(v, f32) for v in ([1.0, -3.4e38], [3.4e38, 3.4e38], [0.5, 1.0]))
    out = _run(sg.scipy.stats.cauchy.logcdf, x, loc, scale)
    ref = scipy.stats.cauchy.logcdf(x.astype(np.float64), loc.astype(np.float64), scale.astype(np.float64))
    assert _rel(out, ref) <= 4 * np.finfo(f32).eps  # was -inf (z = -inf in float32)


def test_locscale_densities_are_quotients():
    f32 = np.float32
    x, loc, scale = (np.array(v, f32) for v in ([1.0, 1.0], [1.0, 1.0], [1.1754944e-38, 1e4]))
    lap = _run(sg.scipy.stats.laplace.pdf, x, loc, scale)
    cau = _run(sg.scipy.stats.cauchy.pdf, x, loc, scale)
    s = scale.astype(np.float64)
    assert _rel(lap, 0.5 / s) <= 2 * np.finfo(f32).eps  # exp(-log 2 - log scale) was 5e-6 off
    assert _rel(cau, 1 / (np.pi * s)) <= 2 * np.finfo(f32).eps


# -- mode, rel_entr ----------------------------------------------------------------------------------
def test_mode_counts_nans_as_one_value():
    a = np.array([[np.nan] * 4, [1.0, np.nan, np.nan, 2.0]], np.float32)
    value, count = _run(lambda t: tuple(sg.scipy.stats.mode(t, axis=-1)), a)
    ref = scipy.stats.mode(a, axis=-1)
    assert np.array_equal(count, ref.count) and np.all(np.isnan(value))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rel_entr_second_derivatives_past_a_subnormal_ratio(dtype):
    tiny, big = np.finfo(dtype).tiny, np.finfo(dtype).max
    x = np.array([2.0, 3.0, big, big], dtype)
    y = np.array([tiny, tiny, 1.0, 2.0], dtype)
    rel = sg.scipy.special.rel_entr
    dxx = _run(lambda a, b: sg.grad(lambda t: snp.sum(_grad(rel, 0)(t, b)))(a), x, y)
    dxy = _run(lambda a, b: sg.grad(lambda t: snp.sum(_grad(rel, 0)(a, t)))(b), x, y)
    assert np.allclose(dxx[:2], 1 / x[:2].astype(np.float64), rtol=4 * np.finfo(dtype).eps)  # was 0
    assert np.allclose(dxy, -1 / y.astype(np.float64), rtol=4 * np.finfo(dtype).eps)  # was -0
    assert np.allclose(scipy.special.rel_entr(2.0, 1.0), _run(rel, np.array([2.0]), np.array([1.0])))
