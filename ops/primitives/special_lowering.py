"""StableHLO numerics for special functions that have no chlo op (ops layer, rule helpers).

The lowerings of bessel_i0e, igamma, igammac, igamma_grad_a and betainc
(ops/transcendental.py) build their values here, elementwise on MLIR values
of one tensor type:

- ``i0e``: Chebyshev series of e^-|x| I0(x) on [0, 8] and of sqrt(x) e^-x I0(x)
  in 1/x beyond, evaluated by Clenshaw's recurrence. The 32 coefficients of
  each are computed once, at import, from I0's power series (Hankel's
  expansion far out) in long double, so they are exact to float64 and the
  float64 values are within a few ulps (numpy's i0 times e^-x, interpolated in
  float64, left them 70 ulps off).
- ``igamma``: the regularized lower incomplete gamma P(a, x) by its power
  series where x < a + 1 and the upper Q(a, x) by Legendre's continued
  fraction (modified Lentz) elsewhere (for Q also from x = max(a, 1) on when
  a < 8), each a ``stablehlo.while`` that runs until every element it serves
  has converged (and, for dP/da only, its d/da: more steps than the value
  needs round the value more). The fraction and its d/da are then summed
  again backward from a quarter past that count, a second loop whose
  rounding does not compound as Lentz's running product does. With
  ``derivative=True`` the loops also carry d/da of every term (forward mode by
  hand), giving dP/da. The factor x^a e^-x / Gamma(a) in front of both is a
  product of pow, exp and Gamma(1 + a) (lgamma1p's series times exact factors)
  for a < 8, Stirling's form with bd0 = a log(a/x) + x - a near a large a's
  mode (gamma_fronts); exp(a log x - x - lgamma(a)) would round a log of
  hundreds, and XLA's lgamma itself is up to 32 ulps off (at 1.5).
- ``betainc``: the regularized incomplete beta I_x(a, b) by its continued
  fraction, on the side of the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where
  it converges fast.

Lanes that have converged are frozen (selects), so a vectorized call gives
bit for bit the per-lane values whatever the other lanes need. Where one
formula is needed at several operands (betainc's front holds five Gamma
products, igamma two fronts) it is evaluated once on the operands stacked
(``stacked``): XLA's compile time grows with a program's op count.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ...graph import TensorType
from . import hlo

sh, chlo = hlo.sh, hlo.chlo
# a lane needs O(sqrt(a)) steps where x is near a large a (1e5 at a = 1e8, as jax's loops run)
MAX_ITERATIONS = 200_000


class Emitter:
    """Elementwise arithmetic on MLIR values of one tensor type (floats), spelled as methods."""

    def __init__(self, ty: TensorType):
        self.ty = ty
        self.bool_ty = TensorType(ty.shape, "bool")
        self.eps = float(np.finfo(ty.dtype.np).eps)
        self.tiny = float(np.finfo(ty.dtype.np).tiny) * 1e3

    def const(self, value):
        return hlo.full(self.ty.shape, value, self.ty.dtype)

    def cmp(self, x, y, direction: str):
        return hlo.compare(x, y, direction, self.ty.dtype)

    def select(self, pred, x, y):
        return sh.select(pred, x, y)

    def clamp_tiny(self, x):
        """x, with values smaller in size than ``tiny`` replaced by tiny (Lentz's guard against 0)."""
        return self.select(self.cmp(sh.abs(x), self.const(self.tiny), "LT"), self.const(self.tiny), x)

    def any(self, pred):
        scalar = hlo.scalar_type(self.bool_ty.dtype)
        init = hlo.constant(np.asarray(False), self.bool_ty.dtype)
        op = sh.ReduceOp([scalar], [pred], [init], hlo.dense_i64(range(len(self.ty.shape))))
        hlo.reduce_region(op.body, self.bool_ty.dtype, sh.or_)
        return op.result


def stacked(e: Emitter, fn, calls):
    """``fn(emitter, *operands)`` for each operand tuple in ``calls``, as one evaluation on the
    operands stacked along a new leading axis. fn is elementwise, so each call's lanes go through
    the ops they would alone (XLA's fusions around them may still move a last bit); the program
    holds fn's ops once instead of len(calls) times, and XLA's compile time grows with the op
    count (betainc's lowering went from 2497 ops to about 1300). Returns one result (or tuple of
    results, as fn gives) per call."""
    shape, dtype = e.ty.shape, e.ty.dtype
    row = hlo.tensor_type(TensorType((1, *shape), dtype))
    columns = [sh.concatenate([sh.reshape(row, v) for v in operands], 0) for operands in zip(*calls)]
    outs = fn(Emitter(TensorType((len(calls), *shape), dtype)), *columns)
    several = isinstance(outs, tuple)
    single = hlo.tensor_type(e.ty)

    def part(out, i):
        piece = sh.slice(out, hlo.dense_i64([i] + [0] * len(shape)), hlo.dense_i64([i + 1, *shape]),
                         hlo.dense_i64([1] * (len(shape) + 1)))  # fmt: skip
        return sh.reshape(single, piece)

    return [tuple(part(o, i) for o in outs) if several else part(outs, i) for i in range(len(calls))]


def _loop(e: Emitter, active, carry, step):
    """Run ``step(carry) -> (carry, still_going)`` while any lane is active (and at most
    MAX_ITERATIONS times); a lane stops for good when ``still_going`` turns false."""
    i32 = TensorType((), "int32")
    count0 = hlo.constant(np.int32(0), i32.dtype)

    def cond(count, act, *values):
        more = hlo.compare(count, hlo.constant(np.int32(MAX_ITERATIONS), i32.dtype), "LT", i32.dtype)
        return sh.and_(more, e.any(act))

    def body(count, act, *values):
        new, going = step(list(values))
        kept = [e.select(act, n, v) for n, v in zip(new, values)]
        count = sh.add(count, hlo.constant(np.int32(1), i32.dtype))
        return [count, sh.and_(act, going), *kept]

    return hlo.while_loop([count0, active, *carry], cond, body)[2:]


# -- i0e -----------------------------------------------------------------------
_LD = np.longdouble  # 80-bit on x86-64: the coefficients come out exact to float64
_PI = np.arccos(_LD(-1))


def _chebyshev_coefficients(fn, n: int = 32) -> np.ndarray:
    """The first n Chebyshev coefficients of fn on [-1, 1], by the discrete cosine sums over
    its values at the n Chebyshev points, in long double."""
    theta = _PI * (np.arange(n, dtype=_LD) + _LD(0.5)) / n
    values = fn(np.cos(theta))
    coefs = np.array([2 / _LD(n) * np.sum(values * np.cos(j * theta)) for j in range(n)])
    coefs[0] /= 2
    return coefs.astype(np.float64)


def _i0_series(x: np.ndarray) -> np.ndarray:
    """I0(x) = sum_k (x**2 / 4)**k / (k!)**2 in long double, for 0 <= x <= 500."""
    q, term, total = x * x / 4, np.ones_like(x), np.ones_like(x)
    for k in range(1, 1200):
        term = term * q / (k * k)
        total = total + term
    return total


def _scaled_i0_far(u: np.ndarray) -> np.ndarray:
    """sqrt(x) e^-x I0(x) at x = 8 / u: the series up to x = 500, Hankel's expansion beyond."""
    x = 8 / u
    near = np.minimum(x, 500)
    direct = np.sqrt(near) * np.exp(-near) * _i0_series(near)
    term, total = np.ones_like(x), np.ones_like(x)
    for k in range(1, 30):
        term = term * (2 * k - 1) ** 2 / (8 * k * x)
        total = total + term
    return np.where(x <= 500, direct, total / np.sqrt(2 * _PI))


def _i0e_near(t: np.ndarray) -> np.ndarray:
    x = 4 * (t + 1)  # [0, 8]
    return _i0_series(x) * np.exp(-x)


@functools.cache
def _i0e_coefficients() -> tuple[np.ndarray, np.ndarray]:
    """The Chebyshev coefficients of e^-x I0(x) on [0, 8] and, beyond 8, in u = 8 / x in (0, 1]
    (where sqrt(x) e^-x I0(x) is smooth in u); computed at the first lowering that needs them
    (12 ms: not at import)."""
    return _chebyshev_coefficients(_i0e_near), _chebyshev_coefficients(lambda t: _scaled_i0_far((t + 1) / 2))


def _clenshaw(e: Emitter, t, coefs):
    """sum_k c_k T_k(t) for t in [-1, 1]."""
    b1, b2 = e.const(0.0), e.const(0.0)
    two_t = sh.multiply(e.const(2.0), t)
    for c in coefs[:0:-1]:
        b1, b2 = sh.add(sh.subtract(sh.multiply(two_t, b1), b2), e.const(c)), b1
    return sh.add(sh.subtract(sh.multiply(t, b1), b2), e.const(coefs[0]))


def tensor_type_of(v) -> TensorType:
    """The TensorType of a floating MLIR value."""
    rt = hlo.ir.RankedTensorType(v.type)
    return TensorType(tuple(rt.shape), _FLOAT_NAMES[str(rt.element_type)])


_FLOAT_NAMES = {"f64": "float64", "f32": "float32", "f16": "float16", "bf16": "bfloat16"}


def i0e(x):
    """e^-|x| I0(x) of a float32 or float64 value."""
    e = Emitter(tensor_type_of(x))
    ax = sh.abs(x)
    i0e_near, i0e_far = _i0e_coefficients()
    near = _clenshaw(e, sh.subtract(sh.divide(ax, e.const(4.0)), e.const(1.0)), i0e_near)
    safe = e.select(e.cmp(ax, e.const(8.0), "LE"), e.const(8.0), ax)  # nan stays nan
    u = sh.divide(e.const(8.0), safe)
    far = sh.divide(
        _clenshaw(e, sh.subtract(sh.multiply(e.const(2.0), u), e.const(1.0)), i0e_far), sh.sqrt(safe)
    )
    return e.select(e.cmp(ax, e.const(8.0), "LE"), near, far)


# -- incomplete gamma ----------------------------------------------------------
def _gamma_series(e: Emitter, a, x, derivative: bool):
    """Initial carry and step of sum_n t_n (t_0 = 1, t_n = t_{n-1} x / (a + n)) and its d/da;
    P = x^a e^-x / Gamma(a + 1) * sum. A lane runs until the sum has settled (and d/da, where the
    ``derivative`` is wanted: more steps than the value needs round the value more)."""
    one, zero = e.const(1.0), e.const(0.0)

    def step(v):
        n, t, dt, s, ds = v
        n = sh.add(n, one)
        r = sh.divide(x, sh.add(a, n))
        t_new = sh.multiply(t, r)
        dt_new = sh.subtract(sh.multiply(dt, r), sh.divide(t_new, sh.add(a, n)))
        s, ds = sh.add(s, t_new), sh.add(ds, dt_new)
        going = _not_small(e, t_new, s)
        if derivative:
            going = sh.or_(going, _not_small(e, dt_new, ds))
        return [n, t_new, dt_new, s, ds], going

    return [zero, one, zero, one, zero], step


def _gamma_fraction(e: Emitter, a, x, derivative: bool):
    """Initial carry and step of Legendre's continued fraction h (Q = x^a e^-x / Gamma(a) * h) by
    modified Lentz, and of dh/da (run until settled as _gamma_series). Each step past h's own end
    multiplies it by a delta that rounds near 1: at a = 1 (where the fraction ends after one term)
    the steps d/da needs left Q(1, 2.1) 15 ulps off."""
    one, two, zero = e.const(1.0), e.const(2.0), e.const(0.0)
    b0 = sh.add(sh.subtract(x, a), one)
    d0 = sh.divide(one, e.clamp_tiny(b0))
    dd0 = sh.divide(d0, e.clamp_tiny(b0))  # d(1/b)/da with db/da = -1

    def step(v):
        i, b, c, dc, d, dd, h, dh = v
        i = sh.add(i, one)
        an = sh.multiply(sh.negate(i), sh.subtract(i, a))  # -i (i - a); d/da = i
        b = sh.add(b, two)
        den = e.clamp_tiny(sh.add(sh.multiply(an, d), b))
        dden = sh.subtract(sh.add(sh.multiply(i, d), sh.multiply(an, dd)), one)
        c_old = c
        c = e.clamp_tiny(sh.add(b, sh.divide(an, c_old)))
        dc = sh.subtract(sh.divide(sh.subtract(sh.multiply(i, c_old), sh.multiply(an, dc)),
                                   sh.multiply(c_old, c_old)), one)  # fmt: skip
        d = sh.divide(one, den)
        dd = sh.negate(sh.multiply(dden, sh.multiply(d, d)))
        delta = sh.multiply(d, c)
        ddelta = sh.add(sh.multiply(dd, c), sh.multiply(d, dc))
        h, dh = sh.multiply(h, delta), sh.add(sh.multiply(dh, delta), sh.multiply(h, ddelta))
        going = _not_small(e, sh.subtract(delta, one), one)
        if derivative:
            going = sh.or_(going, _not_small(e, sh.multiply(h, ddelta), dh))
        return [i, b, c, dc, d, dd, h, dh], going

    return [zero, b0, e.const(1.0 / e.tiny), zero, d0, dd0, d0, dd0], step


def _gamma_loop(e: Emitter, a, xs, xf, series, fraction, derivative: bool):
    """Both expansions in one loop (each lane needs one; a while loop costs compile time):
    the series sum and its d/da, the fraction h and its d/da."""
    s_init, s_step = _gamma_series(e, a, xs, derivative)
    f_init, f_step = _gamma_fraction(e, a, xf, derivative)
    k = len(s_init)

    def step(v):
        s_new, s_going = s_step(v[:k])
        f_new, f_going = f_step(v[k:])
        return [*s_new, *f_new], e.select(series, s_going, f_going)

    out = _loop(e, sh.or_(series, fraction), [*s_init, *f_init], step)
    return out[3], out[4], out[k + 6], out[k + 7], out[k]


# terms past the forward loop's own count (which stops where Lentz's factor rounds to 1): a quarter
# more and 5 keep the dropped tail below an ulp (with 5 alone, 3 ulps at a = 0.001, x = 1)
_BACKWARD_MARGIN, _BACKWARD_SCALE = 5.0, 1.25


def _fraction_backward(e: Emitter, a, x, count, active):
    """Legendre's fraction h = 1 / (b_0 + a_1 / (b_1 + a_2 / ...)) (b_n = x - a + 1 + 2n,
    a_n = -n (n - a)) and its dh/da, summed from the tail: t_N = b_N, t_(n-1) = b_(n-1) + a_n / t_n,
    h = 1 / t_0, with N the forward loop's ``count`` and a margin. Each backward step rounds once
    and the rounding does not compound as Lentz's running product does (18 ulps at a = 0.1, x = 2
    forward, within one backward); dt carries d/da (db/da = -1, da_n/da = n)."""
    one, two, zero = e.const(1.0), e.const(2.0), e.const(0.0)
    x_less_a = sh.subtract(x, a)
    n0 = sh.floor(sh.add(sh.multiply(count, e.const(_BACKWARD_SCALE)), e.const(_BACKWARD_MARGIN)))
    t0 = sh.add(sh.add(sh.multiply(two, n0), one), x_less_a)

    def step(v):
        n, t, dt = v
        an = sh.multiply(sh.negate(n), sh.subtract(n, a))
        t_safe = e.clamp_tiny(t)
        dt = sh.subtract(sh.divide(sh.subtract(sh.multiply(n, t_safe), sh.multiply(an, dt)),
                                   sh.multiply(t_safe, t_safe)), one)  # fmt: skip
        t = sh.add(sh.add(sh.subtract(sh.multiply(two, n), one), x_less_a), sh.divide(an, t_safe))
        n = sh.subtract(n, one)
        return [n, t, dt], e.cmp(n, zero, "GT")

    _, t, dt = _loop(e, active, [n0, t0, e.const(-1.0)], step)
    t = e.clamp_tiny(t)
    return sh.divide(one, t), sh.negate(sh.divide(dt, sh.multiply(t, t)))


def _not_small(e: Emitter, term, total):
    return e.cmp(sh.abs(term), sh.multiply(e.const(e.eps), sh.abs(total)), "GT")


def _zeta_minus_one(k: int) -> float:
    """zeta(k) - 1 for k >= 2: the sum to 999 and Euler-Maclaurin's tail (below 1e-17)."""
    n = 1000
    tail = [n ** (1.0 - k) / (k - 1), 0.5 * n**-k, k / 12 * n ** (-k - 1)]
    return math.fsum([m ** -float(k) for m in range(2, n)] + tail)


@functools.cache
def lgamma1p_coefficients() -> tuple[float, ...]:
    """lgamma(1 + a) = -euler a + sum_k (-a)^k zeta(k) / k, |a| <= 1/2: 55 terms reach 0.5^55 ~ 3e-17.
    Computed at first use (some ms: not at import); graph-level callers use them too
    (ops/scipy_like/lgamma1p.py)."""
    return (0.0, -0.5772156649015329) + tuple(
        (-1) ** k * (1.0 + _zeta_minus_one(k)) / k for k in range(2, 57)
    )


def __getattr__(name: str):
    if name == "LGAMMA1P_COEFFICIENTS":  # the table's name before it was computed on first use
        return lgamma1p_coefficients()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


SMALL_A, SMALL_X, _SMALL_TERMS = 0.5, 1.5, 32


def _lgamma1p(e: Emitter, a):
    """log Gamma(1 + a) for |a| <= 1/2 by its Taylor series: exact where 1 + a would round."""
    coefficients = lgamma1p_coefficients()
    total = e.const(coefficients[-1])
    for c in coefficients[-2::-1]:
        total = sh.add(sh.multiply(total, a), e.const(c))
    return total


def _upper_small_a(e: Emitter, a, x):
    """Q(a, x) for a <= 1/2, 0 < x <= 3/2, where Q = 1 - P would cancel (Q ~ a E1(x) as a -> 0):
    with u = x^a / Gamma(1 + a), Q = -expm1(log u) - u a sum_{n>=1} (-x)^n / (n! (a + n))."""
    one = e.const(1.0)
    log_u = sh.subtract(sh.multiply(a, sh.log(x)), _lgamma1p(e, a))
    term, total = one, e.const(0.0)
    for n in range(1, _SMALL_TERMS):
        term = sh.multiply(term, sh.divide(sh.negate(x), e.const(float(n))))  # (-x)^n / n!
        total = sh.add(total, sh.divide(term, sh.add(a, e.const(float(n)))))
    tail = sh.multiply(sh.multiply(sh.exponential(log_u), a), total)
    return sh.subtract(sh.negate(sh.exponential_minus_one(log_u)), tail)


# B_2k / (2k (2k - 1)), k = 1 .. 8: Stirling's correction w(a) = log Gamma(a) - (a - 1/2) log a + a - log(2 pi) / 2
_STIRLING_W = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400)
LARGE_A, _BD0_TERMS = 8.0, 30
_PRODUCT_X = 700.0  # exp(-x) stays a normal number below this


