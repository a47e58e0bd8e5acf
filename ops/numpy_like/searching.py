"""Where nonzero elements are: nonzero, flatnonzero, argwhere, count_nonzero (ops layer).

The number of nonzero elements is only known when the graph runs, so a
result shape that depends on it cannot exist in a typed graph. As in
jax.numpy, these functions take a static ``size=``: the first ``size``
positions are returned, padded with ``fill_value`` (0 by default). Without
``size`` they raise a GraphError saying what to write instead.
"""

from __future__ import annotations

from ...graph import dtypes
from ...graph.dims import prod
from ..primitives.compare import convert
from ..primitives.constants import iota
from ..primitives.cumulative import cumulative
from .core import asarray, error
from .creation import full
from .manipulation import reshape, stack
from .reductions import sum as reduce_sum
from .ufuncs import floor_divide, remainder, subtract, where

_INDEX = dtypes.int32


def _needs_size(name: str, size) -> None:
    if size is None:
        raise error(
            f"{name}'s result shape depends on the data: pass a static bound, {name}(x, size=n), "
            "to get the first n positions padded with fill_value, or keep the shape with "
            "snp.where(condition, x, y) or a multiplication by the mask"
        )
    if not isinstance(size, int) or size < 0:
        raise error(f"{name} wants size to be a non-negative int, got {size!r}")


def flatnonzero(a, *, size=None, fill_value=0):
    """Indices of the nonzero elements of ``a`` flattened: int32[size], padded with fill_value."""
    _needs_size("flatnonzero", size)
    mask = convert(reshape(asarray(a), (-1,)), dtypes.bool_)
    n = prod(mask.shape)
    rank = subtract(cumulative(convert(mask, _INDEX), "sum", 0), 1)  # slot of each nonzero element
    slot = where(mask, rank, size)  # zeros aim past the end: scatter drops them
    out = full((size,), fill_value, _INDEX)
    return out.at[slot].set(iota(_INDEX, (n,)))


def nonzero(a, *, size=None, fill_value=0):
    """A tuple of int32[size] index arrays, one per dim of ``a``, like numpy.nonzero."""
    _needs_size("nonzero", size)
    x = asarray(a)
    if x.ndim == 0:
        raise error("nonzero of a 0-d array is not defined; use snp.atleast_1d first")
    flat = flatnonzero(x, size=size, fill_value=0)
    out, rest = [], flat
    for d in reversed(x.shape):
        if not isinstance(d, int):
            raise error(f"nonzero needs static dims, got shape {x.shape}")
        out.append(remainder(rest, d))
        rest = floor_divide(rest, d)
    coords = tuple(reversed(out))
    if fill_value == 0:
        return coords
    valid = iota(_INDEX, (size,)) < count_nonzero(x)
    return tuple(where(valid, c, fill_value) for c in coords)


def argwhere(a, *, size=None, fill_value=0):
    """int32[size, ndim]: the index of each nonzero element, one row each."""
    _needs_size("argwhere", size)
    return stack(nonzero(a, size=size, fill_value=fill_value), axis=1)


def count_nonzero(a, axis=None, keepdims: bool = False):
    """How many elements are nonzero (int32), over ``axis`` or all of ``a``."""
    return reduce_sum(convert(asarray(a), dtypes.bool_), axis=axis, keepdims=keepdims)


__all__ = ["argwhere", "count_nonzero", "flatnonzero", "nonzero"]
