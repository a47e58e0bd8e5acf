"""numpy ufuncs over the inverse-trig, hyperbolic, complex and special-math primitives (ops layer).

numpy's names (and the array API's asin, acos, ...) for the primitives of
ops/transcendental.py and ops/complex_parts.py, plus the numpy functions
composed of them: log2, exp2, logaddexp, hypot, angle, sinc, copysign,
frexp, ldexp, fmax, ... Each promotes and broadcasts like the basic ufuncs
(ufuncs.py); float-only functions turn integer input into float32 (float64
for 64-bit integers) first. real, imag and conj accept real input as numpy
does (real input is its own real part and conjugate; its imaginary part is 0).
"""

from __future__ import annotations

import math

import numpy as np

from ...graph import Tensor, dtypes
from .. import ad_util as ad
from .. import complex_parts as cp
from .. import elementwise as ew
from .. import transcendental as tr
from ..compare import bitcast_convert, convert
from ..registry import bind
from .core import asarray, broadcast_shapes, broadcast_to, error, promote, result_dtype
from .ufuncs import (
    absolute,
    add,
    equal,
    exp,
    greater,
    isinf,
    isnan,
    less,
    log,
    logical_or,
    maximum,
    minimum,
    multiply,
    not_equal,
    power,
    subtract,
    true_divide,
    where,
)  # fmt: skip

_LN2 = math.log(2.0)


def _float_dtype(dt: dtypes.DType) -> dtypes.DType:
    if dt.is_inexact:
        return dt
    return dtypes.float64 if dt.bits == 64 else dtypes.float32


def _as_float(x) -> Tensor:
    x = asarray(x)
    return convert(x, _float_dtype(x.dtype))


def _floats(x, y) -> list[Tensor]:
    return promote(x, y, dtype=_float_dtype(result_dtype(x, y)))


def _unary_float(op, name: str):
    def fn(x):
        return bind(op, _as_float(x))

    fn.__name__ = name
    fn.__doc__ = f"Elementwise {op.doc}; integer input becomes float first."
    return fn


arcsin = asin = _unary_float(tr.asin, "arcsin")
arccos = acos = _unary_float(tr.acos, "arccos")
arctan = atan = _unary_float(tr.atan, "arctan")
sinh = _unary_float(tr.sinh, "sinh")
cosh = _unary_float(tr.cosh, "cosh")
arcsinh = asinh = _unary_float(tr.asinh, "arcsinh")
arccosh = acosh = _unary_float(tr.acosh, "arccosh")
arctanh = atanh = _unary_float(tr.atanh, "arctanh")


def log2(x):
    """Base-2 logarithm: log(x) / log(2)."""
    return true_divide(log(_as_float(x)), _LN2)


def log10(x):
    """Base-10 logarithm: log(x) / log(10)."""
    return true_divide(log(_as_float(x)), math.log(10.0))


def exp2(x):
    """2 ** x, as exp(x log 2)."""
    return exp(multiply(_as_float(x), _LN2))


def logaddexp(x1, x2):
    """log(exp(x1) + exp(x2)) without overflow: max + log1p(exp(-|x1 - x2|))."""
    a, b = _floats(x1, x2)
    delta = subtract(a, b)
    tail = bind(ew.log1p, exp(-absolute(delta)))
    return where(isnan(delta), add(a, b), add(maximum(a, b), tail))  # inf - inf: equal infinities


def logaddexp2(x1, x2):
    """log2(2**x1 + 2**x2) without overflow."""
    a, b = _floats(x1, x2)
    delta = subtract(a, b)
    tail = true_divide(bind(ew.log1p, exp2(-absolute(delta))), _LN2)
    return where(isnan(delta), add(a, b), add(maximum(a, b), tail))


def hypot(x1, x2):
    """sqrt(x1**2 + x2**2) without overflow or underflow: m sqrt(1 + (n/m)**2), m = max(|x1|, |x2|)."""
    a, b = (absolute(t) for t in _floats(x1, x2))
    big, small = maximum(a, b), minimum(a, b)
    safe = where(equal(big, 0), 1, big)
    ratio = true_divide(small, safe)
    out = multiply(big, bind(ew.sqrt, add(1, multiply(ratio, ratio))))
    return where(logical_or(isinf(a), isinf(b)), np.inf, out)


