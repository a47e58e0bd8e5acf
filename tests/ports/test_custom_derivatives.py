"""JAX's custom derivatives tutorial, ported as a JAX user writes it: ``clip_gradient`` (a custom_vjp
whose bwd returns None for its bounds), ``f_fwd`` that calls the decorated ``f`` itself,
``nondiff_argnums`` with a function argument, a dict of parameters through a custom_vjp, the
``log1pexp`` custom_jvp, and all of them under ``vmap`` (with keyword arguments, in_axes dicts and
out_axes). One graph, one run; the same code in jax is the oracle."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp


def tutorial(np_, lib):
    """The tutorial's functions over one API (jax or stablegraph): name -> result."""

    @lib.custom_vjp
    def clip_gradient(lo, hi, x):
        return x  # identity function

    def clip_gradient_fwd(lo, hi, x):
        return x, (lo, hi)  # save bounds as residuals

    def clip_gradient_bwd(res, g):
        lo, hi = res
        return (None, None, np_.clip(g, lo, hi))  # None: zero cotangents for lo and hi

    clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)

    @lib.custom_vjp
    def f(x, y):
        return np_.sin(x) * y

    def f_fwd(x, y):
        return f(x, y), (np_.cos(x), np_.sin(x), y)  # the documented pattern: fwd calls f

    def f_bwd(res, g):
        cos_x, sin_x, y = res
        return (cos_x * g * y, sin_x * g)

    f.defvjp(f_fwd, f_bwd)

    @partial(lib.custom_vjp, nondiff_argnums=(0,))
    def app(fn, x):
        return fn(x)

    def app_fwd(fn, x):
        return app(fn, x), x

    def app_bwd(fn, x, g):
        return (5 * g,)

    app.defvjp(app_fwd, app_bwd)

    @lib.custom_vjp
    def clip_tree(params):
        return params

    def clip_tree_fwd(params):
        return params, None

    def clip_tree_bwd(_, g):
        return ({k: np_.clip(v, -1.0, 1.0) for k, v in g.items()},)

    clip_tree.defvjp(clip_tree_fwd, clip_tree_bwd)

    @lib.custom_jvp
    def log1pexp(x):
        return np_.log(1.0 + np_.exp(x))

    log1pexp.defjvps(lambda t, ans, x: t * (1 - 1 / (1 + np_.exp(x))))

    def clipped_sin(x):
        return clip_gradient(-0.75, 0.75, np_.sin(x) * 3.0)

    def tree_loss(p):
        return np_.sum(clip_tree(p)["a"] * 3.0) + np_.sum(clip_tree(p)["b"] ** 2)

    def weighted(x, b, *, scale=2.0):
        return np_.sum(x * b) * scale

    xs = np_.linspace(0.0, 3.0, 5)
    rows, table = np_.ones((3, 2)), np_.arange(6.0).reshape(3, 2)
    return {
        "clip": lib.grad(clipped_sin)(2.0),
        "clip vmap": lib.vmap(lib.grad(clipped_sin))(xs),
        "f": f(3.0, 4.0),
        "grad f": lib.grad(f, argnums=(0, 1))(3.0, 4.0),
        "vmap grad f": lib.vmap(lib.grad(f))(xs, np_.ones(5)),
        "app": lib.grad(lambda x: app(lambda y: y**2, x))(4.0),
        "tree": lib.grad(tree_loss)({"a": np_.ones(2), "b": np_.arange(3.0)}),
        "log1pexp": lib.vmap(lib.grad(log1pexp))(np_.array([0.0, 10.0, 100.0])),
        "vmap keywords": lib.vmap(weighted)(rows, b=table),
        "vmap keyword grads": lib.vmap(lib.grad(weighted))(rows, b=table),
        "in_axes dict": lib.vmap(lambda d: d["a"] @ d["b"], in_axes=({"a": 0, "b": None},))(
            {"a": np_.ones((4, 3)), "b": np_.arange(3.0)}
        ),
        "out_axes": lib.vmap(lambda x: (x, x * 2), out_axes=(0, 1))(table),
    }


def test_custom_derivatives_tutorial_matches_jax():
    want = tutorial(jnp, jax)
    g = sg.Graph()
    with g:
        fetches = tutorial(snp, sg)
    with sg.Session(g) as sess:
        got = sess.run(fetches)
    assert set(got) == set(want)
    for name in want:
        assert jax.tree.structure(got[name]) == jax.tree.structure(want[name]), name
        for a, b in zip(jax.tree.leaves(got[name]), jax.tree.leaves(want[name])):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7, err_msg=name)
