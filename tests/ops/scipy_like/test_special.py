"""sg.scipy.special and snp.linalg.norm: values vs scipy/numpy, stable gradients vs jax."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special

import stablegraph as sg
from stablegraph import numpy as snp

pytestmark = pytest.mark.usefixtures("jax_x64")  # jax as a 64-bit oracle for this module only
RNG = np.random.default_rng(11)


def test_special_values(run):
    x = RNG.normal(size=(3, 4))
    p = RNG.uniform(0.05, 0.95, size=(3, 4))
    got = run(
        lambda a, q: [
            sg.scipy.special.logsumexp(a),
            sg.scipy.special.logsumexp(a, axis=1),
            sg.scipy.special.logsumexp(a * 1000.0, axis=0, keepdims=True),
            sg.scipy.special.expit(a),
            sg.scipy.special.logit(q),
            sg.scipy.special.xlogy(a * 0, q),
            sg.scipy.special.erf(a),
        ],
        x, p,
    )  # fmt: skip
    want = [
        scipy.special.logsumexp(x), scipy.special.logsumexp(x, axis=1),
        scipy.special.logsumexp(x * 1000, axis=0, keepdims=True), scipy.special.expit(x), scipy.special.logit(p),
        np.zeros_like(x), scipy.special.erf(x),
    ]  # fmt: skip
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_logsumexp_gradient_is_softmax_even_at_large_inputs():
    x = np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1000.0, -2000.0]])
    g = sg.Graph()
    with g:
        a = sg.placeholder((2, 3), sg.float64)
        lse = sg.scipy.special.logsumexp(a, axis=1)
        (ga,) = sg.gradients(lse.sum(), [a])
        (gga,) = sg.gradients((ga * ga).sum(), [a])
    with sg.Session(g) as sess:
        lv, gv, ggv = sess.run([lse, ga, gga], {a: x})

    def f(v):
        return jax.scipy.special.logsumexp(v, axis=1).sum()

    np.testing.assert_allclose(lv, jax.scipy.special.logsumexp(x, axis=1), rtol=1e-12)
    np.testing.assert_allclose(gv, jax.grad(f)(x), rtol=1e-12)
    np.testing.assert_allclose(ggv, jax.grad(lambda v: (jax.grad(f)(v) ** 2).sum())(x), rtol=1e-9, atol=1e-12)
    assert np.isfinite(gv).all()


def test_norm_values_and_gradient_at_zero():
    x = RNG.normal(size=(4, 3))
    g = sg.Graph()
    with g:
        a = sg.placeholder((4, 3), sg.float64)
        outs = [snp.linalg.norm(a), snp.linalg.norm(a, axis=1), snp.linalg.norm(a, ord=1, axis=0),
                snp.linalg.norm(a, ord=np.inf, axis=1, keepdims=True)]  # fmt: skip
        (grad_norm,) = sg.gradients(snp.linalg.norm(a, axis=1).sum(), [a])
    with sg.Session(g) as sess:
        vals = sess.run(outs, {a: x})
        gz = sess.run(grad_norm, {a: np.zeros((4, 3))})
        gx = sess.run(grad_norm, {a: x})
    want = [np.linalg.norm(x), np.linalg.norm(x, axis=1), np.linalg.norm(x, ord=1, axis=0),
            np.linalg.norm(x, ord=np.inf, axis=1, keepdims=True)]  # fmt: skip
    for v, w in zip(vals, want):
        np.testing.assert_allclose(v, w, rtol=1e-12)
    np.testing.assert_array_equal(gz, np.zeros((4, 3)))  # jnp.linalg.norm gives NaN here
    np.testing.assert_allclose(gx, jax.grad(lambda v: jnp.linalg.norm(v, axis=1).sum())(x), rtol=1e-12)
