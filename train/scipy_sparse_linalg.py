"""sg.scipy.sparse.linalg: cg, bicgstab and gmres, Krylov solvers with implicit gradients (train layer).

jax.scipy.sparse.linalg's signatures: ``A`` is a square matrix (Tensor or
array) or a function computing ``A @ x``, ``b`` an array or a nest of them,
``x0`` the starting guess (zeros), ``tol``/``atol`` the stopping rule
``‖r‖ <= max(tol·‖b‖, atol)``, ``maxiter`` (10·size of b by default) and
``M`` a preconditioner (matrix or function approximating A⁻¹). cg and
bicgstab return ``(x, None)``, gmres ``(x, info)`` with info -1 where x has
a nan, 0 otherwise, as jax's. One difference from jax, on scipy's side: a nan
in A, b or x0 gives x = nan (and gmres info -1), where jax's loops stop
before their first step and return x0 as if it solved the system.

Each is a while loop over the flattened vector (the nest's leaves raveled
into one, so a nest costs nothing extra) wrapped in sg.lax.custom_linear_solve:
the gradient never follows the iterations; it solves the transposed system
with the same method (cg: A is symmetric, so the same system), and reaches
the Tensors A closes over and b. The recurrences are the textbook ones
(Saad, Iterative Methods for Sparse Linear Systems: CG 6.18, BiCGSTAB 7.7,
GMRES 6.9 restarted, with left preconditioning as jax's), written here from
those descriptions; gmres builds each cycle's Krylov basis with classical
Gram-Schmidt applied twice, stops a cycle early when the basis stops
growing (the exact solution lies in it), and solves the small Hessenberg
least-squares problem with lstsq.
"""

from __future__ import annotations

import numpy as np

from ..graph import GraphError, Tensor, flatten, located, unflatten, user_location
from ..graph.tree import describe
from ..ops import numpy_like as snp
from ..ops.control_api import while_loop
from ..ops.numpy_like.core import asarray
from .lax_solvers import custom_linear_solve


def _error(message: str, where) -> GraphError:
    return GraphError(located(message, where))


def _operator(A, what: str, where):
    """``A`` as a function of x: itself if callable, ``A @ x`` for a square matrix, identity for None."""
    if A is None:
        return lambda x: x
    if callable(A) and not isinstance(A, Tensor):
        return A
    try:
        mat = asarray(A)
    except (GraphError, TypeError, ValueError):
        raise _error(f"{what} must be a matrix or a function, got {type(A).__name__}", where) from None
    if mat.ndim != 2 or mat.shape[0] != mat.shape[1]:
        raise _error(f"{what} must be a square matrix or a function, got {mat.type}", where)
    return lambda x: snp.matmul(mat, x)


class _Flat:
    """A nest of arrays (b's structure) seen as one 1-D vector, and back."""

    def __init__(self, leaves, tree, where):
        for x in leaves:
            if not all(isinstance(d, int) for d in x.shape):
                raise _error(f"b must have static dims (its size sets maxiter and gmres's basis), got {x.type}",
                             where)  # fmt: skip
        self.tree, self.shapes = tree, [x.shape for x in leaves]
        self.sizes = [int(np.prod(s)) for s in self.shapes]
        self.size = sum(self.sizes)
        kinds = {x.dtype for x in leaves}
        if len(kinds) != 1 or not all(x.dtype.is_floating or x.dtype.is_complex for x in leaves):
            raise _error(f"b must hold floating or complex arrays of one dtype, got {sorted(map(str, kinds))}",
                         where)  # fmt: skip
        self.dtype = leaves[0].dtype

    def ravel(self, nest) -> Tensor:
        leaves = flatten(nest)[0]
        flat = [snp.ravel(asarray(x, self.dtype)) for x in leaves]
        return flat[0] if len(flat) == 1 else snp.concatenate(flat)

    def unravel(self, v: Tensor):
        out, start = [], 0
        for shape, n in zip(self.shapes, self.sizes):
            out.append(snp.reshape(v[start : start + n], shape))
            start += n
        return unflatten(self.tree, out)

    def flat_fn(self, fn):
        return lambda v: self.ravel(fn(self.unravel(v)))


def _vdot(x, y):
    """<x, y> with x conjugated."""
    return snp.vdot(x, y)


def _norm2(x):
    return snp.real(_vdot(x, x))


