"""Transcendental primitives and snp's math ufuncs: vjps vs jax (or scipy's closed forms), second order.

The vjps of every formula come from one graph, compared with jax.vjp of the
same formula in float64; the gamma family and the incomplete integrals
against scipy's closed forms and central differences, which need no slow jit.
"""

from __future__ import annotations

import contextlib

import jax
import jax.numpy as jnp
import numpy as np
import scipy.special as sp

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.ops.primitives import transcendental as tr
from stablegraph.ops.primitives.registry import bind

R = np.random.default_rng(11)


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
    u = R.uniform(-0.95, 0.95, (2, 5)).astype(dt)  # inside (-1, 1)
    p = R.uniform(1.1, 6.0, (2, 5)).astype(dt)  # above 1
    x = (R.normal(size=(2, 5)) * 3).astype(dt)
    x[0, 0], x[0, 1] = 0.0, -0.0
    return u, p, x


# vjps: each formula against xp (snp or jnp) and lax-like names from a dict per module
def _lax(xp):
    if xp is jnp:
        lax = jax.lax
        return dict(asin=lax.asin, acos=lax.acos, atan=lax.atan, sinh=lax.sinh, cosh=lax.cosh, asinh=lax.asinh,
                    acosh=lax.acosh, atanh=lax.atanh, lgamma=lax.lgamma, digamma=lax.digamma, erfc=lax.erfc,
                    i0e=lax.bessel_i0e, i1e=lax.bessel_i1e, polygamma=lax.polygamma, igamma=lax.igamma,
                    igammac=lax.igammac, betainc=lax.betainc)  # fmt: skip

    def op(o):
        return lambda *xs: bind(o, *xs)

    return dict(asin=op(tr.asin), acos=op(tr.acos), atan=op(tr.atan), sinh=op(tr.sinh), cosh=op(tr.cosh),
                asinh=op(tr.asinh), acosh=op(tr.acosh), atanh=op(tr.atanh), lgamma=op(tr.lgamma),
                digamma=op(tr.digamma), erfc=op(tr.erfc), i0e=op(tr.bessel_i0e), i1e=op(tr.bessel_i1e),
                polygamma=op(tr.polygamma), igamma=op(tr.igamma), igammac=op(tr.igammac),
                betainc=op(tr.betainc))  # fmt: skip


# (formula of (xp, lax, u, p, x), which arguments jax differentiates)
VJPS = {
    "trig": lambda xp, L, u, p, x: L["asin"](u) * L["acos"](u) + L["atan"](x) * L["atanh"](u),
    "hyperbolic": lambda xp, L, u, p, x: L["sinh"](x) + L["cosh"](u) * L["asinh"](x) + L["acosh"](p),
    "erfc bessel": lambda xp, L, u, p, x: L["erfc"](x) + L["i0e"](x) * L["i1e"](x) + L["i1e"](u * 1e-9),
    "ufuncs": lambda xp, L, u, p, x: (
        xp.logaddexp(x, u)
        + xp.hypot(x, p) * xp.sinc(u)
        + xp.log2(p) * xp.exp2(u)
        + xp.i0(x)
        + xp.copysign(p, x) * xp.arctan2(u, p)
        + xp.logaddexp2(u, p)
        + xp.log10(p)
        + xp.deg2rad(x)
    ),  # fmt: skip
}


