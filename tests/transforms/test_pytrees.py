"""Nests (tuples, lists, dicts, None) through grad, value_and_grad, vjp, jvp, vectorize and the
jacobians, against jax; unsupported leaves name their path (transforms/ad_args.py)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

R = np.random.default_rng(0)


pytestmark = pytest.mark.usefixtures("jax_x64")  # the jax oracle computes in float64 here


PARAMS = {"w": R.normal(size=(3, 4)), "b": R.normal(size=(3,)), "extra": [R.normal(size=(2,)), None]}
X = R.normal(size=(4,))


def loss(xp):
    def f(p, x):
        h = xp.tanh(p["w"] @ x + p["b"])
        return xp.sum(h * h) + xp.sum(p["extra"][0] ** 3)

    return f


def model(xp):
    """Nest in, nest out."""

    def f(p, x):
        h = p["w"] @ x
        return {"h": xp.sin(h), "pair": (xp.sum(h * p["b"]), [p["extra"][0] * 2.0])}

    return f


def const_tree(tree):
    return jax.tree_util.tree_map(sg.constant, tree)


def assert_same_trees(got, want, rtol=1e-9, atol=1e-12):
    g_leaves, g_tree = jax.tree_util.tree_flatten(got)
    w_leaves, w_tree = jax.tree_util.tree_flatten(want)
    assert g_tree == w_tree, (g_tree, w_tree)
    for k, (a, b) in enumerate(zip(g_leaves, w_leaves)):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"leaf {k}")


def control(xp, lax):
    """Nests through cond and scan, differentiated."""

    def f(p, x):
        h = lax.cond(
            x[0] < 1, lambda d: {"v": d["w"] @ x, "n": None}, lambda d: {"v": d["w"][:, 0], "n": None}, p
        )
        carry, ys = lax.scan(
            lambda c, v: ({"s": c["s"] + v * c["s"]}, [v * 2, {"q": v}]), {"s": x[0]}, h["v"]
        )
        return carry["s"] + xp.sum(ys[1]["q"] * ys[0])

    return f


def jax_side(params, x, ct, tangent):
    """What the sg side computes, from jax (one jit for all)."""
    j_out, j_vjp = jax.vjp(model(jnp), params, x)
    xs = jnp.stack([x, 2 * x])
    return {
        "grad": jax.grad(loss(jnp))(params, x),
        "grad01": jax.grad(loss(jnp), argnums=(0, 1))(params, x),
        "vg": jax.value_and_grad(loss(jnp))(params, x),
        "aux": jax.grad(lambda q, v: (loss(jnp)(q, v), {"x": v}), has_aux=True)(params, x),
        "vjp": (j_out, j_vjp(ct)),
        "jvp": jax.jvp(model(jnp), (params, x), (tangent, x)),
        "jacrev": jax.jacrev(model(jnp))(params, x),
        "jacfwd": jax.jacfwd(model(jnp), argnums=(0, 1))(params, x),
        "vmap": jax.vmap(jax.grad(loss(jnp)), in_axes=(None, 0))(params, xs),
        "control": jax.grad(control(jnp, jax.lax))(params, x),
    }


def test_autodiff_of_nests_matches_jax():
    ct = {"h": R.normal(size=(3,)), "pair": (np.float64(0.7), [R.normal(size=(2,))])}
    tangent = {"w": R.normal(size=(3, 4)), "b": R.normal(size=(3,)), "extra": [R.normal(size=(2,)), None]}
    g = sg.Graph()
    with g:
        p, x = const_tree(PARAMS), sg.constant(X)
        out, vjp_fn = sg.vjp(model(snp), p, x)
        fetch = {
            "grad": sg.grad(loss(snp))(p, x),
            "grad01": sg.grad(loss(snp), argnums=(0, 1))(p, x),
            "vg": sg.value_and_grad(loss(snp))(p, x),
            "aux": sg.grad(lambda q, v: (loss(snp)(q, v), {"x": v}), has_aux=True)(p, x),
            "vjp": (out, vjp_fn(const_tree(ct))),
            "jvp": sg.jvp(model(snp), (p, x), (const_tree(tangent), x)),
            "jacrev": sg.jacrev(model(snp))(p, x),
            "jacfwd": sg.jacfwd(model(snp), argnums=(0, 1))(p, x),
            "vmap": sg.vmap(sg.grad(loss(snp)), in_axes=(None, 0))(p, sg.constant(np.stack([X, 2 * X]))),
            "control": sg.grad(control(snp, sg))(p, x),
        }
    with sg.Session(g) as sess:
        got = sess.run(fetch)
    want = jax.jit(jax_side)(PARAMS, X, ct, tangent)
    for name in want:
        assert_same_trees(got[name], want[name])


def test_the_readme_example_and_functions():
    w, b, x = R.normal(size=(2, 3)), R.normal(size=(2,)), R.normal(size=(3,))
    f = sg.function(lambda p, v: snp.sum(snp.tanh(p @ v)), [w, x])
    df = sg.grad(f, argnums=(0, 1))
    assert isinstance(df, sg.Function) and [t.shape for t in df.out_types] == [(2, 3), (3,)]
    g = sg.Graph()
    with g:
        tree_grads = sg.grad(lambda p, v: snp.sum(p["w"] @ v + p["b"]))({"w": w, "b": b}, sg.constant(x))
        from_fn = df(sg.constant(w), sg.constant(x))
    with sg.Session(g) as sess:
        got, got_fn = sess.run([tree_grads, from_fn])
    assert_same_trees(got, {"w": np.broadcast_to(x, (2, 3)), "b": np.ones(2)})
    assert_same_trees(got_fn, jax.grad(lambda p, v: jnp.sum(jnp.tanh(p @ v)), argnums=(0, 1))(w, x))


def test_unsupported_leaves_name_their_path():
    g = sg.Graph()
    with g:
        x = sg.constant(X)
        with pytest.raises(sg.GraphError, match=r"test_pytrees.py:\d+.*args\[0\]\['w'\] is a str"):
            sg.grad(lambda p, v: snp.sum(v))({"w": "weights", "b": x}, x)
        with pytest.raises(sg.GraphError, match=r"primals\[1\]\[0\] is a object"):
            sg.vjp(lambda a, b: a, x, [object()])
        with pytest.raises(sg.GraphError, match=r"tangents structured like the primals"):
            sg.jvp(lambda a: a, ({"a": x},), ({"b": x},))
        with pytest.raises(sg.GraphError, match=r"output\['y'\] is a str"):
            sg.jacrev(lambda a: {"y": "no"})(x)
        with pytest.raises(sg.GraphError, match=r"vjp_fn wants cotangents structured like the outputs"):
            sg.vjp(lambda a: (a, a), x)[1]([x])
        with pytest.raises(sg.GraphError, match="argnums=2 needs at least 3"):
            sg.grad(lambda a, b: snp.sum(a), argnums=2)(x, x)
