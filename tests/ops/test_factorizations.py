"""The factorization primitives (cholesky, triangular_solve, eigh, eig, svd, qr, lu) against numpy/scipy,
reconstruction identities, gradients against jax.grad of jax.lax.linalg, and their type errors.

Every table builds all its cases into one graph and runs it once.
"""

from __future__ import annotations

import inspect

import jax
import numpy as np
import pytest
import scipy.linalg

import stablegraph as sg
from stablegraph.ops.primitives import factorizations as fz

RNG = np.random.default_rng(7)
TOL = {np.float32: dict(rtol=2e-4, atol=2e-4), np.float64: dict(rtol=1e-9, atol=1e-10),
       np.complex64: dict(rtol=2e-4, atol=2e-4), np.complex128: dict(rtol=1e-9, atol=1e-10)}  # fmt: skip


def _random(shape, dt):
    x = RNG.normal(size=shape)
    if np.issubdtype(dt, np.complexfloating):
        x = x + 1j * RNG.normal(size=shape)
    return x.astype(dt)


def _spd(shape, dt):
    x = _random(shape, dt)
    n = shape[-1]
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)).astype(dt)


def _h(x):
    return np.conj(np.swapaxes(x, -1, -2))


DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


@pytest.mark.parametrize("dt", DTYPES)
def test_factorizations_reconstruct_and_match_numpy(run, dt):
    spd = _spd((2, 3, 4, 4), dt)  # two batch dims
    sq = _random((3, 5, 5), dt)
    tall, wide = _random((2, 6, 4), dt), _random((4, 6), dt)
    rhs = _random((2, 3, 4, 3), dt)

    def build(spd_, sq_, tall_, wide_, rhs_):
        chol = fz.cholesky(spd_)
        return dict(
            chol=chol,
            solve_left=fz.triangular_solve(chol, rhs_, left_side=True, lower=True),
            solve_left_h=fz.triangular_solve(chol, rhs_, left_side=True, lower=True, transpose_a=True,
                                             conjugate_a=True),  # fmt: skip
            solve_right_t=fz.triangular_solve(chol, sg.numpy.swapaxes(rhs_, -1, -2), lower=True, transpose_a=True),
            eigh=fz.eigh(spd_), eig=fz.eig(sq_), svd_tall=fz.svd(tall_), svd_wide=fz.svd(wide_),
            svd_full=fz.svd(tall_, full_matrices=True), qr_tall=fz.qr(tall_), qr_wide=fz.qr(wide_),
            qr_full=fz.qr(tall_, full_matrices=True), lu_sq=fz.lu(sq_), lu_tall=fz.lu(tall_), lu_wide=fz.lu(wide_),
        )  # fmt: skip

    got = run(build, spd, sq, tall, wide, rhs)
    tol = TOL[dt]
    chol = got["chol"]
    np.testing.assert_allclose(chol, np.linalg.cholesky(spd), **tol)
    np.testing.assert_allclose(chol @ _h(chol), spd, **tol)
    np.testing.assert_allclose(chol @ got["solve_left"], rhs, **tol)
    np.testing.assert_allclose(_h(chol) @ got["solve_left_h"], rhs, **tol)
    np.testing.assert_allclose(
        got["solve_right_t"] @ np.swapaxes(chol, -1, -2), np.swapaxes(rhs, -1, -2), **tol
    )
    v, w = got["eigh"]
    assert w.dtype == np.finfo(dt).dtype
    np.testing.assert_allclose(w, np.linalg.eigvalsh(spd), **tol)
    np.testing.assert_allclose((v * w[..., None, :]) @ _h(v), spd, **tol)
    w, v = got["eig"]
    np.testing.assert_allclose(sq.astype(v.dtype) @ v, v * w[..., None, :], **tol)
    np.testing.assert_allclose(np.sort_complex(w.reshape(-1)), np.sort_complex(np.linalg.eigvals(sq).reshape(-1)),
                               **tol)  # fmt: skip
    for key, a in (("svd_tall", tall), ("svd_wide", wide), ("svd_full", tall)):
        s, u, vh = got[key]
        np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), **tol)
        k = s.shape[-1]
        np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, **tol)
    assert got["svd_full"][1].shape == (2, 6, 6) and got["svd_full"][2].shape == (2, 4, 4)
    for key, a, (qs, rs) in (("qr_tall", tall, ((2, 6, 4), (2, 4, 4))), ("qr_wide", wide, ((4, 4), (4, 6))),
                             ("qr_full", tall, ((2, 6, 6), (2, 6, 4)))):  # fmt: skip
        q, r = got[key]
        assert (q.shape, r.shape) == (qs, rs), key
        np.testing.assert_allclose(q @ r, a, **tol)
        np.testing.assert_allclose(
            _h(q) @ q, np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2), **tol
        )
        np.testing.assert_array_equal(np.tril(r, -1), 0)
    for key, a in (("lu_sq", sq), ("lu_tall", tall), ("lu_wide", wide)):
        packed, piv, perm = got[key]
        m, n = a.shape[-2:]
        k = min(m, n)
        low = np.tril(packed, -1)[..., :, :k] + np.eye(m, k)
        up = np.triu(packed)[..., :k, :]
        np.testing.assert_allclose(low @ up, np.take_along_axis(a, perm[..., None], axis=-2), **tol)
        flat_a, flat_piv = a.reshape(-1, m, n), piv.reshape(-1, k)
        for one, p in zip(flat_a, flat_piv):
            np.testing.assert_array_equal(p, scipy.linalg.lu_factor(one)[1])


