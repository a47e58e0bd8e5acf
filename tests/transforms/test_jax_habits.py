"""Habits of JAX users, against jax: sg.vmap with keyword arguments and its in_axes checked as
jax.vmap checks them (a GraphError at the user's line naming the entry), and sg.custom_vjp /
sg.custom_jvp whose rules call the decorated function itself (JAX's documented pattern), with
nested arguments and nondiff_argnums, under grad of grad and vmap."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

FILE = pathlib.Path(__file__).name
R = np.random.default_rng(13)
pytestmark = pytest.mark.usefixtures("jax_x64")


def test_vmap_maps_keyword_arguments_at_axis_0():
    import jax
    import jax.numpy as jnp

    X, Y, Z = R.normal(size=(4, 3)), R.normal(size=(4, 3)), R.normal(size=(4, 2, 3))

    def f(np_):
        return lambda x, b, scale=None: np_.sin(x) * b + (0.0 if scale is None else scale["s"].sum(0))

    g = sg.Graph()
    with g:
        x, y, z = sg.constant(X), sg.constant(Y), sg.constant(Z)
        got = [
            sg.vmap(f(snp))(x, b=y),
            sg.vmap(f(snp), in_axes=(1,))(snp.transpose(x), b=y),  # in_axes covers the positional ones only
            sg.vmap(f(snp))(x, y, scale={"s": z}),  # a nest of keyword arguments, mapped at axis 0 too
            sg.vmap(f(snp), in_axes=None, axis_size=4)(x[0], b=y),  # only the keyword argument is mapped
        ]
    with sg.Session(g) as sess:
        got = sess.run(got)
    want = [
        jax.vmap(f(jnp))(X, b=Y),
        jax.vmap(f(jnp), in_axes=(1,))(X.T, b=Y),
        jax.vmap(f(jnp))(X, Y, scale={"s": Z}),
        jax.vmap(f(jnp), in_axes=None, axis_size=4)(X[0], b=Y),
    ]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_bad_in_axes_are_errors_at_the_users_line_naming_the_entry():
    import jax

    g = sg.Graph()
    with g:
        x = sg.placeholder((3, 2), sg.float32, name="x")
        add = lambda a, b: a + b  # noqa: E731
        cases = [
            (lambda: sg.vmap(add, in_axes=(0.5, 0))(x, x), r"in_axes\[0\] is 0.5 \(a float\)", (0.5, 0)),
            (lambda: sg.vmap(add, in_axes="0")(x, x), r"in_axes is '0' \(a str\): give an int", "0"),
            (lambda: sg.vmap(add, in_axes=(0, [0, "a"]))(x, x), r"in_axes\[1\]\[1\] is 'a'", (0, [0, "a"])),
            (lambda: sg.vmap(add, in_axes=(0, True))(x, x), r"in_axes\[1\] is True \(a bool\)", None),
            (lambda: sg.vmap(add, in_axes={"a": 0})(x, x), r"in_axes is \{'a': 0\} \(a dict\)", {"a": 0}),
            (lambda: sg.vmap(add, out_axes=1.0)(x, x), r"out_axes is 1.0 \(a float\)", None),
            (lambda: sg.vmap(add, in_axes=(0, -3))(x, x), r"in_axes\[1\] = -3 is out of range", None),
            (lambda: sg.vmap(add, in_axes=(0, 2))(x, x), r"in_axes\[1\] = 2 is out of range", None),
            (lambda: sg.vmap(add, in_axes=(0, 0, 0))(x, x), "in_axes has 3 entries for 2 positional", None),
            (lambda: sg.vmap(add, in_axes=((0, 0), 0))(x, x),
             r"in_axes\[0\] is a tuple of axes, but the value there is a single value", None),
            (lambda: sg.vmap(lambda d: d["a"], in_axes=({"b": 0},))({"a": x}),
             r"in_axes\[0\] = \{'b': 0\} does not match the structure of the values there", None),
            (lambda: sg.vmap(lambda a, b: a + b)(x, b=x[0, 0]),
             r"kwargs\['b'\] = 0 is out of range for a batched value of rank 0", None),
        ]  # fmt: skip
        for make, match, jax_too in cases:
            with pytest.raises(sg.GraphError, match=match) as e:
                make()
            assert str(e.value).startswith(f"{FILE}:{make.__code__.co_firstlineno}: "), str(e.value)
            if jax_too is not None:  # jax refuses these already when vmap is called
                with pytest.raises((TypeError, ValueError)):
                    jax.vmap(add, in_axes=jax_too)
        # the check happens when sg.vmap is called, as jax's
        with pytest.raises(sg.GraphError, match=r"in_axes\[0\] is 0.5"):
            sg.vmap(add, in_axes=(0.5, 0))


@sg.custom_vjp
def f(x, y):
    return snp.sin(x) * y


def f_fwd(x, y):
    return f(x, y), (snp.cos(x), snp.sin(x), y)  # calls f itself: JAX's documented pattern


def f_bwd(res, g):
    cos_x, sin_x, y = res
    return (cos_x * g * y, sin_x * g)


f.defvjp(f_fwd, f_bwd)


@sg.custom_vjp
def softplus(x):
    return snp.logaddexp(x, 0.0)


def softplus_fwd(x):
    y = softplus(x)
    return y, y  # the residual is the output itself


softplus.defvjp(softplus_fwd, lambda y, g: (g * (1.0 - snp.exp(-y)),))


def _jax_versions():
    import jax
    import jax.numpy as jnp

    @jax.custom_vjp
    def jf(x, y):
        return jnp.sin(x) * y

    jf.defvjp(lambda x, y: (jf(x, y), (jnp.cos(x), jnp.sin(x), y)), lambda r, g: (r[0] * g * r[2], r[1] * g))

    @jax.custom_vjp
    def jsoftplus(x):
        return jnp.logaddexp(x, 0.0)

    jsoftplus.defvjp(lambda x: (jsoftplus(x), jsoftplus(x)), lambda y, g: (g * (1.0 - jnp.exp(-y)),))
    return jf, jsoftplus


def _uses(sgl, np_, f, softplus, X, Y):
    """The same derivatives in jax's spelling: ``sgl`` is sg or jax."""
    return {
        "value": f(X, Y),
        "grad": sgl.grad(lambda a, b: np_.sum(f(a, b)), argnums=(0, 1))(X, Y),
        "grad of grad": sgl.grad(lambda a: np_.sum(sgl.grad(lambda b: np_.sum(f(b, Y)))(a)))(X),
        "vmap of grad": sgl.vmap(sgl.grad(lambda a, b: np_.sum(f(a, b))))(
            np_.stack([X, 2 * X]), np_.stack([Y, Y])
        ),
        "softplus grad of grad": sgl.grad(lambda a: np_.sum(sgl.grad(lambda b: np_.sum(softplus(b)))(a)))(X),
        "softplus vmap": sgl.vmap(sgl.grad(lambda a: np_.sum(softplus(a))))(np_.stack([X, -X])),
    }


