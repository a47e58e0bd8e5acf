"""Running reductions along an axis: the cumulative primitive (ops layer)."""

from __future__ import annotations

from typing import Literal

import numpy as np

from ..graph import Attrs, GraphError, OpDef, TensorType
from . import hlo
from .reduce import identity
from .registry import bind

CUMULATIVE_KINDS = ("sum", "prod", "max", "min")
_COMBINE = {"sum": hlo.sh.add, "prod": hlo.sh.multiply, "max": hlo.sh.maximum, "min": hlo.sh.minimum}


class CumulativeAttrs(Attrs):
    kind: Literal["sum", "prod", "max", "min"]
    axis: int
    reverse: bool = False


def _cumulative_infer(attrs: CumulativeAttrs, x: TensorType) -> TensorType:
    name = f"cumulative_{attrs.kind}"
    if not 0 <= attrs.axis < x.ndim:
        raise GraphError(f"{name} wants 0 <= axis < {x.ndim}, got axis {attrs.axis} for {x}")
    if attrs.kind in ("sum", "prod") and x.dtype.kind == "b":
        raise GraphError(f"{name} wants a numeric dtype, got {x}")
    if attrs.kind in ("max", "min") and x.dtype.is_complex:
        raise GraphError(f"{name} is not defined for complex operands, got {x}")
    return x


def _cumulative_lower(ctx, attrs: CumulativeAttrs, x):
    # A window as long as the axis, padded by n - 1 identities on one side: output i
    # combines elements 0..i (or i..n-1). XLA rewrites such windows into a log-depth scan.
    ty, dt = ctx.in_types[0], ctx.in_types[0].dtype
    n = ty.shape[attrs.axis]
    window = [1] * ty.ndim
    window[attrs.axis] = n
    padding = np.zeros((ty.ndim, 2), np.int64)
    padding[attrs.axis] = (0, n - 1) if attrs.reverse else (n - 1, 0)
    init = hlo.constant(identity(attrs.kind, dt), dt)
    op = hlo.sh.ReduceWindowOp(
        [hlo.tensor_type(ctx.out_types[0])], [x], [init], hlo.dense_i64(window),
        padding=hlo.ir.DenseIntElementsAttr.get(padding),
    )  # fmt: skip
    hlo.reduce_region(op.body, dt, _COMBINE[attrs.kind])
    return op.result


cumulative_op = OpDef(
    "cumulative",
    _cumulative_infer,
    _cumulative_lower,
    attrs=CumulativeAttrs,
    doc="Running sum, prod, max or min along an axis; stablehlo.reduce_window.",
)


def cumulative(x, kind: str, axis: int, reverse: bool = False):
    """The running reduction of ``x`` along ``axis`` with one of CUMULATIVE_KINDS.

    Element i of the result combines elements 0..i (or i..n-1 when
    ``reverse``), so ``cumulative(x, "sum", 0)[-1] == x.sum(0)``. The shape and
    dtype are those of ``x`` (sg.numpy.cumsum picks accumulation dtypes). max and
    min propagate NaN like numpy's ``maximum.accumulate``.

    Lowers to ``stablehlo.reduce_window`` with a window as long as the axis and
    n - 1 identity elements of padding before (or after) it.

    Example: ``cumulative(x, "max", axis=1)`` is ``np.maximum.accumulate(x, axis=1)``.
    """
    axis = axis + x.ndim if axis < 0 else axis
    return bind(cumulative_op, x, kind=kind, axis=axis, reverse=reverse, name=f"cumulative_{kind}")
