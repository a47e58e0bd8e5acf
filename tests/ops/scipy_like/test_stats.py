"""sg.scipy.stats: every distribution's functions against scipy.stats, float64 and float32, broadcasting."""

import numpy as np
import pytest
from scipy import stats as st

import stablegraph as sg

S = sg.scipy.stats

_X = np.linspace(-3.0, 6.0, 13)
_Q = np.array([0.0, 1e-3, 0.05, 0.3, 0.5, 0.77, 0.99, 1.0])
_LOC = np.array([[-0.5], [0.0], [1.5]])  # broadcasts against x: (3, 13)
_SCALE = np.array([0.5, 2.0, 1.0]).reshape(3, 1)
_K = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 12.0])

_CONT = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]
_LOCSCALE = ["uniform", "expon", "laplace", "logistic", "cauchy", "norm"]
_DISC = ["logpmf", "pmf", "cdf", "logcdf", "sf", "logsf"]
# each incomplete gamma / beta function costs XLA most of a second to compile: each distribution's is
# checked through two of its functions (log(cdf) and log(sf) are the logs of cdf and sf)
_SPECIAL = ["logpdf", "pdf", "cdf", "logsf"]
_SPECIAL_DISC = ["logpmf", "pmf", "cdf", "logsf"]
_CHEAP = {"logpdf", "pdf", "logpmf", "pmf", "ppf", "isf"}  # no incomplete gamma / beta function
_INCOMPLETE = {"t", "gamma", "chi2", "beta", "poisson", "binom"}


def _cases():
    """(label, distribution name, methods, args, kwargs) groups; args are numpy arrays or numbers.

    The methods of one group share their fed first argument (x, q or k), so that the graph's CSE
    computes each special function once (logcdf is log of cdf).
    """
    rows = []
    for name in _LOCSCALE:
        rows.append((name, name, _CONT, (_X,), dict(loc=_LOC, scale=_SCALE)))
        rows.append((f"{name}.std", name, _CONT, (_X,), {}))
        rows.append((f"{name}.q", name, ["ppf", "isf"], (_Q,), dict(loc=_LOC, scale=_SCALE)))
    xp = np.linspace(0.0, 8.0, 11)
    rows += [
        ("t", "t", _SPECIAL, (_X, np.array([[1.0], [3.5], [30.0]])), dict(loc=0.5, scale=1.5)),
        ("gamma", "gamma", _SPECIAL, (xp, np.array([[0.7], [2.0], [9.0]])), dict(scale=_SCALE)),
        ("chi2", "chi2", ["logpdf", "pdf", "sf"], (xp, np.array([[1.0], [4.0], [11.0]])), {}),
        ("beta", "beta", _SPECIAL, (np.linspace(-0.15, 1.05, 13), np.array([[0.5], [2.0], [5.0]]), 1.5), {}),
        ("beta.scaled", "beta", ["logpdf"], (np.linspace(0.5, 3.0, 9), 2.0, 3.0), dict(loc=0.5, scale=2.5)),
        ("poisson", "poisson", _SPECIAL_DISC, (_K, np.array([[0.5], [3.0], [20.0]])), {}),
        ("poisson.loc", "poisson", ["logpmf"], (_K, 2.5), dict(loc=1)),
        ("bernoulli", "bernoulli", _DISC, (_K, np.array([[0.2], [0.7]])), {}),
        (
            "binom",
            "binom",
            ["logpmf", "pmf", "cdf"],
            (_K, np.array([[10.0], [4.0]]), np.array([[0.3], [0.9]])),
            {},
        ),
        ("bernoulli.q", "bernoulli", ["ppf"], (_Q, np.array([[0.2], [0.7]])), {}),
    ]
    return rows


