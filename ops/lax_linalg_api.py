"""sg.lax.linalg (ops layer, user-facing; ops/lax.py exposes it as ``linalg``): the factorization
wrappers of lax_linalg.py and jax.lax.linalg's functions built from other ops:
lu_pivots_to_permutation, symmetric_product, tridiagonal_solve, cholesky_update, qdwh (lax_qdwh.py), and the
algorithm enums, which the factorizations accept for jax's signatures (XLA's CPU and GPU
kernels choose their own algorithms here).
"""

from __future__ import annotations

import enum

import numpy as np

from ..graph import GraphError, dtypes, library, located, user_location
from . import numpy_like as snp
from .control_api import fori_loop
from .lax_linalg import *  # noqa: F403  (the factorization wrappers)
from .lax_linalg import __all__ as _wrappers
from .lax_linalg import cholesky
from .lax_qdwh import qdwh


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


class EigImplementation(enum.Enum):
    """Which eig kernel jax would use; accepted, the Session's platform decides here."""

    CUSOLVER = "cusolver"
    MAGMA = "magma"
    LAPACK = "lapack"


class EighImplementation(enum.Enum):
    """Which eigh algorithm jax would use; accepted, the platform's kernel decides here."""

    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


class SvdAlgorithm(enum.Enum):
    """Which SVD algorithm jax would use (svd's ``algorithm=``); accepted, the kernel decides here."""

    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


@library()
def lu_pivots_to_permutation(pivots, permutation_size: int):
    """The permutation LAPACK's 0-based row swaps ``pivots`` (..., k) make of arange(size): swap i
    with pivots[i] for i = 0 ... k-1 in turn (a loop over k, every batch member at once)."""
    piv = snp.asarray(pivots)
    if not piv.dtype.is_integer or piv.ndim < 1:
        raise _error(f"sg.lax.linalg.lu_pivots_to_permutation wants integer pivots (..., k), got {piv.type}")
    m, k = int(permutation_size), piv.shape[-1]
    if k > m:
        raise _error(f"sg.lax.linalg.lu_pivots_to_permutation: {k} pivots for a permutation of size {m}")
    piv = piv.astype(dtypes.int32)
    pos = snp.broadcast_to(snp.asarray(np.arange(m, dtype=np.int32)), (*piv.shape[:-1], m))
    steps = snp.asarray(np.arange(k, dtype=np.int32))

    def swap(i, perm):
        p = snp.sum(snp.where(steps == i, piv, 0), axis=-1, keepdims=True)
        here = snp.sum(snp.where(pos == i, perm, 0), axis=-1, keepdims=True)
        there = snp.sum(snp.where(pos == p, perm, 0), axis=-1, keepdims=True)
        return snp.where(pos == i, there, snp.where(pos == p, here, perm))

    return fori_loop(0, k, swap, pos)


def _transpose(x):
    return snp.swapaxes(x, -1, -2)


@library()
def symmetric_product(a_matrix, c_matrix, *, alpha: float = 1.0, beta: float = 0.0,
                      symmetrize_output: bool = False):  # fmt: skip
    """alpha A A^T + beta C for A (..., m, n) and symmetric C (..., m, m). Both triangles are
    computed here (jax promises only the lower one without ``symmetrize_output``)."""
    a, c = snp.asarray(a_matrix), snp.asarray(c_matrix)
    out = alpha * snp.matmul(a, _transpose(a)) + beta * c
    if symmetrize_output:
        out = snp.tril(out) + _transpose(snp.tril(out, -1))
    return out


@library()
def tridiagonal_solve(dl, d, du, b, *, perturb_singular: bool = False):
    """x with T x = b for the tridiagonal T of sub-diagonal ``dl`` (dl[..., 0] is ignored),
    diagonal ``d`` and super-diagonal ``du`` (du[..., -1] ignored), b (..., m, n). Solved as the
    dense m x m system (O(m^3), differentiable like any solve; LAPACK's gtsv is O(m));
    ``perturb_singular`` is not offered."""
    if perturb_singular:
        raise _error(
            "sg.lax.linalg.tridiagonal_solve does not perturb singular systems: pass perturb_singular=False"
        )
    dl, d, du, b = (snp.asarray(v) for v in (dl, d, du, b))
    m = d.shape[-1]
    if not (dl.shape == d.shape == du.shape) or b.ndim < 2 or b.shape[-2] != m:
        raise _error(
            f"sg.lax.linalg.tridiagonal_solve wants dl, d, du of one shape (..., m) and b (..., m, n), got "
            f"{dl.type}, {d.type}, {du.type}, {b.type}"
        )
    below = snp.asarray(np.eye(m, k=-1, dtype=bool))  # T[i, i-1] = dl[i]
    above = snp.asarray(np.eye(m, k=1, dtype=bool))  # T[i, i+1] = du[i]
    rows = [snp.expand_dims(v, -1) for v in (dl, d, du)]  # each row i takes its own entry
    t = snp.where(below, rows[0], 0) + snp.eye(m, dtype=d.dtype) * rows[1] + snp.where(above, rows[2], 0)
    return snp.linalg.solve(t, b)


@library()
def cholesky_update(r_matrix, w_vector):
    """The upper Cholesky factor R' of R^H R + w w^H, given the upper factor R (n x n) of A and w
    (n): computed by factoring the updated matrix again (O(n^3); jax's rotations are O(n^2))."""
    r, w = snp.asarray(r_matrix), snp.asarray(w_vector)
    if r.ndim != 2 or w.ndim != 1 or r.shape[0] != r.shape[1] or r.shape[0] != w.shape[0]:
        raise _error(f"sg.lax.linalg.cholesky_update wants R (n, n) and w (n,), got {r.type} and {w.type}")
    a = snp.matmul(snp.conj(_transpose(r)), r) + snp.outer(w, snp.conj(w))
    return snp.conj(_transpose(cholesky(a, symmetrize_input=True)))


__all__ = [
    *_wrappers, "EigImplementation", "EighImplementation", "SvdAlgorithm", "cholesky_update",
    "lu_pivots_to_permutation", "symmetric_product", "tridiagonal_solve", "qdwh",
]  # fmt: skip
