"""sg.scipy.special's exponential, error-function and related integrals (special_integrals.py):
exp1, expi, expn, erfcx, dawsn, sici, fresnel, spence against scipy.special in float64 at random
points and at 0, -0, tiny, branch points, huge, +-inf and nan; float32 against the float64
reference; first and second derivatives against their closed forms; vectorize against a loop."""

import math
from decimal import Decimal, getcontext

import numpy as np
import scipy.special as ss

import stablegraph as sg
from stablegraph.test_util import run_graph

sp = sg.scipy.special
RNG = np.random.default_rng(2626)
EDGES = np.array(
    [-np.inf, -800.0, -30.0, -5.0, -2.0, -1.0, -0.5, -0.0, 0.0, 1e-300, 1e-10, 0.1, 0.19, 0.2, 0.5, 1.0,
     1.0000001, 1.5, 1.6, 2.0, 4.0, 4.1, 5.0, 10.0, 39.0, 40.0, 41.0, 50.0, 100.0, 700.0, 800.0, 1e4, 1e10,
     np.inf, np.nan]
)  # fmt: skip
X = np.concatenate([EDGES, RNG.uniform(-10, 10, 24), RNG.uniform(0, 60, 12)])
EXPN_N = np.array([0.0, 1, 2, 3, 5, 10, 50, 100, 2, 3, 7, 0, 2, 4, -1, 2, 3, 1, 2.5])
EXPN_X = np.array(
    [0.5, 0.5, 0.5, 0.2, 0.9, 0.5, 1.0, 0.7, 3.0, 10.0, 1.5, 0.0, 0.0, 0.0, 1.0, np.inf, 1e-300, 0.0, 2.0]
)
# scipy's own float64 values that are off: Ei just past 40 (up to 1.5e-14; the reference there is
# _ei_exact's 60-digit series), Li2(1/2) = pi^2/12 - log(2)^2/2 = 0.5822405264650125, Li2(-1) = -pi^2/12); where scipy overflows
# or gives nan at the limits, the true values: Ei(700..716) < max float, spence(inf) = -inf,
# fresnel past 1e154 = 1/2 (see signatures_special.DIFFERENCES)
TRUE = {("spence", 0.5): 0.5822405264650125, ("spence", 2.0): -(math.pi**2) / 12}


def _ei_exact(x: float) -> float:
    """Ei(x) for 0 < x <= 100 from gamma + log x + sum_k x^k / (k k!) in 60-digit decimals."""
    getcontext().prec = 60
    gamma = Decimal("0.57721566490153286060651209008240243104215933593992")
    v, term, total = Decimal(float(x)), Decimal(1), Decimal(0)
    for k in range(1, 500):
        term = term * v / k
        total += term / k
    return float(gamma + v.ln() + total)


def _build(x, n, xn):
    si, ci = sp.sici(x)
    s, c = sp.fresnel(x)
    return {
        "exp1": sp.exp1(x), "expi": sp.expi(x), "erfcx": sp.erfcx(x), "dawsn": sp.dawsn(x), "si": si, "ci": ci,
        "fresnel_s": s, "fresnel_c": c, "spence": sp.spence(x), "expn": sp.expn(n, xn),
    }  # fmt: skip


def _reference(x, n, xn):
    with np.errstate(all="ignore"):
        si, ci = ss.sici(x)
        s, c = ss.fresnel(x)
        want = {
            "exp1": ss.exp1(x), "expi": ss.expi(x), "erfcx": ss.erfcx(x), "dawsn": ss.dawsn(x), "si": si, "ci": ci,
            "fresnel_s": s, "fresnel_c": c, "spence": ss.spence(x), "expn": ss.expn(np.trunc(n), xn),
        }  # fmt: skip
    for (name, at), value in TRUE.items():
        want[name] = np.where(x == at, value, want[name])
    want["spence"] = np.where(x == np.inf, -np.inf, want["spence"])
    exact = (x > 30) & (x <= 100)
    want["expi"] = want["expi"].copy()
    want["expi"][exact] = [_ei_exact(v) for v in x[exact]]
    # scipy's erfcx(x < -5) is up to 4e-15 off: 2 e^(x^2) - erfcx(-x) with e^(x^2) in 50 digits
    left = (x < -5) & (x > -26)
    want["erfcx"] = want["erfcx"].copy()
    getcontext().prec = 50
    want["erfcx"][left] = [
        float(2 * (Decimal(float(v)) ** 2).exp() - Decimal(float(ss.erfcx(-v)))) for v in x[left]
    ]
    return want


