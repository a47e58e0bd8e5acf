"""qr and lu: LAPACK geqrf + orgqr (ungqr), and getrf (ops layer).

Gradients as jax defines them: qr's for m >= n with reduced factors (or
square), ct_A = (ct_Q + Q copyltu(M)) R^-H with M = R ct_R^H - ct_Q^H Q;
lu's the transpose of jax's jvp (L' = L tril(X, -1), U' = triu(X) U with
X = L^-1 P^T A' U^-1, L and U completed to square with identity blocks).
"""

from __future__ import annotations

import numpy as np

from ....graph import Attrs, GraphError, OpDef, TensorType, dtypes, located
from .. import constants, hlo, lapack, prims
from ..registry import bind
from .cholesky import triangular_solve
from .common import (
    adjoint,
    check_matrix,
    conj,
    eye,
    leading_batch,
    matmul,
    mT,
    splat,
    transposed_convention,
    tril,
    triu,
)

sh, ir = hlo.sh, hlo.ir


def _refuse(ys, why: str):
    node = ys[0].node
    raise GraphError(located(why, node.location, node.name))


def _static(op: str, x: TensorType) -> tuple[int, int]:
    m, n = x.shape[-2:]
    if not (isinstance(m, int) and isinstance(n, int)):
        raise GraphError(f"{op} wants static matrix dims, got {x}")
    return m, n


def _slice(v, ty: TensorType, rows: int, cols: int):
    """v[..., :rows, :cols] in the lowering."""
    limit = [*ty.shape[:-2], rows, cols]
    out = TensorType(tuple(limit), ty.dtype)
    return sh.slice(v, hlo.dense_i64([0] * ty.ndim), hlo.dense_i64(limit), hlo.dense_i64([1] * ty.ndim)), out


# -- qr --------------------------------------------------------------------------------------------
class QrAttrs(Attrs):
    full_matrices: bool = False


def _qr_infer(attrs: QrAttrs, x: TensorType):
    check_matrix("qr", x)
    m, n = _static("qr", x)
    k = m if attrs.full_matrices else min(m, n)
    batch = tuple(x.shape[:-2])
    return TensorType((*batch, m, k), x.dtype), TensorType((*batch, k, n), x.dtype)


def _qr_lower(ctx, attrs: QrAttrs, x):
    (ty,), (q_ty, r_ty) = ctx.in_types, ctx.out_types
    *batch, m, n = ty.shape
    k = min(m, n)
    taus_ty = TensorType((*batch, k), ty.dtype)
    a, taus = lapack.call(lapack.target(ctx, "geqrf", ty.dtype), [x], [ty], [ty, taus_ty], {}, aliases={0: 0})
    # the Householder vectors sit below R's diagonal; orgqr makes Q from the first q_ty columns of them
    if m < n:
        h, h_ty = _slice(a, ty, m, m)
    elif attrs.full_matrices and m > n:
        zero = hlo.constant(np.zeros((), ty.dtype.np), ty.dtype)
        high = [0] * (ty.ndim - 1) + [m - n]
        h = sh.pad(a, zero, hlo.dense_i64([0] * ty.ndim), hlo.dense_i64(high), hlo.dense_i64([0] * ty.ndim))
        h_ty = q_ty
    else:
        h, h_ty = a, ty
    routine = "ungqr" if ty.dtype.is_complex else "orgqr"
    (q,) = lapack.call(
        lapack.target(ctx, routine, ty.dtype), [h, taus], [h_ty, taus_ty], [h_ty], {}, aliases={0: 0}
    )
    if h_ty.shape != q_ty.shape:
        q, _ = _slice(q, h_ty, *q_ty.shape[-2:])
    r, r_full = (a, ty) if r_ty.shape == ty.shape else _slice(a, ty, *r_ty.shape[-2:])
    return [q, lapack.keep_triangle(r, r_full, lower=False)]


