"""sg.lax.linalg's helpers (lax_linalg_api.py) and sg.scipy.linalg's expm_frechet, polar,
eigh_tridiagonal, qr_multiply (matrix_functions.py): values against scipy and numpy in float64,
pivots against jax's LU, gradients against jax.grad, vectorize against a loop."""

import jax
import jax.lax.linalg as jll
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest
import scipy.linalg as sl

import stablegraph as sg
from stablegraph.test_util import run_graph

RNG = np.random.default_rng(264)
L, LL = sg.scipy.linalg, sg.lax.linalg


def test_lax_linalg_helpers_match_jax_and_numpy():
    a = RNG.normal(size=(3, 6, 6))
    a[0, :, 0] = 0.0  # a zero column: a pivot that does not move
    _, piv, perm = jll.lu(jnp.asarray(a))
    spd = RNG.normal(size=(5, 5))
    spd = spd @ spd.T + 5 * np.eye(5)
    r_upper, w = np.linalg.cholesky(spd).T, RNG.normal(size=5)
    m = 7
    dl, d, du = RNG.normal(size=m), RNG.normal(size=m) + 5, RNG.normal(size=m)
    b = RNG.normal(size=(m, 3))
    am, cm = RNG.normal(size=(2, 4, 3)), RNG.normal(size=(2, 4, 4))
    got = run_graph(
        lambda p, r, w, dl, d, du, b, am, cm: [
            LL.lu_pivots_to_permutation(p, 6),
            LL.lu_pivots_to_permutation(p[:, :3], 6),
            LL.cholesky_update(r, w),
            LL.tridiagonal_solve(dl, d, du, b),
            LL.symmetric_product(am, cm, alpha=-1.5, beta=0.25, symmetrize_output=True),
        ],
        np.asarray(piv), r_upper, w, dl, d, du, b, am, cm,
    )  # fmt: skip
    np.testing.assert_array_equal(got[0], np.asarray(perm))
    np.testing.assert_array_equal(got[1], np.asarray(jll.lu_pivots_to_permutation(piv[:, :3], 6)))
    np.testing.assert_allclose(got[2], np.linalg.cholesky(spd + np.outer(w, w)).T, rtol=1e-12)
    t = np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)
    np.testing.assert_allclose(got[3], np.linalg.solve(t, b), rtol=1e-12)
    cs = cm + np.swapaxes(cm, -1, -2)  # jax reads the lower triangle: compare on a symmetric C
    want = -1.5 * am @ np.swapaxes(am, -1, -2) + 0.25 * cs
    sym = run_graph(lambda am, cm: LL.symmetric_product(am, cm, alpha=-1.5, beta=0.25), am, cs)
    np.testing.assert_allclose(sym, want, rtol=1e-12)
    np.testing.assert_allclose(
        np.tril(got[4]), np.tril(-1.5 * am @ np.swapaxes(am, -1, -2) + 0.25 * cm), rtol=1e-12
    )
    assert LL.SvdAlgorithm.JACOBI.value == jll.SvdAlgorithm.JACOBI.value


def test_matrix_functions_match_scipy():
    a = RNG.normal(size=(4, 4)) * 0.7
    e = RNG.normal(size=(4, 4))
    tall = RNG.normal(size=(5, 3))
    d, off = RNG.normal(size=6), RNG.normal(size=5)
    c_right, c_left, c_row = RNG.normal(size=(4, 5)), RNG.normal(size=(3, 2)), RNG.normal(size=5)
    got = run_graph(
        lambda a, e, tall, d, off, cr, cl, row: {
            "frechet": L.expm_frechet(a, e),
            "frechet_only": L.expm_frechet(a, e, compute_expm=False),
            "polar_right": L.polar(tall),
            "polar_left": L.polar(tall, side="left"),
            "tridiagonal": L.eigh_tridiagonal(d, off),
            "tridiagonal_some": L.eigh_tridiagonal(d, off, eigvals_only=True, select="i", select_range=(2, 4)),
            "qr_right": L.qr_multiply(tall, cr),
            "qr_left": L.qr_multiply(tall, cl, mode="left"),
            "qr_row": L.qr_multiply(tall, row),
        },
        a, e, tall, d, off, c_right, c_left, c_row,
    )  # fmt: skip
    want = {
        "frechet": sl.expm_frechet(a, e),
        "frechet_only": sl.expm_frechet(a, e, compute_expm=False),
        "polar_right": sl.polar(tall),
        "polar_left": sl.polar(tall, side="left"),
        "tridiagonal": sl.eigh_tridiagonal(d, off),
        "tridiagonal_some": sl.eigh_tridiagonal(d, off, eigvals_only=True, select="i", select_range=(2, 4)),
        "qr_right": sl.qr_multiply(tall, c_right),
        "qr_left": sl.qr_multiply(tall, c_left, mode="left"),
        "qr_row": sl.qr_multiply(tall, c_row),
    }
    for key, value in got.items():
        for k, (g, w) in enumerate(zip(jax.tree.leaves(value), jax.tree.leaves(want[key]))):
            if key == "tridiagonal" and k == 1:  # eigenvectors: each column up to its sign
                g, w = g * np.sign(g[:1]), w * np.sign(w[:1])
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=f"{key}[{k}]")


def test_gradients_and_vectorize_match_jax():
    tall = RNG.normal(size=(4, 3))
    m = 5
    dl, d, du = RNG.normal(size=m), RNG.normal(size=m) + 4, RNG.normal(size=m)
    b = RNG.normal(size=(m, 2))

    def loss(lin, lax_lin, tall, dl, d, du, b):  # (expm_frechet's gradient is expm's, tested with expm)
        u, p = lin.polar(tall, method="svd")  # jax's qdwh loop has no reverse-mode derivative
        x = lax_lin.tridiagonal_solve(dl, d, du, b)
        return (u * tall).sum() + (p**2).sum() + (x**3).sum()

    args = (tall, dl, d, du, b)
    got = run_graph(lambda *xs: sg.grad(lambda *ys: loss(L, LL, *ys), argnums=tuple(range(5)))(*xs), *args)
    with jax.enable_x64(True):
        want = jax.jit(jax.grad(lambda *ys: loss(jsl, jll, *ys), argnums=tuple(range(5))))(*args)
    for k, (g, w) in enumerate(zip(got, want)):
        if k == 1:  # dl[0] is not read: jax's gradient there is whatever its kernel leaves
            g, w = g[1:], np.asarray(w)[1:]
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-8, atol=1e-10, err_msg=f"argument {k}")
    batch = RNG.normal(size=(3, 4, 3))
    mapped = run_graph(lambda x: sg.vectorize(lambda y: L.polar(y)[1])(x), batch)
    np.testing.assert_allclose(mapped, np.stack([sl.polar(y)[1] for y in batch]), rtol=1e-10, atol=1e-12)


def test_unsupported_options_are_graph_errors():
    g = sg.Graph()
    with g:
        x = sg.placeholder((4,), sg.float64)
        with pytest.raises(sg.GraphError, match="data-dependent size") as info:
            L.eigh_tridiagonal(x, x[:3], select="v", select_range=(0.0, 1.0))
        assert "test_linalg_more.py" in str(info.value)
        with pytest.raises(sg.GraphError, match="perturb"):
            LL.tridiagonal_solve(x, x, x, x[:, None], perturb_singular=True)
        with pytest.raises(sg.GraphError, match="side must be"):
            L.polar(x[None], side="up")
