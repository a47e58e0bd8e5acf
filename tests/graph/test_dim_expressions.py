"""Symbolic dims as expressions (graph/dims.py, graph/poly.py) from building to running:
shapes of slices, joins, pads and reshapes; sizes as values; feeds that solve the symbols;
errors at build time and at run time; printing and JSON."""

from __future__ import annotations

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

SLICES = {
    # name: (index, expected dim 0)
    "tail": (np.s_[1:], "batch - 1"),
    "head": (np.s_[:-1], "batch - 1"),
    "even": (np.s_[::2], "(batch + 1) // 2"),
    "odd": (np.s_[1::2], "batch // 2"),
    "window": (np.s_[2:5], 3),
    "last3": (np.s_[-3:], 3),
    "thirds": (np.s_[1::3], "(batch + 1) // 3"),
    "back2": (np.s_[::-2], "(batch + 1) // 2"),
    "back": (np.s_[-2::-1], "batch - 1"),
    "inner": (np.s_[1:-1, 1:], "batch - 2"),
    "empty": (np.s_[4:2], 0),
}


def test_slices_of_a_symbolic_dim_have_expression_shapes_and_values():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 4), sg.float32, name="x")
        out = {k: x[index] for k, (index, _) in SLICES.items()}
        out["grad"] = sg.grad(lambda v: (v[1::2] ** 2).sum() + v[:-1].sum())(x)
    for k, (_, dim) in SLICES.items():
        assert out[k].shape[0] == dim, k
    with sg.Session(g) as sess:
        for batch in (7, 10):  # two programs: the Session must not reuse the first sizes
            xv = np.arange(batch * 4, dtype=np.float32).reshape(batch, 4)
            got = sess.run(out, {x: xv})
            for k, (index, _) in SLICES.items():
                np.testing.assert_array_equal(got[k], xv[index], err_msg=f"{k} at batch {batch}")
            want = np.zeros_like(xv)
            want[1::2] += 2 * xv[1::2]
            want[:-1] += 1
            np.testing.assert_allclose(got["grad"], want)


def test_joins_pads_and_reshapes_compute_with_dims():
    g = sg.Graph()
    with g:
        a = sg.placeholder(("a", 3), sg.float32, name="a")
        b = sg.placeholder(("b", 3), sg.float32, name="b")
        out = dict(
            concat=snp.concatenate([a, b]),
            pad=snp.pad(a, ((1, 2), (0, 1))),
            flat=snp.reshape(a[1:], -1),
            back=snp.reshape(snp.reshape(a[1:], -1), (a.shape[0] - 1, -1)),
            stacked=snp.concatenate([a[1:], b[::2]], axis=0),
        )
        grads = sg.grad(lambda u, v: (snp.concatenate([u, 2 * v]) ** 2).sum(), argnums=(0, 1))(a, b)
    shapes = {k: t.shape for k, t in out.items()}
    assert shapes == dict(
        concat=("a + b", 3),
        pad=("a + 3", 4),
        flat=("3*a - 3",),
        back=("a - 1", 3),
        stacked=("(b + 1) // 2 + a - 1", 3),
    )
    with sg.Session(g) as sess:
        for na, nb in ((4, 2), (6, 5)):
            av = np.arange(na * 3, dtype=np.float32).reshape(na, 3)
            bv = -np.arange(nb * 3, dtype=np.float32).reshape(nb, 3)
            got, (ga, gb) = sess.run([out, grads], {a: av, b: bv})
            np.testing.assert_array_equal(got["concat"], np.concatenate([av, bv]))
            np.testing.assert_array_equal(got["pad"], np.pad(av, ((1, 2), (0, 1))))
            np.testing.assert_array_equal(got["flat"], av[1:].reshape(-1))
            np.testing.assert_array_equal(got["back"], av[1:])
            np.testing.assert_array_equal(got["stacked"], np.concatenate([av[1:], bv[::2]]))
            np.testing.assert_allclose(ga, 2 * av)
            np.testing.assert_allclose(gb, 8 * bv)