def test_values_match_scipy_at_edges_and_random_points():
    got = run_graph(_build, X, EXPN_N, EXPN_X)
    want = _reference(X, EXPN_N, EXPN_X)
    # Ei(x) for 709.8 < x < 716 is finite (e^x / x): scipy's inf is an overflow of e^x alone
    assert np.isfinite(got["expi"][X == 700.0]).all() and got["expi"][X == 800.0] == np.inf
    for name, value in got.items():
        w = want[name]
        # Ci near its zeros and Ei near its zero (0.3725) keep an absolute, not relative, error
        atol = 2e-15 if name in ("ci", "expi") else 0.0
        np.testing.assert_allclose(value, w, rtol=3e-15, atol=max(atol, 1e-300), err_msg=name)
    # odd functions keep the sign of zero; spence(-0) = pi^2/6; the edges scipy's tables give
    zero = X == 0
    for name in ("dawsn", "si", "fresnel_s", "fresnel_c"):
        np.testing.assert_array_equal(np.signbit(got[name][zero]), np.signbit(X[zero]), err_msg=name)
    assert (got["expi"][zero] == -np.inf).all() and (got["exp1"][zero] == np.inf).all()
    assert np.isnan(got["exp1"][X < 0]).all() and np.isnan(got["spence"][X < 0]).all()


def test_float32_is_the_float64_value_rounded():
    x32 = X.astype(np.float32)
    got = run_graph(_build, x32, EXPN_N.astype(np.float32), EXPN_X.astype(np.float32))
    want = _reference(x32.astype(np.float64), EXPN_N, EXPN_X.astype(np.float32).astype(np.float64))
    tiny = np.finfo(np.float32).tiny
    for name, value in got.items():
        assert value.dtype == np.float32, name
        w = want[name]
        # float32 results flush below the smallest normal float32 (XLA on CPU)
        w = np.where(np.abs(w) < tiny, 0.0, w)
        np.testing.assert_allclose(value, w.astype(np.float32), rtol=2e-6, atol=2e-7, err_msg=name)


def test_derivatives_match_the_closed_forms():
    x = RNG.uniform(0.05, 8, 10)
    neg = -RNG.uniform(0.05, 8, 10)
    both = np.concatenate([neg, x, [1.0, 0.5, 2.0, 60.0, 200.0]])
    n = np.array([0.0, 1, 2, 3, 5, 2, 3, 4, 6, 10])

    def total(a, b, c, d, e):
        si, ci = sp.sici(a)
        s, co = sp.fresnel(a)
        return (
            (sp.expi(a) + sp.erfcx(a) + sp.dawsn(a) + 2 * si + 3 * ci + 5 * s + 7 * co).sum()
            + sp.expn(b, c).sum()
            + sp.spence(d).sum()
            + sp.exp1(e).sum()
        )

    spence_x = np.concatenate([x, [1.0, 0.5, 2.0, 1e-3, 100.0]])
    grads = run_graph(
        lambda a, b, c, d, e: sg.grad(total, argnums=(0, 2, 3, 4))(a, b, c, d, e), both, n, x, spence_x, x
    )
    a = both
    erfcx_slope = np.where(a < 25, 2 * a * ss.erfcx(a) - 2 / math.sqrt(math.pi), 0.0)
    # past 25, 2x erfcx - 2/sqrt(pi) cancels: its asymptotic series -(1/sqrt pi) sum (2k+1)!! / (2x^2)^(k+1)
    far = a >= 25
    erfcx_slope[far] = (
        -1
        / math.sqrt(math.pi)
        * sum(math.prod(range(1, 2 * k + 2, 2)) / (2 * a[far] ** 2) ** (k + 1) for k in range(8))
    )
    dawsn_slope = 1 - 2 * a * ss.dawsn(a)
    dawsn_slope[far] = -sum(
        math.prod(range(1, 2 * k + 2, 2)) / (2 * a[far] ** 2) ** (k + 1) for k in range(8)
    )
    with np.errstate(all="ignore"):
        want_a = (
            np.exp(a) / a + erfcx_slope + dawsn_slope + 2 * np.sin(a) / a + 3 * np.cos(a) / a
            + 5 * np.sin(np.pi * a * a / 2) + 7 * np.cos(np.pi * a * a / 2)
        )  # fmt: skip
    np.testing.assert_allclose(grads[0], want_a, rtol=2e-13, atol=1e-15)
    want_n = np.where(n == 0, -np.exp(-x) * (x + 1) / x**2, -ss.expn(np.maximum(n - 1, 0), x))
    np.testing.assert_allclose(grads[1], want_n, rtol=1e-13)
    want_spence = np.where(spence_x == 1, -1.0, np.log(spence_x) / (1 - spence_x))
    np.testing.assert_allclose(grads[2], want_spence, rtol=1e-13)
    np.testing.assert_allclose(grads[3], -np.exp(-x) / x, rtol=1e-13)


