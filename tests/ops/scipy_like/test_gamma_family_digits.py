"""digamma and polygamma to the last digits, against 40-digit mpmath (gamma_lowering.py): XLA's
digamma was 5 to 22 ulps off at ordinary points (psi(1), psi(-0.5)) and its polygamma of a constant
order 3 to 10 (trigamma(1) = 1.644934066848228), which every digamma slope carried."""

from __future__ import annotations

import mpmath
import numpy as np

import stablegraph as sg
from stablegraph.ops.primitives import gamma_lowering

S = sg.scipy.special
TINY = float(np.finfo(np.float64).tiny)
# points where the lowering changes branch or numerical codes lose digits: the root of psi and its
# neighbours, both ends of each interval, the smallest normal (psi = -1/x), half-integers below 0
POSITIVE = [TINY, 1e-300, 1e-17, 0.25, 0.4616321449683622, 0.5, 1 - 2**-53, 1.0, 1 + 2**-52, 1.4616321449683622,
            1.4616321449683624, 1.5, 2.0, 2.5, 3 - 2**-51, 3.0, 3.5, 7.25, 10 - 2**-49, 10.0, 10.5, 30.0, 1e4,
            1e8, 1e15, 1e300, 1.7e308]  # fmt: skip
NEGATIVE = [-1e-17, -0.25, -0.5, -1.5, -2.5, -3.75, -9.5, -1e4 - 0.5]
POLES = [0.0, -0.0, -1.0, -2.0, -1e10, -np.inf]


def _psi(x: float) -> float:
    """psi(x) at 40 digits, rounded to float64."""
    with mpmath.workdps(40):
        return float(mpmath.digamma(mpmath.mpf(x)))


def _ulps(got, want: float, dtype) -> float:
    return abs(float(got) - want) / float(np.spacing(dtype(abs(want))))


def _polynomial(coefs: list, x):
    """sum_k coefs[k] x^k."""
    out = mpmath.mpf(0)
    for c in reversed(coefs):
        out = out * x + c
    return out


def _check_rational(form: tuple, fn, bound: float) -> None:
    """P(x) / Q(x) of ``form``'s coefficients, in exact arithmetic, is fn within ``bound`` (relative)
    at 451 points of [1, 10]."""
    top, bottom = ([mpmath.mpf(c) for c in coefs] for coefs in form)
    for k in range(451):
        x = 1 + 9 * mpmath.mpf(k) / 450
        ratio = _polynomial(top, x) / _polynomial(bottom, x)
        assert abs(ratio / fn(x) - 1) <= bound, x


def test_the_rational_form_is_psi_over_its_root():
    """psi(x) / (x - x0) on [1, 10] as the lowering's rational form (its coefficients rounded to
    float64: within 2e-16), and x0's two parts, recomputed."""
    with mpmath.workdps(40):
        root = mpmath.findroot(mpmath.digamma, 1.46)
        assert gamma_lowering.PSI_ROOT_HI == float(root)
        assert gamma_lowering.PSI_ROOT_LO == float(root - gamma_lowering.PSI_ROOT_HI)
        _check_rational(gamma_lowering.PSI_OVER_ROOT, lambda x: mpmath.digamma(x) / (x - root), 2e-16)


def test_digamma_keeps_its_digits():
    """float64 within 2 ulps of mpmath at x > 0 and at the reflection's half-integers (XLA's was 5 ulps
    off at 1 and 22 at -0.5), correctly rounded at the whole numbers 1 .. 130 (a count's log mu -
    psi(k + 1) cancels); float32 correctly rounded there; nan at the poles, inf at inf."""
    wholes = [float(n) for n in range(1, 131)]
    points = np.array(POSITIVE + NEGATIVE + POLES + [np.inf, np.nan] + wholes)
    g = sg.Graph("digamma_digits")
    with g:
        x64 = sg.placeholder(points.shape, sg.float64, name="x64")
        x32 = sg.placeholder(points.shape, sg.float32, name="x32")
        fetches = [S.digamma(x64), S.digamma(x32)]
    with sg.Session(g) as sess, np.errstate(over="ignore"):
        got64, got32 = sess.run(fetches, {x64: points, x32: points.astype(np.float32)})
    finite = len(POSITIVE) + len(NEGATIVE)
    at_wholes = slice(len(points) - len(wholes), None)
    assert [float(v) for v in got64[at_wholes]] == [_psi(x) for x in wholes]
    for x, v in zip(points[:finite], got64[:finite]):
        assert _ulps(v, _psi(x), np.float64) <= 2, (x, v, _psi(x))
    with np.errstate(over="ignore"):
        x32s = points[:finite].astype(np.float32)
    for x, v in zip(x32s, got32[:finite]):
        if x == 0 or not np.isfinite(x):  # 1e-300 is 0 in float32, 1.7e308 is inf
            continue
        want = np.float32(_psi(float(x)))
        assert v == want or _ulps(v, float(want), np.float32) <= 1, (x, v, want)
    poles = slice(finite, finite + len(POLES))
    assert np.isnan(got64[poles]).all() and np.isnan(got32[poles]).all()
    specials = finite + len(POLES)
    assert got64[specials] == np.inf and got32[specials] == np.inf
    assert np.isnan(got64[specials + 1]) and np.isnan(got32[specials + 1])


