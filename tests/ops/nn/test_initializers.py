"""sg.nn.initializers: jax.nn.initializers' values for one key, moments, fans, Session-seed reproducibility."""

import math

import jax
import numpy as np
import pytest

import stablegraph as sg
from stablegraph.nn import initializers as init

BIG = (200, 300)
CONV = (3, 3, 16, 32)  # fan_in = 3*3*16 = 144, fan_out = 3*3*32 = 288
DRAWS = {  # name: (initializer, shape), each drawn from its own key in one program
    "glorot_uniform": (init.glorot_uniform(), BIG),
    "xavier_normal": (init.xavier_normal(), BIG),
    "fan_out_normal": (init.variance_scaling(2.0, "fan_out", "normal"), CONV),
    "fan_avg_uniform": (init.variance_scaling(3.0, "fan_avg", "uniform", dtype=sg.float64), CONV),
    "uniform": (init.uniform(2.0), BIG),
    "truncated_narrow": (init.truncated_normal(0.1, lower=-1.0, upper=0.5), BIG),
    "constant": (init.constant(0.25), (3, 4)),
    "zeros": (init.zeros, (5,)),
    "ones": (init.ones, (2, 3)),
    "ortho_conv": (init.orthogonal(column_axis=0), (6, 2, 3)),
}
JAX_KEYED = {  # name: (ours, jax's, shape), drawn directly from key 7
    "glorot_uniform": (init.glorot_uniform(), jax.nn.initializers.glorot_uniform(), (30, 40)),
    "he_normal": (init.he_normal(), jax.nn.initializers.he_normal(), CONV),
    "ortho": (init.orthogonal(), jax.nn.initializers.orthogonal(), (12, 5)),
    "ortho_wide": (init.orthogonal(column_axis=0), jax.nn.initializers.orthogonal(column_axis=0), (3, 4, 2)),
    "delta_1d": (init.delta_orthogonal(), jax.nn.initializers.delta_orthogonal(), (3, 4, 6)),
    "delta_2d": (init.delta_orthogonal(2.0), jax.nn.initializers.delta_orthogonal(2.0), (4, 3, 5, 5)),
    "delta_3d": (
        init.delta_orthogonal(column_axis=0),
        jax.nn.initializers.delta_orthogonal(column_axis=0),
        (2, 1, 3, 2, 3),
    ),
}


def _build():
    g = sg.Graph()
    with g:
        variables = {
            "glorot": sg.Variable(init.glorot_uniform(), (20, 30), name="glorot"),
            "ortho": sg.Variable(init.orthogonal(), (6, 4), name="ortho"),
            "ones": sg.Variable(init.ones, (2,), name="ones"),
        }
        root = sg.random.key(3)
        draws = {
            name: f(sg.random.fold_in(root, i), shape) for i, (name, (f, shape)) in enumerate(DRAWS.items())
        }
        key = sg.random.key(7)
        keyed = {name: f(key, shape) for name, (f, _, shape) in JAX_KEYED.items()}
    return g, variables, draws, keyed


@pytest.fixture(scope="module")
def runs():
    """Initialize from seeds 0, 0, 1; the draws and the jax-keyed draws come from one run."""
    g, variables, draws, keyed = _build()
    with sg.Session(g, seed=0) as sess:
        first = sess.run(
            {
                **variables,
                **{"d_" + k: v for k, v in draws.items()},
                **{"k_" + k: v for k, v in keyed.items()},
            }
        )
    with sg.Session(g, seed=0) as sess:
        again = sess.run(variables)
    with sg.Session(g, seed=1) as sess:
        other = sess.run(variables)
    values = {k[2:]: v for k, v in first.items() if k.startswith("d_")}
    keyed = {k[2:]: v for k, v in first.items() if k.startswith("k_")}
    return (values, keyed), (first, again, other)


def test_shapes_and_dtypes(runs):
    (values, keyed), _ = runs
    for name, (_, shape) in DRAWS.items():
        want = np.float64 if name == "fan_avg_uniform" else np.float32
        assert values[name].shape == shape and values[name].dtype == want, name


def test_variables_reproducible_from_the_session_seed(runs):
    _, (first, again, other) = runs
    for name in ("glorot", "ortho", "ones"):
        np.testing.assert_array_equal(first[name], again[name], err_msg=name)
    assert not np.array_equal(first["glorot"], other["glorot"])
    assert not np.array_equal(first["ortho"], other["ortho"])
    np.testing.assert_array_equal(other["ones"], np.ones(2))
    assert np.abs(first["glorot"]).max() <= math.sqrt(6 / 50)
    np.testing.assert_allclose(first["ortho"].T @ first["ortho"], np.eye(4), atol=2e-6)


