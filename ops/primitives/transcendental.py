"""Elementwise math beyond elementwise.py: inverse trig, hyperbolic and special functions (ops layer).

Built with elementwise.py's ``unary`` and ``binary`` factories (shared infer,
batch and jvp-from-vjp plumbing); the vjp formulas are JAX's. Most lower to
a chlo op; bessel_i0e, igamma, igammac, igamma_grad_a and betainc, which
chlo lacks, lower to series and continued fractions in special_lowering.py,
and digamma and polygamma, whose chlo forms lose digits, to gamma_lowering.py.
population_count and clz are the integer ops stablehlo.popcnt and
stablehlo.count_leading_zeros.

Gradients JAX leaves undefined stay so: nextafter is piecewise constant.
zeta's derivative in x has no closed form: an Euler-Maclaurin sum differentiated
by hand (_zeta_dx). Where JAX raises for one operand only (polygamma's order
m, betainc's a and b), a vjp rule cannot raise (it does not know which
operands are wanted): m gets no cotangent (it is an integer order), and
betainc's a and b get central differences of betainc itself, to about
eps**(2/3) relative accuracy.

None of these fold in sg.simplify: numpy lacks most of them, and for the
rest numpy's last digits need not be XLA's.
"""

from __future__ import annotations

import math

import numpy as np

from ...graph import ELEMENTWISE, GraphError, OpDef, TensorType
from . import ad_util as ad
from . import batching, bessel_slopes, gamma_lowering, hlo, prims, special_lowering
from .elementwise import INTEGER, binary, unary
from .registry import bind, lookup

sh, chlo = hlo.builders(hlo.sh), hlo.builders(hlo.chlo)  # looked up when first lowered
_NO_FOLD = {"fold": "not folded: numpy lacks it or may differ from XLA in the last digits"}
_INTEGER_OP = {"vjp": "integer op: no gradient", "fold": "not folded: bit counts of XLA's integer types"}


def _ew(name: str, *xs):
    return bind(lookup(name), *xs)


def _one(x):
    return ad.full_like(x, 1)


def _square(x):
    return ad.mul(x, x)


def _rsqrt(x):
    return _ew("rsqrt", x)


# -- inverse trig and hyperbolic -----------------------------------------------
asin = unary("asin", chlo.asin, vjp=lambda x, y, ct: ad.mul(ct, _rsqrt(ad.sub(_one(x), _square(x)))),
             reasons=_NO_FOLD, doc="arcsine; chlo.asin")  # fmt: skip
acos = unary("acos", chlo.acos, vjp=lambda x, y, ct: ad.neg(ad.mul(ct, _rsqrt(ad.sub(_one(x), _square(x))))),
             reasons=_NO_FOLD, doc="arccosine; chlo.acos")  # fmt: skip
atan = unary("atan", chlo.atan, vjp=lambda x, y, ct: ad.div(ct, ad.add(_one(x), _square(x))),
             reasons=_NO_FOLD, doc="arctangent; chlo.atan")  # fmt: skip
sinh = unary("sinh", chlo.sinh, vjp=lambda x, y, ct: ad.mul(ct, bind(cosh, x)),
             reasons=_NO_FOLD, doc="hyperbolic sine; chlo.sinh")  # fmt: skip
cosh = unary("cosh", chlo.cosh, vjp=lambda x, y, ct: ad.mul(ct, bind(sinh, x)),
             reasons=_NO_FOLD, doc="hyperbolic cosine; chlo.cosh")  # fmt: skip
asinh = unary("asinh", chlo.asinh, vjp=lambda x, y, ct: ad.mul(ct, _rsqrt(ad.add(_square(x), _one(x)))),
              reasons=_NO_FOLD, doc="inverse hyperbolic sine; chlo.asinh")  # fmt: skip


