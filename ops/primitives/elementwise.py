"""Elementwise primitives: the unary and binary families, plus stop_gradient (ops layer).

Primitives are strict like StableHLO: binary operands have equal shapes and
dtypes. Broadcasting and promotion happen in sg.numpy, which inserts
broadcast_in_dim and convert nodes. Each family factory gives an op its
shared infer rule (dtype-kind check), its lowering and the plumbing of its
vjp and fold; per-op differences are one line in the tables below, or a
small ``_<op>_vjp`` or ``_<op>_fold`` (numpy, None where XLA differs) above.

Family vjp rules are written on values: a unary rule is ``(x, y, ct) -> ct_x``
and a binary one ``(x, y, out, ct) -> (ct_x, ct_y)``, with None for a zero
cotangent. They follow JAX's conventions, also for complex numbers (the
cotangent of a holomorphic f is ``ct * f'(x)``, without conjugation), and
emit only primitives that have vjp rules themselves, so derivatives nest.

The jvp rules come from the same formulas: an elementwise op's Jacobian is
diagonal, so its vjp applied to a tangent is already the tangent of the
result (a binary op sums its two partials). Only ops where that is not so
(complex abs) or where it builds nodes nobody uses (add, sub, mul) give a
``jvp`` of their own: ``(x, y, t) -> t_y``, ``(x, y, out, tx, ty) -> t_out``.
"""

from __future__ import annotations

import numpy as np

from ...graph import ELEMENTWISE, ZERO_DERIVATIVE, Attrs, GraphError, OpDef, Tensor, TensorType, dtypes
from . import ad_util as ad
from . import batching, constants, hlo, prims
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
_INTEGRAL_OP = "bool and integer op: no gradient"
_BOOL_OUT = "bool output: no gradient"
_NO_NUMPY = "numpy has no such function: not folded"


def _check_kind(name: str, kinds: str, ty: TensorType) -> None:
    if ty.dtype.kind not in kinds:
        raise GraphError(f"{name} wants {_KIND_WORDS[kinds]}, got {ty}")


def unary(
    name: str, lower_fn, kinds: str = FLOAT, out_dtype=None, vjp=None, jvp=None, fold=None, reasons=None,
    doc: str = "",
) -> OpDef:  # fmt: skip
    """An elementwise op of one operand.

    ``out_dtype`` fixes the result dtype (a dtype, or a function of the
    operand's). ``vjp(x, y, ct) -> ct_x | None`` is only called for floating
    and complex operands: integers and bools carry no cotangent. ``jvp(x, y,
    t) -> t_y | None`` defaults to the vjp (the Jacobian is diagonal).
    ``fold(x) -> array | None`` is the numpy version, None where it declines.
    """
    tangent = jvp or vjp

    def infer(attrs, x: TensorType) -> TensorType:
        _check_kind(name, kinds, x)
        if out_dtype is None:
            return x
        return x.with_dtype(out_dtype(x.dtype) if callable(out_dtype) else out_dtype)

    def lower(ctx, attrs, x):
        return lower_fn(x)

    def rule(ctx, attrs, xs, ys, cts):
        return [vjp(xs[0], ys[0], cts[0]) if ad.is_differentiable(xs[0]) else None]

    def jvp_rule(ctx, attrs, xs, ys, tangents):
        return [tangent(xs[0], ys[0], tangents[0]) if tangents[0] is not None else None]

    traits = ELEMENTWISE | (ZERO_DERIVATIVE if vjp is _zero_vjp else frozenset())
    return OpDef(name, infer, lower, vjp=rule if vjp else None, jvp=jvp_rule if tangent else None,
                 batch=batching.elementwise_batch, fold=_on_values(fold), reasons=dict(reasons or {}),
                 doc=doc, traits=traits)  # fmt: skip


