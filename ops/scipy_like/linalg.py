"""sg.scipy.linalg: scipy.linalg's names over the factorization primitives (ops layer).

cholesky, cho_factor, cho_solve, solve, solve_triangular, lu, lu_factor,
lu_solve, qr, svd, eigh, inv, det, expm, block_diag; the Schur-based functions come from
schur_functions.py, the other matrix functions from matrix_functions.py. Semantics as
jax.scipy.linalg: cholesky reads one triangle (no symmetrizing), returns the
upper factor by default; qr's mode='r' gives a 1-tuple; sqrtm is complex.
"""

from __future__ import annotations

import numpy as np

from ...graph import dtypes
from ..lax_linalg_api import lu_pivots_to_permutation
from ..numpy_like import linalg as nla
from ..numpy_like.core import asarray, broadcast_shapes, broadcast_to, error, result_dtype
from ..numpy_like.creation import eye, tril, triu, zeros
from ..numpy_like.linalg_decomp import adjoint, matrix_operand
from ..numpy_like.linalg_products import matmul
from ..numpy_like.manipulation import atleast_2d, concatenate, expand_dims, squeeze, swapaxes
from ..numpy_like.padding import pad
from ..numpy_like.ufuncs import (
    add,
    equal,
)
from ..primitives import factorizations
from .matrix_exponential import expm  # noqa: F401  (sg.scipy.linalg.expm)
from .matrix_functions import *  # noqa: F403  (expm_frechet, polar, eigh_tridiagonal, qr_multiply)
from .schur_functions import *  # noqa: F403  (schur, hessenberg, rsf2csf, funm, sqrtm, solve_sylvester)
from .special_matrices import *  # noqa: F403  (scipy.linalg's special matrices)

det, inv = nla.det, nla.inv


def cholesky(a, lower: bool = False):
    """Cholesky factor read from one triangle of ``a``: upper U (a = U^H U) unless ``lower`` (a = L L^H)."""
    x = matrix_operand(a, "cholesky", square=True)
    low = factorizations.cholesky(x if lower else adjoint(x))
    return low if lower else adjoint(low)


def cho_factor(a, lower: bool = False):
    """``(c, lower)`` for cho_solve: c is the Cholesky factor (the other triangle is zero)."""
    return cholesky(a, lower=lower), lower


def _rhs(x, b, fn: str):
    """b as (..., n, k) with x's batch dims (broadcast), and whether it was a vector (..., n)."""
    y = asarray(b, x.dtype)
    vector = y.ndim == x.ndim - 1 or y.ndim == 1
    if vector:
        y = expand_dims(y, -1)
    if y.shape[-2] != x.shape[-1]:
        raise error(f"linalg.{fn}: b {y.type} does not fit a {x.type}")
    batch = broadcast_shapes(tuple(x.shape[:-2]), tuple(y.shape[:-2]))
    return broadcast_to(x, (*batch, *x.shape[-2:])), broadcast_to(y, (*batch, *y.shape[-2:])), vector


def cho_solve(c_and_lower, b):
    """x with a x = b from ``cho_factor(a)``'s ``(c, lower)``."""
    c, lower = c_and_lower
    x, y, vector = _rhs(asarray(c), b, "cho_solve")
    low = x if lower else adjoint(x)
    z = factorizations.triangular_solve(low, y, left_side=True, lower=True)
    out = factorizations.triangular_solve(
        low, z, left_side=True, lower=True, transpose_a=True, conjugate_a=True
    )
    return squeeze(out, -1) if vector else out


def solve(a, b, lower: bool = False, assume_a: str = "gen"):
    """x with a x = b; ``assume_a`` 'gen', 'sym', 'her' (LU) or 'pos' (Cholesky of the ``lower`` triangle)."""
    if assume_a not in ("gen", "sym", "her", "pos"):
        raise error(f"linalg.solve wants assume_a 'gen', 'sym', 'her' or 'pos', got {assume_a!r}")
    dt = result_dtype(a, b)
    x = matrix_operand(asarray(a, dt), "solve", square=True)
    if assume_a == "pos":
        return cho_solve(cho_factor(x, lower=lower), asarray(b, x.dtype))
    x, y, vector = _rhs(x, asarray(b, x.dtype), "solve")
    out = nla.solve(x, y)
    return squeeze(out, -1) if vector else out


