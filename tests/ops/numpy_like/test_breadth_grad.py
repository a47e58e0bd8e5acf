"""Gradients of sg.numpy's statistics (quantiles, moments, nan* reductions) against jax.grad (float64), and their batch rules
through check_vectorize: each function's loss is sum(sin(f(x))), all in one graph."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.test_util import check_vectorize

R = np.random.default_rng(21)


@pytest.fixture(scope="module", autouse=True)
def jax_x64():
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", before)


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
    ["median", "quantile", "nanmean", "cov", "nanmax", "average"],
)
def test_batch_rules_of_the_compositions(name):
    fn, a = CASES[name]
    check_vectorize(lambda t: fn(snp, t), [np.nan_to_num(a).astype(np.float32)], atol=1e-5, rtol=1e-5)
