"""Gradients of sg.scipy.linalg against jax.grad of the same formulas with jax.scipy.linalg.

Each formula is written once against a scipy.linalg-like module ``m``; all
cases build into one graph (one run) and one jitted jax function.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np

import stablegraph as sg

RNG = np.random.default_rng(14)
la = sg.scipy.linalg


def _normal(*shape):
    return RNG.normal(size=shape)


def _spd(n):
    x = RNG.normal(size=(n, n))
    return x @ x.T + n * np.eye(n)


def test_gradients_match_jax_scipy(jax_x64):
    spd, sq, b = _spd(3), _normal(3, 3), _normal(3, 2)
    low = np.tril(sq) + 3 * np.eye(3)
    table = {
        "cholesky": ((spd,), lambda m, a: m.cholesky(a)),
        "cho_solve": ((spd, b), lambda m, a, y: m.cho_solve(m.cho_factor(a), y)),
        "solve_triangular": ((low, b), lambda m, a, y: m.solve_triangular(a, y, lower=True, trans=1)),
        "lu_solve": ((sq, b), lambda m, a, y: m.lu_solve(m.lu_factor(a), y)),
        "lu": ((sq,), lambda m, a: m.lu(a)[1:]),
        "expm": ((sq * 0.5,), lambda m, a: m.expm(a)),
        "det": ((sq,), lambda m, a: m.det(a)),
    }

    def total(np_like, outs):
        outs = outs if isinstance(outs, tuple) else (outs,)
        acc = 0.0
        for k, o in enumerate(outs):
            acc = acc + np_like.sum(o * np.cos(np.arange(int(np.prod(o.shape))).reshape(o.shape) + k))
        return acc

    g, fetches, feeds = sg.Graph(), {}, {}
    with g:
        for name, (args, f) in table.items():
            phs = [sg.placeholder(a.shape, sg.float64) for a in args]
            feeds.update(zip(phs, args))
            argnums = tuple(range(len(args)))
            fetches[name] = sg.grad(lambda *xs, f=f: total(sg.numpy, f(la, *xs)), argnums=argnums)(*phs)
    with sg.Session(g) as sess:
        got = sess.run(fetches, feeds)

    def jax_grads(all_args):
        return {
            name: jax.grad(lambda *xs, f=f: total(jnp, f(jsl, *xs)), argnums=tuple(range(len(args))))(*args)
            for (name, (_, f)), args in zip(table.items(), all_args)
        }

    want = jax.jit(jax_grads)([args for args, _ in table.values()])
    for name in table:
        for k, (a, w) in enumerate(zip(got[name], want[name])):
            np.testing.assert_allclose(a, np.asarray(w), rtol=1e-7, atol=1e-9, err_msg=f"{name} argument {k}")
