"""The graph's training switch: runs that update trainable variables train (dropout on, batch norm on
the batch's statistics, moving averages updated); every other run evaluates, without a feed; a feed
decides for one run. Checked against numpy's dropout-free and batch-norm formulas."""

import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp

X = np.random.default_rng(0).normal(size=(16, 6)).astype(np.float32)
EPS, MOMENTUM = 1e-5, 0.9


def _model():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 6), sg.float32, name="x")
        h = sg.nn.batch_norm(x, momentum=MOMENTUM, epsilon=EPS, use_scale=False, use_bias=False, name="bn")
        dropped = sg.nn.dropout(h, 0.5)
        out = sg.nn.dense(dropped, 3, name="fc", kernel_init=sg.nn.initializers.ones)
        loss = snp.mean(out**2)
        train = sg.optim.sgd(0.0).minimize(loss)  # a train op that moves nothing but the statistics
    return g, x, h, dropped, train


def _normalized(x, mean, var):
    return (x - mean) / np.sqrt(var + EPS)


def test_evaluation_needs_no_feed_and_training_runs_train():
    g, x, h, dropped, train = _model()
    with sg.Session(g, seed=0) as sess:
        # no train op: moving statistics (zeros and ones) and no dropout, the same every run
        first, second = sess.run([h, dropped], {x: X}), sess.run([h, dropped], {x: X})
        np.testing.assert_allclose(first[0], _normalized(X, 0.0, 1.0), rtol=1e-6)
        np.testing.assert_array_equal(first[1], first[0])
        np.testing.assert_array_equal(second[1], first[1])
        # a train op: the batch's statistics, a dropout mask, moving averages updated
        h_train, d_train, _ = sess.run([h, dropped, train], {x: X})
        mean, var = X.mean(0), X.var(0)
        np.testing.assert_allclose(h_train, _normalized(X, mean, var), rtol=1e-4, atol=1e-5)
        kept = d_train != 0
        assert 0.3 < kept.mean() < 0.7
        np.testing.assert_allclose(d_train[kept], 2 * h_train[kept], rtol=1e-6)
        np.testing.assert_allclose(sess.get("bn/moving_mean"), (1 - MOMENTUM) * mean, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(sess.get("bn/moving_variance"), MOMENTUM + (1 - MOMENTUM) * var, rtol=1e-5)
        # evaluation after training uses the moved statistics
        moved = sess.run(h, {x: X})
        np.testing.assert_allclose(
            moved, _normalized(X, sess.get("bn/moving_mean"), sess.get("bn/moving_variance")), rtol=1e-5
        )
        # a feed decides for one run, either way
        fed_on = sess.run(dropped, {x: X, "training": True})
        assert (fed_on == 0).any()
        before = sess.get("bn/moving_mean")
        _, fed_off = sess.run([train, dropped], {x: X, "training": False})
        np.testing.assert_array_equal(sess.get("bn/moving_mean"), before)  # no batch statistics taken
        np.testing.assert_allclose(fed_off, moved, rtol=1e-6)
    assert "training = training_switch() : pred[]" in g.listing(expand=True)
