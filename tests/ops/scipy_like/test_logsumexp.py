"""logsumexp with jax's b, where and return_sign (sg.scipy.special and sg.nn), values and gradients
against jax.scipy.special.logsumexp, all in one graph."""

import jax
import jax.numpy as jnp
import jax.scipy.special as jss
import numpy as np
import pytest

import stablegraph as sg

pytestmark = pytest.mark.usefixtures("jax_x64")

R = np.random.default_rng(8)
A = R.normal(0, 3, (3, 5))
B = R.normal(size=(3, 5))  # mixed signs: some sums are negative
POSITIVE_B = R.uniform(0.1, 2.0, (5,))
WHERE = R.random((3, 5)) < 0.7
WHERE[:, 0] = True
W = R.normal(size=(3,))


def cases(lib, a, where):
    return {
        "plain": lib.logsumexp(a, axis=1),
        "b_positive": lib.logsumexp(a, axis=1, b=POSITIVE_B),
        "b_signed": lib.logsumexp(a, axis=1, b=B, return_sign=True),
        "b_signed_nan": lib.logsumexp(a, axis=1, b=B),
        "where": lib.logsumexp(a, axis=1, where=where, keepdims=True),
        "where_all": lib.logsumexp(a, where=where),
        "axis0_b_where": lib.logsumexp(a, axis=0, b=POSITIVE_B[None, :] * np.ones((3, 1)), where=where),
    }


def losses(lib, grad, a, where):
    def weighted(f):
        return lambda a: (f(a) * W).sum()

    return {
        "d_b_positive": grad(weighted(lambda a: lib.logsumexp(a, axis=1, b=POSITIVE_B)))(a),
        "d_where": grad(weighted(lambda a: lib.logsumexp(a, axis=1, where=where)))(a),
    }


def test_logsumexp_matches_jax():
    g = sg.Graph()
    with g:
        a = sg.placeholder(A.shape, sg.float64, name="a")
        where = sg.constant(WHERE)
        out = cases(sg.scipy.special, a, where)
        out.update(losses(sg.scipy.special, sg.grad, a, where))
        out["nn"] = sg.nn.logsumexp(a, axis=1, where=where)
    with sg.Session(g) as sess:
        got = sess.run(out, {a: A})
    want = cases(jss, jnp.asarray(A), WHERE)
    want.update(losses(jss, jax.grad, jnp.asarray(A), WHERE))
    want["nn"] = jax.nn.logsumexp(A, axis=1, where=WHERE)
    for name, value in want.items():
        for k, (x, y) in enumerate(zip(*(v if isinstance(v, tuple) else (v,) for v in (got[name], value)))):
            np.testing.assert_allclose(x, np.asarray(y), rtol=1e-12, atol=1e-12, err_msg=f"{name}[{k}]")
    assert np.isnan(got["b_signed_nan"]).any()  # a negative sum, as the signed case shows
