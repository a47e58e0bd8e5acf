"""Sorting, searching and running reductions in numpy spelling (ops layer).

sort, argsort, argmax, argmin, cumsum, cumprod, cummax, cummin. Indices are
int32 (jax.numpy's default); ``axis=None`` flattens the input first.
"""

from __future__ import annotations

from ...graph import dtypes, register_overloads
from ..primitives.compare import convert
from ..primitives.constants import iota
from ..primitives.cumulative import cumulative
from ..primitives.shape import reshape as prim_reshape
from ..primitives.sort import argmax as prim_argmax
from ..primitives.sort import argmin as prim_argmin
from ..primitives.sort import sort as prim_sort
from .core import accumulate_dtype, asarray, error, normalize_axis
from .manipulation import flip, reshape

INDEX_DTYPE = dtypes.int32


def _along(a, axis):
    """(x, axis): ``a`` as a Tensor, flattened when axis is None, with the axis normalized."""
    x = asarray(a)
    if axis is None:
        return reshape(x, (-1,)), 0
    if x.ndim == 0:
        raise error(f"axis {axis} is out of range for an array of rank 0")
    return x, normalize_axis(int(axis), x.ndim)


def _check_order(order) -> None:
    if order is not None:
        raise error("sorting by field (order=...) needs structured arrays, which sg.numpy does not have")


def sort(a, axis=-1, kind=None, order=None, *, stable: bool = True, descending: bool = False):
    """A sorted copy of ``a`` along ``axis`` (flattened if None); NaN sorts last.

    ``kind`` is accepted for numpy compatibility; every sort here is stable.
    ``descending=True`` (as in jax.numpy) gives the ascending order reversed, NaN first.
    """
    _check_order(order)
    x, axis = _along(a, axis)
    if descending:  # the ascending order reversed, as jax's: equal elements (+0, -0) come last first
        return flip(prim_sort(x, axis, is_stable=stable), axis)
    return prim_sort(x, axis, is_stable=stable)


def argsort(a, axis=-1, kind=None, order=None, *, stable: bool = True, descending: bool = False):
    """int32 indices that sort ``a`` along ``axis`` (flattened if None); ties keep their order."""
    _check_order(order)
    x, axis = _along(a, axis)
    idx = iota(INDEX_DTYPE, x.shape, axis)
    return prim_sort((x, idx), axis, is_stable=stable, descending=descending)[1]


def _arg(prim, what: str):
    def fn(a, axis=None, *, keepdims: bool = False):
        x = asarray(a)
        flat, ax = _along(x, axis)
        if flat.shape[ax] == 0:
            raise error(f"{what} of an empty sequence {x.type} has no answer")
        out = prim(flat, ax, INDEX_DTYPE)
        if keepdims:
            shape = (
                (1,) * x.ndim if axis is None else tuple(1 if i == ax else d for i, d in enumerate(x.shape))
            )
            out = prim_reshape(out, shape)
        return out

    fn.__name__ = what
    return fn


argmax = _arg(prim_argmax, "argmax")
argmin = _arg(prim_argmin, "argmin")
argmax.__doc__ = "int32 index of the first maximum along ``axis`` (of the flattened array if None); NaN wins."
argmin.__doc__ = "int32 index of the first minimum along ``axis`` (of the flattened array if None); NaN wins."


def _cumulative(kind: str, what: str, promotes: bool):
    def fn(a, axis=None, dtype=None):
        x, ax = _along(a, axis)
        if dtype is not None:
            dt = dtypes.dtype(dtype)
        else:
            dt = accumulate_dtype(x.dtype) if promotes else x.dtype
        return cumulative(convert(x, dt), kind, ax)

    fn.__name__ = what
    return fn


cumsum = _cumulative("sum", "cumsum", promotes=True)
cumprod = _cumulative("prod", "cumprod", promotes=True)
cummax = _cumulative("max", "cummax", promotes=False)
cummin = _cumulative("min", "cummin", promotes=False)
cumsum.__doc__ = "Running sum along ``axis`` (flattened if None); bool and small ints sum in int32."
cumprod.__doc__ = "Running product along ``axis`` (flattened if None); bool and small ints in int32."
cummax.__doc__ = (
    "Running maximum along ``axis`` (flattened if None), like np.maximum.accumulate; NaN propagates."
)
cummin.__doc__ = (
    "Running minimum along ``axis`` (flattened if None), like np.minimum.accumulate; NaN propagates."
)

__all__ = ["sort", "argsort", "argmax", "argmin", "cumsum", "cumprod", "cummax", "cummin"]

register_overloads({"argmax": argmax, "argmin": argmin})
