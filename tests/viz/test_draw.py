"""viz.draw: the drawing's structure, file output, and the Jupyter display hook."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

draw_module = importlib.import_module("stablegraph.viz.draw")  # the module; sg.viz.draw is the function


def _graph():
    g = sg.Graph("viz")
    with g, sg.name_scope("model"):
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        with sg.name_scope("dense"):
            h = snp.tanh(x @ sg.constant(np.ones((3, 2), np.float32), name="w"))
        h.sum(axis=1)
    return g


def test_draw_has_one_box_per_node_edges_and_scope_clusters():
    g = _graph()
    src = sg.draw(g).source
    assert all(f"n{n.id} [" in src for n in g.nodes)
    assert sum(len(n.inputs) for n in g.nodes) == src.count(" -> ")
    assert "subgraph cluster_model {" in src and '"cluster_model/dense"' in src
    assert "x: placeholder" in src and "f32[batch,3]" in src
    assert "#dbeafe" in src  # placeholders are shaded apart


def test_draw_function_marks_its_results():
    f = sg.function(lambda a, b: (snp.tanh(a), a * b), [sg.TensorType(("n",), sg.float32)] * 2)
    src = sg.draw(f).source
    assert "function lambda" in src and src.count("-> return") == 2


def test_draw_rejects_other_objects():
    with pytest.raises(TypeError, match="Graph or a Function"):
        sg.draw(42)


def test_draw_writes_the_file_in_the_suffix_format(tmp_path):
    sg.draw(_graph(), str(tmp_path / "sub" / "g.svg"))
    sg.draw(_graph(), str(tmp_path / "g.png"))
    assert (tmp_path / "sub" / "g.svg").read_text().lstrip().startswith("<?xml")
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"


def test_jupyter_shows_an_inline_svg():
    html = _graph()._repr_html_()
    assert html.startswith("<div><svg") and "<details>" in html


def test_jupyter_falls_back_to_the_listing_without_dot(monkeypatch):
    monkeypatch.setattr(draw_module.shutil, "which", lambda name: None)
    g = _graph()
    assert draw_module.svg_html(g) is None
    assert g._repr_html_().startswith("<pre>graph viz {")