def test_draws_differ_by_key(runs):
    (values, _), _ = runs
    assert not np.array_equal(values["xavier_normal"][0], values["xavier_normal"][1])
    assert not np.array_equal(values["glorot_uniform"], values["uniform"])


def test_constant_zeros_ones(runs):
    (values, _), _ = runs
    np.testing.assert_array_equal(values["constant"], np.full((3, 4), 0.25, np.float32))
    np.testing.assert_array_equal(values["zeros"], np.zeros(5))
    np.testing.assert_array_equal(values["ones"], np.ones((2, 3)))


def _assert_var(x, var, rel=0.06):
    assert abs(float(np.mean(x))) < 4 * math.sqrt(var / x.size) + 1e-9
    assert float(np.var(x)) == pytest.approx(var, rel=rel)


def test_variance_scaling_moments_and_bounds(runs):
    (v, _), _ = runs
    fan_in, fan_out = 200, 300
    bound = math.sqrt(6 / (fan_in + fan_out))
    assert np.abs(v["glorot_uniform"]).max() <= bound
    assert np.abs(v["glorot_uniform"]).max() > 0.99 * bound
    _assert_var(v["glorot_uniform"], 2 / (fan_in + fan_out))
    _assert_var(v["xavier_normal"], 2 / (fan_in + fan_out))  # truncation corrected
    assert np.abs(v["xavier_normal"]).max() < 2 * math.sqrt(2 / 500) / 0.87962566103423978
    conv_in, conv_out = 3 * 3 * 16, 3 * 3 * 32
    _assert_var(v["fan_out_normal"], 2 / conv_out, rel=0.08)
    assert np.abs(v["fan_avg_uniform"]).max() <= math.sqrt(3 * 3 / ((conv_in + conv_out) / 2))
    _assert_var(v["fan_avg_uniform"], 3 / ((conv_in + conv_out) / 2), rel=0.08)


def test_simple_distributions(runs):
    (v, _), _ = runs
    u = v["uniform"]
    assert u.min() >= 0 and u.max() < 2.0 and float(u.mean()) == pytest.approx(1.0, rel=0.03)
    t = v["xavier_normal"] / math.sqrt(2 / 500) * 0.87962566103423978  # back to the unit truncated normal
    assert t.min() > -2 and t.max() < 2 and t.min() < -1.9 and t.max() > 1.9
    n = v["truncated_narrow"]
    assert n.min() > -0.1 and n.max() < 0.05


def test_orthogonal(runs):
    (v, _), _ = runs
    c = v["ortho_conv"].reshape(6, 6)  # column_axis 0: the 6 rows of the flattened matrix
    np.testing.assert_allclose(c @ c.T, np.eye(6), atol=2e-6)


@jax.jit
def _jax_keyed(key):
    out = {name: f(key, shape) for name, (_, f, shape) in JAX_KEYED.items()}
    return out


def test_same_numbers_as_jax_for_one_key(runs):
    (_, keyed), _ = runs
    with jax.enable_x64(False):  # other test files switch jax's x64 on; jax's defaults then differ
        want = _jax_keyed(jax.random.PRNGKey(7))
    for name in JAX_KEYED:
        np.testing.assert_allclose(keyed[name], np.asarray(want[name]), rtol=2e-5, atol=2e-6, err_msg=name)


def test_errors():
    with sg.Graph():
        with pytest.raises(sg.GraphError, match="mode"):
            init.variance_scaling(1.0, "fan_max", "normal")
        with pytest.raises(sg.GraphError, match="distribution"):
            init.variance_scaling(1.0, "fan_in", "cauchy")
        with pytest.raises(sg.GraphError, match="1-d shape"):
            init.glorot_uniform()(sg.random.key(0), (5,))
        with pytest.raises(sg.GraphError, match="floating"):
            init.normal()(sg.random.key(0), (5,), sg.int32)
        with pytest.raises(sg.GraphError, match="3-d, 4-d or 5-d"):
            init.delta_orthogonal()(sg.random.key(0), (3, 3))
        with pytest.raises(sg.GraphError, match="fan_in <= fan_out"):
            init.delta_orthogonal()(sg.random.key(0), (3, 5, 4))


def test_every_initializer_is_an_initializer():
    made = [init.zeros, init.ones, init.delta_orthogonal(), init.glorot_uniform(), init.constant(1.0)]
    assert all(isinstance(f, init.Initializer) for f in made)
    assert not isinstance(3, init.Initializer)