def _stirling_w(e: Emitter, a):
    """w(a) for a >= 8 (below 1e-16 from its 8 terms on)."""
    t = sh.divide(e.const(1.0), a)
    t2 = sh.multiply(t, t)
    total = e.const(_STIRLING_W[-1])
    for c in _STIRLING_W[-2::-1]:
        total = sh.add(sh.multiply(total, t2), e.const(c))
    return sh.multiply(total, t)


def _bd0(e: Emitter, a, x):
    """a log(a / x) + x - a >= 0 without its cancellation near x = a: with v = (a - x) / (a + x) it is
    (a - x) v + 2 a sum_j v^(2j+1) / (2j+1), j >= 1, for |v| < 1/2; directly beyond (no cancellation
    there worth a digit). Halves keep a + x finite at the largest floats."""
    half = e.const(0.5)
    v = sh.divide(sh.subtract(sh.multiply(a, half), sh.multiply(x, half)),
                  sh.add(sh.multiply(a, half), sh.multiply(x, half)))  # fmt: skip
    near = e.cmp(sh.abs(v), half, "LT")
    vs = e.select(near, v, e.const(0.0))
    v2 = sh.multiply(vs, vs)
    term = sh.multiply(sh.multiply(a, vs), e.const(2.0))
    total = sh.multiply(sh.subtract(a, x), vs)
    for j in range(1, _BD0_TERMS):
        term = sh.multiply(term, v2)
        total = sh.add(total, sh.divide(term, e.const(2.0 * j + 1.0)))
    direct = sh.subtract(sh.add(sh.multiply(a, sh.log(sh.divide(a, x))), x), a)
    return e.select(near, total, direct)


