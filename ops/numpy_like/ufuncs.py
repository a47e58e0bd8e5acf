"""Elementwise math in numpy spelling, built on the elementwise primitives (ops layer).

Each function promotes its operands (lattice with weak Python scalars),
broadcasts them, and binds primitives. Functions that are float-only in
numpy's eyes (exp, sin, ...) turn integer inputs into float32 (float64 for
64-bit integers) first.
"""

from __future__ import annotations

import numpy as np

from ...graph import Tensor, dtypes
from ..primitives import elementwise as ew
from ..primitives.compare import bitcast_convert, compare, convert, select
from ..primitives.registry import bind
from .core import asarray, broadcast_shapes, broadcast_to, error, promote, result_dtype


def _float_dtype(dt: dtypes.DType) -> dtypes.DType:
    if dt.is_inexact:
        return dt
    return dtypes.float64 if dt.bits == 64 else dtypes.float32


def _unary_float(op):
    def fn(x):
        x = asarray(x)
        return bind(op, convert(x, _float_dtype(x.dtype)))

    fn.__name__ = op.name
    fn.__doc__ = f"Elementwise {op.doc or op.name}; integer input becomes float first."
    return fn


def _unary_same(op):
    def fn(x):
        return bind(op, asarray(x))

    fn.__name__ = op.name
    fn.__doc__ = f"Elementwise {op.doc or op.name}."
    return fn


def _binary(op, float_only: bool = False):
    def fn(x, y):
        dt = result_dtype(x, y)
        if float_only:
            dt = _float_dtype(dt)
        a, b = promote(x, y, dtype=dt)
        return bind(op, a, b)

    fn.__doc__ = f"Elementwise {op.doc or op.name}, with numpy broadcasting and promotion."
    return fn


exp = _unary_float(ew.exp)
expm1 = _unary_float(ew.expm1)
log = _unary_float(ew.log)
# XLA's own log1p, which jax's lax.log1p is: sg.random's samplers use it to keep jax's bits
xla_log1p = _unary_float(ew.log1p)


def log1p(x):
    """Elementwise log(1 + x), accurate for small x; integer input becomes float first.

    XLA's float64 log1p on the CPU is up to 127 ulps off on [-0.4143, -0.353] (jax's is the same
    op); there ``log(u) * x / (u - 1)`` with u = 1 + x takes u's rounding back (u - 1 is exact
    there), within 2 ulps. Elsewhere, and in float32, it is XLA's log1p."""
    y = xla_log1p(x)
    if y.dtype != dtypes.float64:
        return y
    x = convert(asarray(x), dtypes.float64)
    window = bitwise_and(greater_equal(x, -0.42), less_equal(x, -0.34))
    # the other branch's slope must see no 0 / 0 (select's slope multiplies it by 0)
    inside = select(window, x, broadcast_to(asarray(np.float64(-0.38)), x.shape))
    u = add(inside, 1.0)
    rounded_back = multiply(log(u), true_divide(inside, subtract(u, 1.0)))
    return select(window, rounded_back, y)


sqrt = _unary_float(ew.sqrt)
rsqrt = _unary_float(ew.rsqrt)
cbrt = _unary_float(ew.cbrt)
sin = _unary_float(ew.sin)
cos = _unary_float(ew.cos)
tan = _unary_float(ew.tan)
tanh = _unary_float(ew.tanh)
erf = _unary_float(ew.erf)
sigmoid = _unary_float(ew.logistic)
negative = _unary_same(ew.neg)
sign = _unary_same(ew.sign)

add = _binary(ew.add)
subtract = _binary(ew.sub)
multiply = _binary(ew.mul)
maximum = _binary(ew.max_)
minimum = _binary(ew.min_)
arctan2 = _binary(ew.atan2, float_only=True)
bitwise_and = _binary(ew.and_)
bitwise_or = _binary(ew.or_)
bitwise_xor = _binary(ew.xor)
for _f, _n in ((add, "add"), (subtract, "subtract"), (multiply, "multiply"), (maximum, "maximum"),
               (minimum, "minimum"), (arctan2, "arctan2"), (bitwise_and, "bitwise_and"),
               (bitwise_or, "bitwise_or"), (bitwise_xor, "bitwise_xor")):  # fmt: skip
    _f.__name__ = _n


