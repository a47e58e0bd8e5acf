"""sg.function: build, print, call (inlining with symbolic specialization), captures."""

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp


def loss(w, x, y):
    return snp.mean((snp.tanh(x @ w) - y) ** 2)


TYPES = [
    sg.TensorType((3, 2), sg.float32),
    sg.TensorType(("batch", 3), sg.float32),
    sg.TensorType(("batch", 2), sg.float32),
]


def test_function_records_params_and_results():
    f = sg.function(loss, TYPES)
    assert [p.name for p in f.params] == ["w", "x", "y"]
    assert f.in_types == tuple(TYPES)
    assert f.out_types == (sg.TensorType((), sg.float32),)
    text = str(f)
    assert text.startswith("function loss(w: f32[3,2], x: f32[batch,3], y: f32[batch,2])")
    assert "return" in text.splitlines()[-2]


def test_calling_a_function_inlines_it_and_specializes_symbols():
    f = sg.function(loss, TYPES)
    rng = np.random.default_rng(1)
    w, x, y = (rng.normal(size=s).astype(np.float32) for s in [(3, 2), (5, 3), (5, 2)])
    g = sg.Graph()
    with g:
        xs = sg.placeholder((5, 3), name="x")
        out = f(sg.constant(w), xs, y)  # numpy y becomes a constant
    assert out.type == sg.TensorType((), sg.float32)
    assert any(n.name.startswith("loss/") for n in g.nodes)
    with sg.Session(g) as sess:
        got = sess.run(out, {xs: x})
    np.testing.assert_allclose(got, np.mean((np.tanh(x @ w) - y) ** 2), rtol=1e-5)


def test_function_returns_nests_and_checks_arguments():
    f = sg.function(lambda a, b: {"sum": a + b, "pair": (a, b * 2)}, [sg.TensorType((2,), sg.float32)] * 2)
    g = sg.Graph()
    with g:
        out = f(np.ones(2, np.float32), np.full(2, 3, np.float32))
        with pytest.raises(sg.GraphError, match="takes 2 arguments"):
            f(np.ones(2, np.float32))
        with pytest.raises(sg.GraphError, match="wants f32\\[2\\], got i32\\[3\\]"):
            f(sg.constant(np.ones(3, np.int32)), sg.constant(np.ones(3, np.int32)))
    with sg.Session(g) as sess:
        res = sess.run(out)
    np.testing.assert_array_equal(res["sum"], [4, 4])
    np.testing.assert_array_equal(res["pair"][1], [6, 6])


def test_outer_tensors_become_captures():
    g = sg.Graph()
    with g:
        scale = sg.placeholder((), sg.float32, name="scale")
        f = sg.function(lambda v: v * scale, [sg.TensorType((3,), sg.float32)])
        assert f.captures == (scale,)
        out = f(sg.constant(np.arange(3, dtype=np.float32)))
    with sg.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(out, {scale: 2.0}), [0, 2, 4])


def test_function_from_numpy_example_types():
    f = sg.function(lambda a: snp.exp(a), [np.zeros((2, 2), np.float64)])
    assert f.in_types == (sg.TensorType((2, 2), sg.float64),)
    assert f.out_types[0].dtype is sg.float64


def test_bodies_keep_their_own_symbols_when_inlined_where_the_graph_binds_the_same_name():
    # the map body captures `a`, whose type says "n"; the graph binds its own "n" to another size
    f = sg.function(lambda a: sg.map(lambda r: r * snp.sum(a), a), [sg.TensorType(("n",), sg.float32)])
    g = sg.Graph("shadow")
    with g:
        p = sg.placeholder(("n",), sg.float32, name="p")
        q = sg.placeholder((3,), sg.float32, name="q")
        r = f(q)
        total = snp.sum(p)
    with sg.Session(g) as sess:
        got, s = sess.run([r, total], {p: np.ones(5, np.float32), q: np.arange(3, dtype=np.float32)})
    np.testing.assert_allclose(got, np.arange(3) * 3.0)
    assert s == 5


def test_bodies_on_expression_dims_lower_with_the_graphs_bindings():
    # found by tests/test_random_programs.py: a cond over x[::2] whose rows are (batch + 1) // 2
    g = sg.Graph("expression_body")
    with g:
        x = sg.placeholder(("batch", 1), sg.float32, name="x")
        y = sg.cond(snp.sum(x) > 0, lambda a: a * 2.0, snp.sin, x[::2])
    with sg.Session(g) as sess:
        xv = np.array([[0.5], [-0.2], [0.25]], np.float32)
        np.testing.assert_allclose(sess.run(y, {x: xv}), xv[::2] * 2.0)
