"""Gradients of composite functions against jax.grad, the public autodiff API, its errors,
and the size of the MLP gradient graph (transforms/autodiff.py, transforms/backward.py).

Each formula is written once against a numpy-like module ``xp`` and run with
``xp=snp`` (our graph) and ``xp=jnp`` (the oracle), in float64.
"""

from __future__ import annotations

import inspect
from collections import Counter

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.graph import opdef
from stablegraph.ops.primitives.registry import bind

R = np.random.default_rng(0)
F64 = sg.float64


pytestmark = pytest.mark.usefixtures("jax_x64")  # the jax oracle computes in float64 here


def types(*arrays):
    return [sg.TensorType(np.shape(a), sg.dtype(np.asarray(a).dtype)) for a in arrays]


def sg_grad(run, f, args, argnums=0):
    """sg.grad of ``f(snp, *args)`` as a Function, run on ``args``."""
    df = sg.grad(sg.function(lambda *xs: f(snp, *xs), types(*args)), argnums=argnums)
    return run(df, *args)


def jax_grad(f, args, argnums=0):
    """jax.grad of ``f(jnp, *args)``, jitted: one compile instead of one per primitive."""
    return jax.jit(jax.grad(lambda *xs: f(jnp, *xs), argnums=argnums))(*args)


def assert_trees_close(got, want, rtol=1e-10, atol=1e-12):
    got = got if isinstance(got, tuple | list) else (got,)
    want = want if isinstance(want, tuple | list) else (want,)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, np.asarray(w), rtol=rtol, atol=atol, err_msg=f"leaf {k}")


# -- the formulas ----------------------------------------------------------------
def log_softmax(xp, z):
    m = xp.max(z, axis=-1, keepdims=True)
    s = z - m
    return s - xp.log(xp.sum(xp.exp(s), axis=-1, keepdims=True))


def mlp_loss(xp, w1, b1, w2, b2, x, y):
    """Two layers, tanh, softmax cross-entropy against one-hot ``y``, mean over the batch."""
    h = xp.tanh(x @ w1 + b1)
    return -xp.mean(xp.sum(y * log_softmax(xp, h @ w2 + b2), axis=-1))


def mlp_args(batch=6, sizes=(4, 5, 3)):
    n_in, n_hidden, n_out = sizes
    y = np.eye(n_out)[R.integers(0, n_out, batch)]
    return [R.normal(size=(n_in, n_hidden)), R.normal(size=n_hidden), R.normal(size=(n_hidden, n_out)),
            R.normal(size=n_out), R.normal(size=(batch, n_in)), y]  # fmt: skip


@pytest.fixture(scope="module")
def mlp():
    """MLP arguments with jax's loss and gradients for all four parameters (one jax compile)."""
    args = mlp_args()
    value, grads = jax.jit(jax.value_and_grad(lambda *xs: mlp_loss(jnp, *xs), argnums=(0, 1, 2, 3)))(*args)
    return args, float(value), [np.asarray(g) for g in grads]


def logsumexp(xp, x):
    m = xp.max(x, axis=-1, keepdims=True)
    return xp.sum(m[..., 0] + xp.log(xp.sum(xp.exp(x - m), axis=-1)))


def norm(xp, x):
    return xp.sqrt(xp.sum(x**2))


# -- composite functions vs jax.grad --------------------------------------------
def test_mlp_softmax_xent(run, mlp):
    args, _, want = mlp
    assert_trees_close(sg_grad(run, mlp_loss, args, (0, 1, 2, 3)), want)


def test_mlp_with_a_symbolic_batch(run):
    args = mlp_args(batch=7)
    in_types = types(*args)
    in_types[4] = sg.TensorType(("batch", 4), F64)
    in_types[5] = sg.TensorType(("batch", 3), F64)
    df = sg.grad(sg.function(lambda *xs: mlp_loss(snp, *xs), in_types), argnums=(0, 2))
    assert_trees_close(run(df, *args), jax_grad(mlp_loss, args, (0, 2)))


def test_logsumexp_at_large_inputs(run):
    x = 1e3 + R.normal(size=(3, 4))
    got = sg_grad(run, logsumexp, [x])
    assert_trees_close(got, jax_grad(logsumexp, [x]))
    softmax = np.exp(x - x.max(1, keepdims=True))
    softmax /= softmax.sum(1, keepdims=True)
    np.testing.assert_allclose(got, softmax, rtol=1e-12)
    lse = run(sg.grad(sg.function(lambda v: sg.scipy.special.logsumexp(v, axis=1).sum(), types(x))), x)
    np.testing.assert_allclose(lse, softmax, rtol=1e-12)


def test_norm_at_zero_is_nan_like_jax(run):
    """d sqrt(s)/ds is inf at 0 and ds/dx is 0: the plain formula gives NaN, in JAX too."""
    zero = np.zeros(3)
    got, want = sg_grad(run, norm, [zero]), np.asarray(jax_grad(norm, [zero]))
    assert np.isnan(want).all() and np.isnan(got).all()
    x = R.normal(size=3)
    assert_trees_close(sg_grad(run, norm, [x]), jax_grad(norm, [x]))


