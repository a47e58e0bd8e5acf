"""cholesky and triangular_solve: LAPACK potrf and trsm (ops layer).

Both take leading batch dims, which the kernels loop over. On a GPU cholesky
calls cuSOLVER's potrf (as jax does) and triangular_solve lowers to
StableHLO's own op (XLA calls cuBLAS's trsm). Gradients are
jax's: cholesky's is the transpose of L' = L phi(L^-1 A' L^-H) (phi keeps
the lower triangle and halves the diagonal), so it treats A as given, not
symmetrized (sg.numpy.linalg.cholesky symmetrizes its input first, as jax does).
"""

from __future__ import annotations

from ....graph import Attrs, GraphError, OpDef, TensorType
from .. import hlo, lapack, prims
from ..registry import bind
from .common import (
    adjoint,
    check_matrix,
    conj,
    leading_batch,
    matmul,
    mT,
    splat,
    transposed_convention,
    tril,
    triu,
)

sh = hlo.sh


# -- cholesky --------------------------------------------------------------------------------------
def _cholesky_infer(attrs, x: TensorType) -> TensorType:
    check_matrix("cholesky", x, square=True)
    return x


def _cholesky_lower(ctx, attrs, x):
    (ty,) = ctx.in_types
    batch = ty.shape[:-2]
    # LAPACK's potrf reads the triangle as a character, cuSOLVER's as a bool
    config = {"uplo": lapack.char("L")} if lapack.has_lapack(ctx) else {"lower": hlo.ir.BoolAttr.get(True)}
    out, info = lapack.call(
        lapack.target(ctx, "potrf", ty.dtype),
        [x],
        [ty],
        [ty, lapack.info_type(batch)],
        config,
        aliases={0: 0},
    )
    # potrf leaves the input's upper triangle in place; a matrix that is not positive definite gives NaNs.
    return lapack.nan_unless_ok(info, lapack.keep_triangle(out, ty, lower=True), ty, len(batch))


def _cholesky_vjp(ctx, attrs, xs, ys, cts):
    (L,), (ct,) = ys, cts
    p = matmul(adjoint(L), ct)
    p = prims.sub(tril(p), prims.mul(splat(0.5, p), tril(triu(p))))
    s = triangular_solve(L, p, left_side=True, lower=True, transpose_a=True, conjugate_a=True)
    return [triangular_solve(L, s, left_side=False, lower=True)]


cholesky_op = OpDef(
    "cholesky",
    _cholesky_infer,
    _cholesky_lower,
    vjp=transposed_convention(_cholesky_vjp),
    batch=leading_batch,
    doc="Lower Cholesky factor L (A = L L^H) of (batches of) positive definite matrices; LAPACK potrf.",
)


def cholesky(x):
    """The lower Cholesky factor ``L`` of ``x`` (..., n, n): ``x = L @ L^H``.

    Reads only the lower triangle of ``x``; a matrix that is not positive
    definite gives NaNs (as jax). Lowers to a custom call of LAPACK potrf
    (``lapack_dpotrf_ffi`` for float64; cuSOLVER's on a GPU). Example: ``L = cholesky(a @ a.T + eye)``.
    """
    return bind(cholesky_op, x)


# -- triangular_solve -----------------------------------------------------------------------------
class TriangularSolveAttrs(Attrs):
    left_side: bool = False
    lower: bool = False
    transpose_a: bool = False
    conjugate_a: bool = False
    unit_diagonal: bool = False


def _triangular_solve_infer(attrs: TriangularSolveAttrs, a: TensorType, b: TensorType) -> TensorType:
    check_matrix("triangular_solve", a, square=True)
    if b.dtype is not a.dtype or b.ndim != a.ndim or b.shape[:-2] != a.shape[:-2]:
        raise GraphError(f"triangular_solve wants a and b of one dtype and equal batch dims, got {a} and {b}")
    k = b.shape[-2] if attrs.left_side else b.shape[-1]
    if k != a.shape[-1]:
        side = "b.shape[-2]" if attrs.left_side else "b.shape[-1]"
        raise GraphError(
            f"triangular_solve (left_side={attrs.left_side}) wants {side} == a.shape[-1], got {a} and {b}"
        )
    return b


