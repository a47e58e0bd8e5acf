"""The derivatives of sg.scipy.special.hyp1f1 and hyp2f1 in their parameters (a, b; a, b, c):
against central differences of 60- to 180-digit decimal series (first and second derivatives, at
random points and where jax's parameter series is wrong: x < 0 far out, 2F1 near x = 1 and at
integer c - a - b, terminating a = -n), closed forms at the edges (x = 0, -0, tiny x, a = 0,
b = a, Gauss's sum at x = 1, poles, infinities), vectorize against the unbatched slopes. Each
function's cases run in one graph (each hyp graph costs seconds of XLA compile); float32 is the
float64 code between two casts, swept at the special points (tests/special_points, hyp1f1[params]
and hyp2f1[params] in both families)."""

from decimal import Decimal, getcontext

import numpy as np
import pytest
import scipy.special as ss

import stablegraph as sg
from stablegraph.test_util import run_graph

pytestmark = pytest.mark.usefixtures("jax_x64")
sp = sg.scipy.special
snp = sg.numpy
RNG = np.random.default_rng(2627)


def _decimal_1f1(a, b, x):
    term = total = Decimal(1)
    for k in range(6000):
        term = term * (a + k) / (b + k) * x / (k + 1)
        total += term
        if term == 0 or (k > 50 and abs(term) < abs(total) * Decimal("1e-45")):
            break
    return total


def _decimal_2f1(a, b, c, x):
    if x < 0:  # Pfaff's transformation: the series of x / (x - 1) in (0, 1) converges
        return (1 - x) ** (-a) * _decimal_2f1(a, c - b, c, x / (x - 1))
    term = total = Decimal(1)
    for k in range(40000):
        term = term * (a + k) * (b + k) / ((c + k) * (k + 1)) * x
        total += term
        if term == 0 or (k > 50 and abs(term) < abs(total) * Decimal("1e-45")):
            break
    return total


def _central_difference(f, point, i: int, digits: int, step: int) -> float:
    """d/d(point[i]) f by a central difference of step 10^-step in decimals of ``digits`` digits
    (its error 10^(-2 step) relative, the rounding's the largest term's 10^(step - digits))."""
    getcontext().prec = digits
    h = Decimal(10) ** -step
    up, down = [Decimal(v) for v in point], [Decimal(v) for v in point]
    up[i] += h
    down[i] -= h
    return float((f(*up) - f(*down)) / (2 * h))


def _param_grads(fn, count: int):
    """The gradients of sum fn(...) in its first ``count`` arguments."""
    return lambda *args: sg.grad(lambda *xs: fn(*xs).sum(), argnums=tuple(range(count)))(*args)


def _second_difference(f, point, i: int, j: int, digits: int = 100, step: int = 12) -> float:
    """d^2 f / (d point[i] d point[j]) by central differences of step 10^-step in decimals (the
    error 10^(-2 step) relative; the series' cut at 1e-45 relative, divided by h^2, 10^(2 step - 45))."""
    getcontext().prec = digits
    h = Decimal(10) ** -step

    def at(si, sj):
        p = [Decimal(v) for v in point]
        p[i] += si * h
        p[j] += sj * h
        return f(*p)

    if i == j:
        return float((at(1, 0) - 2 * f(*(Decimal(v) for v in point)) + at(-1, 0)) / (h * h))
    return float((at(1, 1) - at(1, -1) - at(-1, 1) + at(-1, -1)) / (4 * h * h))


# -- 1F1 ------------------------------------------------------------------------------------------
N1 = 24
A1R, B1R, X1R = RNG.uniform(-3, 3, N1), RNG.uniform(0.3, 5, N1), RNG.uniform(-4, 25, N1)
HARD1 = [
    (0.5, 1.0, -30.0), (1.3, 2.5, -80.0), (0.7, 3.2, -150.0), (1.0, 1.0, -300.0),  # Kummer far out
    (-2.0, 1.5, -20.0), (-3.0, 2.0, 5.0), (0.0, 1.5, -40.0), (0.0, 2.0, 3.0),  # a = -n, a = 0
    (2.2, 0.7, 120.0), (3.0, 1.0, 200.0),  # the asymptotic series
    (2.5, 2.5, -7.0), (4.0, 2.0, 3.0), (-1.5, 0.5, -60.0),  # b = a, integers
]  # fmt: skip
EDGE1 = [
    (1.5, 2.0, 0.0), (1.5, 2.0, -0.0), (1.5, 2.0, 1e-300),  # x = 0, tiny x: d/da = x / b
    (1.5, -2.0, 1.0), (1.5, 2.0, np.inf), (1.5, 2.0, -np.inf), (np.nan, 2.0, 1.0),
    (1.5, np.inf, -1.0), (0.0, np.inf, 2.0),  # b = inf: 1F1 = 1, flat (ours was nan)
]  # fmt: skip

