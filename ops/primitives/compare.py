"""Comparison, selection and conversion primitives (ops layer).

Their vjp rules follow JAX: select and clamp route the cotangent with masks,
convert converts it back; compare has a bool output and so no gradient.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ...graph import ELEMENTWISE, LINEAR, Attrs, DTypeAttr, GraphError, OpDef, TensorType, dtypes
from . import ad_util as ad
from . import batching, hlo, prims
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


_DIRECTIONS = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
               "GT": np.greater, "GE": np.greater_equal}  # fmt: skip


def _compare_fold(attrs: CompareAttrs, x, y):
    return _DIRECTIONS[attrs.direction](x, y)


compare_op = OpDef(
    "compare",
    _compare_infer,
    _compare_lower,
    attrs=CompareAttrs,
    batch=batching.elementwise_batch,
    fold=_compare_fold,
    reasons={"vjp": "bool output: no gradient"},
    traits=ELEMENTWISE,
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


def _select_vjp(ctx, attrs, xs, ys, cts):
    pred, x, _ = xs
    ct = cts[0]
    if not ad.is_differentiable(x):
        return [None, None, None]
    zero = ad.zeros_like(ct)
    return [None, select(pred, ct, zero), select(pred, zero, ct)]


def _select_batch(ctx, attrs, xs, bdims):
    return batching.scalar_operand_batch(ctx, attrs, xs, bdims, scalar_ok=(0,))


def _select_fold(attrs, pred, x, y):
    return np.where(pred, x, y)


select_op = OpDef(
    "select", _select_infer, _select_lower, vjp=_select_vjp, batch=_select_batch, fold=_select_fold,
    traits=ELEMENTWISE | LINEAR,
    doc="pred ? x : y; stablehlo.select.",
)  # fmt: skip


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


def _clamp_vjp(ctx, attrs, xs, ys, cts):
    # JAX's masks: x gets ct strictly inside (lo, hi); lo where lo > x (and lo < hi); hi
    # where hi < x. At a tie x == lo or x == hi nobody gets it.
    lo, x, hi = xs
    ct = cts[0]
    if not ad.is_differentiable(x):
        return [None, None, None]
    lo_b, hi_b = (prims.broadcast_in_dim(b, x.shape, ()) if b.shape != x.shape else b for b in (lo, hi))
    lo_wins = prims.and_(compare(lo_b, x, "GT"), compare(lo_b, hi_b, "LT"))
    x_wins = prims.and_(compare(x, lo_b, "GT"), compare(x, hi_b, "LT"))
    hi_wins = compare(hi_b, x, "LT")

    def routed(mask, bound):
        masked = ad.select(mask, ct, ad.zeros_like(ct))
        return masked if bound.shape == x.shape else ad.sum_to_shape(masked, (), ())

    return [routed(lo_wins, lo), routed(x_wins, x), routed(hi_wins, hi)]


def _clamp_batch(ctx, attrs, xs, bdims):
    return batching.scalar_operand_batch(ctx, attrs, xs, bdims, scalar_ok=(0, 2))


def _clamp_fold(attrs, lo, x, hi):
    if x.dtype.kind == "c":
        return None  # numpy orders complex numbers; StableHLO does not
    return np.minimum(np.maximum(x, lo), hi)


clamp_op = OpDef(
    "clamp", _clamp_infer, _clamp_lower, vjp=_clamp_vjp, batch=_clamp_batch, fold=_clamp_fold,
    traits=ELEMENTWISE,
    doc="min(max(x, lo), hi); stablehlo.clamp.",
)  # fmt: skip


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


def _convert_vjp(ctx, attrs: ConvertAttrs, xs, ys, cts):
    # Between inexact dtypes the cotangent converts back: complex -> real keeps the real
    # part, so real -> complex sends back the real part of ct, complex -> real sends ct + 0j
    # (JAX). Ints and bools on either side cut the gradient.
    x, y = xs[0], ys[0]
    if not (ad.is_differentiable(x) and ad.is_differentiable(y)):
        return [None]
    return [convert(cts[0], x.dtype)]


def _convert_fold(attrs: ConvertAttrs, x):
    dst = attrs.dtype.np
    if dst.kind == "f" and dst.itemsize == 1:
        return None  # float8 overflow rules differ between ml_dtypes and XLA
    if dst.kind == "b":
        return x != 0
    if x.dtype.kind == "c" and dst.kind != "c":
        x = x.real
    if x.dtype.kind == "f" and dst.kind in "iu":
        info = np.iinfo(dst)
        if not np.all(np.isfinite(x)) or np.any(x < info.min) or np.any(x > info.max):
            return None  # numpy and XLA disagree outside the target's range
    return x.astype(dst)


convert_op = OpDef(
    "convert",
    _convert_infer,
    _convert_lower,
    attrs=ConvertAttrs,
    vjp=_convert_vjp,
    batch=batching.elementwise_batch,
    fold=_convert_fold,
    traits=ELEMENTWISE | LINEAR,
    doc="Change the element type (numpy astype semantics); stablehlo.convert.",
)


def convert(x, dtype):
    """x with elements converted to ``dtype`` (no-op when already of it)."""
    dt = dtypes.dtype(dtype)
    if x.dtype is dt:
        return x
    return bind(convert_op, x, dtype=dt)


# -- bitcast_convert -----------------------------------------------------------
class BitcastConvertAttrs(Attrs):
    dtype: DTypeAttr


def _bitcast_convert_infer(attrs: BitcastConvertAttrs, x: TensorType) -> TensorType:
    src, dst = x.dtype, attrs.dtype
    if src.np.itemsize != dst.np.itemsize or "b" in (src.kind, dst.kind):
        raise GraphError(
            f"bitcast_convert wants a non-bool dtype of the same bit width, got {x} to {dst.name}"
        )
    return x.with_dtype(dst)


def _bitcast_convert_lower(ctx, attrs: BitcastConvertAttrs, x):
    return hlo.sh.bitcast_convert(hlo.tensor_type(ctx.out_types[0]), x)


def _bitcast_convert_fold(attrs: BitcastConvertAttrs, x):
    return x.view(attrs.dtype.np)


bitcast_convert_op = OpDef(
    "bitcast_convert",
    _bitcast_convert_infer,
    _bitcast_convert_lower,
    attrs=BitcastConvertAttrs,
    batch=batching.elementwise_batch,
    fold=_bitcast_convert_fold,
    reasons={"vjp": "bit reinterpretation: no gradient"},
    traits=ELEMENTWISE,
    doc="Reinterpret the bits as another dtype of equal width; stablehlo.bitcast_convert.",
)


def bitcast_convert(x, dtype):
    """x's bits read as ``dtype`` (same bit width, e.g. uint32 <-> float32; like numpy ``view``)."""
    dt = dtypes.dtype(dtype)
    if x.dtype is dt:
        return x
    return bind(bitcast_convert_op, x, dtype=dt)
