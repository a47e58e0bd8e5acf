"""sg.nn activations and one_hot against jax.nn (values and gradients), extremes included."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg

jax.config.update("jax_platforms", "cpu")

RNG = np.random.default_rng(0)
EXTREMES = np.array([-1e3, -100.0, -30.0, -1.0, -1e-3, 0.0, 1e-3, 1.0, 5.9, 6.0, 6.1, 30.0, 100.0, 1e3])
X = np.concatenate([RNG.normal(0, 3, 50), EXTREMES]).astype(np.float32)

ELEMENTWISE = {
    "relu": jax.nn.relu,
    "relu6": jax.nn.relu6,
    "gelu": jax.nn.gelu,
    "gelu_exact": lambda x: jax.nn.gelu(x, approximate=False),
    "silu": jax.nn.silu,
    "swish": jax.nn.swish,
    "sigmoid": jax.nn.sigmoid,
    "softplus": jax.nn.softplus,
    "log_sigmoid": jax.nn.log_sigmoid,
    "elu": jax.nn.elu,
    "elu_alpha": lambda x: jax.nn.elu(x, alpha=0.5),
    "leaky_relu": jax.nn.leaky_relu,
    "leaky_relu_slope": lambda x: jax.nn.leaky_relu(x, negative_slope=0.2),
    "tanh": jnp.tanh,
}


def _ours(name):
    return {
        "gelu_exact": lambda x: sg.nn.gelu(x, approximate=False),
        "elu_alpha": lambda x: sg.nn.elu(x, alpha=0.5),
        "leaky_relu_slope": lambda x: sg.nn.leaky_relu(x, negative_slope=0.2),
    }.get(name, getattr(sg.nn, name, None))


LOGITS = np.stack(
    [RNG.normal(0, 2, 7), RNG.normal(0, 2, 7) + 1e3, np.array([1e3, -1e3, 0, 5, -5, 1e3, 2])]
).astype(np.float32)
W = RNG.normal(size=LOGITS.shape).astype(np.float32)
WX = RNG.normal(size=X.shape).astype(np.float32)


@pytest.fixture(scope="module")
def results():
    g = sg.Graph()
    with g:
        x = sg.placeholder(X.shape, sg.float32, name="x")
        z = sg.placeholder(LOGITS.shape, sg.float32, name="z")
        out = {name: _ours(name)(x) for name in ELEMENTWISE}
        for name in ELEMENTWISE:  # d/dx sum(w * f(x)) gives f' weighted, one gradient per function
            out["d_" + name] = sg.gradients((_ours(name)(x) * WX).sum(), [x])[0]
        for name in ("softmax", "log_softmax"):
            for axis in (-1, 0):
                f = getattr(sg.nn, name)
                out[f"{name}{axis}"] = f(z, axis=axis)
                out[f"d_{name}{axis}"] = sg.gradients((f(z, axis=axis) * W).sum(), [z])[0]
        out["softmax_both"] = sg.nn.softmax(z, axis=(0, 1))
        labels = sg.constant(np.array([[0, 3, -1], [4, 2, 7]], np.int32))
        out["one_hot"] = sg.nn.one_hot(labels, 5)
        out["one_hot_axis0"] = sg.nn.one_hot(labels, 5, dtype=sg.int32, axis=0)
        out["one_hot_uint8"] = sg.nn.one_hot(sg.constant(np.array([1, 255, 0], np.uint8)), 300)
    with sg.Session(g) as sess:
        return sess.run(out, {x: X, z: LOGITS})


@jax.jit
def _jax_oracle(x, z):
    """Every jax.nn reference in one jitted program (eager jax would compile op by op)."""
    out = {}
    for name, f in ELEMENTWISE.items():
        out[name] = f(x)
        out["d_" + name] = jax.grad(lambda x, f=f: jnp.sum(f(x) * WX))(x)
    for name in ("softmax", "log_softmax"):
        f = getattr(jax.nn, name)
        for axis in (-1, 0):
            out[f"{name}{axis}"] = f(z, axis=axis)
            out[f"d_{name}{axis}"] = jax.grad(lambda z, f=f, axis=axis: jnp.sum(f(z, axis=axis) * W))(z)
    out["softmax_both"] = jax.nn.softmax(z, axis=(0, 1))
    return out


@pytest.fixture(scope="module")
def oracle():
    return {k: np.asarray(v) for k, v in _jax_oracle(jnp.asarray(X), jnp.asarray(LOGITS)).items()}


@pytest.mark.parametrize("name", list(ELEMENTWISE))
def test_elementwise_values_match_jax(results, oracle, name):
    want = oracle[name]
    got = results[name]
    assert got.dtype == np.float32 and got.shape == X.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name", list(ELEMENTWISE))
def test_elementwise_gradients_match_jax(results, oracle, name):
    want = oracle["d_" + name]
    got = results["d_" + name]
    assert np.all(np.isfinite(got)), name
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)


def test_softplus_is_stable_at_extremes(results):
    sp = results["softplus"][-len(EXTREMES) :]
    assert sp[EXTREMES == 100.0][0] == np.float32(100.0)
    assert sp[EXTREMES == 1e3][0] == np.float32(1e3)
    assert 0.0 <= sp[EXTREMES == -100.0][0] <= 1e-43  # exp(-100) is subnormal in float32
    np.testing.assert_allclose(sp[EXTREMES == -30.0][0], np.exp(-30.0), rtol=1e-5)
    np.testing.assert_allclose(results["log_sigmoid"][-len(EXTREMES) :][EXTREMES == -1e3][0], -1e3)


def test_relu_gradient_is_zero_at_zero(results):
    at_zero = np.flatnonzero(X == 0)[0]
    assert results["d_relu"][at_zero] == 0.0
    assert results["d_relu6"][np.flatnonzero(X == 6)[0]] == 0.0


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_family_matches_jax(results, oracle, name, axis):
    want, grad = oracle[f"{name}{axis}"], oracle[f"d_{name}{axis}"]
    assert np.all(np.isfinite(results[f"{name}{axis}"]))
    np.testing.assert_allclose(results[f"{name}{axis}"], want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(results[f"d_{name}{axis}"], grad, rtol=1e-4, atol=1e-5)


def test_softmax_over_several_axes(results, oracle):
    np.testing.assert_allclose(results["softmax_both"], oracle["softmax_both"], rtol=1e-5, atol=1e-7)


def test_one_hot_matches_jax(results):
    labels = np.array([[0, 3, -1], [4, 2, 7]], np.int32)
    want = (labels[..., None] == np.arange(5)).astype(np.float32)
    assert results["one_hot"].dtype == np.float32
    np.testing.assert_array_equal(results["one_hot"], want)
    np.testing.assert_array_equal(results["one_hot"][0, 2], np.zeros(5))  # out of range: all zeros
    want0 = np.moveaxis(want, -1, 0).astype(np.int32)
    assert results["one_hot_axis0"].dtype == np.int32 and results["one_hot_axis0"].shape == (5, 2, 3)
    np.testing.assert_array_equal(results["one_hot_axis0"], want0)
    np.testing.assert_array_equal(results["one_hot_uint8"], np.eye(300, dtype=np.float32)[[1, 255, 0]])


def test_one_hot_rejects_bad_num_classes():
    with sg.Graph(), pytest.raises(sg.GraphError, match="num_classes"):
        sg.nn.one_hot(sg.constant(np.array([1], np.int32)), 2.5)
