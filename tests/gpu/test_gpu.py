"""The same graphs and Session code on an NVIDIA GPU (CUDA PJRT plugin), against numpy and the CPU.

These need a GPU and `pip install 'stablegraph[cuda13]'` (or [cuda12]): they
carry the ``gpu`` mark, which the default run deselects (pyproject.toml);
`make test-gpu` runs them. float32 matrix products on a GPU may use TF32,
hence the looser tolerances where a product is involved.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import stablegraph as sg
import stablegraph.numpy as snp

pytestmark = pytest.mark.gpu
P = sg.PartitionSpec
RNG = np.random.default_rng(0)


@pytest.fixture(scope="module")
def gpu_mesh():
    found = sg.devices(platform="gpu")
    return sg.Mesh(found[:1], ("data",))


def test_gpu_devices_are_found(gpu_mesh):
    found = sg.devices(platform="gpu")
    assert found and all(d.platform in ("cuda", "gpu") for d in found)
    assert sg.make_mesh((1,), ("data",), devices=found).device_list[0].platform in ("cuda", "gpu")


def _mlp(dtype):
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 16), dtype, name="x", sharding=P("data", None))
        y = sg.placeholder(("batch",), sg.int32, name="y", sharding=P("data"))
        w1 = sg.Variable(sg.nn.initializers.glorot_uniform(), (16, 32), dtype, name="w1")
        w2 = sg.Variable(sg.nn.initializers.glorot_uniform(), (32, 4), dtype, name="w2")
        loss = sg.nn.softmax_cross_entropy_with_integer_labels(sg.nn.relu(x @ w1) @ w2, y).mean()
        train = sg.optim.adam(1e-2).minimize(loss)
    return g, x, y, w1, w2, loss, train


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_mlp_training_on_gpu_matches_cpu(gpu_mesh, tmp_path, dtype):
    # float64 products are exact on both; float32 ones may use TF32 on the GPU, which Adam's
    # normalized steps amplify for weights whose gradients are near zero: losses only, loosely
    g, x, y, w1, w2, loss, train = _mlp(sg.dtype(dtype))
    xs = RNG.normal(size=(64, 16)).astype(dtype)
    ys = RNG.integers(0, 4, 64).astype(np.int32)
    results = {}
    for name, mesh in (("gpu", gpu_mesh), ("cpu", None)):
        with sg.Session(g, mesh=mesh, seed=3) as sess:
            losses = [sess.run([loss, train], {x: xs, y: ys})[0] for _ in range(20)]
            results[name] = (np.array(losses), *sess.get([w1, w2]))
            if name == "gpu":
                assert sess.devices[0].platform in ("cuda", "gpu")
                sess.save(str(tmp_path / "gpu_ckpt"))
    assert results["gpu"][0][-1] < results["gpu"][0][0]  # it trains
    if dtype == "float64":
        for got, want in zip(results["gpu"], results["cpu"]):
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    else:
        np.testing.assert_allclose(results["gpu"][0], results["cpu"][0], rtol=5e-3)
    with sg.Session(g, seed=9) as cpu:  # a checkpoint written from GPU buffers restores on the CPU
        cpu.restore(str(tmp_path / "gpu_ckpt"))
        np.testing.assert_array_equal(cpu.get(w1), results["gpu"][1])


def test_scatter_set_gradient_follows_the_update_that_landed(gpu_mesh):
    # duplicate rows: which update lands is up to the GPU; the gradient must go to that one
    rows = np.array([[1], [3], [1], [1], [0]], np.int32)
    updates = RNG.normal(size=(5, 64))
    ct = RNG.normal(size=(4, 64))
    g = sg.Graph()
    with g:
        u = sg.placeholder(updates.shape, sg.float64, name="u")
        w = sg.placeholder(ct.shape, sg.float64, name="w")

        def f(v):
            return snp.zeros((4, 64), sg.float64).at[rows[:, 0]].set(v)

        out = f(u)
        du = sg.grad(lambda v: snp.sum(f(v) * w))(u)
    with sg.Session(g, mesh=gpu_mesh) as sess:
        got, got_du = sess.run([out, du], {u: updates, w: ct})
    want_du = np.zeros_like(updates)
    for col in range(64):
        for r in (0, 1, 3):
            landed = [i for i in range(5) if rows[i, 0] == r and updates[i, col] == got[r, col]]
            assert len(landed) == 1, (r, col)
            want_du[landed[0], col] = ct[r, col]
    np.testing.assert_array_equal(got_du, want_du)


def test_complex_convolution_and_failed_cholesky_on_gpu(gpu_mesh):
    img = RNG.normal(size=(2, 3, 9)) + 1j * RNG.normal(size=(2, 3, 9))
    kernel = RNG.normal(size=(4, 3, 3)) + 1j * RNG.normal(size=(4, 3, 3))
    g = sg.Graph()
    with g:
        x = sg.placeholder(img.shape, sg.complex128, name="x")
        k = sg.placeholder(kernel.shape, sg.complex128, name="k")
        m = sg.placeholder((3, 3), sg.float64, name="m")
        y = sg.lax.conv_general_dilated(x, k, (2,), "VALID")
        bad = snp.linalg.cholesky(m)
    with sg.Session(g, mesh=gpu_mesh) as sess:
        got, got_bad = sess.run([y, bad], {x: img, k: kernel, m: -np.eye(3)})
    want = np.stack([[[sum(img[n, c, 2 * t + j] * kernel[o, c, j] for c in range(3) for j in range(3))
                       for t in range(4)] for o in range(4)] for n in range(2)])  # fmt: skip
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert np.isnan(got_bad).all()


def test_ops_on_gpu_match_numpy(gpu_mesh):
    a = RNG.normal(size=(2, 6, 6))
    spd = a @ np.swapaxes(a, -1, -2) + 6 * np.eye(6)
    rhs = RNG.normal(size=(2, 6, 3))
    signal = RNG.normal(size=(4, 64)).astype(np.float32)
    img = RNG.normal(size=(2, 9, 9, 3)).astype(np.float32)
    kernel = RNG.normal(size=(3, 3, 3, 5)).astype(np.float32)
    g = sg.Graph()
    with g:
        s = sg.placeholder(spd.shape, sg.float64, name="spd")
        b = sg.placeholder(rhs.shape, sg.float64, name="rhs")
        t = sg.placeholder(signal.shape, sg.float32, name="signal")
        i = sg.placeholder(img.shape, sg.float32, name="img")
        k = sg.placeholder(kernel.shape, sg.float32, name="kernel")
        low = snp.linalg.cholesky(s)
        out = dict(
            chol=low,
            solve=sg.scipy.linalg.cho_solve((low, True), b),
            rfft=snp.fft.rfft(t),
            conv=sg.lax.conv_general_dilated(
                i, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
            ),
            pool=sg.nn.max_pool(i, (2, 2), strides=(2, 2)),
            sort=snp.sort(t, axis=-1),
            cumsum=snp.cumsum(t, axis=-1),
            logsumexp=sg.scipy.special.logsumexp(t, axis=-1),
            f64_sum=snp.sum(s, axis=(-1, -2)),
        )
    with sg.Session(g, mesh=gpu_mesh) as sess:
        got = sess.run(out, {s: spd, b: rhs, t: signal, i: img, k: kernel})
    import scipy.signal  # noqa: PLC0415
    import scipy.special  # noqa: PLC0415

    conv = np.stack([
        np.stack([sum(scipy.signal.correlate2d(img[n, :, :, c], kernel[:, :, c, o], mode="same")
                      for c in range(3)) for o in range(5)], axis=-1)
        for n in range(2)
    ])  # fmt: skip
    want = dict(
        chol=np.linalg.cholesky(spd),
        solve=np.linalg.solve(spd, rhs),
        rfft=np.fft.rfft(signal),
        conv=conv,
        pool=img[:, :8, :8].reshape(2, 4, 2, 4, 2, 3).max(axis=(2, 4)),
        sort=np.sort(signal, axis=-1),
        cumsum=np.cumsum(signal, axis=-1),
        logsumexp=scipy.special.logsumexp(signal, axis=-1),
        f64_sum=spd.sum(axis=(-1, -2)),
    )
    loose = {"conv": 2e-2, "rfft": 1e-3, "logsumexp": 1e-5, "cumsum": 1e-4}
    for name, value in want.items():
        tol = loose.get(name, 1e-10 if got[name].dtype == np.float64 else 1e-6)
        np.testing.assert_allclose(got[name], value, rtol=tol, atol=tol, err_msg=name)
    # no x64 switch on a GPU either
    assert got["chol"].dtype == np.float64 and got["f64_sum"].dtype == np.float64


def test_random_bits_on_gpu_equal_cpu(gpu_mesh):
    g = sg.Graph()
    with g:
        key = sg.random.key(7)
        out = dict(bits=sg.random.bits(key, (1000,)), uniform=sg.random.uniform(key, (1000,)))
    with sg.Session(g, mesh=gpu_mesh) as gpu, sg.Session(g) as cpu:
        on_gpu, on_cpu = gpu.run(out), cpu.run(out)
    np.testing.assert_array_equal(on_gpu["bits"], on_cpu["bits"])
    np.testing.assert_array_equal(on_gpu["uniform"], on_cpu["uniform"])


def test_spmd_and_constraints_on_a_gpu_mesh(gpu_mesh):
    xs = RNG.normal(size=(8, 4)).astype(np.float32)
    g = sg.Graph()
    with g:
        x = sg.placeholder((8, 4), sg.float32, name="x", sharding=P("data", None))
        total = sg.spmd(lambda a: sg.psum(a.sum(), "data"), gpu_mesh, in_specs=P("data"), out_specs=P())(x)
        doubled = sg.sharding_constraint(x * 2, P("data", None))
    with sg.Session(g, mesh=gpu_mesh) as sess:
        got_total, got_doubled = sess.run([total, doubled], {x: xs})
    np.testing.assert_allclose(got_total, xs.sum(), rtol=1e-5)
    np.testing.assert_array_equal(got_doubled, xs * 2)


def test_cusolver_factorizations_on_gpu(gpu_mesh):
    a = RNG.normal(size=(3, 5, 5))
    sym = a + np.swapaxes(a, -1, -2)
    herm = (a + 1j * RNG.normal(size=(3, 5, 5))).astype(np.complex64)
    herm = herm + np.conj(np.swapaxes(herm, -1, -2))
    tall = RNG.normal(size=(6, 4)).astype(np.float32)
    g = sg.Graph()
    with g:
        s = sg.placeholder(sym.shape, sg.float64, name="sym")
        h = sg.placeholder(herm.shape, sg.complex64, name="herm")
        t = sg.placeholder(tall.shape, sg.float32, name="tall")
        p, lower, upper = sg.scipy.linalg.lu(s)
        q, r = snp.linalg.qr(t)
        out = dict(
            svd_tall=snp.linalg.svd(t, full_matrices=False),
            svd_wide=snp.linalg.svd(snp.swapaxes(t, 0, 1)),
            svd_values=snp.linalg.svd(s, compute_uv=False),
            w=snp.linalg.eigvalsh(s),
            vw=snp.linalg.eigh(h),
            plu=(p, lower, upper),
            qr=(q, r),
            solve=snp.linalg.solve(s, s[..., :2]),
            det=snp.linalg.det(s),
        )
    with sg.Session(g, mesh=gpu_mesh) as sess:
        got = sess.run(out, {s: sym, h: herm, t: tall})
    np.testing.assert_allclose(got["w"], np.linalg.eigvalsh(sym), rtol=1e-10, atol=1e-10)
    w, v = got["vw"]
    np.testing.assert_allclose(w, np.linalg.eigvalsh(herm), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(v @ (w[..., None] * np.conj(np.swapaxes(v, -1, -2))), herm, atol=1e-4)
    p_, l_, u_ = got["plu"]
    np.testing.assert_allclose(p_ @ l_ @ u_, sym, atol=1e-10)
    q_, r_ = got["qr"]
    np.testing.assert_allclose(q_ @ r_, tall, atol=1e-5)
    np.testing.assert_allclose(np.swapaxes(q_, -1, -2) @ q_, np.eye(4), atol=1e-5)
    np.testing.assert_allclose(got["solve"], np.linalg.solve(sym, sym[..., :2]), rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(got["det"], np.linalg.det(sym), rtol=1e-9)
    u, sv, vt = got["svd_tall"]
    assert u.shape == (6, 4) and vt.shape == (4, 4)
    np.testing.assert_allclose(sv, np.linalg.svd(tall, compute_uv=False), rtol=1e-5)
    np.testing.assert_allclose((u * sv) @ vt, tall, atol=1e-5)
    u, sv, vt = got["svd_wide"]
    assert u.shape == (4, 4) and vt.shape == (6, 6)
    np.testing.assert_allclose(sv, np.linalg.svd(tall.T, compute_uv=False), rtol=1e-5)
    np.testing.assert_allclose((u * sv) @ vt[:4], tall.T, atol=1e-5)
    np.testing.assert_allclose(vt @ vt.T, np.eye(6), atol=1e-5)
    np.testing.assert_allclose(got["svd_values"], np.linalg.svd(sym, compute_uv=False), rtol=1e-10)


def test_svd_gradient_on_gpu_matches_jax_on_cpu(gpu_mesh, jax_x64):
    # cuSOLVER's singular vectors may differ in sign from LAPACK's (and from jax's gesvdj on a
    # GPU), so the loss weighs U and V^H through their squares, which no sign flip changes
    import jax  # noqa: PLC0415

    a = RNG.normal(size=(2, 5, 3))
    weights = [RNG.normal(size=shape) for shape in ((2, 5, 3), (2, 3), (2, 3, 3))]

    def loss(xp, m):
        u, s, vh = xp.linalg.svd(m, full_matrices=False)
        return xp.sum(weights[0] * u * u) + xp.sum(weights[1] * s) + xp.sum(weights[2] * vh * vh)

    g = sg.Graph()
    with g:
        x = sg.placeholder(a.shape, sg.float64, name="x")
        dx = sg.grad(lambda m: loss(snp, m))(x)
    with sg.Session(g, mesh=gpu_mesh) as sess:
        got = sess.run(dx, {x: a})
    on_cpu = jax.device_put(a, jax.devices("cpu")[0])
    want = jax.jit(jax.grad(lambda m: loss(jax.numpy, m)))(on_cpu)
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-8, atol=1e-10)


def test_eig_on_gpu(gpu_mesh):
    real = RNG.normal(size=(3, 6, 6))  # random real matrices: complex conjugate pairs among the eigenvalues
    cplx = (RNG.normal(size=(5, 5)) + 1j * RNG.normal(size=(5, 5))).astype(np.complex64)
    g = sg.Graph()
    with g:
        x = sg.placeholder(real.shape, sg.float64, name="x")
        c = sg.placeholder(cplx.shape, sg.complex64, name="c")
        out = dict(
            real=snp.linalg.eig(x),
            cplx=snp.linalg.eig(c),
            grad=sg.grad(lambda m: snp.real(snp.linalg.eigvals(m)).sum())(x),
        )
    with sg.Session(g, mesh=gpu_mesh) as sess:
        got = sess.run(out, {x: real, c: cplx})
    assert np.iscomplex(got["real"][0]).any()
    for name, a, tol in (("real", real, 1e-10), ("cplx", cplx, 1e-4)):
        w, v = got[name]
        np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=tol, err_msg=name)
        np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, rtol=tol, err_msg=name)
        want = np.linalg.eigvals(a)
        np.testing.assert_allclose(
            np.sort_complex(w), np.sort_complex(want), rtol=tol, atol=tol, err_msg=name
        )
    # d/dA sum(Re w) = d/dA trace(A) = I
    np.testing.assert_allclose(got["grad"], np.broadcast_to(np.eye(6), real.shape), atol=1e-8)


def test_the_default_platform_comes_from_the_environment():
    code = (
        "import numpy as np, stablegraph as sg\n"
        "g = sg.Graph()\n"
        "with g:\n"
        "    y = sg.placeholder((3,), sg.float32, name='x') * 2\n"
        "with sg.Session(g) as s:\n"
        "    print(s.devices[0].platform, s.run(y, {'x': np.ones(3, np.float32)}).tolist())\n"
    )
    env = dict(os.environ, STABLEGRAPH_PLATFORM="gpu")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    platform, values = out.stdout.strip().split(" ", 1)
    assert platform in ("cuda", "gpu") and values == "[2.0, 2.0, 2.0]"


def test_a_run_out_of_gpu_memory_names_the_lost_variables_and_refuses_them(gpu_mesh):
    """The issue's case on the device it is most often met on: a train step that runs out of GPU
    memory is an ExecutionError from that run, and the variables it donated are refused (a typed
    error, not a raw jaxlib one) until they get new values."""
    huge = 2**38  # a TiB of float32: more than any GPU holds
    g = sg.Graph()
    with g:
        x = sg.placeholder((), sg.float32, name="x")
        w = sg.Variable(np.zeros(3, np.float32), name="w")
        train = sg.group(w.assign(w + x))
        big = snp.broadcast_to(x, (huge,))
    with sg.Session(g, mesh=gpu_mesh) as sess:
        with pytest.raises(sg.ExecutionError, match="variable w lost its value"):
            sess.run([train, big], {x: 1.0})
        for refused in (lambda: sess.run(w), lambda: sess.get(w)):
            with pytest.raises(sg.ExecutionError, match="variable w lost its value"):
                refused()
        sess.initialize([w])
        np.testing.assert_array_equal(sess.get(w), np.zeros(3, np.float32))


def test_host_callbacks_on_gpu(gpu_mesh, capsys):
    g = sg.Graph()
    with g:
        x = sg.placeholder((4,), sg.float32, name="x")
        sg.debug.print("x on the gpu {}", x)
        z = sg.pure_callback(np.sinh, sg.TensorType((4,), sg.float32), x * 2)
    xv = np.linspace(-1, 1, 4).astype(np.float32)
    with sg.Session(g, mesh=gpu_mesh) as sess:
        got = sess.run(z, {x: xv})
    np.testing.assert_allclose(got, np.sinh(xv * 2), rtol=1e-6)
    assert f"x on the gpu {xv}" in capsys.readouterr().out


def test_nonfinite_search_and_checks_on_gpu(gpu_mesh):
    g = sg.Graph()
    with g:
        x = sg.placeholder((4,), sg.float32, name="x")
        y = snp.log(x)  # nan for the negative entry
        sg.debug.check_numerics(y, "log of x")
        z = (y * 2).sum()
    xv = np.array([1.0, -1.0, 2.0, 3.0], np.float32)
    with sg.Session(g, mesh=gpu_mesh) as sess:
        with pytest.raises(sg.ExecutionError, match="log of x: 1 nan"):
            sess.run(z, {x: xv})
        report = sess.find_nonfinite(z, {x: xv})
    assert report.op == "log" and report.value.nan == 1
