"""TF1's "Deep MNIST for experts" convnet, ported as a TF1 user writes it, on scikit-learn's 8x8
digits: dtype-first placeholders with None batches, ``tf.Variable(truncated normal)`` weights and
``constant(0.1, shape=...)`` biases, name scopes given as paths, ``conv2d(x, W, strides=[1, 1, 1, 1],
padding='SAME')``, ``max_pool`` with ``ksize=[1, 2, 2, 1]``, dropout with a ``keep_prob`` placeholder
fed 0.5 to train and 1.0 to evaluate, ``softmax_cross_entropy_with_logits(labels=, logits=)`` and
Adam's ``minimize``. One step's loss, gradients and update are compared with the same math in jax."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.datasets import load_digits

import stablegraph as sg
from stablegraph import numpy as snp

LR = 1e-3


def digits():
    X, Y = load_digits(return_X_y=True)
    return (X / 16.0).astype(np.float32), np.eye(10, dtype=np.float32)[Y]


def build():
    keys = iter(sg.random.split(sg.random.PRNGKey(0), 4))

    def weight_variable(shape):
        initial = sg.random.truncated_normal(next(keys), -2.0, 2.0, shape) * 0.1
        return sg.Variable(initial, name="weights")

    def bias_variable(shape):
        initial = sg.constant(0.1, shape=shape)
        return sg.Variable(initial, name="biases")

    def conv2d(x, W):
        return sg.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding="SAME")

    def max_pool_2x2(x):
        return sg.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")

    x = sg.placeholder(sg.float32, shape=[None, 64], name="x")
    y_ = sg.placeholder(sg.float32, shape=[None, 10], name="y_")
    with sg.name_scope("model/conv1"):
        W_conv1, b_conv1 = weight_variable([3, 3, 1, 8]), bias_variable([8])
        x_image = snp.reshape(x, [-1, 8, 8, 1])
        h_pool1 = max_pool_2x2(sg.nn.relu(conv2d(x_image, W_conv1) + b_conv1))
    with sg.name_scope("model/conv2"):
        W_conv2, b_conv2 = weight_variable([3, 3, 8, 16]), bias_variable([16])
        h_pool2 = max_pool_2x2(sg.nn.relu(conv2d(h_pool1, W_conv2) + b_conv2))
    with sg.name_scope("model/fc1"):
        W_fc1, b_fc1 = weight_variable([2 * 2 * 16, 32]), bias_variable([32])
        h_pool2_flat = snp.reshape(h_pool2, [-1, 2 * 2 * 16])
        h_fc1 = sg.nn.relu(snp.matmul(h_pool2_flat, W_fc1) + b_fc1)
    with sg.name_scope("dropout"):
        keep_prob = sg.placeholder(sg.float32, name="keep_prob")
        h_fc1_drop = sg.nn.dropout(h_fc1, keep_prob=keep_prob)
    with sg.name_scope("model/fc2"):
        W_fc2, b_fc2 = weight_variable([32, 10]), bias_variable([10])
        y_conv = snp.matmul(h_fc1_drop, W_fc2) + b_fc2
    cross_entropy = snp.mean(sg.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y_conv))
    train_step = sg.optim.adam(LR).minimize(cross_entropy)
    correct_prediction = snp.equal(snp.argmax(y_conv, 1), snp.argmax(y_, 1))
    accuracy = snp.mean(correct_prediction.astype(sg.float32))
    params = [W_conv1, b_conv1, W_conv2, b_conv2, W_fc1, b_fc1, W_fc2, b_fc2]
    grads = sg.gradients(cross_entropy, params)
    return dict(x=x, y_=y_, keep_prob=keep_prob, loss=cross_entropy, train=train_step, accuracy=accuracy,
                params=params, grads=grads, h_fc1=h_fc1, logits=y_conv)  # fmt: skip


def jax_model(params, x):
    """The same network in jax (no dropout): the logits."""
    w1, b1, w2, b2, w3, b3, w4, b4 = params

    def conv(h, w):
        return jax.lax.conv_general_dilated(h, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def pool(h):
        return jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "SAME")

    h = pool(jax.nn.relu(conv(x.reshape(-1, 8, 8, 1), w1) + b1))
    h = pool(jax.nn.relu(conv(h, w2) + b2))
    h = jax.nn.relu(h.reshape(-1, 64) @ w3 + b3)
    return h @ w4 + b4


def jax_loss(params, x, y):
    return jnp.mean(-jnp.sum(y * jax.nn.log_softmax(jax_model(params, x)), axis=-1))


@pytest.fixture(scope="module")
def tutorial():
    """The graph, a Session with its initial parameters, and the data (one Session for the module)."""
    X, Y = digits()
    g = sg.Graph()
    with g:
        m = build()
    with sg.Session(g, seed=0) as sess:
        initial = [sess.get(p) for p in m["params"]]
        yield m, sess, initial, X, Y


def test_one_training_step_matches_jax(tutorial):
    m, sess, initial, X, Y = tutorial
    names = [p.var_name for p in m["params"]]
    assert names[:2] == ["model/conv1/weights", "model/conv1/biases"] and names[-1] == "model/fc2/biases"
    assert m["keep_prob"].node.name == "dropout/keep_prob" and m["x"].shape[1] == 64
    # a training step with keep_prob 1.0: the loss, gradients and Adam's first update against jax
    feed_dict = {m["x"]: X[:50], m["y_"]: Y[:50], m["keep_prob"]: 1.0}
    _, loss0, grads0 = sess.run([m["train"], m["loss"], m["grads"]], feed_dict=feed_dict)
    stepped = [sess.get(p) for p in m["params"]]
    want_loss, want_grads = jax.jit(jax.value_and_grad(jax_loss))(initial, X[:50], Y[:50])
    np.testing.assert_allclose(loss0, want_loss, rtol=1e-5)
    for name, got, want in zip(names, grads0, want_grads):
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=1e-6, err_msg=name)
    for name, before, after, grad in zip(names, initial, stepped, want_grads):
        want = before - LR * grad / (np.abs(grad) + 1e-8)  # Adam's first step, bias-corrected
        np.testing.assert_allclose(after, want, rtol=1e-5, atol=2e-6, err_msg=name)


def test_training_with_dropout_then_deterministic_evaluation(tutorial):
    m, sess, initial, X, Y = tutorial
    x, y_, keep_prob = m["x"], m["y_"], m["keep_prob"]
    losses = []
    for i in range(1, 25):
        batch = np.arange(i * 50, i * 50 + 50) % 1500
        fetches = [m["train"], m["loss"], m["grads"]]  # the program of the step above: no new compile
        losses.append(sess.run(fetches, feed_dict={x: X[batch], y_: Y[batch], keep_prob: 0.5})[1])
    test = {x: X[1500:], y_: Y[1500:], keep_prob: 1.0}
    acc1, logits = sess.run([m["accuracy"], m["logits"]], feed_dict=test)
    acc2 = sess.run([m["accuracy"], m["logits"]], feed_dict=test)[0]
    trained = [sess.get(p) for p in m["params"]]
    assert np.mean(losses[-5:]) < np.mean(losses[:5])
    # evaluation (no train op, keep_prob 1.0): deterministic, and the jax network's logits
    assert acc1 == acc2
    np.testing.assert_allclose(logits, jax.jit(jax_model)(trained, X[1500:]), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(acc1, np.mean(logits.argmax(1) == Y[1500:].argmax(1)))
    assert sess.stats.compiles <= 3  # initialization, the train step, the evaluation


def test_tf1_spellings_of_placeholder_and_constant():
    g = sg.Graph()
    with g:
        a = sg.placeholder(sg.float32, shape=[None, 784])  # TF1: dtype first, shape by keyword
        b = sg.placeholder(np.int64, [None], "labels")
        c = sg.placeholder(dtype=sg.int32, shape=[2], name="c")
        d = sg.placeholder(sg.float32, name="keep_prob")
        filled = sg.constant(0.1, shape=[2, 3])
        laid_out = sg.constant([1, 2, 3, 4, 5, 6], shape=(2, 3), dtype=sg.float32)
        try:
            sg.placeholder(sg.float32, [3], shape=[4])
        except sg.GraphError as e:
            twice = str(e)
        try:
            sg.constant([1.0, 2.0], shape=[3])
        except sg.GraphError as e:
            misfit = str(e)
    assert a.dtype is sg.float32 and a.shape[1] == 784 and isinstance(a.shape[0], str)
    assert b.dtype is sg.int64 and b.node.name == "labels" and c.type == sg.TensorType((2,), sg.int32)
    assert d.shape == () and d.dtype is sg.float32
    assert "test_deep_mnist.py:" in twice and "shape twice" in twice
    assert "test_deep_mnist.py:" in misfit and "does not fill shape=[3]" in misfit
    with sg.Session(g) as sess:
        got = sess.run([filled, laid_out])
    np.testing.assert_array_equal(got[0], np.full((2, 3), 0.1, np.float32))
    np.testing.assert_array_equal(got[1], np.arange(1, 7, dtype=np.float32).reshape(2, 3))
