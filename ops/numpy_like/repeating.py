"""numpy.repeat: per-element counts known at build time or held in a Tensor (ops layer).

One count broadcasts each element into a new axis and merges it (no gather).
Per-element counts read the array at a source index: from numpy when the counts
are static, from a cumulative sum compared with the output slots when they are a
Tensor (then the length must be given, like jax.numpy's total_repeat_length).
"""

from __future__ import annotations

import numpy as np

from ...graph import Tensor, dtypes
from ...graph.dims import mul
from ..primitives import shape as prim
from ..primitives.constants import iota
from .core import asarray, error, normalize_axis
from .core import broadcast_to as _broadcast_to
from .indexing import take
from .manipulation import _static_size, ravel
from .reductions import sum as reduce_sum
from .sorting import cumsum
from .ufuncs import less_equal, minimum


def repeat(a, repeats, axis=None, *, total_repeat_length=None):
    """Each element repeated along ``axis`` (flattened if None): ``repeats`` is one count or one
    count per element. Counts known at build time fix the length; counts in a Tensor need a
    static ``total_repeat_length`` (the result is cut there, or filled with the last element)."""
    x = asarray(a)
    if axis is None:
        x, ax = ravel(x), 0
    else:
        ax = normalize_axis(axis, x.ndim)
    if isinstance(repeats, Tensor):
        return _repeat_dynamic(x, repeats, ax, total_repeat_length)
    counts = np.asarray(repeats).reshape(-1)
    if not np.issubdtype(counts.dtype, np.integer) or (counts < 0).any():
        raise error(f"repeat wants a non-negative repeat count, got {repeats!r}")
    if counts.size == 1:
        return _repeat_each(x, ax, int(counts[0]))
    n = _static_size(x, ax, "repeat")
    if counts.size != n:
        raise error(f"repeat got {counts.size} counts for {n} elements along axis {ax} of {x.type}")
    source = np.searchsorted(np.cumsum(counts), np.arange(int(counts.sum())), side="right")
    if total_repeat_length is not None:
        short = max(0, total_repeat_length - source.size)  # jax.numpy repeats the last element
        source = np.concatenate([source, np.full(short, n - 1)])[:total_repeat_length]
    return _take_static(x, ax, source)


def _repeat_each(x, ax: int, r: int):
    shape = tuple(x.shape)
    spread = shape[: ax + 1] + (r,) + shape[ax + 1 :]
    y = prim.broadcast_in_dim(x, spread, tuple(i if i <= ax else i + 1 for i in range(x.ndim)))
    return prim.reshape(y, shape[:ax] + (mul(shape[ax], r),) + shape[ax + 1 :])


def _take_static(x, ax: int, source: np.ndarray):
    return take(x, source.astype(np.int32), axis=ax)


def _repeat_dynamic(x, repeats: Tensor, ax: int, total):
    if total is None:
        raise error(
            "repeat with counts in a Tensor has a data-dependent length: pass total_repeat_length=n "
            "(a static int), or give the counts as a list or numpy array"
        )
    n = _static_size(x, ax, "repeat")
    counts = _broadcast_to(asarray(repeats, dtypes.int32), (n,)) if repeats.ndim == 0 else repeats
    ends = cumsum(asarray(counts, dtypes.int32))
    slots = prim.reshape(iota(dtypes.int32, (total,)), (total, 1))
    source = reduce_sum(less_equal(prim.reshape(ends, (1, n)), slots), axis=1)
    return take(x, minimum(source, n - 1), axis=ax)


__all__ = ["repeat"]
