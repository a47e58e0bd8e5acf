"""Installs Tensor's operators and methods (+, @, [], .sum(), ...) from sg.numpy (ops layer)."""

from __future__ import annotations

from ...graph import register_overloads
from . import linalg, manipulation, reductions, ufuncs
from .core import asarray


def _transpose(x, axes=None):
    return manipulation.transpose(x, axes or None)


def _astype(x, dtype):
    return asarray(x, dtype)


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
        matmul=linalg.matmul,
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
