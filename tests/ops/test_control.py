"""Control flow (ops/control.py, ops/control_api.py) against plain Python/numpy loops."""

from __future__ import annotations

import inspect
import shutil

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

FILE = "test_control.py"


def _np_scan(f, carry, xs, reverse=False):
    ys = [None] * len(xs)
    order = range(len(xs) - 1, -1, -1) if reverse else range(len(xs))
    for t in order:
        carry, ys[t] = f(carry, xs[t])
    return carry, np.stack(ys)


def _constructs(x, m, xs, i, n):
    w = snp.sum(x) * 0.5  # captured by several bodies
    out = {}
    out["cond_t"] = sg.cond(snp.sum(x) > 0, lambda v: v * w, lambda v: -v, x)
    out["cond_f"] = sg.cond(snp.sum(x) < 0, lambda v: v * w, lambda v: -v, x)
    out["cond_nest"] = sg.cond(
        True, lambda a: {"s": a["p"] + a["q"][0], "t": a["q"][1]}, lambda a: {"s": a["p"], "t": a["p"]},
        {"p": x, "q": (x * 2.0, x * 3.0)},
    )  # fmt: skip
    branches = [lambda v: v + 1.0, lambda v: v * w, lambda v: snp.sin(v)]
    out["switch"] = [sg.switch(k, branches, x) for k in (-3, 1, 7)]
    out["switch_t"] = sg.switch(i, branches, x)
    out["while"] = sg.while_loop(lambda s: s[0] < 100.0, lambda s: (s[0] * 2.0, s[1] + 1), (w + 1.0, 0))
    out["while_max"] = sg.while_loop(lambda s: s < 100.0, lambda s: s * 2.0, sg.constant(1.0), max_steps=3)
    out["fori"] = sg.fori_loop(0, 10, lambda k, a: a + k * w, 0.0)
    out["fori_t"] = sg.fori_loop(2, n, lambda k, a: a * 2.0 + k.astype(np.float32), x)

    def cell(h, xt):
        h = snp.tanh(h["h"] @ m + xt[0] * xt[1])
        return {"h": h}, (h * w, snp.sum(h))

    out["scan"] = sg.scan(cell, {"h": x}, (xs, xs * 0.5))
    out["scan_rev"] = sg.scan(cell, {"h": x}, (xs, xs * 0.5), reverse=True, unroll=2)
    out["scan_len"] = sg.scan(lambda c, _: (c + 1.0, c * w), 0.0, None, length=4)
    out["map"] = sg.map(lambda r: snp.sum(r * r), xs)

    def outer_body(k, acc):  # scan inside cond inside fori_loop
        def inner(v):
            return sg.scan(lambda c, r: (c + r * v, c), snp.zeros(3), xs)[0]

        return acc + sg.cond(k % 2 == 0, inner, lambda v: v * w, acc)

    out["nested"] = sg.fori_loop(0, 3, outer_body, x)
    return out


def _reference(x, m, xs, i, n):
    w = x.sum() * 0.5
    ref = {"cond_t": x * w if x.sum() > 0 else -x, "cond_f": x * w if x.sum() < 0 else -x}
    ref["cond_nest"] = {"s": x + 2 * x, "t": 3 * x}
    branches = [lambda v: v + 1.0, lambda v: v * w, np.sin]
    ref["switch"] = [branches[min(max(k, 0), 2)](x) for k in (-3, 1, 7)]
    ref["switch_t"] = branches[min(max(i, 0), 2)](x)
    s = (w + 1.0, 0)
    while s[0] < 100.0:
        s = (s[0] * 2.0, s[1] + 1)
    ref["while"] = s
    ref["while_max"] = 8.0
    ref["fori"] = sum(k * w for k in range(10))
    acc = x
    for k in range(2, n):
        acc = acc * 2.0 + k
    ref["fori_t"] = acc

    def cell(h, xt):
        h = np.tanh(h @ m + xt[0] * xt[1])
        return h, np.concatenate([h * w, [h.sum()]])

    for key, rev in (("scan", False), ("scan_rev", True)):
        h, ys = _np_scan(cell, x, list(zip(xs, xs * 0.5)), rev)
        ref[key] = ({"h": h}, (ys[:, :3], ys[:, 3]))
    ref["scan_len"] = (4.0, np.array([0.0, 1.0, 2.0, 3.0]) * w)
    ref["map"] = (xs * xs).sum(1)
    acc = x
    for k in range(3):
        acc = acc + (
            _np_scan(lambda c, r, v=acc: (c + r * v, c), np.zeros(3), xs)[0] if k % 2 == 0 else acc * w
        )
    ref["nested"] = acc
    return ref


def test_constructs_match_python_loops(run, rng):
    x = rng.standard_normal(3).astype(np.float32)
    m = (rng.standard_normal((3, 3)) * 0.5).astype(np.float32)
    xs = rng.standard_normal((5, 3)).astype(np.float32)
    got = run(_constructs, x, m, xs, np.int32(2), np.int32(6))
    want = _reference(x, m, xs, 2, 6)
    for key in want:
        np.testing.assert_allclose(
            np.concatenate([np.ravel(a) for a in _leaves(got[key])]),
            np.concatenate([np.ravel(np.asarray(a, np.float64)) for a in _leaves(want[key])]),
            rtol=2e-5, atol=2e-5, err_msg=key,
        )  # fmt: skip


