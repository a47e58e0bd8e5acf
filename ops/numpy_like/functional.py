"""Applying Python functions over arrays: apply_over_axes, and matvec / vecmat (ops layer).

numpy's vectorize and apply_along_axis map a function over lanes with sg.vectorize, a
transform, so they live above it (transforms/numpy_mapping.py) and the package's __init__
hangs them on sg.numpy.
"""

from __future__ import annotations

import numpy as np

from ...graph import Tensor
from . import math_ufuncs
from .core import asarray, error, normalize_axis
from .linalg_products import matmul
from .manipulation import expand_dims, squeeze


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied for each axis in turn, keeping the rank (a dropped axis is
    put back with size 1)."""
    x = asarray(a)
    for axis in np.atleast_1d(axes):
        ax = normalize_axis(int(axis), x.ndim)
        y = asarray(func(x, ax))
        if y.ndim == x.ndim - 1:
            y = expand_dims(y, ax)
        elif y.ndim != x.ndim:
            raise error(f"apply_over_axes wants func to keep or drop one dim, got {y.type} from {x.type}")
        x = y
    return x


def _conj(x: Tensor) -> Tensor:
    return math_ufuncs.conj(x) if x.dtype.is_complex else x


def matvec(x1, x2, /):
    """Matrix-vector products over the batch dims: (..., m, n) and (..., n) give (..., m)."""
    a, v = asarray(x1), asarray(x2)
    if a.ndim < 2 or v.ndim < 1:
        raise error(f"matvec wants a matrix and a vector, got {a.type} and {v.type}")
    return squeeze(matmul(a, expand_dims(v, -1)), -1)


def vecmat(x1, x2, /):
    """Vector-matrix products conj(x1) @ x2 over the batch dims: (..., n) and (..., n, m) give (..., m)."""
    v, a = asarray(x1), asarray(x2)
    if a.ndim < 2 or v.ndim < 1:
        raise error(f"vecmat wants a vector and a matrix, got {v.type} and {a.type}")
    return squeeze(matmul(expand_dims(_conj(v), -2), a), -2)


__all__ = ["apply_over_axes", "matvec", "vecmat"]
