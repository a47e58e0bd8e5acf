"""sg.scipy.stats.gaussian_kde against scipy.stats.gaussian_kde (float64 references): evaluate,
pdf, logpdf, the integrals and the bandwidth rules, weighted and not, 1-d and 2-d, with edge
points (far tails, nan, a single point to evaluate, ties in the data); resample against jax's
for one key; and the errors for what is no estimate."""

import jax
import numpy as np
import pytest
from scipy import stats

import stablegraph as sg

KDE = sg.scipy.stats.gaussian_kde


def _cases(rng):
    d1 = rng.normal(size=30)
    d1[:3] = 0.5  # ties
    d2 = rng.normal(size=(2, 25)) * np.array([[1.0], [3.0]])
    w2 = rng.uniform(0.1, 2.0, size=25)
    pts1 = np.concatenate([np.linspace(-4, 4, 9), [40.0, -0.0, 0.5, np.nan]])
    pts2 = rng.normal(size=(2, 7)) * 2
    return d1, d2, w2, pts1, pts2


def test_values_match_scipy():
    rng = np.random.default_rng(1)
    d1, d2, w2, pts1, pts2 = _cases(rng)
    bws = ["scott", "silverman", 0.3, lambda k: 0.5 * k.scotts_factor()]
    g = sg.Graph()
    with g:
        got = {}
        for i, bw in enumerate(bws):
            k1 = KDE(d1, bw_method=bw)
            k2 = KDE(d2, bw_method=bw, weights=w2)
            got[i] = dict(
                pdf1=k1(pts1),
                logpdf1=k1.logpdf(pts1),
                pdf2=k2.pdf(pts2),
                logpdf2=k2.logpdf(pts2),
                factor1=k1.factor,
                factor2=k2.factor,
                cov2=k2.covariance,
                neff2=k2.neff,
                box=k1.integrate_box_1d(-0.5, 1.0),
                box_all=k1.integrate_box_1d(-np.inf, np.inf),
                gauss2=k2.integrate_gaussian(np.array([0.5, -1.0]), np.array([[1.0, 0.2], [0.2, 2.0]])),
                gauss1=k1.integrate_gaussian(0.1, 0.5),
                kde2=k2.integrate_kde(KDE(d2[:, :9])),
                one_point=k2.evaluate(np.array([0.1, 0.2])),
            )
        reset = KDE(d1)
        reset.set_bandwidth("silverman")
        got["reset"] = reset(pts1)
    with sg.Session(g) as sess:
        out = sess.run(got)
    for i, bw in enumerate(bws):
        sbw = (lambda k: 0.5 * k.scotts_factor()) if callable(bw) else bw
        s1, s2 = stats.gaussian_kde(d1, bw_method=sbw), stats.gaussian_kde(d2, bw_method=sbw, weights=w2)
        finite = pts1[:-1]  # scipy refuses a nan point; the estimate at nan is nan (checked below)
        with np.errstate(invalid="ignore", divide="ignore"):
            want = dict(
                pdf1=np.append(s1(finite), np.nan),
                logpdf1=np.append(s1.logpdf(finite), np.nan),
                pdf2=s2.pdf(pts2),
                logpdf2=s2.logpdf(pts2),
                factor1=s1.factor,
                factor2=s2.factor,
                cov2=s2.covariance,
                neff2=s2.neff,
                box=s1.integrate_box_1d(-0.5, 1.0),
                box_all=1.0,
                gauss2=s2.integrate_gaussian([0.5, -1.0], [[1.0, 0.2], [0.2, 2.0]]),
                gauss1=s1.integrate_gaussian(0.1, 0.5),
                kde2=s2.integrate_kde(stats.gaussian_kde(d2[:, :9])),
                one_point=s2.evaluate(np.array([0.1, 0.2])),
            )
        for name, w in want.items():
            np.testing.assert_allclose(out[i][name], w, rtol=1e-5, atol=1e-300, err_msg=f"{bw} {name}")
    np.testing.assert_allclose(out["reset"][:-1], stats.gaussian_kde(d1, "silverman")(pts1[:-1]), rtol=1e-5)
    assert np.isfinite(out[0]["logpdf1"][9]) and out[0]["pdf1"][9] == 0.0  # far tail: log-sum-exp keeps it


@jax.jit
def _jax_float32(data, w, pts):
    """jax's estimate, density and draws, in one compile."""
    jk = jax.scipy.stats.gaussian_kde(data, weights=w)
    return dict(
        pdf=jk(pts), draw=jk.resample(jax.random.key(3), (6,)), one=jk.resample(jax.random.PRNGKey(4))
    )


def test_float32_and_resample_match_jax():
    rng = np.random.default_rng(2)
    data = rng.normal(size=(2, 12)).astype(np.float32)
    w = rng.uniform(0.5, 1.5, size=12).astype(np.float32)
    pts = rng.normal(size=(2, 5)).astype(np.float32)
    g = sg.Graph()
    with g:
        k = KDE(data, weights=w)
        got = dict(pdf=k(pts), draw=k.resample(sg.random.key(3), (6,)), one=k.resample(sg.random.PRNGKey(4)))
    with sg.Session(g) as sess:
        out = sess.run(got)
    with jax.enable_x64(False), jax.threefry_partitionable(True):
        want = _jax_float32(data, w, pts)
    assert out["pdf"].dtype == np.float32 and out["draw"].shape == (2, 6) and out["one"].shape == (2,)
    for name, wv in want.items():
        np.testing.assert_allclose(out[name], np.asarray(wv), rtol=2e-5, atol=2e-6, err_msg=name)


def test_vectorize_evaluates_like_a_loop():
    data = np.random.default_rng(3).normal(size=20)
    pts = np.linspace(-2, 2, 6).reshape(3, 2)
    g = sg.Graph()
    with g:
        k = KDE(data)
        mapped = sg.vectorize(lambda p: k(p))(sg.constant(pts))
    with sg.Session(g) as sess:
        out = sess.run(mapped)
    np.testing.assert_allclose(out, np.stack([stats.gaussian_kde(data)(p) for p in pts]), rtol=1e-10)


def test_bad_estimates_are_clear_errors():
    with sg.Graph():
        with pytest.raises(sg.GraphError, match="2 or more data points"):
            KDE(np.array([1.0]))
        with pytest.raises(sg.GraphError, match=r"weights of shape \(3,\)"):
            KDE(np.arange(3.0), weights=np.ones(4))
        with pytest.raises(sg.GraphError, match="bw_method"):
            KDE(np.arange(3.0), bw_method="wide")
        k = KDE(np.arange(6.0).reshape(2, 3) ** 2)
        with pytest.raises(sg.GraphError, match="points have dimension 3"):
            k(np.zeros((3, 4)))
        with pytest.raises(sg.GraphError, match="only takes 1-d"):
            k.integrate_box_1d(0.0, 1.0)
        with pytest.raises(sg.GraphError, match="complex"):
            KDE(np.array([1j, 2.0]))