def true_divide(x, y):
    """x / y; integers divide as floats (numpy semantics)."""
    a, b = promote(x, y, dtype=_float_dtype(result_dtype(x, y)))
    return bind(ew.div, a, b)


divide = true_divide


def _rounds_down(q_or_r, y):
    """Where a truncating op must step toward -inf: r != 0 and sign(r) != sign(y)."""
    zero = asarray(0, q_or_r.dtype)
    return logical_and(not_equal(q_or_r, zero), not_equal(less(q_or_r, zero), less(y, zero)))


def _nonzero_divisor(y, given):
    """An integer divisor with its zeros replaced by 1: x % 0 and fmod(x, 0) are then 0, as jax
    defines them (numpy gives 0 with a warning; XLA's own remainder would give x). A nonzero
    number given while building (``given``, as the user wrote it) needs no guard."""
    if isinstance(given, int | np.integer) and not isinstance(given, bool) and given != 0:
        return y
    return where(equal(y, 0), asarray(1, y.dtype), y)


def floor_divide(x, y):
    """x // y rounding toward -inf, like numpy.

    Floats follow CPython's float divmod (exact where floor(x / y) is not).
    Integers divide by XLA's truncating division, stepped down where the signs
    differ and the division is inexact; a zero divisor gives jax's values
    (XLA's x / 0 is -1, so 5 // 0 == -5 // 0 == -2 and 0 // 0 == -1).
    """
    a, b = promote(x, y)
    if a.dtype.is_complex:
        raise error(f"floor_divide does not take complex input, got {a.type} and {b.type}")
    if a.dtype.is_floating:
        return _float_divmod(a, b)[0]
    q = bind(ew.div, a, b)
    if a.dtype.kind == "u":
        return q
    inexact = not_equal(bind(ew.rem, a, b), asarray(0, a.dtype))
    steps = logical_and(not_equal(bind(ew.sign, a), bind(ew.sign, b)), inexact)
    return where(steps, subtract(q, 1), q)


def _float_divmod(a, b):
    """(a // b, a % b) for floats as CPython and numpy compute them: the remainder from fmod, moved
    to b's sign (a zero remainder takes b's sign), the quotient from the exactly divisible
    a - fmod(a, b) (a zero quotient takes the sign of a / b)."""
    r = bind(ew.rem, a, b)
    zero = asarray(0, a.dtype)
    exact = where(equal(b, zero), a, subtract(a, r))
    q = bind(ew.div, exact, b)
    steps = logical_and(not_equal(r, zero), not_equal(less(b, zero), less(r, zero)))
    q, r = where(steps, subtract(q, 1), q), where(steps, add(r, b), r)
    # a zero remainder takes b's sign; subtracting stop_gradient(r) - r (+0) keeps r's derivative
    # on that branch (d/da = 1, as jax's), where the bare signed zero would make it 0
    r = where(equal(r, zero), subtract(_copysign_zero(b), subtract(ew.stop_gradient(r), r)), r)
    q = where(equal(q, zero), _copysign_zero(bind(ew.div, a, b)), bind(ew.round_, q))
    return q, r


def _copysign_zero(x):
    """0 with the sign bit of x (-0 where x is negative or -0)."""
    return where(signbit(x), asarray(-0.0, x.dtype), asarray(0.0, x.dtype))


_SIGNED_INTS = {16: dtypes.int16, 32: dtypes.int32, 64: dtypes.int64}  # a float's bits as an int


