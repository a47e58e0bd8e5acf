"""Gradients through control flow (ops/primitives/control/): cond and switch; the while_loop error."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.test_util import check_grads

FILE = "test_control_grad.py"


def _branchy(x, w, i):
    """cond and switch with captures, nests, an unused output and an integer operand."""
    y = sg.cond(snp.sum(x) > 0, lambda v: snp.sin(v) * w, lambda v: v * v, x)
    z = sg.switch(
        i,
        [
            lambda a, k: (a["v"] * 2.0, k),
            lambda a, k: (snp.tanh(a["v"]) * w, k + 1),
            lambda a, k: (a["u"], k),
        ],
        {"v": y, "u": x * w},
        i,
    )[0]
    return z


@pytest.mark.parametrize("sign, index", [(1.0, 1), (-1.0, 0), (1.0, 5)])
def test_cond_switch_grads(sign, index):
    x = np.array([0.3, -0.1, 0.5]) * sign
    check_grads(lambda x, w: _branchy(x, w, index), [x, np.array(1.5)], order=2)


def test_cond_two_outputs_one_used():
    def f(x, w):
        a, b = sg.cond(w > 1.0, lambda v: (v * w, snp.exp(v)), lambda v: (v, v * v), x)
        return a

    check_grads(f, [np.array([0.2, 0.7]), np.array(2.0)], order=2)


def test_grad_matches_python(run):
    def fn(x):
        g = sg.gradients(snp.sum(sg.cond(snp.sum(x) > 0, lambda v: v * v, lambda v: -v, x)), [x])[0]
        return g

    x = np.array([1.0, 2.0], np.float32)
    np.testing.assert_allclose(run(fn, x), 2 * x)
    np.testing.assert_allclose(run(fn, -x), -np.ones(2))


def test_while_loop_reverse_mode_is_an_error():
    g = sg.Graph("g")
    with g:
        x = sg.placeholder((), sg.float32)
        line = inspect.currentframe().f_lineno + 1
        y = sg.while_loop(lambda s: s < 10.0, lambda s: s * 2.0, x)
        with pytest.raises(sg.GraphError) as e:
            sg.gradients(y, [x])
    msg = str(e.value)
    assert "while" in msg and "max_steps=" in msg and f"{FILE}:{line}" in msg, msg


def test_gradient_does_not_look_through_stop_gradient_into_a_while_loop():
    """A while_loop fed only through stop_gradient is a constant: reverse mode needs no rule for it."""
    g = sg.Graph("stopped")
    with g:
        x = sg.placeholder((), sg.float32, name="x")
        y = sg.grad(lambda v: sg.while_loop(lambda s: s < 10.0, lambda s: s * 2.0, sg.stop_gradient(v)) * v)(
            x
        )
        z = sg.grad(lambda v: snp.floor(v) * v)(x)  # floor has zero derivative: d/dv = floor(v)
    with sg.Session(g) as sess:
        got_y, got_z = sess.run([y, z], {x: np.float32(1.5)})
    assert got_y == 12.0 and got_z == 1.0
