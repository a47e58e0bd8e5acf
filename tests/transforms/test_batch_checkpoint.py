"""The batch rules of checkpoint, optimization_barrier and checkpoint_name (ops/checkpoint.py,
ops/primitives/remat.py): values against a loop over lanes, and vmap of the gradient against jax's."""

from __future__ import annotations

import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.ops.primitives.remat import optimization_barrier
from stablegraph.test_util import check_vectorize

F64 = np.float64
cp = sg.checkpoint_policies


def _block(x, w):
    h = sg.checkpoint_name(snp.tanh(x @ w), "h")
    return snp.sin(h @ w) + h


def test_checkpoint_and_its_primitives_batch_like_a_loop():
    def fn(x, w):
        kept = sg.checkpoint(_block, policy=cp.save_only_these_names("h"))(x, w)
        a, b = optimization_barrier([x, w])
        return kept, sg.checkpoint_name(a * 2.0, "twice") + b.sum()

    check_vectorize(fn, [np.ones((2, 3), F64), np.ones((3, 3), F64)])


def test_vmap_of_the_gradient_matches_jax(jax_x64):
    import jax
    import jax.numpy as jnp
    from jax.ad_checkpoint import checkpoint_name

    X, W = np.random.default_rng(2).normal(size=(2, 3, 3))

    def loss(x, w, policy):
        return snp.sum(sg.checkpoint(_block, policy=policy)(x, w) ** 2)

    def jloss(x, w, policy):
        def block(x, w):
            h = checkpoint_name(jnp.tanh(x @ w), "h")
            return jnp.sin(h @ w) + h

        return jnp.sum(jax.checkpoint(block, policy=policy)(x, w) ** 2)

    g = sg.Graph()
    with g:
        x, w = sg.constant(X), sg.constant(W)
        ws = snp.stack([w, 2 * w, -w])
        got = [sg.vmap(sg.grad(lambda a, b, p=p: loss(a, b, p), argnums=1), in_axes=(None, 0))(x, ws)
               for p in (None, cp.dots_saveable, cp.save_only_these_names("h"))]  # fmt: skip
    with sg.Session(g) as sess:
        got = sess.run(got)
    jpols = jax.checkpoint_policies
    Ws = jnp.stack([W, 2 * W, -W])
    for value, p in zip(got, (None, jpols.dots_saveable, jpols.save_only_these_names("h"))):
        want = jax.vmap(jax.grad(lambda a, b, p=p: jloss(a, b, p), argnums=1), in_axes=(None, 0))(X, Ws)
        np.testing.assert_allclose(value, want, rtol=1e-10, atol=1e-12)
