"""Primitives that make values from nothing: constant, iota, dim_size, dim_value (ops layer).

dim_size and dim_value stand for sizes known only once a Session binds the
symbols of the shapes (graph/dims.py); they lower to constants.
"""

from __future__ import annotations

import numpy as np

from ...graph import (
    CONSTANT,
    ArrayAttr,
    Attrs,
    DTypeAttr,
    GraphError,
    OpDef,
    ShapeAttr,
    TensorType,
    dtypes,
    located,
    user_location,
)
from ...graph.attrs import DimAttr
from ...graph.dims import as_dim, check_shape
from ...graph.dtypes import canonical_array
from ...graph.errors import GraphTypeError
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


def constant(value, dtype=None, name: str | None = None, *, shape=None):
    """A constant tensor holding ``value`` (numpy data keeps its dtype; Python
    floats are float32, ints int32 unless ``dtype`` says otherwise).

    ``shape=`` is TF1's: a single value fills that shape, and as many values
    as it has elements are laid out in it (``sg.constant(0.1, shape=[32])``).
    Lowers to ``stablehlo.constant``.  ``sg.constant(np.ones((3, 2)), name="w")``
    """
    array = _array(value, dtype)
    if shape is not None:
        array = _shaped(array, shape)
    return bind(constant_op, value=array, name=name or "constant")


def _shaped(array: np.ndarray, shape) -> np.ndarray:
    """``array`` in TF1's ``shape=``: one value fills it, as many values as its elements fill it in order."""
    try:
        want = (int(shape),) if np.ndim(shape) == 0 else tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        want = None
    if want is None or any(d < 0 for d in want):
        raise GraphError(located(f"constant wants shape= as a list of sizes, got {shape!r}", user_location()))
    if array.size == 1:
        return np.full(want, array.reshape(()), array.dtype)
    if array.size == int(np.prod(want)):
        return array.reshape(want)
    raise GraphError(
        located(
            f"constant of {array.size} values {array.shape} does not fill shape={list(want)}", user_location()
        )
    )


def _array(value, dtype) -> np.ndarray:
    """``canonical_array``, with Python ints too big for the dtype (or for int64) as GraphErrors."""
    try:
        return canonical_array(value, dtype)
    except OverflowError:  # numpy: a Python int out of bounds for the dtype asked for
        raise _too_big(value, dtypes.dtype(dtype)) from None
    except GraphTypeError:  # a Tensor inside the data: its own error says what to do
        raise
    except (GraphError, ValueError, TypeError) as e:  # an object array, or data numpy cannot type
        if _out_of(value, np.iinfo(np.int64)) is not None:  # a Python int beyond int64
            raise _too_big(value, dtypes.int64) from None
        got = f"{type(value).__name__} {value!r:.60}"
        raise GraphError(
            located(f"a constant holds numbers or numeric arrays, got {got} ({e})", user_location())
        ) from None


def _too_big(value, dt) -> GraphError:
    big = _out_of(value, np.iinfo(dt.np)) if dt.is_integer else None
    if big is None:
        return GraphError(located(f"constant {value!r:.60} does not fit {dt}", user_location()))
    widest = " (the widest integer dtype)" if dt is dtypes.int64 else ""
    hint = (
        "write it as a float (e.g. 2.0**70)"
        if dt is dtypes.int64
        else f"use a wider dtype than {dt}, e.g. sg.int64"
    )
    return GraphError(
        located(
            f"the Python int {big} does not fit {dt}{widest}, whose range is {np.iinfo(dt.np).min} to "
            f"{np.iinfo(dt.np).max}: {hint}",
            user_location(),
        )
    )


def _out_of(value, info):
    """The first Python int in ``value`` (an int or nested lists and tuples) outside ``info``'s range."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, list | tuple):
            stack.extend(reversed(v))
        elif isinstance(v, int) and not isinstance(v, bool) and not info.min <= v <= info.max:
            return v
    return None


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