def test_sizes_work_as_values():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        loss = (x**2).sum()
        n = x.shape[0]
        out = dict(
            mean=loss / x.shape[0],
            scaled=n * 0.5,
            half=n / 2,
            rows=snp.arange(n),
            odd_rows=snp.arange(1, n, 2),
            zeros=snp.zeros((n, 3)),
            shifted=snp.zeros((n - 1, 3)) + n,
            size=snp.asarray(x.size),
            tail_mean=x[1:].mean(),
            as_list=snp.asarray([n, 3, n - 1]),
        )
    assert out["rows"].shape == ("batch",) and out["odd_rows"].shape == ("batch // 2",)
    assert out["zeros"].shape == ("batch", 3) and out["shifted"].shape == ("batch - 1", 3)
    assert out["mean"].dtype is sg.float32 and out["rows"].dtype is sg.int32
    with sg.Session(g) as sess:
        for batch in (5, 8):
            xv = np.random.default_rng(batch).normal(size=(batch, 3)).astype(np.float32)
            got = sess.run(out, {x: xv})
            np.testing.assert_allclose(got["mean"], (xv**2).sum() / batch, rtol=1e-6)
            assert got["scaled"] == batch * 0.5 and got["half"] == batch / 2 and got["size"] == 3 * batch
            np.testing.assert_array_equal(got["rows"], np.arange(batch))
            np.testing.assert_array_equal(got["odd_rows"], np.arange(1, batch, 2))
            np.testing.assert_array_equal(got["zeros"], np.zeros((batch, 3)))
            np.testing.assert_array_equal(got["shifted"], np.full((batch - 1, 3), batch))
            np.testing.assert_allclose(got["tail_mean"], xv[1:].mean(), rtol=1e-6)
            np.testing.assert_array_equal(got["as_list"], [batch, 3, batch - 1])


def test_updates_and_gathers_on_partial_symbolic_slices():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        out = dict(
            set_tail=x.at[1:].set(7.0),
            add_back=x.at[::-2].add(1.0),
            set_last2=x.at[-2:, 1:].set(0.0),
            mul_odd=x.at[1::2].multiply(3.0),
            grad_rows=sg.grad(lambda v: (v[np.array([0, 2, -1])] ** 2).sum())(x),
        )
    with sg.Session(g) as sess:
        for batch in (4, 7):
            xv = np.arange(batch * 3, dtype=np.float32).reshape(batch, 3)
            got = sess.run(out, {x: xv})
            want = {k: xv.copy() for k in out}
            want["set_tail"][1:] = 7
            want["add_back"][::-2] += 1
            want["set_last2"][-2:, 1:] = 0
            want["mul_odd"][1::2] *= 3
            want["grad_rows"] = np.zeros_like(xv)
            np.add.at(want["grad_rows"], [0, 2, batch - 1], 2 * xv[[0, 2, -1]])
            for k in out:
                np.testing.assert_array_equal(got[k], want[k], err_msg=f"{k} at batch {batch}")


def test_printing_and_json_keep_the_expressions():
    g = sg.Graph("exprs")
    with g:
        x = sg.placeholder(("batch", 4), sg.float32, name="x")
        y = snp.concatenate([x[1:], x[::2]]).sum() / x.shape[0]
    text = str(g)
    assert "f32[batch - 1,4]" in text and "f32[(batch + 1) // 2,4]" in text
    assert "f32[(batch + 1) // 2 + batch - 1,4]" in text
    assert "dim_value[dim=batch, dtype=float32]()" in text
    g2 = sg.Graph.from_json(g.to_json())
    assert str(g2) == text
    xv = np.arange(20, dtype=np.float32).reshape(5, 4)
    with sg.Session(g2) as sess:
        got = sess.run(y.name, {"x": xv})
    np.testing.assert_allclose(got, np.concatenate([xv[1:], xv[::2]]).sum() / 5)


def test_a_mismatch_the_dims_decide_is_a_graph_error_at_build_time():
    with sg.Graph():
        x = sg.placeholder(("batch",), sg.float32)
        with pytest.raises(sg.GraphError) as e:
            x + x[1:]  # mismatch
        with pytest.raises(sg.GraphError) as e_reshape:
            snp.reshape(x[1:], (x.shape[0], -1))  # reshape
    assert f"test_dim_expressions.py:{_line_of('# mismatch')}" in str(e.value)
    assert "(batch,) and (batch - 1,)" in str(e.value)
    assert f"test_dim_expressions.py:{_line_of('# reshape')}" in str(e_reshape.value)


