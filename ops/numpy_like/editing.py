"""Building arrays from pieces and choices: append, insert, delete, block, resize, rot90,
rollaxis, select, piecewise, choose, compress, extract, place, put, put_along_axis,
fill_diagonal, trim_zeros and the array-API spellings (concat, permute_dims, unstack, ...) (ops layer).

Graph values are immutable, so place/put/fill_diagonal return a new array (like
jax.numpy with inplace=False). Positions known when the graph is built become
constant index arrays; selections whose size depends on data take ``size=``.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...graph import Tensor, dtypes
from ..primitives.compare import convert
from ..primitives.constants import iota
from ..primitives.elementwise import stop_gradient
from .core import asarray, broadcast_shapes, error, normalize_axis, result_dtype
from .creation import zeros
from .indexing import take, take_along_axis
from .manipulation import (
    broadcast_to,
    clip,
    concatenate,
    expand_dims,
    flip,
    moveaxis,
    ravel,
    reshape,
    split,
    squeeze,
    swapaxes,
    tile,
    transpose,
)  # fmt: skip
from .reductions import min as reduce_min
from .searching import flatnonzero
from .sorting import cumsum
from .ufuncs import logical_and, logical_not, logical_or, not_equal, remainder, subtract, where

permute_dims = transpose
concat = concatenate


def astype(x, dtype, /, *, copy: bool = False, device=None):
    """``x`` converted to ``dtype``."""
    return asarray(x, dtypes.dtype(dtype))


def copy(a, order=None):
    """``a`` itself: graph values are immutable, so a copy is the same value."""
    return asarray(a)


def unstack(x, /, *, axis: int = 0):
    """The slices of ``x`` along ``axis``, as a tuple."""
    t = asarray(x)
    ax = normalize_axis(axis, t.ndim)
    return tuple(squeeze(p, ax) for p in split(t, t.shape[ax], ax))


def dsplit(ary, indices_or_sections):
    """split along axis 2."""
    x = asarray(ary)
    if x.ndim < 3:
        raise error(f"dsplit wants an array of rank >= 3, got {x.type}")
    return split(x, indices_or_sections, 2)


def rollaxis(a, axis: int, start: int = 0):
    """Move ``axis`` to sit before position ``start`` (numpy's older spelling of moveaxis)."""
    x = asarray(a)
    axis = normalize_axis(axis, x.ndim)
    start = start + x.ndim if start < 0 else start
    if not 0 <= start <= x.ndim:
        raise error(f"rollaxis start {start} is out of range for rank {x.ndim}")
    return moveaxis(x, axis, start - 1 if axis < start else start)


def rot90(m, k: int = 1, axes=(0, 1)):
    """Rotate by 90 degrees k times in the plane of ``axes`` (from the first toward the second)."""
    x = asarray(m)
    a0, a1 = (normalize_axis(a, x.ndim) for a in axes)
    if a0 == a1:
        raise error(f"rot90 wants two different axes, got {axes}")
    k %= 4
    if k == 0:
        return x
    if k == 2:
        return flip(x, (a0, a1))
    if k == 1:
        return swapaxes(flip(x, a1), a0, a1)
    return flip(swapaxes(x, a0, a1), a1)


def append(arr, values, axis=None):
    """``values`` joined after ``arr`` (both flattened when axis is None)."""
    if axis is None:
        return concatenate([ravel(asarray(arr)), ravel(asarray(values))])
    return concatenate([arr, values], axis=axis)


def _static_positions(obj, n: int, what: str) -> np.ndarray:
    if isinstance(obj, Tensor):
        raise error(
            f"{what} wants positions known when the graph is built (int, slice or list), got {obj.type}"
        )
    if isinstance(obj, slice):
        return np.arange(n)[obj]
    return np.asarray(obj)


def delete(arr, obj, axis=None, *, assume_unique_indices: bool = False):
    """``arr`` without the entries at ``obj`` (an int, slice, list or bool mask) along ``axis``."""
    x = asarray(arr)
    if axis is None:
        x, axis = ravel(x), 0
    ax = normalize_axis(axis, x.ndim)
    n = x.shape[ax]
    pos = _static_positions(obj, n, "delete")
    keep = np.ones(n, bool)
    if pos.dtype == bool:
        keep &= ~pos
    else:
        keep[pos.astype(int).reshape(-1)] = False
    return take(x, np.nonzero(keep)[0].astype(np.int32), axis=ax)


def insert(arr, obj, values, axis=None):
    """``values`` inserted before the entries at ``obj`` (static int, slice or list) along ``axis``
    (flattened when None)."""
    x = asarray(arr)
    if axis is None:
        x, axis = ravel(x), 0
    ax = normalize_axis(axis, x.ndim)
    n = x.shape[ax]
    pos = _static_positions(obj, n + 1, "insert").astype(int).reshape(-1)
    pos = np.where(pos < 0, pos + n, pos)
    v = asarray(values, x.dtype)
    if isinstance(obj, numbers.Integral):  # numpy: values get x's rank, their first axis moved to ``axis``
        v = reshape(v, (1,) * (x.ndim - v.ndim) + tuple(v.shape)) if v.ndim < x.ndim else v
        v = moveaxis(v, 0, ax)
        pos = np.full(v.shape[ax], pos[0])
    v = broadcast_to(v, tuple(len(pos) if i == ax else d for i, d in enumerate(x.shape)))
    order = np.argsort(pos, kind="stable")
    is_new = np.zeros(n + len(pos), bool)
    is_new[pos[order] + np.arange(len(pos))] = True
    source = np.empty(n + len(pos), np.int32)  # where each result slot reads from [x, v]
    source[is_new] = n + order
    source[~is_new] = np.arange(n)
    return take(concatenate([x, v], axis=ax), source, axis=ax)


def block(arrays):
    """Assemble an array from nested lists of blocks: the innermost lists join along the last axis."""

    def depth(a):
        return 1 + depth(a[0]) if isinstance(a, list) else 0

    d = depth(arrays)
    if d == 0:
        return asarray(arrays)

    def leaves(a):
        return [x for b in a for x in leaves(b)] if isinstance(a, list) else [asarray(a)]

    rank = max(d, max(x.ndim for x in leaves(arrays)))

    def build(a, level):
        if not isinstance(a, list):
            x = asarray(a)
            return reshape(x, (1,) * (rank - x.ndim) + tuple(x.shape))
        return concatenate([build(b, level + 1) for b in a], axis=level - d)

    return build(arrays, 0)


def select(condlist, choicelist, default=0):
    """Per element, the choice of the first true condition (``default`` where none is)."""
    if len(condlist) != len(choicelist):
        raise error(f"select wants as many conditions as choices, got {len(condlist)} and {len(choicelist)}")
    if not condlist:
        raise error("select needs at least one condition")
    dt = result_dtype(*choicelist, default)
    out = asarray(default, dt)
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        out = where(cond, asarray(choice, dt), out)
    return out


def piecewise(x, condlist, funclist, *args, **kw):
    """``funclist[i](x)`` (or a constant) where ``condlist[i]`` holds; an extra last function
    covers where no condition holds (else 0). Later conditions win, as in numpy."""
    x = asarray(x)
    conds = list(condlist) if isinstance(condlist, list | tuple) else [condlist]
    if len(funclist) not in (len(conds), len(conds) + 1):
        raise error(f"piecewise wants {len(conds)} or {len(conds) + 1} functions, got {len(funclist)}")

    # each function sees x only where it is chosen (elsewhere x through stop_gradient), so its
    # derivative off its piece (t * t at -inf: 0 * inf) cannot reach x as NaN
    conds = [broadcast_to(asarray(c, dtypes.bool_), x.shape) for c in conds]
    chosen, taken = [], None  # taken: some later condition holds (later ones win)
    for c in reversed(conds):
        chosen.insert(0, c if taken is None else logical_and(c, logical_not(taken)))
        taken = c if taken is None else logical_or(c, taken)

    def value(f, mask):
        if not callable(f):
            return asarray(f, x.dtype)
        return asarray(f(where(mask, x, stop_gradient(x)), *args, **kw), x.dtype)

    default = value(funclist[-1], logical_not(taken)) if len(funclist) > len(conds) else asarray(0, x.dtype)
    out = broadcast_to(default, x.shape)
    for mask, f in zip(chosen, funclist):
        out = where(mask, value(f, mask), out)
    return out


def choose(a, choices, out=None, mode: str = "raise"):
    """Per element, ``choices[a]`` (all broadcast together). mode 'clip' or 'wrap' bound the index;
    'raise' cannot check run-time values, so it clips like 'clip'."""
    if out is not None:
        raise error("choose cannot write into out=: graph values are immutable")
    if mode not in ("raise", "clip", "wrap"):
        raise error(f"choose wants mode 'raise', 'clip' or 'wrap', got {mode!r}")
    idx = asarray(a)
    cs = [asarray(c) for c in choices]
    dt = result_dtype(*cs)
    shape = broadcast_shapes(idx.shape, *(c.shape for c in cs))
    stacked = concatenate([expand_dims(broadcast_to(asarray(c, dt), shape), 0) for c in cs], 0)
    n = len(cs)
    i = convert(idx, dtypes.int32)
    i = remainder(i, n) if mode == "wrap" else clip(i, 0, n - 1)
    return squeeze(take_along_axis(stacked, expand_dims(broadcast_to(i, shape), 0), 0), 0)


def compress(condition, a, axis=None, *, size=None, fill_value=0):
    """The slices of ``a`` along ``axis`` where ``condition`` holds. A condition known when the graph
    is built fixes the size; a Tensor condition needs ``size=`` (extra slots get ``fill_value``)."""
    x = asarray(a)
    if axis is None:
        x, axis = ravel(x), 0
    ax = normalize_axis(axis, x.ndim)
    if not isinstance(condition, Tensor):
        keep = np.nonzero(np.asarray(condition, bool).reshape(-1))[0]
        return take(x, keep.astype(np.int32), axis=ax)
    cond = ravel(condition)
    positions = flatnonzero(cond, size=size, fill_value=x.shape[ax])
    return take(x, positions, axis=ax, mode="fill", fill_value=fill_value)


def extract(condition, arr, *, size=None, fill_value=0):
    """The elements of flattened ``arr`` where flattened ``condition`` holds (``size=`` for a
    Tensor condition)."""
    return compress(ravel(condition) if isinstance(condition, Tensor) else np.ravel(condition), ravel(asarray(arr)),
                    size=size, fill_value=fill_value)  # fmt: skip


def place(arr, mask, vals, *, inplace: bool = False):
    """A copy of ``arr`` whose masked elements take ``vals`` in order, cycling through them."""
    _functional(inplace, "place")
    x = asarray(arr)
    m = convert(asarray(mask), dtypes.bool_)
    v = ravel(asarray(vals, x.dtype))
    rank = subtract(cumsum(ravel(m), dtype=dtypes.int32), 1)
    picked = take(v, remainder(rank, v.shape[0]))
    return where(m, reshape(picked, x.shape), x)


def put(a, ind, v, mode=None, *, inplace: bool = False):
    """A copy of ``a`` whose flattened elements at ``ind`` take ``v`` (cycled to ind's length);
    mode 'clip' or 'wrap' bound the indices."""
    _functional(inplace, "put")
    x = asarray(a)
    flat = ravel(x)
    i = ravel(asarray(ind, dtypes.int32))
    n = flat.shape[0]
    if mode == "clip":
        i = clip(i, 0, n - 1)
    elif mode == "wrap":
        i = remainder(i, n)
    vals = ravel(asarray(v, x.dtype))
    if vals.shape[0] != i.shape[0]:
        vals = take(vals, remainder(iota(dtypes.int32, (i.shape[0],)), vals.shape[0]))
    return reshape(flat.at[i].set(vals), x.shape)


def put_along_axis(arr, indices, values, axis, inplace: bool = False, mode=None):
    """A copy of ``arr`` with ``values`` written at ``indices`` along ``axis`` (the other dims paired,
    like take_along_axis)."""
    _functional(inplace, "put_along_axis")
    x = asarray(arr)
    ax = normalize_axis(axis, x.ndim)
    idx = asarray(indices, dtypes.int32)
    if idx.ndim != x.ndim:
        raise error(f"put_along_axis wants indices of rank {x.ndim}, got {idx.type}")
    shape = tuple(idx.shape[i] if i == ax else broadcast_shapes((x.shape[i],), (idx.shape[i],))[0]
                  for i in range(x.ndim))  # fmt: skip
    idx = broadcast_to(idx, shape)
    grid = tuple(idx if i == ax else iota(dtypes.int32, shape, i) for i in range(x.ndim))
    return x.at[grid].set(broadcast_to(asarray(values, x.dtype), shape))


def _functional(inplace: bool, what: str) -> None:
    if inplace:
        raise error(f"{what} cannot work in place: graph values are immutable; use inplace=False")


def fill_diagonal(a, val, wrap: bool = False, *, inplace: bool = False):
    """A copy of ``a`` with ``val`` (cycled) on the main diagonal; for a tall 2-d array,
    ``wrap`` continues the diagonal below the first square block, as numpy does."""
    _functional(inplace, "fill_diagonal")
    x = asarray(a)
    if x.ndim < 2 or (x.ndim > 2 and len(set(x.shape)) != 1):
        raise error(f"fill_diagonal wants a 2-d array or one with equal dims, got {x.type}")
    total = int(np.prod(x.shape))
    step = 1 + int(np.sum(np.cumprod(x.shape[:-1]))) if x.ndim > 2 else x.shape[1] + 1
    end = total if (wrap or x.ndim > 2) else min(total, x.shape[1] * x.shape[1])
    flat_positions = np.arange(0, end, step).astype(np.int32)
    return put(x, flat_positions, val)


def trim_zeros(filt, trim: str = "fb", *, size=None, fill_value=0):
    """``filt`` (1-d) without its leading ('f') and/or trailing ('b') zeros. Data known when the
    graph is built is trimmed then; a Tensor needs ``size=`` (the kept elements come first,
    then ``fill_value``)."""
    x = asarray(filt)
    if x.ndim != 1:
        raise error(f"trim_zeros wants a 1-d array, got {x.type}")
    trim = trim.lower()
    nz = not_equal(x, 0)
    n = x.shape[0]
    ramp = iota(dtypes.int32, (n,))
    # first nonzero index (n when all are zero) and one past the last one (0 when none)
    first = _min_where(nz, ramp, n) if "f" in trim else asarray(0, dtypes.int32)
    stop = subtract(n, _min_where(flip(nz, 0), ramp, n)) if "b" in trim else asarray(n, dtypes.int32)
    if size is None:
        raise error(
            "trim_zeros of a Tensor has a data-dependent length: pass size=n (a static int) to get "
            "the kept elements followed by fill_value"
        )
    slots = iota(dtypes.int32, (size,))
    source = slots + first
    inside = logical_and(source < stop, source < n)
    return where(inside, take(x, source, mode="clip"), asarray(fill_value, x.dtype))


def _min_where(mask, ramp, n):
    return reduce_min(where(mask, ramp, asarray(n, dtypes.int32)))


__all__ = [
    "append", "astype", "block", "choose", "compress", "concat", "copy", "delete", "dsplit", "extract",
    "fill_diagonal", "insert", "permute_dims", "piecewise", "place", "put", "put_along_axis", "resize",
    "rollaxis", "rot90", "select", "trim_zeros", "unstack",
]  # fmt: skip


def resize(a, new_shape):
    """An array of ``new_shape`` filled with ``a``'s flattened elements, repeated as needed."""
    x = ravel(asarray(a))
    shape = (new_shape,) if isinstance(new_shape, numbers.Integral) else tuple(new_shape)
    total = int(np.prod(shape))
    n = x.shape[0]
    if n == 0 or total == 0:
        return zeros(shape, x.dtype)
    reps = -(-total // n)
    flat = tile(x, reps) if reps > 1 else x
    return reshape(flat[:total], shape)
