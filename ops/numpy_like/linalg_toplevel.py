"""numpy's top-level diagonal, cross, matrix_transpose and vecdot (ops layer).

They differ from their numpy.linalg namesakes in linalg_misc.py by numpy's
top-level conventions: ``diagonal`` takes axes 0 and 1 by default, ``cross``
takes ``axisa``/``axisb``/``axisc`` and 2-vectors as well as 3-vectors.
"""

from __future__ import annotations

from . import linalg_misc
from .core import asarray, error, normalize_axis, result_dtype
from .manipulation import moveaxis
from .padding import pad
from .ufuncs import multiply, subtract

matrix_transpose = linalg_misc.matrix_transpose
vecdot = linalg_misc.vecdot


def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """The ``offset`` diagonal of axes ``axis1`` and ``axis2``, appended as the last axis (as numpy.diagonal)."""
    v = asarray(a)
    if v.ndim < 2:
        raise error(f"diagonal wants an array of rank >= 2, got {v.type}")
    first, second = normalize_axis(axis1, v.ndim), normalize_axis(axis2, v.ndim)
    if first == second:
        raise error(f"diagonal wants two different axes, got axis1={axis1} and axis2={axis2} for {v.type}")
    return linalg_misc.diagonal(moveaxis(v, (first, second), (-2, -1)), offset=offset)


def _planar(a, b):
    """The z component of the cross product of 2-vectors given as (x, y) pairs."""
    return subtract(multiply(a[..., 0], b[..., 1]), multiply(a[..., 1], b[..., 0]))


def cross(a, b, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None):
    """Cross product of 2- or 3-vectors along ``axisa``/``axisb`` (``axis`` sets all three), as numpy.cross.

    Two 2-vectors give the scalar z component; a 2-vector meeting a 3-vector
    is taken with z = 0. The vectors' axis of the result is ``axisc``.
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    dt = result_dtype(a, b)
    x, y = asarray(a, dt), asarray(b, dt)
    x, y = moveaxis(x, axisa, -1), moveaxis(y, axisb, -1)
    sizes = (x.shape[-1], y.shape[-1])
    if not set(sizes) <= {2, 3}:
        raise error(
            f"cross wants vectors of 2 or 3 elements, got {x.type} and {y.type} (axisa={axisa}, axisb={axisb})"
        )
    if sizes == (2, 2):
        return _planar(x, y)
    if sizes[0] == 2:
        x = pad(x, [(0, 0)] * (x.ndim - 1) + [(0, 1)])
    if sizes[1] == 2:
        y = pad(y, [(0, 0)] * (y.ndim - 1) + [(0, 1)])
    return moveaxis(linalg_misc.cross(x, y), -1, axisc)


__all__ = ["diagonal", "cross", "matrix_transpose", "vecdot"]
