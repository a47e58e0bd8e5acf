"""The typed attributes of an XLA FFI call: Python values in, MLIR attributes out (ops layer).

A kernel declares each attribute's C++ type (``.Attr<float>("eps")``) and XLA
checks the attribute it gets against it, so the width a value is passed with
matters. The rules, fixed when the node is built:

============================  ==========================  ===========================
Python value                  kind (MLIR attribute)        C++ type in the kernel
============================  ==========================  ===========================
``np.int8`` ... ``np.int64``  i8 ... i64                   ``int8_t`` ... ``int64_t``
``np.uint8`` ... ``np.uint64`` u8 ... u64                  ``uint8_t`` ... ``uint64_t``
``np.float16/32/64``          f16, f32, f64                (f16: no decoder) ``float``, ``double``
``int`` (Python)              i64                          ``int64_t``
``float`` (Python)            f64                          ``double``
``bool``, ``np.bool_``        bool                         ``bool``
``str``                       str                          ``std::string_view``
1-d numpy array of the above  array (its dtype's kind)     ``ffi::Span<const T>``
numbers (not bool, not f16)
a dtype (``np.float32``,      dtype: XLA's element-type    ``int32_t`` (cast to
``np.dtype``, ``sg.float32``) number as i32, see below     ``ffi::DataType``)
============================  ==========================  ===========================

XLA element-type numbers (``xla::PrimitiveType``, equal to ``ffi::DataType``):
bool 1, int8 2, int16 3, int32 4, int64 5, uint8 6, uint16 7, uint32 8, uint64 9,
float16 10, float32 11, float64 12, complex64 15, bfloat16 16, complex128 18,
float8_e5m2 19, float8_e4m3fn 20, float8_e5m2fnuz 24, float8_e4m3fnuz 25.
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import ConfigDict, field_serializer, model_validator

from ...graph import GraphError, dtypes, located
from ...graph.internal_model import InternalModel
from .hlo import ir

ELEMENT_TYPES = {
    "bool": 1, "int8": 2, "int16": 3, "int32": 4, "int64": 5, "uint8": 6, "uint16": 7, "uint32": 8,
    "uint64": 9, "float16": 10, "float32": 11, "float64": 12, "complex64": 15, "bfloat16": 16,
    "complex128": 18, "float8_e5m2": 19, "float8_e4m3fn": 20, "float8_e5m2fnuz": 24, "float8_e4m3fnuz": 25,
}  # fmt: skip

_NUMBER_KINDS = {
    np.dtype(t): k
    for t, k in [
        (np.int8, "i8"), (np.int16, "i16"), (np.int32, "i32"), (np.int64, "i64"),
        (np.uint8, "u8"), (np.uint16, "u16"), (np.uint32, "u32"), (np.uint64, "u64"),
        (np.float16, "f16"), (np.float32, "f32"), (np.float64, "f64"),
    ]
}  # fmt: skip


class FfiAttribute(InternalModel):
    """One named attribute of an FFI call: its kind (``i32``, ``f64``, ``bool``, ``str``,
    ``dtype``, ``array:<kind>``) and its value (a number, a string, or a tuple of numbers)."""

    model_config = ConfigDict(frozen=True, defer_build=True)  # built at its first use, not at import

    name: str
    kind: str
    value: bool | int | float | str | tuple[int, ...] | tuple[float, ...]

    def __str__(self) -> str:  # how graph listings show it
        return f"{self.name}: {self.kind} = {self.value!r}"

    # JSON has no inf or nan: a float attribute's non-finite values travel as "inf", "-inf", "nan"
    @field_serializer("value", when_used="json")
    def _json_value(self, value):
        if isinstance(value, tuple):
            return [_json_float(v) for v in value]
        return _json_float(value)

    @model_validator(mode="before")
    @classmethod
    def _floats_from_json(cls, data):
        if isinstance(data, dict) and str(data.get("kind", "")).split(":")[-1].startswith("f"):
            value = data.get("value")
            data = {
                **data,
                "value": tuple(map(float, value)) if isinstance(value, list | tuple) else float(value),
            }
        return data


def _json_float(v):
    return repr(v) if isinstance(v, float) and not math.isfinite(v) else v


def encode(attributes: dict, location) -> tuple[FfiAttribute, ...]:
    """The FfiAttributes of ``attributes`` (keyword arguments of sg.ffi_call), sorted by name;
    a value of no supported type is a GraphError at ``location``."""
    return tuple(_one(name, value, location) for name, value in sorted(attributes.items()))


def _one(name: str, value, location) -> FfiAttribute:
    if isinstance(value, bool | np.bool_):
        return FfiAttribute(name=name, kind="bool", value=bool(value))
    if isinstance(value, np.generic) and value.dtype in _NUMBER_KINDS:
        kind = _NUMBER_KINDS[value.dtype]
        return FfiAttribute(name=name, kind=kind, value=value.item())
    if isinstance(value, int):
        if not -(2**63) <= value < 2**63:
            raise GraphError(
                located(f"sg.ffi_call: attribute {name}={value} does not fit an int64", location)
            )
        return FfiAttribute(name=name, kind="i64", value=value)
    if isinstance(value, float):
        return FfiAttribute(name=name, kind="f64", value=value)
    if isinstance(value, str):
        return FfiAttribute(name=name, kind="str", value=value)
    if isinstance(value, np.ndarray):
        return _array(name, value, location)
    element = _element_type(value)
    if element is not None:
        return FfiAttribute(name=name, kind="dtype", value=element)
    raise GraphError(located(
        f"sg.ffi_call: attribute {name} is {type(value).__name__} {value!r}; an FFI attribute is a numpy "
        "scalar, a Python int, float or bool, a str, a 1-d numpy array of numbers, or a dtype",
        location,
    ))  # fmt: skip


def _array(name: str, value: np.ndarray, location) -> FfiAttribute:
    kind = _NUMBER_KINDS.get(value.dtype)
    if value.ndim != 1 or kind is None or kind == "f16":
        raise GraphError(located(
            f"sg.ffi_call: attribute {name} is an array of shape {value.shape} and dtype {value.dtype}; "
            "XLA's FFI takes 1-d arrays of int8-64, uint8-64, float32 or float64",
            location,
        ))  # fmt: skip
    return FfiAttribute(name=name, kind=f"array:{kind}", value=tuple(value.tolist()))


def _element_type(value) -> int | None:
    """XLA's element-type number of a dtype-like value, or None if it names no dtype."""
    if not isinstance(value, np.dtype | dtypes.DType | type):
        return None
    try:
        dt = dtypes.dtype(value)
    except (GraphError, TypeError, ValueError):
        return None
    return ELEMENT_TYPES.get(dt.name)


