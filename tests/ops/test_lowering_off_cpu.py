"""How ops whose lowering depends on the platform lower for a GPU, checked on the CPU.

The Session is made to lower for "cuda" while it still compiles and runs on
the CPU. triangular_solve then takes StableHLO's own op (no LAPACK kernels
there), checked against numpy/scipy; cholesky, eigh, eig, lu, qr and svd
call cuSOLVER's kernels (checked on the lowered text: they run on a GPU
only); a complex convolution becomes three real ones (XLA's GPU
convolutions are real only). tests/gpu/ runs the same ops on a real GPU.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import stablegraph as sg
from stablegraph.backend import session as session_module
from stablegraph.ops.primitives import factorizations as fz


@pytest.fixture
def lowered_for_cuda(monkeypatch):
    real = session_module.lower_module

    def lower_for_cuda(nodes, args, fetches, bindings, aliases, mesh, shardings, platform, *rest):
        return real(nodes, args, fetches, bindings, aliases, mesh, shardings, "cuda", *rest)

    monkeypatch.setattr(session_module, "lower_module", lower_for_cuda)


def test_complex_convolution_as_real_ones(lowered_for_cuda, jax_x64):
    import jax  # noqa: PLC0415

    rng = np.random.default_rng(1)
    img = rng.normal(size=(2, 3, 9)) + 1j * rng.normal(size=(2, 3, 9))
    kernel = rng.normal(size=(4, 3, 3)) + 1j * rng.normal(size=(4, 3, 3))

    def loss(conv, xp, v, w):
        return xp.sum(xp.abs(conv(v, w, (2,), "VALID")) ** 2)

    g = sg.Graph()
    with g:
        x = sg.placeholder(img.shape, sg.complex128, name="x")
        k = sg.placeholder(kernel.shape, sg.complex128, name="k")
        y = sg.lax.conv_general_dilated(x, k, (2,), "VALID")
        dx, dk = sg.grad(lambda v, w: loss(sg.lax.conv_general_dilated, sg.numpy, v, w), argnums=(0, 1))(x, k)
    with sg.Session(g) as sess:
        got = sess.run([y, dx, dk], {x: img, k: kernel})
    # out[n, o, t] = sum_c sum_j img[n, c, 2 t + j] * kernel[o, c, j]  (no flip, no conjugate)
    want = np.stack([[[sum(img[n, c, 2 * t + j] * kernel[o, c, j] for c in range(3) for j in range(3))
                       for t in range(4)] for o in range(4)] for n in range(2)])  # fmt: skip
    np.testing.assert_allclose(got[0], want, rtol=1e-12, atol=1e-12)
    grads = jax.grad(lambda v, w: loss(jax.lax.conv_general_dilated, jax.numpy, v, w), argnums=(0, 1))(
        img, kernel
    )
    for ours, theirs in zip(got[1:], grads):
        np.testing.assert_allclose(ours, np.asarray(theirs), rtol=1e-10, atol=1e-10)


def test_triangular_solve_without_lapack(lowered_for_cuda):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 5, 5))
    low = np.linalg.cholesky(a @ np.swapaxes(a, -1, -2) + 5 * np.eye(5))
    rhs = rng.normal(size=(3, 5, 2))
    ca = rng.normal(size=(5, 5)) + 1j * rng.normal(size=(5, 5))
    tri_c = np.tril(ca) + 4 * np.eye(5)
    rhs_c = rng.normal(size=(5, 2)) + 1j * rng.normal(size=(5, 2))
    g = sg.Graph()
    with g:
        x = sg.placeholder((3, 5, 5), sg.float64, name="x")
        b = sg.placeholder((3, 5, 2), sg.float64, name="b")
        c = sg.placeholder((5, 5), sg.complex128, name="c")
        d = sg.placeholder((5, 2), sg.complex128, name="d")
        out = dict(
            left=fz.triangular_solve(x, b, left_side=True, lower=True),
            left_t=fz.triangular_solve(x, b, left_side=True, lower=True, transpose_a=True),
            right_unit=fz.triangular_solve(x, sg.numpy.swapaxes(b, -1, -2), lower=True, unit_diagonal=True),
            adjoint=fz.triangular_solve(c, d, left_side=True, lower=True, transpose_a=True, conjugate_a=True),
            conjugate=fz.triangular_solve(c, d, left_side=True, lower=True, conjugate_a=True),
        )
    with sg.Session(g) as sess:
        got = sess.run(out, {x: low, b: rhs, c: tri_c, d: rhs_c})
    unit = np.tril(low, -1) + np.eye(5)
    want = dict(
        left=np.linalg.solve(low, rhs),
        left_t=np.linalg.solve(np.swapaxes(low, -1, -2), rhs),
        right_unit=np.swapaxes(np.linalg.solve(np.swapaxes(unit, -1, -2), rhs), -1, -2),
        adjoint=scipy.linalg.solve_triangular(tri_c, rhs_c, lower=True, trans="C"),
        conjugate=np.linalg.solve(np.conj(tri_c), rhs_c),
    )
    for name, value in want.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-10, atol=1e-12, err_msg=name)


def test_factorizations_lower_to_cusolver(lowered_for_cuda):
    g = sg.Graph()
    with g:
        x = sg.placeholder((4, 4), sg.float32, name="x")
        c = sg.placeholder((4, 4), sg.complex64, name="c")
        outs = [
            *fz.eigh(x, lower=False), fz.eigh(c)[0], fz.lu(x)[0], *fz.qr(x), fz.svd(x)[0], fz.svd(x[:2])[0],
            fz.cholesky(x), *fz.eig(x), *fz.eig(c),
        ]  # fmt: skip
    feeds = {x: np.eye(4, dtype=np.float32), c: np.eye(4, dtype=np.complex64)}
    with sg.Session(g) as sess:
        text = sess.lower(outs, feeds)
    for target in ("syevd", "getrf", "geqrf", "orgqr", "gesvd", "potrf", "geev"):
        assert f"@cusolver_{target}_ffi" in text, target
    assert "lapack_" not in text
    # cuSOLVER's flags: syevd's and potrf's triangle, a wide svd, geev's eigenvector sides
    assert text.count("lower = false") == 1 and text.count("lower = true") == 2
    assert text.count("transposed = false") == 1 and text.count("transposed = true") == 1
    assert text.count("left = false") == 2 and text.count("right = true") == 2