def _run(dtype):
    rows = _cases()
    if dtype == np.float32:  # the special functions' float32 compiles once more: densities only
        rows = [
            (lb, n, [m for m in ms if n not in _INCOMPLETE or m in _CHEAP], a, k) for lb, n, ms, a, k in rows
        ]
    g = sg.Graph()
    feeds, outs = {}, {}
    with g:
        for label, name, methods, args, kwargs in rows:
            # the first argument (x, q or k) is fed, so nothing folds away at compile time
            x = sg.placeholder(np.shape(args[0]), sg.dtype(dtype), name=label.replace(".", "_"))
            feeds[x] = np.asarray(args[0], dtype)
            rest = [np.asarray(a, dtype) if isinstance(a, np.ndarray) else a for a in args[1:]]
            kw = {k: np.asarray(v, dtype) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
            for m in methods:
                outs[label, m] = getattr(getattr(S, name), m)(x, *rest, **kw)
    with sg.Session(g) as sess:
        got = sess.run(outs, feeds)
    return rows, got


@pytest.mark.parametrize("dtype, rtol, atol", [(np.float64, 1e-9, 1e-12), (np.float32, 2e-4, 1e-5)])
def test_against_scipy(dtype, rtol, atol):
    rows, got = _run(dtype)
    assert len(got) > 100
    with np.errstate(all="ignore"):
        for label, name, methods, args, kwargs in rows:
            for m in methods:
                want = getattr(getattr(st, name), m)(*args, **kwargs)
                out, msg = got[label, m], f"{label}.{m}"
                assert out.dtype == dtype, msg
                assert out.shape == np.shape(want), msg
                ok = np.isfinite(want)
                np.testing.assert_array_equal(np.isnan(out), np.isnan(want), err_msg=msg)
                np.testing.assert_array_equal(out[~ok], want[~ok], err_msg=msg)
                tol = rtol * (100 if name in ("t", "beta", "gamma", "chi2", "binom", "poisson") else 1)
                if dtype == np.float32 and m.startswith("log"):
                    tol = max(tol, 1e-3)  # log of a float32 probability near 0 or 1
                np.testing.assert_allclose(out[ok], want[ok], rtol=tol, atol=atol, err_msg=msg)


def test_multivariate():
    rng = np.random.default_rng(1)
    m = rng.normal(size=(3, 3))
    cov = m @ m.T + np.eye(3)
    covs = np.stack([cov, 2.0 * np.eye(3)])
    mean = np.array([0.5, -1.0, 2.0])
    x = rng.normal(size=(5, 3))
    alpha = np.array([0.8, 2.0, 3.5])
    simplex = rng.dirichlet(alpha, size=6).T  # components along the first axis, as scipy
    off = np.array([[0.5, 0.2], [0.6, 0.1], [-0.1, 0.7]]).T  # off the simplex: logpdf -inf
    g = sg.Graph()
    with g:
        px = sg.placeholder((5, 3), sg.float64, name="x")
        d = dict(
            full=S.multivariate_normal.logpdf(px, mean, cov), pdf=S.multivariate_normal.pdf(px, mean, cov),
            diag=S.multivariate_normal.logpdf(px, mean, np.array([1.0, 2.0, 0.5])),
            iso=S.multivariate_normal.logpdf(px, mean, 2.0), one=S.multivariate_normal.logpdf(0.3, 1.0, 2.0),
            batched=S.multivariate_normal.logpdf(px[:2], mean, covs),
            f32=S.multivariate_normal.logpdf(px.astype(sg.float32), mean.astype(np.float32), cov.astype(np.float32)),
            dir=S.dirichlet.logpdf(simplex, alpha), dir_short=S.dirichlet.logpdf(simplex[:2], alpha),
            dir_pdf=S.dirichlet.pdf(simplex, alpha), dir_off=S.dirichlet.logpdf(off, alpha[:2]),
        )  # fmt: skip
    with sg.Session(g) as sess:
        r = sess.run(d, {px: x})
    mvn = st.multivariate_normal
    np.testing.assert_allclose(r["full"], mvn.logpdf(x, mean, cov), rtol=1e-12)
    np.testing.assert_allclose(r["pdf"], mvn.pdf(x, mean, cov), rtol=1e-12)
    np.testing.assert_allclose(r["diag"], mvn.logpdf(x, mean, np.diag([1.0, 2.0, 0.5])), rtol=1e-12)
    np.testing.assert_allclose(r["iso"], mvn.logpdf(x, mean, 2.0), rtol=1e-12)
    np.testing.assert_allclose(r["one"], st.norm.logpdf(0.3, 1.0, np.sqrt(2.0)), rtol=1e-6)  # float32 scalars
    np.testing.assert_allclose(r["batched"], [mvn.logpdf(x[i], mean, covs[i]) for i in range(2)], rtol=1e-12)
    assert r["f32"].dtype == np.float32
    np.testing.assert_allclose(r["f32"], mvn.logpdf(x, mean, cov), rtol=1e-5)
    want = [st.dirichlet.logpdf(simplex[:, i], alpha) for i in range(6)]
    np.testing.assert_allclose(r["dir"], want, rtol=1e-10)
    np.testing.assert_allclose(r["dir_short"], want, rtol=1e-8)
    np.testing.assert_allclose(r["dir_pdf"], np.exp(want), rtol=1e-10)
    assert np.all(r["dir_off"] == -np.inf)


def test_errors():
    with sg.Graph():
        with pytest.raises(sg.GraphError, match=r"test_stats.py:\d+.*cov of shape"):
            S.multivariate_normal.logpdf(np.zeros(3), np.zeros(3), np.eye(2))
        with pytest.raises(sg.GraphError, match="allow_singular"):
            S.multivariate_normal.logpdf(np.zeros(3), np.zeros(3), np.eye(3), allow_singular=True)
        with pytest.raises(sg.GraphError, match="first axis"):
            S.dirichlet.logpdf(np.full(5, 0.2), np.ones(3))
    with pytest.raises(AttributeError, match="read-only"):
        S.norm.logpdf = None
