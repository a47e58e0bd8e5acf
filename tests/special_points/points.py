"""The special points of each argument kind, per dtype family.

A signature is a tuple of argument kinds. Elementwise kinds ("x" float, "i" integer, "b" bool)
are crossed with each other: a function of one argument gets the kind's whole list, a function of
two gets every pair of a shorter list (so the ties are the diagonal), of three every triple of a
shorter one still; all arguments are flat arrays of the same length. Array kinds ("rows",
"irows", "brows", "mat", "vec", "empty", ...) are fixed arrays passed as they are: rows of
special patterns (ties, infinities, nan, +-0, overflow) that a function reduces along the last
axis, square matrices, and empty arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .parameters import PARAMETER_KINDS, parameter_points


@dataclass(frozen=True)
class Family:
    """The dtypes one sweep runs in: floats, and the integers that go with them."""

    name: str
    float: type
    int: type

    @property
    def x64(self) -> bool:
        return np.dtype(self.float).itemsize == 8


F32 = Family("float32", np.float32, np.int32)
F64 = Family("float64", np.float64, np.int64)
FAMILIES = (F32, F64)

# parameter kinds (parameters.py: "prob", "shape", "scale", ...) are elementwise too
ELEMENTWISE_KINDS = ("x", "i", "j", "b", *PARAMETER_KINDS)


def _signed(magnitudes, dtype) -> list:
    out = []
    for m in magnitudes:
        out += [m, -m]
    return [dtype(v) for v in out]


def flush_subnormals(a: np.ndarray, dtype) -> np.ndarray:
    """``a`` (float64) with the subnormals of ``dtype`` made zeros of their sign: what XLA on CPU
    computes with, so the float64 references see the same inputs."""
    tiny = np.finfo(dtype).tiny
    return np.where((np.abs(a) < tiny) & (a != 0), np.copysign(0.0, a), a)


def float_points(dtype, arity: int = 1) -> np.ndarray:
    """Special floats: the long list for one argument, shorter ones for pairs and triples."""
    fi = np.finfo(dtype)
    one_minus, one_plus = np.nextafter(dtype(1), dtype(0)), np.nextafter(dtype(1), dtype(2))
    tiny, sub, big = fi.tiny, fi.smallest_subnormal, fi.max
    if arity == 1:
        log_max = dtype(np.log(big))  # exp's overflow edge, and cosh's, sinh's
        log_sub = dtype(-np.log(sub))  # exp's underflow edge (as a negative point)
        magnitudes = [
            0.0, 1.0, 0.5, 2.0, 3.0, 1.5, 2.5, 0.1, 10.0, 100.0, 1e4, 1e8,
            np.pi / 2, np.pi, tiny, sub, big, fi.eps, one_minus, one_plus,
            log_max, np.nextafter(log_max, dtype(np.inf)), log_sub, np.sqrt(big), 1 / np.sqrt(fi.eps),
        ]  # fmt: skip
        extra = []
    elif arity == 2:
        magnitudes = [0.0, 1.0, 0.5, 2.0, 3.0, tiny, sub, big, one_plus]
        extra = []
    else:
        magnitudes = [1.0, 0.5, 2.0, tiny, big]
        extra = [0.0, -0.0]
    pts = (
        _signed(magnitudes, dtype)
        + [dtype(v) for v in extra]
        + [dtype(np.inf), dtype(-np.inf), dtype(np.nan)]
    )
    return np.array(pts, dtype)


def int_points(dtype, arity: int = 1, with_min: bool = True) -> np.ndarray:
    """Special integers: 0, +-1, small values, shift widths (31, 32, 33, 63, 64), the range ends.

    ``with_min=False`` (kind "j") leaves out the most negative integer, whose absolute value does
    not exist: jax's gcd and lcm loop forever on it."""
    ii = np.iinfo(dtype)
    if arity <= 2:
        pts = [
            0,
            1,
            -1,
            2,
            -2,
            3,
            -3,
            5,
            -5,
            7,
            12,
            -18,
            31,
            32,
            33,
            63,
            64,
            ii.max,
            ii.min,
            ii.max - 1,
            ii.min + 1,
        ]
    else:
        pts = [0, 1, -1, 2, -3, 31, ii.max, ii.min]
    return np.array([p for p in pts if with_min or p != ii.min], dtype)