def _isolve(method, A, b, x0, tol, atol, maxiter, M, symmetric: bool, **options):
    """Run ``method`` (on 1-D vectors) under custom_linear_solve, with the arguments checked."""
    where = user_location()
    matvec = _operator(A, "A", where)
    precond = _operator(M, "M", where)
    leaves, tree = flatten(b)
    try:
        leaves = [asarray(x) for x in leaves]
    except (GraphError, TypeError, ValueError):
        raise _error(f"b must hold Tensors or arrays, got {describe(tree)}", where) from None
    flat = _Flat(leaves, tree, where)
    b = unflatten(tree, leaves)
    if x0 is None:
        x0 = unflatten(tree, [snp.zeros_like(x) for x in leaves])
    elif flatten(x0)[1] != tree:
        raise _error(f"x0 and b must have the same structure: {describe(flatten(x0)[1])} vs {describe(tree)}",
                     where)  # fmt: skip
    maxiter = 10 * flat.size if maxiter is None else int(maxiter)
    x0_flat = flat.ravel(x0)

    def solve(op, rhs):
        x = method(
            flat.flat_fn(op), flat.flat_fn(precond), flat.ravel(rhs), x0_flat, tol, atol, maxiter, **options
        )
        return flat.unravel(x)

    if symmetric:
        return custom_linear_solve(matvec, b, solve, symmetric=True)
    return custom_linear_solve(matvec, b, solve, transpose_solve=solve)


def _nan_where_nan(x, residual_norm2):
    """x, or nan where the starting residual is nan: a nan in A, b or x0 stops the loop before
    its first step, which would leave x0 looking like an answer (jax returns it; scipy's solvers
    give nan)."""
    return snp.where(snp.isnan(residual_norm2), snp.full_like(x, np.nan), x)


def _stop_at(b, tol, atol):
    """The squared residual norm below which the iteration stops: max(tol·‖b‖, atol)²."""
    bs = _norm2(b)
    return snp.maximum(tol * tol * bs, atol * atol)


def _cg(A, M, b, x0, tol, atol, maxiter):
    atol2 = _stop_at(b, tol, atol)
    r0 = b - A(x0)
    z0 = M(r0)

    def cond(v):
        _, r, _, _, k = v
        return snp.logical_and(_norm2(r) > atol2, k < maxiter)

    def body(v):
        x, r, gamma, p, k = v
        ap = A(p)
        alpha = gamma / _vdot(p, ap)
        x = x + alpha * p
        r = r - alpha * ap
        z = M(r)
        gamma_next = _vdot(r, z)
        p = z + (gamma_next / gamma) * p
        return x, r, gamma_next, p, k + 1

    x = while_loop(cond, body, (x0, r0, _vdot(r0, z0), z0, asarray(np.int32(0))))[0]
    return _nan_where_nan(x, _norm2(r0))


def _bicgstab(A, M, b, x0, tol, atol, maxiter):
    atol2 = _stop_at(b, tol, atol)
    r0 = b - A(x0)
    one = asarray(np.ones((), b.dtype.np))
    zero_v = snp.zeros_like(b)

    def cond(v):
        _, r, *_, k = v
        return snp.logical_and(snp.logical_and(_norm2(r) > atol2, k < maxiter), k >= 0)

    def body(v):
        x, r, rhat, alpha, omega, rho_prev, p, q, k = v
        rho = _vdot(rhat, r)
        beta = (rho / rho_prev) * (alpha / omega)
        p = r + beta * (p - omega * q)
        phat = M(p)
        q = A(phat)
        alpha = rho / _vdot(rhat, q)
        s = r - alpha * q
        done = _norm2(s) < atol2  # converged half way: the s step is the last
        shat = M(s)
        t = A(shat)
        omega = _vdot(t, s) / _vdot(t, t)
        x = snp.where(done, x + alpha * phat, x + alpha * phat + omega * shat)
        r = snp.where(done, s, s - omega * t)
        # a breakdown (rho, alpha or omega zero) ends the loop, as jax's negative counts
        k = snp.where(snp.logical_or(omega == 0, alpha == 0), -11, k + 1)
        k = snp.where(rho == 0, -10, k)
        return x, r, rhat, alpha, omega, rho, p, q, k

    init = (x0, r0, r0, one, one, one, zero_v, zero_v, asarray(np.int32(0)))
    return _nan_where_nan(while_loop(cond, body, init)[0], _norm2(r0))


def _safe_normalize(x, thresh=None):
    """(x/‖x‖, ‖x‖), or (0, 0) where ‖x‖ is at most ``thresh`` (the type's epsilon by default)."""
    norm = snp.sqrt(_norm2(x))
    if thresh is None:
        thresh = float(np.finfo(norm.dtype.np).eps)
    big = norm > thresh
    safe = snp.where(big, norm, snp.ones_like(norm))
    return snp.where(big, x / safe.astype(x.dtype), snp.zeros_like(x)), snp.where(
        big, norm, snp.zeros_like(norm)
    )


