"""sg.scipy.stats.poisson.entropy against an independent long-double sum of -p log p, scipy where
scipy is right (mu up to 1e3), the asymptotic series for huge mu (where scipy's returns garbage),
mu (1 - log mu) for tiny mu, and a finite-difference derivative; float32 and float64, vectorized."""

import math

import numpy as np
import scipy.stats as st

import stablegraph as sg
from stablegraph.test_util import run_graph

entropy = sg.scipy.stats.poisson.entropy


def _long_double_entropy(mu: float) -> float:
    """-sum_k p(k) log p(k) in long double, with log k! from exact integer factorials' logs."""
    m = np.longdouble(mu)
    total, log_fact = np.longdouble(0), np.longdouble(0)
    for k in range(int(mu + 40 * math.sqrt(mu) + 60)):
        if k > 1:
            log_fact += np.log(np.longdouble(k))
        log_p = k * np.log(m) - m - log_fact
        total -= np.exp(log_p) * log_p
    return float(total)


def test_values_and_derivatives():
    mu = np.array(
        [
            0.0,
            1e-30,
            1e-3,
            0.5,
            1.0,
            2.0,
            7.25,
            49.9,
            120.0,
            499.9,
            500.1,
            1e3,
            1e6,
            1e12,
            np.inf,
            -1.0,
            np.nan,
        ]
    )
    loc = np.array([0.0, 3.0, -2.0] + [0.0] * 14)
    got64, got32, grads = run_graph(
        lambda m, at, m32: [entropy(m, at), entropy(m32), sg.grad(lambda v: entropy(v).sum())(m[2:9])],
        mu,
        loc,
        mu.astype(np.float32),
    )
    for m, value in zip(mu[2:10], got64[2:10]):
        # a few ulps for small mu; k log mu - mu - log k! cancels terms of size ~mu log mu above
        assert abs(value - _long_double_entropy(m)) <= (4e-15 if m < 10 else 2e-13) * abs(value), m
    np.testing.assert_allclose(got64[2:12], st.poisson.entropy(mu[2:12]), rtol=5e-12)
    huge = mu[12:14]  # scipy's own answer there is wrong (2.77 and 0): the series is the oracle
    # (its first two terms: the next, 1/(24 mu^2), is 4e-14 at 1e6)
    np.testing.assert_allclose(
        got64[12:14], 0.5 * np.log(2 * np.pi * np.e * huge) - 1 / (12 * huge), rtol=1e-14
    )
    assert got64[0] == 0.0 and got64[14] == np.inf
    np.testing.assert_allclose(got64[1], 1e-30 * (1 - np.log(1e-30)), rtol=4e-15)  # + O(mu^2 log mu)
    assert np.isnan(got64[15]) and np.isnan(got64[16])
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32[2:14], got64[2:14].astype(np.float32), rtol=6e-8)
    h = 1e-6 * mu[2:9]
    fd = [(_long_double_entropy(m + d) - _long_double_entropy(m - d)) / (2 * d) for m, d in zip(mu[2:9], h)]
    np.testing.assert_allclose(grads, fd, rtol=1e-8)


def test_vectorize_matches_a_loop():
    mu = np.random.default_rng(5).uniform(0, 30, (3, 4))
    got = run_graph(lambda m: sg.vectorize(entropy)(m), mu)
    np.testing.assert_allclose(got, np.stack([st.poisson.entropy(r) for r in mu]), rtol=1e-12)


def test_slopes_at_zero_are_infinite():
    # H(mu) = mu - mu log mu + O(mu^2): H'(0) = +inf, H''(0) = -inf (the sum's stand-in gave 0 and 0)
    mu = np.array([0.0, 2.0])
    g = sg.Graph()
    with g:
        m = sg.placeholder(mu.shape, sg.float64)

        def slope(x):
            return sg.grad(lambda y: sg.numpy.sum(entropy(y)))(x)

        d1, d2 = slope(m), sg.grad(lambda y: sg.numpy.sum(slope(y)))(m)
    with sg.Session(g) as s:
        d1, d2 = s.run((d1, d2), {m: mu})
    assert d1[0] == np.inf and d2[0] == -np.inf, (d1, d2)
    # at mu = 2: E[log(K + 1)] - log 2 and E[log1p(1 / (K + 1))] - 1/2 by long-double sums
    k = np.arange(80, dtype=np.longdouble)
    log_fact = np.concatenate([[0], np.cumsum(np.log(k[1:]))])
    pk = np.exp(k * np.log(np.longdouble(2)) - 2 - log_fact)
    np.testing.assert_allclose(
        d1[1], float(np.sum(pk * np.log(k + 1)) - np.log(np.longdouble(2))), rtol=1e-13
    )
    np.testing.assert_allclose(d2[1], float(np.sum(pk * np.log1p(1 / (k + 1))) - 0.5), rtol=1e-12)
