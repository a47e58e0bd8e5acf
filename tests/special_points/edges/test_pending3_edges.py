"""geomspace at the range ends the special-point sweep found (issue 20), against the progression
start**(1 - t) * stop**t in long double: float32 progressions computed in float32 (10 ** y with y
near 38 loses 40 ulps; 10 ** log10(max) rounds below max), a float64 log10 an ulp off that
10 ** (y / 3) made 650 ulps, and NaN slopes where an exact end's discarded power overflowed."""

import numpy as np
import scipy.special

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.test_util import run_graph

L = np.longdouble
F32, F64 = np.float32, np.float64


def _ulps(got, want, dtype):
    """|got - want| in ulps of want rounded to dtype."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    want = np.clip(want, -np.finfo(dtype).max, np.finfo(dtype).max)  # a long double end just past max
    return np.abs(got - want) / np.spacing(np.abs(want).astype(dtype)).astype(np.float64)


def _long_geomspace(a, b, num=4):
    """start**(1 - t) * stop**t at t = k / (num - 1), in long double."""
    t = np.arange(num, dtype=L) / L(num - 1)
    la, lb = np.log(np.abs(L(a))), np.log(np.abs(L(b)))
    return np.sign(L(a)) * np.exp((1 - t) * la + t * lb)


def _progressions(dtype, starts, stops):
    return run_graph(
        lambda a, b: snp.geomspace(a, b, 4, axis=-1), np.array(starts, dtype), np.array(stops, dtype)
    )


def test_float32_progressions_are_rounded_from_float64():
    fi = np.finfo(F32)
    starts = [fi.max, fi.tiny, fi.max, -fi.max, 0.5]
    stops = [1.0, 1.0, fi.max, -3.0, 1e30]
    got = _progressions(F32, starts, stops)
    assert got.dtype == F32
    want = np.array([_long_geomspace(F64(a), F64(b)) for a, b in zip(starts, stops)])
    assert _ulps(got, want, F32).max() <= 1, (got, want)
    assert np.all(got[2] == fi.max)  # geomspace(max, max): max four times, not 3.402808e38


def test_float64_progressions_to_the_range_ends_keep_their_digits():
    """10 ** y multiplies the rounding of y (up to 308) by y ln 10: numpy's and jax's progressions
    are up to 400 ulps off; ours splits the ends into mantissas and powers of two (within an ulp).
    Dividing by log(10) in log10 made (1, tiny) 650 ulps off; (tiny, 2)'s second term was
    9.967194951097309e-206 in the sweep's graph (true 9.9671949510975675e-206, 117 ulps)."""
    fi = np.finfo(F64)
    starts = [1.0, 1.0, -2.0, fi.tiny, -fi.tiny, fi.max, 1e-300, 3.0]
    stops = [fi.tiny, fi.max, -fi.tiny, 2.0, -2.0, fi.tiny, 1e300, 7.0]
    got = _progressions(F64, starts, stops)
    want = np.array([_long_geomspace(a, b) for a, b in zip(starts, stops)])
    with np.errstate(over="ignore"):
        assert _ulps(got, want, F64).max() <= 1, (got, want)
    assert got[1, 3] == fi.max and got[0, 0] == 1.0  # the ends exactly, no overflow to inf


def test_slopes_at_an_end_of_max_are_finite():
    for dtype in (F32, F64):
        big = np.finfo(dtype).max
        a, b = np.array([1.0, 1.0, 2.0], dtype), np.array([big, 3.0, big], dtype)

        def slopes(s, t):
            return sg.gradients(snp.sum(snp.geomspace(s, t, 4, axis=-1)), [s, t])

        ds, dt = run_graph(slopes, a, b)
        # d/dstop of a + a^(2/3) b^(1/3) + a^(1/3) b^(2/3) + b, and d/dstart at the row without max
        al, bl = a.astype(L), b.astype(L)
        want_dt = 1 + (al / bl) ** (L(2) / 3) / 3 + 2 * (al / bl) ** (L(1) / 3) / 3
        np.testing.assert_allclose(dt, want_dt.astype(F64), rtol=4 * np.finfo(dtype).eps)
        want_ds = 1 + 2 * (bl / al) ** (L(1) / 3) / 3 + (bl / al) ** (L(2) / 3) / 3
        np.testing.assert_allclose(ds[1], F64(want_ds[1]), rtol=4 * np.finfo(dtype).eps)
        assert np.all(np.isfinite(ds)), ds


def _long_geomspace_slopes(a, b, num=4):
    """(d/da, d/db, d2/da2, d2/dadb, d2/db2) of sum_k s |a|^(1-t) |b|^t, t = k / (num - 1), in long
    double: d/da = sum (1 - t) (b/a)^t, d/db = sum t (a/b)^(1-t), and their derivatives. t and 1 - t
    are rounded to float64, as the progression (and numpy's) has them: (b/a)^t moves by ln(b/a)
    times t's rounding, 60 ulps at b/a = max."""
    a, b = L(a), L(b)
    t64 = np.arange(num) / (num - 1)
    t, s = t64.astype(L), (1 - t64).astype(L)
    up, down = (b / a) ** t, (a / b) ** s
    return [np.sum(p) for p in (s * up, t * down, -s * t * up / a, s * t * up / b, -t * s * down / b)]


