"""schur, hessenberg, tridiagonal, householder_product and ormqr: LAPACK gees, gehrd, sytrd/hetrd,
orgqr/ungqr and ormqr/unmqr (ops layer).

These are the reductions the matrix functions of sg.scipy.linalg (sqrtm, funm, solve_sylvester)
start from, and the Householder machinery that turns their packed reflectors into matrices.
jax defines no derivative for any of them (no jvp rule in jax.lax.linalg): a Schur or Hessenberg
form is not unique (its vectors carry a free phase per column, its order follows LAPACK's
deflation), so each vjp rule is absent with that reason and the functions built on them that jax
can differentiate (sqrtm, solve_sylvester) carry their own rules. On a GPU only householder_product
has a kernel (cuSOLVER's orgqr); the others are a GraphError at the user's line naming the op.
"""

from __future__ import annotations

from ....graph import Attrs, GraphError, OpDef, TensorType, dtypes
from .. import hlo, lapack
from ..registry import bind
from .common import check_matrix, leading_batch

ir = hlo.ir

_NOT_UNIQUE = (
    "as jax, no derivative: the {} is not unique (a free phase per Schur vector, LAPACK's order "
    "of the eigenvalues), so its derivative is not defined"
)


def _empty(ty: TensorType) -> bool:
    return any(d == 0 for d in ty.shape)


def _zeros(types) -> list:
    """Outputs of an empty input: nothing for a kernel to do (LAPACK is never called with n = 0)."""
    return [lapack.splat(0, t) for t in types]


def _i32(value: int) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), value)


# -- schur -----------------------------------------------------------------------------------------
class SchurAttrs(Attrs):
    compute_schur_vectors: bool = True


def _schur_infer(attrs: SchurAttrs, x: TensorType):
    check_matrix("schur", x, square=True)
    return (x, x) if attrs.compute_schur_vectors else (x,)


def _schur_lower(ctx, attrs: SchurAttrs, x):
    (ty,), outs = ctx.in_types, ctx.out_types
    if _empty(ty):
        return _zeros(outs)
    batch = ty.shape[:-2]
    info_ty, w_ty = lapack.info_type(batch), TensorType(ty.shape[:-1], ty.dtype)
    eigenvalues = [w_ty, w_ty] if not ty.dtype.is_complex else [w_ty]  # real: wr and wi
    config = {"mode": lapack.char("V" if attrs.compute_schur_vectors else "N"), "sort": lapack.char("N")}
    t, vs, *_, info = lapack.call(
        lapack.target(ctx, "gees", ty.dtype), [x], [ty], [ty, ty, *eigenvalues, info_ty, info_ty], config,
        aliases={0: 0},
    )  # fmt: skip
    nb = len(batch)
    results = [lapack.nan_unless_ok(info, t, ty, nb)]
    if attrs.compute_schur_vectors:
        results.append(lapack.nan_unless_ok(info, vs, ty, nb))
    return results


schur_op = OpDef(
    "schur",
    _schur_infer,
    _schur_lower,
    attrs=SchurAttrs,
    batch=leading_batch,
    reasons={"vjp": _NOT_UNIQUE.format("Schur form")},
    doc="Schur form T (quasi-triangular for real input) and Schur vectors Q of A = Q T Q^H; LAPACK gees.",
)


def schur(x, compute_schur_vectors: bool = True):
    """``(t, q)`` (or ``(t,)``) with ``x = q t q^H`` for square ``x`` (..., n, n), as jax.lax.linalg.schur.

    ``t`` is upper triangular for complex input and quasi upper triangular (2 x 2
    blocks for complex conjugate eigenvalue pairs) for real input; ``q`` is unitary.
    Lowers to a custom call of LAPACK gees (CPU only). Example: ``t, q = schur(a)``.
    """
    return bind(schur_op, x, compute_schur_vectors=compute_schur_vectors)


# -- hessenberg ------------------------------------------------------------------------------------
def _hessenberg_infer(attrs, x: TensorType):
    check_matrix("hessenberg", x, square=True)
    n = x.shape[-1]
    return x, TensorType((*x.shape[:-2], max(n - 1, 0)), x.dtype)


