"""Running reductions along an axis: the cumulative primitive (ops layer)."""

from __future__ import annotations

from typing import Literal

import numpy as np

from ...graph import Attrs, GraphError, OpDef, TensorType, dtypes, located
from ...graph.dims import is_symbolic
from . import ad_util as ad
from . import batching, constants, hlo, prims, reduce
from .registry import bind

CUMULATIVE_KINDS = ("sum", "prod", "max", "min")
_ops = hlo.builders(hlo.sh)  # looked up when first lowered
_COMBINE = {"sum": _ops.add, "prod": _ops.multiply, "max": _ops.maximum, "min": _ops.minimum}


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
    if n == 0:
        return x  # an empty axis: nothing to combine (a window of 0 with padding -1 does not verify)
    window = [1] * ty.ndim
    window[attrs.axis] = n
    padding = np.zeros((ty.ndim, 2), np.int64)
    padding[attrs.axis] = (0, n - 1) if attrs.reverse else (n - 1, 0)
    init = hlo.constant(reduce.identity(attrs.kind, dt), dt)
    op = hlo.sh.ReduceWindowOp(
        [hlo.tensor_type(ctx.out_types[0])], [x], [init], hlo.dense_i64(window),
        padding=hlo.ir.DenseIntElementsAttr.get(padding),
    )  # fmt: skip
    hlo.reduce_region(op.body, dt, _COMBINE[attrs.kind])
    return op.result


def _cumulative_vjp(ctx, attrs: CumulativeAttrs, xs, ys, cts):
    x, y, ct = xs[0], ys[0], cts[0]
    if attrs.kind == "sum":
        return [cumulative(ct, "sum", attrs.axis, reverse=not attrs.reverse)]
    if attrs.kind == "prod":
        return [_cumulative_prod_vjp(attrs, x, y, ct)]
    # max/min: each output's cotangent goes to the element where the running extremum was first
    # reached (in scan order): the latest position where the output changed. NaN fill makes the
    # scan's first element such a position.
    changed = prims.compare(y, _shift(attrs, y, 1, np.nan), "NE")
    pos = constants.iota("int32", x.shape, attrs.axis)
    if attrs.reverse:
        far = ad.full_like(pos, np.iinfo(np.int32).max)
        source = cumulative(ad.select(changed, pos, far), "min", attrs.axis, reverse=True)
    else:
        source = cumulative(ad.select(changed, pos, ad.zeros_like(pos)), "max", attrs.axis)
    return [ad.add_along_axis(x, source, ct, attrs.axis)]


def _cumulative_prod_vjp(attrs: CumulativeAttrs, x, y, ct):
    # ct_x[j] = y[j - 1] * s[j] with s[j] = sum over i >= j of ct[i] * x[j + 1] * ... * x[i]
    # (in scan order). s solves s[j] = ct[j] + x[j + 1] * s[j + 1]; doubling the span of each
    # step (a, b) -> (a * a', b + a * b') gives it in log2(n) steps of products only, so it is
    # exact at zeros and differentiable again.
    n = x.shape[attrs.axis]
    if is_symbolic(n):
        node = y.node
        raise GraphError(
            located(
                f"cumulative_prod vjp wants a static axis length, got {x} along axis {attrs.axis}: its cotangent "
                "(exact at zeros) takes log2(length) steps",
                node.location,
                node.name,
            )
        )
    # Past the end s is 0: those terms are selected away rather than multiplied by a 0 fill, so an
    # infinite x near the end cannot make inf * 0 = NaN there (a's own fill is 1 for the same reason).
    a, b, span = _shift(attrs, x, -1, 1), ct, 1
    inside = ad.full_like(x, True, dtypes.bool_)
    while span < n:
        valid = _shift(attrs, inside, -span, False)
        b = ad.add(b, ad.select(valid, ad.mul(a, _shift(attrs, b, -span, 0)), ad.zeros_like(b)))
        if 2 * span < n:
            a = ad.mul(a, _shift(attrs, a, -span, 1))
        span *= 2
    return ad.mul(_shift(attrs, y, 1, 1), b)


def _shift(attrs: CumulativeAttrs, t, k: int, fill):
    """t moved k places along the scan (toward later elements for k > 0), ``fill`` coming in."""
    if attrs.reverse:
        k = -k
    low, high = [0] * t.ndim, [0] * t.ndim
    low[attrs.axis], high[attrs.axis] = k, -k
    return prims.pad(t, constants.constant(fill, t.dtype), low, high)


def _cumulative_batch(ctx, attrs: CumulativeAttrs, xs, bdims):
    (x,), (b,) = xs, bdims
    (axis,) = batching.shift_axes((attrs.axis,), b)
    return [bind(cumulative_op, x, attrs=attrs.model_copy(update={"axis": axis}))], [b]


cumulative_op = OpDef(
    "cumulative",
    _cumulative_infer,
    _cumulative_lower,
    attrs=CumulativeAttrs,
    vjp=_cumulative_vjp,
    batch=_cumulative_batch,
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
