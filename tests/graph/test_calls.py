"""Library calls: recorded by the graph, nested, one line each in listings until opened, kept in JSON."""

import json

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.graph import library, library_call


@library()
def halves(x):
    """A library function of two outputs (for the ``name:1`` spelling)."""
    return x * 0.5, x - x * 0.5


def _model():
    g = sg.Graph("m")
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        with sg.name_scope("model"):
            h = sg.nn.relu(sg.nn.dense(x, 4, name="fc1"))
            a, b = halves(h)
            y = (a + b).sum()
    return g, x, y


def test_every_node_a_library_function_builds_belongs_to_its_call():
    g, x, _ = _model()
    by_name = {c.name: c for c in g.calls}
    fc1, relu = by_name["model/fc1"], by_name["model/relu"]
    assert fc1.fn == "dense" and relu.fn == "relu" and fc1.parent is None
    assert g.node("model/fc1/dot_general").call is fc1
    init = g.node("model/fc1/kernel").call
    assert init is fc1  # the variable itself is the layer's; its initial value is a call inside
    inner = by_name["model/fc1/kernel/init"]
    assert inner.parent is fc1 and inner.fn == "glorot_uniform"
    assert {c.name for c in g.calls if c.parent is inner} == {
        "model/fc1/kernel/init/fold_in", "model/fc1/kernel/init/uniform",
    }  # fmt: skip
    assert x.node.call is None and g.node("model/add").call is None
    assert [c.id for c in g.calls] == list(range(len(g.calls)))  # each after the call it was made in
    assert all(c.parent is None or c.parent.id < c.id for c in g.calls)


def test_a_graphs_one_seed_belongs_to_no_layer():
    g, _, _ = _model()
    seed = g.node("seed")
    assert seed.call.name == "seed" and seed.call.parent is None  # built inside fc1, but not fc1's


def test_calls_get_unique_names_and_empty_calls_are_not_recorded():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        with library_call("nothing", "relu"):
            pass
        r1, r2 = sg.nn.relu(x), sg.nn.relu(x)
        sg.nn.dropout(x, 0.0)  # rate 0: x itself, nothing built
        with sg.name_scope("softplus"):
            snp.exp(x)
        s = sg.nn.softplus(x)  # a user scope took the name
    assert [c.name for c in g.calls] == ["relu", "relu_1", "softplus_1"]
    assert r1.node.call.name == "relu" and r2.node.call.name == "relu_1" and s.node.call.name == "softplus_1"


def test_dense_keeps_its_variable_names():
    g = sg.Graph()
    with g:
        x = sg.placeholder((2, 3), sg.float32, name="x")
        sg.nn.dense(x, 4, name="fc1")
        sg.nn.dense(x, 4, name="fc1")
    assert [v.var_name for v in g.variables] == ["fc1/kernel", "fc1/bias", "fc1_1/kernel", "fc1_1/bias"]
    assert [c.name for c in g.calls if c.fn == "dense"] == ["fc1", "fc1_1"]


def test_an_optimizer_is_one_call_with_one_call_per_variable():
    g = sg.Graph()
    with g:
        x = sg.placeholder((2, 3), sg.float32, name="x")
        loss = sg.nn.dense(x, 1, name="fc").mean()
        train = sg.optim.adam(1e-3).minimize(loss)
    adam = train.node.call
    assert adam.name == "adam" and adam.fn == "adam.minimize" and adam.outputs == (train,)
    updates = [c for c in g.calls if c.parent is adam and c.fn == "adam.update"]
    assert [c.name for c in updates] == ["fc/kernel/adam", "fc/bias/adam"]
    mu = g.node("fc/kernel/adam/mu")
    assert mu.call is updates[0]  # the state lives under the variable's name, in its update's call
    assert g.node("global_step").call is None


def test_the_listing_prints_one_line_per_library_call():
    g, _, y = _model()
    lines = str(g).splitlines()
    assert "  model/fc1 = dense(seed, x) : f32[batch,4]" in lines
    assert "  model/relu = relu(model/fc1) : f32[batch,4]" in lines
    assert "  model/halves = halves(model/relu) : f32[batch,4], f32[batch,4]" in lines
    assert "  model/add = add(model/halves, model/halves:1) : f32[batch,4]" in lines  # :1, its second output
    assert f"  {y.name} = reduce[kind='sum', axes=(0, 1)](model/add) : f32[]" in lines
    assert len(lines) == 2 + 7  # x, seed, fc1, relu, halves, add, sum


