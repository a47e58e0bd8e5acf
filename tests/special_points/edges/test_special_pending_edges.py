"""The gamma family at the edges the special-point sweep found (issue 20, part 2), against scipy and
closed forms: poch where z + m rounds onto a pole of Gamma though the true value is finite, poch at
m = inf, comb with repetition for 0 < N < 1, and the float32 gamma family's last digits (exp of a
float32 gammaln difference)."""

import math

import numpy as np
import scipy.special

import stablegraph as sg
from stablegraph.test_util import run_graph

S = sg.scipy.special


def _ulps(got, want, dtype):
    """|got - want| in ulps of want rounded to dtype."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return np.abs(got - want) / np.spacing(np.abs(want).astype(dtype)).astype(np.float64)


def test_poch_where_z_plus_m_rounds_onto_a_pole():
    """poch(1e-38, -1) = Gamma(1e-38 - 1) / Gamma(1e-38) = 1 / (1e-38 - 1) = -1 (closed form); before,
    z + m rounded to -1 and the answer was inf. The same for -1 - eps and the largest m."""
    for dtype in (np.float32, np.float64):
        tiny = np.finfo(dtype).tiny
        eps = np.finfo(dtype).eps
        z = np.array([tiny, -tiny, tiny, -1 - eps, -1 - eps, 2.5, 0.5], dtype)
        m = np.array([-1, -2, -3, -1, -2, -3, -1], dtype)
        got = run_graph(lambda a, b: S.poch(a, b), z, m)
        # (z)_m for m = -n is 1 / ((z - 1)(z - 2)...(z - n)), in long double
        zl = z.astype(np.longdouble)
        want = [1 / math.prod(zl[i] - j for j in range(1, int(-m[i]) + 1)) for i in range(len(z))]
        want = np.array(want, np.float64)
        assert np.all(_ulps(got, want, dtype) <= 4), (dtype, got, want)
        assert np.allclose(want, scipy.special.poch(z.astype(np.float64), m.astype(np.float64)), rtol=1e-12)


def test_poch_at_infinite_m():
    """Gamma(z + m) / Gamma(z) tends to sign(Gamma(z)) inf as m -> inf, and (-n)_m = 0 for m > n:
    scipy's values; nan for m = -inf (before: nan for both infinities)."""
    z = np.array([1.0, 0.5, -0.5, -1.5, 0.0, -1.0, 2.0, 0.5], np.float32)
    m = np.array([np.inf] * 7 + [-np.inf], np.float32)
    got = run_graph(lambda a, b: S.poch(a, b), z, m)
    want = scipy.special.poch(z.astype(np.float64), m.astype(np.float64))
    np.testing.assert_array_equal(got, want.astype(np.float32))


def test_comb_with_repetition_below_one_and_at_large_k():
    """C(N + k - 1, k) = Gamma(N + k) / (Gamma(k + 1) Gamma(N)) (scipy's poch and gamma, which round
    no N + k - 1): for 0 < N < 1 not 0 (before: 0 for every N < 1), N / k at N = 2e-38, k = 1e-7,
    k^(N - 1) / Gamma(N) at k = 1.8e19 (before: 1, N + k - 1 rounded to k)."""
    for dtype in (np.float32, np.float64):
        below_one = 1 - np.finfo(dtype).epsneg
        N = np.array([below_one, below_one, 0.5, 0.25, 2e-38, 1.5, 0.7, 0.3, 2.5, 0.5, 2.0, 3.0], dtype)
        k = np.array([0.5, 10.0, 2.0, 3.0, 1e-7, 1.8e19, 1.8e19, 1e4, 1e8, 0.0, 0.0, 2.0], dtype)
        got = run_graph(lambda a, b: S.comb(a, b, repetition=True), N, k)
        n64, k64 = N.astype(np.float64), k.astype(np.float64)
        want = n64 / (n64 + k64) * scipy.special.poch(k64 + 1, n64) / scipy.special.gamma(n64 + 1)
        bound = 1 if dtype == np.float32 else 16  # float64: exp of a log near 22 (k^0.5 at k = 1.8e19)
        assert np.all(_ulps(got, want, dtype) <= bound), (dtype, got, want, _ulps(got, want, dtype))


def test_float32_gamma_family_to_the_last_digit():
    """factorial, comb and poch in float32 within an ulp of scipy (before: factorial(pi) 16 ulps
    off, comb(1 + eps, 0.1) 10: exp of a float32 gammaln difference)."""
    n = np.array([np.pi, 0.5, 2.5, 10.0, 30.5], np.float32)
    got = run_graph(lambda a: S.factorial(a), n)
    want = scipy.special.factorial(n.astype(np.float64))
    assert np.all(_ulps(got, want, np.float32) <= 1), (got, want)
    N = np.array([1.0000001, 1.5, 30.0, 100.0, 10.0], np.float32)
    k = np.array([0.1, 0.001, 0.1, 0.9999999, 3.0], np.float32)
    got = run_graph(lambda a, b: S.comb(a, b), N, k)
    want = scipy.special.comb(N.astype(np.float64), k.astype(np.float64))
    assert np.all(_ulps(got, want, np.float32) <= 1), (got, want)
    z = np.array([0.1, 2.5, -0.5, 30.0], np.float32)
    m = np.array([2.5, 0.3, 1.7, 3.0], np.float32)
    got = run_graph(lambda a, b: S.poch(a, b), z, m)
    want = scipy.special.poch(z.astype(np.float64), m.astype(np.float64))
    assert np.all(_ulps(got, want, np.float32) <= 1), (got, want)