def _qr_vjp(ctx, attrs: QrAttrs, xs, ys, cts):
    (x,), (q, r) = xs, ys
    m, n = x.shape[-2:]
    if m < n or (attrs.full_matrices and m != n):
        _refuse(ys, f"qr's gradient needs m >= n and reduced factors (as jax), got {x.type} "
                f"with full_matrices={attrs.full_matrices}")  # fmt: skip
    ct_q, ct_r = (ct if ct is not None else splat(0, y) for ct, y in zip(cts, ys))
    mm = prims.sub(matmul(r, adjoint(ct_r)), matmul(adjoint(ct_q), q))
    low = tril(mm, -1)
    diag = prims.sub(tril(mm), low)
    if diag.dtype.is_complex:  # only the real part of the diagonal: Q's phases are fixed by R's real diagonal
        diag = prims.mul(splat(0.5, diag), prims.add(diag, conj(diag)))
    copyltu = prims.add(prims.add(low, adjoint(low)), diag)
    b = prims.add(ct_q, matmul(q, copyltu))
    return [triangular_solve(r, b, left_side=False, lower=False, transpose_a=True, conjugate_a=True)]


qr_op = OpDef(
    "qr",
    _qr_infer,
    _qr_lower,
    attrs=QrAttrs,
    vjp=transposed_convention(_qr_vjp),
    batch=leading_batch,
    doc="QR decomposition A = Q R, Q with orthonormal columns, R upper triangular; LAPACK geqrf + orgqr.",
)


def qr(x, full_matrices: bool = False):
    """QR decomposition ``(q, r)`` of ``x`` (..., m, n), as jax.lax.linalg.qr.

    With ``full_matrices`` q is (..., m, m) and r (..., m, n); else q is
    (..., m, k) and r (..., k, n), k = min(m, n). Lowers to custom calls of
    LAPACK geqrf then orgqr (ungqr for complex). Example: ``q, r = qr(a)``.
    """
    return bind(qr_op, x, full_matrices=full_matrices)


# -- lu --------------------------------------------------------------------------------------------
def _lu_infer(attrs, x: TensorType):
    check_matrix("lu", x)
    m, n = _static("lu", x)
    batch = tuple(x.shape[:-2])
    return x, TensorType((*batch, min(m, n)), dtypes.int32), TensorType((*batch, m), dtypes.int32)


def _permutation(pivots, piv_ty: TensorType, m: int):
    """The row permutation the row swaps ``pivots`` make: a while loop of k swaps over an iota (with
    batch dims every member swaps at once, by one-hot compares: their swapped positions differ)."""
    *batch, k = piv_ty.shape
    nb = len(batch)
    i32 = dtypes.int32
    perm_ty = TensorType((*batch, m), i32)
    pos = sh.iota(hlo.tensor_type(perm_ty), nb)

    def spread(v):  # batch values (..., 1) -> (..., m)
        return sh.broadcast_in_dim(hlo.tensor_type(perm_ty), v, hlo.dense_i64(range(nb + 1)))

    zero, one = hlo.constant(np.zeros((), np.int32), i32), hlo.constant(np.ones((), np.int32), i32)

    def at(v, i):  # v[..., i:i+1]
        sizes = hlo.dense_i64([*batch, 1])
        return sh.dynamic_slice(v, [zero] * nb + [i], sizes)

    def body_one(i, perm):  # no batch dims: swap two entries with dynamic slices
        p = sh.reshape(hlo.scalar_type(i32), at(pivots, i))
        here, there = at(perm, i), at(perm, p)
        perm = sh.dynamic_update_slice(perm, there, [i])
        return [sh.add(i, one), sh.dynamic_update_slice(perm, here, [p])]

    def body_batched(i, perm):  # each member swaps other positions: one-hot selects
        p = spread(at(pivots, i))
        is_p = hlo.compare(pos, p, "EQ", i32)
        picked = sh.select(is_p, perm, lapack.splat(0, perm_ty))
        out_ty = TensorType(tuple(batch), i32)
        red = sh.ReduceOp([hlo.tensor_type(out_ty)], [picked], [zero], hlo.dense_i64([nb]))
        hlo.reduce_region(red.body, i32, sh.add)
        at_p = sh.broadcast_in_dim(hlo.tensor_type(perm_ty), red.result, hlo.dense_i64(range(nb)))
        is_i = hlo.compare(
            pos, sh.broadcast_in_dim(hlo.tensor_type(perm_ty), i, hlo.dense_i64([])), "EQ", i32
        )
        new = sh.select(is_i, at_p, sh.select(is_p, spread(at(perm, i)), perm))
        return [sh.add(i, one), new]

    def cond(i, perm):
        return hlo.compare(i, hlo.constant(np.asarray(k, np.int32), i32), "LT", i32)

    return hlo.while_loop([zero, pos], cond, body_batched if nb else body_one)[1]