def _gamma1p_small(e: Emitter, a, below: int = int(LARGE_A)):
    """Gamma(1 + a) for 0 <= a < below (8 unless asked): Gamma(1 + t) (t = a - n in [-1/2, 1/2],
    n = floor(a + 1/2), by _lgamma1p) times (t + 1) ... (t + n), each factor exact."""
    one = e.const(1.0)
    n = sh.floor(sh.add(a, e.const(0.5)))
    t = sh.subtract(a, n)
    out = sh.exponential(_lgamma1p(e, t))
    for k in range(1, below + 1):
        kk = e.const(float(k))
        out = sh.multiply(out, e.select(e.cmp(kk, n, "LE"), sh.add(t, kk), one))
    return out


def gamma_fronts(e: Emitter, a, x):
    """x^a e^-x / Gamma(a + 1) and x^a e^-x / Gamma(a) (the series' and the fraction's factors), for
    a > 0, x > 0. exp(a log x - x - lgamma(a)) rounds a log x and lgamma(a) (XLA's lgamma is up to 32
    ulps off, at 1.5) into a sum whose error the exp keeps: 5 to 500 ulps. Instead: for a < 8 and
    x < 700 the product pow(x, a) exp(-x) / Gamma(1 + a), each factor within an ulp; for a >= 8
    exp(-bd0(a, x) - log(2 pi a) / 2 - w(a)) (Stirling, with the cancelling a log x - a log a
    - x + a gathered in bd0) from x = a / 3 up; the log form elsewhere (x >= 700, where the factor
    is below 1e-280, and far below a large a's mode)."""
    one = e.const(1.0)
    small = e.cmp(a, e.const(LARGE_A), "LT")
    product = sh.and_(small, e.cmp(x, e.const(_PRODUCT_X), "LT"))
    a_p = e.select(product, a, one)
    x_p = e.select(product, x, one)
    by_product = sh.divide(
        sh.multiply(sh.power(x_p, a_p), sh.exponential(sh.negate(x_p))), _gamma1p_small(e, a_p)
    )
    a_l = e.select(small, e.const(LARGE_A), a)
    x_l = e.select(small, e.const(LARGE_A), x)
    log_s = sh.subtract(
        sh.negate(_bd0(e, a_l, x_l)),
        sh.add(
            sh.multiply(e.const(0.5), sh.log(sh.multiply(e.const(2 * math.pi), a_l))), _stirling_w(e, a_l)
        ),
    )
    by_stirling_s = sh.exponential(log_s)
    by_stirling_f = sh.exponential(sh.add(log_s, sh.log(a_l)))
    safe_x = e.select(e.cmp(x, e.const(0.0), "GT"), x, one)
    log_front = sh.subtract(sh.multiply(a, sh.log(safe_x)), safe_x)
    by_log_f = sh.exponential(sh.subtract(log_front, chlo.lgamma(a)))
    # for a >= 1, lgamma(a) and a division (lgamma(a + 1) is up to 8 ulps off at whole numbers, lgamma(a) exact)
    by_log_s = e.select(e.cmp(a, one, "LT"), sh.exponential(sh.subtract(log_front, chlo.lgamma(sh.add(a, one)))),
                        sh.divide(by_log_f, a))  # fmt: skip
    # far below a large a's mode (x < a / 3) bd0 is a log(a / x) - a, as large as the log form's terms
    by_log = sh.or_(small, e.cmp(sh.multiply(x, e.const(3.0)), a, "LT"))
    front_s = e.select(product, by_product, e.select(by_log, by_log_s, by_stirling_s))
    front_f = e.select(product, sh.multiply(by_product, a), e.select(by_log, by_log_f, by_stirling_f))
    return front_s, front_f


