"""numpy.pad with every mode numpy has but callables (ops layer).

constant and empty pad with the pad primitive. edge, reflect, symmetric and
wrap read the array at a static index pattern (one gather per padded axis);
linear_ramp, maximum, minimum, mean and median fill each side with a value
computed from the edge or a stat_length-long strip. Like numpy, axes are
padded one after another, so later axes fill the corners.
"""

from __future__ import annotations

import numpy as np

from ...graph import Tensor, dtypes
from ..primitives import slicing
from ..primitives.compare import convert
from .core import asarray, error
from .indexing import take
from .manipulation import concatenate
from .reductions import max as reduce_max
from .reductions import mean as reduce_mean
from .reductions import min as reduce_min
from .statistics import median
from .ufuncs import add, floor, multiply, round, subtract

_MODES = (
    "constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum", "reflect", "symmetric", "wrap",
    "empty",
)  # fmt: skip


def _pairs(value, ndim: int, what: str) -> np.ndarray:
    try:
        return np.broadcast_to(np.asarray(value), (ndim, 2))
    except ValueError:
        raise error(f"pad wants {what} of shape (), (2,), (1, 2) or ({ndim}, 2), got {value!r}") from None


def pad(array, pad_width, mode="constant", **kwargs):
    """``array`` with ``pad_width[i] = (before, after)`` elements added around axis i (an int,
    a pair, or one pair per axis), filled as numpy's ``mode`` says: constant (constant_values),
    edge, reflect and symmetric (reflect_type 'even' or 'odd'), wrap, linear_ramp (end_values),
    maximum, minimum, mean, median (stat_length), empty (zeros here)."""
    if callable(mode) or mode not in _MODES:
        raise error(f"pad wants mode in {_MODES}, got {mode!r}")
    allowed = {"constant": {"constant_values"}, "linear_ramp": {"end_values"}, "reflect": {"reflect_type"},
               "symmetric": {"reflect_type"}}.get(mode, {"stat_length"} if mode in _STATS else set())  # fmt: skip
    extra = set(kwargs) - allowed
    if extra:
        raise error(
            f"pad mode {mode!r} takes no {sorted(extra)} (it takes {sorted(allowed) or 'no options'})"
        )
    x = asarray(array)
    widths = _pairs(pad_width, x.ndim, "pad_width")
    if not np.issubdtype(widths.dtype, np.integer) or (widths < 0).any():
        raise error(f"pad wants non-negative int pad widths, got {pad_width!r}")
    widths = widths.astype(int)
    if mode in ("constant", "empty"):
        return _constant(x, widths, kwargs.get("constant_values", 0))
    for ax in range(x.ndim):
        before, after = (int(w) for w in widths[ax])
        if before == 0 and after == 0:
            continue
        n = x.shape[ax]
        if not isinstance(n, int):
            raise error(f"pad mode {mode!r} needs static sizes, got {x.type}")
        if n == 0:
            raise error(f"pad mode {mode!r} cannot pad an empty axis {ax} of {x.type}")
        if mode in ("edge", "reflect", "symmetric", "wrap"):
            x = _gathered(x, ax, before, after, mode, kwargs.get("reflect_type", "even"))
        elif mode == "linear_ramp":
            x = _ramp(x, ax, before, after, _pairs(kwargs.get("end_values", 0), x.ndim, "end_values")[ax])
        else:
            lengths = _pairs(kwargs.get("stat_length", n), x.ndim, "stat_length")[ax]
            x = _stat(x, ax, before, after, mode, lengths)
    return x


def _constant(x, widths, constant_values):
    zeros = (0,) * x.ndim
    if isinstance(constant_values, Tensor) or np.ndim(constant_values) == 0:
        value = asarray(constant_values, x.dtype)
        if value.ndim:
            raise error(f"pad wants a scalar constant_values Tensor, got {value.type}")
        return slicing.pad(x, value, widths[:, 0].tolist(), widths[:, 1].tolist(), zeros)
    values = _pairs(constant_values, x.ndim, "constant_values")
    for ax in range(x.ndim):
        for side in (0, 1):
            if widths[ax, side]:
                edge = [0] * x.ndim
                edge[ax] = int(widths[ax, side])
                low, high = (edge, zeros) if side == 0 else (zeros, edge)
                x = slicing.pad(x, asarray(values[ax, side], x.dtype), low, high, zeros)
    return x


