"""sg.custom_jvp against jax.custom_jvp (ops/custom_jvp.py): values, forward and reverse mode
(the user's jvp transposed), higher orders, vectorize, nests, closures and errors.

The rules below are deliberately not the true derivative (a factor 2 on one
term) so that agreeing with jax proves the user's rule was used.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

R = np.random.default_rng(0)
X, Y = R.normal(size=(3,)), R.normal(size=(3,))
XS, YS = R.normal(size=(2, 3)), R.normal(size=(2, 3))


pytestmark = pytest.mark.usefixtures("jax_x64")  # the jax oracle computes in float64 here


def make(xp, custom_jvp, scale=None):
    """f(x, y) = sin(x) * y with a rule that doubles the x term; its jvp calls f itself."""

    @custom_jvp
    def f(x, y):
        return xp.sin(x) * y

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        dx = xp.cos(x) * y * tx * 2.0
        if scale is not None:
            dx = dx * scale  # a closed-over tensor
        return f(x, y), dx + f(x, ty)  # f(x, ty) = sin(x) * ty: the jvp calls f in its tangent too

    return f


def make_tree(xp, custom_jvp):
    """Nests in and out."""

    @custom_jvp
    def g(d):
        return {"s": xp.exp(d["a"]) + d["b"][0], "t": d["a"] * 2.0}

    @g.defjvp
    def g_jvp(primals, tangents):
        ((d,), (t,)) = primals, tangents
        return g(d), {"s": 3.0 * xp.exp(d["a"]) * t["a"] + t["b"][0], "t": t["a"] * 2.0}

    return g


def loss(xp, f):
    return lambda x, y: xp.sum(f(x, y) ** 2 * xp.tanh(x))


def cases(xp, lib, custom_jvp, scale, data):
    X, Y, XS, YS = data  # noqa: N806  (the module's arrays, as each library's values)
    f, g = make(xp, custom_jvp, scale), make_tree(xp, custom_jvp)
    tree = {"a": X, "b": [Y]}
    return {
        "value": f(X, Y),
        "jvp": lib.jvp(f, (X, Y), (Y, X)),
        "grad": lib.grad(loss(xp, f), argnums=(0, 1))(X, Y),
        "hessian": lib.hessian(loss(xp, f))(X, Y),
        "jvp_of_grad": lib.jvp(lib.grad(loss(xp, f)), (X, Y), (Y, X)),
        "jacrev": lib.jacrev(f)(X, Y),
        "vmap": lib.vmap(f)(XS, YS),
        "vmap_grad": lib.vmap(lib.grad(loss(xp, f), argnums=(0, 1)))(XS, YS),
        "grad_vmap": lib.grad(lambda a, b: xp.sum(lib.vmap(f)(a, b)), argnums=(0, 1))(XS, YS),
        "tree_jvp": lib.jvp(g, (tree,), ({"a": Y, "b": [X]},)),
        "tree_grad": lib.grad(lambda d: xp.sum(g(d)["s"] * g(d)["t"]))(tree),
        "closure": lib.grad(loss(xp, make(xp, custom_jvp, scale * 0.5)))(X, Y),
    }


def test_custom_jvp_matches_jax():
    g = sg.Graph()
    with g:
        scale = sg.constant(np.float64(1.5))
        fetch = cases(snp, sg, sg.custom_jvp, scale, [sg.constant(a) for a in (X, Y, XS, YS)])
    with sg.Session(g) as sess:
        got = sess.run(fetch)
    want = jax.jit(lambda s, d: cases(jnp, jax, jax.custom_jvp, s, d))(np.float64(1.5), (X, Y, XS, YS))
    for name in want:
        g_leaves, g_tree = jax.tree_util.tree_flatten(got[name])
        w_leaves, w_tree = jax.tree_util.tree_flatten(want[name])
        assert g_tree == w_tree, name
        for k, (a, b) in enumerate(zip(g_leaves, w_leaves)):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=f"{name} leaf {k}")


def test_defjvps_and_the_derivative_of_fun_itself_is_never_taken():
    """fun is built on stop_gradient'ed arguments: a while_loop (no vjp) inside it is fine."""

    @sg.custom_jvp
    def f(x, y):
        return sg.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1] * y), (0, x))[1]

    f.defjvps(lambda tx, out, x, y: tx * y * y, lambda ty, out, x, y: 2.0 * x * y * ty)
    g = sg.Graph()
    with g:
        x, y = sg.constant(X), sg.constant(Y)
        fetch = (
            f(x, y),
            sg.grad(lambda a, b: snp.sum(f(a, b)), argnums=(0, 1))(x, y),
            sg.jvp(f, (x, y), (y, x))[1],
        )
    with sg.Session(g) as sess:
        value, grads, tangent = sess.run(fetch)
    np.testing.assert_allclose(value, X * Y * Y)
    np.testing.assert_allclose(grads[0], Y * Y)
    np.testing.assert_allclose(grads[1], 2 * X * Y)
    np.testing.assert_allclose(tangent, Y * Y * Y + 2 * X * Y * X)


def test_errors_point_at_the_jvp():
    f = sg.custom_jvp(lambda x: snp.sin(x))
    g = sg.Graph()
    with g:
        x = sg.constant(X)
        with pytest.raises(sg.GraphError, match=r"test_custom_jvp.py:\d+.*has no jvp: use @.*defjvp"):
            f(x)
        f.defjvp(lambda p, t: (snp.sin(p[0]), (t[0],)))
        with pytest.raises(sg.GraphError, match=r"test_custom_jvp.py:\d+.*tangents structured as \(\*,\)"):
            f(x)
        f.defjvp(lambda p, t: (snp.sin(p[0]), t[0][:2]))
        with pytest.raises(
            sg.GraphError, match=r"returned a tangent f64\[2\] for output 0, which is f64\[3\]"
        ):
            f(x)
