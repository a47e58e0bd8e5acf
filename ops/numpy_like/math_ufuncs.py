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
from ..custom_jvp import custom_jvp
from ..primitives import ad_util as ad
from ..primitives import complex_parts as cp
from ..primitives import elementwise as ew
from ..primitives import transcendental as tr
from ..primitives.compare import bitcast_convert, convert
from ..primitives.registry import bind
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
    logical_and,
    logical_or,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    power,
    signbit,
    subtract,
    true_divide,
    where,
)  # fmt: skip

_LN2 = math.log(2.0)
_INV_LN10 = 0.4342944819032518  # 1 / log(10), correctly rounded


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
    """Base-10 logarithm: log(x) times 1 / log(10) rounded to nearest (0.4342944819032518; Python's
    1 / math.log(10) is an ulp below it). Dividing by log(10) left log10(2.2e-308) an ulp off,
    which geomspace's 10 ** (y / 3) made 650 ulps."""
    return multiply(log(_as_float(x)), _INV_LN10)


def exp2(x):
    """2 ** x, as exp(x log 2)."""
    return exp(multiply(_as_float(x), _LN2))


def _log_add(x1, x2, power, log1p_of_power):
    """log_b(b**x1 + b**x2) without overflow, and its derivative as a custom jvp.

    The value is max + log_b(1 + b**-|x1 - x2|). Differentiating that formula
    would split a tie x1 == x2 as (1, 0) (abs and max pick a side), so the
    derivative is written out: d/dx_i = b**(x_i - out), which is (1/2, 1/2) at
    a tie, as in jax. An infinite x_i and out count as 0 there, so b**(inf - inf)
    is 1, not NaN.
    """

    def value(a, b):
        delta = subtract(a, b)
        tail = log1p_of_power(-absolute(delta))
        return where(isnan(delta), add(a, b), add(maximum(a, b), tail))  # inf - inf: equal infinities

    def slope(x, out):
        return power(subtract(_finite_or_zero(x), _finite_or_zero(out)))

    f = custom_jvp(value)

    @f.defjvp
    def _jvp(primals, tangents):
        (a, b), (ta, tb) = primals, tangents
        out = f(a, b)
        return out, add(multiply(ta, slope(a, out)), multiply(tb, slope(b, out)))

    return f(*_floats(x1, x2))


def _finite_or_zero(x):
    """x with +inf replaced by 0 (the derivative of log-add-exp takes inf - inf as 0)."""
    return where(equal(x, np.inf), asarray(0, x.dtype), x)


def logaddexp(x1, x2):
    """log(exp(x1) + exp(x2)) without overflow; its gradient at a tie is (1/2, 1/2)."""
    return _log_add(x1, x2, exp, lambda d: bind(ew.log1p, exp(d)))


def logaddexp2(x1, x2):
    """log2(2**x1 + 2**x2) without overflow; its gradient at a tie is (1/2, 1/2)."""
    return _log_add(x1, x2, exp2, lambda d: true_divide(bind(ew.log1p, exp2(d)), _LN2))


def _hypot_value(a, b):
    """m sqrt(1 + (n/m)**2), m = max(|a|, |b|): no overflow or underflow in the squares."""
    a, b = absolute(a), absolute(b)
    big, small = maximum(a, b), minimum(a, b)
    ratio = true_divide(small, where(equal(big, 0), 1, big))
    out = multiply(big, bind(ew.sqrt, add(1, multiply(ratio, ratio))))
    return where(logical_or(isinf(a), isinf(b)), np.inf, out)


def _hypot_unit(a, b):
    """(a, b) / hypot(a, b), scaled by max(|a|, |b|) first so that it neither overflows nor
    underflows; (0, 0) at the origin. The scaled parts are multiplied by an rsqrt rather than
    divided by a sqrt: XLA rewrites (a / m) / s as a / (m * s), and m * s overflows."""
    big = maximum(absolute(a), absolute(b))
    origin = equal(big, 0)
    safe = where(origin, 1, big)
    ra, rb = true_divide(a, safe), true_divide(b, safe)
    size2 = where(origin, 1, add(multiply(ra, ra), multiply(rb, rb)))
    inverse = bind(ew.rsqrt, size2)
    return tuple(where(origin, 0, multiply(r, inverse)) for r in (ra, rb))


