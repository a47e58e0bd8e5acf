"""The argument promotion sg.scipy.special's functions share (ops layer): scipy's inexact result
dtype of the arguments (integers become float64 if 64-bit, else float32) and one broadcast shape."""

from __future__ import annotations

from ...graph import dtypes
from ..numpy_like.core import promote, result_dtype


def float_args(*xs):
    """The arguments as floats of one dtype (numpy's promotion) and one broadcast shape."""
    dt = result_dtype(*xs)
    if not dt.is_inexact:
        dt = dtypes.float64 if dt.bits == 64 else dtypes.float32
    return promote(*xs, dtype=dt)