def signbit(x):
    """True where the sign bit is set (also -0.0 and negative NaN)."""
    x = asarray(x)
    if x.dtype.kind == "b" or x.dtype.kind == "u":
        return not_equal(x, x)
    if x.dtype.kind == "i":
        return less(x, 0)
    return less(bitcast_convert(x, _SIGNED_INTS[x.dtype.bits]), 0)


def remainder(x, y):
    """x % y with the sign of y, like numpy (an integer x % 0 is 0, as in jax)."""
    a, b = promote(x, y)
    if a.dtype.is_complex:
        raise error(f"remainder does not take complex input, got {a.type} and {b.type}")
    if a.dtype.is_floating:
        return _float_divmod(a, b)[1]
    r = bind(ew.rem, a, _nonzero_divisor(b, y))
    if a.dtype.kind == "u":
        return r
    return where(_rounds_down(r, b), add(r, b), r)


mod = remainder


def fmod(x, y):
    """C-style remainder with the sign of x (stablehlo.remainder); an integer fmod(x, 0) is 0 (jax)."""
    a, b = promote(x, y)
    return bind(ew.rem, a, _nonzero_divisor(b, y) if a.dtype.is_integer else b)


_SMALL_POWER = 16


def power(x, y):
    """x ** y with numpy promotion (integer powers stay integer).

    A Python int exponent up to 16 in size becomes multiplications (like
    jax's integer_pow): exact, cheap, and with simple derivatives. An integer
    base with a negative exponent known while building (a Python or numpy
    integer) is a GraphError, as numpy and jax refuse it; a negative exponent
    fed at run time gives XLA's integer power (0 unless the base is 1 or -1).
    Integer results that overflow wrap as numpy's do for exponents below 64;
    from 64 on XLA (and jax) use the exponent's low six bits, so an overflowing
    result differs from numpy's wrapped one (0 ** y stays 0 for every y > 0).
    """
    small = isinstance(y, int) and not isinstance(y, bool) and -_SMALL_POWER <= y <= _SMALL_POWER
    if small and isinstance(x, Tensor) and (x.dtype.is_inexact or (x.dtype.is_integer and y >= 0)):
        return _integer_power(x, y)
    a, b = promote(x, y)
    if a.dtype.is_integer and _negative_static(y):
        raise error(f"integers cannot be raised to negative powers, got {a.type} ** {y!r}; use a float base")
    out = bind(ew.pow_, a, b)
    if a.dtype.is_integer:  # XLA reads 0 ** 64 as 0 ** 0
        zero = asarray(0, a.dtype)
        out = where(logical_and(equal(a, zero), greater(b, zero)), zero, out)
    return out


def _negative_static(y) -> bool:
    """Whether an exponent known while building (a number or numpy array) has a negative entry."""
    if isinstance(y, Tensor) or isinstance(y, str):
        return False
    values = np.asarray(y)
    return values.dtype.kind in "iuf" and bool(np.any(values < 0))


def _integer_power(x, n: int):
    if n == 0:
        return broadcast_to(asarray(1, x.dtype), x.shape)
    if n < 0:
        return true_divide(1, _integer_power(x, -n))
    result, base = None, x
    while n:  # square and multiply
        if n & 1:
            result = base if result is None else bind(ew.mul, result, base)
        n >>= 1
        if n:
            base = bind(ew.mul, base, base)
    return result


def absolute(x):
    """|x|; complex input gives its real magnitude."""
    x = asarray(x)
    if x.dtype.kind in "bu":
        return x
    return bind(ew.abs_, x)


abs = absolute  # noqa: A001


def floor(x):
    x = asarray(x)
    return x if not x.dtype.is_floating else bind(ew.floor, x)


def ceil(x):
    x = asarray(x)
    return x if not x.dtype.is_floating else bind(ew.ceil, x)


