"""sg.custom_vjp: the user's backward is used, residuals are computed once, second order works."""

import numpy as np
import pytest
import scipy.special

import stablegraph as sg
from stablegraph import numpy as snp


@sg.custom_vjp
def softplus(x):
    return snp.log1p(snp.exp(x))


def _softplus_fwd(x):
    return softplus.fun(x), snp.sigmoid(x)


def _softplus_bwd(s, g):
    return (g * s,)


softplus.defvjp(_softplus_fwd, _softplus_bwd)


@sg.custom_vjp
def clip_gradient(x, bound):
    return x


clip_gradient.defvjp(lambda x, bound: (x, bound), lambda bound, g: (snp.clip(g, -bound, bound), None))


def test_custom_vjp_forward_backward_and_second_order():
    xv = np.array([-3.0, -0.5, 0.0, 2.0, 40.0])
    g = sg.Graph()
    with g:
        x = sg.placeholder((5,), sg.float64, name="x")
        y = softplus(x)
        (gx,) = sg.gradients(y.sum(), [x])
        (ggx,) = sg.gradients(gx.sum(), [x])
    assert "custom_vjp_call" in str(g)
    with sg.Session(g) as sess:
        yv, gxv, ggxv = sess.run([y, gx, ggx], {x: xv})
    np.testing.assert_allclose(yv[:4], np.log1p(np.exp(xv[:4])), rtol=1e-12)
    sig = scipy.special.expit(xv)
    np.testing.assert_allclose(gxv, sig, rtol=1e-12)
    # sigmoid's slope as s(x) s(-x): s (1 - s) would round to 0 at x = 40, where it is 4.2e-18
    np.testing.assert_allclose(ggxv, sig * scipy.special.expit(-xv), rtol=1e-10)


def test_a_backward_that_changes_the_gradient_and_ignores_an_input():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        b = sg.placeholder((), sg.float32, name="b")
        y = (clip_gradient(x, b) * 10.0).sum()
        gx, gb = sg.gradients(y, [x, b])
    with sg.Session(g) as sess:
        gxv, gbv = sess.run([gx, gb], {x: np.ones(3), b: 2.0})
    np.testing.assert_array_equal(gxv, [2, 2, 2])
    assert gbv == 0


def test_graphs_with_custom_vjp_round_trip_through_json():
    g = sg.Graph()
    with g:
        x = sg.placeholder((2,), sg.float32, name="x")
        y = softplus(x)
    g2 = sg.Graph.from_json(g.to_json())
    assert str(g2) == str(g)
    with sg.Session(g2) as sess:
        np.testing.assert_allclose(
            sess.run("softplus:0", {"x": np.zeros(2)}), np.log(2) * np.ones(2), rtol=1e-6
        )
    del y


def test_missing_defvjp_is_a_clear_error():
    f = sg.custom_vjp(lambda x: x)
    g = sg.Graph()
    with g, pytest.raises(sg.GraphError, match="has no vjp: call .defvjp"):
        f(sg.placeholder((1,)))
