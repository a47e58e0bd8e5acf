"""StableHLO numerics of digamma and polygamma, within an ulp or two where XLA's are not (ops layer, rule helpers).

chlo.digamma (a Lanczos sum) is 5 to 22 ulps off in float64 at ordinary
points (psi(1) = -0.5772156649015334 for ...329, psi(1.5) 16 ulps, psi(-0.5)
22), and chlo.polygamma takes m! as exp(lgamma(m + 1)), which XLA folds 3
to 10 ulps off when the order is a constant of the program (trigamma(1) =
1.644934066848228 for pi^2/6 = 1.6449340668482264): every digamma slope
carried that bias. Here, in float64 whatever the input's float type:

- ``digamma``: on [1, 10) psi(x) = (x - x0) P(x) / Q(x), x0 the positive
  root of psi in two parts (so that x - x0 keeps its digits next to the
  root), P and Q polynomials with positive coefficients (no cancellation);
  on (0, 1) that at x + 1 less 1/x (the factor x - (x0 - 1), exact); from
  10 on log x - 1/(2x) - sum B_2k / (2k x^2k); below 0 the reflection
  psi(1 - x) - pi cot(pi x), cot taken at x less its nearest whole number
  (exact); nan at 0, -0 and the negative whole numbers (jax's convention);
  at the whole numbers 1 .. 128 H_(n-1) - euler, correctly rounded, from a
  table (a count's log-pmf slope log mu - psi(k + 1) cancels: at (2, 2.5)
  140x, which made psi(3)'s 2 ulps 250).
- ``polygamma``: digamma at m = 0, (-1)^(m+1) m! zeta(m + 1, x) at a whole
  m > 0, nan at any other m. An order that is a constant of the program
  (digamma's slope binds one) gets its sign and m! from Python; a fed one
  has m! as an exact product up to 20, exp(lgamma(m + 1)) beyond. Below 0
  (off the poles) the reflection (-1)^m psi^(m)(1 - x) - pi^(m+1) P_m(cot pi x),
  P_m the polynomial of cot's m-th derivative (XLA's zeta at negative x is far
  off from x = -5 on: psi'(-9.9) = -8.7e29 for 103.26, jax's too; a fed
  order up to 4, zeta's value beyond); from x = 2^60 on psi's asymptotic series
  (zeta gives 0 once x^2 overflows).

P / Q is a rational fit (linearized least squares, reweighted, 40 digits
with mpmath) of relative error 7.5e-19 on [1, 10];
tests/ops/scipy_like/test_gamma_family_digits.py checks it against mpmath.
"""

from __future__ import annotations

import decimal
import fractions
import functools
import math

import numpy as np

from ...graph import TensorType
from . import hlo
from .special_lowering import Emitter, tensor_type_of

sh, chlo = hlo.sh, hlo.chlo

# x0 = 1.461632144968362341262659542325721328468..., split so that hi + lo holds it to 1e-32
PSI_ROOT_HI, PSI_ROOT_LO = 1.4616321449683622, 9.549995429965697e-17
# psi(x) / (x - x0) = P(x) / Q(x) on [1, 10] (coefficients of x^0, x^1, ...): relative error 7.5e-19
PSI_OVER_ROOT = (
    (0.00033927544813508557, 0.0011835552454054704, 0.0012905204625604722, 0.0006206135448755952,
     0.00014635115190886233, 1.714843499687816e-05, 9.465440150846604e-07, 2.1409661978358655e-08,
     1.4148707385614212e-10, 4.54495136751195e-14),
    (5.457355438105202e-13, 0.0004958958948749444, 0.0011044080959331532, 0.0008809452440782248,
     0.0003286765102537301, 6.183541709093829e-05, 5.845142842069735e-06, 2.597521249843951e-07,
     4.636900922961402e-09, 2.2557208296281285e-11),
)  # fmt: skip
_RATIONAL_FROM, _ASYMPTOTIC_FROM = 1.0, 10.0  # P / Q on [1, 10), the asymptotic series beyond
# the Bernoulli numbers B_2, B_4, ..., B_16
BERNOULLI_2K = tuple(fractions.Fraction(n, d) for n, d in ((1, 6), (-1, 30), (1, 42), (-1, 30), (5, 66), (-691, 2730), (7, 6), (-3617, 510)))  # fmt: skip
# B_2k / (2k), k = 1 .. 8: psi's asymptotic series in 1 / x^2k (the 9th term is 3e-18 at x = 10)
PSI_ASYMPTOTIC = tuple(float(b / (2 * k)) for k, b in enumerate(BERNOULLI_2K, start=1))
_WHOLE_TABLE_TO = 128  # psi(1), ..., psi(128) from a table of correctly rounded values
EULER = decimal.Decimal("0.57721566490153286060651209008240243104215933593992")  # 50 digits
_EXACT_FACTORIALS_TO = 20  # m! for m up to this is a product of whole numbers (exact to 18!)
_FED_REFLECTED = 4  # a fed order at negative x: reflected up to this m, zeta's value beyond