def binary(
    name: str, lower_fn, kinds: str = NUMERIC, vjp=None, jvp=None, fold=None, reasons=None, doc: str = ""
) -> OpDef:
    """An elementwise op of two operands with equal shapes and dtypes.

    ``vjp(x, y, out, ct) -> (ct_x, ct_y)`` is only called for floating and
    complex operands. ``jvp(x, y, out, tx, ty) -> t_out`` (a tangent may be
    None) defaults to the sum of the vjp's two partials. ``fold(x, y) ->
    array | None`` is the numpy version, None where it declines.
    """
    tangent = jvp or (_jvp_from_vjp(vjp) if vjp else None)

    def infer(attrs, x: TensorType, y: TensorType) -> TensorType:
        if x.shape != y.shape or x.dtype is not y.dtype:
            raise GraphError(f"{name} wants operands of equal shape and dtype, got {x} and {y}")
        _check_kind(name, kinds, x)
        return x

    def lower(ctx, attrs, x, y):
        return lower_fn(x, y)

    def rule(ctx, attrs, xs, ys, cts):
        return list(vjp(*xs, ys[0], cts[0])) if ad.is_differentiable(xs[0]) else [None, None]

    def jvp_rule(ctx, attrs, xs, ys, tangents):
        return [tangent(*xs, ys[0], *tangents)]

    return OpDef(name, infer, lower, vjp=rule if vjp else None, jvp=jvp_rule if tangent else None,
                 batch=batching.elementwise_batch, fold=_on_values(fold), reasons=dict(reasons or {}),
                 doc=doc, traits=ELEMENTWISE)  # fmt: skip


def _on_values(fold):
    """An OpDef fold rule ``(attrs, *arrays)`` from a family fold written on values."""
    return (lambda attrs, *xs: fold(*xs)) if fold else None


def _real_only(fold):
    """``fold``, declining complex operands: numpy's sign, max and min of them are not XLA's."""
    return lambda *xs: None if xs[0].dtype.kind == "c" else fold(*xs)


def _jvp_from_vjp(vjp):
    """``tx * df/dx + ty * df/dy`` from a binary vjp: its cotangent of x (of y) for ct = tx (ty)."""

    def jvp(x, y, out, tx, ty):
        dx = vjp(x, y, out, tx)[0] if tx is not None else None
        dy = vjp(x, y, out, ty)[1] if ty is not None else None
        return _sum(dx, dy)

    return jvp


def _sum(a: Tensor | None, b: Tensor | None) -> Tensor | None:
    """a + b where None is a zero."""
    if a is None or b is None:
        return a if b is None else b
    return ad.add(a, b)


def _eq(x: Tensor, y: Tensor) -> Tensor:
    return prims.compare(x, y, "EQ")


def _one(x: Tensor) -> Tensor:
    return ad.full_like(x, 1)


def _zero_vjp(*args):
    """Piecewise constant (sign, floor, ...): the derivative is 0 almost everywhere, as in JAX."""
    return None


sh, chlo = hlo.builders(hlo.sh), hlo.builders(hlo.chlo)  # looked up when first lowered


# -- unary ---------------------------------------------------------------------
def _abs_vjp(x, y, ct):
    if not x.dtype.is_complex:
        return ad.select(prims.compare(x, ad.zeros_like(x), "GE"), ct, ad.neg(ct))
    # d|x| transposed is ct * conj(x) / |x| = ct * |x| / x; 0 at x == 0 (JAX). The
    # divisor is made safe first so that the masked slot has no NaN to leak.
    at_zero = _eq(x, ad.zeros_like(x))
    safe_x = ad.select(at_zero, _one(x), x)
    ct_x = ad.div(ad.mul(prims.convert(ct, x.dtype), prims.convert(y, x.dtype)), safe_x)
    return ad.where_zero(at_zero, ct_x)


def _abs_jvp(x, y, t):
    if not x.dtype.is_complex:
        return _abs_vjp(x, y, t)
    # d|x| = Re(conj(x) t) / |x| = (Re x Re t + Im x Im t) / |x|, 0 at x == 0 (JAX); a complex
    # to real convert keeps the real part, and Im z = Re(-i z).
    minus_i = ad.full_like(x, -1j)
    re_x, im_x = prims.convert(x, y.dtype), prims.convert(ad.mul(x, minus_i), y.dtype)
    re_t, im_t = prims.convert(t, y.dtype), prims.convert(ad.mul(t, minus_i), y.dtype)
    dot = ad.add(ad.mul(re_x, re_t), ad.mul(im_x, im_t))
    at_zero = _eq(y, ad.zeros_like(y))
    return ad.where_zero(at_zero, ad.div(dot, ad.select(at_zero, _one(y), y)))


