"""Element types and the one type-promotion lattice (graph layer).

A DType names an element type and knows its numpy dtype (ml_dtypes supplies
bfloat16 and the float8 family). Promotion follows a lattice rather than
numpy's value-based table, so the result of mixing two types is the least
upper bound of both in the graph below. Python scalars are *weak*: they take
the type of the tensor they meet as long as that type is of the same kind or
wider (``f16_tensor * 2.0`` stays float16). No global x64 switch exists:
64-bit types are honoured whenever asked for; Python floats default to
float32 and Python ints to int32.

The lattice, as edges "a -> b" meaning b can hold every value of a::

    bool -> weak_int -> {uint8, int8}
    uint8 -> {uint16, int16}   uint16 -> {uint32, int32}   uint32 -> {uint64, int64}
    int8 -> int16 -> int32 -> int64 -> weak_float
    uint64 -> weak_float
    weak_float -> {float16, bfloat16, float8_*} ; float16, bfloat16 -> float32
    float8_* -> {float16, bfloat16}
    float32 -> float64 ; weak_float -> weak_complex -> complex64 -> complex128
    float32 -> complex64 ; float64 -> complex128

Resulting table for common pairs (row op column):

    ==========  ======  =====  =====  =======  =======  =======
                bool    i32    u32    f16      f32      f64
    ==========  ======  =====  =====  =======  =======  =======
    bool        bool    i32    u32    f16      f32      f64
    i32         i32     i32    i64    f16      f32      f64
    u32         u32     i64    u32    f16      f32      f64
    f16         f16     f16    f16    f16      f32      f64
    f32         f32     f32    f32    f32      f32      f64
    py int      i32     i32    u32    f16      f32      f64
    py float    f32     f32    f32    f16      f32      f64
    ==========  ======  =====  =====  =======  =======  =======
"""

from __future__ import annotations

import functools

import ml_dtypes
import numpy as np

from .errors import GraphError


class DType:
    """An element type: a short name plus the numpy dtype that holds it."""

    __slots__ = ("name", "np", "kind", "bits")

    def __init__(self, name: str, np_dtype, kind: str):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.kind = kind  # "b" bool, "i" signed, "u" unsigned, "f" float, "c" complex
        self.bits = self.np.itemsize * 8

    def __repr__(self) -> str:
        return f"sg.{self.name}"

    def __reduce__(self):
        return (dtype, (self.name,))

    def __call__(self, value):
        """numpy's (and jax.numpy's) scalar-type call, ``snp.float32(3.0)``: a Tensor becomes a Tensor
        of this dtype (``x.astype``); anything else becomes the numpy value numpy's own scalar type
        makes of it (a scalar, or an array for a list), which graphs take as a constant."""
        if hasattr(value, "astype") and hasattr(value, "graph"):
            return value.astype(self)
        return self.np.type(value)

    @property
    def dtype(self) -> np.dtype:
        """The numpy dtype, under the name numpy looks for: ``np.zeros(3, x.dtype)`` works."""
        return self.np

    @property
    def is_floating(self) -> bool:
        return self.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self.kind == "c"

    @property
    def is_integer(self) -> bool:
        return self.kind in "iu"

    @property
    def is_inexact(self) -> bool:
        return self.kind in "fc"

    @property
    def short(self) -> str:
        """Compact spelling used in listings: f32, i64, bf16, pred."""
        return _SHORT.get(self.name, self.name)


bool_ = DType("bool", np.bool_, "b")
int8 = DType("int8", np.int8, "i")
int16 = DType("int16", np.int16, "i")
int32 = DType("int32", np.int32, "i")
int64 = DType("int64", np.int64, "i")
uint8 = DType("uint8", np.uint8, "u")
uint16 = DType("uint16", np.uint16, "u")
uint32 = DType("uint32", np.uint32, "u")
uint64 = DType("uint64", np.uint64, "u")
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16, "f")
float16 = DType("float16", np.float16, "f")
float32 = DType("float32", np.float32, "f")
float64 = DType("float64", np.float64, "f")
complex64 = DType("complex64", np.complex64, "c")
complex128 = DType("complex128", np.complex128, "c")
_REAL_PARTS = {"complex64": float32, "complex128": float64}


def real_part(dt: DType) -> DType:
    """The dtype of a ``dt`` value's real part or magnitude: float32 for complex64, float64 for
    complex128, ``dt`` itself for the others."""
    return _REAL_PARTS.get(dt.name, dt)