def hypot(x1, x2):
    """sqrt(x1**2 + x2**2) without overflow or underflow: m sqrt(1 + (n/m)**2), m = max(|x1|, |x2|).

    The derivatives are written out (custom jvps): the gradient is the unit vector
    (x1, x2) / hypot, 0 at the origin (the gradient of a norm at 0, as snp.linalg.norm's), and
    the unit vector's own derivative is (I - u u^T) / hypot, so the Hessian has no cancellation.
    Differentiating the formula would go through max and min, which split a tie |x1| == |x2|
    half and half: right for the gradient's sum but not for the Hessian (jax's hypot has a zero
    Hessian there, and a gradient 3/2 too large at (a, a))."""
    f, unit = custom_jvp(_hypot_value), custom_jvp(_hypot_unit)

    @unit.defjvp
    def _unit_jvp(primals, tangents):
        (a, b), (ta, tb) = primals, tangents
        ua, ub = _hypot_unit(a, b)  # plain: their own derivatives would be the third order
        out = _hypot_value(a, b)
        safe = where(equal(out, 0), 1, out)
        across = subtract(multiply(ub, ta), multiply(ua, tb))  # the tangent across the unit vector
        return (ua, ub), (
            true_divide(multiply(ub, across), safe),
            true_divide(negative(multiply(ua, across)), safe),
        )

    @f.defjvp
    def _jvp(primals, tangents):
        (a, b), (ta, tb) = primals, tangents
        ua, ub = unit(a, b)  # custom: its jvp is the Hessian
        return _hypot_value(a, b), add(multiply(ta, ua), multiply(tb, ub))

    return f(*_floats(x1, x2))


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
    """The modified Bessel function I0: bessel_i0e(x) e^(|x|/2) e^(|x|/2); its derivative is I1.

    The derivative is given as I1 = bessel_i1e(x) e^|x| (a custom jvp): differentiating the
    product would put |x|'s kink into it, a slope of 1 at 0 where I0 is flat; I1 also carries
    the second derivative, I0''(0) = 1/2."""
    x = _as_float(x)

    def scaled(b, t):  # b(t) e^|t| as two halves, so a finite result near the overflow stays finite
        half = exp(multiply(absolute(t), 0.5))
        return multiply(multiply(bind(b, t), half), half)

    f = custom_jvp(lambda t: scaled(tr.bessel_i0e, t))

    @f.defjvp
    def _jvp(primals, tangents):
        (t,), (dt,) = primals, tangents
        return scaled(tr.bessel_i0e, t), multiply(dt, scaled(tr.bessel_i1e, t))

    return f(x)


_SINC_SERIES = 0.05  # |pi x| below this: the Maclaurin series to t**8, exact to float64


def sinc(x):
    """sin(pi x) / (pi x), 1 at 0.

    Near 0 (|pi x| < 0.05) the value is its Maclaurin series 1 - t**2/6 + ..., so every
    derivative at 0 is right too (the second is -pi**2/3), not that of a constant."""
    x = _as_float(x)
    t = multiply(x, math.pi)
    near = less(absolute(t), _SINC_SERIES)
    safe = where(near, 1, t)
    t2 = multiply(where(near, t, 0), where(near, t, 0))  # finite off its branch, so no 0 * inf there
    series = multiply(t2, 1 / 362880)  # Horner in t**2: 1 - t2/3! + t2**2/5! - t2**3/7! + t2**4/9!
    for c in (-1 / 5040, 1 / 120, -1 / 6):
        series = multiply(t2, add(series, c))
    series = add(series, 1)
    return where(near, series, true_divide(bind(ew.sin, safe), safe))


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
    """Elementwise maximum ignoring NaN (NaN only where both are); a tie gives x2, as numpy
    (fmax(0.0, -0.0) is -0.0) and jax (whose gradient at a tie goes to x2)."""
    a, b = promote(x1, x2)
    return where(logical_or(greater(a, b), isnan(b)), a, b)


