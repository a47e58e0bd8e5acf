"""sg.scipy.special's hyp1f1, hyp2f1, owens_t, wofz, bessel_jn and sph_harm_y against scipy.special in
float64 (60-digit decimal series or quadrature where scipy is off), at random points and at the edges
(0, -0, poles and terminating parameters, large |x|, +-inf, nan); float32 against the float64
reference of the rounded inputs (hyp1f1's and hyp2f1's in the special-point sweep); derivatives
against their closed forms and jax.grad; vectorize against a loop (hyp1f1 and hyp2f1 run vectorized
in their own tests)."""

import math
from decimal import Decimal, getcontext
from fractions import Fraction

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
import pytest
import scipy.special as ss
from scipy.integrate import quad

import stablegraph as sg
from stablegraph.test_util import run_graph

pytestmark = pytest.mark.usefixtures("jax_x64")
sp = sg.scipy.special
snp = sg.numpy
RNG = np.random.default_rng(2626)


def _decimal_1f1(a: float, b: float, x: float, terms: int = 4000, digits: int = 250) -> float:
    """1F1 from its series in 250-digit decimals (exact where the float64 series would cancel)."""
    getcontext().prec = digits
    a_, b_, x_ = Decimal(a), Decimal(b), Decimal(x)
    term = total = Decimal(1)
    for k in range(terms):
        term = term * (a_ + k) / (b_ + k) * x_ / (k + 1)
        total += term
    return float(total)


# -- 1F1 ------------------------------------------------------------------------------------------
A1 = np.concatenate([RNG.uniform(-5, 5, 40), [0.0, 1.0, -2.0, -2.0, 1.0, 0.5, 2.0, -4.6, 0.5, 3.0, 1.0]])
B1 = np.concatenate([RNG.uniform(0.1, 6, 40), [1.0, 0.0, -3.0, 2.0, 2.0, 1.0, 3.0, 4.5, 1.0, 2.0, np.inf]])
X1 = np.concatenate(
    [RNG.uniform(-60, 60, 40), [5.0, 1.0, 1.0, -1e8, -0.0, -1000.0, 800.0, 300.0, -200.0, 1e-300, 7.0]]
)


TINY = np.finfo(np.float64).tiny
# (a, b, x) against the decimal series: a large next to x < 0 (Kummer's series cancelled: ours was
# 1e67 relative off at (1e4, 0.1, -1), scipy 4e86), b tiny (its terms overflowed: nan; at (2, tiny,
# -2) 1F1(3; 2; -2) = 0 leaves the O(1) part -0.7293, scipy -0.1353; (0.1, tiny, tiny) 1.1, scipy inf)
LARGE_A = [(1e4, 0.1, -1.0), (1e4, 0.5, -2.0), (10.0, 0.1, -2.0), (10001.0, 1.1, -1.0), (1e4, 10.0, -0.5),
           (30.5, 1.5, -5.0), (1e4, 3.0, -5.0)]  # fmt: skip
TINY_B = [(2.0, TINY, -2.0), (3.0, TINY, -2.0), (10.0, TINY, -2.0), (10.0, TINY, TINY), (1e4, TINY, -1.0),
          (0.5, TINY, 0.5), (2.5, 1e-25, 1.5), (TINY, TINY, -1.0), (0.1, TINY, TINY)]  # fmt: skip
DECIMAL = [(0.5, 1.0, -200.0), (-4.6, 4.5, 300.0)]
# a <= -4 and 0 < x < -2a: the series' terms alternate while a + k < 0 and cancel (1F1(-26.7; 0.037;
# 18.8) kept 6 digits, 1F1(-100.3; 1.5; 25) came out 1.8e16 times too large, jax's too); the
# recurrence in a at Kummer's image keeps 9 digits or more. Both sides of the switch
NEGATIVE_A = [(-26.692230106645166, 0.03652219497839621, 18.840886504949278), (-100.3, 1.5, 25.0),
              (-1000.3, 1.5, 5.0), (-28.943306398278548, 2.068642584056369, 7.953600887432607),
              (-20.5, 0.3, 20.0), (-12.5, 2.5, 10.0), (-4.0 - 2**-40, 1.0, 7.9), (-3.5, 0.3, 10.0),
              (-10.5, 1.0, 35.0), (-8.5, 2.5, 20.0), (-2.2, 0.3, 20.0)]  # fmt: skip
