"""sg.nn.max_pool, min_pool and avg_pool against jax.lax.reduce_window with flax's pooling rules
(batch dims in front, features last, padding words, count_include_pad), gradients against jax.grad."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg

jax.config.update("jax_platforms", "cpu")

RNG = np.random.default_rng(8)
IMG = RNG.normal(size=(2, 7, 5, 3)).astype(np.float32)
SEQ = RNG.normal(size=(3, 10, 2)).astype(np.float32)
MANY = RNG.normal(size=(2, 2, 4, 4, 1)).astype(np.float32)  # two batch dims
INPUTS = {"img": IMG, "seq": SEQ, "many": MANY, "img0": IMG[0]}

# name: (kind, input, window, strides, padding, count_include_pad)
CASES = {
    "max_valid": ("max", "img", (2, 2), (2, 2), "VALID", True),
    "max_same": ("max", "img", (3, 2), (2, 2), "SAME", True),
    "max_pairs": ("max", "seq", (3,), (2,), [(1, 2)], True),
    "min_same_lower": ("min", "img", (2, 3), None, "SAME_LOWER", True),
    "avg_valid": ("avg", "img", (3, 3), (1, 2), "VALID", True),
    "avg_same_incl": ("avg", "img", (3, 2), (2, 1), "SAME", True),
    "avg_same_excl": ("avg", "img", (3, 2), (2, 1), "SAME", False),
    "avg_pairs_excl": ("avg", "seq", (4,), (3,), [(2, 1)], False),
    "avg_many": ("avg", "many", (2, 2), (2, 2), "VALID", True),
    "max_unbatched": ("max", "img0", (2, 2), (1, 1), "VALID", True),
}


def _ours(kind, x, window, strides, padding, include):
    if kind == "avg":
        return sg.nn.avg_pool(x, window, strides=strides, padding=padding, count_include_pad=include)
    return getattr(sg.nn, f"{kind}_pool")(x, window, strides, padding)


REDUCERS = {"max": (-jnp.inf, jax.lax.max), "min": (jnp.inf, jax.lax.min), "avg": (0.0, jax.lax.add)}


def _flax_pool(kind, x, window, strides, padding, include):
    """flax.linen.pooling's rules on jax.lax.reduce_window."""
    n = len(window)
    lead = x.ndim - n - 1
    strides = strides or (1,) * n
    pad = padding if isinstance(padding, str) else ((0, 0),) * lead + tuple(map(tuple, padding)) + ((0, 0),)
    dims, steps = (1,) * lead + window + (1,), (1,) * lead + strides + (1,)
    init, op = REDUCERS[kind]
    y = jax.lax.reduce_window(x, init, op, dims, steps, pad)
    if kind != "avg":
        return y
    if include:
        return y / np.prod(window)
    return y / jax.lax.reduce_window(jnp.ones(x.shape[:-1] + (1,)), 0.0, jax.lax.add, dims, steps, pad)


@pytest.fixture(scope="module")
def results():
    g = sg.Graph()
    with g:
        phs = {k: sg.placeholder(v.shape, sg.float32, name=k) for k, v in INPUTS.items()}
        sym = sg.placeholder(("batch", 7, 5, 3), sg.float32, name="sym")
        out = {name: _ours(kind, phs[src], *rest) for name, (kind, src, *rest) in CASES.items()}
        out["symbolic"] = sg.nn.max_pool(sym, window=(2, 2), strides=(2, 2), padding="VALID")
        img = phs["img"]
        out["d_max"] = sg.gradients((sg.nn.max_pool(img, (3, 2), (2, 2), "SAME") * 1.5).sum(), [img])[0]
        out["d_avg"] = sg.gradients(
            (sg.nn.avg_pool(img, (3, 2), (2, 1), "SAME", count_include_pad=False) ** 2).sum(), [img]
        )[0]
        symbolic_type = str(out["symbolic"].type)
    with sg.Session(g) as sess:
        return sess.run(out, {**{phs[k]: v for k, v in INPUTS.items()}, sym: IMG}), symbolic_type


@pytest.fixture(scope="module")
def oracle():
    @jax.jit
    def all_cases(inputs):
        out = {name: _flax_pool(kind, inputs[src], *rest) for name, (kind, src, *rest) in CASES.items()}
        max_loss = lambda x: jnp.sum(_flax_pool("max", x, (3, 2), (2, 2), "SAME", True) * 1.5)  # noqa: E731
        avg_loss = lambda x: jnp.sum(_flax_pool("avg", x, (3, 2), (2, 1), "SAME", False) ** 2)  # noqa: E731
        out["d_max"], out["d_avg"] = jax.grad(max_loss)(IMG), jax.grad(avg_loss)(IMG)
        return out

    with jax.enable_x64(False):
        return jax.tree.map(np.asarray, all_cases(INPUTS))


@pytest.mark.parametrize("name", [*CASES, "d_max", "d_avg"])
def test_pools_match_flax_rules(results, oracle, name):
    got, _ = results
    assert got[name].shape == oracle[name].shape, name
    np.testing.assert_allclose(got[name], oracle[name], rtol=1e-5, atol=1e-6, err_msg=name)


def test_symbolic_batch_and_the_issue_spelling(results):
    got, symbolic_type = results
    assert symbolic_type == "f32[batch,3,2,3]"
    np.testing.assert_array_equal(got["symbolic"], got["max_valid"][:, :3])


def test_pool_errors():
    with sg.Graph():
        x = sg.placeholder((2, 4, 4, 3), sg.float32, name="x")
        with pytest.raises(sg.GraphError, match="exactly once"):
            sg.nn.max_pool(x)
        with pytest.raises(sg.GraphError, match="as a tuple"):
            sg.nn.avg_pool(x, 2)
        with pytest.raises(sg.GraphError, match="one stride per window dim"):
            sg.nn.max_pool(x, (2, 2), strides=(2,))