def in_float64(ty: TensorType, fn, *xs):
    """``fn(ty, *xs)`` of float32 operands evaluated in float64 and rounded back: the loops'
    rounding (tens of float32 ulps over hundreds of terms) then stays below float32's resolution."""
    if ty.dtype.bits == 64:
        return fn(ty, *xs)
    e = Emitter(ty)
    tiny = e.const(float(np.finfo(ty.dtype.np).tiny))
    # float32 subnormals become normal float64 numbers: flush them first, as float32 math would
    xs = [e.select(e.cmp(sh.abs(x), tiny, "LT"), sh.multiply(x, e.const(0.0)), x) for x in xs]
    wide = TensorType(ty.shape, "float64")
    out = fn(wide, *(sh.convert(hlo.tensor_type(wide), x) for x in xs))
    return sh.convert(hlo.tensor_type(ty), out)


def igamma(ty: TensorType, a, x, which: str):
    """P(a, x) ("lower"), Q(a, x) ("upper") or dP/da ("grad_a"), elementwise, NaN outside a > 0, x >= 0;
    float32 in float64 (in_float64)."""
    return in_float64(ty, lambda t, a, x: _igamma(t, a, x, which), a, x)


def _igamma(ty: TensorType, a, x, which: str):
    e = Emitter(ty)
    one, zero = e.const(1.0), e.const(0.0)
    # subnormal operands are zeros, as the arithmetic flushes them (float32's are flushed already):
    # x = 5e-324 must take the x = 0 edge, not the series with log x = -744
    normal = e.const(float(np.finfo(ty.dtype.np).tiny))
    a, x = (e.select(e.cmp(sh.abs(v), normal, "LT"), sh.multiply(v, zero), v) for v in (a, x))
    inf = e.const(np.inf)
    # scipy's edges: P(0, x > 0) = 1, P(inf, x < inf) = 0; nan at (0, 0), (inf, inf) and outside
    a_zero, a_inf = e.cmp(a, zero, "EQ"), e.cmp(a, inf, "EQ")
    at_zero, at_inf = e.cmp(x, zero, "EQ"), e.cmp(x, inf, "EQ")
    bad = sh.or_(e.cmp(a, zero, "LT"), e.cmp(x, zero, "LT"))
    bad = sh.or_(bad, sh.or_(e.cmp(a, a, "NE"), e.cmp(x, x, "NE")))
    bad = sh.or_(bad, sh.or_(sh.and_(a_zero, at_zero), sh.and_(a_inf, at_inf)))
    if which == "grad_a":
        # dP/da at a = 0 is its limit -E1(x) (P = 1 - a E1(x) + O(a^2)): the loops give it at
        # a = 1e-100, O(a) away (at the smallest normal a, Gamma(a) ~ 1e308 flushes the fraction's terms)
        a = e.select(a_zero, e.const(1e-100), a)
        a_zero = e.cmp(a, zero, "EQ")
    edge_a = sh.or_(a_zero, a_inf)
    # far past the mode Q = x^a e^-x / Gamma(a) (...) underflows: P = 1 (and the fraction would never
    # settle at x ~ max, where its terms overflow)
    log_front = sh.subtract(sh.subtract(sh.multiply(a, sh.log(x)), x), chlo.lgamma(a))
    far = sh.and_(
        e.cmp(x, sh.add(a, one), "GT"), e.cmp(log_front, e.const(float(np.log(e.tiny)) - 40.0), "LT")
    )
    at_inf = sh.or_(at_inf, sh.and_(far, sh.not_(bad)))
    settled = sh.or_(sh.or_(bad, edge_a), at_zero)
    below = e.cmp(x, sh.add(a, one), "LT")
    if which in ("upper", "grad_a"):
        # Q = 1 - P cancels where P passes 1/2 (7 ulps at a = 1, x = 1.5): from x = max(a, 1) on the
        # fraction, summed backward, keeps Q's digits (below x = 1 it needs hundreds of terms); for
        # a >= 8, P(a, a + 1) < 0.7 and 1 - P keeps them better than Stirling's factor (2-5 ulps)
        switch = sh.and_(e.cmp(x, one, "GE"), e.cmp(x, a, "GE"))
        below = sh.and_(below, sh.not_(sh.and_(switch, e.cmp(a, e.const(LARGE_A), "LT"))))
    series = sh.and_(below, sh.not_(settled))
    fraction = sh.and_(sh.not_(series), sh.not_(sh.or_(settled, at_inf)))
    # keep the masked-out branch's operands harmless
    xs = e.select(series, x, zero)
    xf = e.select(fraction, x, sh.add(a, one))
    s, ds, h, dh, count = _gamma_loop(e, a, xs, xf, series, fraction, which == "grad_a")
    h, dh = _fraction_backward(e, a, xf, count, fraction)
    safe_log_x = sh.log(e.select(series, xs, one))
    log_xf = sh.log(xf)
    a_safe = e.select(settled, one, a)
    (pre_s, _), (_, pre_f) = stacked(e, gamma_fronts, [(a_safe, e.select(series, xs, one)), (a_safe, xf)])
    p_series, q_fraction = sh.multiply(pre_s, s), sh.multiply(pre_f, h)
    lower = sh.or_(a_zero, at_inf)  # P = 1 there; P = 0 where x == 0 or a == inf
    if which == "grad_a":
        dp_series = sh.add(sh.multiply(p_series, sh.subtract(safe_log_x, chlo.digamma(sh.add(a, one)))),
                           sh.multiply(pre_s, ds))  # fmt: skip
        dq_fraction = sh.add(sh.multiply(q_fraction, sh.subtract(log_xf, chlo.digamma(a))),
                             sh.multiply(pre_f, dh))  # fmt: skip
        # P falls as a grows (dP/da <= 0): the sign is kept where the slope underflows to 0
        out = sh.negate(sh.abs(e.select(series, dp_series, sh.negate(dq_fraction))))
        # P falls as a grows: its slope where P is 1 (or 0 at a = inf) is -0; +0 at x = 0, where P = 0 for all a
        edge = e.select(at_zero, zero, e.const(-0.0))
    else:
        small = sh.and_(
            sh.not_(settled), sh.and_(e.cmp(a, e.const(SMALL_A), "LE"), e.cmp(x, e.const(SMALL_X), "LE"))
        )
        q_small = _upper_small_a(e, e.select(small, a, e.const(SMALL_A)), e.select(small, x, one))
    if which == "lower":
        # where Q is small P = 1 - Q keeps P's last digits (the series loses them as a -> 0)
        near_one = sh.and_(small, e.cmp(q_small, e.const(0.5), "LT"))
        out = e.select(series, p_series, sh.subtract(one, q_fraction))
        out = e.select(near_one, sh.subtract(one, q_small), out)
        edge = e.select(lower, one, zero)
    elif which == "upper":
        # from x = 1 on the fraction (summed backward) is the better: the small-a series' two terms
        # cancel there (9 ulps at a = 0.5, x = 1.25)
        small = sh.and_(small, series)
        out = e.select(small, q_small, e.select(series, sh.subtract(one, p_series), q_fraction))
        edge = e.select(lower, zero, one)
    out = e.select(sh.or_(sh.or_(at_zero, at_inf), edge_a), edge, out)
    return e.select(bad, e.const(np.nan), out)