def test_cholesky_of_indefinite_matrix_is_nan_and_solve_rectangular(run):
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])
    got = run(lambda x: fz.cholesky(x), bad)
    assert np.isnan(got).all()


# -- gradients against jax.grad --------------------------------------------------------------------
def _weights(shape, k):
    return np.cos(np.arange(int(np.prod(shape))).reshape(shape) * 0.7 + k)


def _cases():
    spd, sq = _spd((2, 4, 4), np.float64), _random((2, 4, 4), np.float64)
    tall, wide, rhs = (
        _random((2, 5, 3), np.float64),
        _random((3, 5), np.float64),
        _random((2, 4, 3), np.float64),
    )
    tri_low, tri_up = np.tril(spd), np.triu(sq) + 4 * np.eye(4)
    lax = jax.lax.linalg

    def svd_jax(x):
        u, s, vh = lax.svd(x, full_matrices=False)
        return s, u, vh

    return {
        "cholesky": ((spd,), fz.cholesky, lambda x: lax.cholesky(x, symmetrize_input=False)),
        "triangular_solve left lower": ((tri_low, rhs), lambda a, b: fz.triangular_solve(a, b, left_side=True, lower=True),
                                        lambda a, b: lax.triangular_solve(a, b, left_side=True, lower=True)),
        "triangular_solve left upper transposed unit": (
            (tri_up, rhs),
            lambda a, b: fz.triangular_solve(a, b, left_side=True, transpose_a=True, unit_diagonal=True),
            lambda a, b: lax.triangular_solve(a, b, left_side=True, transpose_a=True, unit_diagonal=True)),
        "triangular_solve right lower transposed": (
            (tri_low, np.swapaxes(rhs, -1, -2)),
            lambda a, b: fz.triangular_solve(a, b, lower=True, transpose_a=True),
            lambda a, b: lax.triangular_solve(a, b, lower=True, transpose_a=True)),
        "eigh": ((spd,), fz.eigh, lambda x: lax.eigh(x, symmetrize_input=False)),
        "svd tall": ((tall,), fz.svd, svd_jax),
        "svd wide": ((wide,), fz.svd, svd_jax),
        "qr tall": ((tall,), fz.qr, lambda x: lax.qr(x, full_matrices=False)),
        "qr square": ((sq,), fz.qr, lambda x: lax.qr(x, full_matrices=False)),
        "lu": ((sq,), lambda x: fz.lu(x)[0], lambda x: lax.lu(x)[0]),
        "lu tall": ((tall,), lambda x: fz.lu(x)[0], lambda x: lax.lu(x)[0]),
        "lu wide": ((wide,), lambda x: fz.lu(x)[0], lambda x: lax.lu(x)[0]),
    }  # fmt: skip


def _loss(outs, xp_sum):
    outs = outs if isinstance(outs, tuple) else (outs,)
    return sum(xp_sum(o * _weights(o.shape, k)) for k, o in enumerate(outs))


def test_gradients_match_jax(jax_x64):
    cases = _cases()
    g, fetches, feeds = sg.Graph(), {}, {}
    with g:
        for name, (args, ours, _) in cases.items():
            phs = [sg.placeholder(a.shape, sg.float64) for a in args]
            feeds.update(zip(phs, args))
            argnums = tuple(range(len(args)))
            fetches[name] = sg.grad(lambda *xs, f=ours: _loss(f(*xs), sg.numpy.sum), argnums=argnums)(*phs)
    with sg.Session(g) as sess:
        got = sess.run(fetches, feeds)

    def jax_grads(all_args):  # every case in one jitted function: one jax compile
        return {
            name: jax.grad(
                lambda *xs, f=theirs: _loss(f(*xs), jax.numpy.sum), argnums=tuple(range(len(args)))
            )(*args)
            for (name, (_, _, theirs)), args in zip(cases.items(), all_args)
        }

    want = jax.jit(jax_grads)([args for args, _, _ in cases.values()])
    for name in cases:
        for k, (a, b) in enumerate(zip(got[name], want[name])):
            np.testing.assert_allclose(
                a, np.asarray(b), rtol=1e-8, atol=1e-10, err_msg=f"{name} argument {k}"
            )