def test_polygamma_of_a_constant_order_keeps_its_digits():
    """polygamma(m, x) with m a constant of the program (as digamma's slope binds it) within 3 ulps of
    mpmath in float64: XLA folded m! = exp(lgamma(m + 1)) 6 to 10 ulps off. A fed order agrees."""
    xs = np.array([0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 7.5, 30.0, 1e4])
    g = sg.Graph("polygamma_digits")
    with g:
        x = sg.placeholder(xs.shape, sg.float64, name="x")
        order = sg.placeholder(xs.shape, sg.float64, name="order")
        fetches = {m: S.polygamma(m, x) for m in (1, 2, 3)}
        fetches["slope"] = sg.grad(lambda t: S.digamma(t).sum())(x)
        fetches["fed"] = S.polygamma(order, x)
        fetches["undefined"] = [S.polygamma(m, x) for m in (np.nan, np.inf, -1.0, 0.5)]
    with sg.Session(g) as sess:
        got = sess.run(fetches, {x: xs, order: np.full(xs.shape, 2.0)})
    assert np.isnan(got["undefined"]).all()  # orders that are not whole numbers >= 0, as scipy
    for name, m in ((1, 1), (2, 2), (3, 3), ("slope", 1), ("fed", 2)):
        for xv, v in zip(xs, got[name]):
            with mpmath.workdps(40):
                want = float(mpmath.polygamma(m, mpmath.mpf(xv)))
            assert _ulps(v, want, np.float64) <= 3, (name, xv, v, want)


def test_polygamma_below_zero_and_far_out_keeps_its_digits():
    """polygamma(m, x) at negative x by the reflection (-1)^m psi^(m)(1 - x) - pi^(m+1) P_m(cot pi x),
    and past x = 2^60 by its asymptotic series, within 6 ulps of mpmath (float64, constant and fed
    orders, gammaln's second slope) and 8 in float32. XLA's zeta(m + 1, x), jax's too, gave
    psi'(-9.9) = -8.7e29 for 103.26 and psi'(-20.5) = -0.0476 for 9.82, and 0 for psi'(1.34e154)."""
    xs = np.array([-1e-17, -0.25, -0.5, -1.5, -3.7, -8.3, -9.9, -10.3, -20.5, -100.5, -1e4 - 0.5, 0.75,
                   2.0**60, 1e20, 1.3407807929942596e154, 1e300])  # fmt: skip
    xs32 = np.where(np.abs(xs) < 1e30, xs, 1e30).astype(np.float32)
    g = sg.Graph("polygamma_reflected")
    with g:
        x = sg.placeholder(xs.shape, sg.float64, name="x")
        x32 = sg.placeholder(xs.shape, sg.float32, name="x32")
        order = sg.placeholder(xs.shape, sg.float64, name="order")
        fetches = {m: S.polygamma(m, x) for m in (1, 2, 3, 7)}
        fetches["fed 1"], fetches["fed 3"] = S.polygamma(order, x), S.polygamma(order * 3.0, x)
        fetches["gammaln''"] = sg.grad(lambda t: sg.grad(lambda u: S.gammaln(u).sum())(t).sum())(x)
        fetches["float32"] = {m: S.polygamma(m, x32) for m in (1, 2)}
    with sg.Session(g) as sess:
        got = sess.run(fetches, {x: xs, x32: xs32, order: np.ones(xs.shape)})
    for name, m in ((1, 1), (2, 2), (3, 3), (7, 7), ("fed 1", 1), ("fed 3", 3), ("gammaln''", 1)):
        for xv, v in zip(xs, got[name]):
            with mpmath.workdps(40):
                want = float(mpmath.polygamma(m, mpmath.mpf(xv)))
            if abs(want) < TINY:  # below the normals: XLA flushes it
                assert v == 0, (name, xv, v)
                continue
            assert _ulps(v, want, np.float64) <= 6, (name, xv, v, want)
    for m, values in got["float32"].items():
        for xv, v in zip(xs32, values):
            with mpmath.workdps(40):
                want = float(mpmath.polygamma(m, mpmath.mpf(float(xv))))
            if abs(want) < float(np.finfo(np.float32).tiny):
                continue
            if abs(want) > float(np.finfo(np.float32).max):  # overflows float32: an infinity of its sign
                assert v == np.copysign(np.inf, want), (m, xv, v, want)
                continue
            assert _ulps(v, want, np.float32) <= 8, (m, xv, v, want)