# -- incomplete beta -----------------------------------------------------------
def _one_minus_log1p_ratio(e: Emitter, t):
    """1 - log1p(t) / t = t/2 - t^2/3 + ... for 0 <= t <= 1/4 by its series (the quotient cancels
    there), directly beyond."""
    small = e.cmp(t, e.const(0.25), "LE")
    ts = e.select(small, t, e.const(0.0))
    total = e.const(0.0)
    for k in range(28, 0, -1):
        total = sh.add(sh.multiply(total, ts), e.const((-1) ** (k + 1) / (k + 1)))
    tb = e.select(small, e.const(1.0), t)
    direct = sh.subtract(e.const(1.0), sh.divide(sh.log_plus_one(tb), tb))
    return e.select(small, sh.multiply(total, ts), direct)


def _log_gamma_ratio(e: Emitter, lo, hi):
    """log Gamma(lo + hi) - log Gamma(hi) - lo log(hi) for 0 <= lo, 8 <= hi by Stirling's series,
    where the huge terms cancel on paper: (lo - 1/2) log1p(t) - lo (1 - log1p(t) / t) + w(lo + hi)
    - w(hi), t = lo / hi."""
    t = sh.divide(lo, hi)
    front = sh.subtract(sh.multiply(sh.subtract(lo, e.const(0.5)), sh.log_plus_one(t)),
                        sh.multiply(lo, _one_minus_log1p_ratio(e, t)))  # fmt: skip
    return sh.add(front, sh.subtract(_stirling_w(e, sh.add(lo, hi)), _stirling_w(e, hi)))