def _acosh_vjp(x, y, ct):
    # x*x - 1 (JAX) rather than (x - 1)(x + 1): near x = 1 it loses only the eps**2 term, and at
    # x = 1 the second derivative is -inf, not 0 * inf (the product rule's term with x - 1 = 0)
    return ad.mul(ct, _rsqrt(ad.sub(_square(x), _one(x))))


def _atanh_vjp(x, y, ct):
    one = _one(x)
    return ad.div(ad.div(ct, ad.sub(one, x)), ad.add(one, x))


acosh = unary("acosh", chlo.acosh, vjp=_acosh_vjp, reasons=_NO_FOLD,
              doc="inverse hyperbolic cosine; chlo.acosh")  # fmt: skip
atanh = unary("atanh", chlo.atanh, vjp=_atanh_vjp, reasons=_NO_FOLD,
              doc="inverse hyperbolic tangent; chlo.atanh")  # fmt: skip


# -- gamma family --------------------------------------------------------------
def _polygamma_of(m: int, x):
    return bind(polygamma, ad.full_like(x, m), x)


lgamma = unary("lgamma", chlo.lgamma, "f", vjp=lambda x, y, ct: ad.mul(ct, bind(digamma, x)),
               reasons=_NO_FOLD, doc="log |Gamma(x)|; chlo.lgamma")  # fmt: skip
digamma = unary("digamma", gamma_lowering.digamma, "f", vjp=lambda x, y, ct: ad.mul(ct, _polygamma_of(1, x)),
                reasons=_NO_FOLD, doc="d/dx log Gamma(x); gamma_lowering.digamma")  # fmt: skip


def _polygamma_vjp(m, x, out, ct):
    # m is an integer order: it gets no cotangent (JAX raises for one)
    return None, ad.mul(ct, bind(polygamma, ad.add(m, _one(m)), x))


polygamma = binary("polygamma", gamma_lowering.polygamma, "f", vjp=_polygamma_vjp, reasons=_NO_FOLD,
                   doc="the m-th derivative of digamma at x (m a whole number); gamma_lowering.polygamma")  # fmt: skip
# B_2j / (2j)!, j = 1 .. 10: the Euler-Maclaurin corrections of the zeta series' tail
_EM_COEFFICIENTS = tuple(
    b / float(np.prod(np.arange(1, 2 * j + 1)))
    for j, b in enumerate((1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
                           43867 / 798, -174611 / 330), start=1)
)  # fmt: skip
_EM_TERMS = 12


# (-1)^k (k - 1) / k!, k = 2 .. 19: g(u) = (1 - e^-u (1 + u)) / u^2 = sum_k c_k u^(k - 2), |u| < 1
_POLE_FREE_SERIES = tuple((-1) ** k * (k - 1) / math.factorial(k) for k in range(2, 20))


def _zeta_dx_integral(x1, a, log_a):
    """The tail's integral -int_a^inf log(t) t^-x dt = -a^-x1 (log a / x1 + 1 / x1^2), x1 = x - 1.
    Near x = 1 (|x1 log a| < 1) as -1 / x1^2 + log(a)^2 g(x1 log a), g(u) = (1 - e^-u (1 + u)) / u^2
    by its series: the pole -1 / x1^2 does not depend on q, so the slopes in q of the two terms of
    the closed form (4.5e15 each at x = 1 + eps) no longer cancel (d2/dx dq at (1 + eps, 0.1) was
    -330.7186, true -330.6949)."""
    u = ad.mul(x1, log_a)
    near = prims.compare(_ew("abs", u), _one(u), "LT")
    x1_far = ad.select(near, ad.full_like(x1, 1.0), x1)
    closed = ad.neg(
        ad.mul(
            _ew("pow", a, ad.neg(x1_far)), ad.add(ad.div(log_a, x1_far), ad.div(_one(x1), _square(x1_far)))
        )
    )
    u_near = ad.select(near, u, ad.zeros_like(u))
    g = ad.full_like(u, _POLE_FREE_SERIES[-1])
    for c in reversed(_POLE_FREE_SERIES[:-1]):
        g = ad.add(ad.mul(g, u_near), ad.full_like(u, c))
    x1_near = ad.select(near, x1, _one(x1))
    series = ad.sub(ad.mul(_square(log_a), g), ad.div(_one(x1), _square(x1_near)))
    return ad.select(near, series, closed)