def _hessenberg_lower(ctx, attrs, x):
    (ty,), (a_ty, taus_ty) = ctx.in_types, ctx.out_types
    if _empty(ty) or _empty(taus_ty):  # n <= 1: already Hessenberg, no reflectors
        return [x, *_zeros([taus_ty])]
    batch = ty.shape[:-2]
    a, taus, info = lapack.call(
        lapack.target(ctx, "gehrd", ty.dtype), [x], [ty], [a_ty, taus_ty, lapack.info_type(batch)],
        {"low": _i32(1), "high": _i32(ty.shape[-1])}, aliases={0: 0},
    )  # fmt: skip
    nb = len(batch)
    return [lapack.nan_unless_ok(info, a, a_ty, nb), lapack.nan_unless_ok(info, taus, taus_ty, nb)]


hessenberg_op = OpDef(
    "hessenberg",
    _hessenberg_infer,
    _hessenberg_lower,
    batch=leading_batch,
    reasons={"vjp": _NOT_UNIQUE.format("Householder packing of a Hessenberg reduction")},
    doc="Hessenberg reduction: H on and above the first subdiagonal, reflectors below it, and their taus; LAPACK gehrd.",
)


def hessenberg(x):
    """``(a, taus)``: the upper Hessenberg form of square ``x`` (..., n, n) on and above the first
    subdiagonal of ``a``, the Householder reflectors below it with their scalar factors ``taus``
    (..., n - 1), as jax.lax.linalg.hessenberg. Lowers to LAPACK gehrd (CPU only)."""
    return bind(hessenberg_op, x)


# -- tridiagonal -----------------------------------------------------------------------------------
class TridiagonalAttrs(Attrs):
    lower: bool = True


def _tridiagonal_infer(attrs: TridiagonalAttrs, x: TensorType):
    check_matrix("tridiagonal", x, square=True)
    *batch, n = x.shape[:-1]
    if n == 0:
        raise GraphError(f"tridiagonal wants matrices of at least 1 x 1 (as jax), got {x}")
    real = dtypes.real_part(x.dtype)
    return (x, TensorType((*batch, n), real), TensorType((*batch, n - 1), real),
            TensorType((*batch, n - 1), x.dtype))  # fmt: skip


def _tridiagonal_lower(ctx, attrs: TridiagonalAttrs, x):
    (ty,), outs = ctx.in_types, ctx.out_types
    if _empty(ty):
        return _zeros(outs)
    batch = ty.shape[:-2]
    routine = "hetrd" if ty.dtype.is_complex else "sytrd"
    results = lapack.call(
        lapack.target(ctx, routine, ty.dtype), [x], [ty], [*outs, lapack.info_type(batch)],
        {"uplo": lapack.char("L" if attrs.lower else "U")}, aliases={0: 0},
    )  # fmt: skip
    *values, info = results
    return [lapack.nan_unless_ok(info, v, t, len(batch)) for v, t in zip(values, outs)]


tridiagonal_op = OpDef(
    "tridiagonal",
    _tridiagonal_infer,
    _tridiagonal_lower,
    attrs=TridiagonalAttrs,
    batch=leading_batch,
    reasons={"vjp": _NOT_UNIQUE.format("Householder packing of a tridiagonal reduction")},
    doc="Tridiagonal reduction of Hermitian matrices: packed reflectors, diagonal d, off-diagonal e, taus; LAPACK sytrd/hetrd.",
)


def tridiagonal(x, lower: bool = True):
    """``(a, d, e, taus)``: the reduction of Hermitian ``x`` (..., n, n), read from its ``lower`` (or
    upper) triangle, to the real tridiagonal matrix of diagonal ``d`` (n) and off-diagonal ``e``
    (n - 1), with the reflectors packed in ``a`` beyond that band and their factors ``taus``, as
    jax.lax.linalg.tridiagonal. Lowers to LAPACK sytrd (hetrd for complex), CPU only."""
    return bind(tridiagonal_op, x, lower=lower)


# -- householder_product ---------------------------------------------------------------------------
def _check_reflectors(op: str, a: TensorType, taus: TensorType) -> None:
    check_matrix(op, a)
    m, n = a.shape[-2:]
    if taus.dtype != a.dtype or taus.ndim != a.ndim - 1 or taus.shape[:-1] != a.shape[:-2]:
        raise GraphError(f"{op} wants taus (..., k) of a's dtype and batch dims, got a {a} and taus {taus}")
    if taus.shape[-1] > min(m, n):
        raise GraphError(f"{op} wants at most min(m, n) = {min(m, n)} taus, got a {a} and taus {taus}")