def fmin(x1, x2):
    """Elementwise minimum ignoring NaN (NaN only where both are); a tie gives x2, as fmax."""
    a, b = promote(x1, x2)
    return where(logical_or(less(a, b), isnan(b)), a, b)


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
    """x1 * 2**x2 for integer x2, exact: three steps of powers of two within the normal exponents
    (enough to carry the largest float below the smallest subnormal). The exponent is clamped to
    that reach in its own dtype first, so a 64-bit exponent does not wrap."""
    x, e = _as_float(x1), asarray(x2)
    if not e.dtype.is_integer:
        raise error(f"ldexp wants integer exponents, got {e.type}")
    shape = broadcast_shapes(x.shape, e.shape)
    x, e = broadcast_to(x, shape), broadcast_to(e, shape)
    info = np.finfo(x.dtype.np)
    lo, hi = int(info.minexp), int(info.maxexp) - 1
    if e.dtype.bits < 32:
        e = convert(e, dtypes.int32)
    e = convert(maximum(minimum(e, asarray(3 * hi, e.dtype)), asarray(3 * lo, e.dtype)), dtypes.int32)
    for _ in range(3):
        step = maximum(minimum(e, hi), lo)
        x, e = multiply(x, _power_of_two(step, x.dtype)), subtract(e, step)
    return x


def _frexp_bits(x: Tensor) -> tuple[Tensor, Tensor]:
    """frexp's (mantissa, exponent) from the bits alone: no float operation touches x, so a
    subnormal is not flushed to zero (XLA on CPU flushes them) and comes out exact."""
    dt = x.dtype
    int_dt, width = _BITS[dt.bits]
    bits = bitcast_convert(x, int_dt)
    field_mask, frac_mask, sign_mask = (
        (1 << (dt.bits - width - 1)) - 1,
        (1 << width) - 1,
        -(1 << (dt.bits - 1)),
    )

    def const(v):
        return ad.full_like(bits, v)

    field = bind(ew.and_, bind(ew.shift_right_logical, bits, const(width)), const(field_mask))
    frac = bind(ew.and_, bits, const(frac_mask))
    subnormal = logical_and(equal(field, 0), not_equal(frac, 0))
    # a subnormal's leading 1 moves up to the implicit bit: shift + 1 places
    shift = subtract(bind(tr.clz, frac), dt.bits - width)
    normalized = bind(ew.and_, bind(ew.shift_left, frac, add(shift, 1)), const(frac_mask))
    exponent = where(subnormal, subtract(1 - _bias(dt), shift), subtract(field, _bias(dt) - 1))
    frac = where(subnormal, normalized, frac)
    half = bind(ew.or_, bind(ew.and_, bits, const(sign_mask)), const((_bias(dt) - 1) << width))
    m = bind(ew.or_, half, frac)
    zero = equal(bind(ew.and_, bits, const(~sign_mask)), 0)
    special = logical_or(zero, equal(field, field_mask))  # 0, inf and NaN give themselves
    return bitcast_convert(where(special, bits, m), dt), convert(where(special, 0, exponent), dtypes.int32)


def frexp(x):
    """(mantissa, exponent) with x = mantissa * 2**exponent and 0.5 <= |mantissa| < 1 (int32 exponent).

    0, inf and NaN give themselves and exponent 0, as numpy; subnormals are exact. The mantissa's
    derivative is 2**-exponent (a custom jvp: the bits have none)."""
    x = _as_float(x)
    mantissa = custom_jvp(lambda t: _frexp_bits(t)[0])

    @mantissa.defjvp
    def _jvp(primals, tangents):
        (t,), (dt,) = primals, tangents
        m, e = _frexp_bits(t)
        return m, ldexp(dt, negative(e))

    return mantissa(x), _frexp_bits(x)[1]


__all__ = [
    "arcsin", "arccos", "arctan", "asin", "acos", "atan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh",
    "asinh", "acosh", "atanh", "log2", "log10", "exp2", "logaddexp", "logaddexp2", "hypot", "real", "imag",
    "conj", "conjugate", "angle", "i0", "sinc", "deg2rad", "rad2deg", "degrees", "radians", "copysign",
    "nextafter", "spacing", "frexp", "ldexp", "signbit", "heaviside", "fmax", "fmin", "float_power",
    "bitwise_count", "iscomplex", "isreal", "iscomplexobj", "isrealobj",
]  # fmt: skip
