"""Custom calls into the LAPACK kernels jaxlib ships (ops layer, bottom: lowering helpers only).

The factorization primitives (ops/factorizations/) lower to the same
custom-call targets jax uses on CPU: ``lapack_<s|d|c|z><routine>_ffi``,
registered with XLA by backend/pjrt.py. They are typed-FFI calls: the
attributes travel in an ``mhlo.backend_config`` dictionary (single
characters as ui8, LAPACK's ``uplo='L'`` and so on), matrices are passed
column-major (the layouts below) and leading dims are batch dims, which the
kernels loop over themselves. ``target`` picks the kernel by platform; only
CPU has one here (the lowering context does not say the platform yet, and
on a GPU jax would call cuSOLVER's targets instead).
"""

from __future__ import annotations

import numpy as np

from ..graph import GraphError, TensorType, dtypes
from . import hlo

ir, sh = hlo.ir, hlo.sh

_PREFIX = {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}


def target(routine: str, dt: dtypes.DType, platform: str = "cpu") -> str:
    """The custom-call target of a LAPACK routine (``potrf``) for dtype ``dt`` on ``platform``."""
    if platform != "cpu":
        raise GraphError(f"{routine}: no {platform} kernel is wired up (only CPU LAPACK), for {dt.name}")
    if dt.name not in _PREFIX:
        raise GraphError(f"{routine} wants float32, float64, complex64 or complex128, got {dt.name}")
    return f"lapack_{_PREFIX[dt.name]}{routine}_ffi"


def char(c: str) -> ir.Attribute:
    """A LAPACK flag character ('L', 'N', 'V', ...) as the kernels read it: a ui8."""
    return ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), ord(c))


def _layout(ndim: int, matrix: bool) -> ir.Attribute:
    # minor-to-major: a batch of Fortran-order matrices keeps rows fastest, then columns, then batch.
    order = (ndim - 2, ndim - 1, *range(ndim - 3, -1, -1)) if matrix else tuple(range(ndim - 1, -1, -1))
    return ir.DenseIntElementsAttr.get(np.asarray(order, np.int64), type=ir.IndexType.get())


def call(name: str, operands, in_types, out_types, config: dict | None = None, aliases=None) -> list:
    """Emit ``stablehlo.custom_call @name`` on ``operands`` returning ``out_types`` (TensorTypes).

    Arrays of the operands' largest rank are the matrices (column-major); the
    others (pivots, eigenvalues, info) are row-major. ``aliases`` maps an
    operand index to the result it may be overwritten by, as the kernels do.
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
        "operand_layouts": ir.ArrayAttr.get([_layout(t.ndim, t.ndim == rank) for t in in_types]),
        "result_layouts": ir.ArrayAttr.get([_layout(t.ndim, t.ndim == rank) for t in out_types]),
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
