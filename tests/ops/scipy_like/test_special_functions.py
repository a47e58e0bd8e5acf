"""sg.scipy.special's gamma, error-function, Bessel and information functions: values vs scipy,
gradients vs jax.scipy.special (one graph per table). The incomplete gamma and beta functions'
gradients are checked in tests/ops/test_transcendental.py."""

from __future__ import annotations

import contextlib

import jax
import jax.scipy.special as jss
import numpy as np
import pytest
import scipy.special as sp

import stablegraph as sg

R = np.random.default_rng(13)
S = sg.scipy.special


@contextlib.contextmanager
def enable_x64():
    """jax computes in float64 inside (its switch is global: put back after)."""
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", before)


def _inputs(dt):
    u = R.uniform(0.02, 0.98, (2, 5)).astype(dt)  # in (0, 1)
    p = R.uniform(0.6, 6.0, (2, 5)).astype(dt)  # positive
    x = (R.normal(size=(2, 5)) * 3).astype(dt)
    x[0, 0] = 0.0
    return u, p, x


# each case: f(module, u, p, x), applied to sg.scipy.special and scipy.special
CASES = {
    "gammaln": lambda m, u, p, x: m.gammaln(x),
    "digamma": lambda m, u, p, x: m.digamma(p),
    "psi": lambda m, u, p, x: m.psi(p + 1),
    "polygamma": lambda m, u, p, x: m.polygamma(3, p),
    "zeta": lambda m, u, p, x: m.zeta(p + 1, p),
    "riemann zeta": lambda m, u, p, x: m.zeta(p + 1.5),
    "gamma": lambda m, u, p, x: m.gamma(x * 0.5 + 0.25),
    "beta": lambda m, u, p, x: m.beta(p, u + 0.5),
    "betaln": lambda m, u, p, x: m.betaln(p, p * 2),
    "multigammaln": lambda m, u, p, x: m.multigammaln(p + 2, 3),
    "gammainc": lambda m, u, p, x: m.gammainc(p, np.abs(x) if m is sp else m_abs(x)),
    "gammaincc": lambda m, u, p, x: m.gammaincc(p, p * u * 3),
    "betainc": lambda m, u, p, x: m.betainc(p, p * 0.5 + 0.2, u),
    "erf": lambda m, u, p, x: m.erf(x),
    "erfc": lambda m, u, p, x: m.erfc(x),
    "erfinv": lambda m, u, p, x: m.erfinv(u * 2 - 1),
    "ndtr": lambda m, u, p, x: m.ndtr(x),
    "ndtri": lambda m, u, p, x: m.ndtri(u),
    "log_ndtr": lambda m, u, p, x: m.log_ndtr(x * 8),
    "i0e": lambda m, u, p, x: m.i0e(x * 5),
    "i1e": lambda m, u, p, x: m.i1e(x * 5),
    "i0": lambda m, u, p, x: m.i0(x),
    "i1": lambda m, u, p, x: m.i1(x),
    "entr": lambda m, u, p, x: m.entr(x),
    "rel_entr": lambda m, u, p, x: m.rel_entr(x, p),
    "kl_div": lambda m, u, p, x: m.kl_div(x, p),
    "xlogy": lambda m, u, p, x: m.xlogy(x, p),
    "xlog1py": lambda m, u, p, x: m.xlog1py(x, u),
    "expit": lambda m, u, p, x: m.expit(x),
    "logit": lambda m, u, p, x: m.logit(u),
    "softmax": lambda m, u, p, x: m.softmax(x, axis=1),
    "log_softmax": lambda m, u, p, x: m.log_softmax(x),
    "logsumexp": lambda m, u, p, x: m.logsumexp(x, axis=0),
}


