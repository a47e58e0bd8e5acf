"""Comparison, selection and conversion primitives (ops layer)."""

from __future__ import annotations

from typing import Literal

from ..graph import Attrs, DTypeAttr, GraphError, OpDef, TensorType, dtypes
from . import hlo
from .registry import bind


# -- compare -------------------------------------------------------------------
class CompareAttrs(Attrs):
    direction: Literal["EQ", "NE", "LT", "LE", "GT", "GE"]


def _compare_infer(attrs: CompareAttrs, x: TensorType, y: TensorType) -> TensorType:
    if x.shape != y.shape or x.dtype is not y.dtype:
        raise GraphError(f"compare wants operands of equal shape and dtype, got {x} and {y}")
    if x.dtype.is_complex and attrs.direction not in ("EQ", "NE"):
        raise GraphError(f"compare {attrs.direction} is not defined for complex operands, got {x}")
    return x.with_dtype(dtypes.bool_)


def _compare_lower(ctx, attrs: CompareAttrs, x, y):
    return hlo.compare(x, y, attrs.direction, ctx.in_types[0].dtype)


compare_op = OpDef(
    "compare",
    _compare_infer,
    _compare_lower,
    attrs=CompareAttrs,
    doc="Elementwise comparison giving bool; stablehlo.compare.",
)


def compare(x, y, direction: str):
    """x <direction> y for direction in EQ, NE, LT, LE, GT, GE (NaN compares unequal)."""
    return bind(compare_op, x, y, direction=direction)


# -- select --------------------------------------------------------------------
def _select_infer(attrs, pred: TensorType, x: TensorType, y: TensorType) -> TensorType:
    if pred.dtype is not dtypes.bool_:
        raise GraphError(f"select wants a bool predicate, got {pred}")
    if x != y:
        raise GraphError(f"select wants branches of equal type, got {x} and {y}")
    if pred.shape != x.shape and pred.shape != ():
        raise GraphError(f"select wants a predicate of shape {x.shape} or (), got {pred}")
    return x


def _select_lower(ctx, attrs, pred, x, y):
    return hlo.sh.select(pred, x, y)


select_op = OpDef("select", _select_infer, _select_lower, doc="pred ? x : y; stablehlo.select.")


def select(pred, x, y):
    """Pick x where pred is true, else y (equal shapes, or a scalar pred)."""
    return bind(select_op, pred, x, y)


# -- clamp ---------------------------------------------------------------------
def _clamp_infer(attrs, lo: TensorType, x: TensorType, hi: TensorType) -> TensorType:
    for bound in (lo, hi):
        if bound.dtype is not x.dtype or bound.shape not in ((), x.shape):
            raise GraphError(
                f"clamp wants bounds of dtype {x.dtype.name} and shape () or {x.shape}, got {lo} and {hi}"
            )
    if x.dtype.is_complex:
        raise GraphError(f"clamp is not defined for complex operands, got {x}")
    return x


def _clamp_lower(ctx, attrs, lo, x, hi):
    return hlo.sh.clamp(lo, x, hi)


clamp_op = OpDef("clamp", _clamp_infer, _clamp_lower, doc="min(max(x, lo), hi); stablehlo.clamp.")


def clamp(lo, x, hi):
    """Limit x to [lo, hi] (lax order: bounds around the operand)."""
    return bind(clamp_op, lo, x, hi)


# -- convert -------------------------------------------------------------------
class ConvertAttrs(Attrs):
    dtype: DTypeAttr


def _convert_infer(attrs: ConvertAttrs, x: TensorType) -> TensorType:
    return x.with_dtype(attrs.dtype)


def _convert_lower(ctx, attrs: ConvertAttrs, x):
    src, dst = ctx.in_types[0].dtype, attrs.dtype
    if dst.kind == "b" and src.kind != "b":
        # numpy's astype(bool) means "is nonzero"; say so explicitly.
        zero = hlo.full(ctx.in_types[0].shape, 0, src)
        return hlo.compare(x, zero, "NE", src)
    if src.is_complex and not dst.is_complex:
        x = hlo.sh.real(x)
    return hlo.sh.convert(hlo.tensor_type(ctx.out_types[0]), x)


convert_op = OpDef(
    "convert",
    _convert_infer,
    _convert_lower,
    attrs=ConvertAttrs,
    doc="Change the element type (numpy astype semantics); stablehlo.convert.",
)


def convert(x, dtype):
    """x with elements converted to ``dtype`` (no-op when already of it)."""
    dt = dtypes.dtype(dtype)
    if x.dtype is dt:
        return x
    return bind(convert_op, x, dtype=dt)
