"""jacfwd, jacrev, jacobian and hessian against jax's on composite functions (transforms/jacobians.py).

Each formula is written once against a numpy-like module ``xp``; every
(formula, transform, argnums) case is built into one graph and run once,
the oracle into one jit.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

R = np.random.default_rng(0)


pytestmark = pytest.mark.usefixtures("jax_x64")  # the jax oracle computes in float64 here


def mlp_loss(xp):
    def f(w, x, y):
        h = xp.tanh(x @ w["w1"] + w["b1"])
        z = h @ w["w2"]
        m = xp.max(z, axis=-1, keepdims=True)
        log_p = z - m - xp.log(xp.sum(xp.exp(z - m), axis=-1, keepdims=True))
        return -xp.mean(xp.sum(y * log_p, axis=-1))

    return f


def vector_fn(xp):
    """Two outputs, broadcasting, a reduction and an output that ignores x."""

    def f(a, x):
        return {"u": xp.sin(a @ x) * xp.exp(a.sum(axis=1)), "v": (a * a)[0], "c": xp.ones(2) * 3.0}

    return f


def with_aux(xp):
    def f(a, x):
        return xp.sum(xp.cos(a @ x) ** 2), {"norm": xp.sqrt(xp.sum(x * x))}

    return f


W = {"w1": R.normal(size=(3, 2)), "b1": R.normal(size=(2,)), "w2": R.normal(size=(2, 2))}
XB, YB = R.normal(size=(2, 3)), np.eye(2)[R.integers(0, 2, 2)]
A, X = R.normal(size=(3, 2)), R.normal(size=(2,))

# name -> (formula, args, transform name, kwargs)
CASES = {
    "mlp_jacrev": (mlp_loss, (W, XB, YB), "jacrev", {}),
    "mlp_jacfwd": (mlp_loss, (W, XB, YB), "jacfwd", {}),
    "mlp_hessian": (mlp_loss, (W, XB, YB), "hessian", {}),
    "mlp_hessian_01": (mlp_loss, (W, XB, YB), "hessian", {"argnums": (0, 1)}),
    "vector_jacfwd": (vector_fn, (A, X), "jacfwd", {"argnums": (0, 1)}),
    "vector_jacrev": (vector_fn, (A, X), "jacrev", {"argnums": (0, 1)}),
    "vector_jacobian": (vector_fn, (A, X), "jacobian", {"argnums": 1}),
    "aux_jacfwd": (with_aux, (A, X), "jacfwd", {"argnums": 1, "has_aux": True}),
    "aux_jacrev": (with_aux, (A, X), "jacrev", {"argnums": (0,), "has_aux": True}),
    "aux_hessian": (with_aux, (A, X), "hessian", {"argnums": 0, "has_aux": True}),
}


def jax_all(cases, args):
    """Every case from jax; the arguments are traced, not closed over (folding them costs XLA seconds)."""
    return {name: getattr(jax, t)(f(jnp), **kw)(*args[name]) for name, (f, _, t, kw) in cases.items()}


def assert_same_trees(got, want, label="", rtol=1e-8, atol=1e-11):
    g_leaves, g_tree = jax.tree_util.tree_flatten(got)
    w_leaves, w_tree = jax.tree_util.tree_flatten(want)
    assert g_tree == w_tree, (label, g_tree, w_tree)
    for k, (a, b) in enumerate(zip(g_leaves, w_leaves)):
        assert a.shape == b.shape, (label, k, a.shape, b.shape)
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"{label} leaf {k}")


def test_jacobians_match_jax():
    g = sg.Graph()
    fetch = {}
    with g:
        for name, (f, args, t, kw) in CASES.items():
            fetch[name] = getattr(sg, t)(f(snp), **kw)(*jax.tree_util.tree_map(sg.constant, args))
    with sg.Session(g) as sess:
        got = sess.run(fetch)
    want = jax.jit(lambda a: jax_all(CASES, a))({name: case[1] for name, case in CASES.items()})
    for name in CASES:
        assert_same_trees(got[name], want[name], name)


def test_a_function_gives_a_function():
    f = sg.function(lambda a, x: snp.tanh(a @ x), [A, X])
    jac, hess = sg.jacfwd(f, argnums=(0, 1)), sg.hessian(sg.function(lambda x: snp.sum(snp.sin(x) ** 3), [X]))
    assert isinstance(jac, sg.Function) and isinstance(hess, sg.Function)
    assert [t.shape for t in jac.out_types] == [(3, 3, 2), (3, 2)]
    g = sg.Graph()
    with g:
        got_fetch = (jac(sg.constant(A), sg.constant(X)), hess(sg.constant(X)))
    with sg.Session(g) as sess:
        got = sess.run(got_fetch)
    want = jax.jit(
        lambda a, x: (
            jax.jacfwd(lambda a, x: jnp.tanh(a @ x), argnums=(0, 1))(a, x),
            jax.hessian(lambda x: jnp.sum(jnp.sin(x) ** 3))(x),
        )
    )(A, X)
    assert_same_trees(got, want)


def test_the_basis_is_built_not_stored():
    """jacrev of a 64-vector: the basis comes from iota, no 64 x 64 constant in the graph."""
    g = sg.Graph()
    with g:
        x = sg.placeholder((64,), sg.float64)
        sg.jacrev(lambda v: snp.sin(v) * v)(x)
    assert all(n.op.name != "constant" or n.output.size <= 1 for n in g.nodes)


def test_errors_name_the_problem():
    g = sg.Graph()
    with g:
        with pytest.raises(
            sg.GraphError, match=r"test_jacobians.py:\d+.*shapes known while building.*args\[0\]"
        ):
            sg.jacfwd(snp.sin)(sg.placeholder(("n",), sg.float32))
        with pytest.raises(sg.GraphError, match="cannot take the Jacobian with respect to"):
            sg.jacrev(lambda i: i * 2)(sg.constant(np.arange(3)))
        with pytest.raises(sg.GraphError, match=r"args\[1\]\['k'\] is a str"):
            sg.jacrev(lambda a, d: a, argnums=1)(sg.constant(X), {"k": "v"})
