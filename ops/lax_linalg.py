"""sg.lax.linalg: jax.lax.linalg's names, defaults and result orders over the factorization
primitives of ops/primitives/factorizations (ops layer, user-facing; ops/lax.py exposes it as ``linalg``).

jax.lax.linalg differs from the primitives' own builders in a few defaults: cholesky and eigh
symmetrize their input first, qr and svd default to full matrices, svd returns ``(u, s, vh)``,
eig returns ``[w, vl, vr]`` as asked. Options the primitives lack (left eigenvectors, pivoted
QR, partial spectra) are a clear error rather than a silent difference.
"""

from __future__ import annotations

from ..graph import GraphError, located, user_location
from .primitives import complex_parts, shape
from .primitives import factorizations as fz

triangular_solve = fz.triangular_solve


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def _symmetrized(x):
    """(x + x^H) / 2 over the last two dims: what jax.lax.linalg reads with symmetrize_input."""
    perm = (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2)
    xt = shape.transpose(x, perm)
    if x.dtype.is_complex:
        xt = complex_parts.conj(xt)
    return (x + xt) * 0.5


def cholesky(x, *, symmetrize_input: bool = True):
    """The lower Cholesky factor of (the symmetrized) ``x`` (..., n, n); NaNs if not positive definite."""
    return fz.cholesky(_symmetrized(x) if symmetrize_input else x)


def eigh(x, *, lower: bool = True, symmetrize_input: bool = True, sort_eigenvalues: bool = True,
         subset_by_index=None):  # fmt: skip
    """``(v, w)``: eigenvectors (columns) and ascending eigenvalues of Hermitian ``x`` (..., n, n)."""
    if subset_by_index is not None:
        raise _error("sg.lax.linalg.eigh computes the whole spectrum: subset_by_index is not supported")
    return fz.eigh(_symmetrized(x) if symmetrize_input else x, lower=lower)


def eig(x, *, compute_left_eigenvectors: bool = True, compute_right_eigenvectors: bool = True,
        use_magma=None):  # fmt: skip
    """``[w, vr]`` (or ``[w]``): eigenvalues and right eigenvectors of square ``x`` (..., n, n)."""
    if compute_left_eigenvectors:
        raise _error(
            "sg.lax.linalg.eig computes right eigenvectors only: pass compute_left_eigenvectors=False"
        )
    w, v = fz.eig(x)
    return [w, v] if compute_right_eigenvectors else [w]


def lu(x):
    """``(lu, pivots, permutation)`` of ``x`` (..., m, n), as jax.lax.linalg.lu."""
    return fz.lu(x)


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
    """``(q, r)`` of ``x`` (..., m, n); full matrices by default, as jax.lax.linalg.qr."""
    if pivoting:
        raise _error("sg.lax.linalg.qr has no pivoted QR: pass pivoting=False")
    return fz.qr(x, full_matrices=full_matrices)


def svd(x, *, full_matrices: bool = True, compute_uv: bool = True, subset_by_index=None, algorithm=None):
    """``(u, s, vh)`` with ``x = u @ diag(s) @ vh`` (or ``s`` alone without ``compute_uv``)."""
    if subset_by_index is not None:
        raise _error("sg.lax.linalg.svd computes every singular value: subset_by_index is not supported")
    s, u, vh = fz.svd(x, full_matrices=full_matrices)
    return (u, s, vh) if compute_uv else s


def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False, select_callable=None):
    """``(t, q)`` with ``x = q t q^H`` (or ``[t]`` without ``compute_schur_vectors``) for square ``x``
    (..., n, n): ``t`` triangular (quasi-triangular for real ``x``), ``q`` unitary. As in jax,
    LAPACK's eigenvalue sorting is not offered (``sort_eig_vals`` is an error, ``select_callable``
    is ignored)."""
    if sort_eig_vals:
        raise _error(
            "sg.lax.linalg.schur does not sort eigenvalues (neither does jax): pass sort_eig_vals=False"
        )
    del select_callable  # only read with sort_eig_vals, as jax
    if not compute_schur_vectors:
        return [fz.schur(x, compute_schur_vectors=False)]
    return fz.schur(x)


def hessenberg(a):
    """``(a, taus)``: the upper Hessenberg form of square ``a`` on and above its first subdiagonal,
    Householder reflectors below it with their factors ``taus`` (..., n - 1)."""
    return fz.hessenberg(a)


def tridiagonal(a, *, lower: bool = True):
    """``(a, d, e, taus)``: Hermitian ``a`` (read from the ``lower`` or upper triangle) reduced to
    the real tridiagonal matrix of diagonal ``d`` and off-diagonal ``e``, reflectors packed in ``a``."""
    return fz.tridiagonal(a, lower=lower)


def householder_product(a, taus):
    """The product of the Householder reflectors below the diagonal of ``a`` (..., m, n), m >= n,
    with factors ``taus`` (..., k): a (..., m, n) matrix with orthonormal columns."""
    return fz.householder_product(a, taus)


def ormqr(a, taus, c, *, left: bool = True, transpose: bool = False):
    """Q c (``left``) or c Q, Q^H for ``transpose``, for Q the product of the reflectors of ``a``
    and ``taus`` (geqrf's packing), without forming Q."""
    return fz.ormqr(a, taus, c, left=left, transpose=transpose)


__all__ = [
    "cholesky", "eig", "eigh", "hessenberg", "householder_product", "lu", "ormqr", "qr", "schur", "svd",
    "triangular_solve", "tridiagonal",
]  # fmt: skip
