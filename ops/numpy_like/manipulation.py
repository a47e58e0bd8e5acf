"""Shape manipulation in numpy spelling: reshape, transpose, expand_dims, squeeze, ... (ops layer)."""

from __future__ import annotations

from ...graph.dims import check_shape, div, prod
from .. import shape as prim
from .core import asarray, error, normalize_axes, normalize_axis


def reshape(a, newshape, order: str = "C"):
    """``a`` with a new shape; one dim may be -1 (inferred, symbolic dims included)."""
    if order != "C":
        raise error("reshape supports order='C' only")
    x = asarray(a)
    if isinstance(newshape, int | str):
        newshape = (newshape,)
    newshape = tuple(newshape)
    if sum(1 for d in newshape if d == -1) > 1:
        raise error(f"reshape allows one -1 dim, got {newshape}")
    if -1 in newshape:
        known = prod(d for d in newshape if d != -1)
        missing = div(prod(x.shape), known)
        if missing is None:
            raise error(
                f"cannot reshape {x.type} into {newshape}: size {prod(x.shape)} is not a multiple of {known}"
            )
        newshape = tuple(missing if d == -1 else d for d in newshape)
    shape = check_shape(newshape)
    if prod(shape) != prod(x.shape):
        raise error(f"cannot reshape {x.type} into {shape}: sizes {prod(x.shape)} and {prod(shape)} differ")
    return prim.reshape(x, shape)


def transpose(a, axes=None):
    """Permute dims (reverse them by default)."""
    x = asarray(a)
    if axes is None:
        axes = tuple(reversed(range(x.ndim)))
    axes = tuple(normalize_axis(int(ax), x.ndim) for ax in axes)
    if sorted(axes) != list(range(x.ndim)):
        raise error(f"transpose wants a permutation of {x.ndim} axes, got {axes}")
    return prim.transpose(x, axes)


def expand_dims(a, axis):
    """Insert size-1 dims at ``axis`` (an int or tuple) of the result."""
    x = asarray(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    ndim = x.ndim + len(axes)
    axes = sorted(normalize_axis(ax, ndim) for ax in axes)
    shape = list(x.shape)
    for ax in axes:
        shape.insert(ax, 1)
    return prim.reshape(x, tuple(shape))


def squeeze(a, axis=None):
    """Remove size-1 dims (all of them, or those in ``axis``)."""
    x = asarray(a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    else:
        axes = normalize_axes(axis, x.ndim)
        bad = [ax for ax in axes if x.shape[ax] != 1]
        if bad:
            raise error(f"cannot squeeze axis {bad[0]} of {x.type}: its size is not 1")
    return prim.reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in axes))


__all__ = ["reshape", "transpose", "expand_dims", "squeeze"]