def _tanh_vjp(x, y, ct):
    one = _one(y)  # (1 - y)(1 + y) = 1 - y*y, without cancellation near |y| = 1
    # the slope first: a huge ct (x tanh(x) at the largest float) times a slope of 0 is 0, not inf * 0
    return ad.mul(ct, ad.mul(ad.add(one, y), ad.sub(one, y)))


def _cbrt_vjp(x, y, ct):
    # ct / (3 y**2) written with 1/y: at x = 0 the second derivative is then -inf (1/y = inf
    # squared), where the derivative of y*y would be 0 * inf = nan
    r = ad.div(_one(y), y)
    return ad.scale(ad.mul(ct, ad.mul(r, r)), 1 / 3)


def _erf_vjp(x, y, ct):
    gauss = bind(exp, ad.neg(ad.mul(x, x)))
    return ad.mul(ad.scale(ct, 2 / np.sqrt(np.pi)), gauss)


def _erf_inv_vjp(x, y, ct):
    return ad.mul(ad.scale(ct, np.sqrt(np.pi) / 2), bind(exp, ad.mul(y, y)))  # 1 / erf'(y)


def _logistic_fold(x):
    e = np.exp(-np.abs(x))  # never overflows, so tiny results keep their digits
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


neg = unary("neg", sh.negate, NUMERIC, vjp=lambda x, y, ct: ad.neg(ct), fold=np.negative,
            doc="-x; stablehlo.negate")  # fmt: skip
abs_ = unary("abs", sh.abs, SIGNED_NUMERIC + "u", out_dtype=dtypes.real_part, vjp=_abs_vjp, jvp=_abs_jvp,
             fold=np.abs, doc="|x| (a complex operand gives its real magnitude); stablehlo.abs")  # fmt: skip
sign = unary("sign", sh.sign, NUMERIC, vjp=_zero_vjp, fold=_real_only(np.sign),
             doc="-1, 0 or 1 (NaN stays NaN); stablehlo.sign")  # fmt: skip
floor = unary("floor", sh.floor, "f", vjp=_zero_vjp, fold=np.floor,
              doc="round down; stablehlo.floor")  # fmt: skip
ceil = unary("ceil", sh.ceil, "f", vjp=_zero_vjp, fold=np.ceil,
             doc="round up; stablehlo.ceil")  # fmt: skip
round_ = unary("round", sh.round_nearest_even, "f", vjp=_zero_vjp, fold=np.round,
               doc="round half to even (numpy); stablehlo.round_nearest_even")  # fmt: skip
exp = unary("exp", sh.exponential, vjp=lambda x, y, ct: ad.mul(ct, y), fold=np.exp,
            doc="e**x; stablehlo.exponential")  # fmt: skip
# d/dx expm1 = e**x, taken from x: y + 1 cancels for x < 0 (400 ulps of float32 at x = -10)
expm1 = unary("expm1", sh.exponential_minus_one, vjp=lambda x, y, ct: ad.mul(ct, bind(exp, x)),
              fold=np.expm1,
              doc="e**x - 1, exact near 0; stablehlo.exponential_minus_one")  # fmt: skip
log = unary("log", sh.log, vjp=lambda x, y, ct: ad.div(ct, x), fold=np.log,
            doc="natural log; stablehlo.log")  # fmt: skip
log1p = unary("log1p", sh.log_plus_one, vjp=lambda x, y, ct: ad.div(ct, ad.add(x, _one(x))), fold=np.log1p,
              doc="log(1 + x), exact near 0; stablehlo.log_plus_one")  # fmt: skip
sqrt = unary("sqrt", sh.sqrt, vjp=lambda x, y, ct: ad.div(ad.scale(ct, 0.5), y), fold=np.sqrt,
             doc="square root; stablehlo.sqrt")  # fmt: skip