# 1 at x = 0 whatever a (scipy's, jax's); b = inf against x = -inf: no limit (1 or 0): nan
CONVENTIONS = [(np.inf, 0.5, 0.0), (0.5, np.inf, -np.inf), (-1.0, np.inf, -np.inf)]
EXTRA1 = LARGE_A + TINY_B + DECIMAL + NEGATIVE_A + CONVENTIONS


# (a, b, x) for the x-slopes: d/dx (1 + x) = 1 at a = b = -1 (was inf: 1F1(0; 0; x) read as a pole);
# (a / b) 1F1(a + 1; b + 1; x) past a / b's overflow or flush, and where Kummer's series cancelled
SLOPE_AT = [
    (-1.0, -1.0, 0.5),
    (-1.0, -1.0, -np.inf),
    (10.0, TINY, -1.0),
    (TINY, TINY, -1.0),
    (1e4, 0.1, -1.0),
]
SLOPE_RNG = np.random.default_rng(2628)
SLOPE_A, SLOPE_B = SLOPE_RNG.uniform(-3, 3, 12), SLOPE_RNG.uniform(0.5, 4, 12)
SLOPE_X = np.concatenate([SLOPE_RNG.uniform(-30, 30, 10), [0.0, -100.0]])


def _value_and_slopes_in_x(f):
    """f's values and its first and second derivatives in its last argument, from one graph. f runs
    under sg.vectorize (one scalar point per row: the check of its batching rules against scipy, no
    second, unbatched copy to compile); its float32 is the float64 code between two casts, swept at
    the special points."""
    f = sg.vectorize(f)

    def build(*args):
        value = f(*args)
        (d1,) = sg.gradients(value, [args[-1]])
        (d2,) = sg.gradients(d1, [args[-1]])
        return value, d1, d2

    return build


def test_hyp1f1_values_and_slopes_in_x():
    columns = [np.array(v) for v in zip(*EXTRA1)]
    slopes = [np.concatenate([v, e]) for v, e in zip((SLOPE_A, SLOPE_B, SLOPE_X), zip(*SLOPE_AT))]
    points = [np.concatenate(v) for v in zip((A1, B1, X1), columns, slopes)]
    got, d1, d2 = run_graph(_value_and_slopes_in_x(sp.hyp1f1), *points)
    n, m = len(A1), len(A1) + len(EXTRA1)
    got, edges = got[:n], got[n:m]
    want = ss.hyp1f1(A1, B1, X1)
    # scipy's overflow takes the wrong sign for a < 0 (1F1(-4.6; 4.5; 800) -> -inf: Gamma(b) / Gamma(a) < 0)
    want[(A1 == -4.6) & (X1 == 800.0)] = -np.inf
    exact = [(a, b, x) for a, b, x in zip(A1, B1, X1) if abs(x) <= 300 and np.isfinite(b) and b > 0]
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=2e-12)
    np.testing.assert_array_equal(got[~finite], want[~finite])
    # the decimal series at a few points (scipy agrees there too; this checks the reference)
    where = {point: k for k, point in enumerate(zip(A1, B1, X1))}
    for a, b, x in exact[:6]:
        assert got[where[(a, b, x)]] == pytest.approx(_decimal_1f1(a, b, x), rel=2e-13), (a, b, x)
    # and where scipy is off or the series needs its own form (the recurrence in a rounds 1e-11
    # relative after 1e4 steps; the tiny-b form to a few ulps)
    for k, (a, b, x) in enumerate(LARGE_A + TINY_B + DECIMAL + NEGATIVE_A):
        rel = 5e-11 if k < len(LARGE_A) else 1e-9 if k >= len(LARGE_A + TINY_B + DECIMAL) else 2e-13
        assert edges[k] == pytest.approx(_decimal_1f1(a, b, x, digits=400), rel=rel), (a, b, x)
    assert edges[-3] == 1.0 and np.isnan(edges[-2:]).all()
    # jax agrees where its series is right (x > 0, moderate parameters)
    right = (X1 > 0) & (X1 < 50) & (A1 > 0) & (B1 > 0) & np.isfinite(B1)
    jx = np.asarray(jss.hyp1f1(jnp.asarray(A1[right]), jnp.asarray(B1[right]), jnp.asarray(X1[right])))
    np.testing.assert_allclose(got[right], jx, rtol=1e-10)
    assert got[X1 == 1e-300] == 1.0 and got[(A1 == 0)] == 1.0 and got[(X1 == -0.0) & (A1 == 1.0)] == 1.0
    # the slopes in x: random points against scipy's closed forms, the edges against decimals
    a, b, x = SLOPE_A, SLOPE_B, SLOPE_X
    d1, d2, edges = d1[m : m + 12], d2[m : m + 12], d1[m + 12 :]
    assert list(edges[:2]) == [1.0, 1.0]
    for k in (2, 3, 4):
        p, q, r = SLOPE_AT[k]
        want = Decimal(p) / Decimal(q) * Decimal(_decimal_1f1(p + 1, q + 1, r, digits=400))
        assert edges[k] == pytest.approx(float(want), rel=5e-11), SLOPE_AT[k]
    np.testing.assert_allclose(d1, a / b * ss.hyp1f1(a + 1, b + 1, x), rtol=1e-12, atol=1e-300)
    want2 = a * (a + 1) / (b * (b + 1)) * ss.hyp1f1(a + 2, b + 2, x)
    np.testing.assert_allclose(d2, want2, rtol=1e-12, atol=1e-300)


