"""Builders that bind primitives by op name, for rules that need another family's op (ops layer, bottom).

A family's vjp and batch rules often build ops of other families: the vjp of
exp multiplies, the batch rule of pad selects, the vjp of gather scatters.
Importing those families would tie every family to every other, so rules
build them here instead: each builder looks its OpDef up in the op table
(graph.opdef) when it is called, by which time importing stablegraph has
registered every family. This module imports nothing of ops but registry;
families import it (and ad_util, batching, constants, hlo), never each other.

Each builder mirrors its family's public builder (same attributes, node
name and no-op shortcuts), so a rule builds the same graph either way;
tests/ops/test_prims.py checks that. Users call the public builders.
"""

from __future__ import annotations

from ...graph import Tensor, dims, dtypes
from ...graph.dims import check_shape
from .registry import bind, lookup


# -- elementwise ---------------------------------------------------------------
def add(x: Tensor, y: Tensor) -> Tensor:
    return bind(lookup("add"), x, y)


def sub(x: Tensor, y: Tensor) -> Tensor:
    return bind(lookup("sub"), x, y)


def mul(x: Tensor, y: Tensor) -> Tensor:
    return bind(lookup("mul"), x, y)


def div(x: Tensor, y: Tensor) -> Tensor:
    return bind(lookup("div"), x, y)


def neg(x: Tensor) -> Tensor:
    return bind(lookup("neg"), x)


def and_(x: Tensor, y: Tensor) -> Tensor:
    return bind(lookup("and"), x, y)


# -- compare -------------------------------------------------------------------
def compare(x: Tensor, y: Tensor, direction: str) -> Tensor:
    return bind(lookup("compare"), x, y, direction=direction)


def select(pred: Tensor, x: Tensor, y: Tensor) -> Tensor:
    return bind(lookup("select"), pred, x, y)


def clamp(lo: Tensor, x: Tensor, hi: Tensor) -> Tensor:
    return bind(lookup("clamp"), lo, x, hi)


def convert(x: Tensor, dtype) -> Tensor:
    dt = dtypes.dtype(dtype)
    return x if x.dtype is dt else bind(lookup("convert"), x, dtype=dt)


# -- shape ---------------------------------------------------------------------
def broadcast_in_dim(x: Tensor, shape, broadcast_dimensions) -> Tensor:
    shape, broadcast_dimensions = check_shape(shape), tuple(broadcast_dimensions)
    if tuple(x.shape) == shape and broadcast_dimensions == tuple(range(len(shape))):
        return x
    return bind(lookup("broadcast_in_dim"), x, shape=shape, broadcast_dimensions=broadcast_dimensions)


def reshape(x: Tensor, shape) -> Tensor:
    shape = check_shape(shape)
    return x if tuple(x.shape) == shape else bind(lookup("reshape"), x, shape=shape)


def transpose(x: Tensor, permutation) -> Tensor:
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(x.ndim)):
        return x
    return bind(lookup("transpose"), x, permutation=permutation)


# -- reduce, cumulative --------------------------------------------------------
def reduce(x: Tensor, kind: str, axes) -> Tensor:
    axes = tuple(sorted(int(a) % max(x.ndim, 1) for a in axes))
    return x if not axes else bind(lookup("reduce"), x, kind=kind, axes=axes, name=f"reduce_{kind}")


def cumulative(x: Tensor, kind: str, axis: int, reverse: bool = False) -> Tensor:
    axis = axis + x.ndim if axis < 0 else axis
    return bind(lookup("cumulative"), x, kind=kind, axis=axis, reverse=reverse, name=f"cumulative_{kind}")


# -- slicing -------------------------------------------------------------------
def pad(x: Tensor, padding_value: Tensor, low, high, interior=None) -> Tensor:
    interior = tuple(int(n) for n in interior) if interior is not None else (0,) * x.ndim
    low, high = (tuple(dims.as_dim(n) for n in v) for v in (low, high))
    return bind(lookup("pad"), x, padding_value, low=low, high=high, interior=interior)


def concatenate(xs, dimension: int) -> Tensor:
    xs = list(xs)
    if len(xs) == 1 and isinstance(xs[0], Tensor):
        return xs[0]
    return bind(lookup("concatenate"), *xs, dimension=int(dimension))


# -- gather, scatter -----------------------------------------------------------
def gather(
    operand, start_indices, *, offset_dims, collapsed_slice_dims, start_index_map, index_vector_dim,
    slice_sizes, operand_batching_dims=(), start_indices_batching_dims=(), indices_are_sorted=False,
) -> Tensor:  # fmt: skip
    return bind(
        lookup("gather"), operand, start_indices,
        offset_dims=tuple(offset_dims), collapsed_slice_dims=tuple(collapsed_slice_dims),
        operand_batching_dims=tuple(operand_batching_dims),
        start_indices_batching_dims=tuple(start_indices_batching_dims),
        start_index_map=tuple(start_index_map), index_vector_dim=int(index_vector_dim),
        slice_shape=check_shape(tuple(slice_sizes)), indices_are_sorted=bool(indices_are_sorted), mode="clip",
    )  # fmt: skip


def scatter(
    operand, scatter_indices, updates, *, update_window_dims, inserted_window_dims,
    scattered_dims_to_operand_dims, index_vector_dim, input_batching_dims=(),
    scatter_indices_batching_dims=(), indices_are_sorted=False, unique_indices=False, kind="set",
) -> Tensor:  # fmt: skip
    return bind(
        lookup("scatter"), operand, scatter_indices, updates,
        update_window_dims=tuple(update_window_dims), inserted_window_dims=tuple(inserted_window_dims),
        input_batching_dims=tuple(input_batching_dims),
        scatter_indices_batching_dims=tuple(scatter_indices_batching_dims),
        scattered_dims_to_operand_dims=tuple(scattered_dims_to_operand_dims),
        index_vector_dim=int(index_vector_dim), indices_are_sorted=bool(indices_are_sorted),
        unique_indices=bool(unique_indices), kind=kind,
    )  # fmt: skip