def _zeta_dx_sum(x, q):
    """d/dx zeta(x, q) = -sum_k log(q + k) (q + k)^-x, by Euler-Maclaurin: the first 12 terms
    directly, the tail's integral and 10 Bernoulli corrections differentiated in x by hand."""
    # powers by pow, not exp(-x log b): exp would scale the rounding of x log b by its size
    total = ad.zeros_like(x)
    for k in range(_EM_TERMS):
        base = ad.add(q, ad.full_like(q, k))
        total = ad.sub(total, ad.mul(_ew("log", base), _ew("pow", base, ad.neg(x))))
    a = ad.add(q, ad.full_like(q, _EM_TERMS))
    log_a = _ew("log", a)
    total = ad.add(total, _zeta_dx_integral(ad.sub(x, _one(x)), a, log_a))
    a_mx = _ew("pow", a, ad.neg(x))
    total = ad.add(total, ad.scale(ad.mul(log_a, a_mx), -0.5))
    poly, dpoly = x, _one(x)  # x (x + 1) ... (x + 2j - 2) and its derivative
    for j, c in enumerate(_EM_COEFFICIENTS, start=1):
        power = _ew("pow", a, ad.neg(ad.add(x, ad.full_like(x, 2 * j - 1))))
        total = ad.add(total, ad.scale(ad.mul(ad.sub(dpoly, ad.mul(log_a, poly)), power), c))
        for i in (2 * j - 1, 2 * j):
            shifted = ad.add(x, ad.full_like(x, i))
            poly, dpoly = ad.mul(poly, shifted), ad.add(ad.mul(dpoly, shifted), poly)
    return total


def _zeta_dx(x, q):
    """_zeta_dx_sum, and 0 where every term is below the smallest subnormal (q >= 1 and
    x log q > 745; the sum sees stand-ins there): the corrections' x (x + 1) ... overflow times
    a^-x = 0 made NaN at (1.34e154, 1.34e154), and so did the second derivatives."""
    safe_q = ad.select(prims.compare(q, _one(q), "GE"), q, _one(q))
    vanish = prims.compare(ad.mul(x, _ew("log", safe_q)), ad.full_like(x, 745.0), "GT")
    total = _zeta_dx_sum(ad.select(vanish, ad.full_like(x, 2.0), x), ad.select(vanish, _one(q), q))
    return ad.select(vanish, ad.zeros_like(total), total)


def _zeta_vjp(x, q, out, ct):
    # d/dq = -x zeta(x + 1, q); d/dx has no closed form (Euler-Maclaurin, _zeta_dx)
    return ad.mul(ct, _zeta_dx_wide(x, q)), ad.mul(ct, _zeta_q_slope(x, q))


