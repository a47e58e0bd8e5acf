"""Array API helpers of numpy.linalg: cross, vecdot, matrix_transpose, diagonal (ops layer).

Part of sg.numpy.linalg; unlike their numpy top-level namesakes they work
on the last axes (diagonal and matrix_transpose on the last two).
"""

from __future__ import annotations

from ..primitives.complex_parts import conj
from .core import asarray, broadcast_shapes, broadcast_to, error, normalize_axis, result_dtype
from .creation import eye
from .manipulation import moveaxis, stack, swapaxes
from .reductions import sum as reduce_sum
from .ufuncs import multiply, subtract


def matrix_transpose(x):
    """Swap the last two axes."""
    v = asarray(x)
    if v.ndim < 2:
        raise error(f"linalg.matrix_transpose wants an array of rank >= 2, got {v.type}")
    return swapaxes(v, -1, -2)


def vecdot(x1, x2, axis: int = -1):
    """sum(conj(x1) * x2) over ``axis`` (broadcasting the rest)."""
    dt = result_dtype(x1, x2)
    a, b = asarray(x1, dt), asarray(x2, dt)
    if a.dtype.is_complex:
        a = conj(a)
    prod = multiply(a, b)
    return reduce_sum(prod, axis=normalize_axis(axis, prod.ndim))


def cross(x1, x2, axis: int = -1):
    """Cross product of 3-vectors along ``axis`` (broadcasting the other axes)."""
    dt = result_dtype(x1, x2)
    a, b = asarray(x1, dt), asarray(x2, dt)
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise error(f"linalg.cross wants vectors of 3 elements along axis {axis}, got {a.type} and {b.type}")
    a, b = moveaxis(a, axis, -1), moveaxis(b, axis, -1)
    shape = broadcast_shapes(tuple(a.shape), tuple(b.shape))
    a, b = broadcast_to(a, shape), broadcast_to(b, shape)
    ax, ay, az = (a[..., i] for i in range(3))
    bx, by, bz = (b[..., i] for i in range(3))
    out = stack(
        [subtract(multiply(ay, bz), multiply(az, by)), subtract(multiply(az, bx), multiply(ax, bz)),
         subtract(multiply(ax, by), multiply(ay, bx))],
        axis=-1,
    )  # fmt: skip
    return moveaxis(out, -1, axis)


def diagonal(x, offset: int = 0):
    """The ``offset`` diagonal of the last two axes (above the main one for offset > 0)."""
    v = asarray(x)
    if v.ndim < 2:
        raise error(f"linalg.diagonal wants an array of rank >= 2, got {v.type}")
    n, m = v.shape[-2:]
    length = max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))
    mask = eye(n, m, k=offset, dtype=v.dtype)
    if offset >= 0:  # row i holds its element at column i + offset: sum each row, keep the first rows
        return reduce_sum(multiply(v, mask), axis=-1)[..., :length]
    return reduce_sum(multiply(v, mask), axis=-2)[..., :length]