# -- 2F1 ------------------------------------------------------------------------------------------
def _hyp2f1_points():
    n = 40
    a, b = RNG.uniform(-4, 4, n), RNG.uniform(-4, 4, n)
    c, x = RNG.uniform(0.3, 7, n), RNG.uniform(-6, 0.99, n)
    c[:8] = a[:8] + b[:8] + np.array([0, 1, 2, -1, 0, 1, 3, 2])  # c - a - b an integer
    x[:8] = RNG.uniform(0.5, 0.98, 8)
    a[8:12] = [-2.0, -3.0, 0.0, -1.0]  # terminating
    edges = np.array(
        [
            [1.0, 2.0, 4.0, 1.0],  # Gauss: Gamma(4) Gamma(1) / (Gamma(3) Gamma(2)) = 3
            [1.0, 2.0, 3.0, 1.0],  # c - a - b = 0: inf
            [1.0, 2.0, -1.0, 0.5],  # c a pole: inf
            [-2.0, 2.0, -3.0, 0.5],  # ... unless the series ends first
            [-3.0, 1.5, 2.0, -10.0],  # a polynomial far left
            [1.0, 1.0, 2.0, 0.999],  # -log(1 - x) / x
            [0.5, 0.5, 1.5, -1.0],  # asinh(1)
            [1.0, 2.0, 3.0, 1.5],  # x > 1: nan
            [1.0, 2.0, 3.0, 0.0],
            [1.0, 2.0, 3.0, np.nan],
        ]
    )
    return [np.concatenate([v, edges[:, i]]) for i, v in enumerate((a, b, c, x))]


def _polynomial_2f1(a: int, b: float, c: float, x: float) -> Fraction:
    """A terminating 2F1 (a = -n) exactly: sum_k (a)_k (b)_k / ((c)_k k!) x^k in fractions."""
    term = total = Fraction(1)
    for k in range(-a):
        term = term * (a + k) * (Fraction(b) + k) / ((Fraction(c) + k) * (k + 1)) * Fraction(x)
        total += term
    return total


