"""sg.scipy.optimize.minimize (BFGS) against scipy.optimize.minimize and closed-form optima."""

import numpy as np
import pytest
import scipy.optimize as so

import stablegraph as sg

snp = sg.numpy
minimize = sg.scipy.optimize.minimize


def _rosen(x):
    return snp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def _quadratic(x, a, c):
    return 0.5 * snp.sum(x * (a @ x)) - snp.sum(c * x)


def _logreg(w, feats, labels):
    z = feats @ w
    return snp.mean(snp.log1p(snp.exp(-snp.abs(z))) + snp.maximum(z, 0.0) - labels * z) + 0.01 * snp.sum(
        w * w
    )


def _np_logreg(w, feats, labels):
    z = feats @ w
    return np.mean(np.logaddexp(0.0, z) - labels * z) + 0.01 * np.sum(w * w)


def _beale(x):
    a, b = x[0], x[1]
    return (1.5 - a + a * b) ** 2 + (2.25 - a + a * b**2) ** 2 + (2.625 - a + a * b**3) ** 2


def test_minimize_matches_scipy():
    rng = np.random.default_rng(0)
    m = rng.normal(size=(4, 4))
    a = m @ m.T + 4 * np.eye(4)
    c = rng.normal(size=4)
    feats = rng.normal(size=(40, 3))
    labels = (feats @ np.array([1.0, -2.0, 0.5]) + rng.normal(size=40) > 0).astype(np.float64)
    x0_rosen4 = np.array([-1.2, 1.0, -0.5, 0.8])
    g = sg.Graph()
    with g:
        pa, pc = sg.placeholder((4, 4), sg.float64, name="a"), sg.placeholder((4,), sg.float64, name="c")
        pf, pl = sg.placeholder((40, 3), sg.float64, name="f"), sg.placeholder((40,), sg.float64, name="l")
        res = dict(
            rosen=minimize(_rosen, np.array([-1.2, 1.0])),
            rosen4=minimize(_rosen, x0_rosen4),
            quad=minimize(_quadratic, np.zeros(4), args=(pa, pc)),
            logreg=minimize(_logreg, np.zeros(3), args=(pf, pl), tol=1e-8),
            beale=minimize(_beale, np.array([1.0, 1.0]), options={"gtol": 1e-9, "maxiter": 500}),
            quad32=minimize(_quadratic, np.zeros(4, np.float32), args=(pa.astype(sg.float32), pc.astype(sg.float32))),
            maxiter=minimize(_rosen, np.array([-1.2, 1.0]), options={"maxiter": 3}),
            at_min=minimize(_rosen, np.array([1.0, 1.0])),
            nan=minimize(lambda x: sg.numpy.sum(sg.numpy.log(x)), np.ones(2)),
        )  # fmt: skip
    with sg.Session(g) as sess:
        r = sess.run({k: v._asdict() for k, v in res.items()}, {pa: a, pc: c, pf: feats, pl: labels})

    # the classic start: jax 0.10.2's BFGS stops at x ~ (-0.28, 0.04) here; scipy reaches the optimum
    assert r["rosen"]["x"].dtype == np.float64
    np.testing.assert_array_less(np.abs(r["rosen"]["x"] - 1.0), 1e-5)
    assert r["rosen"]["success"] and r["rosen"]["status"] == 0
    assert 10 < r["rosen"]["nit"] < 100 and r["rosen"]["nfev"] >= r["rosen"]["nit"]
    want = so.minimize(so.rosen, x0_rosen4, jac=so.rosen_der, method="BFGS")
    np.testing.assert_allclose(r["rosen4"]["x"], want.x, atol=1e-5)
    np.testing.assert_allclose(r["rosen4"]["fun"], want.fun, atol=1e-10)

    np.testing.assert_allclose(r["quad"]["x"], np.linalg.solve(a, c), rtol=1e-6)
    np.testing.assert_allclose(r["quad"]["jac"], a @ r["quad"]["x"] - c, atol=1e-12)
    # the inverse-Hessian estimate stays symmetric positive definite (Wolfe steps keep y.s > 0)
    h = r["quad"]["hess_inv"]
    np.testing.assert_allclose(h, h.T, atol=1e-12)
    assert np.linalg.eigvalsh(h).min() > 0
    np.testing.assert_allclose(r["quad32"]["x"], np.linalg.solve(a, c), rtol=1e-4, atol=1e-5)
    assert r["quad32"]["x"].dtype == np.float32

    want = so.minimize(_np_logreg, np.zeros(3), args=(feats, labels), method="BFGS", tol=1e-8)
    np.testing.assert_allclose(r["logreg"]["x"], want.x, atol=1e-6)
    np.testing.assert_allclose(r["logreg"]["fun"], want.fun, rtol=1e-12)

    np.testing.assert_allclose(r["beale"]["x"], [3.0, 0.5], atol=1e-6)
    assert r["maxiter"]["status"] == 1 and not r["maxiter"]["success"] and r["maxiter"]["nit"] == 3
    # every trial step of the first line search leaves log's domain: scipy's status 2, the start kept
    assert r["nan"]["status"] == 2 and not r["nan"]["success"] and r["nan"]["nit"] == 1
    np.testing.assert_array_equal(r["nan"]["x"], [1.0, 1.0])
    assert r["at_min"]["nit"] == 0 and r["at_min"]["success"] and r["at_min"]["nfev"] == 1


def test_minimize_errors():
    with sg.Graph():
        with pytest.raises(sg.GraphError, match="BFGS"):
            minimize(_rosen, np.zeros(2), method="Nelder-Mead")
        with pytest.raises(sg.GraphError, match="rank 1"):
            minimize(_rosen, np.zeros((2, 2)))
        with pytest.raises(sg.GraphError, match="unknown options"):
            minimize(_rosen, np.zeros(2), options={"eps": 1e-3})
        with pytest.raises(sg.GraphError, match="scalar"):
            minimize(lambda x: x * 2.0, np.zeros(2))
