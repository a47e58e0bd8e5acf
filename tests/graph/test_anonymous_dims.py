"""None dims behave as TF1's unknown dims: they broadcast with the dims they meet at build time and are
checked against the feeds (graph/dims.py ``unify``, ops/ensure_shape.py); named symbols stay strict."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.graph.dims import broadcast_dims, is_anonymous, unify


def _here(offset: int = 1) -> str:
    return f"test_anonymous_dims.py:{sys._getframe(1).f_lineno + offset}"


def test_unify_rules():
    d0, d1 = (sg.graph.dims.fresh_symbol() for _ in range(2))
    assert is_anonymous(d0) and not is_anonymous("batch") and not is_anonymous(sg.graph.dims.sub(d0, 1))
    assert unify(d0, d1) == d0 and unify(d1, d0) == d1  # the first of two anonymous dims
    assert unify(d0, 3) == 3 and unify(3, d0) == 3 and unify(d0, "batch") == "batch"
    assert unify("batch", "n") is None and unify("batch", 4) is None and unify(3, 4) is None
    assert unify(d0, sg.graph.dims.sub(d0, 1)) is None  # x + x[1:]: never equal
    assert unify(d0, sg.graph.dims.sub(d1, 1)) == sg.graph.dims.sub(d1, 1)
    assert broadcast_dims([1, d0, d1, 1]) == d0 and broadcast_dims([d0, 1, 5, d1]) == 5
    assert broadcast_dims([d0, "a", "b"]) is None and broadcast_dims([1, 1]) == 1


def test_two_none_batches_broadcast_and_run_as_numpy_with_gradients():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 3, 4)).astype(np.float32)
    g = sg.Graph()
    with g:
        x = sg.placeholder((None, 4), name="x")
        y = sg.placeholder((None, 4), name="y")
        s = x * y + x
        fixed = x + np.ones((3, 4), np.float32)  # None meets 3: it is 3
        total = snp.sum(s)
        gx, gy = sg.gradients(total, [x, y])
        mapped = sg.vmap(lambda u, v: u - v, in_axes=1)(x, y)  # the unification batches too
    assert s.shape == (x.shape[0], 4) and fixed.shape == (3, 4) and mapped.shape == (4, x.shape[0])
    with sg.Session(g) as sess:
        got = sess.run([s, fixed, gx, gy, mapped], {x: a, y: b})
    np.testing.assert_allclose(got[0], a * b + a, rtol=1e-6)
    np.testing.assert_allclose(got[1], a + 1, rtol=1e-6)
    np.testing.assert_allclose(got[2], b + 1, rtol=1e-6)
    np.testing.assert_allclose(got[3], a, rtol=1e-6)
    np.testing.assert_allclose(got[4], (a - b).T, rtol=1e-6)


def test_feeds_that_disagree_on_unified_none_dims_are_a_feed_error_naming_both():
    g = sg.Graph()
    with g:
        x = sg.placeholder((None, 4), name="x")
        y = sg.placeholder((None, 4), name="y")
        s = x + y
        where = _here(-1)
        fixed = x + np.ones((3, 4), np.float32)
        where_fixed = _here(-1)
        double = x * 2
    with sg.Session(g) as sess:
        for _ in range(2):  # a repeated run (the lean call) first: a new shape still reaches the check
            sess.run(s, {x: np.ones((3, 4), np.float32), y: np.ones((3, 4), np.float32)})
        with pytest.raises(sg.FeedError) as info:
            sess.run(s, {x: np.ones((3, 4), np.float32), y: np.ones((5, 4), np.float32)})
        msg = str(info.value)
        assert msg.startswith(where) and "dim 0 of x" in msg and "dim 0 of y" in msg, msg
        assert "(3, 4)" in msg and "(5, 4)" in msg and "sizes that agree" in msg, msg
        with pytest.raises(sg.FeedError) as info:
            sess.run(fixed, {x: np.ones((5, 4), np.float32)})
        assert str(info.value).startswith(where_fixed) and "dim 0 of x" in str(info.value)
        # the same program with agreeing feeds still runs, and runs that need only one of them too
        np.testing.assert_array_equal(
            sess.run(s, {x: np.ones((2, 4)), y: np.ones((2, 4))}), np.full((2, 4), 2.0)
        )
        np.testing.assert_array_equal(sess.run(double, {x: np.ones((7, 4))}), np.full((7, 4), 2.0))


def test_tf1_softmax_regression_with_none_batches_runs_as_numpy():
    """TF1's MNIST-for-beginners graph: x and y_ are (None, ...) placeholders of their own."""
    rng = np.random.default_rng(1)
    xs = rng.normal(size=(6, 5)).astype(np.float32)
    ys = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 6)]
    w0 = rng.normal(size=(5, 3)).astype(np.float32)
    g = sg.Graph()
    with g:
        x = sg.placeholder((None, 5), name="x")
        y_ = sg.placeholder((None, 3), name="y_")
        w = sg.Variable(initial_value=w0, name="W")
        y = sg.nn.softmax(x @ w)
        cross_entropy = snp.mean(-snp.sum(y_ * snp.log(y), axis=1))
        correct = snp.equal(snp.argmax(y, 1), snp.argmax(y_, 1))
        accuracy = snp.mean(correct.astype(sg.float32))
        train = sg.optim.sgd(0.5).minimize(cross_entropy)
    logits = xs @ w0
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    want_loss = np.mean(-np.sum(ys * np.log(p), axis=1))
    want_w = w0 - 0.5 * xs.T @ (p - ys) / 6
    with sg.Session(g) as sess:
        loss, acc, _ = sess.run([cross_entropy, accuracy, train], feed_dict={x: xs, y_: ys})
        new_w = sess.get(w)
    np.testing.assert_allclose(loss, want_loss, rtol=1e-5)
    np.testing.assert_allclose(acc, np.mean(p.argmax(1) == ys.argmax(1)))
    np.testing.assert_allclose(new_w, want_w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "build, says",
    [
        (
            lambda: sg.placeholder(("batch", 4)) + sg.placeholder(("other", 4)),
            "cannot broadcast shapes (batch, 4)",
        ),
        (
            lambda: sg.placeholder(("batch", 4)) + np.ones((3, 4)),
            "cannot broadcast shapes (batch, 4) and (3, 4)",
        ),
        (lambda: (lambda x: x + x[1:])(sg.placeholder((None,))), "cannot broadcast shapes"),
    ],
)
def test_named_symbols_stay_strict(build, says):
    g = sg.Graph()
    with g, pytest.raises(sg.GraphError) as info:
        build()
    msg = str(info.value)
    assert f"test_anonymous_dims.py:{build.__code__.co_firstlineno}" in msg and says in msg, msg


