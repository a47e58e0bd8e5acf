"""Primitives that make values from nothing: constant, iota, dim_size, dim_value (ops layer).

dim_size and dim_value stand for sizes known only once a Session binds the
symbols of the shapes (graph/dims.py); they lower to constants.
"""

from __future__ import annotations

import numpy as np

from ..graph import CONSTANT, ArrayAttr, Attrs, DTypeAttr, GraphError, OpDef, ShapeAttr, TensorType, dtypes
from ..graph.attrs import DimAttr
from ..graph.dims import as_dim, check_shape
from ..graph.dtypes import canonical_array
from . import hlo
from .registry import bind

_NO_INPUTS = "takes no inputs"


# -- constant ------------------------------------------------------------------
class ConstantAttrs(Attrs):
    value: ArrayAttr


def _constant_infer(attrs: ConstantAttrs) -> TensorType:
    return TensorType(attrs.value.shape, attrs.value.dtype)


def _constant_lower(ctx, attrs: ConstantAttrs):
    return hlo.constant(attrs.value, ctx.out_types[0].dtype)


def _constant_fold(attrs: ConstantAttrs):
    return attrs.value


constant_op = OpDef(
    "constant",
    _constant_infer,
    _constant_lower,
    attrs=ConstantAttrs,
    fold=_constant_fold,
    reasons={"vjp": _NO_INPUTS, "batch": _NO_INPUTS, "jvp": _NO_INPUTS},
    traits=CONSTANT,
    doc="A tensor of fixed values; stablehlo.constant.",
)


def constant(value, dtype=None, name: str | None = None):
    """A constant tensor holding ``value`` (numpy data keeps its dtype; Python
    floats are float32, ints int32 unless ``dtype`` says otherwise).

    Lowers to ``stablehlo.constant``.  ``sg.constant(np.ones((3, 2)), name="w")``
    """
    arr = canonical_array(value, dtype)
    return bind(constant_op, value=arr, name=name or "constant")


# -- iota ----------------------------------------------------------------------
class IotaAttrs(Attrs):
    shape: ShapeAttr
    dtype: DTypeAttr
    dimension: int = 0


def _iota_infer(attrs: IotaAttrs) -> TensorType:
    if not 0 <= attrs.dimension < max(len(attrs.shape), 1) or not attrs.shape:
        raise GraphError(
            f"iota wants 0 <= dimension < rank, got dimension {attrs.dimension} for shape {attrs.shape}"
        )
    if attrs.dtype.kind == "b":
        raise GraphError("iota wants a numeric dtype, got bool")
    return TensorType(attrs.shape, attrs.dtype)


def _iota_lower(ctx, attrs: IotaAttrs):
    return hlo.sh.iota(hlo.tensor_type(ctx.out_types[0]), attrs.dimension)


iota_op = OpDef(
    "iota",
    _iota_infer,
    _iota_lower,
    attrs=IotaAttrs,
    reasons={"vjp": _NO_INPUTS, "batch": _NO_INPUTS, "jvp": _NO_INPUTS},
    doc="0, 1, 2, ... along one dimension; stablehlo.iota.",
)


def iota(dtype, shape, dimension: int = 0):
    """Counting 0, 1, 2, ... along ``dimension`` of ``shape``. Lowers to ``stablehlo.iota``."""
    return bind(iota_op, shape=check_shape(shape), dtype=dtypes.dtype(dtype), dimension=dimension)


# -- dim_size ------------------------------------------------------------------
class DimSizeAttrs(Attrs):
    axis: int
    dtype: DTypeAttr = dtypes.int32


def _dim_size_infer(attrs: DimSizeAttrs, x: TensorType) -> TensorType:
    if not 0 <= attrs.axis < x.ndim:
        raise GraphError(f"dim_size wants 0 <= axis < {x.ndim}, got {attrs.axis}")
    return TensorType((), attrs.dtype)


def _dim_size_lower(ctx, attrs: DimSizeAttrs, x):
    # The Session specializes every symbol before lowering, so the size is known.
    return hlo.constant(np.asarray(ctx.in_types[0].shape[attrs.axis]), attrs.dtype)


def _dim_size_batch(ctx, attrs: DimSizeAttrs, xs, bdims):
    # Every lane has the same size: the result is unbatched, read past the batch axis.
    (x,), (b,) = xs, bdims
    return [dim_size(x, attrs.axis + (attrs.axis >= b), attrs.dtype)], [None]


dim_size_op = OpDef(
    "dim_size",
    _dim_size_infer,
    _dim_size_lower,
    attrs=DimSizeAttrs,
    batch=_dim_size_batch,
    reasons={"vjp": "an integer shape query: no gradient"},
    doc="The size of one dim once symbols are bound; a stablehlo.constant after specialization.",
)


def dim_size(x, axis: int, dtype=dtypes.int32):
    """The size of ``x`` along ``axis`` as a scalar, known once the Session binds symbols."""
    d = x.shape[axis]
    if isinstance(d, int):
        return constant(np.asarray(d, dtypes.dtype(dtype).np))
    return bind(dim_size_op, x, axis=axis % x.ndim, dtype=dtypes.dtype(dtype))


# -- dim_value -----------------------------------------------------------------
class DimValueAttrs(Attrs):
    dim: DimAttr
    dtype: DTypeAttr = dtypes.int32


def _dim_value_infer(attrs: DimValueAttrs) -> TensorType:
    if not attrs.dtype.is_integer and not attrs.dtype.is_inexact:
        raise GraphError(f"dim_value wants a numeric dtype, got {attrs.dtype.name}")
    return TensorType((), attrs.dtype)


def _dim_value_lower(ctx, attrs: DimValueAttrs):
    return hlo.constant(np.asarray(ctx.dim(attrs.dim)), attrs.dtype)


dim_value_op = OpDef(
    "dim_value",
    _dim_value_infer,
    _dim_value_lower,
    attrs=DimValueAttrs,
    reasons={"vjp": _NO_INPUTS, "batch": _NO_INPUTS, "jvp": _NO_INPUTS},
    doc="The value of a dim expression in the shapes' symbols; a stablehlo.constant once they are bound.",
)


def dim_value(d, dtype=dtypes.int32):
    """A scalar holding the size ``d`` (an int, or a dim expression such as ``x.shape[0] - 1``),
    known once the Session binds the symbols. ``loss / x.shape[0]`` builds one."""
    d, dt = as_dim(d), dtypes.dtype(dtype)
    if isinstance(d, int):
        return constant(np.asarray(d, dt.np))
    return bind(dim_value_op, dim=d, dtype=dt)