def test_float64_gamma_family_near_the_zeros_of_gammaln():
    """XLA's float64 lgamma has an absolute error near 1e-15 at its zeros 1 and 2 (lgamma(1 + eps) =
    8.9e-16 where it is -0.577 eps) and 11 ulps at 3: comb(0.001, 2.2e-16) was 16 ulps below 1.
    Closed forms: comb(N, k) = 1 + k (psi(N + 1) - psi(1)) + O(k^2) for tiny k; Gamma(1 + a) = 1 - 0.577 a
    + O(a^2), Gamma(2 + a) = 1 + 0.423 a + O(a^2); comb(3, 0.001) and comb(N, 1 - eps) from scipy."""
    eps = np.finfo(np.float64).eps
    N = np.array([0.001, 2.0, 3.0, 1 + eps, 3.0], np.float64)
    k = np.array([eps, eps, 0.001, 1 - eps / 2, 1.0], np.float64)
    got = run_graph(lambda a, b: S.comb(a, b), N, k)
    tiny = 1 + k[:2] * (scipy.special.digamma(N[:2] + 1) - scipy.special.digamma(1.0))
    want = np.concatenate([tiny, scipy.special.comb(N[2:], k[2:])])
    # 4: scipy's own comb keeps about 1e-16 absolutely near 1 (its gammaln there)
    assert np.all(_ulps(got, want, np.float64) <= 4), (got, want, _ulps(got, want, np.float64))
    n = np.array([eps, 1 - eps / 2, 2.0, 3.0, 0.5], np.float64)
    got = run_graph(lambda a: S.factorial(a), n)
    want = np.array(
        [1 - np.euler_gamma * eps, 1 - (1 - np.euler_gamma) * eps / 2, 2.0, 6.0, math.sqrt(math.pi) / 2]
    )
    assert np.all(_ulps(got, want, np.float64) <= 1), (got, want, _ulps(got, want, np.float64))


def test_float32_beta_to_the_last_digit():
    """beta in float32 within an ulp of scipy (before: exp of a float32 betaln, 5 ulps off at
    (1.2e-7, -0.5), 8388612 where scipy has 8388607.39)."""
    a = np.array([1.1920929e-07, 0.5, 2.5, 30.0, 0.1], np.float32)
    b = np.array([-0.5, 0.5, 3.5, 1e-3, 10.0], np.float32)
    got = run_graph(lambda x, y: S.beta(x, y), a, b)
    want = scipy.special.beta(a.astype(np.float64), b.astype(np.float64))
    assert np.all(_ulps(got, want, np.float32) <= 1), (got, want, _ulps(got, want, np.float32))


def test_slopes_in_a_whole_m_or_k():
    """The products over a whole m or k carry the smooth formula's slopes: d/dm poch(z, m) = poch(z, m)
    (psi(z + m)), d/dk comb(N, k) = comb(N, k) (psi(N - k + 1) - psi(k + 1)), d/dk of comb with
    repetition = comb (psi(N + k) - psi(k + 1)) (closed forms with scipy's digamma), not 0."""
    z = np.array([1.0, 1.0, 0.5, 2.5], np.float64)
    m = np.array([1.0, 2.0, 3.0, 2.0], np.float64)
    dm = run_graph(lambda a, b: sg.grad(lambda t: S.poch(a, t).sum())(b), z, m)
    psi = scipy.special.digamma
    np.testing.assert_allclose(dm, scipy.special.poch(z, m) * psi(z + m), rtol=1e-12)
    N = np.array([5.0, 3.5, 10.0], np.float64)
    k = np.array([2.0, 1.0, 3.0], np.float64)
    dk = run_graph(lambda a, b: sg.grad(lambda t: S.comb(a, t).sum())(b), N, k)
    np.testing.assert_allclose(dk, scipy.special.comb(N, k) * (psi(N - k + 1) - psi(k + 1)), rtol=1e-12)
    dk = run_graph(lambda a, b: sg.grad(lambda t: S.comb(a, t, repetition=True).sum())(b), N, k)
    want = scipy.special.comb(N, k, repetition=True) * (psi(N + k) - psi(k + 1))
    np.testing.assert_allclose(dk, want, rtol=1e-12)


def test_poch_slope_in_m_at_negative_z_plus_m():
    """d/dm poch(z, m) = poch(z, m) psi(z + m) also where z + m < 0 (the reflection's slope in m,
    psi(1 - z - m), differs by pi cot(pi (z + m)): it must not be used there)."""
    z = np.array([0.5, 2.5, -0.3], np.float64)
    m = np.array([-1.0, -3.0, -2.0], np.float64)
    dm = run_graph(lambda a, b: sg.grad(lambda t: S.poch(a, t).sum())(b), z, m)
    want = scipy.special.poch(z, m) * scipy.special.digamma(z + m)
    np.testing.assert_allclose(dm, want, rtol=1e-12)


def test_comb_at_huge_n():
    """C(N, k) for N = 3.4e38 (float32's largest, widened): N^k / Gamma(k + 1) (scipy), not the
    1 / Gamma(k + 1) left when gammaln(N + 1) - gammaln(N - k + 1) cancels to 0."""
    N = np.full(3, 3.4028234663852886e38, np.float32)
    k = np.array([1.1920929e-07, 0.5, 0.9], np.float32)
    got = run_graph(lambda a, b: S.comb(a, b), N, k)
    want = scipy.special.comb(N.astype(np.float64), k.astype(np.float64))
    assert np.all(_ulps(got, want, np.float32) <= 1), (got, want)