def digamma(x):
    """psi(x) of a float value (computed in float64, rounded back to x's type)."""
    ty = tensor_type_of(x)
    wide = ty.dtype.name == "float64"
    e = Emitter(TensorType(ty.shape, "float64"))
    out = _digamma(e, x if wide else sh.convert(hlo.tensor_type(e.ty), x))
    return out if wide else sh.convert(hlo.tensor_type(ty), out)


def _digamma(e: Emitter, x):
    one = e.const(1.0)
    negative = e.cmp(x, e.const(0.0), "LT")
    p = e.select(negative, sh.subtract(one, x), x)  # the reflection's 1 - x: >= 1
    below_one = e.cmp(p, e.const(_RATIONAL_FROM), "LT")
    far = e.cmp(p, e.const(_ASYMPTOTIC_FROM), "GE")
    # (x - x0) P / Q on [1, 10); below 1 at x + 1 (rounding x + 1 moves the smooth P / Q by an ulp
    # at most; its factor x - (x0 - 1) is exact), less 1 / x
    z = e.select(below_one, sh.add(p, one), p)
    top, bottom = PSI_OVER_ROOT
    rational = sh.divide(_horner(e, top, z), _horner(e, bottom, z))
    root_hi = e.select(below_one, e.const(PSI_ROOT_HI - 1.0), e.const(PSI_ROOT_HI))
    factor = sh.subtract(sh.subtract(p, root_hi), e.const(PSI_ROOT_LO))
    near = sh.multiply(factor, rational)
    near = e.select(below_one, sh.subtract(near, sh.divide(one, p)), near)
    # from 10 on: log x - 1/(2x) - sum_k B_2k / (2k x^2k)
    far_x = e.select(far, p, e.const(_ASYMPTOTIC_FROM))
    w = sh.divide(one, sh.multiply(far_x, far_x))
    small = sh.add(sh.divide(e.const(0.5), far_x), sh.multiply(_horner(e, PSI_ASYMPTOTIC, w), w))
    out = e.select(far, sh.subtract(sh.log(far_x), small), near)
    out = e.select(negative, sh.subtract(out, _cot_pi(e, x, math.pi)), out)
    out = _at_whole_numbers(e, x, out)
    pole = sh.and_(e.cmp(x, e.const(0.0), "LE"), e.cmp(x, sh.floor(x), "EQ"))
    out = e.select(pole, e.const(math.nan), out)
    return e.select(e.cmp(x, x, "NE"), x, out)


@functools.cache
def exact_psi_of_whole_numbers(count: int) -> tuple[decimal.Decimal, ...]:
    """psi(1), ..., psi(count) = H_(n-1) - euler to 50 digits (exact harmonic sums)."""
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        harmonic, out = fractions.Fraction(0), []
        for n in range(1, count + 1):
            out.append(decimal.Decimal(harmonic.numerator) / decimal.Decimal(harmonic.denominator) - EULER)
            harmonic += fractions.Fraction(1, n)
    return tuple(out)


def _at_whole_numbers(e: Emitter, x, out):
    """out, with psi's correctly rounded value where x is a whole number from 1 to _WHOLE_TABLE_TO."""
    values = np.array([float(v) for v in exact_psi_of_whole_numbers(_WHOLE_TABLE_TO)])
    table = hlo.constant(values, e.ty.dtype)
    inside = sh.and_(e.cmp(x, e.const(1.0), "GE"), e.cmp(x, e.const(float(_WHOLE_TABLE_TO)), "LE"))
    whole = sh.and_(inside, e.cmp(x, sh.floor(x), "EQ"))
    at = sh.subtract(sh.clamp(e.const(1.0), x, e.const(float(_WHOLE_TABLE_TO))), e.const(1.0))
    shape = tuple(e.ty.shape)
    index = sh.convert(
        hlo.tensor_type(TensorType((*shape, 1), "int32")),
        sh.reshape(hlo.tensor_type(TensorType((*shape, 1), "float64")), at),
    )
    numbers = sh.GatherDimensionNumbers.get(
        offset_dims=[],
        collapsed_slice_dims=[0],
        operand_batching_dims=[],
        start_indices_batching_dims=[],
        start_index_map=[0],
        index_vector_dim=len(shape),
    )
    looked_up = sh.gather(table, index, numbers, hlo.dense_i64([1]), results=[hlo.tensor_type(e.ty)])
    return e.select(whole, looked_up, out)