def test_vjps_match_jax():
    u, p, x = _inputs(np.float64)
    x[0, 0], x[0, 1] = 0.3, -0.7  # away from the kinks of abs and copysign
    cts = R.normal(size=(2, 5))
    g = sg.Graph()
    fetch = {}
    with g:
        phs = [sg.placeholder((2, 5), sg.float64) for _ in range(3)]
        for name, f in VJPS.items():
            _, vjp_fn = sg.vjp(lambda *a, f=f: f(snp, _lax(snp), *a), *phs)
            fetch[name] = vjp_fn(sg.constant(cts))
        _, beta_vjp = sg.vjp(lambda a, b, y: bind(tr.betainc, a, b, y), p, p - 0.5, snp.abs(phs[0]))
        fetch["betainc"] = beta_vjp(sg.constant(cts))
        one = snp.ones((2, 5), "float64")
        _, gamma_vjp = sg.vjp(
            lambda a: bind(tr.lgamma, a) * bind(tr.digamma, a) + bind(tr.polygamma, one, a), phs[1]
        )
        fetch["gamma"] = gamma_vjp(sg.constant(cts))
        _, gamma_vjp = sg.vjp(
            lambda a, y: (bind(tr.igamma, a, y), bind(tr.igammac, a, y)), p, snp.abs(phs[2])
        )
        fetch["igamma"] = gamma_vjp((sg.constant(cts), sg.constant(cts * 0.5)))
    with sg.Session(g) as sess:
        got = sess.run(fetch, dict(zip(phs, (u, p, x))))
    with enable_x64():
        for name, f in VJPS.items():
            jax_vjp = jax.jit(lambda *a, f=f: jax.vjp(lambda *b: f(jnp, _lax(jnp), *b), *a)[1](cts))
            for k, want in enumerate(jax_vjp(u, p, x)):
                np.testing.assert_allclose(
                    got[name][k], want, rtol=1e-9, atol=1e-12, err_msg=f"{name} arg {k}"
                )
        beta_vjp = jax.jit(lambda y: jax.vjp(lambda v: jax.lax.betainc(p, p - 0.5, v), y)[1](cts))
        np.testing.assert_allclose(got["betainc"][2], beta_vjp(np.abs(u))[0], rtol=1e-9)
    # the gamma family: closed forms from scipy (jax's rules are the same formulas; they jit slowly)
    lg, dg, pg1, pg2 = sp.gammaln(p), sp.digamma(p), sp.polygamma(1, p), sp.polygamma(2, p)
    np.testing.assert_allclose(got["gamma"][0], cts * (dg * dg + lg * pg1 + pg2), rtol=1e-10)
    # igamma and igammac (cotangents ct and ct / 2): closed form in x, central differences in a (jax's
    # rules agree; jitting them takes seconds)
    ax = np.abs(x)
    dx = np.exp((p - 1) * np.log(ax) - ax - sp.gammaln(p))
    h = 1e-6 * p
    da = (sp.gammainc(p + h, ax) - sp.gammainc(p - h, ax)) / (2 * h)
    np.testing.assert_allclose(got["igamma"][0], 0.5 * cts * da, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(got["igamma"][1], 0.5 * cts * dx, rtol=1e-10, atol=1e-12)
    # betainc's a and b: jax has no rule; central differences of scipy's betainc
    h = 1e-6
    da = (sp.betainc(p + h, p - 0.5, np.abs(u)) - sp.betainc(p - h, p - 0.5, np.abs(u))) / (2 * h)
    db = (sp.betainc(p, p - 0.5 + h, np.abs(u)) - sp.betainc(p, p - 0.5 - h, np.abs(u))) / (2 * h)
    np.testing.assert_allclose(got["betainc"][0], cts * da, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(got["betainc"][1], cts * db, rtol=1e-6, atol=1e-9)


def test_second_derivatives_match_jax():
    p = R.uniform(1.5, 4.0, 4)
    g = sg.Graph()
    with g:
        a = sg.placeholder((4,), sg.float64)

        def f(v):
            return (
                bind(tr.lgamma, v) + bind(tr.asinh, v) * bind(tr.bessel_i1e, v)
                + bind(tr.igamma, sg.constant(p * 0.8), v)
            ).sum()  # fmt: skip

        hess_diag = sg.grad(lambda v: (sg.grad(f)(v) * snp.ones(4)).sum())(a)
    with sg.Session(g) as sess:
        got = sess.run(hess_diag, {a: p})
    with enable_x64():
        lax = jax.lax

        def jf(v):
            # jax has no second derivative of igamma in a: only x varies there
            return (lax.lgamma(v) + lax.asinh(v) * lax.bessel_i1e(v) + lax.igamma(p * 0.8, v)).sum()

        want = jax.jit(jax.grad(lambda v: jax.grad(jf)(v).sum()))(p)
    np.testing.assert_allclose(got, want, rtol=1e-10)
