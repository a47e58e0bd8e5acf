"""Batch rules of the control-flow ops and custom_vjp_call: loops over lanes, and compositions
of vectorize with grad against jax (ops/primitives/control/, ops/custom_vjp.py).

cond: an unbatched index stays one cond, a batched one runs every branch and
selects per lane; while: a batched predicate runs until every lane stops,
masking the carry per lane; scan: carries and xs batched at any axis, and
the ``saved`` outputs of a gradient's forward scan; custom_vjp_call: its bwd
is vectorized, so gradients of vectorized custom_vjp functions are the user's.
"""

from __future__ import annotations

import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.test_util import check_vectorize

R = np.random.default_rng(0)
F32 = np.float32


@pytest.fixture(autouse=True)
def _jax_x64():
    with jax.enable_x64(True):
        yield


def ops_of(g):
    return [n.op.name for n in g.nodes]


# -- each rule against a loop over lanes, every in_axes choice ---------------------------------
def test_cond_and_switch_batch_like_a_loop():
    p, x = np.float32(0.5), np.ones(3, F32)
    # cond: a batched predicate selects per lane, an unbatched one stays a cond
    check_vectorize(lambda p, x: sg.cond(p > 0, lambda v: v * 2.0, lambda v: snp.sin(v), x), [p, x], size=2)
    # switch (a cond of three branches); indices -1..3 are out of range at both ends and clamp
    branches = [lambda v: v + 1.0, lambda v: v * v, lambda v: snp.cos(v)]
    check_vectorize(lambda i, x: sg.switch(i[0] - 1, branches, x), [np.array([0, 4], np.int32), x], size=4)


def test_cond_with_batched_captures_only_keeps_one_cond():
    g = sg.Graph()
    with g:
        x = sg.placeholder((4, 3), sg.float32, name="x")
        y = sg.vmap(lambda v: sg.cond(True, lambda: v * 2.0, lambda: v - 1.0))(x)
    assert ops_of(g).count("cond") == 1 and "select" not in ops_of(g)
    xv = R.normal(size=(4, 3)).astype(F32)
    with sg.Session(g) as sess:
        np.testing.assert_allclose(sess.run(y, {x: xv}), xv * 2)


def test_while_batches_like_a_loop():
    x, n = np.float32(1.5), np.int32(3)
    # a batched predicate: each lane doubles until it passes 10 (different step counts per lane)
    check_vectorize(lambda x: sg.while_loop(lambda v: snp.abs(v) < 10.0, lambda v: v * 2.0, x), [x])
    # an unbatched predicate with a carry that becomes batched through the body
    check_vectorize(
        lambda x, n: sg.fori_loop(0, n, lambda k, c: c * 0.5 + x, snp.zeros((2,), F32)),
        [np.ones(2, F32), n],
    )


def test_scan_batches_like_a_loop():
    c, xs = np.ones(2, F32), np.ones((4, 2), F32)

    def f(c, xs):
        return sg.scan(lambda h, t: (snp.tanh(h * t + 1.0), h * t), c, xs)

    check_vectorize(f, [c, xs], atol=1e-6)
    # reverse; xs batched and the carry not: the carry becomes batched
    check_vectorize(lambda xs: sg.scan(lambda h, t: (h + t, h), snp.zeros((2,), F32), xs, reverse=True), [xs])


@sg.custom_vjp
def clip_grad(x):
    return snp.sin(x)


clip_grad.defvjp(lambda x: (snp.sin(x), snp.cos(x)), lambda c, g: (snp.clip(g * c, -0.5, 0.5),))


def test_custom_vjp_call_batches_like_a_loop():
    check_vectorize(lambda x: clip_grad(x), [np.ones(3, F32)])


def test_gradients_through_a_vectorized_custom_vjp_use_its_bwd():
    g = sg.Graph()
    with g:
        w = sg.placeholder((3,), sg.float32, name="w")
        xs = sg.placeholder((4, 3), sg.float32, name="xs")
        scale = sg.placeholder((), sg.float32, name="scale")

        @sg.custom_vjp
        def mul(w, x):
            return w * x

        # a deliberately wrong derivative, read off a tensor the bwd closes over
        mul.defvjp(lambda w, x: (w * x, (w, x)), lambda r, ct: (ct * r[1] * scale, ct * r[0]))
        dw = sg.grad(lambda w: snp.sum(sg.vmap(mul, in_axes=(None, 0))(w, xs)))(w)  # shared w: summed
        dxs = sg.vmap(sg.grad(lambda x, w: snp.sum(mul(w, x))), in_axes=(0, None))(xs, w)
    wv, xv = R.normal(size=3).astype(F32), R.normal(size=(4, 3)).astype(F32)
    with sg.Session(g) as sess:
        got_w, got_x = sess.run([dw, dxs], {w: wv, xs: xv, scale: np.float32(3)})
    np.testing.assert_allclose(got_w, 3 * xv.sum(0), rtol=1e-6)
    np.testing.assert_allclose(got_x, np.broadcast_to(wv, (4, 3)), rtol=1e-6)


