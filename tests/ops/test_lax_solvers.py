"""sg.lax.custom_root, sg.lax.custom_linear_solve and sg.scipy.sparse.linalg (cg, bicgstab, gmres).

Values against numpy.linalg.solve and closed forms; gradients (implicit: with respect to b and
the Tensors matvec / f close over) against jax.grad through jax's own custom_linear_solve,
custom_root and jax.scipy.sparse.linalg on the same inputs; vectorize against a loop; edge
points (b = 0, maxiter = 0, a nan in A) and the errors.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
import stablegraph.numpy as snp
import stablegraph.scipy.sparse.linalg as ssl
from stablegraph.graph import ExecutionError, GraphError
from stablegraph.test_util import line_of, run_graph

pytestmark = pytest.mark.usefixtures("jax_x64")  # jax computes the oracles in float64 (put back after)
jsl = jax.scipy.sparse.linalg
N = 5


def _problem(seed=0, n=N):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, n))
    spd = q @ q.T + n * np.eye(n)  # symmetric positive definite
    gen = rng.normal(size=(n, n)) + 3 * np.eye(n)  # general, well conditioned
    return spd, gen, rng.normal(size=n), rng.normal(size=n)


def _close(got, want, tol=1e-9):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape
    if np.abs(want).max() == 0:  # a loss that does not read this argument
        np.testing.assert_array_equal(got, 0)
        return
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


# -- custom_linear_solve -------------------------------------------------------------------------
def _linear_losses(xp, lax, A, s, b, c):
    """One scalar per custom_linear_solve feature, in either library (xp: numpy-like, lax)."""
    matvec = lambda v: A @ v + s * v  # noqa: E731  (closes over A and s)
    m = A + s * xp.eye(N)
    solve = lambda mv, r: xp.linalg.solve(m, r)  # noqa: E731
    tsolve = lambda vm, r: xp.linalg.solve(m.T, r)  # noqa: E731
    plain = lax.custom_linear_solve(matvec, b, solve, tsolve)
    x_aux, aux = lax.custom_linear_solve(
        matvec, b, lambda mv, r: (solve(mv, r), xp.sum(r)), lambda vm, r: (tsolve(vm, r), r[0]), has_aux=True
    )
    sym_m = A @ A.T + N * xp.eye(N)
    sym = lax.custom_linear_solve(
        lambda v: sym_m @ v, b, lambda mv, r: xp.linalg.solve(sym_m, r), symmetric=True
    )
    nest = lax.custom_linear_solve(
        lambda t: {"u": m @ t["u"], "w": 2.0 * t["w"]},
        {"u": b, "w": 3.0 * b[:2]},
        lambda mv, r: {"u": xp.linalg.solve(m, r["u"]), "w": r["w"] / 2.0},
        lambda vm, r: {"u": xp.linalg.solve(m.T, r["u"]), "w": r["w"] / 2.0},
    )
    return [
        xp.sum(plain * c),
        xp.sum(x_aux * c) + 0.0 * aux,
        xp.sum(sym * c),
        xp.sum(nest["u"] * c) + xp.sum(nest["w"] * c[:2]),
    ]


def test_custom_linear_solve_values_and_implicit_gradients_match_jax():
    _, gen, b, c = _problem()
    s = np.float64(0.7)

    def ours(A, s, b, c):
        losses = _linear_losses(snp, sg.lax, A, s, b, c)
        grads = [sg.grad(lambda A, s, b, i=i: _linear_losses(snp, sg.lax, A, s, b, c)[i], (0, 1, 2))(A, s, b)
                 for i in range(len(losses))]  # fmt: skip
        x, aux = sg.lax.custom_linear_solve(
            lambda v: A @ v, b, lambda mv, r: (snp.linalg.solve(A, r), 7.0), has_aux=True
        )
        return losses, grads, x, aux

    losses, grads, x, aux = run_graph(ours, gen, s, b, c)
    np.testing.assert_allclose(x, np.linalg.solve(gen, b), rtol=1e-12)
    assert aux == 7.0
    wants = jax.jit(lambda A, s, b: [jax.value_and_grad(lambda A, s, b, i=i: _linear_losses(jnp, jax.lax, A, s, b, c)[i],
                                                       (0, 1, 2))(A, s, b) for i in range(len(losses))])(gen, s, b)  # fmt: skip
    for loss, grad, want in zip(losses, grads, wants):
        _close(loss, want[0])
        for g, w in zip(grad, want[1]):
            _close(g, w)


def test_custom_linear_solve_without_transpose_solve_runs_but_its_gradient_fails_at_the_call(tmp_path):
    _, gen, b, _ = _problem()
    call = "sg.lax.custom_linear_solve(lambda v: A @ v, b, lambda mv, r: snp.linalg.solve(A, r))"

    def forward(A, b):
        return sg.lax.custom_linear_solve(lambda v: A @ v, b, lambda mv, r: snp.linalg.solve(A, r))

    np.testing.assert_allclose(run_graph(forward, gen, b), np.linalg.solve(gen, b), rtol=1e-12)
    with pytest.raises(ExecutionError, match="transpose_solve") as info:
        run_graph(lambda A, b: sg.grad(lambda b: snp.sum(forward(A, b)))(b), gen, b)
    assert f"test_lax_solvers.py:{line_of(__file__, call) + 3}" in str(info.value)


def test_custom_linear_solve_refuses_a_matvec_that_changes_the_shape():
    with pytest.raises(GraphError, match="matvec must return what it takes") as info:
        run_graph(lambda b: sg.lax.custom_linear_solve(lambda v: v[:2], b, lambda mv, r: r), np.ones(3))
    assert "test_lax_solvers.py" in str(info.value)


# -- custom_root ---------------------------------------------------------------------------------
def _root_losses(xp, lax, jacobian, fori, a, y, c):
    """A cubic per element, x^3 + a x = y, by Newton; tangent_solve through the Jacobian."""
    f = lambda x: x**3 + a * x - y  # noqa: E731  (closes over a and y)

    def newton(f, x0):
        step = lambda i, x: x - f(x) / (3 * x**2 + a)  # noqa: E731
        return fori(0, 40, step, x0)

    tangent_solve = lambda g, r: xp.linalg.solve(jacobian(g)(r), r)  # noqa: E731
    x = lax.custom_root(f, xp.zeros_like(y), newton, tangent_solve)
    xa, aux = lax.custom_root(
        f, xp.zeros_like(y), lambda f, x0: (newton(f, x0), xp.sum(x0)), tangent_solve, True
    )
    scalar = lax.custom_root(lambda t: t * t - a[0], xp.ones_like(a[0]), lambda f, t0: fori(0, 40, lambda i, t: t - f(t) / (2 * t), t0),
                             lambda g, r: r / g(xp.ones_like(r)))  # fmt: skip
    return [xp.sum(x * c), xp.sum(xa**2) + 0.0 * aux, scalar * 3.0], x


def test_custom_root_values_and_implicit_gradients_match_jax():
    rng = np.random.default_rng(1)
    a, y, c = rng.uniform(0.5, 2.0, N), rng.normal(size=N), rng.normal(size=N)

    def ours(a, y):
        losses, x = _root_losses(snp, sg.lax, sg.jacobian, sg.fori_loop, a, y, c)
        grads = [sg.grad(lambda a, y, i=i: _root_losses(snp, sg.lax, sg.jacobian, sg.fori_loop, a, y, c)[0][i], (0, 1))(a, y)
                 for i in range(len(losses))]  # fmt: skip
        return losses, grads, x

    losses, grads, x = run_graph(ours, a, y)
    np.testing.assert_allclose(x**3 + a * x, y, atol=1e-12)  # the root itself
    wants = jax.jit(lambda a, y: [jax.value_and_grad(
        lambda a, y, i=i: _root_losses(jnp, jax.lax, jax.jacobian, jax.lax.fori_loop, a, y, c)[0][i], (0, 1))(a, y)
        for i in range(len(losses))])(a, y)  # fmt: skip
    for loss, grad, want in zip(losses, grads, wants):
        _close(loss, want[0])
        for g, w in zip(grad, want[1]):
            _close(g, w)
    # closed form for the scalar root sqrt(a0): d(3 sqrt(a0))/da0 = 1.5 / sqrt(a0)
    np.testing.assert_allclose(grads[2][0][0], 1.5 / np.sqrt(a[0]), rtol=1e-12)


# -- scipy.sparse.linalg ---------------------------------------------------------------------------
METHODS = {"cg": "spd", "bicgstab": "gen", "gmres": "gen"}


def _sparse_losses(lib, A, b, c, diag):
    out = []
    for name, kind in METHODS.items():
        solver = getattr(lib, name)
        m = A[kind]
        x = solver(m, b, tol=1e-12)[0]
        # A and M as functions, and a starting guess
        xm = solver(lambda v, m=m: m @ v, b, x0=b, tol=1e-12, M=lambda v, d=diag[kind]: v / d)[0]
        out += [x, xm]
    return out


def test_sparse_solvers_values_and_gradients_match_closed_forms_and_jax():
    spd, gen, b, c = _problem(2)
    mats = {"spd": spd, "gen": gen}
    diag = {k: np.diag(v).copy() for k, v in mats.items()}

    def solves(lib, spd, gen, b):
        return _sparse_losses(lib, {"spd": spd, "gen": gen}, b, c, diag)

    def ours(spd, gen, b):  # one forward: the solutions, and the gradient of sum_k c.x_k
        xs, back = sg.vjp(lambda *args: solves(ssl, *args), spd, gen, b)
        cts = [snp.asarray(c)] * len(xs)
        return xs, back(cts), back(cts[:4] + [snp.zeros_like(x) for x in xs[4:]])

    xs, grads, cg_bicgstab = run_graph(ours, spd, gen, b)
    for (_, kind), pair in zip(METHODS.items(), zip(xs[::2], xs[1::2])):
        for x in pair:
            np.testing.assert_allclose(x, np.linalg.solve(mats[kind], b), rtol=1e-9, atol=1e-10)
    # implicit gradients in closed form: x = A^-1 b, d(c.x)/db = A^-T c, d(c.x)/dA = -(A^-T c) x^T
    adj = {k: np.linalg.solve(m.T, c) for k, m in mats.items()}
    sol = {k: np.linalg.solve(m, b) for k, m in mats.items()}
    uses = {k: 2 * sum(v == k for v in METHODS.values()) for k in mats}  # solves of each matrix
    _close(grads[0], -uses["spd"] * np.outer(adj["spd"], sol["spd"]), 1e-7)
    _close(grads[1], -uses["gen"] * np.outer(adj["gen"], sol["gen"]), 1e-7)
    _close(grads[2], sum(uses[k] * adj[k] for k in mats), 1e-7)
    # and jax's, on cg and bicgstab (jax's gmres costs seconds to compile; the closed form covers it)
    loss = lambda *args: sum(jnp.sum(x * c) for x in solves(jsl, *args)[:4])  # noqa: E731
    for g, w in zip(cg_bicgstab, jax.jit(jax.grad(loss, (0, 1, 2)))(spd, gen, b)):
        _close(g, w, 1e-7)


def test_forward_mode_and_hessians_stay_implicit():
    spd, gen, b, c = _problem(6)
    a = np.random.default_rng(6).uniform(0.5, 2.0, N)

    def root(xp, lax, jacobian, fori, a, y):
        f = lambda x: x**3 + a * x - y  # noqa: E731
        newton = lambda f, x0: fori(0, 40, lambda i, x: x - f(x) / (3 * x**2 + a), x0)  # noqa: E731
        return lax.custom_root(f, xp.zeros_like(y), newton, lambda g, r: xp.linalg.solve(jacobian(g)(r), r))

    def ours(spd, gen, a, b):
        tangents = [sg.jvp(lambda b: ssl.cg(spd, b, tol=1e-12)[0], (b,), (c,))[1],
                    sg.jvp(lambda g: ssl.bicgstab(g, b, tol=1e-12)[0], (gen,), (spd,))[1],
                    sg.jvp(lambda a: root(snp, sg.lax, sg.jacobian, sg.fori_loop, a, b), (a,), (c,))[1]]  # fmt: skip
        hessians = [sg.hessian(lambda b: snp.sum(ssl.cg(spd, b, tol=1e-12)[0] ** 2))(b),
                    sg.hessian(lambda a: snp.sum(root(snp, sg.lax, sg.jacobian, sg.fori_loop, a, b) * c))(a)]  # fmt: skip
        return tangents, hessians

    tangents, hessians = run_graph(ours, spd, gen, a, b)
    x_gen = np.linalg.solve(gen, b)
    _close(tangents[0], np.linalg.solve(spd, c), 1e-8)  # closed forms: d(A^-1 b) = A^-1 db
    _close(tangents[1], -np.linalg.solve(gen, spd @ x_gen), 1e-8)  # and -A^-1 dA A^-1 b
    jroot = lambda a: root(jnp, jax.lax, jax.jacobian, jax.lax.fori_loop, a, b)  # noqa: E731
    _close(tangents[2], jax.jit(lambda a: jax.jvp(jroot, (a,), (c,))[1])(a), 1e-8)
    inv = np.linalg.inv(spd)
    _close(hessians[0], 2 * inv.T @ inv, 1e-8)  # sum(x^2), x = A^-1 b: 2 A^-T A^-1
    _close(hessians[1], jax.jit(jax.hessian(lambda a: jnp.sum(jroot(a) * c)))(a), 1e-7)


def test_sparse_solvers_float32_nests_and_complex():
    spd, gen, b, _ = _problem(3)
    z = np.random.default_rng(3).normal(size=(N, N)) * 0.3j
    herm = spd + z + z.conj().T  # Hermitian positive definite
    assert np.allclose(herm, herm.conj().T) and np.linalg.eigvalsh(herm).min() > 0
    bz = b + 1j * b[::-1]

    def ours(spd32, gen32, b32, herm, bz):
        pair = ssl.cg(lambda t: (spd32 @ t[0], 2.0 * t[1]), (b32, b32[:2]), tol=1e-6)[0]
        return (pair, ssl.bicgstab(gen32, b32, tol=1e-6)[0], ssl.gmres(gen32, b32, tol=1e-6, restart=2)[0],
                ssl.cg(herm, bz, tol=1e-12)[0], ssl.bicgstab(herm, bz, tol=1e-12)[0])  # fmt: skip

    f32 = lambda a: a.astype(np.float32)  # noqa: E731
    (p0, p1), xb, xg, zc, zg = run_graph(ours, f32(spd), f32(gen), f32(b), herm, bz)
    assert p0.dtype == xb.dtype == xg.dtype == np.float32 and zc.dtype == np.complex128
    np.testing.assert_allclose(p0, np.linalg.solve(spd, b), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(p1, b[:2] / 2, rtol=1e-6)
    for x in (xb, xg):
        np.testing.assert_allclose(x, np.linalg.solve(gen, b), rtol=1e-4, atol=1e-5)
    for x in (zc, zg):
        np.testing.assert_allclose(x, np.linalg.solve(herm, bz), rtol=1e-9, atol=1e-10)


def test_sparse_solvers_edge_points():
    spd, gen, b, _ = _problem(4)
    bad = gen.copy()
    bad[0, 0] = np.nan

    def ours(spd, gen, b, bad):
        zero = snp.zeros_like(b)
        return (
            [ssl.cg(spd, zero)[0], ssl.bicgstab(gen, zero)[0], ssl.gmres(gen, zero)],  # b = 0: x = 0 exactly
            [ssl.cg(spd, b, x0=b, maxiter=0)[0]],  # no step: x0
            # a nan in A or b: x nan, gmres info -1 (scipy's answer; jax returns x0 with info 0)
            [ssl.gmres(bad, b, maxiter=2), ssl.cg(spd, b * np.nan)[0]],
            ssl.bicgstab(gen, b, atol=1e300)[0],  # already within atol: x0 = 0
        )

    zeros, unmoved, nans, loose = run_graph(ours, spd, gen, b, bad)
    (x_bad, info_bad), *more_nans = nans
    assert all(np.all(np.isnan(x)) for x in [x_bad, *more_nans])
    x_cg, x_bi, (x_gm, info) = zeros
    for x in (x_cg, x_bi, x_gm, loose):
        assert np.all(x == 0)
    assert info == 0 and info_bad == -1
    for x in unmoved:
        np.testing.assert_array_equal(x, b)


def test_sparse_solvers_vectorize_like_a_loop():
    rng = np.random.default_rng(5)
    gens = rng.normal(size=(2, N, N)) + 3 * np.eye(N)
    bs = rng.normal(size=(2, N))

    def one(g, b):  # gmres's values, cg's gradient (its vjp vectorized), with A batched
        grad = sg.grad(lambda g, b: snp.sum(ssl.cg(g @ g.T, b, tol=1e-12)[0] ** 2), (0, 1))(g, b)
        return ssl.gmres(g, b, tol=1e-12)[0], grad

    def shared(g, b):  # bicgstab with A shared by the lanes
        return ssl.bicgstab(g, b, tol=1e-12)[0]

    def both(g, b):
        batched = sg.vectorize(one)(g, b), sg.vectorize(lambda b: shared(g[0], b))(b)
        looped = [(one(g[i], b[i]), shared(g[0], b[i])) for i in range(2)]
        return batched, looped

    batched, looped = run_graph(both, gens, bs)
    for i in range(2):
        for got, want in zip(jax.tree.leaves(batched), jax.tree.leaves(looped[i])):
            np.testing.assert_allclose(got[i], want, rtol=1e-9, atol=1e-12)


def test_sparse_solvers_refuse_bad_arguments():
    with pytest.raises(GraphError, match="A must be a square matrix") as info:
        run_graph(lambda b: ssl.cg(np.ones((3, 2)), b), np.ones(3))
    assert "test_lax_solvers.py" in str(info.value)
    with pytest.raises(GraphError, match="solve_method"):
        run_graph(lambda b: ssl.gmres(np.eye(3), b, solve_method="qr"), np.ones(3))
    with pytest.raises(GraphError, match="b must have static dims"):
        run_graph(lambda b: ssl.gmres(np.eye(3), b), np.ones(3), symbolic={0: ("n",)})
    with pytest.raises(GraphError, match="b must hold floating or complex arrays"):
        run_graph(lambda b: ssl.cg(np.eye(3), b), np.ones(3, np.int32))
    with pytest.raises(GraphError, match="x0 and b must have the same structure"):
        run_graph(lambda b: ssl.cg(np.eye(3), b, x0=(b, b)), np.ones(3))


def test_solvers_that_return_the_wrong_shape_are_named_at_the_call():
    def bad_tangent(a):
        def root(a):
            wrong = lambda g, y: snp.stack([y, y])  # noqa: E731
            return sg.lax.custom_root(lambda x: x * x - a, a, lambda f, x: x, wrong)  # the call

        return sg.grad(root)(a)

    with pytest.raises(GraphError, match="custom_root's tangent_solve must return a solution like") as info:
        run_graph(bad_tangent, np.ones(()))
    assert f"test_lax_solvers.py:{line_of(__file__, '# the call')}" in str(info.value)
    with pytest.raises(GraphError, match="custom_linear_solve's solve must return a solution like its input"):
        run_graph(lambda b: sg.lax.custom_linear_solve(lambda x: x, b, lambda mv, r: (r, r)), np.ones(3))
    with pytest.raises(GraphError, match=r"with has_aux=True"):
        run_graph(
            lambda b: sg.lax.custom_linear_solve(lambda x: x, b, lambda mv, r: r, has_aux=True), np.ones(3)
        )
