"""The numpy layer's plumbing: conversion, promotion and broadcasting (ops layer).

Everything in sg.numpy goes through these helpers, so numpy's rules (and our
promotion lattice with weak Python scalars) live in one place.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...graph import GraphError, Tensor, dtypes, located, result_type, user_location
from ...graph.dims import SymbolicSize, broadcast_dims, shape_str, unify
from ...graph.dtypes import weak_point
from ..primitives.compare import convert
from ..primitives.constants import constant, dim_value
from ..primitives.ensure_shape import ensure_shape
from ..primitives.shape import broadcast_in_dim, reshape
from ..primitives.slicing import concatenate


def error(message: str) -> GraphError:
    """A GraphError located at the user's line (for checks made before any node exists)."""
    return GraphError(located(message, user_location()))


def is_scalar(x) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, np.generic)


def asarray(x, dtype=None) -> Tensor:
    """A Tensor for ``x``: Tensors pass through (converted if ``dtype`` is given);
    Python and numpy data become constants; a symbolic size (``x.shape[0]``) a dim_value."""
    if isinstance(x, Tensor):
        return x if dtype is None else convert(x, dtype)
    if isinstance(x, SymbolicSize):
        return dim_value(x, dtypes.int32 if dtype is None else dtype)
    if isinstance(x, list | tuple) and any(isinstance(v, Tensor | SymbolicSize) for v in _leaves(x)):
        out = _stack_rows(list(x))
        return out if dtype is None else convert(out, dtype)
    return constant(x, dtype)


def _stack_rows(rows: list) -> Tensor:
    """Rows holding Tensors or sizes as one Tensor, as numpy.asarray nests them: each row made a
    Tensor (recursively), all of one dtype (their join, Python scalars weak), stacked on a new
    leading axis."""
    dt = result_dtype(*_leaves(rows))
    xs = [asarray(r, dt) for r in rows]
    if len({tuple(x.shape) for x in xs}) > 1:
        raise error(f"asarray wants rows of one shape, got {', '.join(str(x.type) for x in xs)}")
    return concatenate([reshape(x, (1, *x.shape)) for x in xs], 0)


def _leaves(seq):
    for v in seq:
        if isinstance(v, list | tuple):
            yield from _leaves(v)
        else:
            yield v


def dtype_point(x):
    """x's place in the promotion lattice: a DType, or a weak point for Python scalars."""
    if isinstance(x, Tensor):
        return x.dtype
    if isinstance(x, bool):
        return dtypes.bool_
    if isinstance(x, SymbolicSize):
        return weak_point(0)  # a size is a Python int whose value comes later
    if is_scalar(x):
        return weak_point(x)
    if isinstance(x, np.ndarray | np.generic):
        return dtypes.dtype(x.dtype)
    return dtypes.dtype(np.asarray(dtypes.canonical_array(x)).dtype)


def result_dtype(*xs) -> dtypes.DType:
    """numpy-like result dtype of mixing ``xs`` (Tensors, arrays, Python scalars)."""
    try:
        return result_type(*(dtype_point(x) for x in xs))
    except GraphError as e:
        raise error(str(e)) from None


def accumulate_dtype(dt: dtypes.DType) -> dtypes.DType:
    """The dtype sums and products accumulate in: bool and small ints widen to
    int32 / uint32 (like jax.numpy), everything else keeps its dtype."""
    if dt.kind == "b" or (dt.kind == "i" and dt.bits < 32):
        return dtypes.int32
    if dt.kind == "u" and dt.bits < 32:
        return dtypes.uint32
    return dt


def broadcast_shapes(*shapes) -> tuple:
    """numpy broadcasting of shapes with symbolic dims: equal, or one side 1; an anonymous (None)
    dim unifies with the dim it meets (graph/dims.py ``broadcast_dims``)."""
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(ndim):
        dims = [s[len(s) - ndim + i] for s in shapes if len(s) - ndim + i >= 0]
        d = broadcast_dims(dims)
        if d is None:
            real = {dim for dim in dims if dim != 1}
            spelled = " and ".join(shape_str(s) for s in shapes)
            raise error(
                f"cannot broadcast shapes {spelled}: dim {i - ndim} is {' vs '.join(map(str, sorted(real, key=str)))}"
            )
        out.append(d)
    return tuple(out)


def broadcast_to(x: Tensor, shape) -> Tensor:
    """``x`` broadcast to ``shape`` (numpy rules: align trailing dims). An anonymous dim of x (or of
    ``shape``) that meets another dim is taken to be it, through an ensure_shape node."""
    shape = tuple(shape)
    if tuple(x.shape) == shape:
        return x
    lead = len(shape) - x.ndim
    if lead < 0 or any(d != 1 and unify(d, t) is None for d, t in zip(x.shape, shape[lead:])):
        broadcast_shapes(x.shape, shape)  # numpy's message, where the dims clash
        raise error(f"cannot broadcast {x.type} to shape {shape}")
    taken = tuple(t if d != 1 else d for d, t in zip(x.shape, shape[lead:]))
    if taken != tuple(x.shape):
        x = ensure_shape(x, taken)
    return broadcast_in_dim(x, shape, tuple(range(lead, len(shape))))


def promote(*xs, dtype=None) -> list[Tensor]:
    """Tensors of one dtype (the lattice join, or ``dtype``) and one broadcast shape."""
    dt = dtypes.dtype(dtype) if dtype is not None else result_dtype(*xs)
    ts = [asarray(x, dt) if not isinstance(x, Tensor) else convert(x, dt) for x in xs]
    shape = broadcast_shapes(*(t.shape for t in ts))
    return [broadcast_to(t, shape) for t in ts]


def normalize_axis(axis: int, ndim: int, what: str = "axis") -> int:
    if not -ndim <= axis < max(ndim, 1):
        raise error(f"{what} {axis} is out of range for an array of rank {ndim}")
    return axis % max(ndim, 1)


def normalize_axes(axis, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int | np.integer):
        axis = (int(axis),)
    axes = tuple(normalize_axis(int(a), ndim) for a in axis)
    if len(set(axes)) != len(axes):
        raise error(f"repeated axis in {axis}")
    return axes