def _householder_infer(attrs, a: TensorType, taus: TensorType):
    _check_reflectors("householder_product", a, taus)
    if a.shape[-2] < a.shape[-1]:
        raise GraphError(f"householder_product wants at least as many rows as columns (as jax), got {a}")
    return a


def _householder_lower(ctx, attrs, a, taus):
    (a_ty, taus_ty), (out_ty,) = ctx.in_types, ctx.out_types
    if _empty(a_ty):
        return [a]
    routine = "ungqr" if a_ty.dtype.is_complex else "orgqr"
    return lapack.call(
        lapack.target(ctx, routine, a_ty.dtype), [a, taus], [a_ty, taus_ty], [out_ty], {}, aliases={0: 0}
    )


householder_product_op = OpDef(
    "householder_product",
    _householder_infer,
    _householder_lower,
    batch=leading_batch,
    reasons={"vjp": "as jax, no derivative: the reflectors' packing (geqrf's) is an internal format"},
    doc="The product of elementary Householder reflectors (columns of a below the diagonal, taus): LAPACK orgqr/ungqr.",
)


def householder_product(a, taus):
    """The (..., m, n) matrix with orthonormal columns that is the product of the Householder
    reflectors stored below the diagonal of ``a`` (m >= n) with scalar factors ``taus`` (..., k),
    as jax.lax.linalg.householder_product. Lowers to LAPACK orgqr (ungqr for complex)."""
    return bind(householder_product_op, a, taus)


# -- ormqr -----------------------------------------------------------------------------------------
class OrmqrAttrs(Attrs):
    left: bool = True
    transpose: bool = False


def _ormqr_infer(attrs: OrmqrAttrs, a: TensorType, taus: TensorType, c: TensorType):
    _check_reflectors("ormqr", a, taus)
    check_matrix("ormqr", c)
    m = a.shape[-2]
    if c.dtype != a.dtype or c.shape[:-2] != a.shape[:-2]:
        raise GraphError(f"ormqr wants c of a's dtype and batch dims, got a {a} and c {c}")
    if c.shape[-2 if attrs.left else -1] != m:
        side = "rows" if attrs.left else "columns"
        raise GraphError(
            f"ormqr with left={attrs.left} wants c with {m} {side} (a's rows), got a {a} and c {c}"
        )
    return c


def _ormqr_lower(ctx, attrs: OrmqrAttrs, a, taus, c):
    (a_ty, taus_ty, c_ty), (out_ty,) = ctx.in_types, ctx.out_types
    if _empty(c_ty) or _empty(taus_ty):  # no reflectors: Q is the identity
        return [c]
    routine = "unmqr" if a_ty.dtype.is_complex else "ormqr"
    flag = ir.BoolAttr.get
    return lapack.call(
        lapack.target(ctx, routine, a_ty.dtype), [a, taus, c], [a_ty, taus_ty, c_ty], [out_ty],
        {"left": flag(attrs.left), "transpose": flag(attrs.transpose)}, aliases={2: 0},
    )  # fmt: skip


ormqr_op = OpDef(
    "ormqr",
    _ormqr_infer,
    _ormqr_lower,
    attrs=OrmqrAttrs,
    batch=leading_batch,
    reasons={"vjp": "as jax, no derivative: the reflectors' packing (geqrf's) is an internal format"},
    doc="Q c, Q^H c, c Q or c Q^H for Q the product of packed Householder reflectors, without forming Q; LAPACK ormqr/unmqr.",
)


def ormqr(a, taus, c, left: bool = True, transpose: bool = False):
    """``c`` multiplied by the Q of the reflectors below the diagonal of ``a`` (..., m, n) with
    factors ``taus``: Q c (``left``), c Q (not ``left``), with Q^H for ``transpose``, as
    jax.lax.linalg.ormqr. Lowers to LAPACK ormqr (unmqr for complex)."""
    return bind(ormqr_op, a, taus, c, left=left, transpose=transpose)