def log1p_of_negative(e: Emitter, x):
    """log1p(-x) for 0 <= x <= 1/2: XLA's CPU log1p is up to 127 ulps off on [-0.414, -0.352]
    (float64), so log(1 - x) from x = 0.3 on (1 - x keeps all but half an ulp there)."""
    near = e.cmp(x, e.const(0.3), "LT")
    return e.select(near, sh.log_plus_one(sh.negate(x)), sh.log(sh.subtract(e.const(1.0), x)))


def _beta_front(e: Emitter, p, q, x, swap):
    """y^p (1 - y)^q / (p B(p, q)), y = x (1 - x where ``swap``), the continued fraction's factor,
    for normal p, q > 0 and 0 < x < 1. exp(p log y + q log1p(-y) - lgamma(p) - lgamma(q) +
    lgamma(p + q)) rounds logs of tens of thousands (XLA's lgamma is 1e-15 relative off) into a
    sum whose error the exp keeps (3e-11 at p = q = 1e4). Instead, with c = p + q:
    - p, q >= 8: Stirling's series for B, the cancelling p log(y c / p) + q log((1 - y) c / q)
      gathered in -bd0(p, c y) - bd0(q, c (1 - y)) (each >= 0), times sqrt(q / (2 pi p c));
    - one of them (lo) below 8: (hi y)^lo (1 - y)^hi Gamma(c) / (Gamma(lo + 1) Gamma(hi) hi^lo),
      the ratio by Stirling (_log_gamma_ratio), in the roles p and q take;
    - both below 8, or both below 16 where log_s < -8 (the far tail): the powers times Gamma(1 + c) q
      / (c Gamma(1 + p) Gamma(1 + q)), each Gamma a product of exact factors (_gamma1p_small).
    Powers of x are pow (within an ulp); powers of 1 - x are pow(1 - x) from x = 1/2 up (exact
    there), exp(e log1p(-x)) below."""
    one, half = e.const(1.0), e.const(0.5)
    exact_complement = e.cmp(x, half, "GE")
    log_complement = log1p_of_negative(e, e.select(exact_complement, half, x))

    def power_of_complement(exponent):
        return e.select(exact_complement, sh.power(sh.subtract(one, x), exponent),
                        sh.exponential(sh.multiply(exponent, log_complement)))  # fmt: skip

    y = e.select(swap, sh.subtract(one, x), x)
    y_bar = e.select(swap, x, sh.subtract(one, x))
    y_to_p = e.select(swap, power_of_complement(p), sh.power(x, p))
    y_bar_to_q = e.select(swap, sh.power(x, q), power_of_complement(q))
    large = e.const(LARGE_A)
    p_large, q_large = e.cmp(p, large, "GE"), e.cmp(q, large, "GE")

    # both large; the halves keep c y and c (1 - y) finite at the largest floats (bd0 is homogeneous)
    p_l, q_l = e.select(p_large, p, large), e.select(q_large, q, large)
    p_h, q_h = sh.multiply(p_l, half), sh.multiply(q_l, half)
    s = sh.add(sh.multiply(p_h, y), sh.multiply(q_h, y))
    s_bar = sh.add(sh.multiply(p_h, y_bar), sh.multiply(q_h, y_bar))
    bd0_p, bd0_q = stacked(e, _bd0, [(p_h, s), (q_h, s_bar)])
    log_s = sh.multiply(e.const(-2.0), sh.add(bd0_p, bd0_q))
    w_p, w_q, w_c = stacked(e, _stirling_w, [(p_l,), (q_l,), (sh.add(p_l, q_l),)])
    w = sh.subtract(sh.add(w_p, w_q), w_c)
    q_share = sh.divide(q_h, sh.add(p_h, q_h))
    by_stirling = sh.multiply(sh.exponential(sh.subtract(log_s, w)),
                              sh.divide(sh.sqrt(sh.divide(q_share, e.const(2 * math.pi))), sh.sqrt(p_l)))  # fmt: skip

    # one small (m), the other large: Stirling's ratio for Gamma(c) / (Gamma(large) large^m)
    p_m, q_m = e.select(p_large, one, p), q_l
    q_m2, p_m2 = e.select(q_large, one, q), p_l
    ratio_p, ratio_q = stacked(e, _log_gamma_ratio, [(p_m, q_m), (q_m2, p_m2)])
    # both small, or both below 16 in the far tail, where Stirling's exp rounds a log_s of hundreds
    # (100 ulps at I_(2.2e-16)(10, 10), log_s = -700)
    far = sh.and_(sh.and_(p_large, q_large), e.cmp(log_s, e.const(-8.0), "LT"))
    far = sh.and_(far, sh.and_(e.cmp(p, e.const(_FAR_BELOW), "LT"), e.cmp(q, e.const(_FAR_BELOW), "LT")))
    by_products = sh.or_(far, sh.and_(sh.not_(p_large), sh.not_(q_large)))
    p_s, q_s = e.select(by_products, p, one), e.select(by_products, q, one)
    c_s = sh.add(p_s, q_s)
    # every Gamma(1 + .) here in one evaluation: factors past an operand's own count are exactly 1
    gamma_pm, gamma_qm2, gamma_c, gamma_p, gamma_q = stacked(
        e, lambda e2, v: _gamma1p_small(e2, v, 2 * int(_FAR_BELOW)), [(p_m,), (q_m2,), (c_s,), (p_s,), (q_s,)]
    )
    # p small, q large: (q y)^p (1 - y)^q e^R / Gamma(1 + p)
    by_small_p = sh.multiply(sh.multiply(sh.power(sh.multiply(q_m, y), p_m), y_bar_to_q),
                             sh.divide(sh.exponential(ratio_p), gamma_pm))  # fmt: skip
    # q small, p large: y^p (p (1 - y))^q e^R q / (p Gamma(1 + q))
    by_small_q = sh.multiply(sh.multiply(y_to_p, sh.power(sh.multiply(p_m2, y_bar), q_m2)),
                             sh.divide(sh.multiply(sh.exponential(ratio_q), sh.divide(q_m2, p_m2)), gamma_qm2))  # fmt: skip
    gammas = sh.divide(sh.multiply(gamma_c, sh.divide(q_s, c_s)), sh.multiply(gamma_p, gamma_q))
    by_gammas = sh.multiply(sh.multiply(y_to_p, y_bar_to_q), gammas)
    out = e.select(p_large, e.select(q_large, by_stirling, by_small_q),
                   e.select(q_large, by_small_p, by_gammas))  # fmt: skip
    return e.select(far, by_gammas, out)


