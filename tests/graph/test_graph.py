"""Graph building: explicit graphs, name scopes, listings, JSON, networkx, errors with the user's line."""

import inspect
import os

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp


def _line() -> int:
    return inspect.currentframe().f_back.f_lineno


def test_ops_outside_a_graph_say_what_to_do():
    with pytest.raises(sg.GraphError) as e:
        line = _line() + 1
        sg.placeholder((3,), sg.float32)
    msg = str(e.value)
    assert "with g:" in msg and f"test_graph.py:{line}" in msg


def test_name_scopes_and_unique_names():
    g = sg.Graph()
    with g, sg.name_scope("model"):
        x = sg.placeholder((2,), name="x")
        with sg.name_scope("layer"):
            a = snp.tanh(x)
            b = snp.tanh(x)
    assert x.name == "model/x"
    assert a.name == "model/layer/tanh" and b.name == "model/layer/tanh_1"
    assert g.tensor("model/layer/tanh_1") is b
    assert "model/x" in g and x in g
    with pytest.raises(sg.GraphError, match="no node named"):
        g.tensor("model/nothing")


def test_listing_is_one_line_per_node():
    g = sg.Graph("demo")
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        y = (x * 2.0).sum(axis=1)
    text = str(g)
    assert text.splitlines()[0] == "graph demo {"
    assert "  x = placeholder[shape=(batch, 3), dtype=float32]() : f32[batch,3]" in text
    assert f"{y.name} = reduce[kind='sum', axes=(1,)](" in text
    assert text.rstrip().endswith("}")
    assert len(text.splitlines()) == len(g.nodes) + 2


def test_tensor_properties_and_truth_value():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float16)
        assert x.shape == ("batch", 3) and x.dtype is sg.float16 and x.ndim == 2
        assert (x + 1).dtype is sg.float16  # weak Python scalar keeps f16
        assert (x + np.float32(1)).dtype is sg.float32
        with pytest.raises(sg.GraphError, match="no truth value"):
            bool(x > 0)


def test_mixing_graphs_is_an_error():
    g1, g2 = sg.Graph("one"), sg.Graph("two")
    with g1:
        x = sg.placeholder((2,))
    with g2, pytest.raises(sg.GraphError, match="belongs to graph 'one'"):
        snp.tanh(x)


def test_networkx_view_and_pruning():
    g = sg.Graph()
    with g:
        x = sg.placeholder((2,), name="x")
        y = snp.exp(x)
        z = snp.sin(x)
    nxg = g.nx
    assert set(nxg.nodes) == {n.name for n in g.nodes}
    assert nxg.has_edge(x.name, y.name) and nxg.nodes[y.name]["op"] == "exp"
    assert [n.name for n in g.ancestors([z])] == [x.name, z.name]
    assert [n.name for n in g.ancestors([z], stop=[x])] == [z.name]


def test_json_round_trip_gives_the_same_graph_and_results():
    g = sg.Graph("rt")
    with g, sg.name_scope("m"):
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        w = sg.constant(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
        y = snp.tanh(x @ w).sum(axis=1)
    g2 = sg.Graph.from_json(g.to_json())
    assert str(g2) == str(g)
    feed = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    with sg.Session(g) as s1, sg.Session(g2) as s2:
        np.testing.assert_array_equal(s1.run(y, {x: feed}), s2.run(y.name, {"m/x": feed}))
    loc = g2.node("m/x").location  # stored relative to the working directory, printed the same
    assert loc.line == x.node.location.line and str(loc) == str(x.node.location)
    assert os.path.abspath(loc.file) == x.node.location.file


def test_json_never_pickles():
    g = sg.Graph()
    with g:
        sg.constant(np.ones((2, 2), np.float64))
    text = g.to_json()
    assert "pickle" not in text and '"dtype":"float64"' in text.replace(" ", "")


def test_placeholder_accepts_tf1_argument_order():
    g = sg.Graph()
    with g:
        x = sg.placeholder(sg.int32, (None, 4))
    assert x.dtype is sg.int32 and x.shape[1] == 4 and isinstance(x.shape[0], str)


def test_gradient_nodes_name_their_forward_node_and_keep_it_through_json():
    g = sg.Graph("derived")
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        sg.grad(lambda v: snp.sum(snp.sin(v)))(x)
    origins = {n.name: n.derived_from for n in g.nodes if n.name.startswith("grad/")}
    assert origins["grad/cos"] == "sin" and g.node("sin").op.name == "sin"
    assert all(n.derived_from is None for n in g.nodes if not n.name.startswith("grad/"))
    again = sg.Graph.from_json(g.to_json())
    assert {n.name: n.derived_from for n in again.nodes} == {n.name: n.derived_from for n in g.nodes}
