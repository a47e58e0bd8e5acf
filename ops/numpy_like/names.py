"""numpy's module-level names on sg.numpy: dtypes, constants, finfo/iinfo (ops layer).

So that numpy code ports by changing the import: ``snp.zeros(3, snp.float32)``,
``snp.pi``, ``x[:, snp.newaxis]``, ``snp.finfo(snp.float32).eps``.
"""

from __future__ import annotations

import math

import numpy as np

from ...graph import dtypes, promote_types, result_type
from ...graph.dtypes import (
    bfloat16,
    bool_,
    complex64,
    complex128,
    dtype,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)  # fmt: skip

# numpy's other spellings of the same element types (jax.numpy has them too)
bool = bool_  # noqa: A001
single, double, float_ = float32, float64, float64
csingle, cdouble, complex_ = complex64, complex128, complex128
int_, uint = int64, uint64
# numpy's abstract scalar classes, for snp.issubdtype(x.dtype, snp.floating): numpy's own, as in jax
generic, number, inexact, floating, complexfloating = (
    np.generic,
    np.number,
    np.inexact,
    np.floating,
    np.complexfloating,
)
integer, signedinteger, unsignedinteger = np.integer, np.signedinteger, np.unsignedinteger
flexible, character, object_ = np.flexible, np.character, np.object_

pi = math.pi
e = math.e
inf = math.inf
nan = math.nan
euler_gamma = float(np.euler_gamma)
newaxis = None


def finfo(dt) -> np.finfo:
    """numpy's finfo for a floating dtype (an sg dtype, a numpy dtype or a Tensor's dtype)."""
    return np.finfo(dtypes.dtype(dt).np)


def iinfo(dt) -> np.iinfo:
    """numpy's iinfo for an integer dtype."""
    return np.iinfo(dtypes.dtype(dt).np)


__all__ = [
    "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "bool", "single", "double", "float_", "csingle", "cdouble", "complex_", "int_", "uint", "generic", "number",
    "inexact", "floating", "complexfloating", "integer", "signedinteger", "unsignedinteger", "flexible",
    "character", "object_",
    "bfloat16", "bool_", "complex64", "complex128", "dtype", "e", "euler_gamma", "finfo", "float16", "float32",
    "float64", "iinfo", "inf", "int8", "int16", "int32", "int64", "nan", "newaxis", "pi", "promote_types",
    "result_type", "uint8", "uint16", "uint32", "uint64",
]  # fmt: skip
