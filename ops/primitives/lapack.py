"""Custom calls into the LAPACK kernels jaxlib ships (ops layer, bottom: lowering helpers only).

The factorization primitives (ops/factorizations/) lower to the same
custom-call targets jax uses on CPU: ``lapack_<s|d|c|z><routine>_ffi``,
registered with XLA by backend/pjrt.py. They are typed-FFI calls: the
attributes travel in an ``mhlo.backend_config`` dictionary (single
characters as ui8, LAPACK's ``uplo='L'`` and so on), matrices are passed
column-major (the layouts below) and leading dims are batch dims, which the
kernels loop over themselves. ``target`` picks the kernel by the platform
the lowering context names: LAPACK on the CPU; on a GPU the cuSOLVER
kernels of jaxlib's CUDA plugin (``cusolver_<routine>_ffi``, same layouts,
registered by backend/pjrt.py) for the routines in ``CUSOLVER``; there
triangular_solve lowers to StableHLO's own op instead (XLA calls cuBLAS's
trsm).
"""

from __future__ import annotations

import numpy as np

from ...graph import GraphError, TensorType, dtypes, located
from . import hlo

ir, sh = hlo.ir, hlo.sh

_PREFIX = {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}


# LAPACK routine -> the cuSOLVER kernel that does its work on a GPU (one name for real and complex)
CUSOLVER = {"potrf": "potrf", "syevd": "syevd", "heevd": "syevd", "getrf": "getrf", "geqrf": "geqrf",
            "orgqr": "orgqr", "ungqr": "orgqr", "gesdd": "gesvd", "geev": "geev"}  # fmt: skip


def has_lapack(ctx) -> bool:
    """Whether the program being lowered runs where jaxlib's LAPACK kernels are (the CPU)."""
    return ctx.platform == "cpu"


def target(ctx, routine: str, dt: dtypes.DType) -> str:
    """The custom-call target of LAPACK ``routine`` (``potrf``) for dtype ``dt``, on the platform
    of the node ``ctx`` lowers; a GraphError at that node where there is no such kernel."""
    if dt.name not in _PREFIX:
        raise GraphError(f"{routine} wants float32, float64, complex64 or complex128, got {dt.name}")
    if has_lapack(ctx):
        return f"lapack_{_PREFIX[dt.name]}{routine}_ffi"
    if routine in CUSOLVER:  # off the CPU means on a GPU, the one other platform
        return f"cusolver_{CUSOLVER[routine]}_ffi"
    message = (
        f"{ctx.node.op.name} has no {ctx.platform} kernel yet (its LAPACK {routine} runs on the CPU "
        "only): run this part in a Session on CPU devices"
    )
    raise GraphError(located(message, ctx.node.location, ctx.node.name))


def char(c: str) -> ir.Attribute:
    """A LAPACK flag character ('L', 'N', 'V', ...) as the kernels read it: a ui8."""
    return ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), ord(c))


def _layout(ndim: int, matrix: bool) -> ir.Attribute:
    # minor-to-major: a batch of Fortran-order matrices keeps rows fastest, then columns, then batch.
    order = (ndim - 2, ndim - 1, *range(ndim - 3, -1, -1)) if matrix else tuple(range(ndim - 1, -1, -1))
    return ir.DenseIntElementsAttr.get(np.asarray(order, np.int64), type=ir.IndexType.get())


def call(
    name: str, operands, in_types, out_types, config: dict | None = None, aliases=None, column_major=True
) -> list:
    """Emit ``stablehlo.custom_call @name`` on ``operands`` returning ``out_types`` (TensorTypes).

    Arrays of the operands' largest rank are the matrices (column-major); the
    others (pivots, eigenvalues, info) are row-major. ``aliases`` maps an
    operand index to the result it may be overwritten by, as the kernels do.
    ``column_major=False`` passes the matrices row-major too (cuSOLVER's gesvd of a wide
    matrix, which it factors as the transpose).
    """
    rank = max(t.ndim for t in in_types)
    results = [hlo.tensor_type(t) for t in out_types]
    alias_list = [
        sh.OutputOperandAlias.get(
            output_tuple_indices=[out] if len(results) > 1 else [], operand_index=i, operand_tuple_indices=[]
        )
        for i, out in (aliases or {}).items()
    ]
    attributes = {
        "call_target_name": ir.StringAttr.get(name),
        "has_side_effect": ir.BoolAttr.get(False),
        "backend_config": ir.StringAttr.get(""),
        # api_version 1 with a dictionary in mhlo.backend_config is what XLA reads as a typed-FFI call
        "api_version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
        "called_computations": ir.ArrayAttr.get([]),
        "operand_layouts": ir.ArrayAttr.get(
            [_layout(t.ndim, column_major and t.ndim == rank) for t in in_types]
        ),
        "result_layouts": ir.ArrayAttr.get(
            [_layout(t.ndim, column_major and t.ndim == rank) for t in out_types]
        ),
        "output_operand_aliases": ir.ArrayAttr.get(alias_list),
    }
    op = sh.CustomCallOp.build_generic(results=results, operands=list(operands), attributes=attributes)
    op.operation.attributes["mhlo.backend_config"] = ir.DictAttr.get(config or {})
    return list(op.results)


# -- helpers the lowerings share ------------------------------------------------------------------
def info_type(batch) -> TensorType:
    """The type of a kernel's per-matrix status output (0: success)."""
    return TensorType(tuple(batch), dtypes.int32)


def splat(value, ty: TensorType):
    """A tensor of ty filled with one value (a broadcast scalar, never a big constant)."""
    return sh.broadcast_in_dim(
        hlo.tensor_type(ty), hlo.constant(np.asarray(value), ty.dtype), hlo.dense_i64([])
    )


def nan_unless_ok(info, x, ty: TensorType, n_batch: int):
    """``x`` where the kernel's ``info`` is 0, NaN elsewhere (a failed matrix gives NaNs, as in jax)."""
    ok = hlo.compare(info, splat(0, info_type(ty.shape[:n_batch])), "EQ", dtypes.int32)
    mask_type = hlo.tensor_type(TensorType(ty.shape, dtypes.bool_))
    ok = sh.broadcast_in_dim(mask_type, ok, hlo.dense_i64(range(n_batch)))
    return sh.select(ok, x, splat(np.nan, ty))


def triangle_mask(ty: TensorType, lower: bool, k: int = 0):
    """An i1 tensor of ty's shape, true on and below (lower) or above the k-th diagonal."""
    shape = TensorType(ty.shape, dtypes.int32)
    rows = sh.iota(hlo.tensor_type(shape), ty.ndim - 2)
    cols = sh.iota(hlo.tensor_type(shape), ty.ndim - 1)
    diff = sh.subtract(cols, rows)
    return hlo.compare(diff, splat(k, shape), "LE" if lower else "GE", dtypes.int32)


def keep_triangle(x, ty: TensorType, lower: bool, k: int = 0):
    """x with the other triangle (beyond the k-th diagonal) set to zero."""
    return sh.select(triangle_mask(ty, lower, k), x, splat(0, ty))
