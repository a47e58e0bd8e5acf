"""Messages for common mistakes say what is wrong, in the user's terms, at the user's line.

Each case once gave a misleading message: a crash inside the error message
itself, a bare IndexError, treedef internals, "internal error" for a user's
bwd, advice for an argument the function does not take, or two graphs that
both called themselves 'graph'.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

FILE = "test_error_messages.py"


def _line() -> int:
    return inspect.currentframe().f_back.f_lineno


@pytest.fixture
def g():
    graph = sg.Graph("messages")
    with graph:
        yield graph


def test_scan_over_xs_of_different_lengths(g):
    a, b = snp.ones(3), snp.ones(4)
    line = _line() + 2
    with pytest.raises(sg.GraphError) as e:
        sg.scan(lambda c, x: (c, x[0] + x[1]), 0.0, (a, b))
    assert f"{FILE}:{line}" in str(e.value)
    assert "xs[0] has 3, xs[1] has 4" in str(e.value)


def test_grad_argnums_out_of_range(g):
    a = snp.ones(3)
    line = _line() + 2
    with pytest.raises(sg.GraphError) as e:
        sg.grad(lambda x, y: snp.sum(x * y), argnums=3)(a, a)
    assert f"{FILE}:{line}" in str(e.value)
    assert "argnums=3 needs at least 4 positional arguments, got 2" in str(e.value)
    f = sg.function(lambda x, y: snp.sum(x * y), [sg.TensorType((3,), sg.float32)] * 2)
    with pytest.raises(sg.GraphError, match="argnums=\\(0, 2\\) needs at least 3"):
        sg.grad(f, argnums=(0, 2))
    np.testing.assert_equal(sg.grad(lambda x, y: snp.sum(x * y), argnums=-1)(a, a * 2).shape, (3,))


def test_cond_branches_with_different_structures(g):
    a = snp.ones(3)
    line = _line() + 2
    with pytest.raises(sg.GraphError) as e:
        sg.cond(a[0] > 0, lambda v: (v, {"k": v}), lambda v: v, a)
    message = str(e.value)
    assert f"{FILE}:{line}" in message
    assert "got * from false_fn and (*, {'k': *}) from true_fn" in message
    assert "class" not in message


def test_custom_vjp_bwd_of_the_wrong_shape_names_the_users_bwd(g):
    def bad_bwd(res, ct):
        return (res[:2] * ct,)

    bwd_line = bad_bwd.__code__.co_firstlineno
    f = sg.custom_vjp(lambda x: snp.sum(x**2))
    f.defvjp(lambda x: (snp.sum(x**2), x), bad_bwd)
    with pytest.raises(sg.GraphError) as e:
        sg.grad(f)(snp.ones(3))
    message = str(e.value)
    assert f"{FILE}:{bwd_line}" in message
    assert "bwd bad_bwd returned a cotangent f32[2] for argument 0, which is f32[3]" in message
    assert "internal error" not in message


def test_reverse_mode_through_fori_loop_with_tensor_bounds(g):
    n = sg.placeholder((), sg.int32, name="n")
    line = _line() + 2
    with pytest.raises(sg.GraphError) as e:
        sg.grad(lambda v: snp.sum(sg.fori_loop(0, n, lambda i, c: c * v, v)))(snp.ones(3))
    message = str(e.value)
    assert f"{FILE}:{line}" in message
    assert "(node fori_loop)" in message
    assert "sg.fori_loop Python int bounds" in message


def test_unnamed_graphs_have_distinct_names():
    first, second = sg.Graph(), sg.Graph()
    assert first.name != second.name
    with first:
        a = sg.placeholder((3,), sg.float32, name="a")
    with second, pytest.raises(sg.GraphError) as e:
        a + 1
    assert f"belongs to graph {first.name!r}, not {second.name!r}" in str(e.value)


def test_an_unsupported_leaf_names_its_path_in_vmap_scan_and_cond(g):
    x = snp.ones((3, 2))
    line = _line() + 2
    with pytest.raises(sg.GraphError) as e:
        sg.vmap(lambda d: d["a"] * 2)({"a": x, "b": "oops"})
    assert f"{FILE}:{line}" in str(e.value) and "args[0]['b'] is a str: vectorize wants" in str(e.value)
    with pytest.raises(sg.GraphError, match=r"xs\['z'\] is a str: scan wants"):
        sg.scan(lambda c, r: (c, r["q"]), 0.0, {"q": x, "z": "bad"})
    with pytest.raises(sg.GraphError, match=r"operands\[0\]\[1\] is a object: cond wants"):
        sg.cond(x[0, 0] > 0, lambda p: p[0], lambda p: p[0], (x, object()))