def test_unsupported_gradients_say_why():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3, 5), sg.float64)
        with pytest.raises(sg.GraphError, match="qr's gradient needs m >= n"):
            sg.grad(lambda a: sg.numpy.sum(fz.qr(a)[0]))(x)
        with pytest.raises(sg.GraphError, match="eig's gradient covers the eigenvalues only"):
            sg.grad(lambda a: sg.numpy.sum(sg.numpy.real(fz.eig(a[:, :3])[1])))(x)


# -- type errors at the user's line ----------------------------------------------------------------
def test_bad_operands_are_graph_errors_at_the_users_line():
    g = sg.Graph()
    with g:
        ints = sg.placeholder((3, 3), sg.int32)
        vec = sg.placeholder((3,), sg.float32)
        rect = sg.placeholder((3, 4), sg.float32)
        sq = sg.placeholder((3, 3), sg.float32)
        b64 = sg.placeholder((3, 2), sg.float64)
        checks = [
            (lambda: fz.cholesky(ints), "cholesky wants a float32, float64, complex64, complex128 matrix"),
            (lambda: fz.eigh(vec), "eigh wants an array of rank >= 2"),
            (lambda: fz.cholesky(rect), "cholesky wants square matrices"),
            (
                lambda: fz.triangular_solve(sq, b64, left_side=True),
                "triangular_solve wants a and b of one dtype",
            ),
            (lambda: fz.triangular_solve(sq, sq[:2], left_side=True), r"b.shape\[-2\] == a.shape\[-1\]"),
            (lambda: fz.triangular_solve(sq, rect, left_side=False), r"b.shape\[-1\] == a.shape\[-1\]"),
        ]
        for build, message in checks:
            with pytest.raises(sg.GraphError, match=message) as info:
                build()
            assert f"test_factorizations.py:{inspect.getsourcelines(build)[1]}" in str(info.value)


def test_complex_gradients_match_jax(jax_x64):
    # stablegraph, like jax, differentiates complex values with plain transposes (no conjugation);
    # eig's eigenvalues are complex for real input too
    sq, tall, b = (
        _random((3, 3), np.complex128),
        _random((4, 3), np.complex128),
        _random((3, 2), np.complex128),
    )
    herm = _spd((3, 3), np.complex128)
    lax = jax.lax.linalg
    cases = {
        "cholesky": ((herm,), fz.cholesky, lambda a: lax.cholesky(a, symmetrize_input=False)),
        "triangular_solve adjoint": (
            (np.tril(herm), b),
            lambda a, y: fz.triangular_solve(
                a, y, left_side=True, lower=True, transpose_a=True, conjugate_a=True
            ),
            lambda a, y: lax.triangular_solve(
                a, y, left_side=True, lower=True, transpose_a=True, conjugate_a=True
            ),
        ),
        "triangular_solve transpose": (
            (np.tril(herm), b),
            lambda a, y: fz.triangular_solve(a, y, left_side=True, lower=True, transpose_a=True),
            lambda a, y: lax.triangular_solve(a, y, left_side=True, lower=True, transpose_a=True),
        ),
        "eigh eigenvalues": (
            (herm,),
            lambda a: fz.eigh(a)[1],
            lambda a: lax.eigh(a, symmetrize_input=False)[1],
        ),
        "qr": ((tall,), fz.qr, lambda a: lax.qr(a, full_matrices=False)),
        "lu": ((sq,), lambda a: fz.lu(a)[0], lambda a: lax.lu(a)[0]),
        "eig eigenvalues": ((sq,), lambda a: fz.eig(a)[0], jax.numpy.linalg.eigvals),
        "eig eigenvalues of a real matrix": ((sq.real,), lambda a: fz.eig(a)[0], jax.numpy.linalg.eigvals),
    }

    def loss(xp, outs):
        outs = outs if isinstance(outs, tuple) else (outs,)
        total = 0.0
        for k, o in enumerate(outs):
            w = _weights(o.shape, k)
            total = total + xp.sum(xp.real(o) * w) + xp.sum(xp.imag(o) * w[::-1]) * 0.5
        return total

    g, fetches, feeds = sg.Graph(), {}, {}
    with g:
        for name, (args, ours, _) in cases.items():
            phs = [sg.placeholder(a.shape, sg.dtype(a.dtype)) for a in args]
            feeds.update(zip(phs, args))
            argnums = tuple(range(len(args)))
            fetches[name] = sg.grad(lambda *xs, f=ours: loss(sg.numpy, f(*xs)), argnums=argnums)(*phs)
    with sg.Session(g) as sess:
        got = sess.run(fetches, feeds)

    def jax_grads(all_args):
        return {
            name: jax.grad(lambda *xs, f=theirs: loss(jax.numpy, f(*xs)), argnums=tuple(range(len(args))))(
                *args
            )
            for (name, (_, _, theirs)), args in zip(cases.items(), all_args)
        }

    want = jax.jit(jax_grads)([args for args, _, _ in cases.values()])
    for name in cases:
        for k, (a, w) in enumerate(zip(got[name], want[name])):
            np.testing.assert_allclose(
                a, np.asarray(w), rtol=1e-8, atol=1e-10, err_msg=f"{name} argument {k}"
            )
