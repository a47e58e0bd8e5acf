"""Solving and inverting in numpy.linalg spelling (ops layer).

solve, inv, det, slogdet, lstsq, pinv, matrix_rank, matrix_power,
tensorinv, tensorsolve, multi_dot. Part of sg.numpy.linalg. solve, inv, det
and slogdet go through the lu primitive and two triangular solves, so their
gradients are those of lu and triangular_solve; lstsq, pinv and
matrix_rank go through svd. Tolerances follow jax.numpy.linalg.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ...graph import dtypes
from ..primitives import factorizations
from .core import asarray, broadcast_shapes, broadcast_to, error, result_dtype
from .creation import eye
from .indexing import take_along_axis
from .linalg_decomp import SlogdetResult, adjoint, matrix_operand, svd
from .linalg_products import matmul
from .manipulation import expand_dims, moveaxis, reshape, squeeze
from .reductions import max as reduce_max
from .reductions import prod
from .reductions import sum as reduce_sum
from .ufuncs import absolute, equal, greater, log, multiply, not_equal, sign, subtract, true_divide, where


def _real(dt: dtypes.DType) -> dtypes.DType:
    return {"complex64": dtypes.float32, "complex128": dtypes.float64}.get(dt.name, dt)


def _eps(dt: dtypes.DType) -> float:
    return float(np.finfo(_real(dt).np).eps)


def _diagonal(x):
    """The main diagonal of square matrices: every (n + 1)-th element of each flattened matrix."""
    n = x.shape[-1]
    return reshape(x, (*x.shape[:-2], n * n))[..., :: n + 1]


def _lu_solve(lu, perm, b, n_batch: int):
    """x with a x = b from a's lu factors (b: (..., n, k), batch dims equal to lu's)."""
    rows = broadcast_to(expand_dims(perm, -1), (*perm.shape, 1))
    pb = take_along_axis(b, rows, axis=-2)
    y = factorizations.triangular_solve(lu, pb, left_side=True, lower=True, unit_diagonal=True)
    return factorizations.triangular_solve(lu, y, left_side=True, lower=False)


def solve(a, b):
    """x with a @ x = b. ``b`` is a vector (..., n) only if 1-d, else (..., n, k); batch dims broadcast.

    LU with partial pivoting (LAPACK getrf) and two triangular solves (trsm).
    """
    dt = result_dtype(a, b)
    x = matrix_operand(asarray(a, dt), "solve", square=True)
    y = asarray(b, x.dtype)
    vector = y.ndim == 1
    if vector:
        y = expand_dims(y, -1)
    if y.ndim < 2 or y.shape[-2] != x.shape[-1]:
        raise error(
            f"linalg.solve wants b of shape (..., {x.shape[-1]}) or (..., {x.shape[-1]}, k), got {y.type}"
        )
    batch = broadcast_shapes(tuple(x.shape[:-2]), tuple(y.shape[:-2]))
    x = broadcast_to(x, (*batch, *x.shape[-2:]))
    y = broadcast_to(y, (*batch, *y.shape[-2:]))
    lu, _, perm = factorizations.lu(x)
    out = _lu_solve(lu, perm, y, len(batch))
    return squeeze(out, -1) if vector else out


def inv(a):
    """The inverse of square matrices (solve against the identity)."""
    x = matrix_operand(a, "inv", square=True)
    n = x.shape[-1]
    return solve(x, broadcast_to(eye(n, dtype=x.dtype), x.shape))


def _lu_det_parts(a, fn: str):
    x = matrix_operand(a, fn, square=True)
    lu, piv, _ = factorizations.lu(x)
    n = x.shape[-1]
    swaps = reduce_sum(asarray(not_equal(piv, asarray(np.arange(n), dtypes.int32)), dtypes.int32), axis=-1)
    odd = equal(swaps % 2, 1)
    parity = where(odd, asarray(-1, x.dtype), asarray(1, x.dtype))
    return _diagonal(lu), parity


def det(a):
    """Determinants of square matrices: the product of U's diagonal, signed by the row swaps."""
    d, parity = _lu_det_parts(a, "det")
    return multiply(parity, prod(d, axis=-1))


def slogdet(a):
    """``SlogdetResult(sign, logabsdet)`` with det = sign * exp(logabsdet); a singular matrix gives (0, -inf)."""
    d, parity = _lu_det_parts(a, "slogdet")
    mag = absolute(d)
    unit = true_divide(d, asarray(where(equal(mag, 0), 1, mag), d.dtype)) if d.dtype.is_complex else sign(d)
    return SlogdetResult(multiply(parity, prod(unit, axis=-1)), reduce_sum(log(mag), axis=-1))


def _cutoff_inverse(s, tol):
    """1 / s where s > tol, 0 elsewhere (no division by the dropped ones)."""
    keep = greater(s, tol)
    return where(
        keep, true_divide(asarray(1, s.dtype), where(keep, s, asarray(1, s.dtype))), asarray(0, s.dtype)
    )