# polynomials (a or b = -n) off [0, 1) and where c - b is a pole first (exact sums in fractions;
# scipy 0 at (-1, 1e4, -1, -1) but -9999 with a and b swapped, -inf at (-2, 0.5, 1.5, inf); ours was
# nan or inf: a 0 / 0 ratio past the last term, Gauss's sum at x = 1, nan for every x > 1)
POLYNOMIALS = [(-1.0, 1e4, -1.0, 0.5), (-1.0, 1e4, -1.0, -1.0), (1e4, -1.0, 1.0, 1.0), (-1.0, 0.5, 0.5, 2.0),
               (-2.0, 0.5, 1.5, 3.0), (-2.0, 0.5, 1.5, 1e6)]  # fmt: skip
# (1 - x)^-b where c = a (Pfaff's other variant: (1 - x)^-1e4 times a cancelling series was nan),
# the polynomials' infinities, c a pole the series meets first (inf), x = 0 (1, also at a pole)
EDGES2 = [(1e4, 0.5, 1e4, -1.0), (1e4, 2.5, 1e4, -2.0), (0.5, 1e4, 0.5, -1.0), (-2.0, 0.5, 1.5, np.inf),
          (0.5, -1.0, 1e4, -np.inf), (-1.0, -1.0, 1e4, -np.inf), (1e4, -1.0, 0.0, 0.5), (0.5, 1e4, 0.0, 0.0),
          (0.5, 0.5, 2.5, 2.0)]  # fmt: skip


def _far_left_2f1() -> list:
    """((a, b, c, x), 2F1) for x << -1 from closed forms in 60-digit decimals: 1 / AGM(1, sqrt(1 - x))
        for (1/2, 1/2; 1), -log(1 - x) / x for (1, 1; 2), asinh(t) / t for (1/2, 1/2; 3/2; -t^2), (1 - x)^-b
        for c = a, and at x = -max the leading term of the 1 / x transformation's limit (a = b), here
    (ln(max) + 4 ln 2) / (pi sqrt(max)) (the next order is 1e-305 relative)."""
    getcontext().prec = 60
    pi = Decimal("3.14159265358979323846264338327950288419716939937510582097494")
    big = float(np.finfo(np.float64).max)

    def agm(u, v):
        for _ in range(60):
            u, v = (u + v) / 2, (u * v).sqrt()
        return u

    def k_form(x):
        return 1 / agm(Decimal(1), (1 - Decimal(x)).sqrt())

    def asinh_form(x):
        t = (-Decimal(x)).sqrt()
        return (t + (t * t + 1).sqrt()).ln() / t

    cases = [
        ((0.5, 0.5, 1.0, -big), (Decimal(big).ln() + 4 * Decimal(2).ln()) / (pi * Decimal(big).sqrt())),
        *(((0.5, 0.5, 1.0, x), k_form(x)) for x in (-30.0, -1e10, -1e20)),
        *(((1.0, 1.0, 2.0, x), -(1 - Decimal(x)).ln() / Decimal(x)) for x in (-1e10, -1e300)),
        *(((0.5, 0.5, 1.5, x), asinh_form(x)) for x in (-1e12, -1e300)),
        ((0.5, 2.5, 0.5, -1e5), ((1 - Decimal(-1e5)).ln() * Decimal(-2.5)).exp()),
        ((3.5, 0.5, 3.5, -1e200), Decimal("1e-100")),
        # (1, 1; c; -max) = (c - 1) / max (ln max + psi(1) - psi(c - 1)), psi(1) - psi(c - 1) = 2 ln 2 - 2
        # at c = 2.5 and 0.5: normal numbers whose factor max^-1 is not (ours flushed it: 0)
        *(
            (
                (1.0, 1.0, c, -big),
                (Decimal(big).ln() + 2 * Decimal(2).ln() - 2) * Decimal(c - 1) / Decimal(big),
            )
            for c in (2.5, 0.5)
        ),
        ((0.5, 0.5, 1e4, -big), _large_c_at_minus_max(big)),
    ]
    return [(p, float(v)) for p, v in cases]


