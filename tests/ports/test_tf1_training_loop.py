"""A TF1-style training loop as TF1 users write it: a dense net with batch norm and dropout (a
``keep_prob`` placeholder with a default of 1.0, fed 0.5 to train), momentum's ``minimize``, and
``sess.run(fetches, feed_dict={...})`` everywhere. Evaluation feeds no training switch: it must be
deterministic and use the moving statistics (recomputed here in numpy from the batches the training
runs saw), with dropout off. On scikit-learn's digits, a few dozen steps."""

from __future__ import annotations

import numpy as np
from sklearn.datasets import load_digits

import stablegraph as sg
from stablegraph import numpy as snp

MOMENTUM, EPS = 0.9, 1e-5


def test_evaluation_without_a_training_feed_uses_moving_statistics_and_no_dropout():
    X, Y = load_digits(return_X_y=True)
    X, Y = (X / 16.0).astype(np.float32), Y.astype(np.int64)
    g = sg.Graph()
    with g:
        x = sg.placeholder(sg.float32, shape=[None, 64], name="x")
        y = sg.placeholder(sg.int64, shape=[None], name="y")
        keep_prob = sg.placeholder_with_default(1.0, shape=(), name="keep_prob")
        with sg.name_scope("net"):
            pre = sg.nn.dense(x, 32, name="fc1")
            h = sg.nn.relu(sg.nn.batch_norm(pre, momentum=MOMENTUM, epsilon=EPS, name="bn1"))
            dropped = sg.nn.dropout(h, keep_prob=keep_prob)
            logits = sg.nn.dense(dropped, 10, name="fc2")
        loss = snp.mean(sg.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train_op = sg.optim.momentum(0.1, 0.9).minimize(loss)
        accuracy = snp.mean((snp.argmax(logits, 1) == y).astype(sg.float32))

    moving_mean, moving_var = np.zeros(32), np.ones(32)
    with sg.Session(g, seed=0) as sess:
        losses, kept = [], []
        for step in range(40):
            batch = np.arange(step * 32, step * 32 + 32) % 1500
            fetches = {"train": train_op, "loss": loss, "pre": pre, "h": h, "dropped": dropped}
            out = sess.run(fetches, feed_dict={x: X[batch], y: Y[batch], keep_prob: 0.5})
            assert out["train"] is None
            losses.append(out["loss"])
            # the batch's statistics normalize in training, and the moving ones follow them
            moving_mean = MOMENTUM * moving_mean + (1 - MOMENTUM) * out["pre"].mean(0)
            moving_var = MOMENTUM * moving_var + (1 - MOMENTUM) * out["pre"].var(0)
            live = out["h"] != 0
            kept.append((out["dropped"][live] != 0).mean())
            np.testing.assert_allclose(
                out["dropped"][out["dropped"] != 0], 2 * out["h"][out["dropped"] != 0], rtol=1e-6
            )
        test = {x: X[1500:], y: Y[1500:]}
        acc1, test_logits = sess.run([accuracy, logits], feed_dict=test)
        acc2, test_logits2 = sess.run([accuracy, logits], feed_dict=test)
        variables = {v.var_name: sess.get(v) for v in g.variables}

    assert np.mean(losses[-5:]) < np.mean(losses[:5]) - 0.5
    assert 0.4 < np.mean(kept) < 0.6  # keep_prob 0.5 in training
    np.testing.assert_allclose(variables["net/bn1/moving_mean"], moving_mean, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(variables["net/bn1/moving_variance"], moving_var, rtol=1e-4, atol=1e-5)
    # evaluation: the same every run, with the moving statistics and no dropout
    assert acc1 == acc2
    np.testing.assert_array_equal(test_logits, test_logits2)
    v = variables
    hidden = X[1500:] @ v["net/fc1/kernel"] + v["net/fc1/bias"]
    hidden = (hidden - v["net/bn1/moving_mean"]) / np.sqrt(v["net/bn1/moving_variance"] + EPS)
    hidden = np.maximum(hidden * v["net/bn1/scale"] + v["net/bn1/bias"], 0)
    np.testing.assert_allclose(
        test_logits, hidden @ v["net/fc2/kernel"] + v["net/fc2/bias"], rtol=1e-4, atol=1e-4
    )
    np.testing.assert_allclose(acc1, np.mean(test_logits.argmax(1) == Y[1500:]))
    assert acc1 > 0.6