def pinv(a, rtol=None, hermitian: bool = False):
    """Moore-Penrose pseudo-inverse through the SVD; singular values below rtol * max(s) are dropped.

    rtol defaults to 10 * max(m, n) * eps, as jax. ``hermitian`` is accepted and ignored.
    """
    x = matrix_operand(a, "pinv")
    u, s, vh = svd(x, full_matrices=False)
    m, n = x.shape[-2:]
    rtol = 10 * max(m, n) * _eps(x.dtype) if rtol is None else rtol
    tol = multiply(asarray(rtol, s.dtype), reduce_max(s, axis=-1, keepdims=True))
    s_inv = asarray(_cutoff_inverse(s, tol), x.dtype)
    return matmul(multiply(adjoint(vh), expand_dims(s_inv, -2)), adjoint(u))


def matrix_rank(M, rtol=None, tol=None):  # noqa: N803
    """The number of singular values above ``tol`` (default rtol * max(s), rtol = max(m, n) * eps)."""
    x = asarray(M)
    if x.ndim < 2:
        return asarray(reduce_sum(asarray(not_equal(x, 0), dtypes.int32)) > 0, dtypes.int32)
    s = svd(matrix_operand(x, "matrix_rank"), compute_uv=False)
    if tol is None:
        m, n = x.shape[-2:]
        rtol = max(m, n) * _eps(s.dtype) if rtol is None else rtol
        tol = multiply(asarray(rtol, s.dtype), reduce_max(s, axis=-1, keepdims=True))
    else:
        tol = expand_dims(asarray(tol, s.dtype), -1)
    return reduce_sum(asarray(greater(s, tol), dtypes.int32), axis=-1)


def lstsq(a, b, rcond=None):
    """Least-squares solution of a @ x = b: ``(x, residuals, rank, s)`` through the SVD.

    rcond (relative cutoff of the singular values) defaults to eps * max(m, n).
    As jax (numpy_resid=False), residuals are always ||b - a x||^2 per column.
    """
    dt = result_dtype(a, b)
    x = matrix_operand(asarray(a, dt), "lstsq")
    y = asarray(b, x.dtype)
    if x.ndim != 2 or y.ndim not in (1, 2) or y.shape[0] != x.shape[0]:
        raise error(f"linalg.lstsq wants a (m, n) and b (m,) or (m, k), got {x.type} and {y.type}")
    vector = y.ndim == 1
    y2 = expand_dims(y, -1) if vector else y
    u, s, vh = svd(x, full_matrices=False)
    m, n = x.shape
    rcond = _eps(x.dtype) * max(m, n) if rcond is None else rcond
    tol = multiply(asarray(rcond, s.dtype), reduce_max(s, axis=-1, keepdims=True))
    s_inv = asarray(_cutoff_inverse(s, tol), x.dtype)
    sol = matmul(adjoint(vh), multiply(expand_dims(s_inv, -1), matmul(adjoint(u), y2)))
    r = subtract(y2, matmul(x, sol))
    mag = absolute(r)
    resid = reduce_sum(multiply(mag, mag), axis=0)
    rank = reduce_sum(asarray(greater(s, tol), dtypes.int32), axis=-1)
    if vector:
        sol, resid = squeeze(sol, -1), squeeze(resid, 0)
    return sol, resid, rank, s


def matrix_power(a, n: int):
    """a raised to the integer power ``n`` by repeated squaring (negative n: of inv(a))."""
    x = matrix_operand(a, "matrix_power", square=True)
    if not isinstance(n, int | np.integer):
        raise error(f"linalg.matrix_power wants an integer exponent, got {n!r}")
    if n == 0:
        return broadcast_to(eye(x.shape[-1], dtype=x.dtype), x.shape)
    if n < 0:
        x, n = inv(x), -n
    out = None
    while n:
        if n & 1:
            out = x if out is None else matmul(out, x)
        n >>= 1
        if n:
            x = matmul(x, x)
    return out


def multi_dot(arrays):
    """The chained product arrays[0] @ arrays[1] @ ... (a 1-d first or last array is a row or column vector)."""
    arrays = list(arrays)
    if len(arrays) < 2:
        raise error(f"linalg.multi_dot wants at least two arrays, got {len(arrays)}")
    return functools.reduce(matmul, arrays)


def tensorinv(a, ind: int = 2):
    """The inverse of a tensor seen as a matrix of its first ``ind`` dims by the rest."""
    x = asarray(a)
    rows, cols = tuple(x.shape[:ind]), tuple(x.shape[ind:])
    if ind <= 0 or math.prod(rows) != math.prod(cols):
        raise error(
            f"linalg.tensorinv wants prod(shape[:ind]) == prod(shape[ind:]), got {x.type} with ind={ind}"
        )
    square = reshape(x, (math.prod(rows), math.prod(cols)))
    return reshape(inv(square), cols + rows)


def tensorsolve(a, b, axes=None):
    """x with tensordot(a, x, x.ndim) = b; ``axes`` of a move to the end first."""
    x = asarray(a)
    y = asarray(b)
    if axes is not None:
        axes = [ax % x.ndim for ax in axes]
        x = moveaxis(x, axes, list(range(x.ndim - len(axes), x.ndim)))
    out_shape = tuple(x.shape[y.ndim :])
    if tuple(x.shape[: y.ndim]) != tuple(y.shape) or math.prod(y.shape) != math.prod(out_shape):
        raise error(f"linalg.tensorsolve: a {x.type} does not fit b {y.type}")
    sol = solve(reshape(x, (math.prod(y.shape), math.prod(out_shape))), reshape(y, (-1,)))
    return reshape(sol, out_shape)