# -- MLIR ---------------------------------------------------------------------------------------
def _integer_type(kind: str) -> ir.Type:
    bits = int(kind[1:])
    return ir.IntegerType.get_unsigned(bits) if kind[0] == "u" else ir.IntegerType.get_signless(bits)


def _float_type(kind: str) -> ir.Type:
    return {"f16": ir.F16Type, "f32": ir.F32Type, "f64": ir.F64Type}[kind].get()


def _scalar(kind: str, value) -> ir.Attribute:
    if kind[0] in "iu":
        value = int(value)
        if value >= 2**63:  # the binding takes an int64: a uint64's top half as its two's complement
            value -= 2**64
        return ir.IntegerAttr.get(_integer_type(kind), value)
    return ir.FloatAttr.get(_float_type(kind), float(value))


def mlir_attribute(attribute: FfiAttribute) -> ir.Attribute:
    """The MLIR attribute XLA decodes as the attribute's C++ type (see the module's table)."""
    kind, value = attribute.kind, attribute.value
    if kind == "bool":
        return ir.BoolAttr.get(bool(value))
    if kind == "str":
        return ir.StringAttr.get(value)
    if kind == "dtype":
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(value))
    if kind.startswith("array:"):
        element = kind.split(":", 1)[1]
        np_type = next(t for t, k in _NUMBER_KINDS.items() if k == element)
        array = np.asarray(value, dtype=np_type)
        shaped = ir.RankedTensorType.get([len(array)], _integer_type(element) if element[0] in "iu"
                                         else _float_type(element))  # fmt: skip
        return ir.DenseElementsAttr.get(array, type=shaped.element_type, shape=[len(array)])
    return _scalar(kind, value)


def backend_config(attributes) -> ir.DictAttr:
    """The custom call's ``backend_config``: every attribute by name (typed FFI's form)."""
    return ir.DictAttr.get({a.name: mlir_attribute(a) for a in attributes})


__all__ = ["ELEMENT_TYPES", "FfiAttribute", "backend_config", "encode", "mlir_attribute"]
