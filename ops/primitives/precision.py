"""The reduce_precision primitive: round floats to the values a narrower float format holds
(fewer exponent and mantissa bits), keeping the dtype, as jax.lax.reduce_precision (ops layer).

It simulates bfloat16 or float8 arithmetic inside a float32 program. Like JAX, autodiff
treats the rounding as a linear map that is its own transpose: tangents and cotangents are
rounded the same way (a straight-through step at the precision of the format).
"""

from __future__ import annotations

import ml_dtypes

from ...graph import ELEMENTWISE, LINEAR, Attrs, GraphError, OpDef, TensorType, dtypes, located, user_location
from . import batching, hlo
from .registry import bind


class ReducePrecisionAttrs(Attrs):
    exponent_bits: int
    mantissa_bits: int


def _reduce_precision_infer(attrs: ReducePrecisionAttrs, x: TensorType) -> TensorType:
    if x.dtype.kind != "f":
        raise GraphError(f"reduce_precision wants a floating dtype, got {x}")
    if attrs.exponent_bits < 1 or attrs.mantissa_bits < 0:
        raise GraphError(
            f"reduce_precision wants exponent_bits >= 1 and mantissa_bits >= 0, got "
            f"{attrs.exponent_bits} and {attrs.mantissa_bits}"
        )
    return x


def _reduce_precision_lower(ctx, attrs: ReducePrecisionAttrs, x):
    return hlo.sh.ReducePrecisionOp(x, attrs.exponent_bits, attrs.mantissa_bits).result


def _reduce_precision_vjp(ctx, attrs: ReducePrecisionAttrs, xs, ys, cts):
    # JAX treats the rounding as a linear map whose transpose is itself: the cotangent is rounded too
    return [bind(reduce_precision_op, cts[0], attrs=attrs)]


reduce_precision_op = OpDef(
    "reduce_precision",
    _reduce_precision_infer,
    _reduce_precision_lower,
    attrs=ReducePrecisionAttrs,
    vjp=_reduce_precision_vjp,
    batch=batching.elementwise_batch,
    traits=ELEMENTWISE | LINEAR,
    reasons={"fold": "numpy has no rounding to arbitrary exponent and mantissa widths"},
    doc="Round floats to a narrower format's values (exponent, mantissa bits); stablehlo.reduce_precision.",
)


def reduce_precision(x, exponent_bits=None, mantissa_bits=None, *, dtype=None):
    """``x`` rounded (to nearest even) to the values of a float format with ``exponent_bits``
    and ``mantissa_bits``, overflowing to inf, in x's own dtype.

    The format may instead be named by a floating ``dtype`` (``dtype=sg.bfloat16`` is 8 and 7
    bits), or passed as ``exponent_bits`` when it is a dtype. Gradients pass through rounded the
    same way, as in JAX.
    Lowers to ``stablehlo.reduce_precision``.

    Example: ``reduce_precision(x, 8, 7)`` rounds float32 values to bfloat16's.
    """
    if dtype is None and exponent_bits is not None and mantissa_bits is None:
        dtype, exponent_bits = exponent_bits, None
    if dtype is not None:
        exponent_bits, mantissa_bits = _format_bits(dtype)
    if exponent_bits is None or mantissa_bits is None:
        raise GraphError(
            located(
                "reduce_precision wants exponent_bits and mantissa_bits, or a floating dtype", user_location()
            )
        )
    return bind(reduce_precision_op, x, exponent_bits=int(exponent_bits), mantissa_bits=int(mantissa_bits))


def _format_bits(dtype) -> tuple[int, int]:
    dt = dtypes.dtype(dtype)
    if dt.kind != "f":
        message = f"reduce_precision wants a floating dtype to name the format, got {dt.name}"
        raise GraphError(located(message, user_location()))
    info = ml_dtypes.finfo(dt.np)  # numpy's finfo knows neither bfloat16 nor the float8 types
    return int(info.nexp), int(info.nmant)