# both shapes below this take the Gamma products in the far tail too (_beta_front)
_FAR_BELOW = 16.0
# below this first shape the swapped side's 1 - I_y(p, q) is p K(q, y) to float64's precision
_TINY_SHAPE = 1e-20
_EULER = 0.5772156649015329


def _tiny_shape_complement(e: Emitter, p, q, y):
    """1 - I_y(p, q) for p < _TINY_SHAPE, normal q > 0 and 0 < y < 1 / (q + 1) (the swapped side's
    range): with 1 / B(p, q) = p q / (p + q) (1 + O(p q)) and t^(p-1) = (1 + O(p log t)) / t it is
    p q / (p + q) K, K = int_y^1 (1 - t)^(q-1) / t dt = -log y - psi(q) - euler - sum_k>=1 C(q - 1, k)
    (-y)^k / k, whose terms fall as (q y)^k / k! (q y < 1 here: 24 terms). 1 - I_y itself rounds the
    complement away (2.2e-16 for 1.96e-37 at I_(1 - 6e-8)(1, 1.2e-38))."""
    one = e.const(1.0)
    term, total = one, e.const(0.0)
    for k in range(1, 25):
        term = sh.multiply(
            term, sh.divide(sh.multiply(sh.subtract(q, e.const(float(k))), sh.negate(y)), e.const(float(k)))
        )
        total = sh.add(total, sh.divide(term, e.const(float(k))))
    k_integral = sh.subtract(
        sh.subtract(sh.negate(sh.log(y)), sh.add(chlo.digamma(q), e.const(_EULER))), total
    )
    # p q underflows at p = q = 2.2e-308
    return sh.multiply(sh.multiply(p, k_integral), sh.divide(q, sh.add(p, q)))


