"""sg.scipy.linalg's Schur-based functions (schur, hessenberg, rsf2csf, funm, sqrtm, solve_sylvester)
against scipy.linalg (float64 references) and jax.scipy.linalg, reconstruction identities, gradients
against jax.grad of differentiable formulas (Denman-Beavers for sqrtm, the Kronecker system for
solve_sylvester), vectorize against a loop, edge inputs, and errors. One graph per table.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest
import scipy.linalg as sl

import stablegraph as sg

pytestmark = pytest.mark.usefixtures("jax_x64")

RNG = np.random.default_rng(2626)
la = sg.scipy.linalg
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def _random(shape, dt):
    x = RNG.normal(size=shape)
    if np.issubdtype(dt, np.complexfloating):
        x = x + 1j * RNG.normal(size=shape)
    return x.astype(dt)


def _h(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _wide(x):
    """x in float64 or complex128: the precision scipy's references are computed in."""
    return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)


def _tol(dt, loose: float = 1.0):
    if np.finfo(dt).bits == 32:
        return dict(rtol=5e-4 * loose, atol=5e-4 * loose)
    return dict(rtol=1e-9 * loose, atol=1e-9 * loose)


@pytest.mark.parametrize("dt", DTYPES)
def test_values_match_scipy(run, dt):
    a = _random((5, 5), dt)
    batch = _random((2, 4, 4), dt)
    defective = np.array([[4.0, 1, 0], [0, 4, 1], [0, 0, 4]], dt)  # one Jordan block: no eigenvectors basis
    b, c = _random((3, 3), dt), _random((5, 3), dt)
    real = not np.iscomplexobj(a)

    def build(a, batch, defective, b, c):
        t, z = la.schur(a)
        return dict(
            schur=(t, z), schur_c=la.schur(a, output="complex"), csf=la.rsf2csf(t, z),
            hess=la.hessenberg(a), hess_q=la.hessenberg(batch, calc_q=True),
            funm_exp=la.funm(a, sg.numpy.exp, disp=False), funm_sin=la.funm(a, lambda w: sg.numpy.sin(w) + 2 * w),
            sqrtm=la.sqrtm(a), sqrtm_shifted=la.sqrtm(a + 4 * sg.numpy.eye(5, dtype=a.dtype)),
            sqrtm_batch=la.sqrtm(batch + 4 * sg.numpy.eye(4, dtype=a.dtype)), sqrtm_defective=la.sqrtm(defective),
            syl=la.solve_sylvester(a, b, c), syl_eigen=la.solve_sylvester(a, b, c, method="eigen"),
            syl_batch=la.solve_sylvester(batch, b[:2, :2], batch[0, :, :2]),
        )  # fmt: skip

    got = run(build, a, batch, defective, b, c)
    tol, wide = _tol(dt), _wide(a)

    t, z = got["schur"]
    np.testing.assert_allclose(z @ t @ _h(z), a, **tol)
    want_t, want_z = sl.schur(a)  # the same LAPACK routine in a's precision
    np.testing.assert_allclose(t, want_t, **_tol(dt, 10))
    np.testing.assert_allclose(z, want_z, **_tol(dt, 10))
    tc, zc = got["schur_c"]
    assert tc.dtype == np.result_type(dt, np.complex64) and np.all(np.tril(tc, -1) == 0)
    np.testing.assert_allclose(zc @ tc @ _h(zc), a, **tol)

    tcsf, zcsf = got["csf"]
    assert np.all(np.tril(tcsf, -1) == 0)
    np.testing.assert_allclose(zcsf @ tcsf @ _h(zcsf), a, **tol)
    np.testing.assert_allclose(_h(zcsf) @ zcsf, np.eye(5), **tol)
    if real:  # scipy's rotations, from the same real Schur form
        want = sl.rsf2csf(want_t.astype(np.float64), want_z.astype(np.float64))
        for mine, theirs in zip(got["csf"], want):
            np.testing.assert_allclose(mine, theirs, **_tol(dt, 10))
        jt, jz = jsl.rsf2csf(t, z)
        np.testing.assert_allclose(tcsf, jt, **tol)

    np.testing.assert_allclose(got["hess"], sl.hessenberg(wide), **tol)
    h, q = got["hess_q"]
    for hh, qq, m in zip(h, q, batch):
        want_h, want_q = sl.hessenberg(_wide(m), calc_q=True)
        np.testing.assert_allclose(hh, want_h, **tol)
        np.testing.assert_allclose(qq, want_q, **tol)
        np.testing.assert_allclose(qq @ hh @ _h(qq), m, **tol)

    f, err = got["funm_exp"]
    np.testing.assert_allclose(f, sl.expm(wide), **_tol(dt, 10))
    _, want_err = sl.funm(wide, np.exp, disp=False)
    if np.finfo(dt).bits == 64:
        np.testing.assert_allclose(err, want_err, rtol=0.5)
    assert 0 < err <= 1
    np.testing.assert_allclose(got["funm_sin"], sl.funm(wide, lambda w: np.sin(w) + 2 * w), **_tol(dt, 10))
    if dt == np.complex128:  # jax's funm compiles its loops per dtype: one dtype is enough
        np.testing.assert_allclose(
            got["funm_sin"], jsl.funm(wide, lambda w: jnp.sin(w) + 2 * w), **_tol(dt, 10)
        )

    # a negative real eigenvalue sits on sqrt's branch cut: X and conj(X) are both roots of a real A,
    # which one comes out follows the sign of rounding in the Schur form: A's root is checked as a
    # principal root (eigenvalues in the right half plane), A + 4 I's against scipy and jax
    np.testing.assert_allclose(got["sqrtm"] @ got["sqrtm"], a, **_tol(dt, 10))
    assert np.all(np.linalg.eigvals(got["sqrtm"].astype(np.complex128)).real > -1e-3)
    np.testing.assert_allclose(got["sqrtm_shifted"], jsl.sqrtm(a + 4 * np.eye(5, dtype=dt)), **_tol(dt, 10))
    np.testing.assert_allclose(got["sqrtm_shifted"], sl.sqrtm(wide + 4 * np.eye(5)), **_tol(dt, 10))
    for mine, m in zip(got["sqrtm_batch"], batch):
        np.testing.assert_allclose(mine, sl.sqrtm(_wide(m) + 4 * np.eye(4)), **_tol(dt, 10))
    root = got["sqrtm_defective"]
    closed = np.array([[2, 1 / 4, -1 / 64], [0, 2, 1 / 4], [0, 0, 2]])  # sqrt(4 I + N), N nilpotent: a series
    np.testing.assert_allclose(root, closed, **tol)
    np.testing.assert_allclose(root @ root, defective, **tol)

    want = sl.solve_sylvester(wide, _wide(b), _wide(c))
    for key in ("syl", "syl_eigen"):
        assert got[key].dtype == dt, key
        np.testing.assert_allclose(got[key], want, **_tol(dt, 10), err_msg=key)
    np.testing.assert_allclose(a @ got["syl"] + got["syl"] @ b, c, **_tol(dt, 10))
    for mine, m in zip(got["syl_batch"], batch):
        np.testing.assert_allclose(mine, sl.solve_sylvester(_wide(m), _wide(b[:2, :2]), _wide(batch[0, :, :2])),
                                   **_tol(dt, 10))  # fmt: skip


