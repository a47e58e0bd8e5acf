"""scipy.linalg's expm_frechet, polar, eigh_tridiagonal and qr_multiply on sg.scipy.linalg (ops
layer), each built from the factorization primitives and expm:

- expm_frechet: the Frechet derivative L(A, E) of expm is the upper right block of
  expm([[A, E], [0, A]]) (Higham), whose diagonal blocks are expm(A);
- polar: from the SVD a = U S V^H, u = U V^H and p = V S V^H (side "right") or U S U^H ("left");
- eigh_tridiagonal: eigh of the dense tridiagonal matrix (eigenvectors too, which jax's lacks);
- qr_multiply: Q (economic) from qr, multiplied with c on the side asked.
"""

from __future__ import annotations

from ...graph import GraphError, library, located, user_location
from ..numpy_like import linalg as nla
from ..numpy_like.core import asarray
from ..numpy_like.creation import eye, zeros_like
from ..numpy_like.linalg_decomp import matrix_operand
from ..numpy_like.linalg_products import matmul
from ..numpy_like.manipulation import concatenate, expand_dims, swapaxes
from ..numpy_like.math_ufuncs import conjugate as conj
from ..primitives import factorizations
from .matrix_exponential import expm


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def _adjoint(x):
    return conj(swapaxes(x, -1, -2))


@library()
def expm_frechet(A, E, *, method: str | None = None, compute_expm: bool = True):  # noqa: N803
    """(expm(A), L(A, E)) or L(A, E) alone: the Frechet derivative of the matrix exponential at A
    in direction E, from the block matrix [[A, E], [0, A]] (one expm of twice the size)."""
    if method not in (None, "SPS", "blockEnlarge"):
        raise _error(
            f"sg.scipy.linalg.expm_frechet: method must be None, 'SPS' or 'blockEnlarge', got {method!r}"
        )
    a, e = matrix_operand(A, "expm_frechet", square=True), matrix_operand(E, "expm_frechet", square=True)
    if a.shape != e.shape:
        raise _error(f"sg.scipy.linalg.expm_frechet wants A and E of one shape, got {a.type} and {e.type}")
    n = a.shape[-1]
    big = concatenate([concatenate([a, e], axis=-1), concatenate([zeros_like(a), a], axis=-1)], axis=-2)
    out = expm(big)
    frechet = out[..., :n, n:]
    return (out[..., :n, :n], frechet) if compute_expm else frechet


@library()
def polar(a, side: str = "right", *, method: str = "qdwh", eps=None, max_iterations=None):
    """(u, p) with a = u p (side "right") or a = p u ("left"): u with orthonormal columns, p
    Hermitian positive semi-definite; from the SVD (jax iterates QDWH; the factors agree)."""
    if side not in ("right", "left"):
        raise _error(f"sg.scipy.linalg.polar: side must be 'right' or 'left', got {side!r}")
    if method not in ("qdwh", "svd"):
        raise _error(f"sg.scipy.linalg.polar: method must be 'qdwh' or 'svd', got {method!r}")
    x = matrix_operand(a, "polar")
    u_, s, vh = nla.svd(x, full_matrices=False)
    u = matmul(u_, vh)
    s = asarray(s, x.dtype)
    if side == "right":
        p = matmul(_adjoint(vh), expand_dims(s, -1) * vh)
    else:
        p = matmul(u_ * expand_dims(s, -2), _adjoint(u_))
    return u, p


@library()
def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a", select_range=None, tol=None,
                     key=None):  # fmt: skip
    """Eigenvalues (ascending; and eigenvectors as columns unless ``eigvals_only``) of the
    symmetric tridiagonal matrix of diagonal ``d`` (n) and off-diagonal ``e`` (n-1). ``select``
    'a' gives all, 'i' those of the index range ``select_range = (lo, hi)`` inclusive; 'v' (a value
    range, whose count depends on the data) is not offered."""
    d, e = asarray(d), asarray(e)
    n = d.shape[-1]
    if d.ndim != 1 or e.ndim != 1 or e.shape[-1] != n - 1:
        raise _error(f"sg.scipy.linalg.eigh_tridiagonal wants d (n,) and e (n-1,), got {d.type} and {e.type}")
    if select not in ("a", "i"):
        raise _error(
            f"sg.scipy.linalg.eigh_tridiagonal: select must be 'a' or 'i' ('v' has a data-dependent size), got {select!r}"
        )
    off = concatenate([e, zeros_like(e[:1])])  # off[i] = T[i, i+1] = T[i+1, i]
    t = eye(n, dtype=d.dtype) * expand_dims(d, -1)
    t = (
        t
        + eye(n, k=1, dtype=d.dtype) * expand_dims(off, -1)
        + eye(n, k=-1, dtype=d.dtype) * expand_dims(off, -2)
    )
    v, w = factorizations.eigh(t, lower=True)
    if select == "i":
        lo, hi = (int(k) for k in select_range)
        if not 0 <= lo <= hi < n:
            raise _error(
                f"sg.scipy.linalg.eigh_tridiagonal: select_range {select_range} is not within [0, {n})"
            )
        w, v = w[lo : hi + 1], v[:, lo : hi + 1]
    return w if eigvals_only else (w, v)


@library()
def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False):  # fmt: skip
    """(c Q, R) (mode "right") or (Q c, R) ("left") with Q, R the economic QR of ``a``; Q's
    conjugate with ``conjugate``. A 1-d c is a row (right) or a column (left), as scipy."""
    if pivoting:
        raise _error(
            "sg.scipy.linalg.qr_multiply with pivoting=True is not supported (no geqp3 primitive yet)"
        )
    if mode not in ("left", "right"):
        raise _error(f"sg.scipy.linalg.qr_multiply: mode must be 'left' or 'right', got {mode!r}")
    x = matrix_operand(a, "qr_multiply")
    q, r = factorizations.qr(x, full_matrices=False)
    if conjugate:
        q = conj(q)
    c = asarray(c)
    vector = c.ndim == 1
    if mode == "right":
        out = matmul(expand_dims(c, 0) if vector else c, q)
    else:
        out = matmul(q, expand_dims(c, -1) if vector else c)
    if vector:
        out = out[0] if mode == "right" else out[..., 0]
    return out, r


__all__ = ["eigh_tridiagonal", "expm_frechet", "polar", "qr_multiply"]