rsqrt = unary("rsqrt", sh.rsqrt, vjp=lambda x, y, ct: ad.mul(ad.scale(ct, -0.5), ad.div(y, x)),
              fold=lambda x: 1 / np.sqrt(x),
              doc="1 / sqrt(x); stablehlo.rsqrt")  # fmt: skip
cbrt = unary("cbrt", sh.cbrt, "f", vjp=_cbrt_vjp, fold=np.cbrt,
             doc="cube root; stablehlo.cbrt")  # fmt: skip
sin = unary("sin", sh.sine, vjp=lambda x, y, ct: ad.mul(ct, bind(cos, x)), fold=np.sin,
            doc="sine; stablehlo.sine")  # fmt: skip
cos = unary("cos", sh.cosine, vjp=lambda x, y, ct: ad.neg(ad.mul(ct, bind(sin, x))), fold=np.cos,
            doc="cosine; stablehlo.cosine")  # fmt: skip
tan = unary("tan", sh.tan, vjp=lambda x, y, ct: ad.mul(ct, ad.add(_one(y), ad.mul(y, y))), fold=np.tan,
            doc="tangent; stablehlo.tan")  # fmt: skip
tanh = unary("tanh", sh.tanh, vjp=_tanh_vjp, fold=np.tanh,
             doc="hyperbolic tangent; stablehlo.tanh")  # fmt: skip
# d/dx logistic = y (1 - y), with 1 - y taken as logistic(-x): 1 - y rounds to 0 where y rounds to 1
# (x > 17 in float64), but the slope there is e**-x, which logistic(-x) keeps
logistic = unary("logistic", sh.logistic, vjp=lambda x, y, ct: ad.mul(ct, ad.mul(y, bind(logistic, ad.neg(x)))),
                 fold=_logistic_fold,
                 doc="1 / (1 + e**-x); stablehlo.logistic")  # fmt: skip
erf = unary("erf", chlo.erf, "f", vjp=_erf_vjp, reasons={"fold": _NO_NUMPY},
            doc="the error function; chlo.erf")  # fmt: skip
erf_inv = unary("erf_inv", chlo.erf_inv, "f", vjp=_erf_inv_vjp, reasons={"fold": _NO_NUMPY},
                doc="the inverse error function on [-1, 1] (+-inf at +-1); chlo.erf_inv")  # fmt: skip
is_finite = unary("is_finite", sh.is_finite, "f", out_dtype="bool", reasons={"vjp": _BOOL_OUT},
                  fold=np.isfinite, doc="not inf and not NaN; stablehlo.is_finite")  # fmt: skip
not_ = unary("not", sh.not_, INTEGRAL, reasons={"vjp": _INTEGRAL_OP}, fold=np.invert,
             doc="logical not (bool) or bitwise not (ints); stablehlo.not")  # fmt: skip


# -- binary --------------------------------------------------------------------
def _sub_jvp(x, y, out, tx, ty):
    return _sum(tx, ad.neg(ty) if ty is not None else None)


def _mul_jvp(x, y, out, tx, ty):
    return _sum(ad.mul(tx, y) if tx is not None else None, ad.mul(x, ty) if ty is not None else None)


def _div_vjp(x, y, out, ct):
    ct_x = ad.div(ct, y)
    return ct_x, ad.neg(ad.mul(ct_x, out))  # d(x/y)/dy = -(x/y)/y


def _div_fold(x, y):
    if x.dtype.kind not in "iu":
        return np.true_divide(x, y)
    if _platform_defined(x, y):
        return None
    return (x - np.fmod(x, y)) // y  # exact: the truncated quotient, as StableHLO rounds


def _platform_defined(x, y) -> bool:
    """An integer division by zero or of MIN by -1: XLA leaves its value to the platform."""
    minimum = x.dtype.kind == "i" and np.any((x == np.iinfo(x.dtype).min) & (y == -1))
    return x.dtype.kind in "iu" and bool(np.any(y == 0) or minimum)


def _rem_vjp(x, y, out, ct):
    # x - y * trunc(x/y): d/dx = 1, d/dy = -trunc(x/y) (JAX), trunc spelled sign * floor(|q|).
    if x.dtype.is_complex:
        raise GraphError(f"rem vjp for complex inputs is not supported, got {x.type}")
    q = ad.div(x, y)
    trunc = ad.mul(bind(sign, q), bind(floor, bind(abs_, q)))
    return ct, ad.neg(ad.mul(ct, trunc))