def test_edge_inputs(run):
    nan = np.eye(3)
    nan[1, 2] = np.nan
    inf = np.eye(3)
    inf[0, 1] = np.inf
    zeros, one, empty = np.zeros((3, 3)), np.array([[-4.0]]), np.zeros((0, 0))
    singular = np.array([[1.0, 1], [1, -1]])  # eigenvalues +-sqrt(2): A X + X (-A) = C has no unique solution
    got = run(
        lambda n, i, z, o, e, s: dict(
            nan=(la.sqrtm(n), la.schur(n)[0], la.funm(n, sg.numpy.exp), la.solve_sylvester(n, n, n)),
            inf=la.sqrtm(i), zeros=(la.sqrtm(z), la.funm(z, sg.numpy.cos), la.solve_sylvester(z + np.eye(3), z + 2 * np.eye(3), z + 6)),
            one=(la.sqrtm(o), la.schur(o), la.hessenberg(o, calc_q=True), la.funm(o, sg.numpy.sqrt),
                 la.rsf2csf(o, o * 0 + 1), la.solve_sylvester(o, o, o)),
            empty=(la.sqrtm(e), la.schur(e), la.hessenberg(e, calc_q=True), la.solve_sylvester(e, e, e)),
            identity=(la.sqrtm(z + np.eye(3)), la.funm(z + np.eye(3), sg.numpy.exp)),
            singular=la.solve_sylvester(s, -s, s),
        ),
        nan, inf, zeros, one, empty, singular,
    )  # fmt: skip
    assert np.any(np.isnan(got["nan"][1]))  # T: already triangular, gees leaves it (and its NaN) as it is
    for out in (got["nan"][0], *got["nan"][2:], got["inf"]):
        assert np.all(np.isnan(out))
    np.testing.assert_array_equal(got["zeros"][0], zeros)  # no 0/0: a zero pair of roots gives 0
    np.testing.assert_allclose(got["zeros"][1], np.eye(3))
    np.testing.assert_allclose(got["zeros"][2], np.full((3, 3), 2.0))
    sqrt1, (t1, z1), (h1, q1), f1, (tc1, zc1), syl1 = got["one"]
    np.testing.assert_allclose(sqrt1, [[2j]])
    for mine, want in ((t1, one), (z1, [[1.0]]), (h1, one), (q1, [[1.0]]), (tc1, one), (zc1, [[1.0]])):
        np.testing.assert_array_equal(mine, want)
    np.testing.assert_allclose(f1, [[2j]])
    np.testing.assert_allclose(syl1, [[0.5]])
    assert all(
        np.shape(x) == (0, 0) for x in (got["empty"][0], *got["empty"][1], *got["empty"][2], got["empty"][3])
    )
    np.testing.assert_allclose(got["identity"][0], np.eye(3))
    np.testing.assert_allclose(got["identity"][1], np.e * np.eye(3))
    assert np.all(np.isnan(got["singular"]))


