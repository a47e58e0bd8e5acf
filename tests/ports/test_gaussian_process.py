"""JAX's Gaussian-process regression example (examples/gaussian_process_regression.py), ported as a JAX
user writes it: one function for jax.numpy and sg.numpy (softplus as logaddexp(x, 0), nested vmap
for the covariance, cholesky and triangular solves), its hyperparameters fitted from zeros by the
example's own momentum/RMS loop fed through ``feed_dict=``, and by ``sg.optim.adam`` on Variables.
The same program in jax is the oracle."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import jax.scipy as jsp
import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph import scipy as ssp

NUMPTS = 7


def make_gp(np_, vmap, scipy):
    """The example's ``gp(params, x, y, xtest, compute_marginal_likelihood)`` over one numpy-like API."""
    eye = np_.eye(NUMPTS)

    def cov_map(cov_func, xs, xs2=None):
        if xs2 is None:
            return vmap(lambda x: vmap(lambda y: cov_func(x, y))(xs))(xs)
        return vmap(lambda x: vmap(lambda y: cov_func(x, y))(xs))(xs2).T

    def softplus(x):
        return np_.logaddexp(x, 0.0)

    def exp_quadratic(x1, x2):
        return np_.exp(-np_.sum((x1 - x2) ** 2))

    def gp(params, x, y, xtest=None, compute_marginal_likelihood=False):
        noise = softplus(params["noise"])
        amp = softplus(params["amplitude"])
        ls = softplus(params["lengthscale"])
        ymean = np_.mean(y)
        y = y - ymean
        x = x / ls
        train_cov = amp * cov_map(exp_quadratic, x) + eye * (noise + 1e-6)
        chol = scipy.linalg.cholesky(train_cov, lower=True)
        kinvy = scipy.linalg.solve_triangular(chol.T, scipy.linalg.solve_triangular(chol, y, lower=True))
        if compute_marginal_likelihood:
            log2pi = np_.log(2.0 * 3.1415)
            ml = np_.sum(
                -0.5 * np_.dot(y.T, kinvy) - np_.sum(np_.log(np_.diag(chol))) - (NUMPTS / 2.0) * log2pi
            )
            ml -= np_.sum(-0.5 * np_.log(2 * 3.1415) - np_.log(amp) ** 2)  # lognormal prior
            return -ml
        xtest = xtest / ls
        cross_cov = amp * cov_map(exp_quadratic, x, xtest)
        mu = np_.dot(cross_cov.T, kinvy) + ymean
        v = scipy.linalg.solve_triangular(chol, cross_cov, lower=True)
        var = amp * cov_map(exp_quadratic, xtest) - np_.dot(v.T, v)
        return mu, var

    return gp


def _data():
    """The example's toy data (sin plus noise at 7 points in [1, 5]), drawn with numpy."""
    rng = np.random.default_rng(0)
    x = (rng.uniform(size=(NUMPTS, 1)) * 4.0 + 1).astype(np.float32)
    y = (np.sin(x) + 0.1 * rng.normal(size=(NUMPTS, 1))).astype(np.float32)
    xtest = np.linspace(0, 6.0, 11, dtype=np.float32)[:, None]
    return x, y, xtest


PARAMS0 = {
    "amplitude": np.zeros((1, 1), np.float32),
    "noise": np.zeros((1, 1), np.float32) - 5.0,
    "lengthscale": np.zeros((1, 1), np.float32),
}


def fit(grad_fun, steps):
    """The example's training loop (momentum and RMS scales, lr 0.01), on numpy values."""
    params = {k: v.copy() for k, v in PARAMS0.items()}
    momentums = {k: p * 0.0 for k, p in params.items()}
    scales = {k: p * 0.0 + 1.0 for k, p in params.items()}
    for _ in range(steps):
        grads = grad_fun(params)
        for k in params:
            momentums[k] = 0.9 * momentums[k] + 0.1 * grads[k][0]
            scales[k] = 0.9 * scales[k] + 0.1 * grads[k][0] ** 2
            params[k] = params[k] - 0.01 * momentums[k] / np.sqrt(scales[k] + 1e-5)
    return params


def adam(grad_fun, steps, lr=0.05, b1=0.9, b2=0.999, eps=1e-8):
    """optax.adam's update, on numpy values."""
    params = {k: v.copy() for k, v in PARAMS0.items()}
    mu = {k: np.zeros_like(v) for k, v in params.items()}
    nu = {k: np.zeros_like(v) for k, v in params.items()}
    for t in range(1, steps + 1):
        grads = grad_fun(params)
        for k in params:
            mu[k] = b1 * mu[k] + (1 - b1) * grads[k]
            nu[k] = b2 * nu[k] + (1 - b2) * grads[k] ** 2
            params[k] = params[k] - lr * (mu[k] / (1 - b1**t)) / (np.sqrt(nu[k] / (1 - b2**t)) + eps)
    return params


def test_gaussian_process_fit_and_prediction_match_jax():
    x, y, xtest = _data()
    jgp = make_gp(jnp, jax.vmap, jsp)
    jgrad = jax.jit(jax.grad(partial(jgp, x=x, y=y, compute_marginal_likelihood=True)))
    jgrad_np = lambda p: {k: np.asarray(v) for k, v in jgrad(p).items()}  # noqa: E731
    want_params = fit(jgrad_np, 20)
    want_mu, want_var = jax.jit(jgp)(want_params, x, y, xtest)
    want_adam = adam(jgrad_np, 10)

    g = sg.Graph()
    with g:
        gp = make_gp(snp, sg.vmap, ssp)
        params = {k: sg.placeholder(sg.float32, shape=(1, 1), name=k) for k in PARAMS0}
        X = sg.placeholder(sg.float32, shape=(NUMPTS, 1), name="x")
        Y = sg.placeholder(sg.float32, shape=(NUMPTS, 1), name="y")
        XT = sg.placeholder(sg.float32, shape=(None, 1), name="xtest")
        marginal_likelihood = partial(gp, compute_marginal_likelihood=True)
        grads = sg.grad(marginal_likelihood)(params, X, Y)
        mu, var = gp(params, X, Y, XT)
        # the same fit with Variables and an optimizer's train op
        hyper = {k: sg.Variable(initial_value=v, name=f"hyper/{k}") for k, v in PARAMS0.items()}
        train = sg.optim.adam(0.05).minimize(marginal_likelihood(hyper, X, Y))

    with sg.Session(g) as sess:
        data = {X: x, Y: y}
        got_params = fit(
            lambda p: sess.run(grads, feed_dict={**data, **{params[k]: v for k, v in p.items()}}), 20
        )
        got_mu, got_var = sess.run(
            [mu, var], {**data, XT: xtest, **{params[k]: v for k, v in got_params.items()}}
        )
        for _ in range(10):
            sess.run(train, feed_dict=data)
        got_adam = {k: sess.get(v) for k, v in hyper.items()}
    for k in PARAMS0:
        # the hyperparameters moved from their zeros (softplus's gradient at 0 is 1/2, as jax's)
        assert np.abs(got_params[k] - PARAMS0[k]).max() > 0.05, k
        np.testing.assert_allclose(got_params[k], want_params[k], rtol=1e-4, atol=1e-5, err_msg=k)
        np.testing.assert_allclose(got_adam[k], want_adam[k], rtol=1e-4, atol=1e-5, err_msg=k)
    np.testing.assert_allclose(got_mu, want_mu, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_var, want_var, rtol=1e-4, atol=1e-5)