def _source_index(i: np.ndarray, n: int, mode: str) -> np.ndarray:
    """For positions ``i`` relative to the array's start, the element of the array each copies."""
    if mode == "edge":
        return np.clip(i, 0, n - 1)
    if mode == "wrap":
        return np.mod(i, n)
    if mode == "symmetric":
        j = np.mod(i, 2 * n)
        return np.where(j < n, j, 2 * n - 1 - j)
    if n == 1:  # reflect about a single element repeats it
        return np.zeros_like(i)
    j = np.mod(i, 2 * (n - 1))
    return np.where(j < n, j, 2 * (n - 1) - j)


def _gathered(x, ax: int, before: int, after: int, mode: str, reflect_type: str):
    n = x.shape[ax]
    if reflect_type not in ("even", "odd"):
        raise error(f"pad wants reflect_type 'even' or 'odd', got {reflect_type!r}")
    positions = np.arange(-before, n + after)
    out = take(x, _source_index(positions, n, mode).astype(np.int32), axis=ax)
    if reflect_type == "even" or mode not in ("reflect", "symmetric"):
        return out
    limit = n - 1 if mode == "reflect" else n
    if before > limit or after > limit:
        raise error(
            f"pad with reflect_type='odd' supports widths up to {limit} on axis {ax}, got {before, after}"
        )
    pieces = []
    if before:
        edge = take(x, np.zeros(1, np.int32), axis=ax)
        pieces.append(subtract(multiply(edge, 2), _cut(out, ax, 0, before)))
    pieces.append(_cut(out, ax, before, before + n))
    if after:
        edge = take(x, np.full(1, n - 1, np.int32), axis=ax)
        pieces.append(subtract(multiply(edge, 2), _cut(out, ax, before + n, before + n + after)))
    return concatenate(pieces, axis=ax)


def _cut(x, ax: int, start: int, stop: int):
    starts = [0] * x.ndim
    starts[ax] = start
    limits = list(x.shape)
    limits[ax] = stop
    return slicing.slice(x, starts, limits)


def _ramp(x, ax: int, before: int, after: int, ends):
    n = x.shape[ax]
    work = x.dtype if x.dtype.is_inexact else dtypes.float32
    xf = convert(x, work)
    pieces = []
    if before:
        edge = _cut(xf, ax, 0, 1)
        frac = _along(np.arange(before) / before, ax, x.ndim, work)  # end value at 0, edge at 1
        pieces.append(add(asarray(ends[0], work), multiply(subtract(edge, asarray(ends[0], work)), frac)))
    pieces.append(xf)
    if after:
        edge = _cut(xf, ax, n - 1, n)
        frac = _along(np.arange(after - 1, -1, -1) / after, ax, x.ndim, work)
        pieces.append(add(asarray(ends[1], work), multiply(subtract(edge, asarray(ends[1], work)), frac)))
    out = concatenate(pieces, axis=ax)
    if x.dtype.is_integer:
        out = floor(out)  # numpy's integer linspace rounds toward -inf
    return convert(out, x.dtype)


def _along(values: np.ndarray, ax: int, ndim: int, dt):
    shape = [1] * ndim
    shape[ax] = len(values)
    return asarray(values.reshape(shape), dt)


_STATS = ("maximum", "minimum", "mean", "median")


def _stat(x, ax: int, before: int, after: int, mode: str, lengths):
    n = x.shape[ax]
    pieces = []
    for side, width in ((0, before), (1, after)):
        if not width:
            continue
        k = n if lengths[side] is None else int(lengths[side])
        k = max(1, min(k, n))
        strip = _cut(x, ax, 0, k) if side == 0 else _cut(x, ax, n - k, n)
        value = _statistic(strip, ax, mode, x.dtype)
        piece = take(value, np.zeros(width, np.int32), axis=ax)
        pieces.append((side, piece))
    parts = [p for s, p in pieces if s == 0] + [x] + [p for s, p in pieces if s == 1]
    return concatenate(parts, axis=ax)


def _statistic(strip, ax: int, mode: str, dt):
    if mode == "maximum":
        return reduce_max(strip, axis=ax, keepdims=True)
    if mode == "minimum":
        return reduce_min(strip, axis=ax, keepdims=True)
    if mode == "mean":
        value = reduce_mean(strip, axis=ax, keepdims=True)
    else:
        value = median(strip, axis=ax, keepdims=True)
    if dt.is_integer:
        value = round(value)
    return convert(value, dt)


__all__ = ["pad"]
