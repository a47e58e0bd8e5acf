"""Graph-building habits of TF1 users: Variable(initial_value=...), name_scope("a/b"), minimize with
nothing to train, and layers that share their variables (reuse=)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp


def _here(offset: int = 1) -> str:
    """``test_tf1_habits.py:<line>`` of the caller's line plus ``offset``."""
    return f"test_tf1_habits.py:{sys._getframe(1).f_lineno + offset}"


# -- sg.Variable(initial_value=...) ------------------------------------------------
def test_variable_takes_tf1s_initial_value_keyword():
    w0 = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
    g = sg.Graph()
    with g:
        w = sg.Variable(initial_value=w0, name="w")
        b = sg.Variable(initial_value=np.zeros(3), name="b", trainable=False, dtype=sg.float32)
        c = sg.Variable(initial_value=2.5)
        lazy = sg.Variable(initial_value=lambda: snp.ones((2,)) * 4, name="lazy")  # TF1: a callable
        y = snp.sum(w, axis=0) + b + c
    assert w.var_name == "w" and w.trainable and not b.trainable and b.dtype is sg.float32
    assert [v.var_name for v in g.trainable_variables] == ["w", "Variable", "lazy"]
    with sg.Session(g) as sess:
        got, got_w, got_lazy = sess.run([y, w, lazy])
    np.testing.assert_allclose(got, w0.sum(0) + 2.5, rtol=1e-6)
    np.testing.assert_array_equal(got_w, w0)
    np.testing.assert_array_equal(got_lazy, [4.0, 4.0])


def test_variable_with_two_initial_values_is_an_error():
    g = sg.Graph()
    with g, pytest.raises(sg.GraphError) as info:
        sg.Variable(np.zeros(2), initial_value=np.ones(2), name="v")
    assert _here(-1) in str(info.value) and "initial_value" in str(info.value)
    with g, pytest.raises(sg.GraphError, match="initial value"):
        sg.Variable(name="nothing")
    assert not g.variables


# -- name_scope paths ----------------------------------------------------------------
def test_name_scope_path_opens_nested_scopes_and_a_trailing_slash_reenters_one():
    g = sg.Graph()
    with g:
        with sg.name_scope("a/b") as path:
            x = sg.placeholder((), name="x")
            with sg.name_scope("c"):
                y = x + 1.0
        with sg.name_scope("a"), sg.name_scope("b"):
            z = x * 2.0
        with sg.name_scope("outer"):
            with sg.name_scope("a/b/") as absolute:  # TF1: a trailing slash re-enters that scope as is
                w = x * 3.0
            v = sg.Variable(initial_value=1.0, name="v")
    assert path == "a/b" and absolute == "a/b"
    assert x.node.name == "a/b/x" and y.node.name == "a/b/c/add"
    assert z.node.name.startswith("a/b/") and w.node.name.startswith("a/b/")
    assert v.var_name == "outer/v"


@pytest.mark.parametrize("bad", ["a//b", "/a", "a:b", ""])
def test_bad_name_scope_paths_are_errors(bad):
    g = sg.Graph()
    with g, pytest.raises(sg.GraphError) as info:
        with sg.name_scope(bad):
            pass
    assert _here(-2) in str(info.value) and repr(bad) in str(info.value)


# -- minimize with no variable on the loss's path ------------------------------------
def test_minimize_with_no_trainable_variable_on_the_loss_path_is_an_error():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), name="x")
        w = sg.Variable(initial_value=np.ones(3, np.float32), name="w")
        unrelated = snp.sum(x * x)
        n_before = len(g.nodes)
        with pytest.raises(sg.GraphError) as info:
            sg.optim.sgd(0.1).minimize(unrelated)
        where = _here(-1)
        assert len(g.nodes) == n_before  # refused before building anything
        stopped = snp.sum(sg.stop_gradient(w) * x)  # TF1: stop_gradient gives no gradient either
        with pytest.raises(sg.GraphError, match="no gradients"):
            sg.optim.adam(0.1).minimize(stopped)
        counted = snp.sum(x) * snp.argmax(w).astype(sg.float32)  # only an integer path reaches w
        with pytest.raises(sg.GraphError, match="no gradients"):
            sg.optim.sgd(0.1).minimize(counted)
    msg = str(info.value)
    assert msg.startswith(where) and "no gradients for any variable" in msg and "[w]" in msg, msg
    assert all(n.op.name != "assign" for n in g.nodes)


