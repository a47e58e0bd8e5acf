"""The newer sg.nn activations (selu ... soft_sign, glu) and softmax/log_softmax with ``where``, against jax.nn."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg

jax.config.update("jax_platforms", "cpu")

RNG = np.random.default_rng(3)
EDGES = np.array([-1e3, -30.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 30.0, 1e3, 2.9, -2.9, 1.5, -1.5])
X = np.concatenate([RNG.normal(0, 3, 40), EDGES]).astype(np.float32)
WX = RNG.normal(size=X.shape).astype(np.float32)
Z = RNG.normal(0, 2, (3, 6)).astype(np.float32)
WZ = RNG.normal(size=Z.shape).astype(np.float32)
WHERE = RNG.random(Z.shape) < 0.7
WHERE[:, 0] = True  # every row and column keeps an entry
WHERE[0, :] = True
G = RNG.normal(size=(3, 8)).astype(np.float32)


def _squareplus(x, b):
    return jnp.where(x < 0, b / (2 * (jnp.sqrt(x * x + b) - x)), jax.nn.squareplus(x, b))


ELEMENTWISE = {
    "selu": (jax.nn.selu, sg.nn.selu),
    "celu": (jax.nn.celu, sg.nn.celu),
    "celu_alpha": (lambda x: jax.nn.celu(x, alpha=0.5), lambda x: sg.nn.celu(x, alpha=0.5)),
    "mish": (jax.nn.mish, sg.nn.mish),
    "hard_sigmoid": (jax.nn.hard_sigmoid, sg.nn.hard_sigmoid),
    "hard_silu": (jax.nn.hard_silu, sg.nn.hard_silu),
    "hard_swish": (jax.nn.hard_swish, sg.nn.hard_swish),
    "hard_tanh": (jax.nn.hard_tanh, sg.nn.hard_tanh),
    "soft_sign": (jax.nn.soft_sign, sg.nn.soft_sign),
    "softsign": (jax.nn.soft_sign, sg.nn.softsign),
    "identity": (jax.nn.identity, sg.nn.identity),
    # below 0 jax's (x + sqrt(x^2 + b)) / 2 cancels (2% off at x = -1e3 in float32): the oracle is
    # its rationalized form b / (2 (sqrt(x^2 + b) - x)) there
    "squareplus": (lambda x: _squareplus(x, 4.0), sg.nn.squareplus),
    "squareplus_b": (lambda x: _squareplus(x, 0.5), lambda x: sg.nn.squareplus(x, 0.5)),
    "sparse_plus": (jax.nn.sparse_plus, sg.nn.sparse_plus),
    "sparse_sigmoid": (jax.nn.sparse_sigmoid, sg.nn.sparse_sigmoid),
    # on x > 0 only, where it is defined: |x| + 0.01 reaches both branches (around log 2)
    "log1mexp": (
        lambda x: jax.nn.log1mexp(jnp.abs(x) + 0.01),
        lambda x: sg.nn.log1mexp(sg.numpy.abs(x) + 0.01),
    ),
}


def _softmaxes(lib, z, where):
    return {
        "softmax_where": lib.softmax(z, where=where),
        "softmax_where0": lib.softmax(z, axis=0, where=where),
        "log_softmax_where": lib.log_softmax(z, where=where),
        "softmax_all": lib.softmax(z, axis=None),
        "log_softmax_all": lib.log_softmax(z, axis=None),
        "logmeanexp": lib.logmeanexp(z, axis=1),
        "logmeanexp_where": lib.logmeanexp(z, axis=0, where=where, keepdims=True),
        "logmeanexp_all": lib.logmeanexp(z * 30.0),
    }


@pytest.fixture(scope="module")
def results():
    g = sg.Graph()
    with g:
        x = sg.placeholder(X.shape, sg.float32, name="x")
        z = sg.placeholder(Z.shape, sg.float32, name="z")
        gin = sg.placeholder(G.shape, sg.float32, name="g")
        where = sg.constant(WHERE)
        out = {}
        for name, (_, ours) in ELEMENTWISE.items():
            out[name] = ours(x)
            out["d_" + name] = sg.gradients((ours(x) * WX).sum(), [x])[0]
        out.update(_softmaxes(sg.nn, z, where))
        finite = sg.numpy.where(where, sg.nn.log_softmax(z, where=where), 0.0)
        out["d_softmax_where"] = sg.gradients((sg.nn.softmax(z, where=where) * WZ).sum(), [z])[0]
        out["d_log_softmax_where"] = sg.gradients((finite * WZ).sum(), [z])[0]
        out["d_logmeanexp_where"] = sg.gradients(
            (sg.nn.logmeanexp(z, axis=0, where=where) * WZ[0]).sum(), [z]
        )[0]
        out["glu"] = sg.nn.glu(gin)
        out["glu0"] = sg.nn.glu(gin.T, axis=0)
        out["d_glu"] = sg.gradients(sg.nn.glu(gin).sum(), [gin])[0]
    with sg.Session(g) as sess:
        return sess.run(out, {x: X, z: Z, gin: G})


@jax.jit
def _oracle(x, z, gin):
    out = {}
    for name, (theirs, _) in ELEMENTWISE.items():
        out[name] = theirs(x)
        out["d_" + name] = jax.grad(lambda x, f=theirs: jnp.sum(f(x) * WX))(x)
    out.update(_softmaxes(jax.nn, z, WHERE))
    out["d_softmax_where"] = jax.grad(lambda z: jnp.sum(jax.nn.softmax(z, where=WHERE) * WZ))(z)
    finite = lambda z: jnp.where(WHERE, jax.nn.log_softmax(z, where=WHERE), 0.0)  # noqa: E731
    out["d_log_softmax_where"] = jax.grad(lambda z: jnp.sum(finite(z) * WZ))(z)
    out["d_logmeanexp_where"] = jax.grad(
        lambda z: jnp.sum(jax.nn.logmeanexp(z, axis=0, where=WHERE) * WZ[0])
    )(z)
    out["glu"] = jax.nn.glu(gin)
    out["glu0"] = jax.nn.glu(gin.T, axis=0)
    out["d_glu"] = jax.grad(lambda g: jnp.sum(jax.nn.glu(g)))(gin)
    return out


@pytest.fixture(scope="module")
def oracle():
    with jax.enable_x64(False):
        return {k: np.asarray(v) for k, v in _oracle(X, Z, G).items()}


@pytest.mark.parametrize("name", sorted(set(ELEMENTWISE) | {"d_" + n for n in ELEMENTWISE}))
def test_elementwise_matches_jax(results, oracle, name):
    got, want = results[name], oracle[name]
    assert got.dtype == np.float32 and got.shape == X.shape
    assert np.all(np.isfinite(got)), name
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize(
    "name",
    ["softmax_where", "softmax_where0", "log_softmax_where", "softmax_all", "log_softmax_all",
     "d_softmax_where", "d_log_softmax_where", "glu", "glu0", "d_glu", "logmeanexp", "logmeanexp_where",
     "logmeanexp_all", "d_logmeanexp_where"],
)  # fmt: skip
def test_softmax_where_and_glu_match_jax(results, oracle, name):
    got, want = results[name], oracle[name]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)


def test_masked_entries_are_zero_or_minus_inf(results):
    assert np.all(results["softmax_where"][~WHERE] == 0)
    assert np.all(results["log_softmax_where"][~WHERE] == -np.inf)
    np.testing.assert_allclose(results["softmax_where"].sum(-1), 1.0, rtol=1e-6)


def test_glu_wants_an_even_axis():
    with sg.Graph():
        x = sg.placeholder((2, 5), sg.float32, name="x")
        with pytest.raises(sg.GraphError, match="glu wants an even"):
            sg.nn.glu(x)
