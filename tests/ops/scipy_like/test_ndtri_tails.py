"""ndtri (the normal quantile) in both tails and at its range ends, against scipy in float64: within
a few ulps in float32 and float64 (it was -5.2201 for p = 1e-7 in float32, scipy -5.19934), never
worse than jax's; its derivative against the closed form sqrt(2 pi) exp(x^2 / 2)."""

from decimal import Decimal, localcontext

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special

import stablegraph as sg

pytestmark = pytest.mark.usefixtures("jax_x64")

RNG = np.random.default_rng(7)
P = np.concatenate(
    [
        10.0 ** -np.linspace(1, 300, 160),  # the lower tail down to float64's normal range
        1 - 10.0 ** -np.linspace(1, 15, 40),  # the upper tail, as far as p can tell from 1
        RNG.uniform(0, 1, 100),
        [1e-7, 1e-5, 0.075, 0.0749999, 0.925, 0.5, 1.2e-38, 1e-40, 1e-45, 5e-324],  # branch ends, subnormals
        [0.0, -0.0, 1.0, -0.1, 1.5, np.nan, np.inf, -np.inf],  # range ends and outside
    ]
)
ULPS = 4
GPU_ULPS = 8  # a GPU's log and sqrt round less exactly (5.5 ulps seen at p = 1.5e-193 on an H100)


def _ulps(x, ref, dtype):
    with np.errstate(invalid="ignore"):
        err = np.abs(x.astype(np.float64) - ref) / np.spacing(np.abs(ref).astype(dtype)).astype(np.float64)
    err[(x == ref) | (np.isnan(x) & np.isnan(ref))] = 0.0
    return err


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ndtri_is_accurate_in_both_tails(dtype):
    p = P.astype(dtype)
    g = sg.Graph()
    with g:
        fed = sg.placeholder((len(p),), dtype, name="p")
        value = sg.scipy.special.ndtri(fed)
        slope = sg.vmap(sg.grad(sg.scipy.special.ndtri))(fed)
    with sg.Session(g) as sess:
        got, dgot = sess.run([value, slope], {fed: p})
        on_cpu = sess.devices[0].platform == "cpu"  # XLA's CPU code takes subnormals as 0; GPUs keep them
    flushed = np.where(np.abs(p) < np.finfo(dtype).tiny, 0, p) if on_cpu else p
    with np.errstate(all="ignore"):
        ref = scipy.special.ndtri(flushed.astype(np.float64))
    theirs = np.asarray(jax.scipy.special.ndtri(jnp.asarray(p)))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(ref.astype(dtype)))
    ours_err, jax_err = _ulps(got, ref, dtype), _ulps(theirs, ref, dtype)
    worse = ours_err > np.maximum(ULPS if on_cpu else GPU_ULPS, jax_err)
    assert not worse.any(), list(zip(p[worse], got[worse], ref[worse]))
    if dtype == np.float32:
        assert got[np.flatnonzero(p == np.float32(1e-7))[0]] == pytest.approx(-5.199337582, rel=2e-7)
        assert got[np.flatnonzero(p == np.float32(1e-5))[0]] == pytest.approx(-4.264890794, rel=2e-7)
    with np.errstate(over="ignore"):
        dref = np.sqrt(2 * np.pi) * np.exp(ref**2 / 2)
    inside = np.isfinite(dref) & (dref < np.finfo(dtype).max / 2)
    rtol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(dgot[inside], dref[inside], rtol=rtol)


def _decimal_quantile(p: float, digits: int = 40):
    """(x, 1 / phi(x), x / phi(x)**2) at x = Phi^-1(p), by Newton's method on Phi's power series
    1/2 + phi(x) sum_n x^(2n+1) / (2n+1)!! in decimal arithmetic, its precision raised by the
    series' cancellation (e^(x^2 / 2)), from scipy's quantile as the start."""
    with localcontext() as ctx:
        ctx.prec = digits + 340  # x^2 / 2 / ln 10 digits cancel: 306 at x = -37.5
        pi, term, k = Decimal(0), Decimal(1), 0  # pi = sum_k (k!)^2 2^(k+1) / (2k+1)!
        while term > Decimal(10) ** -ctx.prec:
            pi += 2 * term
            k += 1
            term = term * k / (2 * k + 1)
        x = Decimal(float(scipy.special.ndtri(p)))
        for _ in range(4):
            term = total = x
            n = 0
            while term != 0 and abs(term) >= abs(total) * Decimal(10) ** -ctx.prec:
                n += 1
                term = term * x * x / (2 * n + 1)
                total += term
            density = (-x * x / 2).exp() / (2 * pi).sqrt()
            x -= (Decimal(1) / 2 + density * total - Decimal(p)) / density
        return x, 1 / density, x / (density * density)


def test_ndtri_and_its_slopes_in_float64_against_decimals():
    """Values within an ulp of 40-digit decimals (one Newton step in the tails; the rational
    functions alone were 2 ulps off at 0.975 and 1e-7); slopes 1 / phi(x) and x / phi(x)**2 within
    a few ulps, where exp(x^2 / 2) at the rounded x was 2000 ulps off at p = 2.2e-308 (from the
    Mills ratio now)."""
    p = np.array([2.2250738585072014e-308, 1e-300, 1e-100, 1e-30, 2.220446049250313e-16, 1e-9, 1e-7, 0.001])
    p = np.concatenate([p, [0.02, 0.07, 0.3, 0.9, 0.975, 1 - 1e-10, 1 - 2.0**-53]])
    g = sg.Graph()
    with g:
        fed = sg.placeholder((len(p),), np.float64, name="p")
        value = sg.scipy.special.ndtri(fed)
        slope = sg.vmap(sg.grad(sg.scipy.special.ndtri))(fed)
        curvature = sg.vmap(sg.grad(sg.grad(sg.scipy.special.ndtri)))(fed)
    with sg.Session(g) as sess:
        got = sess.run([value, slope, curvature], {fed: p})
    want = np.array([[float(v) for v in _decimal_quantile(float(q))] for q in p]).T
    with np.errstate(over="ignore", invalid="ignore"):
        for k, bound in enumerate([1, 16, 32]):
            err = np.abs(got[k] - want[k]) / np.spacing(np.abs(want[k]))
            err[got[k] == want[k]] = 0  # the curvature's -inf at 2.2e-308, where x / phi^2 overflows
            assert err.max() <= bound, (k, p[err > bound], got[k][err > bound], want[k][err > bound])
