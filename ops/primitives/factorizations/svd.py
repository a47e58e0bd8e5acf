"""svd: LAPACK gesdd (ops layer).

The gradient (full_matrices=False, or square matrices; real dtypes, as the
formula below) is the classic one (Townsend 2016) that jax's jvp transposes
to: with F[i, j] = 1 / (s[j]^2 - s[i]^2) off the diagonal,
ct_A = U (F * (U^T ct_U - ct_U^T U) S + diag(ct_s) + S F * (V^T ct_V - ct_V^T V)) V^T
     + (I - U U^T) ct_U S^-1 V^T + U S^-1 ct_V^T (I - V V^T).
"""

from __future__ import annotations

from ....graph import Attrs, GraphError, OpDef, TensorType, dtypes, located
from .. import hlo, lapack, prims
from ..registry import bind
from .common import check_matrix, diag_embed, leading_batch, matmul, mT, scale_columns, scale_rows, splat
from .eigen import inverse_gaps


class SvdAttrs(Attrs):
    full_matrices: bool = False


def _svd_infer(attrs: SvdAttrs, x: TensorType):
    check_matrix("svd", x)
    *batch, m, n = x.shape
    k = min(m, n) if isinstance(m, int) and isinstance(n, int) else None
    if k is None:
        raise GraphError(f"svd wants static matrix dims, got {x}")
    ku, kv = (m, n) if attrs.full_matrices else (k, k)
    batch = tuple(batch)
    return (
        TensorType((*batch, k), dtypes.real_part(x.dtype)),
        TensorType((*batch, m, ku), x.dtype),
        TensorType((*batch, kv, n), x.dtype),
    )


def _svd_lower(ctx, attrs: SvdAttrs, x):
    (ty,), (s_ty, u_ty, vt_ty) = ctx.in_types, ctx.out_types
    batch = ty.shape[:-2]
    name, info_ty = lapack.target(ctx, "gesdd", ty.dtype), lapack.info_type(batch)
    if lapack.has_lapack(ctx):
        _, s, u, vt, info = lapack.call(
            name, [x], [ty], [ty, s_ty, u_ty, vt_ty, info_ty],
            {"mode": lapack.char("A" if attrs.full_matrices else "S")}, aliases={0: 0},
        )  # fmt: skip
    else:  # cuSOLVER's gesvd wants m >= n: a wide matrix goes in row-major, as its transpose
        m, n = ty.shape[-2:]
        wide = m < n
        flag = hlo.ir.BoolAttr.get
        config = {
            "full_matrices": flag(attrs.full_matrices),
            "compute_uv": flag(True),
            "transposed": flag(wide),
        }
        outs = [ty, s_ty, vt_ty, u_ty, info_ty] if wide else [ty, s_ty, u_ty, vt_ty, info_ty]
        _, s, first, second, info = lapack.call(
            name, [x], [ty], outs, config, aliases={0: 0}, column_major=not wide
        )
        u, vt = (second, first) if wide else (first, second)
    nb = len(batch)
    return [lapack.nan_unless_ok(info, t, tt, nb) for t, tt in ((s, s_ty), (u, u_ty), (vt, vt_ty))]


def _svd_vjp(ctx, attrs: SvdAttrs, xs, ys, cts):
    (x,), (s, u, vt) = xs, ys
    m, n = x.shape[-2:]
    if x.dtype.is_complex or (attrs.full_matrices and m != n):
        node = ys[0].node
        raise GraphError(
            located(
                f"svd's gradient is written for real matrices with full_matrices=False (or square), got {x.type}",
                node.location,
                node.name,
            )
        )
    ct_s, ct_u, ct_vt = (ct if ct is not None else splat(0, y) for ct, y in zip(cts, ys))
    v, ct_v = mT(vt), mT(ct_vt)
    gaps = inverse_gaps(prims.mul(s, s))
    j = prims.mul(gaps, prims.sub(matmul(mT(u), ct_u), matmul(mT(ct_u), u)))
    k = prims.mul(gaps, prims.sub(matmul(vt, ct_v), matmul(ct_vt, v)))
    inner = prims.add(prims.add(scale_columns(j, s), diag_embed(ct_s)), scale_rows(k, s))
    ct_x = matmul(matmul(u, inner), vt)
    inv_s = prims.div(splat(1, s), s)
    if m > n:
        ct_us = scale_columns(ct_u, inv_s)  # (I - U U^T) ct_U S^-1 V^T
        ct_x = prims.add(ct_x, matmul(prims.sub(ct_us, matmul(u, matmul(mT(u), ct_us))), vt))
    if n > m:
        ct_vs = scale_rows(ct_vt, inv_s)  # U S^-1 ct_V^T (I - V V^T)
        ct_x = prims.add(ct_x, matmul(u, prims.sub(ct_vs, matmul(matmul(ct_vs, v), vt))))
    return [ct_x]


svd_op = OpDef(
    "svd",
    _svd_infer,
    _svd_lower,
    attrs=SvdAttrs,
    vjp=_svd_vjp,
    batch=leading_batch,
    doc="Singular values s (descending), U and V^H of (batches of) matrices, A = U diag(s) V^H; LAPACK gesdd.",
)


def svd(x, full_matrices: bool = False):
    """Singular value decomposition ``(s, u, vh)`` of ``x`` (..., m, n): ``x = u @ diag(s) @ vh``.

    ``s`` (..., k), k = min(m, n), descends. With ``full_matrices`` ``u`` is
    (..., m, m) and ``vh`` (..., n, n), else (..., m, k) and (..., k, n).
    Lowers to a custom call of LAPACK gesdd (divide and conquer).
    Example: ``s, u, vh = svd(a)``.
    """
    return bind(svd_op, x, full_matrices=full_matrices)
