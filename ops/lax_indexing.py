"""sg.lax's slicing and indexing adapters (ops layer, user-facing; re-exported by ops/lax.py):
lax's pad config, the *_in_dim helpers, dynamic slices with negative starts, and gather and
scatter with JAX's dimension-number tuples and out-of-bounds modes.

jax.lax puts the index vector in the last dim of the indices. Out of bounds, by default a
gather clamps (jax promises in-bounds indices, which XLA clamps) and a scatter drops the
update; "clip" clamps, "fill" fills a gather's window with NaN (or fill_value). The gather
primitive clamps, so the fill mode is a select over the windows whose start was out of range.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

import numpy as np

from ..graph import GraphError, Tensor, dtypes, located, user_location
from .numpy_like import manipulation
from .primitives import compare, constants, prims, reduce, slicing
from .primitives.dynamic_slicing import dynamic_slice as _dynamic_slice
from .primitives.dynamic_slicing import dynamic_update_slice as _dynamic_update_slice
from .primitives.indexing import gather as _gather
from .primitives.indexing import scatter as _scatter


def _error(message: str) -> GraphError:
    """A build-time error at the user's line (for checks made before any node is built)."""
    return GraphError(located(message, user_location()))


# -- static and dynamic slices -------------------------------------------------------
def pad(operand, padding_value, padding_config):
    """Pad with (low, high, interior) per dim, lax's padding_config (negative low/high crop)."""
    low, high, interior = zip(*padding_config) if padding_config else ((), (), ())
    if not isinstance(padding_value, Tensor):
        padding_value = constants.constant(np.asarray(padding_value, operand.dtype.np))
    value = prims.reshape(padding_value, ())  # a one-element array works too
    return slicing.pad(operand, value, low, high, interior)


def _axis(axis: int, ndim: int) -> int:
    return axis + ndim if axis < 0 else axis


def slice_in_dim(operand, start_index, limit_index, stride: int = 1, axis: int = 0):
    axis = _axis(axis, operand.ndim)
    size = operand.shape[axis]
    start = 0 if start_index is None else (start_index + size if start_index < 0 else start_index)
    limit = size if limit_index is None else (limit_index + size if limit_index < 0 else limit_index)
    starts = tuple(start if i == axis else 0 for i in range(operand.ndim))
    limits = tuple(limit if i == axis else d for i, d in enumerate(operand.shape))
    strides = tuple(stride if i == axis else 1 for i in range(operand.ndim))
    return slicing.slice(operand, starts, limits, strides)


def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
    axis = _axis(axis, operand.ndim)
    index = index + operand.shape[axis] if index < 0 else index
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else manipulation.squeeze(out, (axis,))


# -- dynamic slicing --------------------------------------------------------------
def _starts(operand, start_indices, allow_negative_indices=True) -> list:
    """Scalar start Tensors (a 1-D index Tensor is split); negative ones count from the end."""
    if isinstance(start_indices, Tensor) and start_indices.ndim == 1:
        start_indices = [
            index_in_dim(start_indices, i, keepdims=False) for i in range(start_indices.shape[0])
        ]
    starts = list(start_indices)
    negatives = allow_negative_indices if isinstance(allow_negative_indices, list | tuple) else [
        allow_negative_indices] * len(starts)  # fmt: skip
    out = []
    for s, size, neg_ok in zip(starts, operand.shape, negatives):
        if not isinstance(s, Tensor):
            out.append(int(s) + size if neg_ok and int(s) < 0 and isinstance(size, int) else s)
        elif neg_ok and s.dtype.kind == "i":
            zero, size_t = constants.constant(0, s.dtype), prims.convert(constants.dim_value(size), s.dtype)
            out.append(prims.select(prims.compare(s, zero, "LT"), prims.add(s, size_t), s))
        else:
            out.append(s)
    return out


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    return _dynamic_slice(operand, _starts(operand, start_indices, allow_negative_indices), slice_sizes)


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    return _dynamic_update_slice(operand, update, _starts(operand, start_indices, allow_negative_indices))


def _in_dim(operand, index, axis: int):
    axis = _axis(axis, operand.ndim)
    zero = constants.constant(0, index.dtype) if isinstance(index, Tensor) else 0
    return axis, [index if i == axis else zero for i in range(operand.ndim)]


def dynamic_slice_in_dim(
    operand, start_index, slice_size: int, axis: int = 0, *, allow_negative_indices=True
):
    axis, starts = _in_dim(operand, start_index, axis)
    sizes = tuple(slice_size if i == axis else d for i, d in enumerate(operand.shape))
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow_negative_indices)


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int, *, allow_negative_indices=True):
    axis, starts = _in_dim(operand, start_index, axis)
    return dynamic_update_slice(operand, update, starts, allow_negative_indices=allow_negative_indices)


def dynamic_index_in_dim(
    operand, index, axis: int = 0, keepdims: bool = True, *, allow_negative_indices=True
):
    axis = _axis(axis, operand.ndim)
    out = dynamic_slice_in_dim(operand, index, 1, axis, allow_negative_indices=allow_negative_indices)
    return out if keepdims else manipulation.squeeze(out, (axis,))


# -- gather and scatter -----------------------------------------------------------
class GatherDimensionNumbers(NamedTuple):
    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


