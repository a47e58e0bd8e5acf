"""Gradients of sg.numpy.linalg's LU, Cholesky, eigh, SVD and QR paths (svd, svdvals, qr, pinv,
lstsq, spectral and nuclear norms, cond among them) against jax.grad of the same formulas written
with jax.numpy.linalg.

Each formula is written once against a numpy-like module ``xp``; all cases
build into one graph (one run) and one jitted jax function (one compile).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp

RNG = np.random.default_rng(12)


def _normal(*shape):
    return RNG.normal(size=shape)


def _spd(*shape):
    x = RNG.normal(size=shape)
    return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])


def grad_table():
    sq, spd, b = _normal(2, 3, 3), _spd(3, 3), _normal(2, 3, 2)
    sq1, tall = _normal(3, 3), _normal(4, 3)
    return {
        "svd": ((tall,), lambda xp, a: tuple(xp.linalg.svd(a, full_matrices=False))),
        "svdvals": ((tall,), lambda xp, a: xp.linalg.svdvals(a)),
        "qr": ((tall,), lambda xp, a: tuple(xp.linalg.qr(a))),
        "pinv": ((tall,), lambda xp, a: xp.linalg.pinv(a)),
        "lstsq": ((tall, tall[:, 0]), lambda xp, a, y: xp.linalg.lstsq(a, y)[0]),
        "norm nuc and 2": ((tall,), lambda xp, a: (xp.linalg.norm(a, "nuc"), xp.linalg.norm(a, 2))),
        "cond": ((sq1,), lambda xp, a: xp.linalg.cond(a)),
        "solve": ((sq, b), lambda xp, a, y: xp.linalg.solve(a, y)),
        "inv": ((sq,), lambda xp, a: xp.linalg.inv(a)),
        "det": ((sq,), lambda xp, a: xp.linalg.det(a)),
        "slogdet": ((sq,), lambda xp, a: xp.linalg.slogdet(a)[1]),
        "cholesky": ((spd,), lambda xp, a: xp.linalg.cholesky(a)),
        "eigh": ((spd,), lambda xp, a: tuple(xp.linalg.eigh(a))),
        "eigvalsh": ((spd,), lambda xp, a: xp.linalg.eigvalsh(a)),
        "matrix_power": ((sq,), lambda xp, a: xp.linalg.matrix_power(a, 3)),
        "tensorsolve": ((sq[0].reshape(3, 3), b[0, :, 0]), lambda xp, a, y: xp.linalg.tensorsolve(a, y)),
        "multi_dot": ((sq[0], sq[1], b[0]), lambda xp, *xs: xp.linalg.multi_dot(xs)),
    }


def _weighted_sum(xp, outs):
    outs = outs if isinstance(outs, tuple) else (outs,)
    total = 0.0
    for k, o in enumerate(outs):
        w = np.cos(np.arange(int(np.prod(o.shape))).reshape(o.shape) * 0.9 + k)
        total = total + xp.sum(o * w)
    return total


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
