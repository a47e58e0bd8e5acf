"""Gradients of sg.numpy's statistics (quantiles, moments, nan* reductions) and array functions (pad
modes, interp, polynomials, differences, ...) against jax.grad (float64), and their batch rules
through check_vectorize: each function's loss is sum(sin(f(x))), all in one graph."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.test_util import check_vectorize

R = np.random.default_rng(21)


pytestmark = pytest.mark.usefixtures("jax_x64")


def _distinct(*shape):
    """Values with no ties (sort-based functions have a gradient there)."""
    n = int(np.prod(shape))
    return (R.permutation(n) + R.uniform(0.1, 0.9, n)).reshape(shape) / n * 4 - 2


X = _distinct(4, 5)
V = _distinct(6)
NANX = X.copy()
NANX[1, 2] = NANX[3, 0] = np.nan
XP = np.sort(_distinct(7))

CASES = {
    "median": (lambda xp, x: xp.median(x, axis=1), X),
    "quantile": (lambda xp, x: xp.quantile(x, np.array([0.1, 0.5, 0.8]), axis=0), X),
    "average": (lambda xp, x: xp.average(x, axis=0, weights=xp.arange(1.0, 5.0)), X),
    "average_full": (lambda xp, x: xp.average(x, weights=x * x + 1), X),
    "cov": (lambda xp, x: xp.cov(x), X),
    "corrcoef": (lambda xp, x: xp.corrcoef(x), X),
    "nansum": (lambda xp, x: xp.nansum(x, axis=0), NANX),
    "nanmean": (lambda xp, x: xp.nanmean(x, axis=1), NANX),
    "nanvar": (lambda xp, x: xp.nanvar(x, axis=0), NANX),
    "nanstd": (lambda xp, x: xp.nanstd(x), NANX),
    "nanmax": (lambda xp, x: xp.nanmax(x, axis=1), NANX),
    "nanprod": (lambda xp, x: xp.nanprod(x, axis=1), NANX),
    "nanmedian": (lambda xp, x: xp.nanmedian(x, axis=0), NANX),
    "nancumsum": (lambda xp, x: xp.nancumsum(x, axis=1), NANX),
    "ptp": (lambda xp, x: xp.ptp(x, axis=0), X),
    "var_complex": (lambda xp, x: xp.var(x[:2] + 1j * x[2:], axis=1), X),
    "median_flat": (lambda xp, x: xp.median(x), X),
    "interp": (lambda xp, x: xp.interp(x, xp.asarray(XP), xp.sin(xp.asarray(XP))), X),
    "interp_fp": (lambda xp, v: xp.interp(np.array([-0.5, 0.2, 1.1]), xp.asarray(XP[:6]), v), V),
    "diff": (lambda xp, x: xp.diff(x, 2, axis=1), X),
    "ediff1d": (lambda xp, v: xp.ediff1d(v, to_begin=1.0), V),
    "gradient": (lambda xp, x: xp.gradient(x, axis=1), X),
    "kron": (lambda xp, x: xp.kron(x[:2, :3], x[2:, :2]), X),
    "pad_reflect": (lambda xp, x: xp.pad(x, ((2, 1), (3, 0)), "reflect"), X),
    "pad_symmetric": (lambda xp, x: xp.pad(x, 2, "symmetric"), X),
    "pad_wrap": (lambda xp, x: xp.pad(x, 3, "wrap"), X),
    "pad_edge": (lambda xp, x: xp.pad(x, 1, "edge"), X),
    "pad_ramp": (lambda xp, x: xp.pad(x, 2, "linear_ramp", end_values=0.5), X),
    "pad_mean": (lambda xp, x: xp.pad(x, 2, "mean", stat_length=2), X),
    "pad_maximum": (lambda xp, x: xp.pad(x, 1, "maximum"), X),
    "polyval": (lambda xp, v: xp.polyval(v, np.array([0.3, -1.2, 2.0])), V),
    "polyval_x": (lambda xp, x: xp.polyval(np.array([1.0, -2.0, 0.5, 3.0]), x), X),
    "trapezoid": (lambda xp, x: xp.trapezoid(x, dx=0.5), X),
    "convolve": (lambda xp, v: xp.convolve(v, v[:3], "same"), V),
    "correlate": (lambda xp, v: xp.correlate(v, v[1:4]), V),
    "unwrap": (lambda xp, v: xp.unwrap(v * 3), V),
    "repeat": (lambda xp, x: xp.repeat(x, np.array([1, 0, 2, 3]), axis=0), X),
    "select": (lambda xp, x: xp.select([x > 0.5, x < -0.5], [x * x, xp.sin(x)], 0.0), X),
    "rot90": (lambda xp, x: xp.rot90(x) * xp.arange(20.0).reshape(5, 4), X),
    "take_diag": (lambda xp, x: xp.diag(x, 1) * xp.diag(x[:, :4]), X),
    "insert": (lambda xp, x: xp.insert(x, np.array([1, 3]), x[0, :2], axis=1).sum(0) * xp.arange(7.0), X),
}


def test_gradients_against_jax(run):
    names = list(CASES)
    args = [CASES[n][1] for n in names]

    def grads(*phs):
        out = []
        for name, p in zip(names, phs):
            fn = CASES[name][0]
            loss = sg.function(lambda t, fn=fn: snp.sum(snp.sin(fn(snp, t))), [p.type], name=name)
            out.append(sg.grad(loss)(p))
        return out

    got = run(grads, *args)

    def jax_grads(*arrays):  # one jit for all: one compile
        out = []
        for name, a in zip(names, arrays):
            fn = CASES[name][0]
            out.append(jax.grad(lambda t, fn=fn: jnp.sum(jnp.sin(fn(jnp, t))))(a))
        return out

    want = jax.jit(jax_grads)(*args)
    for name, g, w in zip(names, got, want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-9, atol=1e-10, err_msg=name)


@pytest.mark.parametrize(
    "name",
    [
        "median",
        "quantile",
        "nanmean",
        "cov",
        "nanmax",
        "average",
        "pad_reflect",
        "pad_mean",
        "interp",
        "kron",
        "polyval_x",
        "diff",
        "convolve",
    ],
)
def test_batch_rules_of_the_compositions(name):
    fn, a = CASES[name]
    check_vectorize(lambda t: fn(snp, t), [np.nan_to_num(a).astype(np.float32)], atol=1e-5, rtol=1e-5)