def _zeta_q_slope(x, q):
    """d/dq zeta(x, q) = -x zeta(x + 1, q), for float32 in float64 and rounded (the terms
    q^-(x+1) flush in float32 where the sum does not, and x + 1 rounds: -5.4e-20 at (1 + eps,
    1.8e19) was 0). Far out (q >= 1e4, 0 < x <= q / 1e4) by Euler-Maclaurin's head
    -q^-x (1 + x / (2q) + x (x + 1) / (12 q^2)) (the next term is below 1e-19 of it): zeta's own
    terms q^-(x+1) are subnormal and flush there while the slope is normal (-7.46e-155 at
    (1 + eps, 1.34e154) came out -0)."""
    if x.dtype.bits < 64:
        wide = _zeta_q_slope(prims.convert(x, "float64"), prims.convert(q, "float64"))
        return prims.convert(wide, x.dtype)
    # at x = 0 (zeta(0, q) = 1/2 - q) -x zeta(x + 1, q) is 0 times the pole at 1: there it is taken
    # as -1 + x psi(q), its expansion, so that d/dq = -1, d2/dq2 = 0 and d2/dxdq = psi(q) (0 at
    # psi's poles q = 0, -1, ... and at q = +-inf, where it is not finite); the other forms are
    # given x = q = 1 there, so that no 0 * inf of theirs reaches the slopes
    at_zero = prims.compare(x, ad.zeros_like(x), "EQ")
    finite_q = prims.compare(_ew("abs", q), ad.full_like(q, np.inf), "LT")
    off_pole = bind(
        lookup("or"), prims.compare(q, ad.zeros_like(q), "GT"), prims.compare(_ew("floor", q), q, "NE")
    )
    smooth = prims.and_(prims.and_(at_zero, finite_q), off_pole)
    psi = ad.select(smooth, bind(digamma, ad.select(smooth, q, _one(q))), ad.zeros_like(q))
    expansion = ad.add(ad.full_like(x, -1.0), ad.mul(x, psi))
    x, q = ad.select(at_zero, _one(x), x), ad.select(at_zero, _one(q), q)
    by_sum = ad.neg(ad.mul(x, bind(zeta, ad.add(x, _one(x)), q)))
    far_q = ad.full_like(q, 1e4)
    far = prims.and_(
        prims.and_(prims.compare(q, far_q, "GE"), prims.compare(x, ad.zeros_like(x), "GT")),
        prims.compare(ad.scale(x, 1e4), q, "LE"),
    )
    qs, xs = ad.select(far, q, far_q), ad.select(far, x, _one(x))
    ratio = ad.div(xs, qs)
    head = ad.add(
        _one(xs),
        ad.add(ad.scale(ratio, 0.5), ad.div(ad.mul(ratio, ad.add(xs, _one(xs))), ad.scale(qs, 12.0))),
    )
    asymptotic = ad.neg(ad.mul(_ew("pow", qs, ad.neg(xs)), head))
    return ad.select(at_zero, expansion, ad.select(far, asymptotic, by_sum))


def _zeta_dx_wide(x, q):
    """_zeta_dx, for float32 in float64 and rounded: its Euler-Maclaurin terms x (x + 1) ... (x + 2j - 2)
    overflow float32 from x = 100 on (inf * 0 = nan where a^-x has underflowed)."""
    if x.dtype.bits >= 64:
        return _zeta_dx(x, q)
    return prims.convert(_zeta_dx(prims.convert(x, "float64"), prims.convert(q, "float64")), x.dtype)


zeta = binary("zeta", chlo.zeta, "f", vjp=_zeta_vjp, reasons=_NO_FOLD,
              doc="the Hurwitz zeta function zeta(x, q); chlo.zeta")  # fmt: skip


# -- error function, Bessel ----------------------------------------------------
def _erfc_vjp(x, y, ct):
    return ad.mul(ad.scale(ct, -2 / np.sqrt(np.pi)), _ew("exp", ad.neg(_square(x))))


erfc = unary("erfc", chlo.erfc, "f", vjp=_erfc_vjp, reasons=_NO_FOLD,
             doc="1 - erf(x), exact where erf(x) is near 1; chlo.erfc")  # fmt: skip


bessel_i0e = unary("bessel_i0e", special_lowering.i0e, "f",
                   vjp=lambda x, y, ct: ad.mul(ct, bessel_slopes.i0e_slope(x)),
                   reasons=_NO_FOLD, doc="e^-|x| I0(x); Chebyshev series (special_lowering.i0e)")  # fmt: skip
bessel_i1e = unary("bessel_i1e", chlo.bessel_i1e, "f", vjp=lambda x, y, ct: ad.mul(ct, bessel_slopes.i1e_slope(x)),
                   reasons=_NO_FOLD,
                   doc="e^-|x| I1(x); chlo.bessel_i1e")  # fmt: skip


