"""Decompositions in numpy.linalg spelling: cholesky, eigh, eigvalsh, eig, eigvals, svd, svdvals, qr (ops layer).

Part of sg.numpy.linalg (ops/numpy_like/linalg.py gathers the namespace).
Each is one factorization primitive (ops/factorizations) plus numpy's
argument handling; results are named tuples where numpy's are (EighResult,
SVDResult, ...), so they unpack as tuples. As jax does, cholesky and eigh
symmetrize their input, (a + a^H) / 2, so gradients are symmetric.
"""

from __future__ import annotations

from typing import NamedTuple

from ...graph import Tensor, dtypes
from ..primitives import factorizations
from ..primitives.complex_parts import conj
from .core import asarray, error
from .manipulation import swapaxes
from .ufuncs import add, multiply

_LAPACK = ("float32", "float64", "complex64", "complex128")


class EighResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class EigResult(NamedTuple):
    eigenvalues: Tensor
    eigenvectors: Tensor


class SVDResult(NamedTuple):
    U: Tensor
    S: Tensor
    Vh: Tensor


class QRResult(NamedTuple):
    Q: Tensor
    R: Tensor


class SlogdetResult(NamedTuple):
    sign: Tensor
    logabsdet: Tensor


def matrix_operand(a, fn: str, square: bool = False) -> Tensor:
    """``a`` as a Tensor of a dtype LAPACK takes (integers and small floats become float32, int64
    float64), checked to be a (batch of) matrix, square if asked."""
    x = asarray(a)
    if x.dtype.name not in _LAPACK:
        x = asarray(x, dtypes.float64 if x.dtype.bits == 64 and not x.dtype.is_complex else dtypes.float32)
    if x.ndim < 2:
        raise error(f"linalg.{fn} wants an array of rank >= 2 (a matrix or a batch of them), got {x.type}")
    if square and x.shape[-1] != x.shape[-2]:
        raise error(f"linalg.{fn} wants square matrices (shape[-2] == shape[-1]), got {x.type}")
    return x


def adjoint(x: Tensor) -> Tensor:
    """Conjugate transpose over the last two axes."""
    t = swapaxes(x, -1, -2)
    return conj(t) if t.dtype.is_complex else t


def _symmetrized(x: Tensor) -> Tensor:
    return multiply(add(x, adjoint(x)), asarray(0.5, x.dtype))


def cholesky(a, upper: bool = False):
    """Cholesky factor of positive definite (Hermitian) matrices: L with a = L L^H (U = L^H if ``upper``).

    The input is symmetrized first (as jax), so it need not be exactly
    symmetric; a matrix that is not positive definite gives NaNs.
    """
    low = factorizations.cholesky(_symmetrized(matrix_operand(a, "cholesky", square=True)))
    return adjoint(low) if upper else low


def eigh(a, UPLO: str = "L", symmetrize_input: bool = True):  # noqa: N803
    """Eigenvalues (ascending) and eigenvectors of Hermitian matrices: ``EighResult(eigenvalues, eigenvectors)``."""
    if UPLO not in ("L", "U"):
        raise error(f"linalg.eigh wants UPLO 'L' or 'U', got {UPLO!r}")
    x = matrix_operand(a, "eigh", square=True)
    v, w = factorizations.eigh(_symmetrized(x) if symmetrize_input else x, lower=UPLO == "L")
    return EighResult(w, v)


def eigvalsh(a, UPLO: str = "L"):  # noqa: N803
    """Eigenvalues (ascending, real) of Hermitian matrices."""
    return eigh(a, UPLO).eigenvalues


def eig(a):
    """Eigenvalues and right eigenvectors of general square matrices (complex): ``EigResult``."""
    w, v = factorizations.eig(matrix_operand(a, "eig", square=True))
    return EigResult(w, v)


def eigvals(a):
    """Eigenvalues (complex) of general square matrices."""
    return eig(a).eigenvalues


def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False):
    """Singular value decomposition ``SVDResult(U, S, Vh)`` with a = U diag(S) Vh, or S if not ``compute_uv``.

    ``full_matrices`` (numpy's default True) gives square U and Vh; gradients
    need full_matrices=False (as in jax). ``hermitian`` is accepted and ignored.
    """
    s, u, vh = factorizations.svd(matrix_operand(a, "svd"), full_matrices=full_matrices and compute_uv)
    return SVDResult(u, s, vh) if compute_uv else s


def svdvals(x):
    """Singular values, descending."""
    return svd(x, full_matrices=False, compute_uv=False)


def qr(a, mode: str = "reduced"):
    """QR decomposition ``QRResult(Q, R)``; ``mode`` 'reduced' (k = min(m, n) columns), 'complete', or 'r'."""
    if mode not in ("reduced", "complete", "r"):
        raise error(f"linalg.qr wants mode 'reduced', 'complete' or 'r', got {mode!r}")
    q, r = factorizations.qr(matrix_operand(a, "qr"), full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)