class GatherScatterMode(enum.Enum):
    CLIP = "clip"
    FILL_OR_DROP = "fill"
    PROMISE_IN_BOUNDS = "promise_in_bounds"

    @classmethod
    def from_any(cls, mode) -> GatherScatterMode:
        if mode is None:
            return cls.FILL_OR_DROP
        if isinstance(mode, cls):
            return mode
        names = {"clip": cls.CLIP, "fill": cls.FILL_OR_DROP, "drop": cls.FILL_OR_DROP,
                 "promise_in_bounds": cls.PROMISE_IN_BOUNDS}  # fmt: skip
        if str(mode).lower() not in names:
            raise _error(
                "sg.lax gather/scatter mode wants 'clip', 'fill', 'drop' or 'promise_in_bounds', "
                f"got {mode!r}"
            )
        return names[str(mode).lower()]


def _in_bounds(idx, limits):
    """For each index vector (the last dim of idx): every start within [0, limit]."""
    bound = constants.constant(np.asarray(limits, idx.dtype.np))
    bound = prims.broadcast_in_dim(bound, idx.shape, (idx.ndim - 1,))
    zero = prims.broadcast_in_dim(constants.constant(0, idx.dtype), idx.shape, ())
    ok = prims.and_(prims.compare(idx, zero, "GE"), prims.compare(idx, bound, "LE"))
    return reduce.reduce(ok, "and", (idx.ndim - 1,))


def _default_fill(dt: dtypes.DType):
    if dt.is_inexact:
        return np.nan
    if dt.kind == "b":
        return True
    info = np.iinfo(dt.np)
    return info.min if dt.kind == "i" else info.max


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):  # fmt: skip
    """Windows of ``slice_sizes`` at the index vectors in the last dim of ``start_indices``, as
    jax.lax.gather (stablehlo.gather). Out-of-range windows are clamped into range (mode None,
    "promise_in_bounds" or "clip": XLA clamps), or filled with NaN (the dtype's extreme for
    integers, True for bools) or ``fill_value`` (mode "fill")."""
    dn = GatherDimensionNumbers(*dimension_numbers)
    mode = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode
    out = _gather(
        operand, start_indices, offset_dims=dn.offset_dims, collapsed_slice_dims=dn.collapsed_slice_dims,
        start_index_map=dn.start_index_map, index_vector_dim=start_indices.ndim - 1,
        slice_sizes=tuple(slice_sizes), operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=dn.start_indices_batching_dims, indices_are_sorted=indices_are_sorted,
    )  # fmt: skip
    if GatherScatterMode.from_any(mode) is not GatherScatterMode.FILL_OR_DROP:
        return out
    limits = [operand.shape[d] - slice_sizes[d] for d in dn.start_index_map]
    ok = _in_bounds(start_indices, limits)
    batch_dims = [d for d in range(out.ndim) if d not in dn.offset_dims]
    ok = prims.broadcast_in_dim(ok, out.shape, batch_dims)
    fill = _default_fill(out.dtype) if fill_value is None else fill_value
    fill = prims.broadcast_in_dim(constants.constant(np.asarray(fill, out.dtype.np)), out.shape, ())
    return compare.select(ok, out, fill)


def _scatter_kind(kind: str, name: str):
    def fn(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
           unique_indices=False, mode=None):  # fmt: skip
        dn = ScatterDimensionNumbers(*dimension_numbers)
        idx = scatter_indices
        if GatherScatterMode.from_any(mode) is GatherScatterMode.CLIP:
            idx = _clamped(operand, idx, updates, dn)
        return _scatter(
            operand, idx, updates, update_window_dims=dn.update_window_dims,
            inserted_window_dims=dn.inserted_window_dims,
            scattered_dims_to_operand_dims=dn.scatter_dims_to_operand_dims, index_vector_dim=idx.ndim - 1,
            input_batching_dims=dn.operand_batching_dims,
            scatter_indices_batching_dims=dn.scatter_indices_batching_dims,
            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, kind=kind,
        )  # fmt: skip

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (
        f"jax.lax.{name}: ``operand`` with the windows of ``updates`` {kind if kind != 'set' else 'written'} "
        "at the index vectors in the last dim of ``scatter_indices`` (stablehlo.scatter). Out-of-range "
        "windows are dropped (the default mode) or moved into range ('clip')."
    )
    return fn


def _clamped(operand, idx, updates, dn: ScatterDimensionNumbers):
    """Index vectors clamped so every update window fits in the operand ("clip" mode)."""
    windowed = [d for d in range(operand.ndim) if d not in dn.inserted_window_dims + dn.operand_batching_dims]
    size = dict(zip(windowed, (updates.shape[d] for d in dn.update_window_dims)))
    limits = [operand.shape[d] - size.get(d, 1) for d in dn.scatter_dims_to_operand_dims]
    lo = prims.broadcast_in_dim(constants.constant(0, idx.dtype), idx.shape, ())
    hi = prims.broadcast_in_dim(
        constants.constant(np.asarray(limits, idx.dtype.np)), idx.shape, (idx.ndim - 1,)
    )
    return prims.clamp(lo, idx, hi)


scatter = _scatter_kind("set", "scatter")
scatter_add = _scatter_kind("add", "scatter_add")
scatter_mul = _scatter_kind("mul", "scatter_mul")
scatter_min = _scatter_kind("min", "scatter_min")
scatter_max = _scatter_kind("max", "scatter_max")


def scatter_sub(operand, scatter_indices, updates, dimension_numbers, *, indices_are_sorted=False,
                unique_indices=False, mode=None):  # fmt: skip
    """jax.lax.scatter_sub: ``operand`` with the windows of ``updates`` subtracted at the index
    vectors of ``scatter_indices`` (a scatter_add of the negated updates)."""
    updates = (
        updates if isinstance(updates, Tensor) else constants.constant(np.asarray(updates, operand.dtype.np))
    )
    return scatter_add(
        operand, scatter_indices, prims.neg(updates), dimension_numbers, indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices, mode=mode,
    )  # fmt: skip