def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False):
    """x with op(a) x = b for triangular ``a``; ``trans`` 0/'N' (a), 1/'T' (a^T), 2/'C' (a^H)."""
    modes = {0: (False, False), "N": (False, False), 1: (True, False), "T": (True, False), 2: (True, True), "C": (True, True)}  # fmt: skip
    if trans not in modes:
        raise error(f"linalg.solve_triangular wants trans 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    transpose, conjugate = modes[trans]
    dt = result_dtype(a, b)
    x, y, vector = _rhs(
        matrix_operand(asarray(a, dt), "solve_triangular", square=True), asarray(b, dt), "solve_triangular"
    )
    out = factorizations.triangular_solve(
        x,
        y,
        left_side=True,
        lower=lower,
        transpose_a=transpose,
        conjugate_a=conjugate,
        unit_diagonal=unit_diagonal,
    )
    return squeeze(out, -1) if vector else out


def _onehot(perm, dt):
    """P[..., i, j] = (perm[..., i] == j): P @ b = b[perm]."""
    m = perm.shape[-1]
    cols = broadcast_to(asarray(np.arange(m), dtypes.int32), (*perm.shape, m))
    return asarray(equal(expand_dims(perm, -1), cols), dt)


def lu(a, permute_l: bool = False):
    """``(p, l, u)`` with a = p @ l @ u (p a permutation matrix), or ``(p @ l, u)`` if ``permute_l``."""
    x = matrix_operand(a, "lu")
    packed, _, perm = factorizations.lu(x)
    m, n = x.shape[-2:]
    k = min(m, n)
    l_mat = add(tril(packed, -1), eye(m, n, dtype=x.dtype))[..., :, :k]
    u_mat = triu(packed)[..., :k, :]
    p = swapaxes(_onehot(perm, x.dtype), -1, -2)
    return (matmul(p, l_mat), u_mat) if permute_l else (p, l_mat, u_mat)


def lu_factor(a):
    """``(lu, piv)``: the packed factors and LAPACK's 0-based row swaps, for lu_solve."""
    packed, piv, _ = factorizations.lu(matrix_operand(a, "lu_factor"))
    return packed, piv


def lu_solve(lu_and_piv, b, trans=0):
    """x with op(a) x = b from ``lu_factor(a)``; ``trans`` 0 (a), 1 (a^T), 2 (a^H)."""
    packed, piv = lu_and_piv
    packed = asarray(packed)
    if trans not in (0, 1, 2):
        raise error(f"linalg.lu_solve wants trans 0, 1 or 2, got {trans!r}")
    x, y, vector = _rhs(packed, b, "lu_solve")
    onehot = _onehot(broadcast_to(lu_pivots_to_permutation(asarray(piv), x.shape[-1]), x.shape[:-1]), x.dtype)
    solve_t = factorizations.triangular_solve
    if trans == 0:
        z = solve_t(x, matmul(onehot, y), left_side=True, lower=True, unit_diagonal=True)
        out = solve_t(x, z, left_side=True, lower=False)
    else:
        conj = trans == 2
        z = solve_t(x, y, left_side=True, lower=False, transpose_a=True, conjugate_a=conj)
        z = solve_t(x, z, left_side=True, lower=True, transpose_a=True, conjugate_a=conj, unit_diagonal=True)
        out = matmul(swapaxes(onehot, -1, -2), z)
    return squeeze(out, -1) if vector else out


def qr(a, mode: str = "full", pivoting: bool = False):
    """QR decomposition: ``(q, r)`` for mode 'full' (q square) or 'economic', ``(r,)`` for 'r'."""
    if pivoting:
        raise error("linalg.qr with pivoting=True is not supported (no geqp3 primitive yet)")
    if mode not in ("full", "economic", "r"):
        raise error(f"linalg.qr wants mode 'full', 'economic' or 'r', got {mode!r}")
    q, r = factorizations.qr(matrix_operand(a, "qr"), full_matrices=mode != "economic")
    return (r,) if mode == "r" else (q, r)


def svd(a, full_matrices: bool = True, compute_uv: bool = True):
    """``(u, s, vh)`` with a = u diag(s) vh, or s if not ``compute_uv``."""
    return nla.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False):
    """Eigenvalues ``w`` (ascending) and eigenvectors ``v`` of a Hermitian matrix read from one triangle."""
    if b is not None:
        raise error("linalg.eigh of a generalized problem (b given) is not supported")
    v, w = factorizations.eigh(matrix_operand(a, "eigh", square=True), lower=lower)
    return w if eigvals_only else (w, v)


def block_diag(*arrs):
    """The block diagonal matrix of the arrays (0-d and 1-d ones count as 1 x 1 and 1 x n)."""
    if not arrs:
        return zeros((1, 0))
    mats = [atleast_2d(asarray(a)) for a in arrs]
    dt = result_dtype(*mats)
    if any(m.ndim != 2 for m in mats):
        raise error(f"linalg.block_diag wants arrays of rank <= 2, got {[str(m.type) for m in mats]}")
    total = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        cols = m.shape[1]
        rows.append(pad(asarray(m, dt), ((0, 0), (left, total - left - cols))))
        left += cols
    return concatenate(rows, axis=0)