# -- complex parts -------------------------------------------------------------
def real(val):
    """The real part (real input is returned as it is)."""
    x = asarray(val)
    return cp.real(x) if x.dtype.is_complex else x


def imag(val):
    """The imaginary part (zeros for real input)."""
    x = asarray(val)
    return cp.imag(x) if x.dtype.is_complex else ad.zeros_like(x)


def conjugate(x):
    """The complex conjugate (real input is returned as it is)."""
    x = asarray(x)
    return cp.conj(x) if x.dtype.is_complex else x


conj = conjugate


def angle(z, deg: bool = False):
    """The argument of z (atan2(imag, real)), in radians or, with ``deg``, degrees."""
    x = asarray(z)
    if x.dtype.is_complex:
        re, im = cp.real(x), cp.imag(x)
    else:
        re = _as_float(x)
        im = ad.zeros_like(re)  # +0: numpy's angle of -0.0 is pi
    out = bind(ew.atan2, im, re)
    return multiply(out, 180 / math.pi) if deg else out


def iscomplex(x):
    """True where the imaginary part is nonzero."""
    return not_equal(imag(x), 0)


def isreal(x):
    """True where the imaginary part is zero."""
    return equal(imag(x), 0)


def iscomplexobj(x) -> bool:
    """Whether x has a complex dtype (a Python bool, decided at build time)."""
    if isinstance(x, Tensor):
        return x.dtype.is_complex
    return bool(np.iscomplexobj(x))


def isrealobj(x) -> bool:
    return not iscomplexobj(x)


# -- special values ------------------------------------------------------------
def i0(x):
    """The modified Bessel function I0: bessel_i0e(x) e^|x|."""
    x = _as_float(x)
    return multiply(bind(tr.bessel_i0e, x), exp(absolute(x)))


def sinc(x):
    """sin(pi x) / (pi x), 1 at 0."""
    x = _as_float(x)
    at_zero = equal(x, 0)
    t = multiply(where(at_zero, 1, x), math.pi)
    return where(at_zero, 1, true_divide(bind(ew.sin, t), t))


def deg2rad(x):
    return multiply(_as_float(x), math.pi / 180)


def rad2deg(x):
    return multiply(_as_float(x), 180 / math.pi)


radians, degrees = deg2rad, rad2deg


def heaviside(x1, x2):
    """0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0 (NaN stays NaN)."""
    a, b = _floats(x1, x2)
    return where(less(a, 0), 0, where(greater(a, 0), 1, where(isnan(a), a, b)))


def fmax(x1, x2):
    """Elementwise maximum ignoring NaN (NaN only where both are)."""
    a, b = promote(x1, x2)
    return where(isnan(b), a, where(isnan(a), b, maximum(a, b)))


def fmin(x1, x2):
    """Elementwise minimum ignoring NaN (NaN only where both are)."""
    a, b = promote(x1, x2)
    return where(isnan(b), a, where(isnan(a), b, minimum(a, b)))


def float_power(x1, x2):
    """x1 ** x2 computed in float64 (complex128 for complex input), as numpy does."""
    dt = dtypes.complex128 if result_dtype(x1, x2).is_complex else dtypes.float64
    a, b = promote(x1, x2, dtype=dt)
    return power(a, b)


def nextafter(x1, x2):
    """The next representable float after x1 toward x2."""
    a, b = _floats(x1, x2)
    return bind(tr.nextafter, a, b)


def spacing(x):
    """The distance from x to the next float away from zero (negative for negative x)."""
    x = _as_float(x)
    away = where(less(x, 0), -np.inf, np.inf)
    return subtract(nextafter(x, away), x)


def bitwise_count(x):
    """The number of 1 bits of |x| (uint8, as numpy)."""
    x = asarray(x)
    if x.dtype.kind not in "iu":
        raise error(f"bitwise_count wants an integer array, got {x.type}")
    if x.dtype.kind == "i":
        x = absolute(x)
    return convert(bind(tr.population_count, x), dtypes.uint8)


