"""Shape manipulation in numpy spelling: reshape, transpose, concatenate, split, pad, ... (ops layer).

Everything here rearranges elements with the shape and slicing primitives;
joining functions promote dtypes like numpy. Sizes that a function must cut
(split, roll) have to be static ints; whole symbolic dims pass through.
"""

from __future__ import annotations

import builtins
import numbers

import numpy as np

from ...graph import Tensor, dtypes
from ...graph.dims import check_shape, div, is_symbolic, mul, prod
from ..primitives import shape as prim
from ..primitives import slicing
from .core import asarray, broadcast_shapes, error, normalize_axes, normalize_axis, result_dtype
from .core import broadcast_to as _broadcast_to
from .ufuncs import maximum, minimum


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


def ravel(a, order: str = "C"):
    """The elements of ``a`` as a 1-d array (row-major)."""
    if order != "C":
        raise error("ravel supports order='C' only")
    x = asarray(a)
    return prim.reshape(x, (prod(x.shape),))


def moveaxis(a, source, destination):
    """Move the axes ``source`` to positions ``destination``; the others keep their order."""
    x = asarray(a)
    src = normalize_axes(source, x.ndim)
    dst = normalize_axes(destination, x.ndim)
    if len(src) != len(dst):
        raise error(f"moveaxis wants as many source as destination axes, got {source} and {destination}")
    order = [i for i in range(x.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return prim.transpose(x, order)


def swapaxes(a, axis1: int, axis2: int):
    """Exchange two axes."""
    x = asarray(a)
    perm = list(range(x.ndim))
    i, j = normalize_axis(axis1, x.ndim), normalize_axis(axis2, x.ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return prim.transpose(x, perm)


def broadcast_to(array, shape):
    """``array`` broadcast to ``shape`` (numpy rules; symbols allowed)."""
    shape = (shape,) if isinstance(shape, numbers.Integral | str) else tuple(shape)
    return _broadcast_to(asarray(array), check_shape(shape))


def broadcast_arrays(*args):
    """The arguments broadcast against each other (a tuple, as numpy 2 returns)."""
    xs = [asarray(a) for a in args]
    shape = broadcast_shapes(*(x.shape for x in xs))
    return tuple(_broadcast_to(x, shape) for x in xs)


# -- joining -------------------------------------------------------------------
def _arrays(arrays, fn: str, dtype=None) -> list[Tensor]:
    """The arrays as Tensors of one dtype: ``dtype``, or the join with Python scalars weak."""
    if isinstance(arrays, Tensor):
        raise error(f"{fn} wants a sequence of arrays, got one Tensor (pass a list)")
    arrays = list(arrays)
    if not arrays:
        raise error(f"{fn} needs at least one array")
    dt = dtypes.dtype(dtype) if dtype is not None else result_dtype(*arrays)
    return [asarray(a, dt) for a in arrays]


def _spelled(xs) -> str:
    return ", ".join(str(x.type) for x in xs)


def concatenate(arrays, axis=0, dtype=None):
    """Join arrays along an existing ``axis`` (``None``: flatten first), promoting dtypes."""
    xs = _arrays(arrays, "concatenate", dtype)
    if axis is None:
        xs, axis = [ravel(x) for x in xs], 0
    if any(x.ndim == 0 for x in xs):
        raise error(f"concatenate cannot join 0-d arrays, got {_spelled(xs)}")
    if len({x.ndim for x in xs}) > 1:
        raise error(f"concatenate wants arrays of one rank, got {_spelled(xs)}")
    return slicing.concatenate(xs, normalize_axis(axis, xs[0].ndim))


def stack(arrays, axis: int = 0, dtype=None):
    """Join arrays of one shape along a new ``axis``, promoting dtypes."""
    xs = _arrays(arrays, "stack", dtype)
    if len({tuple(x.shape) for x in xs}) > 1:
        raise error(f"stack wants arrays of one shape, got {_spelled(xs)}")
    ax = normalize_axis(axis, xs[0].ndim + 1)
    return slicing.concatenate([expand_dims(x, ax) for x in xs], ax)


def hstack(tup, dtype=None):
    """Join along axis 1 (axis 0 for 1-d arrays)."""
    xs = [atleast_1d(x) for x in _arrays(tup, "hstack", dtype)]
    return concatenate(xs, 0 if xs[0].ndim == 1 else 1)


def vstack(tup, dtype=None):
    """Join along axis 0, 1-d arrays becoming rows."""
    return concatenate([atleast_2d(x) for x in _arrays(tup, "vstack", dtype)], 0)


def dstack(tup):
    """Join along axis 2, after making every array at least 3-d."""
    return concatenate([atleast_3d(x) for x in _arrays(tup, "dstack")], 2)


def column_stack(tup):
    """Join 1-d arrays as columns (and 2-d arrays as they are) along axis 1."""
    xs = _arrays(tup, "column_stack")
    return concatenate([x if x.ndim >= 2 else prim.reshape(x, (prod(x.shape), 1)) for x in xs], 1)


def _atleast(arys, fn):
    out = [fn(asarray(a)) for a in arys]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_1d(*arys):
    """Each array with at least 1 dim (0-d becomes (1,))."""
    return _atleast(arys, lambda x: x if x.ndim >= 1 else prim.reshape(x, (1,)))


def atleast_2d(*arys):
    """Each array with at least 2 dims: (N,) becomes (1, N)."""
    return _atleast(arys, lambda x: x if x.ndim >= 2 else prim.reshape(x, (1,) * (2 - x.ndim) + x.shape))


def _to_3d(x):
    if x.ndim >= 3:
        return x
    shape = {0: (1, 1, 1), 1: (1, *x.shape, 1), 2: (*x.shape, 1)}[x.ndim]
    return prim.reshape(x, shape)


def atleast_3d(*arys):
    """Each array with at least 3 dims: (N,) becomes (1, N, 1) and (M, N) becomes (M, N, 1)."""
    return _atleast(arys, _to_3d)


# -- cutting -------------------------------------------------------------------
def _take(x, axis: int, start: int, stop: int):
    """x[..., start:stop, ...] along one axis (the other dims whole, symbols included)."""
    starts = [0] * x.ndim
    starts[axis] = start
    limits = list(x.shape)
    limits[axis] = stop
    return slicing.slice(x, starts, limits)


def _static_size(x, axis: int, fn: str) -> int:
    n = x.shape[axis]
    if is_symbolic(n):
        raise error(f"{fn} needs a static size along axis {axis}, got {x.type}")
    return n


def _split(ary, indices_or_sections, axis, fn: str, equal: bool) -> list:
    x = asarray(ary)
    ax = normalize_axis(axis, x.ndim)
    n = _static_size(x, ax, fn)
    if isinstance(indices_or_sections, numbers.Integral):
        sections = int(indices_or_sections)
        if sections <= 0:
            raise error(f"{fn} wants a positive number of sections, got {sections}")
        if equal and n % sections:
            raise error(
                f"split of {n} elements into {sections} sections is not an equal division (array_split allows it)"
            )
        each, extra = divmod(n, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        bounds = np.cumsum([0, *sizes]).tolist()
        pieces = list(zip(bounds[:-1], bounds[1:]))
    else:
        points = [0, *(int(i) for i in indices_or_sections), n]
        pieces = [builtins.slice(a, b).indices(n)[:2] for a, b in zip(points[:-1], points[1:])]
    return [_take(x, ax, start, builtins.max(start, stop)) for start, stop in pieces]


def split(ary, indices_or_sections, axis: int = 0) -> list:
    """Cut into equal sections (an int that must divide the size) or at the given indices."""
    return _split(ary, indices_or_sections, axis, "split", equal=True)


def array_split(ary, indices_or_sections, axis: int = 0) -> list:
    """Like split, but sections may differ in size by one (the first ones are longer)."""
    return _split(ary, indices_or_sections, axis, "array_split", equal=False)


def hsplit(ary, indices_or_sections) -> list:
    """split along axis 1 (axis 0 for 1-d arrays)."""
    x = asarray(ary)
    return split(x, indices_or_sections, 1 if x.ndim > 1 else 0)


def vsplit(ary, indices_or_sections) -> list:
    """split along axis 0."""
    return split(ary, indices_or_sections, 0)


def flip(m, axis=None):
    """Reverse the order of elements along ``axis`` (all axes by default)."""
    x = asarray(m)
    return slicing.rev(x, normalize_axes(axis, x.ndim))


def fliplr(m):
    """Reverse along axis 1."""
    return flip(m, 1)


def flipud(m):
    """Reverse along axis 0."""
    return flip(m, 0)


def roll(a, shift, axis=None):
    """Shift elements cyclically by static ``shift`` along ``axis`` (flattened if None)."""
    x = asarray(a)
    if axis is None:
        return prim.reshape(roll(ravel(x), shift, 0), x.shape)
    totals: dict[int, int] = {}
    for s, ax in np.broadcast(np.asarray(shift), np.asarray(axis)):
        ax = normalize_axis(int(ax), x.ndim)
        totals[ax] = totals.get(ax, 0) + int(s)
    for ax, s in totals.items():
        if s == 0:
            continue
        n = _static_size(x, ax, "roll")
        s = s % n if n else 0
        if s:
            x = slicing.concatenate([_take(x, ax, n - s, n), _take(x, ax, 0, n - s)], ax)
    return x


# -- repeating and padding -----------------------------------------------------
def tile(A, reps):  # noqa: N803
    """``A`` repeated ``reps[i]`` times along each axis (leading 1s fill the shorter one)."""
    x = asarray(A)
    reps = (reps,) if isinstance(reps, numbers.Integral) else tuple(reps)
    reps = tuple(int(r) for r in reps)
    if any(r < 0 for r in reps):
        raise error(f"tile wants non-negative reps, got {reps}")
    d = builtins.max(len(reps), x.ndim)
    reps = (1,) * (d - len(reps)) + reps
    shape = (1,) * (d - x.ndim) + tuple(x.shape)
    x = prim.reshape(x, shape)
    if all(r == 1 for r in reps):
        return x
    spread = tuple(v for pair in zip(reps, shape) for v in pair)
    y = prim.broadcast_in_dim(x, spread, tuple(range(1, 2 * d, 2)))
    return prim.reshape(y, tuple(mul(r, n) for r, n in zip(reps, shape)))


def clip(a, a_min=None, a_max=None, *, min=None, max=None):  # noqa: A002
    """``a`` limited to ``[a_min, a_max]`` (either may be None), with numpy promotion.
    Same as ``minimum(maximum(a, a_min), a_max)``; ``min``/``max`` are numpy 2's spelling."""
    lo = a_min if a_min is not None else min
    hi = a_max if a_max is not None else max
    x = asarray(a) if lo is None and hi is None else a
    if lo is not None:
        x = maximum(x, lo)
    if hi is not None:
        x = minimum(x, hi)
    return x


__all__ = [
    "array_split",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_arrays",
    "broadcast_to",
    "clip",
    "column_stack",
    "concatenate",
    "dstack",
    "expand_dims",
    "flip",
    "fliplr",
    "flipud",
    "hsplit",
    "hstack",
    "moveaxis",
    "ravel",
    "reshape",
    "roll",
    "split",
    "squeeze",
    "stack",
    "swapaxes",
    "tile",
    "transpose",
    "vsplit",
    "vstack",
]
