"""sg.from_jax / sg.import_jax_exported: a JAX function as one module_call node whose values equal
jax's, whose gradients equal jax.grad, which vectorizes like jax.vmap, and which survives export."""

from __future__ import annotations

import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

RNG = np.random.default_rng(1)


def f(x, w, k):
    h = jnp.tanh(x @ w) * k.astype(jnp.float32)
    return {"y": jax.nn.logsumexp(h, axis=1), "z": x[1:] * 2 - jnp.abs(x[:-1])}


X = np.concatenate([RNG.standard_normal((4, 4)), [[0.0, -0.0, 1e-8, -3.0]]]).astype(np.float32)
W = RNG.standard_normal((4, 3)).astype(np.float32)
K = np.int32(3)


def test_values_and_gradients_equal_jax_at_two_batch_sizes():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 4), sg.float32, name="x")
        w = sg.placeholder((4, 3), sg.float32, name="w")
        k = sg.placeholder((), sg.int32, name="k")
        out = sg.from_jax(f, x, w, k)
        loss = out["y"].sum() + (out["z"] ** 2).sum()
        gx, gw = sg.gradients(loss, [x, w])
    assert "jax_f = module_call" in g.listing(expand=True)
    jloss = lambda x, w: (lambda o: o["y"].sum() + (o["z"] ** 2).sum())(f(x, w, K))  # noqa: E731
    with sg.Session(g) as sess:
        for xs in (X, X[:2]):
            got, got_gx, got_gw = sess.run([out, gx, gw], {x: xs, w: W, k: K})
            ref = jax.jit(f)(xs, W, K)
            np.testing.assert_allclose(got["y"], ref["y"], rtol=1e-6)
            np.testing.assert_allclose(got["z"], ref["z"], rtol=1e-6)
            ref_gx, ref_gw = jax.jit(jax.grad(jloss, argnums=(0, 1)))(xs, W)
            np.testing.assert_allclose(got_gx, ref_gx, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(got_gw, ref_gw, rtol=1e-5, atol=1e-6)


def test_vectorize_equals_jax_vmap():
    fn = lambda a: jnp.sort(a) * jnp.cumsum(a)  # noqa: E731
    row = sg.function(lambda a: sg.from_jax(fn, a), [sg.TensorType((5,), sg.float32)])
    batched = sg.vectorize(row)
    g = sg.Graph()
    with g:
        xb = sg.placeholder((3, 5), sg.float32)
        yb = batched(xb)
        (gx,) = sg.gradients(yb.sum(), [xb])
    xs = np.array([[3, 1, 2, 0, -0.0], [np.inf, 1, 1, 2, 5], [-1, -2, 7, 0.5, 0]], np.float32)
    with sg.Session(g) as sess:
        got, got_g = sess.run([yb, gx], {xb: xs})
    np.testing.assert_array_equal(got, jax.jit(jax.vmap(fn))(xs))
    ref_g = jax.jit(jax.grad(lambda v: jax.vmap(fn)(v).sum()))(xs)
    np.testing.assert_array_equal(got_g, ref_g)


def test_import_jax_exported_and_a_shape_jax_refuses():
    exp = jax.export.export(jax.jit(lambda a: jnp.sin(a) ** 2), platforms=("cpu",))(
        jax.ShapeDtypeStruct(jax.export.symbolic_shape("m, 2"), jnp.float32)
    )
    g = sg.Graph()
    with g:
        a = sg.placeholder((None, 2), sg.float32, name="a")
        b = sg.import_jax_exported(exp, a)
        (ga,) = sg.gradients(b.sum(), [a])
    xs = RNG.standard_normal((3, 2)).astype(np.float32)
    with sg.Session(g) as sess:
        got, got_g = sess.run([b, ga], {a: xs})
        np.testing.assert_allclose(got, np.sin(xs) ** 2, rtol=1e-6)
        np.testing.assert_allclose(got_g, np.sin(2 * xs), rtol=1e-5, atol=1e-6)
        with pytest.raises(sg.CompileError, match="does not run on"):
            sess.run(b, {a: np.zeros((0, 2), np.float32)})  # jax's shape assertion: m >= 1


def test_a_graph_calling_jax_exports_and_loads(tmp_path):
    g = sg.Graph()
    with g:
        x = sg.placeholder(("n", 3), sg.float32, name="x")
        y = snp.exp(sg.from_jax(lambda v: jnp.tanh(v) + 1, x))
    with sg.Session(g) as sess:
        sess.export({"y": y}, {"x": x}).save(tmp_path / "j.sgx")
    srv = sg.load_exported(tmp_path / "j.sgx")
    xs = RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_allclose(srv(x=xs)["y"], np.exp(np.tanh(xs) + 1), rtol=1e-6)


def test_export_names_custom_calls_outside_the_stable_list():
    def kernel(x):
        return jax.ffi.ffi_call("my_kernel", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

    check = jax.export.DisabledSafetyCheck.custom_call("my_kernel")
    exp = jax.export.export(jax.jit(kernel), platforms=("cpu",), disabled_checks=[check])(
        jax.ShapeDtypeStruct((3,), jnp.float32)
    )
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        y = sg.import_jax_exported(exp, x) * 2
        z = snp.linalg.inv(snp.eye(3) + x[:, None])  # LAPACK kernels are on the list
    with sg.Session(g) as sess:
        assert str(sess.export({"z": z}, {"x": x}).signature) == "x: f32[3] -> z: f32[3, 3]"
        with pytest.raises(sg.GraphError, match="custom calls outside the stable list.*: my_kernel"):
            sess.export({"y": y}, {"x": x})


def test_a_cpu_and_cuda_module_runs_its_cpu_branch_and_a_cuda_only_one_is_refused():
    fn = lambda a: jnp.linalg.inv(a) + jnp.sin(a)  # noqa: E731  (LAPACK on CPU, cuSOLVER on CUDA)
    cuda_only = jax.export.export(jax.jit(jnp.cos), platforms=("cuda",))(
        jax.ShapeDtypeStruct((3,), jnp.float32)
    )
    g = sg.Graph()
    with g:
        x = sg.placeholder((3, 3), sg.float32, name="x")
        y = sg.from_jax(fn, x)
        (gx,) = sg.gradients(y.sum(), [x])
        z = sg.import_jax_exported(cuda_only, x[0])
    a = np.array([[2.0, 0.1, -0.0], [0.1, 3.0, 0.5], [0.0, 0.5, 1e-3]], np.float32)
    with sg.Session(g) as sess:
        got, got_g = sess.run([y, gx], {x: a})
        with pytest.raises(sg.CompileError, match="exported for cuda, not cpu"):
            sess.run(z, {x: a})
    assert "platforms=(cpu, cuda)" in g.listing(expand=True)
    np.testing.assert_allclose(got, jax.jit(fn)(a), rtol=1e-5)
    np.testing.assert_allclose(got_g, jax.jit(jax.grad(lambda v: fn(v).sum()))(a), rtol=1e-4, atol=1e-5)


def test_second_order_and_vectorized_gradients_equal_jax():
    h = lambda v: (jnp.sin(v) * v).sum()  # noqa: E731
    t = sg.TensorType((3,), sg.float32)
    fs = sg.function(lambda x: sg.from_jax(h, x), [t])
    grad_of_sum_of_grad = sg.grad(sg.function(lambda x: sg.grad(fs)(x).sum(), [t]))
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32)
        xb = sg.placeholder((2, 3), sg.float32)
        second = grad_of_sum_of_grad(x)
        per_row = sg.vectorize(sg.grad(fs))(xb)
    a = np.array([0.3, -0.0, 2.0], np.float32)
    b = np.stack([a, np.array([np.pi, 1e-3, -5.0], np.float32)])
    with sg.Session(g) as sess:
        got_second, got_rows = sess.run([second, per_row], {x: a, xb: b})
    np.testing.assert_allclose(
        got_second, jax.jit(jax.grad(lambda v: jax.grad(h)(v).sum()))(a), rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(got_rows, jax.jit(jax.vmap(jax.grad(h)))(b), rtol=1e-5, atol=1e-6)


def test_without_jax_loaded_the_call_says_to_import_it():
    # the library never imports jax: in a process that has not, from_jax is a GraphError at the line
    script = (
        "import sys, stablegraph as sg\n"
        "g = sg.Graph()\n"
        "with g:\n"
        "    x = sg.placeholder((2,), sg.float32)\n"
        "    try:\n"
        "        sg.from_jax(lambda a: a, x)\n"
        "    except sg.GraphError as e:\n"
        "        print(str(e)); print('jax' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    message, loaded = done.stdout.strip().splitlines()
    assert "<string>:6" in message and "the caller's jax, which is not loaded" in message
    assert loaded == "False"
