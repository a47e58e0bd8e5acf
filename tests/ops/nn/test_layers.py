"""sg.nn.dense and sg.nn.dropout: variables and names, numpy outputs, masks, the training switch."""

import numpy as np
import pytest

import stablegraph as sg

RNG = np.random.default_rng(2)
X = RNG.normal(size=(5, 3)).astype(np.float32)
ONES = np.ones((200, 50), np.float32)


@pytest.fixture(scope="module")
def built():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        h = sg.nn.dense(x, 4, name="fc1", activation=sg.nn.relu)
        y = sg.nn.dense(h, 2, name="fc2", use_bias=False, kernel_init=sg.nn.initializers.normal(1.0))
        again = sg.nn.dense(x, 2, name="fc1", bias_init=sg.nn.initializers.constant(0.5))
        out = {"h": h, "y": y, "again": again}
    return g, x, out


def test_dense_variables_and_output(built):
    g, x, out = built
    names = {v.var_name: tuple(v.shape) for v in g.variables}
    assert names["fc1/kernel"] == (3, 4) and names["fc1/bias"] == (4,)
    assert names["fc2/kernel"] == (4, 2) and "fc2/bias" not in names
    assert names["fc1_1/kernel"] == (3, 2) and names["fc1_1/bias"] == (2,)
    with sg.Session(g, seed=0) as sess:
        got = sess.run({k: out[k] for k in ("h", "y", "again")}, {x: X})
        k1, b1, k2, k3, b3 = (sess.get(g.tensor(n)) for n in
                              ("fc1/kernel", "fc1/bias", "fc2/kernel", "fc1_1/kernel", "fc1_1/bias"))  # fmt: skip
    np.testing.assert_array_equal(b1, np.zeros(4))
    np.testing.assert_array_equal(b3, np.full(2, 0.5))
    assert np.abs(k1).max() <= np.sqrt(6 / 7)  # glorot_uniform by default
    h = np.maximum(X @ k1 + b1, 0)
    np.testing.assert_allclose(got["h"], h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["y"], h @ k2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["again"], X @ k3 + b3, rtol=1e-5, atol=1e-6)


def test_dense_wants_static_features():
    with sg.Graph():
        x = sg.placeholder((2, "features"), sg.float32, name="x")
        with pytest.raises(sg.GraphError, match="static last dim"):
            sg.nn.dense(x, 3)


def _dropout_graph():
    """Dropout alone (no dense variables), so each Session's start stays cheap."""
    g = sg.Graph()
    with g:
        ones = sg.constant(ONES)
        out = {
            "drop": sg.nn.dropout(ones, 0.25),
            "drop2": sg.nn.dropout(ones, rate=0.5),
            "keyed": sg.nn.dropout(sg.random.key(5), ones, 0.25),
            "keyed_kw": sg.nn.dropout(sg.random.key(5), ones, rate=0.25),
            "always": sg.nn.dropout(ones, 0.5, training=True),
            "never": sg.nn.dropout(ones, 0.5, training=False),
            "zero_rate": sg.nn.dropout(ones, 0.0),
        }
    return g, out


def _dropout_runs(g, out, seed):
    with sg.Session(g, seed=seed) as sess:
        runs = [sess.run(out, {"training": True}) for _ in range(2)]
        off = sess.run(out)  # a run that trains nothing: the switch is off unless fed
    return runs, off


@pytest.fixture(scope="module")
def dropout_runs():
    g, out = _dropout_graph()
    return _dropout_runs(g, out, 0), _dropout_runs(g, out, 0), _dropout_runs(g, out, 1)


def test_dropout_keep_fraction_and_scale(dropout_runs):
    (runs, _), _, _ = dropout_runs
    for name, rate in (("drop", 0.25), ("drop2", 0.5), ("keyed", 0.25), ("always", 0.5)):
        d = runs[0][name]
        assert set(np.unique(d)) <= {0.0, np.float32(1 / (1 - rate))}, name
        assert (d != 0).mean() == pytest.approx(1 - rate, abs=0.02), name
    np.testing.assert_array_equal(runs[0]["never"], ONES)
    np.testing.assert_array_equal(runs[0]["zero_rate"], ONES)


def test_dropout_masks_change_per_run_and_follow_the_seed(dropout_runs):
    (runs, _), (same, _), (other, _) = dropout_runs
    assert not np.array_equal(runs[0]["drop"], runs[1]["drop"])
    assert not np.array_equal(runs[0]["drop"], runs[0]["always"])  # each call site its own key
    for i in range(2):
        np.testing.assert_array_equal(runs[i]["drop"], same[i]["drop"])
    assert not np.array_equal(runs[0]["drop"], other[0]["drop"])


def test_dropout_with_a_key_is_deterministic(dropout_runs):
    (runs, _), _, (other, _) = dropout_runs
    np.testing.assert_array_equal(runs[0]["keyed"], runs[1]["keyed"])
    np.testing.assert_array_equal(runs[0]["keyed"], other[0]["keyed"])
    np.testing.assert_array_equal(runs[0]["keyed"], runs[0]["keyed_kw"])


def test_dropout_with_a_key_matches_jax_bernoulli(dropout_runs):
    import jax

    (runs, _), _, _ = dropout_runs
    with jax.enable_x64(False):  # other test files switch jax's x64 on; bernoulli would draw float64
        keep = np.asarray(jax.random.bernoulli(jax.random.PRNGKey(5), 0.75, ONES.shape))
    np.testing.assert_array_equal(runs[0]["keyed"], np.where(keep, ONES / 0.75, 0))


def test_training_switch_off_is_identity(dropout_runs):
    (_, off), _, _ = dropout_runs
    for name in ("drop", "drop2", "keyed", "never"):
        np.testing.assert_array_equal(off[name], ONES, err_msg=name)
    assert (off["always"] == 0).any()  # training=True ignores the switch


def test_training_is_one_switch_per_graph():
    g = sg.Graph()
    with g:
        with sg.name_scope("block"):
            t = sg.nn.training()
        assert sg.nn.training() is t
        assert t.dtype == sg.bool_ and t.shape == ()
        x = sg.constant(np.ones(4, np.float32))
        d = sg.nn.dropout(x, 0.5)
    with sg.Session(g) as sess:
        assert sess.run(t) == np.False_  # no train op in the run
        assert sess.run(t, {t: True}) == np.True_
        np.testing.assert_array_equal(sess.run(d), np.ones(4))


def test_dropout_rejects_bad_rates():
    with sg.Graph():
        x = sg.constant(np.ones(3, np.float32))
        for rate in (1.0, -0.1, 2):
            with pytest.raises(sg.GraphError, match="rate"):
                sg.nn.dropout(x, rate)
        with pytest.raises(sg.GraphError, match="rate"):
            sg.nn.dropout(x)