def _large_c_at_minus_max(big: float) -> Decimal:
    """2F1(1/2, 1/2; c; -max) for c = n + 1 = 1e4: Gamma(c) / (Gamma(1/2) Gamma(c - 1/2)) max^-1/2
    (ln max + 2 psi(1) - psi(1/2) - psi(c - 1/2)) (the next order is 1e-304 relative), with
    Gamma(n + 1/2) = (2n)! sqrt(pi) / (4^n n!) and psi(n + 1/2) - psi(1/2) = sum_k<=n 2 / (2k - 1)
    exactly (ours was nan: Gamma(1e4) = inf times 1 / Gamma(9999.5) = 0)."""
    n = 9999
    pi = Decimal("3.14159265358979323846264338327950288419716939937510582097494")
    ratio = Decimal(math.factorial(n) ** 2 * 4**n) / Decimal(math.factorial(2 * n)) / pi
    harmonic = sum(Decimal(2) / (2 * k - 1) for k in range(1, n + 1))
    return ratio * (Decimal(big).ln() + 4 * Decimal(2).ln() - harmonic) / Decimal(big).sqrt()


# x << -1, where Pfaff's x / (x - 1) rounds toward 1 (ours took 1 - z from it: at (0.5, 0.5, 1, -max)
# 7.46e-155 where the truth is 1.69e-152, at -1e10 1.5e-7 relative off; (0.5, 2.5, 0.5, -1e5) summed
# the polynomial (1 - z)^2 near z = 1: 1e-7 relative off)
FAR_LEFT = _far_left_2f1()


def test_hyp2f1_values_and_slope_in_x():
    a, b, c, x = _hyp2f1_points()
    n = len(a)
    extra = POLYNOMIALS + EDGES2 + [p for p, _ in FAR_LEFT]
    a, b, c, x = (np.concatenate([v, e]) for v, e in zip((a, b, c, x), zip(*extra)))

    def build(p, q, r, s):
        value = sg.vectorize(sp.hyp2f1)(p, q, r, s)
        return value, sg.gradients(value, [s])[0]

    got, d1 = run_graph(build, a, b, c, x)
    edges, slopes = got[n:], d1[n:]
    for k, (p, q, r, s) in enumerate(POLYNOMIALS):
        terminating = (p, q) if p < 0 else (q, p)
        assert edges[k] == pytest.approx(
            float(_polynomial_2f1(int(terminating[0]), terminating[1], r, s)), rel=1e-14
        )
    # d/dx (1 - 2x / 3 + x^2 / 5) = -2 / 3 + 2x / 5
    assert slopes[4] == pytest.approx(-2 / 3 + 6 / 5, rel=1e-14)
    e = len(POLYNOMIALS)
    np.testing.assert_allclose(edges[e : e + 2], [2**-0.5, 3**-2.5], rtol=1e-14)
    assert list(edges[e + 2 : e + 8]) == [0.0, np.inf, np.inf, -np.inf, np.inf, 1.0]
    assert np.isnan(edges[e + 8])  # not a polynomial past 1: complex
    far = edges[len(POLYNOMIALS + EDGES2) :]
    np.testing.assert_allclose(far[:-1], [v for _, v in FAR_LEFT[:-1]], rtol=2e-15)
    # Gamma(1e4) / Gamma(9999.5) from lgamma's logs of size 8e4: 2e-11 relative
    assert far[-1] == pytest.approx(FAR_LEFT[-1][1], rel=5e-11)
    a, b, c, x, d1 = (v[:n] for v in (a, b, c, x, d1))
    got = got[:n]
    want = ss.hyp2f1(a, b, c, x)
    want[-3] = np.nan  # scipy's real 2F1 past 1 (ours nan: the series diverges, the value is complex)
    ok = np.isfinite(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=1e-12)
    np.testing.assert_array_equal(got[~ok], want[~ok])
    assert got[-10] == pytest.approx(3.0, rel=1e-15) and got[-2] == 1.0
    assert got[-4] == pytest.approx(math.asinh(1.0), rel=1e-15)
    assert got[-5] == pytest.approx(-math.log(0.001) / 0.999, rel=1e-13)
    inside = x < 1
    want_d1 = a * b / c * ss.hyp2f1(a + 1, b + 1, c + 1, x)
    np.testing.assert_allclose(
        d1[inside & np.isfinite(want_d1)], want_d1[inside & np.isfinite(want_d1)], rtol=1e-11
    )