def test_a_custom_vjp_whose_fwd_calls_the_function_itself():
    import jax
    import jax.numpy as jnp

    X, Y = np.array([0.1, 0.5, 2.0, -1.0]), np.array([1.5, -0.3, 2.0, 0.7])
    g = sg.Graph()
    with g:
        got = _uses(sg, snp, f, softplus, sg.constant(X), sg.constant(Y))
    with sg.Session(g) as sess:
        got = sess.run(got)
    want = _uses(jax, jnp, *_jax_versions(), X, Y)
    for k in want:
        for a, b in zip(*(v if k == "grad" else [v] for v in (got[k], want[k]))):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, err_msg=k)


def test_custom_vjp_takes_nests_and_nondiff_argnums_as_jax():
    import functools

    import jax
    import jax.numpy as jnp

    def clip_gradient_in(np_, custom_vjp):  # jax's documented clip_gradient, lo/hi non-differentiable
        @functools.partial(custom_vjp, nondiff_argnums=(0, 1))
        def clip_gradient(lo, hi, x):
            return x

        clip_gradient.defvjp(lambda lo, hi, x: (x, None), lambda lo, hi, _, g: (np_.clip(g, lo, hi),))
        return clip_gradient

    def dense_in(np_, custom_vjp):  # a dict of parameters as one argument
        @custom_vjp
        def dense(p, x):
            return np_.tanh(x @ p["w"] + p["b"])

        def fwd(p, x):
            y = dense(p, x)
            return y, (p, x, y)

        def bwd(res, g):
            p, x, y = res
            d = g * (1 - y**2)
            return {"w": x.T @ d, "b": d.sum(0)}, d @ p["w"].T

        dense.defvjp(fwd, bwd)
        return dense

    X, W, B = R.normal(size=(2, 3)), R.normal(size=(3, 3)), R.normal(size=3)

    def uses(sgl, np_, custom_vjp, X, W, B):
        clip, dense = clip_gradient_in(np_, custom_vjp), dense_in(np_, custom_vjp)
        return {
            "clip": sgl.grad(lambda a: np_.sum(clip(-0.5, 0.5, a * 3.0)))(X),
            "dense": sgl.grad(lambda p, x: np_.sum(dense(p, x) ** 2), argnums=(0, 1))({"w": W, "b": B}, X),
        }

    g = sg.Graph()
    with g:
        got = uses(sg, snp, sg.custom_vjp, sg.constant(X), sg.constant(W), sg.constant(B))
    with sg.Session(g) as sess:
        got = sess.run(got)
    want = uses(jax, jnp, jax.custom_vjp, X, W, B)
    np.testing.assert_allclose(got["clip"], want["clip"], rtol=1e-12)
    for k in ("w", "b"):
        np.testing.assert_allclose(got["dense"][0][k], want["dense"][0][k], rtol=1e-12)
    np.testing.assert_allclose(got["dense"][1], want["dense"][1], rtol=1e-12)


def test_a_custom_jvp_whose_rule_calls_the_function_itself():
    import jax
    import jax.numpy as jnp

    def make(np_, custom_jvp):
        @custom_jvp
        def h(x):
            return np_.sin(x) * x

        @h.defjvp
        def h_jvp(primals, tangents):
            (x,), (t,) = primals, tangents
            return h(x), (np_.cos(x) * x + np_.sin(x)) * t

        return h

    X = np.array([0.3, -1.2, 2.5])

    def uses(sgl, np_, h, X):
        return {
            "grad of grad": sgl.grad(lambda a: np_.sum(sgl.grad(lambda b: np_.sum(h(b)))(a)))(X),
            "vmap of grad": sgl.vmap(sgl.grad(lambda a: np_.sum(h(a))))(np_.stack([X, 2 * X])),
            "jvp": sgl.jvp(h, (X,), (np_.ones_like(X),))[1],
        }

    g = sg.Graph()
    with g:
        got = uses(sg, snp, make(snp, sg.custom_jvp), sg.constant(X))
    with sg.Session(g) as sess:
        got = sess.run(got)
    want = uses(jax, jnp, make(jnp, jax.custom_jvp), X)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-12, err_msg=k)
