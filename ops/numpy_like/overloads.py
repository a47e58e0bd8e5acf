"""Installs Tensor's operators and methods (+, @, [], .sum(), .ravel(), ...) from sg.numpy (ops layer).

Operators and the methods graph/tensor.py spells out look their function up in
the overload table; the other numpy array methods (ravel, var, cumsum, ...)
are attached to Tensor here, each calling its sg.numpy function.
"""

from __future__ import annotations

from ...graph import Tensor, register_overloads
from . import (
    editing,
    linalg_products,
    manipulation,
    math_ufuncs,
    nan_reductions,
    reductions,
    repeating,
    sorting,
    ufuncs,
)
from .core import asarray
from .indexing import take


def _transpose(x, axes=None):
    return manipulation.transpose(x, axes or None)


def _astype(x, dtype):
    return asarray(x, dtype)


def _method(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


_METHODS = {
    "ravel": manipulation.ravel,
    "var": reductions.var,
    "std": reductions.std,
    "all": reductions.all,
    "any": reductions.any,
    "cumsum": sorting.cumsum,
    "cumprod": sorting.cumprod,
    "argsort": sorting.argsort,
    "clip": manipulation.clip,
    "round": ufuncs.round,
    "take": take,
    "repeat": repeating.repeat,
    "swapaxes": manipulation.swapaxes,
    "copy": editing.copy,
    "dot": linalg_products.dot,
    "ptp": nan_reductions.ptp,
    "conj": getattr(math_ufuncs, "conj", None),
    "conjugate": getattr(math_ufuncs, "conjugate", None),
}


def install() -> None:
    table = {
        name: getattr(ufuncs, name)
        for name in (
            "add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power",
            "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "less",
            "less_equal", "greater", "greater_equal", "equal", "not_equal", "negative", "abs", "invert",
        )
    }  # fmt: skip
    table.update(
        matmul=linalg_products.matmul,
        transpose=_transpose,
        reshape=manipulation.reshape,
        squeeze=manipulation.squeeze,
        astype=_astype,
        asarray=asarray,
        sum=reductions.sum,
        mean=reductions.mean,
        max=reductions.max,
        min=reductions.min,
        prod=reductions.prod,
    )
    register_overloads(table)
    for name, fn in _METHODS.items():
        if fn is not None and name not in vars(Tensor):
            setattr(Tensor, name, _method(fn))
