"""Forward mode through scan, cond and while by their own jvp rules, against jax.jvp.

Each rule builds one loop (or cond) carrying the tangents beside the values:
no vjp, no residual scan, no backward scan. The cases cover carries that get
a tangent only through the body (the rules' fixed point), captured tensors
with tangents, reversed scans, ys, a while of data-dependent length (which
has no reverse mode at all), branches that give a result a tangent in only
one of them, and second orders (jvp of jvp, the Hessian by jacfwd of grad).
All cases are built into one graph and run once.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.graph import extract

pytestmark = pytest.mark.usefixtures("jax_x64")  # the jax oracle computes in float64 here

R = np.random.default_rng(3)


def scan_fn(xp, scan, reverse=False):
    def fn(c0, xs, w):
        def body(carry, x):
            c, d = carry
            c2 = xp.sin(c * w) + x * c
            return (c2, d * 0.5 + xp.tanh(c)), xp.tanh(c2) * w  # d gets a tangent only through c

        (c, d), ys = scan(body, (c0, xp.zeros_like(c0)), xs, reverse=reverse)
        return c, d, ys

    return fn


def cond_fn(xp, cond):
    def fn(i, x, w):
        return cond(i > 0, lambda v: (v * w, xp.sin(v)), lambda v: (v + 1.0, xp.ones_like(v) * 2.0), x)

    return fn


def while_fn(xp, while_loop):
    def fn(x, w):
        def body(c):
            k, v, acc = c
            return k + 1, xp.sin(v) * w + v, acc + v * v

        out = while_loop(lambda c: (c[0] < 4) & (xp.sum(c[2]) < 50.0), body, (0, x, xp.zeros_like(x)))
        return out[1], out[2]

    return fn


def test_scan_cond_and_while_jvps_match_jax():
    c0, xs, w = R.normal(size=3), R.normal(size=(5, 3)), R.normal(size=3)
    tc0, txs, tw = R.normal(size=3), R.normal(size=(5, 3)), R.normal(size=3)
    x, tx = R.normal(size=3), R.normal(size=3)
    cases = {
        "scan": (scan_fn(snp, sg.scan), scan_fn(jnp, jax.lax.scan), (c0, xs, w), (tc0, txs, tw)),
        "scan_reverse": (scan_fn(snp, sg.scan, True), scan_fn(jnp, jax.lax.scan, True), (c0, xs, w), (tc0, txs, tw)),
        "scan_capture_only": (scan_fn(snp, sg.scan), scan_fn(jnp, jax.lax.scan), (c0, xs, w),
                              (0 * tc0, 0 * txs, tw)),
        "while": (while_fn(snp, sg.while_loop), while_fn(jnp, jax.lax.while_loop), (x, w), (tx, tw)),
    }  # fmt: skip
    g = sg.Graph()
    fetches, wants = [], []
    with g:
        start = len(g.nodes)
        for ours, theirs, primals, tangents in cases.values():
            out, tan = sg.jvp(
                ours, tuple(sg.constant(p) for p in primals), tuple(sg.constant(t) for t in tangents)
            )
            fetches += [*out, *tan]
            j_out, j_tan = jax.jvp(theirs, primals, tangents)
            wants += [*j_out, *j_tan]
        ours, theirs = cond_fn(snp, sg.cond), cond_fn(jnp, jax.lax.cond)
        for i in (-1, 2):  # each branch taken; w's tangent reaches a result only in the first
            out, tan = sg.jvp(lambda v, u, i=i: ours(sg.constant(i), v, u), (sg.constant(x), sg.constant(w)),
                              (sg.constant(tx), sg.constant(tw)))  # fmt: skip
            fetches += [*out, *tan]
            j_out, j_tan = jax.jvp(lambda v, u, i=i: theirs(i, v, u), (x, w), (tx, tw))
            wants += [*j_out, *j_tan]
        emitted = [n.op.name for n in g.nodes[start:]]
    assert "transpose" not in emitted and not any("vjp" in n.name for n in g.nodes[start:]), emitted
    assert emitted.count("scan") == 6 and emitted.count("while") == 2, emitted  # each: the primal, its jvp
    with sg.Session(g) as sess:
        got = sess.run(fetches)
    for k, (a, b) in enumerate(zip(got, wants)):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12, err_msg=str(k))


def test_the_first_loop_drops_out_once_the_jvp_loop_computes_the_values_too():
    """sg.jvp's values and tangents both come from the jvp's loop: simplified, one scan (one while)
    is left, where transposing the vjp left a residual and a backward scan beside the forward one."""
    c0, xs, w = R.normal(size=3), R.normal(size=(5, 3)), R.normal(size=3)
    g = sg.Graph()
    with g:
        args = [sg.constant(a) for a in (c0, xs, w)]
        scan_out = sg.jvp(scan_fn(snp, sg.scan), tuple(args), tuple(args))
        while_out = sg.jvp(while_fn(snp, sg.while_loop), (args[0], args[2]), (args[2], args[0]))
    for outs, op in ((scan_out, "scan"), (while_out, "while")):
        leaves = [t for part in outs for t in part]
        program = sg.simplify(extract(g, leaves))
        assert [n.op.name for n in program.graph.nodes].count(op) == 1, program


def test_second_orders_through_scan_match_jax():
    """jvp of jvp (scan's jvp rule on its own output) and the Hessian as jacfwd of grad (the jvp
    rule on the vjp's backward scan)."""
    xs = R.normal(size=(4, 3))
    v, u = R.normal(size=3), R.normal(size=3)

    def f(xp, scan):
        def fn(c0):
            carry, ys = scan(lambda c, x: (xp.sin(c) * x + c * c * 0.1, c * x), c0, xs)
            return xp.sum(carry) + xp.sum(ys * ys)

        return fn

    ours, theirs = f(snp, sg.scan), f(jnp, jax.lax.scan)
    g = sg.Graph()
    with g:
        c = sg.constant(v)
        jj = sg.jvp(lambda a: sg.jvp(ours, (a,), (sg.constant(u),))[1], (c,), (sg.constant(u),))[1]
        hess = sg.hessian(ours)(c)
    with sg.Session(g) as sess:
        got_jj, got_h = sess.run([jj, hess])
    want_jj = jax.jvp(lambda a: jax.jvp(theirs, (a,), (u,))[1], (v,), (u,))[1]
    np.testing.assert_allclose(got_jj, want_jj, rtol=1e-11)
    np.testing.assert_allclose(got_h, jax.hessian(theirs)(v), rtol=1e-11, atol=1e-12)