# -- incomplete gamma and beta -------------------------------------------------
def _check_reals(name: str, *tys: TensorType) -> TensorType:
    first = tys[0]
    if any(t.shape != first.shape or t.dtype is not first.dtype for t in tys):
        raise GraphError(f"{name} wants operands of equal shape and dtype, got {', '.join(map(str, tys))}")
    if first.dtype.kind != "f" or first.dtype.bits < 32:
        raise GraphError(f"{name} wants float32 or float64 operands, got {first}")
    return first


def _igamma_dx(a, x):
    """d/dx P(a, x) = x^(a-1) e^-x / Gamma(a), with x^0 = 1 at x = 0 (P(1, x) = 1 - e^-x has slope
    1 there; (a - 1) log x alone is 0 * -inf = nan)."""
    power = ad.mul(ad.sub(a, _one(a)), _ew("log", x))
    at_one_zero = prims.and_(prims.compare(a, _one(a), "EQ"), prims.compare(x, ad.zeros_like(x), "EQ"))
    power = ad.select(at_one_zero, ad.full_like(a, 0.0), power)
    return _ew("exp", ad.sub(ad.sub(power, x), bind(lgamma, a)))


def _igamma_op(name: str, which: str, sign: float, doc: str) -> OpDef:
    def lower(ctx, attrs, a, x):
        return special_lowering.igamma(ctx.in_types[0], a, x, which)

    def vjp(ctx, attrs, xs, ys, cts):
        (a, x), ct = xs, cts[0]
        ct_a = ad.scale(ad.mul(ct, bind(igamma_grad_a, a, x)), sign)
        return [ct_a, ad.scale(ad.mul(ct, _igamma_dx(a, x)), sign)]

    return OpDef(name, lambda attrs, a, x: _check_reals(name, a, x), lower, vjp=vjp,
                 batch=batching.elementwise_batch, reasons=dict(_NO_FOLD), doc=doc,
                 traits=ELEMENTWISE)  # fmt: skip


def _igamma_grad_a_lower(ctx, attrs, a, x):
    return special_lowering.igamma(ctx.in_types[0], a, x, "grad_a")


def _igamma_grad_a_vjp(ctx, attrs, xs, ys, cts):
    # d/dx dP/da = d/da dP/dx = dP/dx (log x - digamma(a)); JAX stops at first order in a, so the
    # second derivative in a comes from central differences of this op
    (a, x), ct = xs, cts[0]
    ct_x = ad.mul(ct, ad.mul(_igamma_dx(a, x), ad.sub(_ew("log", x), bind(digamma, a))))
    h = _difference_step(a)
    up, down = _stacked_bind(igamma_grad_a, [(ad.add(a, h), x), (ad.add(a, ad.neg(h)), x)])
    return [ad.mul(ct, _difference_quotient(up, down, h)), ct_x]


igamma_grad_a = OpDef(
    "igamma_grad_a", lambda attrs, a, x: _check_reals("igamma_grad_a", a, x), _igamma_grad_a_lower,
    vjp=_igamma_grad_a_vjp, batch=batching.elementwise_batch, traits=ELEMENTWISE, reasons=dict(_NO_FOLD),
    doc="d/da of the regularized lower incomplete gamma P(a, x); series and continued fraction",
)  # fmt: skip
igamma = _igamma_op("igamma", "lower", 1.0,
                    "the regularized lower incomplete gamma P(a, x); series and continued fraction")  # fmt: skip
igammac = _igamma_op("igammac", "upper", -1.0,
                     "the regularized upper incomplete gamma Q(a, x) = 1 - P(a, x)")  # fmt: skip


def _betainc_lower(ctx, attrs, a, b, x):
    return special_lowering.betainc(ctx.in_types[0], a, b, x)