VALUE_EDGES = [
    (0.5, 1.0, -np.inf), (-0.5, 1.0, -np.inf), (-0.5, -0.3, -np.inf),  # Gamma(-0.3) / Gamma(0.2) < 0
    (-2.0, 1.5, -np.inf), (-1.0, 1.5, -np.inf),  # polynomials: 1 - 2x / 1.5 + ..., 1 - x / 1.5
    (0.0, 2.0, -np.inf), (1.5, -0.5, -np.inf), (1e-300, 0.0, -np.inf),  # b - a = -2: e^x (...); b a pole
    (0.1, 0.5, -np.finfo(np.float64).max), (1.0, 1e4, -np.finfo(np.float64).max),
    (-1.0, -1.0, 1.0), (-1.0, -1.0, 0.0), (10.0, 2.2250738585072014e-308, 0.0), (0.0, -1.0, 1.0),
    (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (np.inf, 0.0, 1.0), (-2.0, -1.0, 0.0), (-1.0, -2.0, 0.5),
]  # fmt: skip


def _columns(points):
    return [np.array([p[i] for p in points]) for i in range(len(points[0]))]


def test_hyp1f1_parameter_derivatives():
    a, b, x = (np.concatenate([r, h]) for r, h in zip((A1R, B1R, X1R), _columns(HARD1 + EDGE1)))

    def build(p, q, r):
        first = _param_grads(sp.hyp1f1, 2)
        da = lambda u, v, w: first(u, v, w)[0].sum()  # noqa: E731
        second = sg.grad(da, argnums=(0, 1))(p[:N1], q[:N1], r[:N1])
        rows = sg.vectorize(lambda u, v, w: first(u, v, w)[1])(
            p[:6].reshape(2, 3), q[:6].reshape(2, 3), r[:6].reshape(2, 3)
        )
        limits = sp.hyp1f1(*(snp.asarray(v) for v in _columns(VALUE_EDGES)))
        return first(p, q, r), second, rows, limits

    (da, db), (daa, dab), rows, limits = run_graph(build, a, b, x)
    # the values at x = -inf: Gamma(b) / Gamma(b - a) (-x)^-a -> 0 (a > 0), +-inf (a < 0), 1 (a = 0);
    # a pole b = 0, -1, ...: inf (scipy's)
    np.testing.assert_array_equal(limits[:8], [0.0, np.inf, -np.inf, np.inf, np.inf, 1.0, 0.0, np.inf])
    # x = -max: that ratio times max^-a (was max^-a alone: x + Gamma's logs rounded to x)
    big = np.finfo(np.float64).max
    far = [ss.gamma(0.5) / ss.gamma(0.4) * big**-0.1, 9999.0 / big]
    np.testing.assert_allclose(limits[8:10], far, rtol=1e-10)  # logs of size 7e6 cancel in the second
    # scipy's conventions at x = 0 (1, also for a tiny b), at poles (a = b = -n ends the series;
    # a = 0 does not; a = inf at a pole: inf)
    np.testing.assert_array_equal(limits[10:], ss.hyp1f1(*_columns(VALUE_EDGES[10:])))
    assert list(limits[10:13]) == [2.0, 1.0, 1.0]
    # random points and the hard ones (jax's parameter series is wrong at the latter): 180-digit
    # central differences, first and (random points) second derivatives
    for k, point in enumerate(zip(a[: N1 + len(HARD1)], b, x)):
        for got, i in ((da[k], 0), (db[k], 1)):
            want = _central_difference(_decimal_1f1, point, i, 180, 25)
            assert got == pytest.approx(want, rel=2e-13, abs=1e-13), (point, i, got, want)
        if k < N1:
            for got, j in ((daa[k], 0), (dab[k], 1)):
                want = _second_difference(_decimal_1f1, point, 0, j)
                assert got == pytest.approx(want, rel=1e-9, abs=1e-12), (point, j, got, want)
    # edges
    e = N1 + len(HARD1)
    assert da[e] == 0 and db[e] == 0 and da[e + 1] == 0 and db[e + 1] == 0
    assert da[e + 2] == pytest.approx(1e-300 / 2.0, rel=1e-15)
    assert np.isnan(da[e + 3]) and np.isnan(da[e + 4]) and np.isnan(db[e + 4])  # b a pole; x = inf
    assert da[e + 5] == 0 and db[e + 5] == 0  # 1F1 -> 0 at x = -inf (a > 0): flat
    assert np.isnan(da[e + 6]) and np.isnan(db[e + 6])
    assert list(da[e + 7 :]) == [0.0, 0.0] and list(db[e + 7 :]) == [0.0, 0.0]
    assert db[N1 + 6] == 0 and db[N1 + 7] == 0  # a = 0: 1F1 = 1 for every b
    # vectorize against the unbatched slopes (themselves checked above)
    np.testing.assert_allclose(rows.reshape(-1), db[:6], rtol=1e-14, atol=1e-300)


# -- 2F1 ------------------------------------------------------------------------------------------
N2 = 20
A2R, B2R = RNG.uniform(-3, 3, N2), RNG.uniform(-3, 3, N2)
C2R, X2R = RNG.uniform(0.3, 5, N2), RNG.uniform(-0.8, 0.8, N2)
HARD2 = [
    (0.5, 0.5, 2.5, -1.0), (0.4, 0.6, 3.0, -30.0), (1.5, 0.7, 2.2, -5.0),  # Pfaff
    (1.2, 0.3, 2.0, 0.97), (0.5, 1.5, 0.7, 0.96),  # the 1 - x transformation
    (0.5, 0.5, 2.0, 0.99), (0.3, 0.7, 1.0, 0.98), (2.5, 1.5, 2.0, 0.97), (0.5, 0.5, 3.0, 0.96),  # c - a - b integer
    (1.5, -2.0, 3.0, 0.96), (-2.0, 0.5, 1.5, 0.97), (-3.0, 1.5, 2.0, -4.0),  # terminating
    (1.5, 2.5, 2.5, 0.6),  # c = b: (1 - x)^-a
]  # fmt: skip
EDGE2 = [
    (1.0, 2.0, 4.5, 1.0),  # Gauss's sum
    (1.5, 2.0, 3.0, 0.0), (1.5, 2.0, 3.0, -0.0), (0.0, 2.0, 3.0, 0.5),
    (1.0, 2.0, 3.0, 1.5), (1.0, 2.0, -1.0, 0.5), (1.0, 2.0, 3.0, np.nan),  # nan: x > 1, c a pole, nan
]  # fmt: skip


def test_hyp2f1_parameter_derivatives():
    a, b, c, x = (np.concatenate([r, h]) for r, h in zip((A2R, B2R, C2R, X2R), _columns(HARD2 + EDGE2)))

    da, db, dc = run_graph(_param_grads(sp.hyp2f1, 3), a, b, c, x)
    # random points and the hard ones (x < 0 far out, near 1, terminating): 60-digit differences
    for k, point in enumerate(zip(a[: N2 + len(HARD2)], b, c, x)):
        for got, i in ((da[k], 0), (db[k], 1), (dc[k], 2)):
            want_k = _central_difference(_decimal_2f1, point, i, 60, 20)
            # 2e-10 where c - a - b is an integer near 1 (Richardson's extrapolation), else 1e-12
            rel = 2e-10 if abs(sum(point[:2]) - point[2]) % 1 == 0 and point[3] > 0.95 else 1e-12
            assert got == pytest.approx(want_k, rel=rel, abs=1e-13), (point, i, got, want_k)
    e = N2 + len(HARD2)
    # Gauss's sum G = Gamma(c) Gamma(c - a - b) / (Gamma(c - a) Gamma(c - b)): its log-derivatives
    p, q, r, _ = EDGE2[0]
    g = ss.gamma(r) * ss.gamma(r - p - q) / (ss.gamma(r - p) * ss.gamma(r - q))
    psi = ss.digamma
    gauss = [
        g * (psi(r - p) - psi(r - p - q)),
        g * (psi(r - q) - psi(r - p - q)),
        g * (psi(r) + psi(r - p - q) - psi(r - p) - psi(r - q)),
    ]
    np.testing.assert_allclose([da[e], db[e], dc[e]], gauss, rtol=1e-13)
    for k in (e + 1, e + 2):
        assert da[k] == 0 and db[k] == 0 and dc[k] == 0
    assert db[e + 3] == 0 and dc[e + 3] == 0  # a = 0: 2F1 = 1 for every b, c
    want_a0 = _central_difference(_decimal_2f1, EDGE2[3], 0, 60, 20)
    assert da[e + 3] == pytest.approx(want_a0, rel=1e-13)
    assert np.isnan([da[e + 4 :], db[e + 4 :], dc[e + 4 :]]).all()
