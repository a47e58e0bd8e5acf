"""Gradients through scan, static fori_loop and bounded while_loop (ops/primitives/control/)."""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.graph.function import extract
from stablegraph.test_util import check_grads

FILE = "test_scan_grad.py"


def _scans(h0, xs, w):
    """scan forwards and reversed (nests, an integer carry, captures), and a length-only scan."""

    def cell(c, x):
        h = snp.tanh(c["h"] * w + x[0] - x[1] * 0.5)
        return {"h": h, "k": c["k"] + 1}, (snp.sin(h) * w, c["k"])

    (c1, (y1, _)) = sg.scan(cell, {"h": h0, "k": 0}, (xs, xs * xs), unroll=3)  # 3 per trip + 1 after
    (c2, (y2, _)) = sg.scan(cell, {"h": h0, "k": 0}, (xs, xs), reverse=True)
    c3, y3 = sg.scan(lambda c, _: (c * w + 0.1, snp.exp(c)), h0, None, length=3, unroll=True)
    return c1["h"], y1, c2["h"], y2, c3, y3


def test_scan_grads(rng):
    check_grads(_scans, [rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=3) * 0.5], order=2)


def test_scan_one_output_used(rng):
    def f(h0, xs):
        return sg.scan(lambda c, x: (c * x, snp.cos(c)), h0, xs)[1]  # the final carry gets no cotangent

    check_grads(f, [rng.normal(size=2), rng.normal(size=(3, 2))], order=2)


def test_fori_loop_static_bounds(rng):
    def f(x, w):
        return sg.fori_loop(1, 4, lambda i, a: snp.sin(a) * w + i.astype(np.float64), x)

    check_grads(f, [rng.normal(size=3), rng.normal(size=3)], order=2)


@pytest.mark.parametrize("limit", [100.0, 3.0])  # runs out of steps / stops early (after 2 of 5 steps)
def test_while_loop_max_steps(limit):
    def f(x, w):
        return sg.while_loop(lambda s: s[1] < limit, lambda s: (s[0] * w, s[1] + 1.0), (x, 1.0), max_steps=5)[
            0
        ]

    check_grads(f, [np.array([0.3, -0.7]), np.array([1.1, 0.9])], order=2)


def test_while_loop_max_steps_value(run):
    def fn(x):
        s = sg.while_loop(lambda s: s < 10.0, lambda s: s * 2.0, x, max_steps=50)
        return s, sg.gradients(s, [x])[0]

    s, g = run(fn, np.float32(1.5))  # 1.5 -> 3 -> 6 -> 12: three doublings
    np.testing.assert_allclose([s, g], [12.0, 8.0])


def test_symbolic_length(run, rng):
    xs = rng.standard_normal((5, 2)).astype(np.float32)

    def fn(xs):
        c, ys = sg.scan(lambda c, x: (c * x + 1.0, c), snp.ones(2), xs)
        return sg.gradients(snp.sum(c) + snp.sum(ys), [xs])[0]

    got = run(fn, xs, symbolic={0: ("steps", 2)})
    want = jax.grad(lambda xs: _jax_scan_loss(xs))(xs)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def _jax_scan_loss(xs):
    c, ys = jax.lax.scan(lambda c, x: (c * x + 1.0, c), jnp.ones(2, xs.dtype), xs)
    return jnp.sum(c) + jnp.sum(ys)


def test_rnn_grads_match_jax(rng, jax_x64):
    hidden, inp, steps = 8, 4, 5
    args = [
        rng.normal(size=(inp, hidden)) * 0.5,
        rng.normal(size=(hidden, hidden)) * 0.5,
        rng.normal(size=hidden) * 0.1,
        rng.normal(size=(steps, inp)),
        rng.normal(size=hidden),
    ]

    def loss(np_, wx, wh, b, xs, h0):
        def cell(h, x):
            h = np_.tanh(x @ wx + h @ wh + b)
            return h, np_.sum(h * h)

        h, ys = (sg.scan if np_ is snp else jax.lax.scan)(cell, h0, xs)
        return np_.sum(h) + np_.sum(ys)

    g = sg.Graph("rnn")
    with g:
        phs = [sg.placeholder(a.shape, sg.float64) for a in args]
        grads = sg.gradients(loss(snp, *phs), phs)
    got = sg.Session(g).run(grads, dict(zip(phs, args)))
    want = jax.grad(lambda *a: loss(jnp, *a), argnums=(0, 1, 2, 3, 4))(*args)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_plain_while_loop_points_to_max_steps():
    g = sg.Graph("g")
    with g:
        x = sg.placeholder((), sg.float32)
        line = inspect.currentframe().f_lineno + 1
        y = sg.fori_loop(0, sg.constant(3), lambda i, a: a * 2.0, x)  # a Tensor bound: a plain while loop
        with pytest.raises(sg.GraphError) as e:
            sg.gradients(y, [x])
    msg = str(e.value)
    assert "while" in msg and "max_steps=" in msg and f"{FILE}:{line}" in msg, msg


def _residuals(nodes) -> list[list]:
    """For each vjp's forward scan among ``nodes`` (its body extends another scan's body with more
    results: the per-step values the backward reads, stacked), those extra results."""
    scans = [n.attrs.body for n in nodes if n.op.name == "scan"]
    return [
        list(big.results[len(small.results) :])
        for big in scans
        for small in scans
        if big is not small and big.extends(small) and len(big.results) > len(small.results)
    ]


def test_checkpoint_saves_only_the_carry(rng):
    def f(h0, xs, w):
        cell = sg.checkpoint(lambda c, x: (snp.tanh(c * w + x), snp.sin(c)))
        return sg.scan(cell, h0, xs)

    check_grads(f, [rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=3)], order=2)
    g = sg.Graph("g")
    with g:
        h0, xs, w = sg.placeholder((3,), sg.float64), sg.placeholder((4, 3), sg.float64), sg.placeholder((3,))
        grads = sg.gradients(snp.sum(sg.scan(lambda c, x: (snp.tanh(c * w + x), c), h0, xs)[1]), [w])
        lazy = sg.gradients(
            snp.sum(sg.scan(sg.checkpoint(lambda c, x: (snp.tanh(c * w + x), c)), h0, xs)[1]), [w]
        )
    ops = [{t.node.op.name for t in extra} for extra in _residuals(g.nodes)]
    assert len(ops) == 2 and "tanh" in ops[0] and ops[1] == {"parameter"}, (
        ops
    )  # remat: the carry entering each step
    assert grads and lazy


def test_forward_scan_runs_once(rng):
    g = sg.Graph("g")
    with g:
        h0, xs = sg.placeholder((3,), sg.float32), sg.placeholder((4, 3), sg.float32)
        _, hs = sg.scan(lambda c, x: (snp.tanh(c + x), c), h0, xs)
        grads = sg.gradients(snp.sum(hs * hs), [h0, xs])
    program = sg.simplify(extract(g, grads, [h0, xs]))
    scans = [n for n in program.graph.nodes if n.op.name == "scan"]
    # one forward scan (merged with the vjp's copy that also stacks residuals), one backward scan
    assert len(scans) == 2 and len(scans[0].attrs.body.results) > 2, scans
