"""sg.random's further samplers: bit equality with jax.random where the algorithm is the same, else statistics."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

import stablegraph as sg

R, J = sg.random, jax.random


@pytest.fixture(autouse=True)
def _jax_defaults():
    """jax as a user sees it by default: 32-bit types and the partitionable threefry (as sg.random)."""
    with jax.enable_x64(False), jax.threefry_partitionable(True):
        yield


# rates and trial counts on both sides of each sampler's switch (Knuth / PTRS at lam = 10, inversion /
# BTRS at n * min(p, 1 - p) = 10), and p on both sides of 1/2
_LAM = np.tile(np.array([0.0, 0.5, 3.0, 9.5, 10.0, 25.0, 140.0, 1e4], np.float32), 40).reshape(40, 8)
_N = np.tile(np.array([5.0, 20.0, 100.0, 1000.0, 0.0, 40.0, 7.0, 300.0], np.float32), 40).reshape(40, 8)
_P = np.tile(np.array([0.3, 0.9, 0.05, 0.5, 0.5, 0.2, 1.0, 0.98], np.float32), 40).reshape(40, 8)
_MEAN = np.array([1.0, -2.0, 0.5], np.float32)
_COV = np.array([[2.0, 0.3, -0.4], [0.3, 1.0, 0.2], [-0.4, 0.2, 1.5]], np.float32)
# XLA fuses the sum of squares (maxwell) and wald's arithmetic differently in the two programs: last-bit
# differences (amplified by cancellation in wald), so these are compared to 1e-5
_CLOSE = {"maxwell", "dsm", "wald"}
_TRIALS = np.array([0.0, 7.0, 400.0], np.float32)
_PROBS = np.array([0.1, 0.0, 0.6, 0.3], np.float32)


def _sg_draws(k, lam, n, p):
    return dict(
        exponential=R.exponential(k, (500,)), exponential64=R.exponential(k, (50,), sg.float64),
        laplace=R.laplace(k, (500,)), logistic=R.logistic(k, (500,)), cauchy=R.cauchy(k, (500,)),
        weibull=R.weibull_min(k, 2.0, 1.5, (300,)), weibull_t=R.weibull_min(k, p, n + 1.0, (40, 8)),
        pareto=R.pareto(k, 3.0, (200,)), rayleigh=R.rayleigh(k, p), lognormal=R.lognormal(k, 0.5, (200,)),
        triangular=R.triangular(k, 0.0, 0.3, 2.0, (200,)), wald=R.wald(k, 1.5, (200,)),
        rademacher=R.rademacher(k, (100,)), rademacher_f=R.rademacher(k, (10,), sg.float32),
        maxwell=R.maxwell(k, (200,)), dsm=R.double_sided_maxwell(k, 1.0, 2.0, (30,)),
        geometric=R.geometric(k, 0.2, (300,)), geometric_p=R.geometric(k, p),
        poisson=R.poisson(k, lam), binomial=R.binomial(k, n, p),
        mvn=R.multivariate_normal(k, _MEAN, _COV, (50,)), mvn_eigh=R.multivariate_normal(k, _MEAN, _COV, method="eigh"),
        mvn_svd=R.multivariate_normal(k, _MEAN, _COV * 2.0, (4, 2), method="svd"),
        orthogonal=R.orthogonal(k, 4, (5,)), orthogonal_wide=R.orthogonal(k, 2, (3,), m=5),
        orthogonal_tall=R.orthogonal(k, 5, m=2),
        multinomial=R.multinomial(k, n[:, 0] * 10.0, p / p.sum(-1, keepdims=True)),
        multinomial_shape=R.multinomial(k, _TRIALS, _PROBS, shape=(3, 4)),
    )  # fmt: skip


@jax.jit
def _jax_draws(k, lam, n, p):
    return dict(
        exponential=J.exponential(k, (500,)), laplace=J.laplace(k, (500,)), logistic=J.logistic(k, (500,)),
        cauchy=J.cauchy(k, (500,)), weibull=J.weibull_min(k, 2.0, 1.5, (300,)),
        weibull_t=J.weibull_min(k, p, n + 1.0, (40, 8)),
        pareto=J.pareto(k, 3.0, (200,)), rayleigh=J.rayleigh(k, p), lognormal=J.lognormal(k, 0.5, (200,)),
        triangular=J.triangular(k, 0.0, 0.3, 2.0, (200,)), wald=J.wald(k, 1.5, (200,)),
        rademacher=J.rademacher(k, (100,)), rademacher_f=J.rademacher(k, (10,), jnp.float32),
        maxwell=J.maxwell(k, (200,)), dsm=J.double_sided_maxwell(k, 1.0, 2.0, (30,)),
        geometric=J.geometric(k, 0.2, (300,)), geometric_p=J.geometric(k, p),
        poisson=J.poisson(k, lam), binomial=J.binomial(k, n, p),
        mvn=J.multivariate_normal(k, _MEAN, _COV, (50,)), mvn_eigh=J.multivariate_normal(k, _MEAN, _COV, method="eigh"),
        mvn_svd=J.multivariate_normal(k, _MEAN, _COV * 2.0, (4, 2), method="svd"),
        orthogonal=J.orthogonal(k, 4, (5,)), orthogonal_wide=J.orthogonal(k, 2, (3,), m=5),
        orthogonal_tall=J.orthogonal(k, 5, m=2),
        multinomial=J.multinomial(k, n[:, 0] * 10.0, p / p.sum(-1, keepdims=True)),
        multinomial_shape=J.multinomial(k, _TRIALS, _PROBS, shape=(3, 4)),
    )  # fmt: skip


def test_bit_equal_to_jax():
    g = sg.Graph()
    with g:
        k = sg.placeholder((2,), sg.uint32, name="k")
        lam, n, p = (sg.placeholder((40, 8), sg.float32, name=s) for s in ("lam", "n", "p"))
        draws = _sg_draws(k, lam, n, p)
    jk = J.PRNGKey(1234)
    with sg.Session(g) as sess:
        got = sess.run(draws, {k: np.asarray(jk), lam: _LAM, n: _N, p: _P})
    want = _jax_draws(jk, _LAM, _N, _P)
    with jax.enable_x64():
        want["exponential64"] = J.exponential(jk, (50,), jnp.float64)
    assert set(want) == set(got)
    for name, w in want.items():
        w = np.asarray(w)
        assert got[name].shape == w.shape and got[name].dtype == w.dtype, name
        if name in _CLOSE:
            np.testing.assert_allclose(got[name], w, rtol=1e-5, err_msg=name)
        else:
            np.testing.assert_array_equal(got[name], w, err_msg=name)


def _chisquare_gof(x, dist, alpha):
    """Pearson's test of integer draws against a scipy discrete distribution (tails pooled)."""
    lo, hi = int(dist.ppf(0.001)), int(dist.ppf(0.999))
    edges = np.arange(lo, hi + 2)
    observed = np.histogram(np.clip(x, lo, hi), edges)[0]
    expected = np.diff(dist.cdf(edges - 1))
    expected[0] += dist.cdf(lo - 1)
    expected[-1] += dist.sf(hi)
    return stats.chisquare(observed, expected * x.size).pvalue > alpha