def _gmres_cycle(A, M, b, x, unit, rnorm, restart: int):
    """One GMRES cycle from x: the Krylov basis of M·A from the unit residual, then the step
    minimizing the preconditioned residual over it; (x, unit residual, residual norm)."""
    from ..ops import lax  # noqa: PLC0415  (sg.lax loads on first use, not with import stablegraph)

    n = unit.shape[0]
    basis = lax.dynamic_update_index_in_dim(snp.zeros((restart + 1, n), unit.dtype), unit, 0, 0)
    # hess_t[j] is column j of the Hessenberg matrix; the identity fills the columns a cycle
    # that stops early leaves, keeping the least-squares problem full rank (their basis rows are 0)
    hess_t = snp.eye(restart, restart + 1, dtype=unit.dtype)
    eps = float(np.finfo(rnorm.dtype.np).eps)

    def cond(v):
        _, _, stopped, k = v
        return snp.logical_and(k < restart, snp.logical_not(stopped))

    def body(v):
        basis, hess_t, _, k = v
        w = M(A(lax.dynamic_index_in_dim(basis, k, 0, keepdims=False)))
        w_norm0 = snp.sqrt(_norm2(w))
        h = snp.zeros((restart + 1,), w.dtype)
        for _ in range(2):  # classical Gram-Schmidt, twice: orthogonal to working precision
            hk = snp.matmul(snp.conj(basis), w)
            w = w - snp.matmul(snp.transpose(basis), hk)
            h = h + hk
        w, w_norm = _safe_normalize(w, eps * w_norm0)
        h = lax.dynamic_update_index_in_dim(h, w_norm.astype(h.dtype), k + 1, 0)
        basis = lax.dynamic_update_index_in_dim(basis, w, k + 1, 0)
        hess_t = lax.dynamic_update_index_in_dim(hess_t, h, k, 0)
        return basis, hess_t, w_norm == 0, k + 1

    basis, hess_t, _, _ = while_loop(cond, body, (basis, hess_t, asarray(False), asarray(np.int32(0))))
    rhs = snp.zeros((restart + 1,), unit.dtype).at[0].set(rnorm.astype(unit.dtype))
    y = snp.linalg.lstsq(snp.transpose(hess_t), rhs)[0]
    x = x + snp.matmul(snp.transpose(basis[:restart]), y)
    unit, rnorm = _safe_normalize(M(b - A(x)))
    return x, unit, rnorm


def _gmres(A, M, b, x0, tol, atol, maxiter, restart: int):
    restart = max(1, min(int(restart), b.shape[0]))  # a basis of b's size spans everything
    stop = snp.maximum(tol * snp.sqrt(_norm2(b)), atol)
    r0 = M(b - A(x0))
    unit, rnorm = _safe_normalize(r0)

    def cond(v):
        _, k, _, rnorm = v
        return snp.logical_and(k < maxiter, rnorm > stop)

    def body(v):
        x, k, unit, rnorm = v
        x, unit, rnorm = _gmres_cycle(A, M, b, x, unit, rnorm, restart)
        return x, k + 1, unit, rnorm

    x = while_loop(cond, body, (x0, asarray(np.int32(0)), unit, rnorm))[0]
    return _nan_where_nan(x, _norm2(r0))


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """jax.scipy.sparse.linalg.cg: conjugate gradients for a symmetric (Hermitian) positive definite
    A; ``(x, None)``. Gradients solve with cg again (A is its own transpose)."""
    return _isolve(_cg, A, b, x0, tol, atol, maxiter, M, symmetric=True), None


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """jax.scipy.sparse.linalg.bicgstab: BiCGSTAB for a general square A; ``(x, None)``.
    Gradients solve the transposed system with bicgstab."""
    return _isolve(_bicgstab, A, b, x0, tol, atol, maxiter, M, symmetric=False), None


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None, solve_method="batched"):
    """jax.scipy.sparse.linalg.gmres: restarted GMRES for a general square A; ``(x, info)``, info
    -1 where x has a nan, else 0. ``maxiter`` counts restart cycles of ``restart`` steps;
    ``solve_method`` "batched" and "incremental" (jax's two ways to solve each cycle's least
    squares) both run the method above, which ends a cycle early when its basis stops growing."""
    if solve_method not in ("batched", "incremental"):
        raise _error(f"invalid solve_method {solve_method!r}, must be either 'incremental' or 'batched'",
                     user_location())  # fmt: skip
    x = _isolve(_gmres, A, b, x0, tol, atol, maxiter, M, symmetric=False, restart=restart)
    sq = [snp.sum(snp.abs(leaf) ** 2) for leaf in flatten(x)[0]]
    total = sq[0]
    for s in sq[1:]:
        total = total + s
    info = snp.where(snp.isnan(total), -1, 0).astype(np.int32)
    return x, info


__all__ = ["bicgstab", "cg", "gmres"]
