"""More of numpy's elementwise functions, composed of the basic ufuncs (ops layer).

trunc, rint, fabs, positive, gcd, lcm, divmod, modf, isclose, allclose,
array_equal, array_equiv, isposinf, isneginf, nan_to_num, packbits,
unpackbits and the array-API aliases (pow, atan2, bitwise_invert, ...).
"""

from __future__ import annotations

import numpy as np

from ...graph import dtypes, function
from ..primitives.compare import convert
from ..primitives.registry import bind_node, lookup
from .core import asarray, broadcast_shapes, error, normalize_axis, promote, result_dtype
from .creation import zeros
from .manipulation import concatenate, expand_dims, moveaxis, ravel, reshape
from .math_ufuncs import imag, real
from .reductions import all as reduce_all
from .reductions import any as reduce_any
from .reductions import sum as reduce_sum
from .ufuncs import (
    abs,
    absolute,
    add,
    arctan2,
    bitwise_and,
    ceil,
    equal,
    floor,
    floor_divide,
    invert,
    isfinite,
    isnan,
    left_shift,
    less,
    less_equal,
    logical_and,
    logical_or,
    multiply,
    not_equal,
    power,
    remainder,
    right_shift,
    round,
    subtract,
    where,
)  # fmt: skip

pow = power  # noqa: A001
atan2 = arctan2
bitwise_invert = invert
bitwise_left_shift = left_shift
bitwise_right_shift = right_shift


def _float(dt: dtypes.DType) -> dtypes.DType:
    return dt if dt.is_inexact else (dtypes.float64 if dt.bits == 64 else dtypes.float32)


def trunc(x):
    """Round toward zero (integers pass through)."""
    x = asarray(x)
    if not x.dtype.is_floating:
        return x
    return where(less(x, 0), ceil(x), floor(x))


fix = trunc


def rint(x):
    """Round to the nearest integer, half to even; integers become floats like numpy."""
    x = asarray(x)
    return round(convert(x, _float(x.dtype)))


def fabs(x):
    """|x| as a float (numpy's fabs refuses complex)."""
    x = asarray(x)
    if x.dtype.is_complex:
        raise error(f"fabs is not defined for complex input, got {x.type}; use abs")
    return absolute(convert(x, _float(x.dtype)))


def positive(x):
    """+x: the same values."""
    return asarray(x)


def divmod(x, y):  # noqa: A001
    """(x // y, x % y) with numpy's signs."""
    return floor_divide(x, y), remainder(x, y)


def modf(x):
    """(fractional part, integral part), both with x's sign; integers become floats."""
    x = asarray(x)
    x = convert(x, _float(x.dtype))
    whole = trunc(x)
    zero = where(less(x, 0), asarray(-0.0, x.dtype), asarray(0.0, x.dtype))  # -inf: -0 fraction, as numpy
    frac = where(isfinite(x), subtract(x, whole), where(isnan(x), x, zero))
    return frac, whole


def _while(cond_fn, body_fn, init: list) -> list:
    """A stablehlo.while over ``init`` (bound by op name: the control family is a sibling)."""
    types = [t.type for t in init]
    cond = function(cond_fn, types, name="gcd_cond")
    body = function(lambda *c: list(body_fn(*c)), types, name="gcd_step")
    node = bind_node(lookup("while"), [*init, *cond.captures, *body.captures], cond_fn=cond, body_fn=body)
    return list(node.outputs)


def gcd(x1, x2):
    """Greatest common divisor of |x1| and |x2| (integers): Euclid's steps in one while loop,
    running until every element's remainder is 0."""
    a, b = promote(x1, x2)
    if not a.dtype.is_integer:
        raise error(f"gcd wants integer arrays, got {a.type} and {b.type}")

    def step(a, b):
        done = equal(b, 0)
        safe = where(done, asarray(1, b.dtype), b)
        return where(done, a, b), where(done, asarray(0, b.dtype), remainder(a, safe))

    return _while(lambda a, b: reduce_any(not_equal(b, 0)), step, [abs(a), abs(b)])[0]


def lcm(x1, x2):
    """Least common multiple of |x1| and |x2| (0 when either is 0)."""
    a, b = promote(x1, x2)
    g = gcd(a, b)
    zero = equal(g, 0)
    q = floor_divide(abs(a), where(zero, asarray(1, g.dtype), g))
    return where(zero, asarray(0, g.dtype), multiply(q, abs(b)))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    """|a - b| <= atol + rtol * |b| elementwise; infinities equal only themselves."""
    dt = result_dtype(a, b)
    x, y = promote(a, b, dtype=_float(dt) if not dt.is_inexact and dt.kind != "b" else dt)
    if not x.dtype.is_inexact:
        return equal(x, y)
    tol = asarray(atol, _real(x.dtype)) + multiply(asarray(rtol, _real(x.dtype)), absolute(y))
    close = less_equal(absolute(subtract(x, y)), tol)
    finite = logical_and(isfinite(x), isfinite(y))
    out = where(finite, close, equal(x, y))
    if equal_nan:
        out = logical_or(out, logical_and(isnan(x), isnan(y)))
    return out


