"""eigh and eig: LAPACK syevd/heevd and geev (ops layer); cuSOLVER's syevd and geev on a GPU.

eigh's gradient is jax's: with F[i, j] = 1 / (w[j] - w[i]) off the diagonal,
A's cotangent is V (diag(ct_w) + F * (V^H ct_V)) V^H, for A as given (not
symmetrized; sg.numpy.linalg.eigh symmetrizes its input first, as jax does).
"""

from __future__ import annotations

from ....graph import Attrs, GraphError, OpDef, TensorType, dtypes, located
from .. import constants, hlo, lapack, prims
from ..registry import bind, lookup
from .cholesky import triangular_solve
from .common import (
    adjoint,
    check_matrix,
    diag_embed,
    leading_batch,
    matmul,
    mT,
    scale_columns,
    splat,
    to_dtype,
    transposed_convention,
)
from .qr_lu import lu

sh = hlo.sh


# -- eigh ------------------------------------------------------------------------------------------
class EighAttrs(Attrs):
    lower: bool = True


def _eigh_infer(attrs: EighAttrs, x: TensorType):
    check_matrix("eigh", x, square=True)
    return x, TensorType(x.shape[:-1], dtypes.real_part(x.dtype))


def _eigh_lower(ctx, attrs: EighAttrs, x):
    (ty,), (v_ty, w_ty) = ctx.in_types, ctx.out_types
    batch = ty.shape[:-2]
    routine = "heevd" if ty.dtype.is_complex else "syevd"
    if lapack.has_lapack(ctx):
        config = {"mode": lapack.char("V"), "uplo": lapack.char("L" if attrs.lower else "U")}
    else:  # cuSOLVER's syevd: the triangle as a bool, and its default algorithm
        config = {"lower": hlo.ir.BoolAttr.get(attrs.lower), "algorithm": lapack.char("\0")}
    v, w, info = lapack.call(
        lapack.target(ctx, routine, ty.dtype), [x], [ty], [v_ty, w_ty, lapack.info_type(batch)], config,
        aliases={0: 0},
    )  # fmt: skip
    nb = len(batch)
    return [lapack.nan_unless_ok(info, v, v_ty, nb), lapack.nan_unless_ok(info, w, w_ty, nb)]


def inverse_gaps(w):
    """F[..., i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it (as jax's eigh jvp)."""
    n = w.ndim
    shape = (*w.shape, w.shape[-1])
    wj = prims.broadcast_in_dim(w, shape, (*range(n - 1), n))
    wi = prims.broadcast_in_dim(w, shape, tuple(range(n)))
    eye = diag_embed(splat(1, w))
    return prims.sub(prims.div(splat(1, eye), prims.add(eye, prims.sub(wj, wi))), eye)


def _eigh_vjp(ctx, attrs: EighAttrs, xs, ys, cts):
    (v, w), (ct_v, ct_w) = ys, cts
    inner = None
    if ct_w is not None:
        inner = to_dtype(diag_embed(ct_w), v.dtype)
    if ct_v is not None:
        gaps = prims.mul(to_dtype(inverse_gaps(w), v.dtype), matmul(adjoint(v), ct_v))
        inner = gaps if inner is None else prims.add(inner, gaps)
    if inner is None:
        return [None]
    return [matmul(matmul(v, inner), adjoint(v))]


eigh_op = OpDef(
    "eigh",
    _eigh_infer,
    _eigh_lower,
    attrs=EighAttrs,
    vjp=transposed_convention(_eigh_vjp),
    batch=leading_batch,
    doc="Eigenvectors V and ascending eigenvalues w of Hermitian matrices (A = V diag(w) V^H); LAPACK syevd.",
)


def eigh(x, lower: bool = True):
    """Eigen-decomposition ``(v, w)`` of Hermitian (symmetric) matrices ``x`` (..., n, n), as jax.lax.linalg.eigh.

    Reads the ``lower`` (or upper) triangle only. ``w`` (..., n) ascends and
    is real; the columns of ``v`` are orthonormal eigenvectors. Lowers to a
    custom call of LAPACK syevd (heevd for complex). Example: ``v, w = eigh(c)``.
    """
    return bind(eigh_op, x, lower=lower)


# -- eig -------------------------------------------------------------------------------------------
def _complex_of(dt: dtypes.DType) -> dtypes.DType:
    return (
        dtypes.complex128
        if dt.bits == 64 and not dt.is_complex or dt.name == "complex128"
        else dtypes.complex64
    )


def _eig_infer(attrs, x: TensorType):
    check_matrix("eig", x, square=True)
    ct = _complex_of(x.dtype)
    return TensorType(x.shape[:-1], ct), TensorType(x.shape, ct)