def test_a_none_dim_meeting_a_named_symbol_takes_its_name():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 2), name="x")
        y = sg.placeholder((None, 2), name="y")
        s = y + x
    assert s.shape == ("batch", 2)
    with sg.Session(g) as sess:
        np.testing.assert_array_equal(
            sess.run(s, {x: np.ones((3, 2)), y: np.ones((3, 2))}), np.full((3, 2), 2.0)
        )
        with pytest.raises(sg.FeedError, match="dim 0 of y"):
            sess.run(s, {x: np.ones((3, 2)), y: np.ones((4, 2))})


def test_ensure_shape_states_an_assumption_and_checks_it():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("n", 3), name="x")
        y = sg.ensure_shape(x, (4, None))
        back = sg.Graph.from_json(g.to_json())
        with pytest.raises(sg.GraphError) as info:
            sg.ensure_shape(sg.placeholder((2, 3)), (4, 3))
        where = _here(-1)
    assert y.shape == (4, 3) and "cannot have shape (4, 3)" in str(info.value) and where in str(info.value)
    assert [n.op.name for n in back.nodes] == ["placeholder", "ensure_shape"]
    with sg.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(y, {x: np.ones((4, 3))}), np.ones((4, 3)))
        with pytest.raises(sg.FeedError, match="n = 5"):
            sess.run(y, {x: np.ones((5, 3))})
