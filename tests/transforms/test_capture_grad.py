"""Gradients taken inside control-flow bodies with respect to tensors captured from outside.

The derivative inside a body must follow the captured tensor (it once gave
zeros: the body reads an outer tensor through a capture parameter, and the
reverse pass looked for the outer tensor itself). Each case is one program
built in one graph and checked from one run against the same program in jax.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp

W = np.array([0.7, -1.3], np.float32)
XS = np.array([[1.0, 2.0], [3.0, -4.0], [0.5, 0.25]], np.float32)


def _inner(np_like):
    """d/dw of sum(x * sin(w) * w): a loss whose gradient depends on x and w."""
    return lambda x, w: np_like.sum(x * np_like.sin(w) * w)


def _programs(lib, grad, control):
    """The same programs in both libraries: (name -> fn(w, xs)); ``control`` spells lax-like ops."""
    loss = _inner(lib)
    cmap, scan, cond, switch, fori, while_loop = control

    def per_x(w, xs):
        return cmap(lambda x: grad(lambda v: loss(x, v))(w), xs)

    def scanned(w, xs):
        return scan(lambda c, x: (c + grad(lambda v: loss(x, v))(w), c), lib.zeros_like(w), xs)

    def in_cond(w, xs):
        return cond(lib.sum(xs) > 0, lambda a: grad(lambda v: loss(a, v))(w), lambda a: -w, xs[0])

    def in_switch(w, xs):
        fns = [lambda a: a, lambda a: grad(lambda v: loss(a, v) * 2.0)(w), lambda a: w]
        return switch(1, fns, xs[1])

    def in_fori(w, xs):
        return fori(0, 3, lambda i, c: c + grad(lambda v: loss(c, v))(w), xs[0])

    def in_while(w, xs):
        def body(state):
            i, c = state
            return i + 1, c + 0.1 * grad(lambda v: loss(c, v))(w)

        return while_loop(lambda s: s[0] < 3, body, (0, xs[0]))[1]

    def nested(w, xs):  # a map inside a map, the gradient two bodies deep
        return cmap(lambda x: cmap(lambda y: grad(lambda v: loss(x * y, v))(w), xs), xs)

    def nested_cond_scan(w, xs):
        def step(c, x):
            g = cond(x[0] > 0, lambda a: grad(lambda v: loss(a, v * c))(w), lambda a: a, x)
            return c + 0.01 * lib.sum(g), g

        return scan(step, lib.sum(w) * 0 + 1, xs)

    def grad_of_outer(w, xs):  # second order: the outer gradient flows into the body's captures
        return grad(lambda u: lib.sum(cmap(lambda x: grad(lambda v: loss(x, v * u))(w), xs)))(w)

    return {
        "map": per_x,
        "scan": scanned,
        "cond": in_cond,
        "switch": in_switch,
        "fori_loop": in_fori,
        "while_loop": in_while,
        "map_map": nested,
        "scan_cond": nested_cond_scan,
        "grad_of_map": grad_of_outer,
    }


def _sg_while(cond_fun, body_fun, init):
    return sg.while_loop(cond_fun, body_fun, init, max_steps=5)


SG_CONTROL = (sg.map, sg.scan, sg.cond, sg.switch, sg.fori_loop, _sg_while)
JAX_CONTROL = (jax.lax.map, jax.lax.scan, jax.lax.cond, jax.lax.switch, jax.lax.fori_loop, jax.lax.while_loop)


def test_grads_of_captured_tensors_match_jax():
    ours = _programs(snp, sg.grad, SG_CONTROL)
    theirs = _programs(jnp, jax.grad, JAX_CONTROL)
    g = sg.Graph("captures")
    with g:
        w = sg.placeholder((2,), sg.float32, name="w")
        xs = sg.placeholder((3, 2), sg.float32, name="xs")
        fetches = {name: fn(w, xs) for name, fn in ours.items()}
    with sg.Session(g) as sess:
        got = sess.run(fetches, {w: W, xs: XS})
    for name, fn in theirs.items():
        want = fn(jnp.asarray(W), jnp.asarray(XS))
        for a, b in zip(jax.tree_util.tree_leaves(got[name]), jax.tree_util.tree_leaves(want)):
            np.testing.assert_allclose(a, np.asarray(b), rtol=2e-5, atol=1e-5, err_msg=name)


def test_closed_over_primal_is_a_constant_as_in_jax():
    """grad(lambda v: v * w)(w) differentiates only through v: the closed-over w is a constant."""
    g = sg.Graph("closure")
    with g:
        w = sg.placeholder((2,), sg.float32, name="w")
        closed = sg.grad(lambda v: snp.sum(v * w))(w)
        second = sg.grad(lambda v: snp.sum(sg.grad(lambda u: snp.sum(u * v * w))(v)))(w)
        tf1 = sg.gradients(snp.sum(w * w), [w])[0]  # TF1's gradients: every path
    with sg.Session(g) as sess:
        got = sess.run([closed, second, tf1], {w: W})
    want_closed = jax.grad(lambda v: jnp.sum(v * W))(W)
    want_second = jax.grad(lambda v: jnp.sum(jax.grad(lambda u: jnp.sum(u * v * W))(v)))(W)
    np.testing.assert_allclose(got[0], want_closed)
    np.testing.assert_allclose(got[1], want_second)
    np.testing.assert_allclose(got[2], 2 * W)


def test_tf1_gradients_inside_a_body_follow_captures():
    g = sg.Graph("tf1_body")
    with g:
        w = sg.placeholder((2,), sg.float32, name="w")
        xs = sg.placeholder((3, 2), sg.float32, name="xs")
        per_x = sg.map(lambda x: sg.gradients(snp.sum(x * w * w), [w])[0], xs)
    with sg.Session(g) as sess:
        got = sess.run(per_x, {w: W, xs: XS})
    np.testing.assert_allclose(got, 2 * XS * W, rtol=1e-6)