# -- compositions with grad against jax ---------------------------------------------------------
def model(xp, lax, w, x):
    """cond on a batched predicate, switch, a per-lane Newton while_loop, fori_loop, scan, custom_vjp."""
    p = xp.sum(w * x)
    a = lax.cond(p > 0, lambda v: v * 2.0, lambda v: xp.sin(v), w * x)
    i = xp.sum((x > 0).astype(xp.int32))
    b = lax.switch(i, [lambda v: v + 1.0, lambda v: v * v, lambda v: xp.cos(v)], a)
    s = 1.0 + xp.sum(b * b)
    s0 = lax.stop_gradient(s)
    newton = lax.while_loop(lambda r: xp.abs(r * r - s0) > 1e-12 * s0, lambda r: 0.5 * (r + s0 / r), s0)
    root = lax.stop_gradient(newton)
    root = 0.5 * (root + s / root)  # one Newton step past convergence: sqrt(s) and its derivative
    c = lax.fori_loop(0, 3, lambda k, c: c * 0.5 + xp.sin(c) * w, b)
    h, ys = lax.scan(lambda h, t: (xp.tanh(h * t + w), h * t), c, xp.stack([x, w, b]))
    return xp.sum(lax.clip_grad(h)) + root + xp.sum(ys)


def _lax_of(cvjp, ns, **extra):
    fn = cvjp(lambda x: ns.numpy.sin(x))
    fn.defvjp(lambda x: (ns.numpy.sin(x), ns.numpy.cos(x)), lambda c, g: (ns.numpy.clip(g * c, -0.5, 0.5),))
    return types.SimpleNamespace(clip_grad=fn, **extra)


SG = _lax_of(sg.custom_vjp, types.SimpleNamespace(numpy=snp), cond=sg.cond, switch=sg.switch,
             while_loop=sg.while_loop, fori_loop=sg.fori_loop, scan=sg.scan, stop_gradient=sg.stop_gradient)  # fmt: skip
JAX = _lax_of(jax.custom_vjp, types.SimpleNamespace(numpy=jnp), cond=jax.lax.cond, switch=jax.lax.switch,
              while_loop=jax.lax.while_loop, fori_loop=jax.lax.fori_loop, scan=jax.lax.scan,
              stop_gradient=jax.lax.stop_gradient)  # fmt: skip


def test_vectorize_and_grad_compose_like_jax():
    w = R.normal(size=3)
    xs = R.normal(size=(6, 3))
    ws = R.normal(size=(2, 3))

    def sg_f(w, x):
        return model(snp, SG, w, x)

    def jax_f(w, x):
        return model(jnp, JAX, w, x)

    g = sg.Graph()
    with g:
        w_ = sg.placeholder((3,), sg.float64, name="w")
        xs_ = sg.placeholder((6, 3), sg.float64, name="xs")
        ws_ = sg.placeholder((2, 3), sg.float64, name="ws")
        got = [
            sg.vmap(sg.grad(sg_f), in_axes=(None, 0))(w_, xs_),
            sg.grad(lambda w: snp.sum(sg.vmap(sg_f, in_axes=(None, 0))(w, xs_)))(w_),
            sg.vmap(sg.vmap(sg_f, in_axes=(None, 0)), in_axes=(0, None))(ws_, xs_),
        ]
    want = jax.jit(lambda w, xs, ws: [
        jax.vmap(jax.grad(jax_f), in_axes=(None, 0))(w, xs),
        jax.grad(lambda w: jnp.sum(jax.vmap(jax_f, in_axes=(None, 0))(w, xs)))(w),
        jax.vmap(jax.vmap(jax_f, in_axes=(None, 0)), in_axes=(0, None))(ws, xs),
    ])(w, xs, ws)  # fmt: skip
    with sg.Session(g) as sess:
        out = sess.run(got, {w_: w, xs_: xs, ws_: ws})
    for k, (a, b) in enumerate(zip(out, want)):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-9, atol=1e-11, err_msg=f"composition {k}")