def test_expand_opens_calls_by_name_or_all():
    g, _, _ = _model()
    every = g.listing(expand=True)
    assert len(every.splitlines()) == len(g.nodes) + 2
    assert every == "\n".join(
        ["graph m {", *(f"  {sg.graph.printing.node_line(n)}" for n in g.nodes), "}"]
    )  # all open: the plain node listing
    fc1 = g.listing(expand=["fc1"]).splitlines()
    assert any(line.startswith("  model/fc1/dot_general = dot_general[") for line in fc1)
    assert "  model/fc1/kernel/init = glorot_uniform(seed) : f32[3,4]" in fc1  # a call inside stays closed
    assert "  model/relu = relu(model/fc1/add) : f32[batch,4]" in fc1
    inner = g.listing(expand=["model/fc1/kernel/init"])
    assert "model/fc1/kernel/init/uniform = uniform(" in inner  # its parent opened with it
    with pytest.raises(sg.GraphError, match="no library call named 'fc9'; the calls are"):
        g.listing(expand=["fc9"])


def test_a_one_node_call_prints_its_node():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        with library_call("negate", "negate"):
            y = -x
    assert str(g).splitlines()[2] == f"  {y.name} = neg(x) : f32[3]"


def test_function_listings_close_library_calls_too():
    f = sg.function(lambda v: sg.nn.softplus(v).mean(), [sg.TensorType(("n",), sg.float32)])
    assert str(f).splitlines() == [
        "function lambda(v: f32[n]) -> (f32[]) {",
        "  softplus = softplus(v) : f32[n]",
        "  mean = mean(softplus) : f32[]",
        "  return mean",
        "}",
    ]
    assert "softplus/exp = exp(" in f.listing(expand=True)


def test_calls_inside_control_flow_bodies_are_listed_under_their_node():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        sg.cond(x.sum() > 0, lambda v: sg.nn.relu(v), lambda v: -v, x)
    text = str(g)
    assert "    relu = relu(v) : f32[3]" in text and "relu/select" not in text
    assert "relu/select" in g.listing(expand=True)


def test_json_keeps_the_calls():
    g, _, _ = _model()
    doc = json.loads(g.to_json())
    assert doc["calls"][0] == {"name": "seed", "fn": "seed_key", "outputs": [[1, 0]]}  # node 1: the seed
    assert doc["nodes"][1]["call"] == 0 and "call" not in doc["nodes"][0]
    g2 = sg.Graph.from_json(g.to_json())
    assert str(g2) == str(g) and g2.listing(expand=True) == g.listing(expand=True)
    assert [(c.name, c.fn, c.parent and c.parent.name) for c in g2.calls] == [
        (c.name, c.fn, c.parent and c.parent.name) for c in g.calls
    ]
    assert all(a.call.name == b.call.name for a, b in zip(g.nodes, g2.nodes) if a.call)


def test_a_document_without_calls_still_loads_and_bad_call_indices_are_errors():
    g, _, _ = _model()
    doc = json.loads(g.to_json())
    plain = {**doc, "calls": [], "nodes": [{k: v for k, v in n.items() if k != "call"} for n in doc["nodes"]]}
    old = sg.Graph.from_json(json.dumps(plain))
    assert not old.calls and str(old) == g.listing(expand=True)
    bad = json.loads(g.to_json())
    bad["nodes"][3]["call"] = 99
    with pytest.raises(sg.GraphError, match=r"node 3 \(.*\): call 99 is not one of the"):
        sg.Graph.from_json(json.dumps(bad))
    bad = json.loads(g.to_json())
    bad["calls"][0]["parent"] = 5
    with pytest.raises(sg.GraphError, match="call 0 .*parent 5 is not a call before it"):
        sg.Graph.from_json(json.dumps(bad))


def test_a_call_that_fails_leaves_the_graph_usable():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        with pytest.raises(sg.GraphError, match="labels"):
            sg.nn.softmax_cross_entropy_with_integer_labels(x, np.float32(1.0))
        y = snp.tanh(x)
    assert y.node.call is None and y.name == "tanh"
