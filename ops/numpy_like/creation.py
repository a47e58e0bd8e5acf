"""Array creation in numpy spelling: zeros, ones, full, arange, linspace, eye, tri, ... (ops layer).

Filled arrays are one scalar constant broadcast to the shape, so shapes may
hold symbols and sizes (``zeros(("batch", 3))``, ``zeros((x.shape[0] - 1, 3))``)
and ``*_like`` works on tensors with symbolic dims; ``arange(x.shape[0])``
has a symbolic length. Ranges and masks are built from iota. The default dtype is
float32; ranges of Python ints are int32.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ...graph import GraphError, Tensor, dtypes
from ...graph.dims import SymbolicSize, check_shape, range_length
from ..primitives.compare import convert
from ..primitives.constants import iota
from ..primitives.shape import broadcast_in_dim
from .core import asarray, broadcast_shapes, broadcast_to, error, is_scalar, result_dtype
from .manipulation import expand_dims, moveaxis
from .ufuncs import add, equal, floor, less_equal, logical_not, multiply, subtract, true_divide, where


def _shape(shape, what: str) -> tuple:
    if isinstance(shape, numbers.Integral):
        shape = (int(shape),)
    try:
        return check_shape(shape if isinstance(shape, str) else tuple(shape))
    except (GraphError, TypeError) as e:
        raise error(f"{what} wants a shape of ints or symbol names, got {shape!r} ({e})") from None


def array(object, dtype=None, copy: bool = True, ndmin: int = 0):  # noqa: A002
    """A tensor of ``object`` (data or Tensors), with at least ``ndmin`` dims (leading 1s)."""
    x = asarray(object, dtype)
    if x.ndim < ndmin:
        x = broadcast_in_dim(x, (1,) * (ndmin - x.ndim) + tuple(x.shape), tuple(range(ndmin - x.ndim, ndmin)))
    return x


def _filled(shape, fill_value, dtype, fn: str):
    shape = _shape(shape, fn)
    value = asarray(fill_value, dtype)
    if value.ndim > len(shape):
        raise error(f"{fn} cannot broadcast a fill value of shape {value.shape} to {shape}")
    return broadcast_to(value, shape)


def full(shape, fill_value, dtype=None):
    """An array of ``shape`` filled with ``fill_value`` (broadcast numpy-style; dtype from the
    value unless given: Python ints int32, floats float32)."""
    return _filled(shape, fill_value, dtype, "full")


def zeros(shape, dtype=dtypes.float32):
    """An array of zeros (float32 by default; ``shape`` may hold symbols)."""
    return _filled(shape, 0, dtypes.dtype(dtype), "zeros")


def ones(shape, dtype=dtypes.float32):
    """An array of ones (float32 by default; ``shape`` may hold symbols)."""
    return _filled(shape, 1, dtypes.dtype(dtype), "ones")


def empty(shape, dtype=dtypes.float32):
    """Like ``zeros``: graphs have no uninitialized memory."""
    return zeros(shape, dtype)


def _like(a, dtype, shape):
    x = a if isinstance(a, Tensor) else asarray(a)
    return (x.dtype if dtype is None else dtypes.dtype(dtype)), (x.shape if shape is None else shape)


def full_like(a, fill_value, dtype=None, shape=None):
    """An array with ``a``'s shape (symbols kept) and dtype, filled with ``fill_value``."""
    dt, shape = _like(a, dtype, shape)
    return full(shape, fill_value, dt)


def zeros_like(a, dtype=None, shape=None):
    """Zeros with ``a``'s shape (symbols kept) and dtype."""
    return full_like(a, 0, dtype, shape)


def ones_like(a, dtype=None, shape=None):
    """Ones with ``a``'s shape (symbols kept) and dtype."""
    return full_like(a, 1, dtype, shape)


def empty_like(a, dtype=None, shape=None):
    """Like ``zeros_like``."""
    return zeros_like(a, dtype, shape)


# -- ranges --------------------------------------------------------------------
def _static_number(v, fn: str):
    if isinstance(v, Tensor) or not (is_scalar(v) or isinstance(v, np.number)):
        raise error(f"{fn} wants static Python numbers (its length must be known), got {type(v).__name__}")
    return v