# -- Owen's T ------------------------------------------------------------------------------------
H = np.concatenate(
    [
        RNG.uniform(-8, 8, 30),
        [0.0, -0.0, 0.0, 1.0, 2.0, np.inf, 1.0, 50.0, 3.0, 1.0, np.nan, 3.431752679614066],
    ]
)
AT = np.concatenate(
    [
        RNG.uniform(-4, 4, 30),
        [1.0, 2.0, np.inf, np.inf, -np.inf, 1.0, 1e300, 0.5, 1.0, 0.0, 1.0, -0.5111579785073159],
    ]
)


def test_owens_t_values_and_partials():
    def build(h, a, h32, a32):
        return (
            sp.owens_t(h, a),
            sp.owens_t(h32, a32),
            sg.grad(lambda u, v: sp.owens_t(u, v).sum(), argnums=(0, 1))(h, a),
        )

    got, got32, (dh, da) = run_graph(build, H, AT, H.astype(np.float32), AT.astype(np.float32))
    want = ss.owens_t(H, AT)
    # scipy's T(3.4318, -0.5112) is 4e-14 off: the integral by adaptive quadrature
    h0, a0 = H[-1], -AT[-1]
    integral = quad(
        lambda t: np.exp(-h0 * h0 * (1 + t * t) / 2) / (1 + t * t), 0, a0, epsabs=0, epsrel=1e-13
    )[0]
    want[-1] = -integral / (2 * math.pi)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-300)
    assert got[30] == 1 / 8 and got[32] == 0.25 and got[35] == 0.0 and np.isnan(got[40])
    assert got[33] == pytest.approx(ss.ndtr(-1.0) / 2, rel=1e-15)  # T(h, inf) = Q(h) / 2
    assert got32.dtype == np.float32
    fin = np.isfinite(H) & np.isfinite(AT)
    np.testing.assert_allclose(
        got32[fin], ss.owens_t(H[fin].astype(np.float32), AT[fin].astype(np.float32)), rtol=1e-5, atol=1e-30
    )
    h, a = H[:30], AT[:30]
    np.testing.assert_allclose(
        dh[:30], -np.exp(-h * h / 2) / math.sqrt(2 * math.pi) * ss.erf(a * h / math.sqrt(2)) / 2, rtol=1e-13
    )
    np.testing.assert_allclose(
        da[:30], np.exp(-h * h * (1 + a * a) / 2) / (2 * math.pi * (1 + a * a)), rtol=1e-13
    )
    jh, ja = jax.grad(lambda u, v: jss.owens_t(u, v).sum(), argnums=(0, 1))(jnp.asarray(h), jnp.asarray(a))
    np.testing.assert_allclose(dh[:30], jh, rtol=1e-12)
    np.testing.assert_allclose(da[:30], ja, rtol=1e-12)


def test_owens_t_second_derivative_in_h_at_zero():
    """d2T/dh2 at h = 0 is -a / (2 pi)."""
    a = np.array([0.5, 1.0, -2.0])
    got = run_graph(
        lambda u, v: sg.grad(lambda w: sg.grad(lambda s: sp.owens_t(s, v).sum())(w).sum())(u), np.zeros(3), a
    )
    np.testing.assert_allclose(got, -a / (2 * math.pi), rtol=1e-14)


# -- wofz -------------------------------------------------------------------------------------------
Z = np.concatenate(
    [
        RNG.uniform(-12, 12, 40) + 1j * RNG.uniform(-4, 12, 40),
        [0, 1, -3, 5.5, 1e-300j, 8j, -8j, 3 - 2j, 1e8 - 1j, 7.9 + 0.1j, 20 + 1j, -30 + 0.5j],
        [
            complex(np.inf, 0),
            complex(-np.inf, 1),
            complex(0, np.inf),
            complex(0, -np.inf),
            complex(np.nan, 0),
        ],
    ]
)