def _rem_fold(x, y):
    return None if _platform_defined(x, y) else np.fmod(x, y)


def _pow_vjp(x, y, out, ct):
    # d/dx = y * x**(y-1), 0 where x == y == 0 (so x**0 has slope 0 at x == 0, like jnp.power
    # with an integer exponent, where jax's float power gives 0 * inf = NaN); only that slot
    # of x**(y-1) is masked, so d/dy of d/dx stays x**(y-1) (1 at x = 1, y = 0). d/dy =
    # log(x) * out, 0 where x == 0 (JAX). Each guard first swaps in a safe operand, so no NaN
    # sits in a masked slot.
    # Where y == 0, y * x**(y-1) is 0 for every x, so its slope in x is 0 too: there the factor
    # x**(y-1) is held constant (its own slope (y-1) x**(y-2) is inf at tiny x, and 0 * inf =
    # NaN was d2/dx2 of x**0 at x = 2.2e-308), its slope in y (the y factor's) still x**(y-1).
    one = _one(x)
    y_zero, x_zero = _eq(y, ad.zeros_like(y)), _eq(x, ad.zeros_like(x))
    both = bind(and_, y_zero, x_zero)
    slope = ad.where_zero(both, bind(pow_, x, ad.sub(y, one)))
    varying = bind(pow_, ad.select(y_zero, one, x), ad.sub(y, one))
    slope = ad.select(y_zero, bind(stop_gradient_op, slope), varying)
    ct_x = ad.mul(ct, ad.mul(y, slope))
    ct_y = ad.mul(ct, ad.mul(bind(log, ad.select(x_zero, one, x)), out))
    return ct_x, ct_y


def _pow_fold(x, y):
    if x.dtype.kind in "iu" and np.any(y < 0):
        return None  # numpy refuses integers to negative powers
    return np.power(x, y)


def _extremum_vjp(x, y, out, ct):
    # The operand equal to the result takes the cotangent; on a tie each takes half (JAX). The
    # cotangent is multiplied by those weights (1, 1/2, 0), not selected, so a NaN or infinite
    # cotangent reaches the losing operand as NaN, as in JAX, rather than vanishing.
    x_won, y_won = _eq(x, out), _eq(y, out)
    one, half, zero = _one(x), ad.full_like(x, 0.5), ad.zeros_like(x)
    w_x = ad.select(x_won, ad.select(y_won, half, one), zero)
    w_y = ad.select(y_won, ad.select(x_won, half, one), zero)
    return ad.mul(ct, w_x), ad.mul(ct, w_y)


def _atan2_vjp(x, y, out, ct):
    t = ad.div(ct, ad.add(ad.mul(x, x), ad.mul(y, y)))
    return ad.mul(t, y), ad.neg(ad.mul(t, x))


def _shift_fold(shift):
    def fold(x, y):
        if x.dtype.kind not in "iu" or np.any(y < 0) or np.any(y >= x.dtype.itemsize * 8):
            return None  # XLA defines over-wide shifts; numpy does not
        return shift(x, y)

    return fold


def _shift_right_logical(x, y):
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    return np.right_shift(x.view(unsigned), y.astype(unsigned)).view(x.dtype)


add = binary("add", sh.add, NUMERIC + "b", vjp=lambda x, y, out, ct: (ct, ct),
             jvp=lambda x, y, out, tx, ty: _sum(tx, ty), fold=np.add,
             doc="x + y (or for bool); stablehlo.add")  # fmt: skip
sub = binary("sub", sh.subtract, vjp=lambda x, y, out, ct: (ct, ad.neg(ct)),
             jvp=_sub_jvp, fold=np.subtract,
             doc="x - y; stablehlo.subtract")  # fmt: skip
mul = binary("mul", sh.multiply, NUMERIC + "b", vjp=lambda x, y, out, ct: (ad.mul(ct, y), ad.mul(ct, x)),
             jvp=_mul_jvp, fold=np.multiply,
             doc="x * y (and for bool); stablehlo.multiply")  # fmt: skip