def _triangular_solve_lower(ctx, attrs: TriangularSolveAttrs, a, b):
    a_ty, b_ty = ctx.in_types
    conjugate = attrs.conjugate_a and a_ty.dtype.is_complex
    if conjugate and not attrs.transpose_a:  # trsm conjugates only along with a transpose
        a = sh.complex(sh.real(a), sh.negate(sh.imag(a)))
        conjugate = False
    trans = ("C" if conjugate else "T") if attrs.transpose_a else "N"
    if not lapack.has_lapack(ctx):  # XLA's own triangular solve (cuBLAS trsm on a GPU)
        mode = {"N": "NO_TRANSPOSE", "T": "TRANSPOSE", "C": "ADJOINT"}[trans]
        return sh.triangular_solve(
            a, b, attrs.left_side, attrs.lower, attrs.unit_diagonal, sh.TransposeAttr.get(mode)
        )
    config = {
        "side": lapack.char("L" if attrs.left_side else "R"),
        "uplo": lapack.char("L" if attrs.lower else "U"),
        "trans_x": lapack.char(trans),
        "diag": lapack.char("U" if attrs.unit_diagonal else "N"),
    }
    name = lapack.target(ctx, "trsm", a_ty.dtype)
    return lapack.call(name, [a, b], [a_ty, b_ty], [b_ty], config, aliases={1: 0})[0]


def _triangular_solve_vjp(ctx, attrs: TriangularSolveAttrs, xs, ys, cts):
    # op(A) X = B (left) or X op(A) = B (right), op one of identity, T, H, conj: B's cotangent solves
    # with op(A)^H (both flags toggled), op(A)'s is G = -ct_B X^H (left) or -X^H ct_B (right), and A's
    # is G mapped back through op (G, G^T, G^H or conj G), restricted to the triangle the solve reads.
    (a, _), (x,), (ct,) = xs, ys, cts
    flags = attrs.model_copy(
        update={"transpose_a": not attrs.transpose_a, "conjugate_a": not attrs.conjugate_a}
    )
    ct_b = bind(triangular_solve_op, a, ct, attrs=flags)
    ct_op = matmul(ct_b, adjoint(x)) if attrs.left_side else matmul(adjoint(x), ct_b)
    ct_op = prims.neg(ct_op)
    if attrs.transpose_a:
        ct_op = mT(ct_op)
    if attrs.conjugate_a:
        ct_op = conj(ct_op)
    k = int(attrs.unit_diagonal)
    ct_a = tril(ct_op, -k) if attrs.lower else triu(ct_op, k)
    return [ct_a, ct_b]


triangular_solve_op = OpDef(
    "triangular_solve",
    _triangular_solve_infer,
    _triangular_solve_lower,
    attrs=TriangularSolveAttrs,
    vjp=transposed_convention(_triangular_solve_vjp),
    batch=leading_batch,
    doc="Solve op(A) X = B (left_side) or X op(A) = B for triangular A; LAPACK trsm.",
)


def triangular_solve(
    a, b, left_side: bool = False, lower: bool = False, transpose_a: bool = False,
    conjugate_a: bool = False, unit_diagonal: bool = False,
):  # fmt: skip
    """Solve ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b`` for triangular ``a``, as jax.lax.linalg.

    ``op`` transposes ``a`` if ``transpose_a``, conjugates it if
    ``conjugate_a``; only the ``lower`` (or upper) triangle of ``a`` is read,
    and its diagonal is taken as ones if ``unit_diagonal``. ``a`` is
    (..., m, m), ``b`` (..., m, n) for left_side else (..., n, m), with equal
    batch dims. Lowers to a custom call of LAPACK trsm (``lapack_dtrsm_ffi``).
    Example: ``x = triangular_solve(L, b, left_side=True, lower=True)``.
    """
    return bind(
        triangular_solve_op, a, b, left_side=left_side, lower=lower, transpose_a=transpose_a,
        conjugate_a=conjugate_a, unit_diagonal=unit_diagonal,
    )  # fmt: skip