def test_wofz_values_float32_and_derivative():
    def build(z, z32, x, y):
        w = sp.wofz(x + 1j * y)
        return (
            sp.wofz(z),
            sp.wofz(z32),
            sg.grad(
                lambda u, v: snp.sum(snp.real(sp.wofz(u + 1j * v)) + 2 * snp.imag(sp.wofz(u + 1j * v))),
                argnums=(0, 1),
            )(x, y),
            w,
        )

    x, y = RNG.uniform(-6, 6, 16), RNG.uniform(-2, 4, 16)
    got, got32, (gx, gy), _ = run_graph(build, Z, Z.astype(np.complex64), x, y)
    want = ss.wofz(Z)
    assert got.dtype == np.complex128 and got32.dtype == np.complex64
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=2e-14)
    np.testing.assert_array_equal(got[~fin], want[~fin])
    # on the real axis: e^(-x^2) + (2i / sqrt pi) F(x), exactly
    real = (Z.imag == 0) & np.isfinite(Z.real)
    np.testing.assert_allclose(got[real].real, np.exp(-(Z[real].real ** 2)), rtol=2.3e-16)
    z32 = Z.astype(np.complex64).astype(np.complex128)
    fin32 = np.isfinite(ss.wofz(z32)) & (np.abs(z32) < 1e4)
    np.testing.assert_allclose(got32[fin32], ss.wofz(z32[fin32]), rtol=3e-6)
    z = x + 1j * y
    d = -2 * z * ss.wofz(z) + 2j / math.sqrt(math.pi)
    np.testing.assert_allclose(
        gx, d.real + 2 * d.imag, rtol=1e-12, atol=1e-13
    )  # the sum cancels: absolute error of the terms (~1)
    np.testing.assert_allclose(gy, -d.imag + 2 * d.real, rtol=1e-12, atol=1e-13)
    jx = jax.grad(lambda u, v: jnp.sum(jnp.real(jss.wofz(u + 1j * v)) + 2 * jnp.imag(jss.wofz(u + 1j * v))))(
        x, y
    )
    np.testing.assert_allclose(gx, jx, rtol=1e-9)


# -- bessel_jn ------------------------------------------------------------------------------------
ZJ = np.concatenate(
    [
        RNG.uniform(-40, 40, 40),
        [0.0, -0.0, 1e-300, 1e-4, 1e-3, 24.99, 25.0, -3.0, 30.0, 1e4, 1e8, np.inf, np.nan],
    ]
)


def test_bessel_jn_values_shapes_and_derivatives():
    def build(z, z32):
        first = sg.grad(lambda u: sp.bessel_jn(u, v=4)[2].sum())
        second = sg.grad(lambda u: first(u).sum())
        return (
            sp.bessel_jn(z, v=4),
            sp.bessel_jn(z32, v=4),
            sp.bessel_jn(z.reshape(53, 1), v=0),
            first(z),
            second(z),
        )

    got, got32, column, d1, d2 = run_graph(build, ZJ, ZJ.astype(np.float32))
    assert got.shape == (5, ZJ.size) and column.shape == (1, ZJ.size, 1) and got32.dtype == np.float32
    want = np.stack([ss.jv(n, ZJ) for n in range(5)])
    want[:, ZJ == np.inf] = 0.0  # the limit (scipy: nan)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=2e-16)
    np.testing.assert_array_equal(got[:, ZJ == 0], [[1, 1], [0, 0], [0, 0], [0, 0], [0, 0]])
    z32 = ZJ.astype(np.float32).astype(np.float64)
    want32 = np.stack([ss.jv(n, z32) for n in range(5)])
    fin = np.isfinite(z32)
    np.testing.assert_allclose(got32[:, fin], want32[:, fin], rtol=1e-5, atol=2e-7)
    fz = np.isfinite(ZJ)
    np.testing.assert_allclose(d1[fz], ss.jvp(2, ZJ[fz], 1), rtol=1e-11, atol=1e-15)
    np.testing.assert_allclose(d2[fz], ss.jvp(2, ZJ[fz], 2), rtol=1e-11, atol=1e-15)
    jvals = np.asarray(jss.bessel_jn(jnp.asarray(ZJ[:40]), v=4))
    np.testing.assert_allclose(
        got[:, :40][:, np.abs(ZJ[:40]) < 20], jvals[:, np.abs(ZJ[:40]) < 20], rtol=1e-9, atol=1e-13
    )


