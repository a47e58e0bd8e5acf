"""sg.draw: what the SVG shows (labels, kinds, shapes on edges, clusters, bodies, gradients) and its files."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp


def _line() -> int:
    return inspect.currentframe().f_back.f_lineno


def _model():
    """x (placeholder), a variable and a constant feeding a scoped model; the line that built tanh."""
    g = sg.Graph("viz")
    with g, sg.name_scope("model"):
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        w = sg.Variable(np.ones((3, 2), np.float32), name="w")
        with sg.name_scope("dense"):
            h, line = snp.tanh(x @ w + sg.constant(np.float32(1), name="b")), _line()
        y = h.sum(axis=1)
    return g, y, line


def test_boxes_show_op_and_type_and_kinds_are_styled_apart(svg):
    g, _, _ = _model()
    d = svg(sg.draw(g))
    x = d.one("sg-input", text="x: placeholder")
    assert "f32[batch,3]" in d.texts(x)
    w = d.one("sg-variable", text="w: variable")
    b = d.one("sg-constant", text="b: constant")
    tanh = d.one("sg-op", text="tanh")
    assert "f32[batch,2]" in d.texts(tanh)
    assert len({d.fill(x), d.fill(w), d.fill(b), d.fill(tanh)}) == 4
    assert len(d.all("node")) == len(g.nodes)


def test_edges_are_labelled_with_shapes(svg):
    g, _, _ = _model()
    d = svg(sg.draw(g))
    labels = [t for e in d.all("edge", "sg-data") for t in d.texts(e)]
    assert "[batch,3]" in labels and "[3,2]" in labels and "[batch,2]" in labels
    assert len(d.all("edge", "sg-data")) == len({(t.node, n) for n in g.nodes for t in n.inputs})


def test_name_scopes_are_nested_clusters(svg):
    g, _, _ = _model()
    d = svg(sg.draw(g))
    model = d.one("cluster", "sg-scope", text="model")
    dense = d.one("cluster", "sg-scope", text="dense")
    assert d.title(dense) == "cluster_model/dense"
    assert d.inside(dense, model)
    assert d.inside(d.one("node", text="tanh"), dense)
    assert not d.inside(d.one("node", text="x: placeholder"), dense)


def test_tooltips_give_the_name_type_and_the_users_line(svg):
    g, _, line = _model()
    d = svg(sg.draw(g))
    tip = d.tooltip(d.one("node", text="tanh"))
    assert tip.startswith("model/dense/tanh = tanh : f32[batch,2]")
    assert f"test_draw.py:{line}" in tip


def test_collapse_closes_scopes_and_expand_opens_them_by_name(svg):
    g, _, _ = _model()
    closed = svg(sg.draw(g, collapse=1))
    box = closed.one("node", "sg-collapsed", "sg-scope", text="model")
    assert any(t.startswith("9 nodes: constant") for t in closed.texts(box))
    assert not closed.all("cluster") and len(closed.all("node")) == 1
    opened = svg(sg.draw(g, collapse=1, expand=["dense"]))
    assert opened.one("cluster", text="model") and opened.one("cluster", text="dense")
    assert opened.one("node", text="tanh")
    with pytest.raises(ValueError, match="no group named 'dens'.*model/dense"):
        sg.draw(g, expand=["dens"])
    with pytest.raises(ValueError, match="collapse wants"):
        sg.draw(g, collapse="all")


def test_a_tensor_draws_what_it_needs_and_is_marked_fetched(svg):
    g, y, _ = _model()
    with g:
        unrelated = snp.exp(sg.placeholder((2,), sg.float32, name="other"))
    d = svg(sg.draw(y))
    names = {d.tooltip(n).split(" = ")[0] for n in d.all("node")}
    assert names == {n.name for n in g.ancestors([y])}
    assert unrelated.node.name not in names
    assert d.tooltip(d.one("node", "sg-fetch", text="reduce_sum")).startswith("model/reduce_sum")
    assert len(d.all("node", "sg-fetch")) == 1


def test_a_function_marks_its_results_and_returns_them_in_order(svg):
    f = sg.function(lambda a, b: (snp.tanh(a), a * b), [sg.TensorType(("n",), sg.float32)] * 2)
    d = svg(sg.draw(f))
    assert "function lambda" in d.texts(d.root.find("{http://www.w3.org/2000/svg}g"))
    assert {t for n in d.all("node", "sg-fetch") for t in d.texts(n)} >= {"tanh", "mul"}
    ret = d.one("node", "sg-return", text="return")
    labels = sorted(t for e in d.all("edge") for t in d.texts(e) if ":" in t)
    assert labels == ["0: [n]", "1: [n]"] and ret is not None


def test_control_flow_bodies_are_clusters_entered_from_their_node(svg):
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        sg.cond(snp.sum(x) > 0, lambda v: v * 2.0, lambda v: -v, x)
    d = svg(sg.draw(g))
    cond = d.one("node", "sg-control", text="cond")
    assert "holds @false_fn, @true_fn" in d.texts(cond)
    true_fn = d.one("cluster", "sg-body", text="@true_fn of cond")
    assert d.inside(d.one("node", text="mul"), true_fn)
    assert not d.inside(d.one("node", text="neg"), true_fn)
    assert len(d.all("edge", "sg-body")) == 2  # cond -> each body's parameter v


def test_gradient_nodes_are_marked_and_tied_to_their_forward_node(svg):
    f = sg.function(lambda a: snp.tanh(a * a).sum(), [sg.TensorType((3,), sg.float32)])
    df = sg.grad(f)
    d = svg(sg.draw(df, collapse=None))
    grads = d.all("node", "sg-grad")
    assert {d.tooltip(n).split(" = ")[0] for n in grads} == {
        n.name for n in df.graph.nodes if n.derived_from is not None
    }
    assert all(d.tooltip(n).split(" = ")[0].startswith("grad/") for n in grads)
    ties = d.all("edge", "sg-grad")
    ids = {g.get("id"): d.tooltip(g).split(" = ")[0] for g in d.all("node")}
    pairs = {tuple(ids[i] for i in d.title(e).split("->")) for e in ties}
    forward = {n.derived_from for n in df.graph.nodes if n.derived_from}
    assert {a for a, _ in pairs} == forward  # one tie per forward node, into a gradient node
    assert all(b.startswith("grad/") for _, b in pairs)
    assert d.stroke(ties[0]) != d.stroke(d.all("edge", "sg-data")[0])


def test_library_calls_are_closed_boxes_of_their_own_look_until_opened(svg):
    g = sg.Graph("lib")
    with g, sg.name_scope("model"):
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        h = sg.nn.relu(sg.nn.dense(x, 4, name="fc1"))
        y = snp.tanh(h)
    d = svg(sg.draw(g))
    fc1 = d.one("node", "sg-collapsed", "sg-library", text="fc1")
    assert "dense" in d.texts(fc1)  # the function's name, under the call's
    assert d.one("node", "sg-collapsed", "sg-library", text="relu") is not None
    assert d.one("node", "sg-op", text="tanh") is not None and not d.all("cluster", "sg-library")
    closed = svg(sg.draw(g, collapse=1))
    assert d.fill(fc1) != closed.fill(closed.one("node", "sg-collapsed", "sg-scope", text="model"))
    opened = svg(sg.draw(g, expand=["fc1"]))
    cluster = opened.one("cluster", "sg-library", text="fc1 (dense)")
    assert opened.inside(opened.one("node", text="dot_general"), cluster)
    assert opened.one("node", "sg-collapsed", "sg-library", text="kernel/init") is not None  # nested: closed
    every = svg(sg.draw(g, expand=True))
    assert not every.all("sg-collapsed") and every.one(
        "cluster", "sg-library", text="kernel/init (glorot_uniform)"
    )
    assert not svg(sg.draw(g, collapse=None)).all("sg-collapsed")
    assert y.name == "model/tanh"


def test_draw_writes_svg_png_pdf_and_dot(tmp_path):
    g, _, _ = _model()
    for name in ("sub/g.svg", "g.png", "g.pdf", "g.dot"):
        sg.draw(g, tmp_path / name)
    assert (tmp_path / "sub" / "g.svg").read_text().lstrip().startswith("<?xml")
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "g.pdf").read_bytes()[:5] == b"%PDF-"
    assert (tmp_path / "g.dot").read_text().startswith("digraph")
    sg.draw(g, tmp_path / "g.out", format="svg")
    assert "<svg" in (tmp_path / "g.out").read_text()


def test_drawing_never_changes_the_graph(tmp_path):
    g, y, _ = _model()
    before = (g.to_json(), str(g), len(g.nodes), [n.derived_from for n in g.nodes])
    sg.draw(g, tmp_path / "a.svg", collapse=1)
    sg.draw(y, tmp_path / "b.svg")
    sg.viz.diff(g, g, tmp_path / "c.svg")
    sg.viz.explorer_html(g)
    g._repr_mimebundle_()
    assert (g.to_json(), str(g), len(g.nodes), [n.derived_from for n in g.nodes]) == before


def test_draw_rejects_other_objects():
    with pytest.raises(TypeError, match="Graph, a Function or Tensors"):
        sg.draw(42)