def round(x, decimals: int = 0):  # noqa: A001
    """Round half to even like numpy, optionally to ``decimals`` places."""
    x = asarray(x)
    if x.dtype.is_integer and decimals < 0:
        return _round_integer(x, 10**-decimals)
    if not x.dtype.is_inexact:
        return x
    if x.dtype.is_complex:
        raise error(f"round of complex input is not supported, got {x.type}")
    if decimals == 0:
        return bind(ew.round_, x)
    scale = 10.0**decimals
    return true_divide(bind(ew.round_, multiply(x, scale)), scale)


around = round


def _round_integer(x, scale: int):
    """Integers rounded to a multiple of ``scale`` (a power of ten), half to even, like numpy."""
    if scale >= np.iinfo(x.dtype.np).max:
        return bind(ew.sub, x, x)
    q = floor_divide(x, scale)
    r = subtract(x, multiply(q, scale))  # 0 <= r < scale
    rest = subtract(scale, r)  # compare r with scale - r, not 2r: 2r may overflow int8
    up = logical_or(greater(r, rest), logical_and(equal(r, rest), not_equal(remainder(q, 2), 0)))
    return multiply(where(up, add(q, 1), q), scale)


def square(x):
    return multiply(x, x)


def reciprocal(x):
    return true_divide(1, x)


def _cmp(direction: str):
    def fn(x, y):
        a, b = promote(x, y)
        return compare(a, b, direction)

    return fn


equal, not_equal = _cmp("EQ"), _cmp("NE")
less, less_equal = _cmp("LT"), _cmp("LE")
greater, greater_equal = _cmp("GT"), _cmp("GE")


def _as_bool(x):
    return convert(asarray(x), dtypes.bool_)


def logical_and(x, y):
    a, b = promote(_as_bool(x), _as_bool(y))
    return bind(ew.and_, a, b)


def logical_or(x, y):
    a, b = promote(_as_bool(x), _as_bool(y))
    return bind(ew.or_, a, b)


def logical_xor(x, y):
    a, b = promote(_as_bool(x), _as_bool(y))
    return bind(ew.xor, a, b)


def logical_not(x):
    return bind(ew.not_, _as_bool(x))


def invert(x):
    """Bitwise not (logical not for bool)."""
    return bind(ew.not_, asarray(x))


bitwise_not = invert


def left_shift(x, y):
    a, b = promote(x, y)
    return bind(ew.shift_left, a, b)


def right_shift(x, y):
    """x >> y: arithmetic for signed, logical for unsigned integers."""
    a, b = promote(x, y)
    op = ew.shift_right_logical if a.dtype.kind == "u" else ew.shift_right_arithmetic
    return bind(op, a, b)


def isfinite(x):
    x = asarray(x)
    if not x.dtype.is_floating:
        return equal(x, x)  # integers are always finite
    return bind(ew.is_finite, x)


def isnan(x):
    x = asarray(x)
    return not_equal(x, x)


def isinf(x):
    x = asarray(x)
    return logical_and(logical_not(isfinite(x)), logical_not(isnan(x)))


def where(condition, x, y):
    """Elementwise ``x if condition else y`` with numpy broadcasting."""
    c = _as_bool(condition)
    a, b = promote(x, y)
    shape = broadcast_shapes(c.shape, a.shape)
    return select(broadcast_to(c, shape), broadcast_to(a, shape), broadcast_to(b, shape))


__all__ = [
    "abs",
    "absolute",
    "add",
    "arctan2",
    "around",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "cbrt",
    "ceil",
    "cos",
    "divide",
    "equal",
    "erf",
    "exp",
    "expm1",
    "floor",
    "floor_divide",
    "fmod",
    "greater",
    "greater_equal",
    "invert",
    "isfinite",
    "isinf",
    "isnan",
    "left_shift",
    "less",
    "less_equal",
    "log",
    "log1p",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "negative",
    "not_equal",
    "power",
    "reciprocal",
    "remainder",
    "right_shift",
    "round",
    "rsqrt",
    "sigmoid",
    "sign",
    "sin",
    "sqrt",
    "square",
    "subtract",
    "tan",
    "tanh",
    "true_divide",
    "where",
]