def test_norm_at_zero_with_custom_vjp(run):
    """A custom_vjp gives the norm the subgradient 0 at 0 (what a library norm should do)."""

    @sg.custom_vjp
    def safe_norm(x):
        return norm(snp, x)

    def fwd(x):
        n = norm(snp, x)
        return n, (x, n)

    def bwd(res, g):
        x, n = res
        return (g * x / snp.where(n == 0, 1.0, n),)

    safe_norm.defvjp(fwd, bwd)
    x = np.stack([np.zeros(3), R.normal(size=3)])
    got = run(lambda v: [sg.grad(safe_norm)(v[0]), sg.grad(safe_norm)(v[1])], x)
    np.testing.assert_array_equal(got[0], np.zeros(3))
    assert_trees_close(got[1], jax_grad(norm, [x[1]]))


def where_fn(xp, x):
    pos = x > 0
    safe_log = xp.where(pos, xp.log(xp.where(pos, x, 1.0)), 0.0)  # the double-where trick
    return xp.sum(xp.where(pos, x**2, xp.sin(x)) + safe_log) + xp.sum(
        xp.maximum(x, 0.3) * xp.clip(x, -0.5, 0.5)
    )


def test_where_and_select(run):
    x = R.normal(size=(3, 4))
    x[0, 0] = 0.0  # log's masked slot must not leak a NaN
    got = sg_grad(run, where_fn, [x])
    assert np.isfinite(got).all()
    assert_trees_close(got, jax_grad(where_fn, [x]))


def index_fn(xp, x, v):
    idx = np.array([2, 0, 2])
    y = x[idx] ** 2
    z = x[1:, ::2] * x[:-1, 1::2]
    w = x.at[idx].add(v)  # idx repeats 2: both updates add up
    return xp.sum(y * 1.5) + xp.sum(z) + xp.sum(xp.tanh(w) * x) + xp.sum(x[..., None, 1] ** 3)


def test_indexing_and_at_add(run):
    args = [R.normal(size=(4, 4)), R.normal(size=(3, 4))]
    assert_trees_close(sg_grad(run, index_fn, args, (0, 1)), jax_grad(index_fn, args, (0, 1)))


def keepdims_fn(xp, x):
    p = x / xp.sum(x, axis=1, keepdims=True)
    c = x - xp.mean(x, axis=0, keepdims=True)
    m = xp.max(x, axis=(0, 1), keepdims=True)
    return xp.sum(p**2) + xp.sum(c * xp.std(x, axis=1, keepdims=True)) + xp.sum(x / m) + xp.var(x)


def test_reductions_with_keepdims(run):
    x = R.uniform(0.5, 2.0, size=(3, 4))
    assert_trees_close(sg_grad(run, keepdims_fn, [x]), jax_grad(keepdims_fn, [x]))


def test_stop_gradient(run):
    x = R.normal(size=4)
    got = sg_grad(run, lambda xp, v: xp.sum(v * sg.stop_gradient(v)), [x])
    want = jax.jit(jax.grad(lambda v: jnp.sum(v * jax.lax.stop_gradient(v))))(x)
    assert_trees_close(got, want)


# -- the public API ----------------------------------------------------------------
def test_tf1_gradients(mlp):
    args, _, want = mlp
    g = sg.Graph()
    with g:
        phs = [sg.placeholder(np.shape(a), F64) for a in args]
        loss = mlp_loss(snp, *phs)
        other = snp.sum(phs[0] ** 2)
        unused = sg.placeholder((2,), F64)
        grads = sg.gradients(loss, phs[:4])
        summed = sg.gradients([loss, other], [phs[0], unused])
        scaled = sg.gradients(loss, [phs[2]], grad_ys=[snp.asarray(3.0, F64)])
    with sg.Session(g) as sess:
        feeds = dict(zip(phs, args)) | {unused: np.zeros(2)}
        got, got_summed, got_scaled = sess.run([grads, summed, scaled], feeds)
    assert_trees_close(got, want)
    assert_trees_close(got_summed, [np.asarray(want[0]) + 2 * args[0], np.zeros(2)])
    assert_trees_close(got_scaled, [3 * np.asarray(want[2])])


def test_grad_argnums_and_has_aux(run, mlp):
    args, value, want = mlp

    def loss_aux(*xs):
        loss = mlp_loss(snp, *xs)
        return loss, {"loss": loss, "hidden": snp.tanh(xs[4] @ xs[0])}

    df = sg.grad(sg.function(loss_aux, types(*args)), argnums=(0, 3), has_aux=True)
    assert isinstance(df, sg.Function)
    (gw1, gb2), aux = run(df, *args)
    assert_trees_close((gw1, gb2), (want[0], want[3]))
    np.testing.assert_allclose(aux["loss"], value, rtol=1e-12)
    np.testing.assert_allclose(aux["hidden"], np.tanh(args[4] @ args[0]), rtol=1e-12)


