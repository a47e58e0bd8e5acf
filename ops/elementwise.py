"""Elementwise primitives: the unary and binary families (ops layer).

Primitives are strict like StableHLO: binary operands have equal shapes and
dtypes. Broadcasting and promotion happen in sg.numpy, which inserts
broadcast_in_dim and convert nodes. Each family factory gives an op its
shared infer rule (dtype-kind check) and its lowering; per-op differences are
one line in the tables below.
"""

from __future__ import annotations

from ..graph import Attrs, GraphError, OpDef, TensorType
from . import hlo
from .registry import bind

FLOAT = "fc"  # floating and complex
NUMERIC = "iufc"
SIGNED_NUMERIC = "ifc"
INTEGRAL = "biu"  # bool and integers (logical / bitwise)
INTEGER = "iu"
ANY = "biufc"
_KIND_WORDS = {
    FLOAT: "a floating dtype",
    NUMERIC: "a numeric dtype",
    SIGNED_NUMERIC: "a signed or floating dtype",
    INTEGRAL: "a bool or integer dtype",
    INTEGER: "an integer dtype",
    ANY: "any dtype",
    "f": "a real floating dtype",
}


def _check_kind(name: str, kinds: str, ty: TensorType) -> None:
    if ty.dtype.kind not in kinds:
        raise GraphError(f"{name} wants {_KIND_WORDS[kinds]}, got {ty}")


def unary(name: str, lower_fn, kinds: str = FLOAT, out_dtype=None, doc: str = "") -> OpDef:
    """An elementwise op of one operand; ``out_dtype`` fixes the result dtype."""

    def infer(attrs, x: TensorType) -> TensorType:
        _check_kind(name, kinds, x)
        return x if out_dtype is None else x.with_dtype(out_dtype)

    def lower(ctx, attrs, x):
        return lower_fn(x)

    return OpDef(name, infer, lower, doc=doc)


def binary(name: str, lower_fn, kinds: str = NUMERIC, doc: str = "") -> OpDef:
    """An elementwise op of two operands with equal shapes and dtypes."""

    def infer(attrs, x: TensorType, y: TensorType) -> TensorType:
        if x.shape != y.shape or x.dtype is not y.dtype:
            raise GraphError(f"{name} wants operands of equal shape and dtype, got {x} and {y}")
        _check_kind(name, kinds, x)
        return x

    def lower(ctx, attrs, x, y):
        return lower_fn(x, y)

    return OpDef(name, infer, lower, doc=doc)


sh, chlo = hlo.sh, hlo.chlo

# -- unary ---------------------------------------------------------------------
neg = unary("neg", sh.negate, NUMERIC, doc="-x; stablehlo.negate")
abs_ = unary("abs", sh.abs, SIGNED_NUMERIC + "u", doc="|x|; stablehlo.abs")
sign = unary("sign", sh.sign, NUMERIC, doc="-1, 0 or 1 (NaN stays NaN); stablehlo.sign")
floor = unary("floor", sh.floor, "f", doc="round down; stablehlo.floor")
ceil = unary("ceil", sh.ceil, "f", doc="round up; stablehlo.ceil")
round_ = unary(
    "round", sh.round_nearest_even, "f", doc="round half to even (numpy); stablehlo.round_nearest_even"
)
exp = unary("exp", sh.exponential, doc="e**x; stablehlo.exponential")
expm1 = unary(
    "expm1", sh.exponential_minus_one, doc="e**x - 1, exact near 0; stablehlo.exponential_minus_one"
)
log = unary("log", sh.log, doc="natural log; stablehlo.log")
log1p = unary("log1p", sh.log_plus_one, doc="log(1 + x), exact near 0; stablehlo.log_plus_one")
sqrt = unary("sqrt", sh.sqrt, doc="square root; stablehlo.sqrt")
rsqrt = unary("rsqrt", sh.rsqrt, doc="1 / sqrt(x); stablehlo.rsqrt")
cbrt = unary("cbrt", sh.cbrt, "f", doc="cube root; stablehlo.cbrt")
sin = unary("sin", sh.sine, doc="sine; stablehlo.sine")
cos = unary("cos", sh.cosine, doc="cosine; stablehlo.cosine")
tan = unary("tan", sh.tan, doc="tangent; stablehlo.tan")
tanh = unary("tanh", sh.tanh, doc="hyperbolic tangent; stablehlo.tanh")
logistic = unary("logistic", sh.logistic, doc="1 / (1 + e**-x); stablehlo.logistic")
erf = unary("erf", chlo.erf, "f", doc="the error function; chlo.erf")
is_finite = unary(
    "is_finite", sh.is_finite, "f", out_dtype="bool", doc="not inf and not NaN; stablehlo.is_finite"
)
not_ = unary("not", sh.not_, INTEGRAL, doc="logical not (bool) or bitwise not (ints); stablehlo.not")

# -- binary --------------------------------------------------------------------
add = binary("add", sh.add, NUMERIC + "b", doc="x + y (or for bool); stablehlo.add")
sub = binary("sub", sh.subtract, doc="x - y; stablehlo.subtract")
mul = binary("mul", sh.multiply, NUMERIC + "b", doc="x * y (and for bool); stablehlo.multiply")
div = binary("div", sh.divide, doc="x / y; integers round toward zero; stablehlo.divide")
rem = binary("rem", sh.remainder, doc="remainder with the sign of x (C fmod); stablehlo.remainder")
pow_ = binary("pow", sh.power, doc="x ** y; stablehlo.power")
max_ = binary("max", sh.maximum, ANY, doc="elementwise maximum (NaN wins); stablehlo.maximum")
min_ = binary("min", sh.minimum, ANY, doc="elementwise minimum (NaN wins); stablehlo.minimum")
atan2 = binary("atan2", sh.atan2, FLOAT, doc="angle of (x=y, y=x); stablehlo.atan2")
and_ = binary("and", sh.and_, INTEGRAL, doc="logical/bitwise and; stablehlo.and")
or_ = binary("or", sh.or_, INTEGRAL, doc="logical/bitwise or; stablehlo.or")
xor = binary("xor", sh.xor, INTEGRAL, doc="logical/bitwise xor; stablehlo.xor")
shift_left = binary("shift_left", sh.shift_left, INTEGER, doc="x << y; stablehlo.shift_left")
shift_right_arithmetic = binary(
    "shift_right_arithmetic", sh.shift_right_arithmetic, INTEGER, doc="x >> y keeping the sign"
)
shift_right_logical = binary(
    "shift_right_logical", sh.shift_right_logical, INTEGER, doc="x >> y filling zeros"
)


def apply(op: OpDef, *xs, name: str | None = None):
    """Bind an elementwise primitive (operands already broadcast and promoted)."""
    return bind(op, *xs, name=name)


UNARY = (neg, abs_, sign, floor, ceil, round_, exp, expm1, log, log1p, sqrt, rsqrt, cbrt, sin, cos, tan,
         tanh, logistic, erf, is_finite, not_)  # fmt: skip
BINARY = (add, sub, mul, div, rem, pow_, max_, min_, atan2, and_, or_, xor, shift_left,
          shift_right_arithmetic, shift_right_logical)  # fmt: skip
__all__ = ["unary", "binary", "apply", "UNARY", "BINARY", "Attrs"]