def _eig_lower(ctx, attrs, x):
    (ty,), (w_ty, v_ty) = ctx.in_types, ctx.out_types
    batch = ty.shape[:-2]
    name = lapack.target(ctx, "geev", ty.dtype)
    info_ty = lapack.info_type(batch)
    if not lapack.has_lapack(ctx):  # cuSOLVER's geev: its input's workspace, w, vl, vr, info
        config = {"left": hlo.ir.BoolAttr.get(False), "right": hlo.ir.BoolAttr.get(True)}
        vr_ty = TensorType(ty.shape, ty.dtype)
        _, w, _, vr, info = lapack.call(name, [x], [ty], [ty, w_ty, vr_ty, vr_ty, info_ty], config)
        v = vr if ty.dtype.is_complex else _unpack_conjugate_pairs(w, vr, w_ty, vr_ty)
    elif ty.dtype.is_complex:
        config = {"compute_left": lapack.char("N"), "compute_right": lapack.char("V")}
        w, _, v, info = lapack.call(name, [x], [ty], [w_ty, v_ty, v_ty, info_ty], config)
    else:  # jaxlib's real geev unpacks the eigenvectors itself
        config = {"compute_left": lapack.char("N"), "compute_right": lapack.char("V")}
        part = TensorType(w_ty.shape, ty.dtype)
        wr, wi, _, v, info = lapack.call(name, [x], [ty], [part, part, v_ty, v_ty, info_ty], config)
        w = sh.complex(wr, wi)
    nb = len(batch)
    return [lapack.nan_unless_ok(info, w, w_ty, nb), lapack.nan_unless_ok(info, v, v_ty, nb)]


def _unpack_conjugate_pairs(w, vr, w_ty: TensorType, vr_ty: TensorType):
    """Complex eigenvectors from geev's real packing: a conjugate pair w[j], w[j+1] = a +- ib (b > 0
    first) shares columns j and j+1 of vr as v[j] = vr[j] + i vr[j+1], v[j+1] = vr[j] - i vr[j+1]."""
    n_batch = vr_ty.ndim - 2
    imag = sh.imag(w)
    part_ty = TensorType(w_ty.shape, vr_ty.dtype)
    mask_ty = hlo.tensor_type(TensorType(vr_ty.shape, dtypes.bool_))
    column_of = hlo.dense_i64([*range(n_batch), n_batch + 1])  # (batch, n) -> each column of (batch, n, n)
    first, second = (
        sh.broadcast_in_dim(mask_ty, hlo.compare(imag, lapack.splat(0, part_ty), way, vr_ty.dtype), column_of)
        for way in ("GT", "LT")
    )
    zero = lapack.splat(0, TensorType((), vr_ty.dtype))

    def shifted(by: int):  # column j of the result is vr's column j + by (zero past the edge)
        edge = [0] * (vr_ty.ndim - 1)
        return sh.pad(
            vr, zero, hlo.dense_i64([*edge, -by]), hlo.dense_i64([*edge, by]), hlo.dense_i64([0] * vr_ty.ndim)
        )

    zeros = lapack.splat(0, vr_ty)
    real = sh.select(second, shifted(-1), vr)
    imaginary = sh.select(first, shifted(1), sh.select(second, sh.negate(vr), zeros))
    return sh.complex(real, imaginary)


def _eig_vjp(ctx, attrs, xs, ys, cts):
    # As jax: eigenvalues only (dw = diag(V^-1 dA V)); transposed, ct_A = (V diag(ct_w) V^-1)^T, found by
    # solving V^T Z = diag(ct_w) V^T with V's LU factors (V[perm] = L U); real A keeps the real part.
    (x,), (_, v), (ct_w, ct_v) = xs, ys, cts
    if ct_v is not None:
        node = ys[0].node
        raise GraphError(
            located(
                "eig's gradient covers the eigenvalues only (as jax): eigenvectors have no unique phase",
                node.location,
                node.name,
            )
        )
    if ct_w is None:
        return [None]
    packed, _, perm = lu(v)
    y = mT(scale_columns(v, ct_w))
    a = triangular_solve(packed, y, left_side=True, lower=False, transpose_a=True)
    c = triangular_solve(packed, a, left_side=True, lower=True, transpose_a=True, unit_diagonal=True)
    rows = prims.broadcast_in_dim(perm, tuple(v.shape), tuple(range(v.ndim - 1)))
    cols = constants.iota(dtypes.int32, tuple(v.shape), v.ndim - 1)
    onehot = prims.convert(prims.compare(rows, cols, "EQ"), v.dtype)
    ct_x = matmul(mT(onehot), c)
    return [ct_x if x.dtype.is_complex else bind(lookup("real"), ct_x)]


eig_op = OpDef(
    "eig",
    _eig_infer,
    _eig_lower,
    vjp=_eig_vjp,
    batch=leading_batch,
    doc="Complex eigenvalues w and right eigenvectors V of general square matrices (A V = V diag(w)); LAPACK geev.",
)


def eig(x):
    """Eigenvalues ``w`` (..., n) and right eigenvectors ``v`` (..., n, n) of general square matrices.

    Differentiable in the eigenvalues only (as jax); a gradient through ``v`` is a GraphError.

    Both are complex (complex128 for float64 input); each column of ``v`` has
    unit norm, as numpy.linalg.eig. Lowers to a custom call of LAPACK geev.
    Example: ``w, v = eig(a)``.
    """
    return bind(eig_op, x)