def test_the_session_solves_symbols_from_the_feeds():
    g = sg.Graph()
    with g:
        z = sg.placeholder(("2*n + 1",), sg.float32, name="z")
        w = sg.placeholder(("n", "m - 1"), sg.float32, name="w")
        rows = snp.arange(z.shape[0] // 2)  # n
        total = w.sum() + z.sum()
    with sg.Session(g) as sess:
        got_rows, got_total = sess.run([rows, total], {z: np.ones(7), w: np.ones((3, 4))})
    np.testing.assert_array_equal(got_rows, np.arange(3))
    assert got_total == 19


def test_inconsistent_feeds_name_the_symbol_and_placeholders():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch",), sg.float32, name="x")
        y = sg.placeholder(("batch",), sg.float32, name="y")
        z = sg.placeholder(("2*n",), sg.float32, name="z")
        w = sg.placeholder(("n + 1",), sg.float32, name="w")
        q = sg.placeholder(("a*b",), sg.float32, name="q")
    cases = [
        ({x: np.ones(4), y: np.ones(5)}, ["symbol batch", "x", "(4,)", "y", "(5,)"]),
        ({z: np.ones(5)}, ["feed for z has shape (5,)", "2*n", "cannot be 5 for any size n"]),
        (
            {z: np.ones(4), w: np.ones(4)},
            ["feed for w has shape (4,)", "n + 1 is 4", "n = 2 from the feed for z"],
        ),
        ({q: np.ones(6)}, ["a, b", "q", "could not be determined"]),
    ]
    with sg.Session(g) as sess:
        for feeds, parts in cases:
            with pytest.raises(sg.FeedError) as e:
                sess.run(next(iter(feeds)), feeds)
            for part in parts:
                assert part in str(e.value), (part, str(e.value))


def test_feeds_too_small_for_the_assumed_bounds_are_errors_at_the_users_line():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch",), sg.float32, name="x")
        window = x[2:5]  # window
        tail = x[3:]  # tail
    with sg.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(window, {x: np.arange(6.0)}), [2, 3, 4])
        with pytest.raises(sg.GraphError) as e_window:
            sess.run(window, {x: np.arange(4.0)})
        with pytest.raises(sg.GraphError) as e_tail:
            sess.run(tail, {x: np.arange(2.0)})
    assert f"test_dim_expressions.py:{_line_of('# window')}" in str(e_window.value)
    assert "limits (5,) for shape (4,) with batch = 4" in str(e_window.value)
    assert f"test_dim_expressions.py:{_line_of('# tail')}" in str(e_tail.value)
    assert "dim batch - 3 of f32[batch - 3] is -1 with batch = 2" in str(e_tail.value)


def test_functions_with_expression_params_specialize_when_called():
    double_tail = sg.function(lambda v: v[1:] * 2, [sg.TensorType(("n", 3), sg.float32)])
    unpair = sg.function(lambda v: v.reshape(-1)[2:], [sg.TensorType(("2*m", 3), sg.float32)])
    assert unpair.out_types[0].shape == ("6*m - 2",)
    g = sg.Graph()
    with g:
        a = sg.placeholder((5, 3), sg.float32, name="a")
        b = sg.placeholder(("2*k + 2", 3), sg.float32, name="b")
        out = [double_tail(a), double_tail(b), unpair(a[1:]), unpair(b)]
        with pytest.raises(sg.GraphError, match="wants f32\\[2\\*m,3\\], got f32\\[5,3\\]"):
            unpair(a)
    assert [t.shape for t in out] == [(4, 3), ("2*k + 1", 3), (10,), ("6*k + 4",)]
    av = np.arange(15, dtype=np.float32).reshape(5, 3)
    bv = np.arange(12, dtype=np.float32).reshape(4, 3)
    with sg.Session(g) as sess:
        got = sess.run(out, {a: av, b: bv})
    for value, want in zip(got, [av[1:] * 2, bv[1:] * 2, av[1:].reshape(-1)[2:], bv.reshape(-1)[2:]]):
        np.testing.assert_array_equal(value, want)


def _line_of(marker: str) -> int:
    lines = open(__file__).read().splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.rstrip().endswith(marker))