def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in ``[start, stop)`` by ``step`` (numpy semantics, static numbers).

    Python ints give int32, any Python float float32, numpy scalars keep their dtype,
    unless ``dtype`` is given. ``arange(5)``, ``arange(0, 1, 0.25)``
    """
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    if isinstance(start, SymbolicSize) or isinstance(stop, SymbolicSize):
        return _symbolic_arange(start, stop, step, dtype)
    args = [_static_number(v, "arange") for v in (start, stop, step)]
    dt = dtypes.dtype(dtype) if dtype is not None else result_dtype(*args)
    start, stop, step = (v.item() if isinstance(v, np.generic) else v for v in args)
    if step == 0:
        raise error("arange wants a nonzero step, got 0")
    ints = all(isinstance(v, numbers.Integral) for v in (start, stop, step))
    if dtype is None and ints and not all(-(2**31) <= v < 2**31 for v in (start, stop)):
        dt = dtypes.int64  # like constants: Python ints that do not fit int32
    n = max(0, -(-(stop - start) // step) if ints else math.ceil((stop - start) / step))
    if ints and dt.kind in "iu":
        work = dt
    else:
        work = dtypes.float64 if dt is dtypes.float64 else dtypes.float32
    values = iota(work, (n,))
    if step != 1:
        values = multiply(values, asarray(step, work))
    if start != 0:
        values = add(values, asarray(start, work))
    return convert(values, dt)


def _symbolic_arange(start, stop, step, dtype):
    """arange with symbolic sizes as bounds (``arange(x.shape[0])``): its length is a dim."""
    for v in (start, stop):
        if not isinstance(v, numbers.Integral | SymbolicSize) or isinstance(v, bool):
            raise error(f"arange with a symbolic size wants int or symbolic bounds, got {v!r}")
    if not isinstance(step, numbers.Integral) or step == 0:
        raise error(f"arange with a symbolic size wants a nonzero int step, got {step!r}")
    dt = dtypes.int32 if dtype is None else dtypes.dtype(dtype)
    values = iota(dt, (range_length(start, stop, int(step)),))
    if step != 1:
        values = multiply(values, asarray(int(step), dt))
    return values if start == 0 else add(values, asarray(start, dt))


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (included if ``endpoint``).

    ``start`` and ``stop`` may be arrays (the samples then run along ``axis``); float32 unless
    they are float64 or ``dtype`` says otherwise (integer dtypes round down, like numpy).
    ``retstep`` also returns the spacing. Each sample is ``start (1 - t) + stop t`` with
    ``t = i / (num - 1)``: the ends come out exactly and ``stop - start`` never overflows
    (``linspace(-max, max)`` is finite).
    """
    num = int(num)
    if num < 0:
        raise error(f"linspace wants num >= 0, got {num}")
    lo, hi = asarray(start), asarray(stop)
    work = result_dtype(lo, hi)
    work = work if work.is_inexact else dtypes.float32
    lo, hi = convert(lo, work), convert(hi, work)
    lo, hi = (
        broadcast_to(lo, broadcast_shapes(lo.shape, hi.shape)),
        broadcast_to(hi, broadcast_shapes(lo.shape, hi.shape)),
    )
    delta = subtract(hi, lo)
    div = num - 1 if endpoint else num
    step = true_divide(delta, div) if div > 0 else full(delta.shape, np.nan, work)
    t = broadcast_in_dim(true_divide(iota(work, (num,)), max(div, 1)), (num, *delta.shape), (0,))
    y = add(multiply(expand_dims(lo, 0), subtract(1, t)), multiply(expand_dims(hi, 0), t))
    if endpoint and num > 1:
        y = where(equal(iota(dtypes.int32, y.shape, 0), num - 1), expand_dims(hi, 0), y)
    dt = dtypes.dtype(dtype) if dtype is not None else work
    if dt.kind in "iu" and work.is_floating:
        y = floor(y)
    y = convert(y, dt)
    if axis != 0:
        y = moveaxis(y, 0, axis)
    return (y, step) if retstep else y


# -- matrices ------------------------------------------------------------------
def _diagonal_offset(n, m, k: int):
    """int32 (n, m) array of col - row - k: zero on the k-th diagonal."""
    shape = _shape((n, n if m is None else m), "eye")
    offset = subtract(iota(dtypes.int32, shape, 1), iota(dtypes.int32, shape, 0))
    return offset if k == 0 else subtract(offset, int(k))


def eye(N, M=None, k: int = 0, dtype=dtypes.float32):  # noqa: N803
    """A 2-d array with ones on the k-th diagonal (k > 0 above the main one), zeros elsewhere."""
    return convert(equal(_diagonal_offset(N, M, k), 0), dtypes.dtype(dtype))


def identity(n, dtype=dtypes.float32):
    """The n x n identity matrix."""
    return eye(n, dtype=dtype)


def tri(N, M=None, k: int = 0, dtype=dtypes.float32):  # noqa: N803
    """Ones at and below the k-th diagonal, zeros above."""
    return convert(less_equal(_diagonal_offset(N, M, k), 0), dtypes.dtype(dtype))


def _keep_where(x, keep):
    return where(keep, x, asarray(0, x.dtype))


def tril(m, k: int = 0):
    """``m`` with the elements above the k-th diagonal zeroed (in the last two dims)."""
    x = asarray(m)
    return _keep_where(x, tri(*_last2(x), k=k, dtype=dtypes.bool_))


def triu(m, k: int = 0):
    """``m`` with the elements below the k-th diagonal zeroed (in the last two dims)."""
    x = asarray(m)
    return _keep_where(x, logical_not(tri(*_last2(x), k=k - 1, dtype=dtypes.bool_)))


def _last2(x):
    if x.ndim < 2:
        raise error(f"tril/triu want an array of at least 2 dims, got {x.type}")
    return x.shape[-2], x.shape[-1]


__all__ = [
    "arange",
    "array",
    "empty",
    "empty_like",
    "eye",
    "full",
    "full_like",
    "identity",
    "linspace",
    "ones",
    "ones_like",
    "tri",
    "tril",
    "triu",
    "zeros",
    "zeros_like",
]