def test_minimize_skips_variables_off_the_loss_path_as_tf1():
    """A variable the loss does not depend on gets no update (TF1: its gradient is None), not an Adam
    step with a zero gradient that still moves it by its moments."""
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), name="x")
        w = sg.Variable(initial_value=np.array([1.0, 2.0, 3.0], np.float32), name="w")
        other = sg.Variable(initial_value=np.array([5.0], np.float32), name="other")
        loss_w = snp.sum(w * x)
        loss_other = snp.sum(other * other)
        opt = sg.optim.adam(0.5)
        train_other = opt.minimize(loss_other)
        train_w = opt.minimize(loss_w)
    with sg.Session(g) as sess:
        sess.run(train_other)  # moves `other` and gives it Adam moments
        before = sess.get(other)
        sess.run(train_w, {x: np.ones(3, np.float32)})
        after_other, after_w = sess.get([other, w])
    np.testing.assert_array_equal(after_other, before)  # untouched by the step on loss_w
    # Adam (optax's math) on w's first gradient (ones) at update number 2 (the shared global step)
    count, grad = 2, np.ones(3)
    mu_hat, nu_hat = 0.1 * grad / (1 - 0.9**count), 0.001 * grad**2 / (1 - 0.999**count)
    want = np.array([1.0, 2.0, 3.0]) - 0.5 * mu_hat / (np.sqrt(nu_hat) + 1e-8)
    np.testing.assert_allclose(after_w, want, rtol=1e-5)


