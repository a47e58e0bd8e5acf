"""Gradients of sg.numpy.linalg's SVD and QR paths (svd, svdvals, qr, pinv, lstsq, spectral and nuclear
norms, cond) against jax.grad of the same formulas written with jax.numpy.linalg.

Each formula is written once against a numpy-like module ``xp``; all cases
build into one graph (one run) and one jitted jax function (one compile).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

RNG = np.random.default_rng(15)


def _normal(*shape):
    return RNG.normal(size=shape)


def grad_table():
    sq, tall = _normal(3, 3), _normal(4, 3)
    return {
        "svd": ((tall,), lambda xp, a: tuple(xp.linalg.svd(a, full_matrices=False))),
        "svdvals": ((tall,), lambda xp, a: xp.linalg.svdvals(a)),
        "qr": ((tall,), lambda xp, a: tuple(xp.linalg.qr(a))),
        "pinv": ((tall,), lambda xp, a: xp.linalg.pinv(a)),
        "lstsq": ((tall, tall[:, 0]), lambda xp, a, y: xp.linalg.lstsq(a, y)[0]),
        "norm nuc and 2": ((tall,), lambda xp, a: (xp.linalg.norm(a, "nuc"), xp.linalg.norm(a, 2))),
        "cond": ((sq,), lambda xp, a: xp.linalg.cond(a)),
    }


def _weighted_sum(xp, outs):
    outs = outs if isinstance(outs, tuple) else (outs,)
    total = 0.0
    for k, o in enumerate(outs):
        w = np.cos(np.arange(int(np.prod(o.shape))).reshape(o.shape) * 0.9 + k)
        total = total + xp.sum(o * w)
    return total


@pytest.fixture
def jax_x64():
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", before)


def test_gradients_match_jax(jax_x64):
    table = grad_table()
    g, fetches, feeds = sg.Graph(), {}, {}
    with g:
        for name, (args, f) in table.items():
            phs = [sg.placeholder(a.shape, sg.float64) for a in args]
            feeds.update(zip(phs, args))
            argnums = tuple(range(len(args)))
            fetches[name] = sg.grad(lambda *xs, f=f: _weighted_sum(snp, f(snp, *xs)), argnums=argnums)(*phs)
    with sg.Session(g) as sess:
        got = sess.run(fetches, feeds)

    def jax_grads(all_args):
        return {
            name: jax.grad(lambda *xs, f=f: _weighted_sum(jnp, f(jnp, *xs)), argnums=tuple(range(len(args))))(
                *args
            )
            for (name, (_, f)), args in zip(table.items(), all_args)
        }

    want = jax.jit(jax_grads)([args for args, _ in table.values()])
    for name in table:
        for k, (a, w) in enumerate(zip(got[name], want[name])):
            np.testing.assert_allclose(a, np.asarray(w), rtol=1e-7, atol=1e-9, err_msg=f"{name} argument {k}")
