"""Arrays from host data and host-side planning: frombuffer, fromstring, fromiter, from_dlpack,
einsum_path (ops layer).

These read Python or numpy data that exists when the graph is built and turn
it into a constant (einsum_path only looks at shapes); nothing here runs in
the graph.
"""

from __future__ import annotations

import numpy as np

from ...graph import Tensor, dtypes
from .core import asarray, error


def frombuffer(buffer, dtype=dtypes.float32, count: int = -1, offset: int = 0):
    """A 1-d constant of the bytes in ``buffer`` read as ``dtype``."""
    return asarray(np.frombuffer(buffer, dtypes.dtype(dtype).np, count, offset))


def fromstring(string, dtype=dtypes.float32, count: int = -1, *, sep: str):
    """A 1-d constant of the numbers written in ``string`` separated by ``sep``."""
    if not sep:
        raise error("fromstring reads text only: pass sep (binary data goes through frombuffer)")
    return asarray(np.fromstring(string, dtypes.dtype(dtype).np, count, sep=sep))


def fromiter(iterable, dtype, count: int = -1):
    """A 1-d constant of the values an iterable yields (Python values, consumed at build time)."""
    return asarray(np.fromiter(iterable, dtypes.dtype(dtype).np, count))


def from_dlpack(x, /, *, device=None, copy=None):
    """A constant of a host array that supports the DLPack protocol (numpy, torch CPU, ...)."""
    if isinstance(x, Tensor):
        return x
    return asarray(np.from_dlpack(x))


def einsum_path(subscripts: str, *operands, optimize="greedy"):
    """numpy's contraction-order plan (path, report) for an einsum of operands of these shapes."""
    shapes = [tuple(o.shape) if isinstance(o, Tensor) else np.shape(o) for o in operands]
    if any(not isinstance(d, int) for s in shapes for d in s):
        raise error(f"einsum_path needs static shapes, got {shapes}")
    return np.einsum_path(subscripts, *(np.empty(s, np.float32) for s in shapes), optimize=optimize)


__all__ = ["einsum_path", "from_dlpack", "frombuffer", "fromiter", "fromstring"]
