"""Run-time checks: sg.debug.check_numerics and sg.debug.assert_ (guarded debug_callback
effects) fail a run with an ExecutionError at the user's line, from the top level, loop bodies,
gradients and vectorize, and leave the Session's variables as they were; passing checks change
nothing (results against numpy)."""

import os

import numpy as np
import pytest

import stablegraph as sg
import stablegraph.numpy as snp
from stablegraph.test_util import line_of

HERE = os.path.basename(__file__)


def _line_of(text: str) -> int:
    return line_of(__file__, text)


@pytest.fixture(scope="module")
def model():
    g = sg.Graph()
    with g:
        w = sg.Variable(np.ones(3, np.float32), name="w")
        x = sg.placeholder((3,), sg.float32, name="x")
        loss = snp.log(x * w).sum()
        same = sg.debug.check_numerics(loss, "loss")  # check: loss
        sg.debug.assert_(snp.all(x < 100), "x too big: {} (max {m})", x, m=x.max())  # check: x

        def step(c, xi):
            sg.debug.check_numerics(1 / (xi - 7), "pole in the scan")  # check: scan
            return c + xi * w[0], xi

        total, _ = sg.scan(step, sg.constant(0.0), x)
        train = sg.optim.sgd(0.1).minimize(loss + total)
        (dx,) = sg.gradients(sg.debug.check_numerics(snp.sqrt(x), "sqrt of x").sum(), [x])  # check: grad
        m = sg.placeholder((3, 2), sg.float32, name="m")
        logs = sg.vmap(lambda r: sg.debug.check_numerics(snp.log(r), "row log"))(m)  # check: vmap
    return g, w, x, loss, same, train, dx, m, logs


def test_passing_checks_change_nothing(model):
    g, w, x, loss, same, train, dx, m, logs = model
    xv = np.array([1.0, 2.0, 3.0], np.float32)
    with sg.Session(g) as sess:
        got_loss, got_same, got_dx = sess.run([loss, same, dx], {x: xv})
        sess.run(train, {x: xv})
        got_w = sess.get(w)
    np.testing.assert_allclose(got_loss, np.log(xv).sum(), rtol=1e-6)
    assert got_same == got_loss
    np.testing.assert_allclose(got_dx, 0.5 / np.sqrt(xv), rtol=1e-6)
    np.testing.assert_allclose(
        got_w, 1 - 0.1 * (1 + np.array([xv.sum(), 0, 0])), rtol=1e-6
    )  # 1/w + d(total)/dw


@pytest.mark.parametrize(
    "fetch, xv, tag, message",
    [
        (
            "train",
            [1.0, 0.0, 2.0],
            "check: loss",
            r"check_numerics failed: loss: 1 -inf among 1 values of float32\[\]",
        ),
        (
            "train",
            [200.0, 1.0, 1.0],
            "check: x",
            r"assert_ failed: x too big: \[200\.\s+1\.\s+1\.\] \(max 200\.0\)",
        ),
        ("train", [1.0, 7.0, 2.0], "check: scan", r"pole in the scan: 1 \+inf among 1 values"),
        ("dx", [1.0, -4.0, 2.0], "check: grad", r"sqrt of x: 1 nan among 3 values of float32\[3\]"),
    ],
)
def test_a_failing_check_names_its_line_and_keeps_the_variables(model, fetch, xv, tag, message):
    g, w, x, loss, same, train, dx, m, logs = model
    with sg.Session(g) as sess:
        sess.run(train, {x: np.ones(3, np.float32)})
        before = sess.get(w)
        with pytest.raises(sg.ExecutionError, match=message) as err:
            sess.run({"train": train, "dx": dx}[fetch], {x: np.array(xv, np.float32)})
        assert f"{HERE}:{_line_of(tag)}" in str(err.value)
        np.testing.assert_array_equal(sess.get(w), before)
        sess.run(train, {x: np.ones(3, np.float32)})  # the Session goes on
        np.testing.assert_allclose(sess.get(w), before - 0.1 * (1 / before + [3, 0, 0]), rtol=1e-6)


def test_a_vectorized_check_names_the_lane(model):
    g, w, x, loss, same, train, dx, m, logs = model
    mv = np.array([[1.0, 2.0], [3.0, 4.0], [0.0, 5.0]], np.float32)
    with sg.Session(g) as sess:
        np.testing.assert_allclose(
            sess.run(logs, {m: mv[:2].repeat(2, 0)[:3] + 1}), np.log(mv[:2].repeat(2, 0)[:3] + 1), rtol=1e-6
        )
        with pytest.raises(sg.ExecutionError, match=r"row log \(lane 2\): 1 -inf among 2 values") as err:
            sess.run(logs, {m: mv})
    assert f"{HERE}:{_line_of('check: vmap')}" in str(err.value)


def test_check_arguments_are_checked_when_built():
    g = sg.Graph()
    with g:
        i = sg.placeholder((3,), sg.int32, name="i")
        with pytest.raises(sg.GraphError, match="floating"):
            sg.debug.check_numerics(i, "ints")
        with pytest.raises(sg.GraphError, match="bool predicate"):
            sg.debug.assert_(i, "not a predicate")
        with pytest.raises(sg.GraphError, match="format"):
            sg.debug.assert_(i > 0, "needs {name}", i)