def test_value_and_grad(run, mlp):
    args, want_value, want = mlp
    f = sg.function(lambda *xs: mlp_loss(snp, *xs), types(*args))
    both = sg.value_and_grad(f, argnums=(0,))
    single = sg.value_and_grad(f, argnums=2)
    (value, (gw1,)), (value2, gw2) = run(lambda *xs: (both(*xs), single(*xs)), *args)
    np.testing.assert_allclose([value, value2], [want_value] * 2, rtol=1e-12)
    assert_trees_close((gw1, gw2), (want[0], want[2]))


def issue_loss(xp, w, x, y):
    return xp.mean((xp.tanh(x @ w) - y) ** 2)


def test_higher_order_as_in_the_issue(run):
    w, X, Y = R.normal(size=(3, 2)), R.normal(size=(5, 3)), R.normal(size=(5, 2))
    f = sg.function(lambda *a: issue_loss(snp, *a), [sg.TensorType((3, 2), F64),
                    sg.TensorType(("batch", 3), F64), sg.TensorType(("batch", 2), F64)])  # fmt: skip
    ddf = sg.grad(sg.function(lambda v: sg.grad(f)(v, X, Y).sum(), [sg.TensorType((3, 2), F64)]))
    dddf = sg.grad(sg.function(lambda v: ddf(v).sum(), [sg.TensorType((3, 2), F64)]))
    got = run(lambda v: (ddf(v), dddf(v)), w)

    def jf(v):
        return jax.grad(lambda u: issue_loss(jnp, u, X, Y))(v).sum()

    want = jax.jit(lambda v: (jax.grad(jf)(v), jax.grad(lambda u: jax.grad(jf)(u).sum())(v)))(w)
    assert_trees_close(got, want)


def test_jvp_and_vjp_inline(run):
    x, t, c = R.normal(size=(2, 3)), R.normal(size=(2, 3)), R.normal(size=3)

    def f(xp, v):
        return xp.sum(xp.tanh(v) * v, axis=0)

    def build(v, tv, cv):
        out, tout = sg.jvp(lambda u: f(snp, u), [v], [tv])
        _, vjp_fn = sg.vjp(lambda u: f(snp, u), v)
        return out, tout, vjp_fn(cv)[0]

    got = run(build, x, t, c)

    def oracle(v, tv, cv):
        out, tout = jax.jvp(lambda u: f(jnp, u), (v,), (tv,))
        return out, tout, jax.vjp(lambda u: f(jnp, u), v)[1](cv)[0]

    assert_trees_close(got, jax.jit(oracle)(x, t, c))


# -- errors --------------------------------------------------------------------------
def test_grad_wrt_an_integer_input_names_it_and_the_line():
    f = sg.function(lambda x, n: snp.sum(x) * n, [sg.TensorType((3,), F64), sg.TensorType((), sg.int32)])
    with pytest.raises(sg.GraphError) as e:
        line = inspect.currentframe().f_lineno + 1
        sg.grad(f, argnums=1)
    message = str(e.value)
    assert "with respect to n:" in message and "i32[]" in message, message
    assert f"test_grad_vs_jax.py:{line}" in message, message


def test_gradients_wrt_an_integer_placeholder_names_it_and_the_line():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), F64, name="x")
        line = inspect.currentframe().f_lineno + 1
        n = sg.placeholder((), sg.int32, name="count")
        y = snp.sum(x) * n
        with pytest.raises(sg.GraphError) as e:
            sg.gradients(y, [x, n])
    assert "with respect to count:" in str(e.value) and "i32[]" in str(e.value), e.value
    assert f"test_grad_vs_jax.py:{line}" in str(e.value), e.value


def test_a_primitive_without_a_rule_names_it_and_the_line(monkeypatch):
    monkeypatch.setattr(opdef, "_OPS", dict(opdef._OPS))  # keep the fake op out of the real registry
    fake = sg.OpDef("fake_identity", lambda attrs, x: x, reasons={"vjp": "a test op"})
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), F64)
        line = inspect.currentframe().f_lineno + 1
        y = snp.sum(bind(fake, snp.sin(x)) ** 2)
        with pytest.raises(sg.GraphError) as e:
            sg.gradients(y, [x])
    message = str(e.value)
    assert "fake_identity" in message and "a test op" in message, message
    assert f"test_grad_vs_jax.py:{line}" in message, message


# -- the size of the gradient graph -----------------------------------------------
def test_mlp_gradient_graph_is_at_most_1_3x_jax():
    args = mlp_args()
    argnums = (0, 1, 2, 3)
    df = sg.simplify(sg.grad(sg.function(lambda *xs: mlp_loss(snp, *xs), types(*args)), argnums=argnums))
    ours = [n for n in df.graph.nodes if n.op.name != "parameter"]
    jaxpr = jax.make_jaxpr(jax.grad(lambda *xs: mlp_loss(jnp, *xs), argnums=argnums))(*args)
    theirs = len(jaxpr.jaxpr.eqns)
    kinds = Counter(n.op.name for n in ours).most_common()
    assert len(ours) <= 1.3 * theirs, f"{len(ours)} nodes vs {theirs} jaxpr equations; by kind: {kinds}\n{df}"