def _denman_beavers(a):
    """sqrtm by the Denman-Beavers iteration: differentiable in jax (its sqrtm is not: schur has no rule)."""
    y, z = a.astype(jnp.complex128), jnp.eye(a.shape[-1], dtype=jnp.complex128)
    for _ in range(12):  # quadratic convergence from a matrix near 4 I
        y, z = (y + jnp.linalg.inv(z)) / 2, (z + jnp.linalg.inv(y)) / 2
    return y


def _kronecker_sylvester(a, b, c):
    m, n = c.shape
    system = jnp.kron(jnp.eye(n), a) + jnp.kron(b.T, jnp.eye(m))
    return jnp.linalg.solve(system, c.T.reshape(-1)).reshape(n, m).T


def test_gradients_match_jax(run):
    a = RNG.normal(size=(4, 4)) + 4 * np.eye(4)
    ac = a + 0.3j * RNG.normal(size=(4, 4))
    b, c = RNG.normal(size=(3, 3)) + 3 * np.eye(3), RNG.normal(size=(4, 3))
    w = RNG.normal(size=(4, 4)) + 1j * RNG.normal(size=(4, 4))
    wc = RNG.normal(size=(4, 3))

    def loss(xp, sqrtm, sylvester, a, ac, b, c):
        return (xp.sum(xp.real(sqrtm(a) * w)) + xp.sum(xp.real(sqrtm(ac) * w)) + xp.sum(sylvester(a, b, c) * wc)
                + xp.sum(xp.real(sylvester(ac, b, c * (1 + 1j)) * w[:, :3])))  # fmt: skip

    got = run(
        lambda *args: sg.grad(lambda *v: loss(sg.numpy, la.sqrtm, la.solve_sylvester, *v), argnums=(0, 1, 2, 3))(
            *args
        ),
        a, ac, b, c,
    )  # fmt: skip
    jax_loss = lambda *v: loss(jnp, _denman_beavers, _kronecker_sylvester, *v)  # noqa: E731
    want = jax.jit(jax.grad(jax_loss, argnums=(0, 1, 2, 3)))(a, ac, b, c)
    for k, (mine, theirs) in enumerate(zip(got, want)):
        np.testing.assert_allclose(mine, theirs, rtol=1e-8, atol=1e-8, err_msg=f"argument {k}")


def test_vectorize_matches_a_loop(run):
    """sg.vectorize over a leading axis of A (B and C shared) against the functions of each A."""
    a, b, c = RNG.normal(size=(3, 3, 3)), RNG.normal(size=(2, 2)) + 3 * np.eye(2), RNG.normal(size=(3, 2))

    def functions(a, b, c):
        t, z = la.schur(a)
        return [*la.rsf2csf(t, z), la.sqrtm(a), la.solve_sylvester(a, b, c), la.hessenberg(a)]

    def both(a, b, c):
        return sg.vectorize(functions, in_axes=(0, None, None))(a, b, c), [
            functions(a[k], b, c) for k in range(3)
        ]

    batched, loop = run(both, a, b, c)
    for k, lane in enumerate(loop):
        for mine, want in zip(batched, lane):
            np.testing.assert_allclose(mine[k], want, rtol=1e-10, atol=1e-10)


def test_errors_name_the_function_and_the_line():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3, 3), sg.float64)
        rect = sg.placeholder((3, 2), sg.float64)
        cases = [
            (lambda: la.schur(x, output="quasi"), "schur: output must be 'real' or 'complex'"),
            (lambda: la.schur(rect), "schur wants square matrices"),
            (lambda: la.rsf2csf(x, x[:2, :2]), "rsf2csf wants T and Z of one size"),
            (lambda: la.funm(sg.numpy.stack([x, x]), sg.numpy.exp), "funm wants one square matrix"),
            (lambda: la.solve_sylvester(x, x, rect), r"solve_sylvester wants C \(..., 3, 3\)"),
            (lambda: la.solve_sylvester(x, x, x, method="qz"), "method must be 'schur' or 'eigen'"),
            (lambda: la.sqrtm(rect), "sqrtm wants square matrices"),
        ]
        for build, message in cases:
            with pytest.raises(sg.GraphError, match=message) as err:
                build()
            assert "test_schur_functions.py:" in str(err.value)
        with pytest.raises(sg.GraphError, match="no vjp rule .*Schur form"):
            sg.grad(lambda v: sg.numpy.sum(sg.numpy.real(la.funm(v, sg.numpy.exp))))(
                x
            )  # as jax: schur has none
