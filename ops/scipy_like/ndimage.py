"""sg.scipy.ndimage: map_coordinates, interpolation of an array at fractional indices (ops layer).

jax's modes and orders: order 0 (nearest, ties away from zero) and 1
(linear); mode 'constant' and 'wrap' interpolate across the edge as jax's do
(scipy's 'grid-constant' and 'grid-wrap', which are accepted too), 'nearest',
'mirror' and 'reflect' (also spelled 'grid-mirror') as scipy. Each of the
2^ndim corners is one gather; out-of-range corners read ``cval`` in the
constant modes.
"""

from __future__ import annotations

import itertools

import numpy as np

from ...graph import Tensor, dtypes, library
from .. import numpy_like as snp
from ..numpy_like.core import error

_ALIASES = {"grid-constant": "constant", "grid-wrap": "wrap", "grid-mirror": "reflect"}


def _mirror(i, n: int):
    if n == 1:
        return snp.zeros_like(i)
    period = 2 * (n - 1)
    return snp.abs(snp.remainder(i + (n - 1), period) - (n - 1))


def _reflect(i, n: int):
    return snp.floor_divide(_mirror(2 * i + 1, 2 * n + 1) - 1, 2)


_FIXES = {
    "constant": lambda i, n: snp.clip(i, 0, n - 1),
    "nearest": lambda i, n: snp.clip(i, 0, n - 1),
    "wrap": lambda i, n: snp.remainder(i, n),
    "mirror": _mirror,
    "reflect": _reflect,
}


def _away_from_zero(v):
    """v rounded to integers, ties away from zero (jax's lax.round; numpy's round goes to even)."""
    return snp.sign(v) * snp.floor(snp.abs(v) + 0.5)


def _corners(c, order: int):
    """[(integer index, weight)] of one coordinate array: the point itself or its two neighbours."""
    if order == 0:
        if c.dtype.is_integer:
            return [(snp.asarray(c, dtypes.int32), None)]
        return [(snp.asarray(_away_from_zero(c), dtypes.int32), None)]
    lower = snp.floor(c)
    upper_weight = c - lower
    low = snp.asarray(lower, dtypes.int32)
    return [(low, 1.0 - upper_weight), (low + 1, upper_weight)]


@library()
def map_coordinates(input, coordinates, order: int, mode: str = "constant", cval=0.0):  # noqa: A002
    """``input`` interpolated at ``coordinates`` (one array of fractional indices per axis, all
    of one shape, the result's), as jax.scipy.ndimage.map_coordinates; ``order`` 0 or 1."""
    x = snp.asarray(input)
    if isinstance(coordinates, (Tensor, np.ndarray)):  # one array stacking the coordinates on axis 0
        stacked = snp.asarray(coordinates)
        coords = [stacked[i] for i in range(stacked.shape[0])]
    else:
        coords = [snp.asarray(c) for c in coordinates]
    if len(coords) != x.ndim:
        raise error(
            f"map_coordinates wants one coordinate array per axis of input ({x.ndim}), got {len(coords)}"
        )
    mode = _ALIASES.get(mode, mode)
    if mode not in _FIXES:
        raise error(f"map_coordinates wants mode in {sorted(_FIXES) + sorted(_ALIASES)}, got {mode!r}")
    if order not in (0, 1):
        raise error(
            f"map_coordinates takes order 0 or 1 (as jax; spline orders need a prefilter), got {order!r}"
        )
    if any(not isinstance(n, int) or n == 0 for n in x.shape):
        raise error(f"map_coordinates wants an input of static, nonzero sizes, got {x.type}")
    shape = snp.broadcast_shapes(*[tuple(c.shape) for c in coords]) if coords else ()
    coords = [snp.broadcast_to(c if c.dtype.is_inexact or order == 0 else snp.asarray(c, snp.float32), shape)
              for c in coords]  # fmt: skip
    acc = x.dtype if x.dtype.is_inexact else snp.float32
    if order == 1:
        acc = snp.result_type(acc, *[c.dtype for c in coords])
    per_axis = [_corners(c, order) for c in coords]
    total = None
    for picks in itertools.product(*per_axis):
        fixed = tuple(_FIXES[mode](i, n) for (i, _), n in zip(picks, x.shape))
        value = snp.asarray(x[fixed] if fixed else x, acc)
        if mode == "constant":
            inside = None
            for (i, _), n in zip(picks, x.shape):
                ok = snp.logical_and(i >= 0, i < n)
                inside = ok if inside is None else snp.logical_and(inside, ok)
            if inside is not None:
                value = snp.where(inside, value, snp.asarray(cval, acc))
        for _, w in picks:
            if w is not None:
                value = value * snp.asarray(w, acc)
        total = value if total is None else total + value
    if not x.dtype.is_inexact:
        total = _away_from_zero(total)
    return snp.asarray(total, x.dtype)


__all__ = ["map_coordinates"]
