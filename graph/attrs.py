"""Attribute field types for ops' pydantic models, with their JSON forms (graph layer).

- ``DTypeAttr``: a DType, serialized by name;
- ``ShapeAttr``: a tuple of Dims (non-negative ints and dim expressions);
- ``DimsAttr``: a tuple of Dims that may be negative (offsets, pad widths);
- ``DimAttr``: one Dim (e.g. the size a ``dim_value`` node stands for);
  fields of these three types are where symbols live in attributes:
  ``dim_fields`` finds them for symbol substitution (graph.function);
- ``ArrayAttr``: a numpy array, serialized as dtype, shape and base64 bytes
  (never pickled).
"""

from __future__ import annotations

import base64
from functools import cache
from typing import Annotated

import numpy as np
from pydantic import PlainSerializer, PlainValidator

from .dims import Dim, as_dim, check_shape
from .dtypes import DType, dtype


def _array_in(v) -> np.ndarray:
    if isinstance(v, dict):
        raw = base64.b64decode(v["data"])
        dt = dtype(v["dtype"]).np
        return np.frombuffer(raw, dtype=dt).reshape(v["shape"]).copy()
    arr = np.asarray(v)
    arr.setflags(write=False)
    return arr


def _array_out(a: np.ndarray) -> dict:
    a = np.asarray(a, order="C")  # ascontiguousarray would turn a 0-d array into shape (1,)
    return {
        "dtype": dtype(a.dtype).name,
        "shape": list(a.shape),
        "data": base64.b64encode(a.tobytes()).decode("ascii"),
    }


class _HoldsDims:
    """Marks an attribute type whose values hold dims (found by ``dim_fields``)."""


HOLDS_DIMS = _HoldsDims()


def _dim_out(d):
    return d if isinstance(d, int) else str(d)


def _dims_out(dims) -> list:
    return [_dim_out(d) for d in dims]


DTypeAttr = Annotated[DType, PlainValidator(dtype), PlainSerializer(lambda d: d.name)]
ShapeAttr = Annotated[
    tuple[Dim, ...], PlainValidator(lambda s: check_shape(tuple(s))), PlainSerializer(_dims_out), HOLDS_DIMS
]
DimsAttr = Annotated[
    tuple[Dim, ...],
    PlainValidator(lambda s: tuple(as_dim(d) for d in s)),
    PlainSerializer(_dims_out),
    HOLDS_DIMS,
]
DimAttr = Annotated[Dim, PlainValidator(as_dim), PlainSerializer(_dim_out), HOLDS_DIMS]
ArrayAttr = Annotated[np.ndarray, PlainValidator(_array_in), PlainSerializer(_array_out)]


@cache
def dim_fields(attrs_cls) -> tuple[str, ...]:
    """The names of the fields of an Attrs model whose values hold dims."""
    return tuple(k for k, f in attrs_cls.model_fields.items() if any(m is HOLDS_DIMS for m in f.metadata))