def test_bessel_jn_rejects_a_bad_order():
    for bad in (-1, 2.5):
        with pytest.raises(sg.GraphError, match="v must be an int"):
            run_graph(lambda z, bad=bad: sp.bessel_jn(z, v=bad), np.ones(2))


# -- sph_harm_y -------------------------------------------------------------------------------------
N = np.array([0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 6, 2, 3, 7])
M = np.array([0, -1, 1, 2, -2, 1, -3, 0, 4, -6, 5, 3, 0, -7])


def test_sph_harm_y_values_and_angle_slopes():
    theta = np.concatenate([RNG.uniform(0, np.pi, N.size - 4), [0.0, np.pi, np.pi / 2, 1e-300]])
    phi = RNG.uniform(0, 2 * np.pi, N.size)

    def total(t, p):
        y = sp.sph_harm_y(N, M, t, p)
        return snp.sum(snp.real(y) + 3 * snp.imag(y))

    def build(t, p, t32, p32):
        return sp.sph_harm_y(N, M, t, p), sp.sph_harm_y(N, M, t32, p32), sg.grad(total, argnums=(0, 1))(t, p)

    got, got32, (dt, dp) = run_graph(build, theta, phi, theta.astype(np.float32), phi.astype(np.float32))
    want = ss.sph_harm_y(N, M, theta, phi)
    assert got.dtype == np.complex128 and got32.dtype == np.complex64
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(got[np.abs(M) > N], 0)
    np.testing.assert_allclose(got32, want, rtol=1e-5, atol=1e-6)

    def f(t, p):
        y = ss.sph_harm_y(N, M, t, p)
        return y.real + 3 * y.imag

    eps = 1e-6
    np.testing.assert_allclose(
        dt, (f(theta + eps, phi) - f(theta - eps, phi)) / (2 * eps), rtol=1e-6, atol=1e-8
    )
    np.testing.assert_allclose(
        dp, (f(theta, phi + eps) - f(theta, phi - eps)) / (2 * eps), rtol=1e-6, atol=1e-8
    )


def test_sph_harm_y_needs_n_max_for_a_graph_n():
    with pytest.raises(sg.GraphError, match="n_max"):
        run_graph(lambda n, t: sp.sph_harm_y(n, n, t, t), np.array([1, 2]), np.ones(2))
    got = run_graph(lambda n, t: sp.sph_harm_y(n, n, t, t, n_max=2), np.array([1, 2]), np.ones(2))
    np.testing.assert_allclose(got, ss.sph_harm_y([1, 2], [1, 2], 1.0, 1.0), rtol=1e-14)


# -- vectorize -----------------------------------------------------------------------------------
def test_vectorize_matches_a_loop():
    x = RNG.uniform(-3, 3, (3, 4))
    b = RNG.uniform(0.5, 3, (3, 4))

    def per_row(u, q):
        w = sp.wofz(u + 1j * q)
        return (
            sp.owens_t(u, q) + snp.real(w) + sp.bessel_jn(u, v=2)[2] + snp.imag(sp.sph_harm_y(np.array([2, 3, 1, 2]), np.array([1, -2, 1, 0]), q, u))
        )  # fmt: skip

    got = run_graph(lambda u, q: sg.vectorize(per_row)(u, q), x, b)
    loop = np.stack(
        [
            ss.owens_t(u, q) + ss.wofz(u + 1j * q).real
            + ss.jv(2, u) + ss.sph_harm_y([2, 3, 1, 2], [1, -2, 1, 0], q, u).imag
            for u, q in zip(x, b)
        ]
    )  # fmt: skip
    np.testing.assert_allclose(got, loop, rtol=1e-11, atol=1e-14)