def betainc(ty: TensorType, a, b, x):
    """I_x(a, b), elementwise; NaN outside a > 0, b > 0, 0 <= x <= 1; float32 in float64 (in_float64)."""
    return in_float64(ty, _betainc, a, b, x)


def _betainc(ty: TensorType, a, b, x):
    e = Emitter(ty)
    one, zero, two = e.const(1.0), e.const(0.0), e.const(2.0)
    inf = e.const(np.inf)
    bad = sh.or_(sh.or_(e.cmp(a, zero, "LT"), e.cmp(b, zero, "LT")),
                 sh.or_(e.cmp(x, zero, "LT"), e.cmp(x, one, "GT")))  # fmt: skip
    bad = sh.or_(bad, sh.or_(sh.or_(e.cmp(a, a, "NE"), e.cmp(b, b, "NE")), e.cmp(x, x, "NE")))
    # scipy's limits: I = 1 for a == 0 or b == inf, 0 for b == 0 or a == inf (nan for both)
    to_one = sh.or_(e.cmp(a, zero, "EQ"), e.cmp(b, inf, "EQ"))
    to_zero = sh.or_(e.cmp(b, zero, "EQ"), e.cmp(a, inf, "EQ"))
    bad = sh.or_(bad, sh.and_(to_one, to_zero))
    x_end = sh.or_(e.cmp(x, zero, "EQ"), e.cmp(x, one, "EQ"))
    edge = sh.or_(x_end, sh.or_(to_one, to_zero))
    swap = e.cmp(x, sh.divide(sh.add(a, one), sh.add(sh.add(a, b), two)), "GT")
    # where 1 - x rounds to 1 the other side cannot see x: the direct fraction still converges
    # while x (a + b) is moderate (12 steps at a = 1, b = 3.4e38, x = 1.2e-38, 0.98)
    unseen = sh.and_(e.cmp(sh.subtract(one, x), one, "EQ"),
                     e.cmp(sh.add(sh.multiply(x, a), sh.multiply(x, b)), e.const(30.0), "LT"))  # fmt: skip
    swap = sh.and_(swap, sh.not_(unseen))
    p, q = e.select(swap, b, a), e.select(swap, a, b)
    y = e.select(swap, sh.subtract(one, x), x)
    use = sh.not_(sh.or_(bad, edge))
    y = e.select(use, y, e.const(0.5))
    qab, qap, qam = sh.add(p, q), sh.add(p, one), sh.subtract(p, one)
    d0 = sh.divide(one, e.clamp_tiny(sh.subtract(one, sh.divide(sh.multiply(qab, y), qap))))

    def step(v):
        m, c, d, h = v
        m = sh.add(m, one)
        m2 = sh.multiply(two, m)
        aa = sh.divide(sh.multiply(sh.multiply(m, sh.subtract(q, m)), y),
                       sh.multiply(sh.add(qam, m2), sh.add(p, m2)))  # fmt: skip
        d = sh.divide(one, e.clamp_tiny(sh.add(one, sh.multiply(aa, d))))
        c = e.clamp_tiny(sh.add(one, sh.divide(aa, c)))
        h = sh.multiply(h, sh.multiply(d, c))
        aa = sh.negate(sh.divide(sh.multiply(sh.multiply(sh.add(p, m), sh.add(qab, m)), y),
                                 sh.multiply(sh.add(p, m2), sh.add(qap, m2))))  # fmt: skip
        d = sh.divide(one, e.clamp_tiny(sh.add(one, sh.multiply(aa, d))))
        c = e.clamp_tiny(sh.add(one, sh.divide(aa, c)))
        delta = sh.multiply(d, c)
        return [m, c, d, sh.multiply(h, delta)], _not_small(e, sh.subtract(delta, one), one)

    _, _, _, h = _loop(e, use, [zero, one, d0, d0], step)
    lgamma_p, lgamma_q, lgamma_c = stacked(e, lambda _, v: chlo.lgamma(v), [(p,), (q,), (qab,)])
    log_beta = sh.subtract(sh.add(lgamma_p, lgamma_q), lgamma_c)
    log_front = sh.subtract(sh.add(sh.multiply(p, sh.log(y)), sh.multiply(q, sh.log_plus_one(sh.negate(y)))),
                            log_beta)  # fmt: skip
    # the 1 / p inside the exponential: x^p / (p B(p, q)) stays finite for tiny p, where
    # exp(log_front) alone would flush to 0
    by_logs = sh.exponential(sh.subtract(log_front, sh.log(p)))
    # subnormal shapes (flushed to 0 by the arithmetic) keep the log form's limits
    normal = sh.and_(e.cmp(p, e.const(e.tiny / 1e3), "GE"), e.cmp(q, e.const(e.tiny / 1e3), "GE"))
    front = e.select(
        normal,
        _beta_front(
            e, e.select(normal, p, one), e.select(normal, q, one), e.select(use, x, e.const(0.5)), swap
        ),
        by_logs,
    )
    value = sh.multiply(front, h)
    value = sh.clamp(zero, value, one)
    tiny_p = sh.and_(
        sh.and_(swap, e.cmp(p, e.const(_TINY_SHAPE), "LT")), e.cmp(q, e.const(e.tiny / 1e3), "GE")
    )
    complement = _tiny_shape_complement(e, p, e.select(tiny_p, q, one), e.select(tiny_p, y, e.const(0.5)))
    value = e.select(swap, e.select(tiny_p, complement, sh.subtract(one, value)), value)
    # I_1/2(a, a) = 1/2 exactly (the symmetry), also where the fraction needs ~sqrt(a) steps (a = 3.4e38)
    value = e.select(sh.and_(e.cmp(a, b, "EQ"), e.cmp(x, e.const(0.5), "EQ")), e.const(0.5), value)
    limit = e.select(to_one, one, zero)
    at_x_end = e.select(e.cmp(x, one, "EQ"), one, zero)  # +0 at x = -0 too
    value = e.select(edge, e.select(x_end, at_x_end, limit), value)
    return e.select(bad, e.const(np.nan), value)