float8_e4m3fn = DType("float8_e4m3fn", ml_dtypes.float8_e4m3fn, "f")
float8_e5m2 = DType("float8_e5m2", ml_dtypes.float8_e5m2, "f")
float8_e4m3fnuz = DType("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz, "f")
float8_e5m2fnuz = DType("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz, "f")

ALL_DTYPES = (
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    bfloat16, float16, float32, float64, complex64, complex128,
    float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz,
)  # fmt: skip
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME["bool_"] = bool_
_BY_NP = {d.np: d for d in ALL_DTYPES}
_SHORT = {
    "bool": "pred", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "bfloat16": "bf16", "float16": "f16", "float32": "f32", "float64": "f64",
    "complex64": "c64", "complex128": "c128",
}  # fmt: skip

# Weak lattice points stand for Python scalars of each kind.
WEAK_INT, WEAK_FLOAT, WEAK_COMPLEX = "weak_int", "weak_float", "weak_complex"
_FLOAT8 = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz)
_EDGES: dict[object, tuple] = {
    bool_: (WEAK_INT,),
    WEAK_INT: (uint8, int8),
    uint8: (uint16, int16),
    uint16: (uint32, int32),
    uint32: (uint64, int64),
    uint64: (WEAK_FLOAT,),
    int8: (int16,),
    int16: (int32,),
    int32: (int64,),
    int64: (WEAK_FLOAT,),
    WEAK_FLOAT: (float16, bfloat16, WEAK_COMPLEX) + _FLOAT8,
    **{f8: (float16, bfloat16) for f8 in _FLOAT8},
    float16: (float32,),
    bfloat16: (float32,),
    float32: (float64, complex64),
    float64: (complex128,),
    WEAK_COMPLEX: (complex64,),
    complex64: (complex128,),
    complex128: (),
}
_WEAK_DEFAULT = {WEAK_INT: int32, WEAK_FLOAT: float32, WEAK_COMPLEX: complex64}


@functools.cache
def _upper_set(t) -> frozenset:
    """Every lattice point reachable from t, t included."""
    out = {t}
    for nxt in _EDGES[t]:
        out |= _upper_set(nxt)
    return frozenset(out)


@functools.cache
def _join(a, b):
    common = _upper_set(a) & _upper_set(b)
    # The least upper bound is the common point every other common point is above.
    least = [c for c in common if common <= _upper_set(c)]
    if len(least) != 1:
        raise GraphError(f"no common type for {_point_name(a)} and {_point_name(b)}")
    return least[0]


def _point_name(p) -> str:
    return p if isinstance(p, str) else p.name


def weak_point(value) -> str | None:
    """The weak lattice point of a Python scalar, or None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return WEAK_INT
    if isinstance(value, float):
        return WEAK_FLOAT
    if isinstance(value, complex):
        return WEAK_COMPLEX
    return None


def result_type(*points) -> DType:
    """Promote DTypes and weak points (see weak_point) to one DType.

    A weak result takes its default (int32, float32, complex64), except that
    a float made necessary by a 64-bit integer (int64 with uint64, or int64
    with a Python float) is float64.
    """
    if not points:
        raise GraphError("result_type needs at least one type")
    acc = points[0]
    for p in points[1:]:
        acc = _join(acc, p)
    if not isinstance(acc, str):
        return acc
    if acc == WEAK_FLOAT and any(isinstance(p, DType) and p.is_integer and p.bits == 64 for p in points):
        return float64  # 64-bit integers only fit a 64-bit float
    return _WEAK_DEFAULT[acc]


def promote_types(a: DType, b: DType) -> DType:
    """The lattice join of two dtypes, e.g. promote_types(int32, float16) is float16."""
    return result_type(dtype(a), dtype(b))


_PYTHON_TYPES = {"bool": bool, "int": int, "float": float, "complex": complex}


def dtype(value) -> DType:
    """Normalize a DType, a name, a numpy dtype or a Python type to a DType.

    Python's types and their names ("float", "int", "complex") take the defaults of Python scalars
    (float32, int32, complex64), as jax does without x64 and as TF1 reads "float"; a numpy dtype
    (np.float64, "float64") is taken as it is."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    python_type = _PYTHON_TYPES.get(value) if isinstance(value, str) else value
    if python_type is bool:
        return bool_
    if python_type is int:
        return int32
    if python_type is float:  # TF1's "float" (tf.placeholder("float", ...)) is float32 too
        return float32
    if python_type is complex:
        return complex64
    try:
        npd = np.dtype(value)
    except TypeError:
        raise GraphError(f"not a dtype: {value!r}") from None
    if npd in _BY_NP:
        return _BY_NP[npd]
    raise GraphError(f"dtype {npd} is not supported by stablegraph")


def of_python_scalar(value) -> DType:
    """The default dtype of a Python scalar (bool, int32, float32, complex64)."""
    if isinstance(value, bool):
        return bool_
    return _WEAK_DEFAULT[weak_point(value)]


def canonical_array(value, dt: DType | None = None) -> np.ndarray:
    """A numpy array for constant data, with Python defaults (no silent x64).

    Python scalars and lists of them become int32/float32/complex64 unless a
    dtype is given; numpy data keeps its own dtype, 64-bit included.
    """
    if dt is not None:
        return np.asarray(value, dtype=dtype(dt).np)
    if isinstance(value, np.ndarray | np.generic):
        dtype(value.dtype)  # reject unsupported dtypes early
        return np.asarray(value)
    arr = np.asarray(value)
    if arr.dtype == np.int64:
        return arr.astype(np.int32) if _fits(arr, np.int32) else arr
    if arr.dtype == np.float64:
        return arr.astype(np.float32)
    if arr.dtype == np.complex128:
        return arr.astype(np.complex64)
    dtype(arr.dtype)
    return arr


def _fits(arr: np.ndarray, np_type) -> bool:
    info = np.iinfo(np_type)
    return arr.size == 0 or (arr.min() >= info.min and arr.max() <= info.max)
