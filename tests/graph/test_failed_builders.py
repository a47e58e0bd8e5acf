"""A builder that fails half-way leaves the graph as it was: no half-made node that later breaks the
listing or the JSON document, no library call left open, names free for the next try."""

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp


def _line_of(fn) -> str:
    return f"test_failed_builders.py:{fn.__code__.co_firstlineno}"


def test_a_failed_node_or_library_call_leaves_the_graph_as_it_was():
    g = sg.Graph()
    with g:
        x = sg.placeholder((2, 4), sg.float32, name="x")
        y = snp.tanh(x)
        before_json, before_listing, before = g.to_json(), str(g), len(g.nodes)

        def bad_name():
            return sg.placeholder((2,), name=5)

        def bad_units():
            return sg.nn.dense(x, 0, name="fc")

        def bad_activation():
            return sg.nn.dense(x, 3, name="fc", activation=lambda h: h @ snp.ones((5, 5), np.float32))

        def bad_axis():
            return sg.scipy.special.logsumexp(y, axis=3)

        for bad in (bad_name, bad_units, bad_activation, bad_axis):
            with pytest.raises(sg.GraphError) as info:
                bad()
            assert _line_of(bad).rsplit(":")[0] in str(info.value)
            assert len(g.nodes) == before and g.to_json() == before_json and str(g) == before_listing
        # the names the failed calls took are free again
        out = sg.nn.dense(x, 3, name="fc")
        assert "fc/kernel" in g and "fc_1/kernel" not in g and out.name.startswith("fc/")
        sg.Graph.from_json(g.to_json())


def test_a_failed_call_inside_a_function_forgets_the_tensors_it_captured():
    g = sg.Graph()
    with g:
        outer = sg.constant(np.ones((3, 3), np.float32), name="outer")

        def body(a):
            with pytest.raises(sg.GraphError):  # captures outer, then its type is refused
                sg.lax.add(a, outer)
            return a + 1

        f = sg.function(body, [sg.TensorType((3,), sg.float32)])
    assert not f.captures and "capture" not in str(f)
    with g:
        r = f(np.arange(3, dtype=np.float32))
    with sg.Session(g) as sess:
        np.testing.assert_array_equal(sess.run(r), np.arange(3) + 1)


def test_a_function_takes_arguments_by_parameter_name_or_says_which_is_wrong():
    f = sg.function(lambda w, x: snp.sum(w * x), [sg.TensorType((3,), sg.float32)] * 2)
    g = sg.Graph()
    w, x = np.full(3, 2, np.float32), np.arange(3, dtype=np.float32)
    with g:
        outs = [f(w, x=x), f(x=x, w=w), f(w, x)]
        for bad, words in (
            (lambda: f(w, w=w), "both by position and by name"),
            (lambda: f(w, q=x), "has no parameter 'q' \\(its parameters: w, x\\)"),
            (lambda: f(x=x), "missing arguments for w"),
        ):
            with pytest.raises(sg.GraphError, match=words) as info:
                bad()
            assert "test_failed_builders.py:" in str(info.value)
    with sg.Session(g) as sess:
        assert sess.run(outs) == [np.sum(w * x)] * 3
