"""Dimension numbers of gather and scatter: the checks their shape rules share, and the clamp
limits of start indices their vjp rules share (ops layer)."""

from __future__ import annotations

import numpy as np

from ...graph import GraphError, TensorType, dims
from ...graph.dims import is_symbolic
from . import constants, prims
from .batching import rank_among, shift_axes


def check_dims(op: str, what: str, dims, rank: int, ordered: bool = True) -> None:
    """dims must be distinct (and sorted, if ``ordered``) members of range(rank)."""
    if len(set(dims)) != len(dims) or any(not 0 <= d < rank for d in dims):
        raise GraphError(f"{op} wants distinct {what} in [0, {rank}), got {dims}")
    if ordered and list(dims) != sorted(dims):
        raise GraphError(f"{op} wants sorted {what}, got {dims}")


def index_batch(op: str, idx: TensorType, index_vector_dim: int):
    """The batch shape of an index tensor and the length of its index vectors."""
    if not idx.dtype.is_integer:
        raise GraphError(f"{op} wants integer indices, got {idx}")
    if not 0 <= index_vector_dim <= idx.ndim:
        raise GraphError(
            f"{op} wants 0 <= index_vector_dim <= {idx.ndim} for indices {idx}, got {index_vector_dim}"
        )
    if index_vector_dim == idx.ndim:
        return idx.shape, 1  # a trailing index vector dim of size 1 is implied
    n = idx.shape[index_vector_dim]
    if is_symbolic(n):
        raise GraphError(f"{op} wants a static index vector size, got dim {index_vector_dim} of {idx}")
    return idx.shape[:index_vector_dim] + idx.shape[index_vector_dim + 1 :], n


def check_batching(op: str, x: TensorType, x_dims, idx: TensorType, idx_dims, index_vector_dim: int) -> None:
    check_dims(op, "index batching dims", idx_dims, idx.ndim, ordered=False)
    if index_vector_dim in idx_dims or len(idx_dims) != len(x_dims):
        raise GraphError(
            f"{op} wants one index batching dim (not the index vector dim {index_vector_dim}) per operand "
            f"batching dim, got {idx_dims} for {x_dims}"
        )
    for a, b in zip(x_dims, idx_dims):
        if x.shape[a] != idx.shape[b]:
            raise GraphError(
                f"{op} wants batching dims of equal size, got dim {a} of {x} and dim {b} of {idx}"
            )


def check_index_map(op: str, what: str, index_map, n: int, x: TensorType, batching) -> None:
    if len(index_map) != n:
        raise GraphError(f"{op} wants {what} of length {n} (the index vector size), got {index_map}")
    check_dims(op, what, index_map, x.ndim, ordered=False)
    if set(index_map) & set(batching):
        raise GraphError(f"{op} wants {what} {index_map} disjoint from the operand batching dims {batching}")


def exceeds(window, size) -> bool:
    """Whether a window is larger than its dim for every value of the symbols; windows the dims
    cannot compare (batch - 1 in batch, 3 in batch) are checked when lowered (see fits)."""
    gap = dims.difference(size, window)
    return gap is not None and gap < 0


def fits(op: str, window, operand) -> None:
    # A static window in a symbolic dim can only be checked once the Session binds the symbol.
    if any(w > d for w, d in zip(window, operand)):
        raise GraphError(f"{op} wants windows within the operand, got {window} for {operand} at run time")


def start_limits(x, idx, index_map, window, index_vector_dim: int):
    """The largest start of each index vector component that keeps a window inside x, shaped like idx."""
    dt = idx.dtype
    last = [dims.sub(x.shape[o], window[o]) for o in index_map]
    if all(isinstance(n, int) for n in last):
        vector = constants.constant(np.asarray(last, dt.np))
    else:
        parts = [prims.reshape(constants.dim_value(n, dt), (1,)) for n in last]
        vector = prims.concatenate(parts, 0)
    if index_vector_dim == idx.ndim:
        return prims.broadcast_in_dim(prims.reshape(vector, ()), idx.shape, ())
    return prims.broadcast_in_dim(vector, idx.shape, (index_vector_dim,))


def index_batch_dims(ndim: int, index_vector_dim: int) -> list[int]:
    """The batch dims of indices with ``ndim`` dims: all but the index vector dim."""
    return [d for d in range(ndim) if d != index_vector_dim]


def paired_batching(x_dims, idx_dims, bx: int, bi: int):
    """Operand and index batching dims renumbered for batch axes at ``bx`` and ``bi``, with those two
    added as one more pair (where the operand's list stays sorted)."""
    x_dims, idx_dims = shift_axes(x_dims, bx), shift_axes(idx_dims, bi)
    m = rank_among(x_dims, bx)
    return x_dims[:m] + (bx,) + x_dims[m:], idx_dims[:m] + (bi,) + idx_dims[m:]
