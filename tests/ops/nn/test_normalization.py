"""sg.nn.standardize against jax.nn; layer_norm, rms_norm, group_norm and batch_norm against numpy
re-writes of flax's formulas from their read-back Variables; batch_norm's moving averages over train steps."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg

jax.config.update("jax_platforms", "cpu")

RNG = np.random.default_rng(5)
X = RNG.normal(1.0, 2.0, (4, 3, 6)).astype(np.float32)
WHERE = RNG.random(X.shape) < 0.8
WHERE[..., 0] = True
IMG = RNG.normal(0.5, 1.5, (2, 3, 3, 8)).astype(np.float32)
DRAWS = np.random.default_rng(99)


def drawn(key, shape, dtype=sg.float32):
    """A test initializer: normal draws made by numpy (no random program to compile), new ones each call."""
    return sg.constant(DRAWS.normal(size=shape).astype(np.float32))


drawn.uses_key = False


def _standardizes(lib, x, where):
    return {
        "std": lib.standardize(x),
        "std_axes": lib.standardize(x, axis=(0, 2)),
        "std_all": lib.standardize(x, axis=None, epsilon=1e-3),
        "std_where": lib.standardize(x, where=where),
        "std_given": lib.standardize(x, mean=0.5, variance=2.0),
        "std_stable": lib.standardize(x, axis=1, algorithm="stable"),
    }


@pytest.fixture(scope="module")
def built():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3, 6), sg.float32, name="x")
        img = sg.placeholder(IMG.shape, sg.float32, name="img")
        out = _standardizes(sg.nn, sg.constant(X), sg.constant(WHERE))
        out["d_std"] = sg.gradients((sg.nn.standardize(x, axis=(1, 2)) * X[0]).sum(), [x])[0]
        out["ln"] = sg.nn.layer_norm(x, scale_init=drawn, bias_init=drawn, name="ln")
        out["ln2"] = sg.nn.layer_norm(x, 1e-3, reduction_axes=(1, 2), feature_axes=(1, 2), use_bias=False,
                                      scale_init=drawn, name="ln2")  # fmt: skip
        out["rms"] = sg.nn.rms_norm(x, scale_init=drawn, name="rms")
        out["gn"] = sg.nn.group_norm(img, 4, scale_init=drawn, bias_init=drawn, name="gn")
        out["gn_size"] = sg.nn.group_norm(img, None, group_size=8, use_scale=False, name="gn2")
        out["d_ln"] = sg.gradients((out["ln"] * x).sum(), [x])[0]
    with sg.Session(g, seed=1) as sess:
        got = sess.run(out, {x: X, img: IMG})
        params = {v.var_name: sess.get(v) for v in g.variables}
    return got, params


@pytest.fixture(scope="module")
def oracle():
    with jax.enable_x64(False):
        out = jax.jit(lambda x: _standardizes(jax.nn, x, WHERE))(X)
        out["d_std"] = jax.grad(lambda x: jnp.sum(jax.nn.standardize(x, axis=(1, 2)) * X[0]))(X)
        return {k: np.asarray(v) for k, v in out.items()}


@pytest.mark.parametrize(
    "name", ["std", "std_axes", "std_all", "std_where", "std_given", "std_stable", "d_std"]
)
def test_standardize_matches_jax(built, oracle, name):
    got, _ = built
    np.testing.assert_allclose(got[name], oracle[name], rtol=1e-4, atol=1e-5, err_msg=name)


def _norm(x, axes, eps):
    x = x.astype(np.float64)
    mean = x.mean(axes, keepdims=True)
    var = (x * x).mean(axes, keepdims=True) - mean**2
    return (x - mean) / np.sqrt(var + eps)


def test_layer_norms_match_flax_formulas(built):
    got, p = built
    assert p["ln/scale"].shape == (6,) and p["ln2/scale"].shape == (3, 6) and "ln2/bias" not in p
    np.testing.assert_allclose(
        got["ln"], _norm(X, -1, 1e-6) * p["ln/scale"] + p["ln/bias"], rtol=1e-4, atol=1e-5
    )
    np.testing.assert_allclose(got["ln2"], _norm(X, (1, 2), 1e-3) * p["ln2/scale"], rtol=1e-4, atol=1e-5)
    x = X.astype(np.float64)
    rms = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * p["rms/scale"]
    np.testing.assert_allclose(got["rms"], rms, rtol=1e-4, atol=1e-5)
    d_ln = jax.grad(
        lambda x: jnp.sum((jax.nn.standardize(x, epsilon=1e-6) * p["ln/scale"] + p["ln/bias"]) * x)
    )(X)
    np.testing.assert_allclose(got["d_ln"], d_ln, rtol=1e-3, atol=1e-4)


def test_group_norm_matches_flax_formula(built):
    got, p = built
    grouped = IMG.reshape(2, 3, 3, 4, 2)
    want = _norm(grouped, (1, 2, 4), 1e-6).reshape(IMG.shape) * p["gn/scale"] + p["gn/bias"]
    np.testing.assert_allclose(got["gn"], want, rtol=1e-4, atol=1e-5)
    one_group = _norm(IMG, (1, 2, 3), 1e-6) + p["gn2/bias"]
    np.testing.assert_allclose(got["gn_size"], one_group, rtol=1e-4, atol=1e-5)


# -- batch_norm -------------------------------------------------------------------------------
STEPS = [RNG.normal(m, s, (5, 2, 2, 3)).astype(np.float32) for m, s in ((1.0, 2.0), (-0.5, 0.5), (2.0, 1.0))]
W_OUT = RNG.normal(size=(2, 2, 3)).astype(np.float32)


@pytest.fixture(scope="module")
def batch_norm_runs():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 2, 2, 3), sg.float32, name="x")
        h = sg.nn.batch_norm(x, momentum=0.9, name="bn")
        loss = (h * W_OUT).sum()
        train = sg.optim.sgd(0.1).minimize(loss)
        fixed = sg.nn.batch_norm(x, training=False, use_bias=False, name="bn_infer")
        updates = sg.nn.update_ops()
    names = ("bn/scale", "bn/bias", "bn/moving_mean", "bn/moving_variance")
    record = []
    with sg.Session(g, seed=0) as sess:
        for xs in STEPS:
            before = {n: sess.get(g.tensor(n)) for n in names}
            h_v, _ = sess.run([h, train], {x: xs})
            record.append((before, h_v))
        after = {n: sess.get(g.tensor(n)) for n in names}
        inference = sess.run(h, {x: STEPS[0], "training": False})
        sess.run(h, {x: STEPS[1]})  # a run without the train op moves nothing
        sess.run(train, {x: STEPS[1], "training": False})  # nor does a train op in inference mode
        unmoved = {n: sess.get(g.tensor(n)) for n in names[2:]}
        fixed_v = sess.run(fixed, {x: STEPS[0]})
    return g, updates, record, after, inference, unmoved, fixed_v


def test_batch_norm_variables(batch_norm_runs):
    g, updates, *_ = batch_norm_runs
    kinds = {v.var_name: v.node.attrs.trainable for v in g.variables if v.var_name.startswith("bn/")}
    assert kinds == {"bn/scale": True, "bn/bias": True, "bn/moving_mean": False, "bn/moving_variance": False}
    assert len(updates) == 2  # bn_infer (training=False) notes none


def test_batch_norm_training_uses_batch_stats_and_moves_the_averages(batch_norm_runs):
    _, _, record, after, *_ = batch_norm_runs
    mean, var = np.zeros(3), np.ones(3)
    for xs, (before, h_v) in zip(STEPS, record):
        np.testing.assert_allclose(before["bn/moving_mean"], mean, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(before["bn/moving_variance"], var, rtol=1e-5, atol=1e-6)
        x = xs.astype(np.float64)
        bm, bv = x.mean((0, 1, 2)), (x * x).mean((0, 1, 2)) - x.mean((0, 1, 2)) ** 2
        want = (x - bm) / np.sqrt(bv + 1e-5) * before["bn/scale"] + before["bn/bias"]
        np.testing.assert_allclose(h_v, want, rtol=1e-4, atol=1e-5)
        mean, var = 0.9 * mean + 0.1 * bm, 0.9 * var + 0.1 * bv
    np.testing.assert_allclose(after["bn/moving_mean"], mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(after["bn/moving_variance"], var, rtol=1e-5, atol=1e-6)
    assert not np.allclose(after["bn/bias"], 0)  # the trainable part moved by sgd


def test_batch_norm_inference_uses_the_moving_averages(batch_norm_runs):
    _, _, _, after, inference, unmoved, fixed_v = batch_norm_runs
    scale = np.sqrt(after["bn/moving_variance"] + 1e-5)
    want = (STEPS[0] - after["bn/moving_mean"]) / scale * after["bn/scale"] + after["bn/bias"]
    np.testing.assert_allclose(inference, want, rtol=1e-4, atol=1e-5)
    for n, v in unmoved.items():
        np.testing.assert_array_equal(v, after[n], err_msg=n)
    np.testing.assert_allclose(fixed_v, STEPS[0] / np.sqrt(1 + 1e-5), rtol=1e-6)  # initial stats 0 and 1


def test_batch_norm_gradient_matches_jax():
    g = sg.Graph()
    with g:
        x = sg.placeholder(IMG.shape, sg.float32, name="x")
        h = sg.nn.batch_norm(x, training=True, scale_init=drawn, name="bn")
        dx = sg.gradients((h * IMG[::-1]).sum(), [x])[0]
    with sg.Session(g, seed=2) as sess:
        got, scale = sess.run([dx, g.tensor("bn/scale")], {x: IMG})

    def f(x):
        return jnp.sum((jax.nn.standardize(x, axis=(0, 1, 2)) * scale) * IMG[::-1])

    with jax.enable_x64(False):
        np.testing.assert_allclose(got, jax.grad(f)(IMG), rtol=1e-3, atol=1e-4)


def test_update_ops_group_into_a_hand_made_train_op():
    g = sg.Graph()
    with g:
        x = sg.placeholder((4, 2), sg.float32, name="x")
        sg.nn.batch_norm(x, momentum=0.5, name="bn")
        train = sg.group(sg.nn.update_ops())
    xs = np.arange(8, dtype=np.float32).reshape(4, 2)
    with sg.Session(g) as sess:
        sess.run(train, {x: xs})
        np.testing.assert_allclose(sess.get(g.tensor("bn/moving_mean")), 0.5 * xs.mean(0))
        np.testing.assert_allclose(sess.get(g.tensor("bn/moving_variance")), 0.5 + 0.5 * xs.var(0))


def test_norm_errors():
    with sg.Graph():
        x = sg.placeholder((2, 6), sg.float32, name="x")
        with pytest.raises(sg.GraphError, match="do not split into groups"):
            sg.nn.group_norm(x, 4)
        with pytest.raises(sg.GraphError, match="momentum"):
            sg.nn.batch_norm(x, momentum=1.5)
        with pytest.raises(sg.GraphError, match="static feature"):
            sg.nn.layer_norm(sg.placeholder((2, "f"), sg.float32, name="y"))