div = binary("div", sh.divide, vjp=_div_vjp, fold=_div_fold,
             doc="x / y; integers round toward zero; stablehlo.divide")  # fmt: skip
rem = binary("rem", sh.remainder, vjp=_rem_vjp, fold=_rem_fold,
             doc="remainder with the sign of x (C fmod); stablehlo.remainder")  # fmt: skip
pow_ = binary("pow", sh.power, vjp=_pow_vjp, fold=_pow_fold,
              doc="x ** y; stablehlo.power")  # fmt: skip
max_ = binary("max", sh.maximum, ANY, vjp=_extremum_vjp, fold=_real_only(np.maximum),  # NaN wins in both
              doc="elementwise maximum (NaN wins); stablehlo.maximum")  # fmt: skip
min_ = binary("min", sh.minimum, ANY, vjp=_extremum_vjp, fold=_real_only(np.minimum),
              doc="elementwise minimum (NaN wins); stablehlo.minimum")  # fmt: skip
atan2 = binary("atan2", sh.atan2, FLOAT, vjp=_atan2_vjp, fold=np.arctan2,
               doc="angle of (x=y, y=x); stablehlo.atan2")  # fmt: skip
and_ = binary("and", sh.and_, INTEGRAL, reasons={"vjp": _INTEGRAL_OP}, fold=np.bitwise_and,
              doc="logical/bitwise and; stablehlo.and")  # fmt: skip
or_ = binary("or", sh.or_, INTEGRAL, reasons={"vjp": _INTEGRAL_OP}, fold=np.bitwise_or,
             doc="logical/bitwise or; stablehlo.or")  # fmt: skip
xor = binary("xor", sh.xor, INTEGRAL, reasons={"vjp": _INTEGRAL_OP}, fold=np.bitwise_xor,
             doc="logical/bitwise xor; stablehlo.xor")  # fmt: skip
shift_left = binary("shift_left", sh.shift_left, INTEGER, reasons={"vjp": _INTEGRAL_OP},
                    fold=_shift_fold(np.left_shift), doc="x << y; stablehlo.shift_left")  # fmt: skip
shift_right_arithmetic = binary("shift_right_arithmetic", sh.shift_right_arithmetic, INTEGER,
                                reasons={"vjp": _INTEGRAL_OP}, fold=_shift_fold(np.right_shift),
                                doc="x >> y keeping the sign")  # fmt: skip
shift_right_logical = binary("shift_right_logical", sh.shift_right_logical, INTEGER,
                             reasons={"vjp": _INTEGRAL_OP}, fold=_shift_fold(_shift_right_logical),
                             doc="x >> y filling zeros")  # fmt: skip


# -- stop_gradient -------------------------------------------------------------
stop_gradient_op = unary("stop_gradient", lambda x: x, ANY, vjp=_zero_vjp, fold=lambda x: x,
                         doc="x, seen by autodiff as a constant; lowers to nothing")  # fmt: skip


def stop_gradient(x) -> Tensor:
    """``x`` unchanged, but gradients do not flow through it (its vjp is zero).

    Any dtype; a non-Tensor becomes a constant first. Lowers to nothing: the
    operand's value is the result. ``sg.stop_gradient(running_mean)``
    """
    x = x if isinstance(x, Tensor) else constants.constant(x)
    return bind(stop_gradient_op, x)


def apply(op: OpDef, *xs, name: str | None = None):
    """Bind an elementwise primitive (operands already broadcast and promoted)."""
    return bind(op, *xs, name=name)


UNARY = (neg, abs_, sign, floor, ceil, round_, exp, expm1, log, log1p, sqrt, rsqrt, cbrt, sin, cos, tan,
         tanh, logistic, erf, erf_inv, is_finite, not_, stop_gradient_op)  # fmt: skip
BINARY = (add, sub, mul, div, rem, pow_, max_, min_, atan2, and_, or_, xor, shift_left,
          shift_right_arithmetic, shift_right_logical)  # fmt: skip
__all__ = ["unary", "binary", "apply", "stop_gradient", "UNARY", "BINARY", "Attrs"]
