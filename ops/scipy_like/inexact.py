"""The inexact dtype sg.scipy's array functions compute in (ops layer).

numpy's promotion of the arguments, then integers and bools as floats
(64-bit integers as float64, as an explicit 64-bit dtype is always honoured;
others as float32).
"""

from __future__ import annotations

from ...graph import dtypes
from ..numpy_like import asarray
from ..numpy_like.core import result_dtype


def inexact_dtype(*xs) -> dtypes.DType:
    """The common dtype of ``xs``, made floating if it is not inexact."""
    dt = result_dtype(*xs)
    if dt.is_inexact:
        return dt
    return dtypes.float64 if dt.bits == 64 else dtypes.float32


def as_inexact(*xs) -> list:
    """``xs`` as Tensors of their common inexact dtype (shapes as they are)."""
    dt = inexact_dtype(*xs)
    return [asarray(x, dt) for x in xs]


def real_dtype(dt: dtypes.DType) -> dtypes.DType:
    """The real dtype of an inexact one (float32 for complex64)."""
    if not dt.is_complex:
        return dt
    return dtypes.float64 if dt.name == "complex128" else dtypes.float32


def complex_dtype(dt: dtypes.DType) -> dtypes.DType:
    """The complex dtype of an inexact one (complex64 for float32 and bfloat16/float16)."""
    if dt.is_complex:
        return dt
    return dtypes.complex128 if dt.name == "float64" else dtypes.complex64


__all__ = ["as_inexact", "complex_dtype", "inexact_dtype", "real_dtype"]