def test_float64_slopes_at_the_range_ends():
    """The progression's derivatives went through 10 ** y: d/dstop at (max, max) was inf (y ln 10
    overflowed; true 2), d/dstart at (tiny, tiny) 1 (the middle terms' slopes flushed; true 2), and
    the second derivatives at the smallest normal +inf where the true ones are -inf. Against the
    closed forms in long double (subnormal ones flushed, as XLA does)."""
    fi = np.finfo(F64)
    starts = np.array([fi.max, fi.tiny, 1.0, fi.tiny, 1.0, 2.0, -3.0, fi.max])
    stops = np.array([fi.max, fi.tiny, fi.max, 1.0, fi.tiny, 1000.0, -0.5, 1.0])

    def slopes(s, t):
        ds, dt = sg.gradients(snp.sum(snp.geomspace(s, t, 4, axis=-1)), [s, t])
        dss, dst = sg.gradients(snp.sum(ds), [s, t])
        return [ds, dt, dss, dst, sg.gradients(snp.sum(dt), [t])[0]]

    got = run_graph(slopes, starts, stops)
    with np.errstate(over="ignore", under="ignore"):
        want = np.array([_long_geomspace_slopes(a, b) for a, b in zip(starts, stops)]).T.astype(F64)
    want = np.where(np.abs(want) < fi.tiny, 0.0, want)
    for g, w in zip(got, want):
        finite = np.isfinite(w)
        assert np.array_equal(g[~finite], w[~finite]), (g, w)
        assert np.all(_ulps(g[finite], w[finite], F64) <= 4), (g, w)


# -- float32 stats methods evaluated in float64 (stats/widened.py) ----------------------------------
S = sg.scipy.stats


def test_float32_cauchy_quantile_keeps_its_digits_through_loc_plus_scale():
    q = np.array([0.9, 0.1, 0.75, 1e-7, 0.5], F32)
    loc = np.array([-2.5, 2.5, -0.5, 3.0, 1.0], F32)
    scale = np.array([1.0, 1.0, 1.0, 0.5, 2.0], F32)
    ppf, isf = run_graph(lambda *a: (S.cauchy.ppf(*a), S.cauchy.isf(*a)), q, loc, scale)
    assert ppf.dtype == F32
    ql, ll, sl = q.astype(L), loc.astype(L), scale.astype(L)
    pi = np.arccos(L(-1))
    want_ppf = ll + sl * np.tan(pi * (ql - L(0.5)))
    want_isf = ll - sl * np.tan(pi * (ql - L(0.5)))
    # one rounding of ppf(q) = 3.0777 was 5 ulps of -2.5 + 3.0777 (0.57768226 for 0.57768275)
    assert _ulps(ppf, want_ppf, F32).max() <= 1, (ppf, want_ppf)
    assert _ulps(isf, want_isf, F32).max() <= 1, (isf, want_isf)


def test_float32_vonmises_density_where_kappa_multiplies_cos_rounding():
    x = np.array([1.0, -1.0, np.pi / 2, 1e4, 1e4, 0.3], F32)
    kappa = np.array([30.0, 30.0, 10.0, 3.0, 30.0, 0.5], F32)
    got = run_graph(S.vonmises.pdf, x, kappa)
    xl, kl = x.astype(L), kappa.astype(L)
    want = np.exp(kl * np.cos(xl)) / (2 * np.arccos(L(-1)) * L(scipy.special.i0(kappa.astype(F64))))
    assert _ulps(got, want, F32).max() <= 2, (got, want)  # 5-10 ulps before (jax 4-5)


def _wrapcauchy_long(x, c):
    """wrapcauchy's density in long double."""
    return (1 - c * c) / (2 * np.arccos(L(-1)) * (1 + c * c - 2 * c * np.cos(x)))


def test_float32_wrapcauchy_second_derivatives_that_cancel():
    # d2 logpdf / dc2 at x = 0 and pi: 4c / (1 - c**2)**2 and its negative, the difference of two
    # terms near -2 and 2
    # the last point, (0.5, 0.75), checks d2 pdf / dx dc only: 0.0180099 for 0.0180101 before
    c = np.array([1e-7, 1e-5, 0.01, 1e-7, 1e-5, 0.01, 0.75], F32)
    x = np.array([0.0, 0.0, 0.0, np.pi, np.pi, np.pi, 0.5], F32)

    def slopes(x, c):
        dc = sg.gradients(snp.sum(S.wrapcauchy.logpdf(x, c)), [c])[0]
        dx = sg.gradients(snp.sum(S.wrapcauchy.pdf(x, c)), [x])[0]
        return sg.gradients(snp.sum(dc), [c])[0], sg.gradients(snp.sum(dx), [c])[0]

    d2c, dxc = run_graph(slopes, x, c)
    cl, xl = c.astype(L), x.astype(L)
    want = np.sign(np.cos(xl)) * 4 * cl / (1 - cl * cl) ** 2
    np.testing.assert_allclose(d2c[:6], want[:6].astype(F64), rtol=1e-5)  # -1.25e-6 for -4e-7 before
    # d2 pdf / dx dc by a central difference of the long-double density (its error ~1e-9)
    h = L(1e-5)
    fd = (
        _wrapcauchy_long(xl + h, cl + h)
        - _wrapcauchy_long(xl + h, cl - h)
        - _wrapcauchy_long(xl - h, cl + h)
        + _wrapcauchy_long(xl - h, cl - h)
    ) / (4 * h * h)
    np.testing.assert_allclose(dxc[:6], fd[:6].astype(F64), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(dxc[6], float(fd[6]), rtol=1e-6)