# -- float bits ----------------------------------------------------------------
_BITS = {16: (dtypes.int16, 10), 32: (dtypes.int32, 23), 64: (dtypes.int64, 52)}  # int type, mantissa bits


def signbit(x):
    """True where the sign bit is set (also -0.0 and negative NaN)."""
    x = asarray(x)
    if x.dtype.kind == "b" or x.dtype.kind == "u":
        return not_equal(x, x)
    if x.dtype.kind == "i":
        return less(x, 0)
    int_dt, _ = _BITS[x.dtype.bits]
    return less(bitcast_convert(x, int_dt), 0)


def copysign(x1, x2):
    """|x1| with the sign of x2."""
    a, b = _floats(x1, x2)
    return where(signbit(b), -absolute(a), absolute(a))


def _power_of_two(k: Tensor, dt: dtypes.DType) -> Tensor:
    """2**k as floats of ``dt``, exactly, for integers k within the normal exponents: the bits
    of the biased exponent field."""
    int_dt, mantissa = _BITS[dt.bits]
    biased = convert(add(k, _bias(dt)), int_dt)
    return bitcast_convert(bind(ew.shift_left, biased, ad.full_like(biased, mantissa)), dt)


def _bias(dt: dtypes.DType) -> int:
    return 2 ** (dt.bits - _BITS[dt.bits][1] - 2) - 1


def ldexp(x1, x2):
    """x1 * 2**x2 for integer x2, exact: two steps of powers of two within the normal exponents."""
    x, e = _as_float(x1), asarray(x2)
    if not e.dtype.is_integer:
        raise error(f"ldexp wants integer exponents, got {e.type}")
    shape = broadcast_shapes(x.shape, e.shape)
    x, e = broadcast_to(x, shape), broadcast_to(convert(e, dtypes.int32), shape)
    info = np.finfo(x.dtype.np)
    lo, hi = int(info.minexp), int(info.maxexp) - 1
    first = maximum(minimum(e, hi), lo)
    rest = maximum(minimum(subtract(e, first), hi), lo)
    return multiply(multiply(x, _power_of_two(first, x.dtype)), _power_of_two(rest, x.dtype))


def frexp(x):
    """(mantissa, exponent) with x = mantissa * 2**exponent and 0.5 <= |mantissa| < 1 (int32 exponent).

    0, inf and NaN give themselves and exponent 0, as numpy."""
    x = _as_float(x)
    dt = x.dtype
    int_dt, mantissa = _BITS[dt.bits]
    subnormal = less(absolute(x), float(np.finfo(dt.np).tiny))
    boost = mantissa + 1  # scales subnormals into the normal range
    bits = bitcast_convert(where(subnormal, multiply(x, float(2.0**boost)), x), int_dt)
    field_mask = (1 << (dt.bits - mantissa - 1)) - 1
    shifted = bind(ew.shift_right_logical, bits, ad.full_like(bits, mantissa))
    exponent = subtract(bind(ew.and_, shifted, ad.full_like(bits, field_mask)), _bias(dt) - 1)
    exponent = where(subnormal, subtract(exponent, boost), exponent)
    cleared = bind(ew.and_, bits, ad.full_like(bits, ~(field_mask << mantissa)))
    m = bitcast_convert(bind(ew.or_, cleared, ad.full_like(bits, (_bias(dt) - 1) << mantissa)), dt)
    special = logical_or(logical_or(equal(x, 0), isinf(x)), isnan(x))
    return where(special, x, m), convert(where(special, 0, exponent), dtypes.int32)


__all__ = [
    "arcsin", "arccos", "arctan", "asin", "acos", "atan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh",
    "asinh", "acosh", "atanh", "log2", "log10", "exp2", "logaddexp", "logaddexp2", "hypot", "real", "imag",
    "conj", "conjugate", "angle", "i0", "sinc", "deg2rad", "rad2deg", "degrees", "radians", "copysign",
    "nextafter", "spacing", "frexp", "ldexp", "signbit", "heaviside", "fmax", "fmin", "float_power",
    "bitwise_count", "iscomplex", "isreal", "iscomplexobj", "isrealobj",
]  # fmt: skip