def _betainc_vjp(ctx, attrs, xs, ys, cts):
    (a, b, x), ct = xs, cts[0]
    log_beta = ad.sub(ad.add(bind(lgamma, a), bind(lgamma, b)), bind(lgamma, ad.add(a, b)))
    log_dx = ad.add(
        ad.mul(ad.sub(b, _one(b)), _ew("log1p", ad.neg(x))), ad.mul(ad.sub(a, _one(a)), _ew("log", x))
    )
    ct_x = ad.mul(ct, _ew("exp", ad.sub(log_dx, log_beta)))
    h_a, h_b = _difference_step(a), _difference_step(b)
    # the four shifted evaluations as one betainc (one copy of its thousands of ops to compile)
    a_up, a_down, b_up, b_down = _stacked_bind(betainc, [
        (ad.add(a, h_a), b, x), (ad.add(a, ad.neg(h_a)), b, x), (a, ad.add(b, h_b), x), (a, ad.add(b, ad.neg(h_b)), x),
    ])  # fmt: skip
    return [ad.mul(ct, _difference_quotient(a_up, a_down, h_a)),
            ad.mul(ct, _difference_quotient(b_up, b_down, h_b)), ct_x]  # fmt: skip


def _difference_step(at):
    """h = eps^(1/3) max(|at|, 1): the central difference's step that balances truncation and rounding."""
    size = _ew("abs", at)
    one = _one(at)
    scale = ad.select(prims.compare(size, one, "GT"), size, one)
    return ad.scale(scale, float(np.finfo(at.dtype.np).eps) ** (1 / 3))


def _difference_quotient(up, down, step):
    """(f(at + h) - f(at - h)) / 2h."""
    return ad.div(ad.sub(up, down), ad.scale(step, 2))


def _stacked_bind(op: OpDef, calls):
    """The elementwise ``op`` bound once on each operand position's tensors stacked along a new
    leading axis, then split again: one result per operand tuple in ``calls``, each lane computed
    as op computes it alone, and op's lowering in the program once instead of len(calls) times
    (four betaincs in its vjp were four copies of its thousands of ops for XLA to compile)."""
    shape = calls[0][0].shape
    row = (1, *shape)
    kept = tuple(range(1, len(shape) + 1))
    columns = [prims.concatenate([prims.broadcast_in_dim(v, row, kept) for v in operands], 0)
               for operands in zip(*calls)]  # fmt: skip
    out = bind(op, *columns)
    zeros = (0,) * len(shape)
    return [prims.reshape(bind(lookup("slice"), out, start_indices=(i, *zeros), limit_shape=(i + 1, *shape),
                                strides=(1,) * len(row)), shape)
            for i in range(len(calls))]  # fmt: skip


betainc = OpDef(
    "betainc", lambda attrs, a, b, x: _check_reals("betainc", a, b, x), _betainc_lower, vjp=_betainc_vjp,
    batch=batching.elementwise_batch, reasons=dict(_NO_FOLD), traits=ELEMENTWISE,
    doc="the regularized incomplete beta I_x(a, b); continued fraction",
)  # fmt: skip


# -- bits and neighbours -------------------------------------------------------
nextafter = binary("nextafter", chlo.next_after, "f",
                   reasons={"vjp": "JAX defines no derivative of nextafter", **_NO_FOLD}, doc="the next float after x toward y; chlo.next_after")  # fmt: skip
population_count = unary("population_count", sh.popcnt, INTEGER, reasons=_INTEGER_OP,
                         doc="the number of set bits; stablehlo.popcnt")  # fmt: skip
clz = unary("clz", sh.count_leading_zeros, INTEGER, reasons=_INTEGER_OP,
            doc="the number of leading zero bits; stablehlo.count_leading_zeros")  # fmt: skip

UNARY = (asin, acos, atan, sinh, cosh, asinh, acosh, atanh, lgamma, digamma, erfc, bessel_i0e, bessel_i1e)
BINARY = (polygamma, zeta, nextafter, igamma, igammac, igamma_grad_a)
__all__ = ["UNARY", "BINARY", "betainc", "population_count", "clz"]