# -- layers that share variables --------------------------------------------------------
def test_dense_reuse_shares_the_named_layers_variables():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 4, 3)).astype(np.float32)
    g = sg.Graph()
    with g:
        x1 = sg.placeholder((None, 3), name="x1")
        x2 = sg.placeholder((None, 3), name="x2")
        y1 = sg.nn.dense(x1, 2, name="shared", activation=sg.nn.relu)
        y2 = sg.nn.dense(x2, 2, name="shared", activation=sg.nn.relu, reuse=True)
        y3 = sg.nn.dense(x2, 2, name="shared")  # TF1's tf.layers: no reuse, a new layer shared_1
        auto = sg.nn.dense(x2, 2, name="shared", reuse=sg.AUTO_REUSE)
        sg.nn.dense(x2, 2, name="fresh", reuse=sg.AUTO_REUSE)  # nothing to share: made
    names = [v.var_name for v in g.variables]
    # the reusing layer's ops took the scope shared_1 (as in TF1), so the new layer is shared_2
    assert y2.node.call.name.startswith("shared_1/")
    assert names == [
        "shared/kernel",
        "shared/bias",
        "shared_2/kernel",
        "shared_2/bias",
        "fresh/kernel",
        "fresh/bias",
    ]
    with sg.Session(g) as sess:
        got1, got2, got3, got_auto = sess.run([y1, y2, y3, auto], {x1: a, x2: b})
        k, bias, k1, b1 = sess.get(["shared/kernel", "shared/bias", "shared_2/kernel", "shared_2/bias"])
    np.testing.assert_allclose(got1, np.maximum(a @ k + bias, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got2, np.maximum(b @ k + bias, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_auto, b @ k + bias, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got3, b @ k1 + b1, rtol=1e-5, atol=1e-6)
    assert not np.allclose(k, k1)


def test_reuse_shares_gradients_between_the_two_uses():
    g = sg.Graph()
    with g:
        x = sg.placeholder((2, 3), name="x")
        loss = snp.sum(sg.nn.dense(x, 1, name="fc")) + snp.sum(sg.nn.dense(2 * x, 1, name="fc", reuse=True))
        (gk,) = sg.gradients(loss, [g.tensor("fc/kernel")])
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    with sg.Session(g) as sess:
        got = sess.run(gk, {x: a})
    np.testing.assert_allclose(got, 3 * a.sum(0)[:, None], rtol=1e-6)


@pytest.mark.parametrize(
    "build, says",
    [
        (lambda x: sg.nn.dense(x, 2, name="nothing", reuse=True), "no variables under nothing/"),
        (lambda x: sg.nn.dense(x, 5, name="fc", reuse=True), "fc/kernel is f32[3,2]"),
        (lambda x: sg.nn.dense(snp.ones((2, 4)), 2, name="fc", reuse=True), "fc/kernel is f32[3,2]"),
        (lambda x: sg.nn.dense(x, 2, name="nob", reuse=True), "no variable nob/bias"),
        (lambda x: sg.nn.conv(x[None, None], 2, (1, 1), name="nope", reuse=True), "no variables under nope/"),
        (lambda x: sg.nn.dense(x, 2, name="fc", reuse="yes"), "reuse=True, False, None or sg.AUTO_REUSE"),
    ],
)
def test_reuse_of_a_missing_or_different_layer_is_an_error(build, says):
    g = sg.Graph()
    with g:
        x = sg.placeholder((2, 3), name="x")
        sg.nn.dense(x, 2, name="fc")
        sg.nn.dense(x, 2, name="nob", use_bias=False)
        before = [v.var_name for v in g.variables]
        with pytest.raises(sg.GraphError) as info:
            build(x)
    where = f"test_tf1_habits.py:{build.__code__.co_firstlineno}"
    msg = str(info.value)
    assert where in msg and says in msg and "reuse" in msg, msg
    assert [v.var_name for v in g.variables] == before


def test_conv_norm_embedding_and_attention_layers_reuse_their_variables():
    rng = np.random.default_rng(1)
    img = rng.normal(size=(2, 5, 5, 3)).astype(np.float32)
    seq = rng.normal(size=(2, 4, 8)).astype(np.float32)
    g = sg.Graph()
    with g:
        x = sg.placeholder((2, 5, 5, 3), name="x")
        s = sg.placeholder((2, 4, 8), name="s")
        ids = sg.placeholder((3,), sg.int32, name="ids")
        c1, c2 = (sg.nn.conv(x, 4, (3, 3), name="conv", reuse=r) for r in (None, True))
        t1, t2 = (sg.nn.conv_transpose(x, 4, (3, 3), name="up", reuse=r) for r in (None, True))
        n1, n2 = (sg.nn.layer_norm(s, name="ln", reuse=r) for r in (None, True))
        e1, e2 = (sg.nn.embedding(ids, 10, 4, name="emb", reuse=r) for r in (None, True))
        a1, a2 = (sg.nn.multi_head_attention(s, num_heads=2, name="attn", reuse=r) for r in (None, True))
        bn1, bn2 = (sg.nn.batch_norm(x, name="bn", training=False, reuse=r) for r in (None, True))
    names = [v.var_name for v in g.variables]
    assert len(names) == len(set(names))
    assert not [n for n in names if "_1/" in n], names
    with sg.Session(g) as sess:
        got = sess.run([c1, c2, t1, t2, n1, n2, e1, e2, a1, a2, bn1, bn2], {x: img, s: seq, ids: [0, 3, 9]})
    for first, second in zip(got[::2], got[1::2]):
        np.testing.assert_array_equal(first, second)


def test_initializers_cast_and_the_float_dtype_name_as_in_tf1():
    g = sg.Graph()
    with g:
        x = sg.placeholder("float", [None, 2], name="x")  # TF1's "float" is float32
        w = sg.Variable(initial_value=np.array([[1.0], [2.0]], np.float32), name="w")
        step = sg.Variable(0, name="step", trainable=False)
        update = sg.group(w.assign(w * 3.0), step.assign_add(1))
        init = sg.global_variables_initializer()
        only_w = sg.variables_initializer([w])
        nothing = sg.local_variables_initializer()
        correct = sg.cast(snp.equal(x @ w, 3.0), sg.float32)
        truncated = sg.cast(sg.constant([1.7, -1.7, 2.5]), sg.int32)
        with pytest.raises(sg.GraphError, match="wants Variables"):
            sg.variables_initializer([x])
    assert x.dtype == sg.float32 and correct.dtype == sg.float32 and truncated.dtype == sg.int32
    with sg.Session(g) as sess:
        assert sess.run(init) is None  # as TF1: optional here, since a Session initializes by itself
        sess.run(update)
        sess.run(update)
        np.testing.assert_array_equal(sess.get(w), [[9.0], [18.0]])
        assert sess.run(only_w) is None and sess.run(nothing) is None
        np.testing.assert_array_equal(sess.get(w), [[1.0], [2.0]])
        assert sess.get(step) == 2
        sess.run(init)
        assert sess.get(step) == 0
        xs = np.array([[1.0, 1.0], [0.0, 1.0]], np.float32)
        np.testing.assert_array_equal(sess.run(correct, feed_dict={x: xs}), [[1.0], [0.0]])
        np.testing.assert_array_equal(sess.run(truncated), np.array([1.7, -1.7, 2.5]).astype(np.int32))
