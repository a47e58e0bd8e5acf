"""Reductions in numpy spelling: sum, mean, var, std, max, min, prod, all, any (ops layer).

mean, var and std, built of several primitives, are library calls (graph/calls.py).
"""

from __future__ import annotations

import builtins

from ...graph import dtypes, library
from ...graph.dims import prod as dims_prod
from ..primitives.compare import convert
from ..primitives.reduce import reduce
from ..primitives.shape import reshape
from .core import accumulate_dtype, asarray, error, normalize_axes
from .ufuncs import absolute, sqrt, square, subtract, true_divide


def _keep(x, out, axes, keepdims):
    if not keepdims:
        return out
    shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    return reshape(out, shape)


def _reduction(kind: str, default_dtype):
    def fn(a, axis=None, dtype=None, keepdims: bool = False):
        x = asarray(a)
        axes = normalize_axes(axis, x.ndim)
        if kind in ("max", "min") and builtins.any(x.shape[i] == 0 for i in axes):
            raise error(
                f"{kind} of an empty slice has no identity: {x.type} reduced over axes {axes} "
                "(numpy and jax refuse it too)"
            )
        dt = dtypes.dtype(dtype) if dtype is not None else default_dtype(x.dtype)
        return _keep(x, reduce(convert(x, dt), kind, axes), axes, keepdims)

    return fn


sum = _reduction("sum", accumulate_dtype)  # noqa: A001
prod = _reduction("prod", accumulate_dtype)
max = _reduction("max", lambda dt: dt)  # noqa: A001
min = _reduction("min", lambda dt: dt)  # noqa: A001
amax, amin = max, min
sum.__doc__ = "Sum over ``axis`` (all by default); bool and small ints sum in int32."
prod.__doc__ = "Product over ``axis``; bool and small ints multiply in int32."
max.__doc__ = "Maximum over ``axis`` (NaN propagates)."
min.__doc__ = "Minimum over ``axis`` (NaN propagates)."


def all(a, axis=None, keepdims: bool = False):  # noqa: A001
    """True where every element over ``axis`` is nonzero."""
    x = convert(asarray(a), dtypes.bool_)
    axes = normalize_axes(axis, x.ndim)
    return _keep(x, reduce(x, "and", axes), axes, keepdims)


def any(a, axis=None, keepdims: bool = False):  # noqa: A001
    """True where some element over ``axis`` is nonzero."""
    x = convert(asarray(a), dtypes.bool_)
    axes = normalize_axes(axis, x.ndim)
    return _keep(x, reduce(x, "or", axes), axes, keepdims)


def _count(x, axes, dt):
    """How many elements each reduced slice has, as a scalar of dtype ``dt``."""
    return asarray(dims_prod(x.shape[a] for a in axes), dt)  # a symbolic count becomes a dim_value


def _float_of(dt: dtypes.DType) -> dtypes.DType:
    return dt if dt.is_inexact else (dtypes.float64 if dt.bits == 64 else dtypes.float32)


@library()
def mean(a, axis=None, dtype=None, keepdims: bool = False):
    """Arithmetic mean over ``axis``; integers average as floats."""
    x = asarray(a)
    axes = normalize_axes(axis, x.ndim)
    dt = dtypes.dtype(dtype) if dtype is not None else _float_of(x.dtype)
    total = sum(convert(x, dt), axis=axes, keepdims=keepdims)
    return true_divide(total, _count(x, axes, dt))


@library()
def var(a, axis=None, dtype=None, ddof: int = 0, keepdims: bool = False):
    """Variance: sum of squared deviations |x - mean|^2 divided by (n - ddof); real for complex input."""
    x = asarray(a)
    axes = normalize_axes(axis, x.ndim)
    dt = dtypes.dtype(dtype) if dtype is not None else _float_of(x.dtype)
    x = convert(x, dt)
    centered = subtract(x, mean(x, axis=axes, keepdims=True))
    if dt.is_complex:  # |x - mean|^2, a real number
        centered = absolute(centered)
    total = sum(square(centered), axis=axes, keepdims=keepdims)
    return true_divide(total, subtract(_count(x, axes, centered.dtype), ddof))


@library()
def std(a, axis=None, dtype=None, ddof: int = 0, keepdims: bool = False):
    """Standard deviation: sqrt of var."""
    return sqrt(var(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims))


__all__ = ["sum", "prod", "max", "min", "amax", "amin", "all", "any", "mean", "var", "std"]
