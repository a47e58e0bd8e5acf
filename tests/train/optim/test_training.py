"""Training end to end: logistic regression against sklearn, the global step, and the errors users hit."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

import stablegraph as sg
from stablegraph import numpy as snp


def softplus(z):
    return snp.maximum(z, 0.0) + snp.log1p(snp.exp(-snp.abs(z)))


def test_logistic_regression_matches_sklearn():
    data = load_breast_cancer()
    x = StandardScaler().fit_transform(data.data).astype(np.float32)
    y = data.target.astype(np.float32)
    n, d = x.shape
    c = 0.05  # sklearn minimizes ||w||²/2 + C * sum(log loss); divided by C*n that is our loss
    lam = 1.0 / (c * n)
    ref = LogisticRegression(C=c, solver="lbfgs", tol=1e-10, max_iter=10_000).fit(x, y)

    g = sg.Graph()
    with g:
        xs = sg.placeholder(("batch", d), sg.float32, name="x")
        ys = sg.placeholder(("batch",), sg.float32, name="y")
        with sg.name_scope("logreg"):
            w = sg.Variable(sg.nn.initializers.zeros, (d,), name="w")
            b = sg.Variable(0.0, name="b")
        logits = snp.matmul(xs, w) + b
        loss = snp.mean(softplus(logits) - ys * logits) + 0.5 * lam * snp.sum(w * w)
        with sg.name_scope("train"):
            train = sg.optim.adam(sg.optim.cosine_decay(0.05, steps=600)).minimize(loss)
    with sg.Session(g, seed=0) as sess:
        feeds = {xs: x, ys: y}
        first = sess.run(loss, feeds)
        for _ in range(600):
            last, _ = sess.run([loss, train], feeds)
        got_w, got_b = sess.get(w), sess.get(b)
    assert last < first
    np.testing.assert_allclose(got_w, ref.coef_[0], atol=5e-4)
    np.testing.assert_allclose(got_b, ref.intercept_[0], atol=5e-4)


def test_global_step_counts_runs_and_drives_the_schedule():
    g = sg.Graph()
    with g:
        v = sg.Variable(np.float32(1.0), name="v")
        loss = v * 1.0  # gradient 1: each sgd step moves v by exactly -lr(step)
        opt = sg.optim.sgd(sg.optim.linear_decay(0.5, steps=4))
        train = opt.minimize(loss)  # default var_list: the trainable variables (only v)
        step = sg.global_step()
        lr = opt.learning_rate_at(step)
    with sg.Session(g) as sess:
        seen = []
        for k in range(3):
            s, rate, _ = sess.run([step, lr, train])
            seen.append((int(s), float(rate)))
            assert sess.get(step) == k + 1
        assert [s for s, _ in seen] == [0, 1, 2]  # fetched with the train op: the value at the run's start
        np.testing.assert_allclose([r for _, r in seen], [0.5, 0.375, 0.25])
        np.testing.assert_allclose(sess.get(v), 1.0 - 0.5 - 0.375 - 0.25, rtol=1e-6)
        sess.set(step, 4)  # past the schedule's end: lr 0, v stays
        sess.run(train)
        np.testing.assert_allclose(sess.get(v), 1.0 - 1.125, rtol=1e-6)
        assert sess.get(step) == 5
    assert [x.var_name for x in g.variables] == ["v", "global_step"]  # sgd keeps no state


def test_assigning_a_trained_variable_in_the_same_run_is_an_error():
    g = sg.Graph()
    with g:
        w = sg.Variable(np.ones(3, np.float32), name="w")
        loss = snp.sum(w * w)
        train = sg.optim.adam(0.1).minimize(loss)
        mine = w.assign(w * 0.5)
    with sg.Session(g) as sess:
        with pytest.raises(sg.GraphError, match="variable w is assigned twice in one run"):
            sess.run([train, mine])
        sess.run(train)  # each alone is fine
        sess.run(mine)


def test_two_optimizers_need_their_own_steps():
    g = sg.Graph()
    with g:
        a = sg.Variable(np.float32(1.0), name="a")
        b = sg.Variable(np.float32(1.0), name="b")
        t1 = sg.optim.sgd(0.1).minimize(a * a, [a])
        t2 = sg.optim.sgd(0.1).minimize(b * b, [b])
    with sg.Session(g) as sess, pytest.raises(sg.GraphError, match="global_step is assigned twice"):
        sess.run([t1, t2])


def test_misuse_is_reported_at_the_call():
    g = sg.Graph()
    with g:
        w = sg.Variable(np.ones(3, np.float32), name="w")
        x = sg.placeholder((3,), sg.float32, name="x")
        opt = sg.optim.adam(1e-3)
        with pytest.raises(sg.GraphError, match="scalar loss"):
            opt.minimize(w * x)
        with pytest.raises(sg.GraphError, match="appears twice"):
            opt.minimize(snp.sum(w), [w, w])
        with pytest.raises(sg.GraphError, match="updates Variables"):
            opt.minimize(snp.sum(w * x), [x])
        with pytest.raises(sg.GraphError, match="no entry for w"):
            sg.optim.adamw(1e-3, mask={}).minimize(snp.sum(w))
        with pytest.raises(sg.GraphError, match=r"unknown variables: \['v'\]"):
            sg.optim.adamw(1e-3, mask={"w": True, "v": False}).minimize(snp.sum(w))
        with pytest.raises(sg.GraphError, match="no variable has a gradient"):
            opt.apply_gradients([(None, w)])
    with sg.Graph(), pytest.raises(sg.GraphError, match="no trainable variables"):
        sg.optim.sgd(0.1).minimize(sg.constant(np.float32(1.0)))
    with pytest.raises(TypeError, match="learning_rate"):
        sg.optim.sgd("0.1")
    with pytest.raises(ValueError, match="clip_norm"):
        sg.optim.adam(0.1, clip_norm=0.0)
