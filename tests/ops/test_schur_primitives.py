"""The schur, hessenberg, tridiagonal, householder_product and ormqr primitives and sg.lax.linalg's
wrappers (qdwh too) against numpy/scipy and jax.lax.linalg (the same LAPACK kernels), reconstruction
identities, vectorize against a loop, edge inputs, and their errors.

Every dtype's cases are one graph and one run.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
import scipy.linalg as sl

import stablegraph as sg
from stablegraph.ops.primitives import factorizations as fz
from stablegraph.test_util import check_vectorize, line_of

pytestmark = pytest.mark.usefixtures("jax_x64")

RNG = np.random.default_rng(26)
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
TOL = {np.float32: dict(rtol=3e-4, atol=3e-4), np.float64: dict(rtol=1e-10, atol=1e-10),
       np.complex64: dict(rtol=3e-4, atol=3e-4), np.complex128: dict(rtol=1e-10, atol=1e-10)}  # fmt: skip
lin = sg.lax.linalg


def _random(shape, dt):
    x = RNG.normal(size=shape)
    if np.issubdtype(dt, np.complexfloating):
        x = x + 1j * RNG.normal(size=shape)
    return x.astype(dt)


def _h(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _assert_quasi_triangular(t, real: bool):
    """Zero below the first subdiagonal; for real Schur forms no two adjacent subdiagonal entries
    (2 x 2 blocks only); for complex ones nothing below the diagonal."""
    assert np.all(np.tril(t, -2) == 0)
    sub = np.diagonal(t, -1, -2, -1)
    if real:
        assert not np.any((sub[..., 1:] != 0) & (sub[..., :-1] != 0))
    else:
        assert np.all(sub == 0)


@pytest.mark.parametrize("dt", DTYPES)
def test_reductions_reconstruct_and_match_jax(run, dt):
    sq = _random((2, 3, 5, 5), dt)  # two batch dims
    herm = sq + _h(sq)
    tall = _random((3, 6, 4), dt)
    c_left, c_right = _random((3, 6, 2), dt), _random((3, 2, 6), dt)
    raw = [
        np.linalg.qr(m, mode="raw")
        for m in tall.astype(np.complex128 if np.iscomplexobj(tall) else np.float64)
    ]
    packed = np.stack([h.T for h, _ in raw]).astype(dt)  # numpy's raw qr: geqrf's reflectors, transposed
    taus = np.stack([t for _, t in raw]).astype(dt)
    q_full = np.stack([np.linalg.qr(m, mode="complete")[0] for m in tall.astype(np.complex128)])

    def build(sq_, herm_, packed_, taus_, c_left_, c_right_):
        return dict(
            schur=lin.schur(sq_), schur_t=lin.schur(sq_, compute_schur_vectors=False),
            hessenberg=lin.hessenberg(sq_), tri_lower=lin.tridiagonal(herm_),
            tri_upper=lin.tridiagonal(herm_, lower=False),
            householder=lin.householder_product(packed_, taus_),
            qc=lin.ormqr(packed_, taus_, c_left_), qhc=lin.ormqr(packed_, taus_, c_left_, transpose=True),
            cq=lin.ormqr(packed_, taus_, c_right_, left=False),
            cqh=lin.ormqr(packed_, taus_, c_right_, left=False, transpose=True),
        )  # fmt: skip

    got = run(build, sq, herm, packed, taus, c_left, c_right)
    tol, real = TOL[dt], not np.iscomplexobj(sq)

    t, q = got["schur"]
    np.testing.assert_allclose(q @ t @ _h(q), sq, **tol)
    np.testing.assert_allclose(_h(q) @ q, np.broadcast_to(np.eye(5), q.shape), **tol)
    _assert_quasi_triangular(t, real)
    assert isinstance(got["schur_t"], list) and len(got["schur_t"]) == 1
    np.testing.assert_array_equal(got["schur_t"][0], t)  # the same kernel without the vectors
    jt, jq = jax.lax.linalg.schur(sq.reshape(-1, 5, 5)[0])  # jax's, of the first matrix
    np.testing.assert_allclose(t.reshape(-1, 5, 5)[0], jt, **tol)
    np.testing.assert_allclose(q.reshape(-1, 5, 5)[0], jq, **tol)
    for ts, m in zip(t.reshape(-1, 5, 5), sq.reshape(-1, 5, 5)):
        np.testing.assert_allclose(np.sort_complex(np.linalg.eigvals(ts)), np.sort_complex(np.linalg.eigvals(m)),
                                   **tol)  # fmt: skip

    a, hs_taus = got["hessenberg"]
    ja, jtaus = jax.lax.linalg.hessenberg(sq)
    np.testing.assert_allclose(a, ja, **tol)
    np.testing.assert_allclose(hs_taus, jtaus, **tol)
    np.testing.assert_allclose(np.triu(a[0, 0], -1), sl.hessenberg(sq[0, 0]), **tol)

    for key, lower in (("tri_lower", True), ("tri_upper", False)):
        mine, theirs = got[key], jax.lax.linalg.tridiagonal(herm, lower=lower)
        for k, (x, y) in enumerate(zip(mine, theirs)):
            assert x.dtype == y.dtype, (key, k)
            np.testing.assert_allclose(x, y, **tol, err_msg=f"{key} output {k}")
        d, e = mine[1], mine[2]
        band = [
            np.diag(dd) + np.diag(ee, 1) + np.diag(ee, -1)
            for dd, ee in zip(d.reshape(-1, 5), e.reshape(-1, 4))
        ]
        np.testing.assert_allclose(
            np.linalg.eigvalsh(np.stack(band)), np.linalg.eigvalsh(herm).reshape(-1, 5), **tol
        )

    q4 = q_full[..., :4]
    np.testing.assert_allclose(got["householder"], q4, **tol)
    np.testing.assert_allclose(got["qc"], q_full @ c_left, **tol)
    np.testing.assert_allclose(got["qhc"], _h(q_full) @ c_left, **tol)
    np.testing.assert_allclose(got["cq"], c_right @ q_full, **tol)
    np.testing.assert_allclose(got["cqh"], c_right @ _h(q_full), **tol)


def test_qdwh_is_the_polar_decomposition(run):
    """Every dtype in one graph (tall and square), against scipy's polar; jax's step count and u in float64."""
    xs = [_random((7, 4), np.float32), _random((4, 4), np.float64), _random((6, 3), np.complex64),
          _random((3, 3), np.complex128)]  # fmt: skip
    got = run(
        lambda *a: ([lin.qdwh(x) for x in a], lin.qdwh(a[0], max_iterations=1), lin.qdwh(a[1] * 0)), *xs
    )
    for (u, h, iters, converged), x in zip(got[0], xs):
        dt, tol = x.dtype.type, TOL[x.dtype.type]
        want_u, want_h = sl.polar(x.astype(np.complex128 if np.iscomplexobj(x) else np.float64))
        assert u.dtype == dt and h.dtype == dt and iters.dtype == np.int32 and converged
        np.testing.assert_allclose(u, want_u, **tol)
        np.testing.assert_allclose(h, want_h, **tol)
    ju, _, jiters, _ = jax.lax.linalg.qdwh(xs[1])
    assert got[0][1][2] == jiters
    np.testing.assert_allclose(got[0][1][0], ju, **TOL[np.float64])
    assert not got[1][3] and got[1][2] == 1  # one step is not enough
    assert np.all(got[2][0] == 0) and np.all(got[2][1] == 0)  # the zero matrix: u = h = 0, no NaNs


def test_edge_inputs(run):
    nan = np.full((3, 3), np.nan)
    one = np.array([[-4.0]])
    empty = np.zeros((0, 0))
    eye = np.eye(3)
    got = run(
        lambda n, o, e, i: dict(
            nan=lin.schur(n), nan_hess=lin.hessenberg(n), one=lin.schur(o), one_hess=lin.hessenberg(o),
            one_tri=lin.tridiagonal(o), empty=lin.schur(e), empty_hess=lin.hessenberg(e), eye=lin.schur(i),
            ormqr_none=lin.ormqr(i, i[:, :0].sum(-1)[:0], i),
        ),
        nan, one, empty, eye,
    )  # fmt: skip
    assert np.all(np.isnan(got["nan"][0])) and np.all(np.isnan(got["nan"][1]))
    assert np.all(np.isnan(got["nan_hess"][0]))
    np.testing.assert_array_equal(got["one"][0], one)
    np.testing.assert_array_equal(got["one"][1], [[1.0]])
    np.testing.assert_array_equal(got["one_hess"][0], one)
    assert got["one_hess"][1].shape == (0,)
    np.testing.assert_array_equal(got["one_tri"][1], [-4.0])
    assert got["empty"][0].shape == (0, 0) and got["empty_hess"][1].shape == (0,)
    np.testing.assert_array_equal(got["eye"][0], eye)
    np.testing.assert_array_equal(np.abs(got["eye"][1]), eye)
    np.testing.assert_array_equal(got["ormqr_none"], eye)  # no reflectors: Q = I


def test_vectorize_matches_a_loop():
    sq = _random((4, 4), np.float64)
    herm = sq + sq.T

    def reductions(a, s):
        t, q = fz.schur(a)
        h, taus = fz.hessenberg(a)
        packed, d, e, tt = fz.tridiagonal(s)
        return (
            t,
            q,
            h,
            taus,
            packed,
            d,
            e,
            tt,
            fz.householder_product(h[1:, :-1], taus),
            fz.ormqr(h[1:, :-1], taus, s[1:]),
        )

    check_vectorize(reductions, [sq, herm], size=2, atol=1e-9, rtol=1e-9)


def test_no_gradient_and_bad_operands_say_why():
    here = __file__
    g = sg.Graph()
    with g:
        x = sg.placeholder((4, 4), sg.float64)
        rect = sg.placeholder((4, 3), sg.float64)
        ints = sg.placeholder((3, 3), sg.int32)
        for fn, what in ((lambda a: fz.schur(a)[0], "Schur form"), (lambda a: fz.hessenberg(a)[0], "Hessenberg"),
                         (lambda a: fz.tridiagonal(a)[1], "tridiagonal"),
                         (lambda a: fz.householder_product(a, a[:, 0]), "reflectors"),
                         (lambda a: fz.ormqr(a, a[:, 0], a), "reflectors")):  # fmt: skip
            with pytest.raises(sg.GraphError, match=f"no vjp rule .*{what}"):
                sg.grad(lambda a, fn=fn: sg.numpy.sum(fn(a)))(x)
        cases = [
            (lambda: lin.schur(rect), "schur wants square matrices"),
            (lambda: lin.schur(ints), "schur wants a float32"),
            (lambda: lin.schur(x, sort_eig_vals=True), "does not sort eigenvalues"),
            (lambda: lin.hessenberg(rect), "hessenberg wants square"),
            (lambda: lin.tridiagonal(x[:0, :0]), "tridiagonal wants matrices of at least 1 x 1"),
            (lambda: lin.householder_product(rect.T, rect[:3, 0]), "at least as many rows as columns"),
            (lambda: lin.householder_product(x, x[:, 0].astype(sg.float32)), "wants taus"),
            (lambda: lin.ormqr(x, x[:, 0], rect.T), "ormqr with left=True wants c with 4 rows"),
            (lambda: lin.ormqr(x, x[:, 0], rect, left=False), "ormqr with left=False wants c with 4 columns"),
            (lambda: lin.qdwh(rect.T), "qdwh wants m >= n"),
            (lambda: lin.qdwh(x, dynamic_shape=(3, 3)), "dynamic_shape"),
        ]
        for build, message in cases:
            with pytest.raises(sg.GraphError, match=message) as err:
                build()
            assert f"{here.rsplit('/', 1)[-1]}:" in str(err.value)
    assert line_of(here, "lin.schur(rect)") > 0


def test_gpu_lowering_names_the_op(monkeypatch):
    """On a GPU (jax has no gees, gehrd, sytrd or ormqr kernel there either) a GraphError at the
    user's line names the op; householder_product takes cuSOLVER's orgqr."""
    from stablegraph.backend import session as session_module  # noqa: PLC0415

    real = session_module.lower_module

    def lower_for_cuda(nodes, args, fetches, bindings, aliases, mesh, shardings, platform, *rest):
        return real(nodes, args, fetches, bindings, aliases, mesh, shardings, "cuda", *rest)

    monkeypatch.setattr(session_module, "lower_module", lower_for_cuda)
    for build, name in ((lambda a: fz.schur(a)[0], "schur"), (lambda a: fz.hessenberg(a)[0], "hessenberg"),
                        (lambda a: fz.tridiagonal(a)[0], "tridiagonal"),
                        (lambda a: fz.ormqr(a, a[:, 0], a), "ormqr")):  # fmt: skip
        g = sg.Graph()
        with g:
            x = sg.placeholder((3, 3), sg.float32)
            y = build(x)
        with sg.Session(g) as sess, pytest.raises(sg.GraphError, match=f"{name} has no cuda kernel") as err:
            sess.run(y, {x: np.eye(3, dtype=np.float32)})
        assert "test_schur_primitives.py:" in str(err.value)
