"""Attribute field types for ops' pydantic models, with their JSON forms (graph layer).

- ``DTypeAttr``: a DType, serialized by name;
- ``ShapeAttr``: a tuple of Dims (ints and symbol strings); fields holding a
  shape are named ``shape`` or ``*_shape`` so that symbol substitution finds them;
- ``ArrayAttr``: a numpy array, serialized as dtype, shape and base64 bytes
  (never pickled).
"""

from __future__ import annotations

import base64
from typing import Annotated

import numpy as np
from pydantic import PlainSerializer, PlainValidator

from .dims import Dim, check_shape
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


DTypeAttr = Annotated[DType, PlainValidator(dtype), PlainSerializer(lambda d: d.name)]
ShapeAttr = Annotated[tuple[Dim, ...], PlainValidator(lambda s: check_shape(tuple(s))), PlainSerializer(list)]
ArrayAttr = Annotated[np.ndarray, PlainValidator(_array_in), PlainSerializer(_array_out)]


def is_shape_field(name: str) -> bool:
    return name == "shape" or name.endswith("_shape")