def m_abs(t):
    return sg.numpy.abs(t)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_values_match_scipy(run, dt):
    u, p, x = _inputs(dt)
    # the loop-lowered incomplete integrals compile slowly: float32 runs are in test_transcendental.py
    cases = {
        k: f for k, f in CASES.items() if dt == np.float64 or k not in ("gammainc", "gammaincc", "betainc")
    }
    got = run(lambda *a: [f(S, *a) for f in cases.values()], u, p, x)
    rtol = 1e-4 if dt == np.float32 else 1e-11
    for (name, f), g in zip(cases.items(), got):
        want = f(sp, u, p, x)
        assert g.shape == np.shape(want), name
        assert g.dtype == dt, name
        np.testing.assert_allclose(g, want, rtol=rtol, atol=rtol, err_msg=name)


def test_edges_and_tails(run):
    x = np.array([-40.0, -25.0, -12.0, -3.0, 0.0, 5.0, 40.0])
    e = np.array([0.0, -1.0, 2.0, 0.5, 1.0, np.inf, 3.0])
    y = np.array([1.0, 1.0, 0.0, 2.0, -1.0, 1.0, 0.0])
    got = run(lambda a, b, c: [S.log_ndtr(a), S.log_ndtr(sg.numpy.asarray(a, "float32")), S.entr(b),
                               S.rel_entr(b, c), S.kl_div(b, c), S.xlogy(c * 0, b), S.xlog1py(c * 0, c - 2)],
              x, e, y)  # fmt: skip
    with np.errstate(all="ignore"):
        want = [sp.log_ndtr(x), sp.log_ndtr(x.astype(np.float32)), sp.entr(e), sp.rel_entr(e, y), sp.kl_div(e, y),
                np.zeros(7), np.zeros(7)]  # fmt: skip
    for k, (g, w) in enumerate(zip(got, want)):
        rtol = 1e-5 if g.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(g, w, rtol=rtol, err_msg=f"case {k}")


# gradients of the same names against jax.scipy.special, in float64
GRADS = {
    "gammaln": lambda m, u, p, x: m.gammaln(p),
    "digamma": lambda m, u, p, x: m.digamma(p),
    "polygamma": lambda m, u, p, x: m.polygamma(2, p),
    "gamma betaln": lambda m, u, p, x: m.gamma(u + 1) + m.betaln(u, p),
    "multigammaln": lambda m, u, p, x: m.multigammaln(p + 2, 2),
    "erf family": lambda m, u, p, x: m.erfc(x) + m.erfinv(u - 0.5) + m.ndtr(x) * m.ndtri(u) + m.log_ndtr(x),
    "bessel": lambda m, u, p, x: m.i0e(x) + m.i1e(x) * m.i0(u) + m.i1(x),
    "information": lambda m, u, p, x: m.entr(p) + m.rel_entr(u, p) + m.kl_div(p, u) + m.xlog1py(x + 9, u),
    "softmax": lambda m, u, p, x: m.softmax(x, axis=1) * m.log_softmax(x, axis=0) + m.expit(x) * m.logit(u),
}


def test_gradients_match_jax():
    u, p, x = _inputs(np.float64)
    cts = R.normal(size=(2, 5))
    g = sg.Graph()
    fetch = {}
    with g:
        phs = [sg.placeholder((2, 5), sg.float64) for _ in range(3)]
        for name, f in GRADS.items():
            _, vjp_fn = sg.vjp(lambda *a, f=f: f(S, *a), *phs)
            fetch[name] = vjp_fn(sg.constant(cts))
    with sg.Session(g) as sess:
        got = sess.run(fetch, dict(zip(phs, (u, p, x))))
    with enable_x64():
        for name, f in GRADS.items():
            jax_vjp = jax.jit(lambda *a, f=f: jax.vjp(lambda *b: f(jss, *b), *a)[1](cts))
            for k, want in enumerate(jax_vjp(u, p, x)):
                np.testing.assert_allclose(
                    got[name][k], want, rtol=1e-9, atol=1e-12, err_msg=f"{name} arg {k}"
                )
