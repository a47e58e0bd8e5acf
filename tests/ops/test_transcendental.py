"""Transcendental primitives and snp's math ufuncs: values vs numpy/scipy, edge cases, errors.

One graph per value table and dtype. Gradients: test_transcendental_grads.py.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.ops.primitives import transcendental as tr
from stablegraph.ops.primitives.registry import bind

R = np.random.default_rng(11)


def _inputs(dt):
    u = R.uniform(-0.95, 0.95, (2, 5)).astype(dt)  # inside (-1, 1)
    p = R.uniform(1.1, 6.0, (2, 5)).astype(dt)  # above 1
    x = (R.normal(size=(2, 5)) * 3).astype(dt)
    x[0, 0], x[0, 1] = 0.0, -0.0
    return u, p, x


# name -> (primitive application, scipy/numpy reference) on u in (-1, 1), p > 1, x any
PRIMITIVES = {
    "asin": (lambda u, p, x: bind(tr.asin, u), lambda u, p, x: np.arcsin(u)),
    "acos": (lambda u, p, x: bind(tr.acos, u), lambda u, p, x: np.arccos(u)),
    "atan": (lambda u, p, x: bind(tr.atan, x), lambda u, p, x: np.arctan(x)),
    "sinh": (lambda u, p, x: bind(tr.sinh, x), lambda u, p, x: np.sinh(x)),
    "cosh": (lambda u, p, x: bind(tr.cosh, x), lambda u, p, x: np.cosh(x)),
    "asinh": (lambda u, p, x: bind(tr.asinh, x), lambda u, p, x: np.arcsinh(x)),
    "acosh": (lambda u, p, x: bind(tr.acosh, p), lambda u, p, x: np.arccosh(p)),
    "atanh": (lambda u, p, x: bind(tr.atanh, u), lambda u, p, x: np.arctanh(u)),
    "lgamma": (lambda u, p, x: bind(tr.lgamma, x), lambda u, p, x: sp.gammaln(x)),
    "digamma": (lambda u, p, x: bind(tr.digamma, p), lambda u, p, x: sp.digamma(p)),
    "erfc": (lambda u, p, x: bind(tr.erfc, x), lambda u, p, x: sp.erfc(x)),
    "bessel_i0e": (lambda u, p, x: bind(tr.bessel_i0e, x * 10), lambda u, p, x: sp.i0e(x * 10)),
    "bessel_i1e": (lambda u, p, x: bind(tr.bessel_i1e, x * 10), lambda u, p, x: sp.i1e(x * 10)),
    "polygamma": (
        lambda u, p, x: bind(tr.polygamma, snp.floor(p), p),
        lambda u, p, x: sp.polygamma(np.floor(p), p),
    ),
    "zeta": (lambda u, p, x: bind(tr.zeta, p, p), lambda u, p, x: sp.zeta(p, p)),
    "igamma": (lambda u, p, x: bind(tr.igamma, p, snp.abs(x)), lambda u, p, x: sp.gammainc(p, np.abs(x))),
    "igammac": (lambda u, p, x: bind(tr.igammac, p, snp.abs(x)), lambda u, p, x: sp.gammaincc(p, np.abs(x))),
    "betainc": (
        lambda u, p, x: bind(tr.betainc, p, p - 0.5, snp.abs(u)),
        lambda u, p, x: sp.betainc(p, p - 0.5, np.abs(u)),
    ),
    "nextafter": (lambda u, p, x: bind(tr.nextafter, x, u), lambda u, p, x: np.nextafter(x, u)),
}


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_primitive_values_match_scipy(run, dt):
    u, p, x = _inputs(dt)
    got = run(lambda *a: [f(*a) for f, _ in PRIMITIVES.values()], u, p, x)
    rtol = 3e-5 if dt == np.float32 else 1e-12
    for (name, (_, ref)), g in zip(PRIMITIVES.items(), got):
        assert g.dtype == dt, name
        np.testing.assert_allclose(g, ref(u, p, x), rtol=rtol, atol=rtol, err_msg=name)


def test_igamma_and_betainc_edges_and_a_derivative(run):
    a = np.array([0.5, 1.0, 3.0, 30.0, 200.0, 2.0, 2.0, -1.0, 2.0])
    x = np.array([0.0, 1e-3, 2.0, 25.0, 210.0, np.inf, 1e4, 1.0, -1.0])
    b = np.array([0.5, 3.0, 2.0, 30.0, 0.7, 2.0, 5.0, 1.0, 2.0])
    u = np.array([0.0, 1.0, 0.3, 0.5, 0.999, 1e-4, 0.9, 0.5, 1.5])
    got = run(lambda a, x, b, u: [bind(tr.igamma, a, x), bind(tr.igammac, a, x), bind(tr.betainc, a, b, u),
                                  bind(tr.igamma_grad_a, a, x)], a, x, b, u)  # fmt: skip
    with np.errstate(all="ignore"):
        want_p, want_q = sp.gammainc(a, x), sp.gammaincc(a, x)
        want_i = sp.betainc(a, b, u)
    for g, w in zip(got[:3], (want_p, want_q, want_i)):
        w = np.where((a <= 0) | (x < 0) | (b <= 0) | (u > 1), np.nan, w)  # outside the domain: NaN (as XLA)
        np.testing.assert_allclose(g[:7], w[:7], rtol=1e-11, atol=1e-300)
        assert np.isnan(g[7:]).all()
    h = (
        1e-5 * a[:7]
    )  # central differences of scipy's gammainc (jax's igamma_grad_a agrees; it is slow to jit)
    want_da = (sp.gammainc(a[:7] + h, x[:7]) - sp.gammainc(a[:7] - h, x[:7])) / (2 * h)
    np.testing.assert_allclose(got[3][:7], want_da, rtol=1e-7, atol=1e-12)


def test_integer_primitives(run):
    i = np.array([[0, 1, 7, -8], [255, -1, 2**30, 12345]], np.int32)
    q = i.view(np.uint32)
    got = run(lambda a, b: [bind(tr.population_count, a), bind(tr.clz, a), bind(tr.population_count, b),
                            bind(tr.clz, b)], i, q)  # fmt: skip
    bits = np.array([[format(int(v), "032b") for v in row] for row in q])
    count = np.vectorize(lambda s: s.count("1"))(bits)
    lead = np.vectorize(lambda s: len(s) - len(s.lstrip("0")))(bits)
    for g, w in zip(got, (count, lead, count, lead)):
        np.testing.assert_array_equal(g, w)


# snp's numpy names, against numpy
def _ufunc_cases(m, u, p, x, z, i):
    return [
        m.arcsin(u), m.arccos(u), m.arctan(x), m.asin(u), m.acos(u), m.atan(x), m.sinh(x), m.cosh(x),
        m.arcsinh(x), m.arccosh(p), m.arctanh(u), m.asinh(x), m.acosh(p), m.atanh(u), m.log2(p), m.log10(p),
        m.exp2(x), m.logaddexp(x, u * 100), m.logaddexp2(x, u), m.hypot(x, u), m.i0(x), m.sinc(x),
        m.deg2rad(x), m.rad2deg(x), m.degrees(x), m.radians(x), m.copysign(p, x), m.nextafter(x, u),
        m.spacing(p), m.frexp(x)[0], m.frexp(x)[1], m.ldexp(x, i % 50 - 20), m.signbit(x), m.heaviside(x, 0.5),
        m.fmax(x, m.where(u > 0, np.nan, u)), m.fmin(x, m.where(u > 0, np.nan, u)), m.float_power(p, x),
        m.bitwise_count(i), m.arcsin(z), m.log2(z), m.hypot(p, 1e30 * u),
    ]  # fmt: skip


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_math_ufuncs_match_numpy(run, dt):
    u, p, x = _inputs(dt)
    z = (u + 1j * x).astype(np.result_type(dt, np.complex64))
    i = np.array([[0, 1, 7, -8, 255], [3, -1, 2**30, 5, -6]], np.int32)
    got = run(lambda *a: _ufunc_cases(snp, *a), u, p, x, z, i)
    want = _ufunc_cases(np, u, p, x, z, i)
    rtol = 2e-6 if dt == np.float32 else 1e-13
    for k, (g, w) in enumerate(zip(got, want)):
        w = np.asarray(w)
        if w.dtype == np.float64 and k < 38 and dt == np.float32:  # numpy's float_power, int input
            w = w.astype(g.dtype) if k != 36 else w
        assert g.shape == w.shape, k
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, err_msg=f"case {k}")


def test_frexp_and_ldexp_extremes(run):
    x = np.array([1.0, -0.75, 3e38, 1.2e-38, np.inf, -np.inf, 0.0, 1e-30], np.float32)
    e = np.array([0, 1, -200, 200, 3, 0, 5, 250], np.int32)
    m, k, y = run(lambda a, b: [*snp.frexp(a), snp.ldexp(a, b)], x, e)
    wm, wk = np.frexp(x)
    np.testing.assert_array_equal(m, wm)
    np.testing.assert_array_equal(k, wk)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(y, np.ldexp(x, e))


def test_bad_operands_are_clear_errors():
    g = sg.Graph()
    with g:
        i = sg.placeholder((2,), sg.int32)
        f = sg.placeholder((2,), sg.float32)
        h = sg.placeholder((2,), sg.float16)
        with pytest.raises(
            sg.GraphError, match=r"test_transcendental.py:\d+ \(node lgamma\): lgamma wants a real"
        ):
            bind(tr.lgamma, i)
        with pytest.raises(sg.GraphError, match="population_count wants an integer dtype"):
            bind(tr.population_count, f)
        with pytest.raises(sg.GraphError, match="igamma wants float32 or float64 operands"):
            bind(tr.igamma, h, h)
        with pytest.raises(
            sg.GraphError, match=r"test_transcendental.py:\d+.*bitwise_count wants an integer"
        ):
            snp.bitwise_count(f)
        with pytest.raises(sg.GraphError, match="ldexp wants integer exponents"):
            snp.ldexp(f, f)
        with pytest.raises(sg.GraphError, match="betainc wants operands of equal shape and dtype"):
            bind(tr.betainc, f, f, sg.placeholder((3,), sg.float32))