def bool_points(arity: int = 1) -> np.ndarray:
    return np.array([False, True])


def elementwise(kinds: tuple[str, ...], family: Family) -> list[np.ndarray]:
    """Flat arrays of every combination of the kinds' points (the pairs of two kinds, ...)."""
    arity = len(kinds)
    lists = []
    for kind in kinds:
        if kind == "x":
            lists.append(float_points(family.float, arity))
        elif kind in ("i", "j"):
            lists.append(int_points(family.int, arity, with_min=kind == "i"))
        elif kind in PARAMETER_KINDS:
            lists.append(parameter_points(kind, family.float, family.int, arity))
        else:
            lists.append(bool_points(arity))
    grids = np.meshgrid(*lists, indexing="ij")
    return [g.reshape(-1) for g in grids]


def special_rows(dtype) -> np.ndarray:
    """Rows of 4 that a reduction along the last axis meets: ties, infinities, nan, +-0, overflow."""
    fi = np.finfo(dtype)
    inf, nan, big = np.inf, np.nan, fi.max
    rows = [
        [1, 2, 3, 4],
        [2, 2, 2, 2],  # all tied
        [3, 1, 3, 1],  # tied extremes
        [-1, -2, -1, -2],
        [0.0, -0.0, 0.0, -0.0],
        [-0.0, -0.0, -0.0, -0.0],
        [0.0, 1, 0.0, 2],
        [inf, 1, 2, 3],
        [-inf, 1, 2, 3],
        [inf, -inf, 1, 2],
        [inf, inf, 1, 2],
        [nan, 1, 2, 3],
        [1, nan, inf, 2],
        [big, big, 1, 1],  # the sum overflows
        [fi.tiny, fi.smallest_subnormal, 0.0, 1],
        [5, 5, -5, -5],
        [0.5, -1.5, 2.5, -0.5],
        [nan, nan, nan, nan],
    ]
    return np.array(rows, dtype)


def special_ints(dtype) -> np.ndarray:
    ii = np.iinfo(dtype)
    rows = [
        [1, 2, 3, 4],
        [2, 2, 2, 2],
        [3, 1, 3, 1],
        [0, -1, 0, -1],
        [ii.max, ii.max, 1, 1],
        [ii.min, -1, 5, 0],
    ]
    return np.array(rows, dtype)


def special_matrix(dtype) -> np.ndarray:
    """A batch of 3x3 matrices: the identity, a singular one, one with a zero pivot, one with inf."""
    eye = np.eye(3)
    singular = np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1]])
    pivot = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 2]])
    well = np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]])
    inf = np.array([[1, 0, 0], [0, np.inf, 0], [0, 0, 1]])
    return np.stack([eye, singular, pivot, well, inf]).astype(dtype)


def array_kind(kind: str, family: Family) -> np.ndarray:
    """The fixed array of an array kind."""
    f, i = family.float, family.int
    table = {
        "rows": lambda: special_rows(f),
        "irows": lambda: special_ints(i),
        "brows": lambda: np.array([[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 1]], bool),
        "vec": lambda: special_rows(f).reshape(-1),
        "mat": lambda: special_matrix(f),
        "empty": lambda: np.zeros((0,), f),
        "empty2": lambda: np.zeros((3, 0), f),
        "iempty": lambda: np.zeros((0,), i),
    }
    if kind not in table:
        raise KeyError(f"unknown argument kind {kind!r}: add it to points.array_kind")
    return table[kind]()


def is_float_kind(kind: str) -> bool:
    if kind in PARAMETER_KINDS:
        return PARAMETER_KINDS[kind].floating
    return kind in ("x", "rows", "vec", "mat", "empty", "empty2")