def _real(dt: dtypes.DType) -> dtypes.DType:
    return {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}.get(dt, dt)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False):
    """True when every element pair isclose."""
    return reduce_all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan: bool = False):
    """True when the shapes match and every element is equal (a shape mismatch is a constant False)."""
    x, y = asarray(a1), asarray(a2)
    if tuple(x.shape) != tuple(y.shape):
        return asarray(False)
    same = equal(x, y)
    if equal_nan:
        same = logical_or(same, logical_and(isnan(x), isnan(y)))
    return reduce_all(same)


def array_equiv(a1, a2):
    """True when the arrays broadcast together and agree everywhere."""
    x, y = asarray(a1), asarray(a2)
    try:
        broadcast_shapes(x.shape, y.shape)
    except Exception:  # noqa: BLE001  (a GraphError: shapes that do not broadcast are not equivalent)
        return asarray(False)
    return reduce_all(equal(x, y))


def isposinf(x):
    """True where x is +inf."""
    x = asarray(x)
    return equal(x, np.inf) if x.dtype.is_floating else not_equal(x, x)


def isneginf(x):
    """True where x is -inf."""
    x = asarray(x)
    return equal(x, -np.inf) if x.dtype.is_floating else not_equal(x, x)


def nan_to_num(x, copy: bool = True, nan=0.0, posinf=None, neginf=None):
    """NaN to ``nan``, +inf to ``posinf`` and -inf to ``neginf`` (the dtype's largest and
    smallest finite values by default); complex numbers part by part."""
    x = asarray(x)
    if not x.dtype.is_inexact:
        return x
    if x.dtype.is_complex:  # each part on its own, as numpy does
        parts = [nan_to_num(p, nan=nan, posinf=posinf, neginf=neginf) for p in (real(x), imag(x))]
        return add(convert(parts[0], x.dtype), multiply(convert(parts[1], x.dtype), 1j))
    info = np.finfo(x.dtype.np)
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    out = where(isnan(x), asarray(nan, x.dtype), x)
    out = where(isposinf(x), asarray(hi, x.dtype), out)
    return where(isneginf(x), asarray(lo, x.dtype), out)


def _bit_weights(bitorder: str):
    if bitorder not in ("big", "little"):
        raise error(f"bitorder must be 'big' or 'little', got {bitorder!r}")
    shifts = np.arange(8)
    return shifts[::-1].copy() if bitorder == "big" else shifts


def packbits(a, axis=None, bitorder: str = "big"):
    """Pack the truth of each element into bits of uint8, 8 per byte along ``axis`` (zero-padded)."""
    x = asarray(a)
    if not (x.dtype.is_integer or x.dtype.kind == "b"):
        raise error(f"packbits wants integer or bool input, got {x.type}")
    if axis is None:
        x, axis = ravel(x), 0
    axis = normalize_axis(axis, x.ndim)
    bits = convert(not_equal(x, 0), dtypes.uint8)
    bits = moveaxis(bits, axis, -1)
    n = bits.shape[-1]
    if n % 8:
        pad_shape = (*bits.shape[:-1], 8 - n % 8)
        bits = concatenate([bits, zeros(pad_shape, dtypes.uint8)], -1)
    groups = reshape(bits, (*bits.shape[:-1], -1, 8))
    shifted = left_shift(groups, asarray(_bit_weights(bitorder), dtypes.uint8))
    packed = reduce_sum(shifted, axis=-1, dtype=dtypes.uint8)
    return moveaxis(packed, -1, axis)


def unpackbits(a, axis=None, count=None, bitorder: str = "big"):
    """The bits of uint8 ``a`` as uint8 0/1 values, 8 per byte along ``axis``; ``count`` keeps the
    first ``count`` bits (negative: drops from the end)."""
    x = asarray(a)
    if x.dtype is not dtypes.uint8:
        raise error(f"unpackbits wants uint8 input, got {x.type}")
    if axis is None:
        x, axis = ravel(x), 0
    axis = normalize_axis(axis, x.ndim)
    x = moveaxis(x, axis, -1)
    shifts = asarray(_bit_weights(bitorder), dtypes.uint8)
    bits = bitwise_and(right_shift(expand_dims(x, -1), shifts), asarray(1, dtypes.uint8))
    bits = reshape(bits, (*x.shape[:-1], -1))
    if count is not None:
        n = bits.shape[-1]
        keep = count if count >= 0 else max(n + count, 0)
        if keep <= n:
            bits = bits[..., :keep]
        else:
            bits = concatenate([bits, zeros((*bits.shape[:-1], keep - n), dtypes.uint8)], -1)
    return moveaxis(bits, -1, axis)


__all__ = [
    "allclose", "array_equal", "array_equiv", "atan2", "bitwise_invert", "bitwise_left_shift",
    "bitwise_right_shift", "divmod", "fabs", "fix", "gcd", "isclose", "isneginf", "isposinf", "lcm", "modf",
    "nan_to_num", "packbits", "positive", "pow", "rint", "trunc", "unpackbits",
]  # fmt: skip