def test_second_derivatives_match_the_closed_forms():
    x = np.concatenate([RNG.uniform(0.1, 8, 8), [0.15, 1.0, 5.0, 12.0]])

    def second(f):  # elementwise: the gradient of the summed gradient is the second derivative
        return sg.grad(lambda v: sg.grad(lambda u: f(u).sum())(v).sum())

    got = run_graph(
        lambda v: {
            "exp1": second(sp.exp1)(v), "expi": second(sp.expi)(v), "erfcx": second(sp.erfcx)(v),
            "dawsn": second(sp.dawsn)(v), "fresnel_s": second(lambda u: sp.fresnel(u)[0])(v), "fresnel_c": second(lambda u: sp.fresnel(u)[1])(v),
            "expn3": second(lambda u: sp.expn(3.0, u))(v),
        },
        x,
    )  # fmt: skip
    e, f = ss.erfcx(x), ss.dawsn(x)
    want = {
        "exp1": np.exp(-x) * (x + 1) / x**2,
        "expi": np.exp(x) * (x - 1) / x**2,
        "erfcx": 2 * e + 2 * x * (2 * x * e - 2 / math.sqrt(math.pi)),
        "dawsn": -2 * f - 2 * x * (1 - 2 * x * f),
        "fresnel_s": np.pi * x * np.cos(np.pi * x * x / 2),
        "fresnel_c": -np.pi * x * np.sin(np.pi * x * x / 2),
        "expn3": ss.expn(1, x),
    }
    for name, value in got.items():
        np.testing.assert_allclose(value, want[name], rtol=1e-9, atol=1e-12, err_msg=name)


def test_vectorize_matches_a_loop():
    x = RNG.uniform(-6, 6, (3, 5))
    n = RNG.integers(0, 6, (3, 5)).astype(np.float64)
    got = run_graph(
        lambda a, b: sg.vectorize(
            lambda u, m: (
                sp.dawsn(u) + sp.erfcx(u) + sp.sici(u)[0] + sp.fresnel(u)[1] + sp.expn(m, sg.numpy.abs(u))
            )
        )(a, b),
        x,
        n,
    )
    loop = np.stack(
        [
            ss.dawsn(r) + ss.erfcx(r) + ss.sici(r)[0] + ss.fresnel(r)[1] + ss.expn(m.astype(int), abs(r))
            for r, m in zip(x, n)
        ]
    )
    np.testing.assert_allclose(got, loop, rtol=1e-12)


def test_second_derivatives_where_erfcx_overflows_and_at_spence_one():
    """erfcx'' = (2 + 4x^2) erfcx(x) - 4x / sqrt(pi) is +inf where erfcx overflows (was nan: the
    chain rule of erfcx's own value inside its slope); spence'' at 1 is 1/2 (was 0: a constant -1
    spliced into the slope there), and near 1 it is the closed form's."""

    def second(f):
        return sg.grad(lambda v: sg.grad(lambda u: f(u).sum())(v).sum())

    left = np.array([-5.0, -9.0, -10.0, -20.0, -26.0, -27.0, -30.0, -100.0, -1e8, -np.inf])
    ones = np.array([1.0, 1 - 1e-9, 1 + 1e-9, 1 - 0.01, 1 + 0.01, 1 + 0.02, 0.98])
    u = ones - 1
    # (log x / (1 - x))' = (1/x)/(1 - x) + log x / (1 - x)^2, from its series near 1: 1/2 - 2u/3 + 3u^2/4 - ...
    spence2 = sum((k + 1) * (-u) ** k / (k + 2) for k in range(30))
    for dt, finite in ((np.float64, -26.0), (np.float32, -9.0)):
        got = run_graph(
            lambda a, b: (second(sp.erfcx)(a), second(sp.spence)(b)), left.astype(dt), ones.astype(dt)
        )
        x = left.astype(dt).astype(np.float64)
        with np.errstate(all="ignore"):
            want = (2 + 4 * x * x) * ss.erfcx(x) - 4 * x / math.sqrt(math.pi)
        want = np.where(x < finite, np.inf, want)
        rtol = 1e-12 if dt == np.float64 else 2e-5
        np.testing.assert_allclose(got[0], want, rtol=rtol)
        np.testing.assert_allclose(got[1], spence2, rtol=rtol if dt == np.float64 else 1e-4)
        assert got[1][0] == 0.5


def test_expn_at_one_within_two_ulps():
    """E_n(1) for n >= 2 from the recurrence E_(n+1)(1) = (e^-1 - E_n(1)) / n on E_1(1) =
    0.219383934395520273677... in 40-digit decimals: the series cancelled to 16 ulps at x = 1
    (the fraction, used from 1 on, is within 2)."""
    getcontext().prec = 40
    e_inv, en = Decimal(-1).exp(), Decimal("0.21938393439552027367716377546012164903")
    want = []
    for n in range(1, 6):
        en = (e_inv - en) / n
        want.append(float(en))
    orders = np.arange(2, 7)
    got64 = run_graph(lambda n, x: sg.scipy.special.expn(n, x), orders, np.ones(5))
    got32 = run_graph(lambda n, x: sg.scipy.special.expn(n, x), orders, np.ones(5, np.float32))
    np.testing.assert_array_less(np.abs(got64 - want), 2.5 * np.spacing(np.array(want)))
    np.testing.assert_array_less(np.abs(got32 - want), 1.5 * np.spacing(np.array(want, np.float32)))
