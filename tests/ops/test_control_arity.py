"""Control-flow bodies with the wrong number of parameters, a wrong result structure or a bad loop length.

Each was a raw TypeError from inside the library (or a pydantic error for a
negative scan length); now a GraphError at the user's line names the body,
how it is called and what it takes. The loops that are right still run, with
numpy (and jax.lax, for scan) as the oracle.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import lax
from stablegraph import numpy as snp

FILE = os.path.basename(__file__)


def _raises(fn, *words):
    """``fn()`` raises a GraphError led by this file and fn's line, holding ``words``."""
    with pytest.raises(sg.GraphError) as e:
        fn()
    message = str(e.value)
    assert message.startswith(f"{FILE}:{fn.__code__.co_firstlineno}:"), message
    for word in words:
        assert word in message, (word, message)


@pytest.fixture
def x():
    g = sg.Graph("bodies")
    with g:
        yield sg.placeholder((3,), sg.float32, name="x")


def test_bodies_taking_the_wrong_number_of_arguments(x):
    _raises(lambda: sg.fori_loop(0, 3, lambda i: i, x), "fori_loop calls body_fun(i, val)", "lambda(i)")
    _raises(lambda: sg.fori_loop(0, x.shape[0], lambda i, c, d: c, x), "body_fun(i, val)", "lambda(i, c, d)")
    _raises(lambda: lax.fori_loop(0, 3, lambda i: i, x), "fori_loop calls body_fun(i, val)")
    _raises(
        lambda: sg.cond(x[0] > 0, lambda: x, lambda a: a, x), "cond calls true_fn(operands[0])", "lambda()"
    )
    _raises(
        lambda: sg.cond(x[0] > 0, lambda a: a, lambda a, b: a, x), "false_fn(operands[0])", "lambda(a, b)"
    )
    _raises(lambda: sg.switch(1, [lambda a: a, lambda: x], x), "switch calls branches[1](operands[0])")
    _raises(lambda: sg.while_loop(lambda: True, lambda c: c, x), "while_loop calls cond_fun(val)", "lambda()")
    _raises(lambda: sg.while_loop(lambda c: c[0] < 3, lambda a, b: a, x), "while_loop calls body_fun(val)")
    _raises(lambda: sg.scan(lambda c: (c, c), x[0], x), "scan calls f(carry, x)", "lambda(c)")
    _raises(lambda: sg.scan(lambda c, y, *, k: (c, y), x[0], x), "lambda(c, y, *, k)")
    _raises(lambda: lax.map(lambda a, b: a, x), "map calls f(x)", "lambda(a, b)")
    f2 = sg.function(lambda a, b: a + b, [sg.TensorType((), sg.float32)] * 2)
    _raises(lambda: lax.map(f2, x), "map calls f(x)", "Function lambda takes 2 arguments")

    def body(i, val, extra):
        return val

    _raises(lambda: sg.fori_loop(0, 2, body, x), "fori_loop calls body_fun(i, val)", "body(i, val, extra)")
    _raises(lambda: sg.cond(x[0] > 0, 3, lambda a: a, x), "true_fn to be a function", "int 3")
    _raises(lambda: sg.switch(0, lambda a: a, x), "switch wants a list of branch functions", "function")


def test_bodies_returning_the_wrong_structure_or_types(x):
    n = sg.placeholder((), sg.int32, name="n")
    _raises(lambda: sg.fori_loop(0, 3, lambda i, c: (c, c), x), "fori_loop body", "structure", "(*, *)")
    _raises(lambda: sg.fori_loop(0, n, lambda i, c: (c, c), x), "fori_loop body", "structure", "(*, *)")
    _raises(
        lambda: sg.fori_loop(0, n, lambda i, c: c.astype(sg.int32), x),
        "fori_loop body",
        "(f32[3])",
        "(i32[3])",
    )
    _raises(lambda: sg.fori_loop(0, 3, lambda i, c: None, x), "fori_loop body", "returns None")
    _raises(lambda: sg.cond(x[0] > 0, lambda a: (a, a), lambda a: a, x), "same structure", "true_fn")
    _raises(lambda: sg.while_loop(lambda c: c[0] < 3, lambda c: (c, c), x), "while_loop body", "structure")
    _raises(lambda: sg.scan(lambda c, y: c, x[0], x), "scan wants f to return a pair (carry, y)")


def test_scan_length_and_loop_bounds_are_checked(x):
    step = lambda c, y: (c + 1.0, c)  # noqa: E731
    _raises(lambda: sg.scan(step, x[0], None, length=-1), "scan wants length to be an int >= 0", "-1")
    _raises(lambda: lax.scan(step, x[0], None, length=-3), "length", "-3")
    _raises(lambda: sg.scan(step, x[0], None, length=2.5), "length", "float 2.5")
    _raises(lambda: sg.scan(step, x[0], None, length=True), "length", "bool True")
    _raises(lambda: sg.scan(step, x[0], None, length="-1"), "length", "'-1'")
    _raises(lambda: sg.fori_loop(0, 2.5, lambda i, c: c, x), "fori_loop wants upper to be an int", "2.5")
    _raises(lambda: sg.while_loop(lambda c: c[0] < 3, lambda c: c, x, max_steps=-1), "max_steps", "-1")
    _raises(lambda: sg.switch("a", [lambda a: a], x), "switch wants index to be an int", "'a'")
    # the right spellings run: an int, a numpy int, a symbol bound by xs, zero steps
    xs = sg.placeholder(("n", 2), sg.float32, name="xs")
    outs = [
        sg.scan(step, x[0], None, length=4)[1],
        sg.scan(step, x[0], None, length=np.int64(2))[1],
        sg.scan(lambda c, y: (c + y, c), snp.zeros(2), xs, length="n")[0],
        sg.scan(step, x[0], None, length=0)[0],
        sg.fori_loop(np.int32(1), 4, lambda i, c: c * i, x),
        sg.fori_loop(0, 3, lambda i, c: c + 1, 0.0),
    ]
    xv, xsv = np.array([2.0, 0.0, 1.0], np.float32), np.arange(6, dtype=np.float32).reshape(3, 2)
    with sg.Session(x.graph) as sess:
        got = sess.run(outs, {x: xv, xs: xsv})
    np.testing.assert_allclose(got[0], [2.0, 3.0, 4.0, 5.0])
    np.testing.assert_allclose(got[1], [2.0, 3.0])
    np.testing.assert_allclose(got[2], xsv.sum(axis=0))
    np.testing.assert_allclose(got[3], 2.0)
    np.testing.assert_allclose(got[4], xv * 6)
    np.testing.assert_allclose(got[5], 3.0)