def _horner(e: Emitter, coefs, w):
    """sum_k coefs[k] w^k."""
    out = e.const(coefs[-1])
    for c in coefs[-2::-1]:
        out = sh.add(sh.multiply(out, w), e.const(c))
    return out


def _cot_pi(e: Emitter, x, factor: float = 1.0):
    """factor cot(pi x) (digamma's reflection takes pi cot(pi x)), taken at r = x less its nearest whole
    number (exact) and, for |r| > 1/4, as tan(pi (1/2 - |r|)): cos(pi r) / sin(pi r) would keep cos's
    6e-17 at r = 1/2 (psi(-0.5) 5 ulps)."""
    top, bottom, negative = _cot_parts(e, x)
    top = top if factor == 1.0 else sh.multiply(e.const(factor), top)
    cot = sh.divide(top, bottom)
    return e.select(negative, sh.negate(cot), cot)


def _cot_parts(e: Emitter, x):
    """cot(pi |r|) as a quotient (top, bottom) of a cosine and a sine, and whether r < 0 (r = x less
    its nearest whole number)."""
    r = sh.subtract(x, sh.round_nearest_even(x))
    a = sh.abs(r)
    pi = e.const(math.pi)
    inner = e.cmp(a, e.const(0.25), "LE")
    half_less = sh.subtract(e.const(0.5), a)  # exact for |r| >= 1/4
    angle = e.select(inner, sh.multiply(pi, a), sh.multiply(pi, half_less))
    cos, sin = sh.cosine(angle), sh.sine(angle)
    return e.select(inner, cos, sin), e.select(inner, sin, cos), e.cmp(r, e.const(0.0), "LT")


@functools.cache
def cot_derivative_polynomial(m: int) -> tuple[int, ...]:
    """The coefficients (of c^0, c^1, ...) of P_m, d^m/dy^m cot(y) = P_m(cot y): P_0 = c, P_(m+1) =
    -(1 + c^2) P_m' (each has coefficients of one sign, every other one 0)."""
    p = [0, 1]
    for _ in range(m):
        slope = [k * p[k] for k in range(1, len(p))]
        p = [0] * (len(slope) + 2)
        for i, v in enumerate(slope):
            p[i] -= v
            p[i + 2] -= v
    return tuple(p)


def _cot_derivative(e: Emitter, m: int, c):
    """pi^(m+1) P_m(c) by Horner's rule in c^2 (times c for odd m): its terms have one sign."""
    coefs = cot_derivative_polynomial(m)[(m + 1) % 2 :: 2]  # P_m is odd for even m, even for odd m
    out = _horner(e, [float(v) for v in coefs], sh.multiply(c, c))
    out = sh.multiply(out, c) if m % 2 == 0 else out
    return sh.multiply(e.const(math.pi ** (m + 1)), out)


def _reflecting(e: Emitter, x):
    """Where polygamma takes the reflection: x < 0, finite, not a pole."""
    negative = sh.and_(e.cmp(x, e.const(0.0), "LT"), e.cmp(x, sh.floor(x), "NE"))
    return sh.and_(negative, e.cmp(x, e.const(-math.inf), "GT"))


def _reflected(e: Emitter, reflect, value, mirrored, cot_term):
    """psi^(m)(x) from ``value`` = psi^(m) at x, or at 1 - x where ``reflect``: there ``mirrored`` =
    (-1)^m value less pi^(m+1) P_m(cot pi x) (``cot_term``). XLA's zeta(m + 1, x) at negative x is far
    off from x = -5 on (psi'(-9.9) came out -8.7e29 for 103.26, jax's too)."""
    return e.select(reflect, sh.subtract(mirrored, cot_term), value)