def test_in_distribution():
    # t, chisquare, f, generalized_normal and ball inherit sg.random.gamma's sampler (not jax's per-element
    # rejection loop), so they agree with jax in distribution only: KS tests against scipy. poisson and
    # binomial are bit-equal to jax above; here their output meets scipy's distributions too.
    n = 6000
    g = sg.Graph()
    with g:
        ks = R.split(R.key(5), 8)
        d = dict(
            t=R.t(ks[0], 3.0, (n,)), chi2=R.chisquare(ks[1], 4.0, (n,)), f=R.f(ks[2], 5.0, 8.0, (n,)),
            ball=R.ball(ks[3], 3, 2, (n,)), ball1=R.ball(ks[4], 2, 1.0, (n,)),
            p_small=R.poisson(ks[5], 3.5, (n,)), p_big=R.poisson(ks[5], 60.0, (n,)),
            b_inv=R.binomial(ks[6], 12.0, 0.3, (n,)), b_btrs=R.binomial(ks[7], 200.0, 0.7, (n,)),
        )  # fmt: skip
    with sg.Session(g) as sess:
        r = sess.run(d)
    alpha = 1e-3
    assert stats.kstest(r["t"], stats.t(3.0).cdf).pvalue > alpha
    assert stats.kstest(r["chi2"], stats.chi2(4.0).cdf).pvalue > alpha
    assert stats.kstest(r["f"], stats.f(5.0, 8.0).cdf).pvalue > alpha
    # uniform in the unit ball: radius**d is uniform on [0, 1], directions are isotropic
    radius = np.linalg.norm(r["ball"].astype(np.float64), axis=-1)
    assert r["ball"].shape == (n, 3) and radius.max() <= 1.0
    assert stats.kstest(radius**3, "uniform").pvalue > alpha
    assert np.abs(r["ball"].mean(0)).max() < 0.03
    l1 = np.abs(r["ball1"].astype(np.float64)).sum(-1)
    assert l1.max() <= 1.0 and stats.kstest(l1**2, "uniform").pvalue > alpha
    cases = dict(
        p_small=stats.poisson(3.5),
        p_big=stats.poisson(60.0),
        b_inv=stats.binom(12, 0.3),
        b_btrs=stats.binom(200, 0.7),
    )
    for name, dist in cases.items():
        assert _chisquare_gof(r[name].astype(np.int64), dist, alpha), name


def test_orthogonal_is_orthogonal():
    with sg.Graph() as g:
        d = dict(q=R.orthogonal(R.key(3), 6, (4,), sg.float64), wide=R.orthogonal(R.key(4), 3, m=7))
    with sg.Session(g) as sess:
        r = sess.run(d)
    eye = np.broadcast_to(np.eye(6), (4, 6, 6))
    np.testing.assert_allclose(r["q"] @ np.swapaxes(r["q"], -1, -2), eye, atol=1e-12)
    np.testing.assert_allclose(r["wide"] @ r["wide"].T, np.eye(3), atol=1e-5)


def test_errors():
    with sg.Graph():
        k = R.key(0)
        with pytest.raises(sg.GraphError, match="floating dtype"):
            R.exponential(k, (3,), sg.int32)
        with pytest.raises(sg.GraphError, match="integer dtype"):
            R.poisson(k, 2.0, (3,), sg.float32)
        with pytest.raises(sg.GraphError, match="positive int dimension"):
            R.ball(k, 0)
        with pytest.raises(sg.GraphError, match=r"cov of shape \(\.\.\., 3, 3\)"):
            R.multivariate_normal(k, np.zeros(3), np.eye(2))
        with pytest.raises(sg.GraphError, match="method"):
            R.multivariate_normal(k, np.zeros(2), np.eye(2), method="qr")