def _leaves(nest):
    if isinstance(nest, dict):
        return [leaf for v in nest.values() for leaf in _leaves(v)]
    if isinstance(nest, list | tuple):
        return [leaf for v in nest for leaf in _leaves(v)]
    return [nest]


def test_symbolic_batch(run, rng):
    x = rng.standard_normal((4, 2)).astype(np.float32)

    def fn(x):
        carry, ys = sg.scan(lambda c, r: (c + r, c * 2.0), snp.zeros(2), x)
        return carry, ys, sg.cond(True, lambda v: v + 1.0, lambda v: v, x)

    carry, ys, y = run(fn, x, symbolic={0: ("batch", 2)})
    np.testing.assert_allclose(carry, x.sum(0), rtol=1e-5)
    np.testing.assert_allclose(ys, 2 * np.concatenate([np.zeros((1, 2)), np.cumsum(x, 0)[:-1]]), rtol=1e-5)
    np.testing.assert_allclose(y, x + 1.0)


def test_type_errors_name_the_body_and_line():
    g = sg.Graph("g")
    with g:
        x = sg.placeholder((3,), sg.float32)
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            sg.cond(True, lambda v: v, lambda v: snp.sum(v), x)
        msg = str(e.value)
        assert "branch 0 (false_fn)" in msg and "branch 1 (true_fn)" in msg and "f32[3]" in msg, msg
        assert f"{FILE}:{line}" in msg, msg

        def grow(s):
            return s.astype(np.float64)

        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            sg.while_loop(lambda s: True, grow, x)
        msg = str(e.value)
        assert "while_loop body grow" in msg and "f64[3]" in msg and f"{FILE}:{line}" in msg, msg

        def bad_cell(c, r):
            return snp.stack([c, c]), r

        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            sg.scan(bad_cell, x, snp.zeros((2, 3)))
        msg = str(e.value)
        assert "scan body bad_cell" in msg and f"{FILE}:{line}" in msg, msg
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            sg.switch(0, [lambda v: (v, v), lambda v: v], x)
        assert "same structure" in str(e.value) and f"{FILE}:{line}" in str(e.value)


def test_json_round_trip_and_printing(rng):
    g = sg.Graph("g")
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        w = sg.constant(np.float32(2.0), name="w")
        y = sg.cond(snp.sum(x) > 0, lambda v: v * w, lambda v: -v, x)
        z = sg.fori_loop(0, 3, lambda k, a: a + y, x)
    listing = str(g)
    assert "cond[branches=(@false_fn, @true_fn)](convert, x, w) : f32[3]" in listing
    assert "\n    function true_fn(v: f32[3]) -> (f32[3]) {\n" in listing
    assert (
        "scan[body=@body_fun, length_shape=(3,), reverse=False, num_carry=2, remat=False, unroll=1]"
        in listing
    )
    g2 = sg.Graph.from_json(g.to_json())
    assert str(g2) == listing
    xv = rng.standard_normal(3).astype(np.float32)
    got = sg.Session(g2).run([g2.node(y.node.name).output, g2.node(z.node.name).outputs[1]], {"x": xv})
    want = xv * 2 if xv.sum() > 0 else -xv
    np.testing.assert_allclose(got[0], want, rtol=1e-6)
    np.testing.assert_allclose(got[1], xv + 3 * want, rtol=1e-5)
    if shutil.which("dot"):
        assert "holds @false_fn, @true_fn" in sg.draw(g).source


def test_scan_unroll_repeats_the_body_per_trip(rng):
    """unroll=k emits k copies of the body inside the loop and the leftover steps after it."""
    g = sg.Graph()
    with g:
        xs = sg.placeholder((7, 3), sg.float32, name="xs")
        outs = [  # (unroll, tanh ops in the program, the scan's outputs)
            (k, n, sg.scan(lambda c, x: (snp.tanh(c + x), c), snp.zeros(3), xs, unroll=k))
            for k, n in ((1, 1), (3, 3 + 1), (True, 7))
        ]  # fmt: skip
    data = rng.normal(size=(7, 3)).astype(np.float32)
    h, hs = np.zeros(3, np.float32), []
    for x in data:
        hs.append(h)
        h = np.tanh(h + x)
    with sg.Session(g) as sess:
        for k, n_tanh, (carry, ys) in outs:
            got_c, got_ys = sess.run([carry, ys], {xs: data})
            np.testing.assert_allclose(got_c, h, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(got_ys, np.stack(hs), rtol=1e-5, atol=1e-6)
            text = sess.lower(carry, {xs: data})
            assert text.count("stablehlo.tanh") == n_tanh, k
    with g, pytest.raises(sg.GraphError, match="unroll"):
        sg.scan(lambda c, x: (c, c), snp.zeros(3), xs, unroll=0)
