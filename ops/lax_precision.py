"""The types jax.lax's precision and accuracy arguments take: DotAlgorithm, DotAlgorithmPreset,
AccuracyMode and Tolerance, and the check sg.lax's contractions run on ``precision=`` (ops layer).

They are requests to the compiler. XLA's CPU computes float32 and float64 contractions at full
precision and its elementwise functions at one accuracy whatever is asked (jax on the CPU gives
the same values for DEFAULT, F32_F32_F32 and BF16_BF16_F32, and ignores a Tolerance), so
stablegraph accepts them, checks they are well formed, and computes as jax's CPU does.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

import ml_dtypes
import numpy as np

from ..graph import GraphError, located, user_location

__all__ = [
    "AccuracyMode",
    "DotAlgorithm",
    "DotAlgorithmPreset",
    "Tolerance",
    "check_precision",
    "check_accuracy",
]


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


class AccuracyMode(enum.Enum):
    """How accurately a transcendental function is asked to compute, as jax.lax.AccuracyMode."""

    HIGHEST = 1
    DEFAULT = 2


class Tolerance:
    """An accuracy a transcendental function is asked to meet (absolute, relative, in units in
    the last place), as jax.lax.Tolerance; passed as ``accuracy=`` to sg.lax.exp, sin, ..."""

    __slots__ = ("atol", "rtol", "ulps")

    def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0):
        if atol < 0 or rtol < 0 or ulps < 0:
            raise _error(f"Tolerance wants atol, rtol and ulps >= 0, got {atol}, {rtol}, {ulps}")
        self.atol, self.rtol, self.ulps = float(atol), float(rtol), int(ulps)

    def __repr__(self) -> str:
        return f"Tolerance(atol={self.atol}, rtol={self.rtol}, ulps={self.ulps})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Tolerance) and (self.atol, self.rtol, self.ulps) == (
            other.atol,
            other.rtol,
            other.ulps,
        )

    def __hash__(self) -> int:
        return hash((self.atol, self.rtol, self.ulps))


class DotAlgorithm(NamedTuple):
    """An explicit algorithm for a dot product (operand and accumulation types, how many
    components each operand is split into, how many products are summed), as
    jax.lax.DotAlgorithm; pass it as ``precision=``."""

    lhs_precision_type: object
    rhs_precision_type: object
    accumulation_type: object
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


_F8 = ("float8_e4m3fn", "float8_e5m2", "float8_e5m2fnuz", "float8_e4m3fnuz", "float8_e4m3b11fnuz")
_ANY_F8_OUT = ("float32", "float16", "bfloat16", *_F8)
# name -> (lhs types, rhs types, accumulation type, output types); None: any
_PRESETS = {
    "DEFAULT": (None, None, None, None),
    "ANY_F8_ANY_F8_F32": (None, None, "float32", _ANY_F8_OUT),
    "ANY_F8_ANY_F8_F32_FAST_ACCUM": (None, None, "float32", _ANY_F8_OUT),
    "ANY_F8_ANY_F8_ANY": (None, None, None, None),
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM": (None, None, None, None),
    "F16_F16_F16": (("float16",), ("float16",), "float16", ("float16",)),
    "F16_F16_F32": (("float16",), ("float16",), "float32", ("float32",)),
    "BF16_BF16_BF16": (("bfloat16", "float32"), ("bfloat16", "float32"), "bfloat16", ("bfloat16",)),
    "BF16_BF16_F32": (("bfloat16", "float32"), ("bfloat16", "float32"), "float32", ("float32",)),
    "BF16_BF16_F32_X3": (("float32",), ("float32",), "float32", ("float32",)),
    "BF16_BF16_F32_X6": (("float32",), ("float32",), "float32", ("float32",)),
    "BF16_BF16_F32_X9": (("float32",), ("float32",), "float32", ("float32",)),
    "TF32_TF32_F32": (("float32",), ("float32",), "float32", ("float32",)),
    "TF32_TF32_F32_X3": (("float32",), ("float32",), "float32", ("float32",)),
    "F32_F32_F32": (("float32",), ("float32",), "float32", ("float32",)),
    "F64_F64_F64": (("float64",), ("float64",), "float64", ("float64",)),
}


def _np_types(names):
    return None if names is None else tuple(np.dtype(getattr(ml_dtypes, n, n)).type for n in names)


class DotAlgorithmPreset(enum.Enum):
    """The named dot algorithms (``LHS_RHS_ACCUMULATION``), as jax.lax.DotAlgorithmPreset; pass
    one (or its name) as ``precision=``."""

    DEFAULT = 1
    ANY_F8_ANY_F8_F32 = 2
    ANY_F8_ANY_F8_F32_FAST_ACCUM = 3
    ANY_F8_ANY_F8_ANY = 4
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = 5
    F16_F16_F16 = 6
    F16_F16_F32 = 7
    BF16_BF16_BF16 = 8
    BF16_BF16_F32 = 9
    BF16_BF16_F32_X3 = 10
    BF16_BF16_F32_X6 = 11
    BF16_BF16_F32_X9 = 12
    TF32_TF32_F32 = 13
    TF32_TF32_F32_X3 = 14
    F32_F32_F32 = 15
    F64_F64_F64 = 16

    def __str__(self) -> str:
        return self.name

    @property
    def supported_lhs_types(self):
        return _np_types(_PRESETS[self.name][0])

    @property
    def supported_rhs_types(self):
        return _np_types(_PRESETS[self.name][1])

    @property
    def accumulation_type(self):
        acc = _PRESETS[self.name][2]
        return None if acc is None else _np_types((acc,))[0]

    def supported_output_types(self, lhs_dtype, rhs_dtype):
        """The output dtypes this algorithm can give for operands of these dtypes (None: any)."""
        return _np_types(_PRESETS[self.name][3])


# the strings jax takes for a Precision (lower case; upper-case strings name DotAlgorithmPresets)
_PRECISION_STRINGS = {
    "default",
    "high",
    "highest",
    "fastest",
    "bfloat16",
    "bfloat16_3x",
    "tensorfloat32",
    "float32",
}


def check_precision(precision, who: str) -> None:
    """A GraphError at the user's line unless ``precision`` is one jax's contractions take: None, a
    Precision or its lower-case name, a pair of those, a DotAlgorithm, a DotAlgorithmPreset or its
    name."""
    if precision is None or isinstance(precision, DotAlgorithm | DotAlgorithmPreset):
        return
    if isinstance(precision, tuple | list) and len(precision) == 2:
        for p in precision:
            check_precision(p, who)
        return
    if isinstance(precision, str):
        if precision in _PRECISION_STRINGS or precision in DotAlgorithmPreset.__members__:
            return
    elif isinstance(precision, enum.Enum) and precision.name in ("DEFAULT", "HIGH", "HIGHEST"):
        return  # sg.lax.Precision (or jax's)
    raise _error(
        f"{who}: precision must be None, a Precision or its lower-case name, a pair of them, a DotAlgorithm or "
        f"a DotAlgorithmPreset (or its name), got {precision!r}"
    )


def check_accuracy(accuracy, who: str) -> None:
    """A GraphError at the user's line unless ``accuracy`` is None, a Tolerance or an AccuracyMode."""
    if accuracy is not None and not isinstance(accuracy, Tolerance | AccuracyMode):
        raise _error(f"{who}: accuracy must be None, a Tolerance or an AccuracyMode, got {accuracy!r}")