def _lu_lower(ctx, attrs, x):
    (ty,), (lu_ty, piv_ty, _) = ctx.in_types, ctx.out_types
    batch = ty.shape[:-2]
    lu, piv, info = lapack.call(
        lapack.target(ctx, "getrf", ty.dtype),
        [x],
        [ty],
        [lu_ty, piv_ty, lapack.info_type(batch)],
        {},
        aliases={0: 0},
    )
    piv = sh.subtract(piv, lapack.splat(1, piv_ty))  # LAPACK counts rows from 1
    # info > 0 says U is singular, still a factorization; info < 0 is an error
    ok = hlo.compare(info, lapack.splat(0, lapack.info_type(batch)), "GE", dtypes.int32)
    bad = sh.select(ok, lapack.splat(0, lapack.info_type(batch)), lapack.splat(1, lapack.info_type(batch)))
    lu = lapack.nan_unless_ok(bad, lu, lu_ty, len(batch))
    return [lu, piv, _permutation(piv, piv_ty, ty.shape[-2])]


def _resize(x, rows: int, cols: int):
    """x cut or padded with zeros to (..., rows, cols)."""
    m, n = x.shape[-2:]
    zero = constants.constant(np.zeros((), x.dtype.np))
    return prims.pad(x, zero, (0,) * x.ndim, (0,) * (x.ndim - 2) + (rows - m, cols - n))


def _lu_vjp(ctx, attrs, xs, ys, cts):
    # L is completed to m x m and U to n x n with identity blocks, as jax's jvp does for rectangular A.
    (x,), (lu, _, perm), ct = xs, ys, cts[0]
    if ct is None:
        return [None]
    *batch, m, n = x.shape
    k = min(m, n)
    l_mat = prims.add(tril(_resize(lu, m, m), -1), eye((*batch, m, m), lu.dtype))
    u_mat = triu(_resize(lu, n, n))
    if n > k:
        tail = prims.sub(eye((*batch, n, n), lu.dtype), _resize(eye((*batch, k, k), lu.dtype), n, n))
        u_mat = prims.add(u_mat, tail)
    inner = prims.add(tril(matmul(adjoint(l_mat), ct), -1), triu(matmul(ct, adjoint(u_mat))))
    s = triangular_solve(l_mat, inner, left_side=True, lower=True, transpose_a=True, conjugate_a=True,
                         unit_diagonal=True)  # fmt: skip
    ct_perm = triangular_solve(u_mat, s, left_side=False, lower=False, transpose_a=True, conjugate_a=True)
    # rows of P^T A are A[perm]: the one-hot P[i, j] = (perm[i] == j) maps the cotangent back
    shape = tuple(x.shape[:-1]) + (m,)
    rows = prims.broadcast_in_dim(perm, shape, tuple(range(x.ndim - 1)))
    cols = constants.iota(dtypes.int32, shape, x.ndim - 1)
    onehot = prims.convert(prims.compare(rows, cols, "EQ"), x.dtype)
    return [matmul(mT(onehot), ct_perm)]


lu_op = OpDef(
    "lu",
    _lu_infer,
    _lu_lower,
    vjp=transposed_convention(_lu_vjp),
    batch=leading_batch,
    doc="LU decomposition with partial pivoting: packed L\\U, row swaps (pivots) and the permutation; LAPACK getrf.",
)


def lu(x):
    """LU decomposition ``(lu, pivots, permutation)`` of ``x`` (..., m, n), as jax.lax.linalg.lu.

    ``x[..., permutation, :] = L @ U`` with L unit lower triangular (below the
    diagonal of ``lu``) and U upper triangular (on and above it); ``pivots``
    (..., min(m, n)) are the 0-based row swaps LAPACK made. Lowers to a custom
    call of LAPACK getrf and a loop turning the swaps into the permutation.
    Example: ``lu_, piv, perm = lu(a)``.
    """
    return bind(lu_op, x)