def polygamma(m, x):
    """The m-th derivative of psi at x, for float values m and x of one type. An order that is a
    constant of the program (digamma's slope binds one) is read here: its sign and m! are Python's."""
    ty = tensor_type_of(x)
    if ty.dtype.name in ("float16", "bfloat16"):  # in float32, as chlo's
        wide = hlo.tensor_type(TensorType(ty.shape, "float32"))
        return sh.convert(hlo.tensor_type(ty), polygamma(sh.convert(wide, m), sh.convert(wide, x)))
    e = Emitter(ty)
    one = e.const(1.0)
    reflect = _reflecting(e, x)
    order = _constant_value(m)
    if order is not None and _whole_with_factorial(order, ty):
        if order == 0:
            return digamma(x)
        k = int(order)
        value = _constant_order(e, k, e.select(reflect, sh.subtract(one, x), x))  # zeta is right for x > 0
        mirrored = sh.negate(value) if k % 2 else value
        return _reflected(e, reflect, value, mirrored, _cot_derivative(e, k, _cot_pi(e, x)))
    zero = e.const(0.0)
    whole = sh.and_(e.cmp(m, sh.floor(m), "EQ"), e.cmp(m, zero, "GE"))
    factorial = one
    for i in range(2, _EXACT_FACTORIALS_TO + 1):
        k = e.const(float(i))
        factorial = e.select(e.cmp(k, m, "LE"), sh.multiply(factorial, k), factorial)
    big = e.cmp(m, e.const(float(_EXACT_FACTORIALS_TO)), "GT")
    factorial = e.select(big, sh.exponential(chlo.lgamma(sh.add(m, one))), factorial)
    half = sh.multiply(m, e.const(0.5))
    odd = e.cmp(half, sh.floor(half), "NE")  # (-1)^(m+1) = 1
    # a fed order is reflected up to m = _FED_REFLECTED (a polynomial each in the graph); beyond, zeta
    # at x (right near 0, off from about x = -5 on)
    reflect = sh.and_(reflect, e.cmp(m, e.const(float(_FED_REFLECTED)), "LE"))
    c = _cot_pi(e, x)
    cot_term = e.const(0.0)
    for k in range(1, _FED_REFLECTED + 1):
        cot_term = e.select(e.cmp(m, e.const(float(k)), "EQ"), _cot_derivative(e, k, c), cot_term)
    value = _fed_order(e, m, e.select(reflect, sh.subtract(one, x), x), factorial, odd)
    out = _reflected(e, reflect, value, e.select(odd, sh.negate(value), value), cot_term)
    out = e.select(e.cmp(m, zero, "EQ"), digamma(x), out)
    return e.select(whole, out, e.const(math.nan))


def _constant_order(e: Emitter, k: int, x):
    """psi^(k)(x) = (-1)^(k+1) k! zeta(k + 1, x) for a whole constant k >= 1 (right for x > 0)."""
    size = sh.multiply(e.const(float(math.factorial(k))), chlo.zeta(e.const(k + 1.0), x))
    u = sh.divide(e.const(1.0), x)
    power = u
    for _ in range(k - 1):
        power = sh.multiply(power, u)
    size = _far_from_zero(e, x, u, size, sh.multiply(e.const(float(math.factorial(k - 1))), power), k)
    return size if k % 2 else sh.negate(size)


def _fed_order(e: Emitter, m, x, factorial, odd):
    """psi^(m)(x) = (-1)^(m+1) m! zeta(m + 1, x) for a whole m >= 1 given as a value (right for x > 0)."""
    size = sh.multiply(factorial, chlo.zeta(sh.add(m, e.const(1.0)), x))
    u = sh.divide(e.const(1.0), x)
    size = _far_from_zero(e, x, u, size, sh.multiply(sh.divide(factorial, m), sh.power(u, m)), m)
    return e.select(odd, size, sh.negate(size))


def _far_from_zero(e: Emitter, x, u, size, lead, m):
    """|psi^(m)(x)| = m! zeta(m + 1, x) (``size``), or for finite x from 2^60 on its asymptotic (m - 1)! /
    x^m (1 + m / (2x)) from ``lead`` = (m - 1)! / x^m and u = 1 / x (the next term is x^-2 of it):
    chlo.zeta gives 0 once x^2 overflows (trigamma(1.34e154), 7.5e-155), which made d/db B(2.2e-16,
    1.34e154) 0. At x = inf zeta's nan stays, as jax's."""
    m = e.const(float(m)) if isinstance(m, int) else m
    series = sh.multiply(lead, sh.add(e.const(1.0), sh.multiply(sh.multiply(m, e.const(0.5)), u)))
    far = sh.and_(e.cmp(x, e.const(2.0**60), "GE"), e.cmp(x, e.const(math.inf), "LT"))
    return e.select(far, series, size)


def _whole_with_factorial(order: float, ty: TensorType) -> bool:
    """Whether a constant order is a whole m >= 0 whose m! the result's type holds."""
    if not (math.isfinite(order) and order == math.floor(order) and order >= 0):
        return False
    return order <= 170 and math.factorial(int(order)) <= float(np.finfo(ty.dtype.np).max)


def _constant_value(v) -> float | None:
    """The one value of an MLIR value that is a constant filled with it (or a broadcast of a
    scalar constant), else None."""
    op = v.owner
    if getattr(op, "name", None) == "stablehlo.broadcast_in_dim":
        op = op.operands[0].owner
    if getattr(op, "name", None) != "stablehlo.constant":
        return None
    values = np.asarray(hlo.ir.DenseElementsAttr(op.attributes["value"]))
    flat = values.reshape(-1)
    return float(flat[0]) if flat.size and (flat == flat[0]).all() else None
