"""The Jupyter side: the explorer's HTML (panels, links, inline script), mimebundles, lowered programs."""

from __future__ import annotations

import importlib
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp

jupyter = importlib.import_module("stablegraph.viz.jupyter")


class _Page(HTMLParser):
    """Panels (id -> hidden?), links (href of each <a>) and every id of an explorer's HTML."""

    def __init__(self, text: str):
        super().__init__()
        self.panels: dict[str, bool] = {}
        self.links: list[str] = []
        self.ids: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if "sgx-panel" in (a.get("class") or "").split():
            self.panels[a["id"]] = "hidden" in a
        if tag == "a" and a.get("xlink:href"):
            self.links.append(a["xlink:href"])


def _graph():
    g = sg.Graph("explore")
    with g, sg.name_scope("model"):
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        with sg.name_scope("dense"):
            h = snp.tanh(x @ sg.constant(np.ones((3, 2), np.float32), name="w"))
        y = sg.cond(h.sum() > 0, lambda v: v * 2.0, lambda v: -v, h)
    return g, y


def test_each_group_has_a_panel_that_its_closed_box_links_to():
    g, _ = _graph()
    text = sg.viz.explorer_html(g)
    page = _Page(text)
    assert len(page.panels) == 1 + 4  # all, model, model/dense, and cond's two bodies
    targets = [link[1:] for link in page.links if link.startswith("#")]
    assert sorted(targets) == sorted(list(page.panels)[1:])  # every group's box, once, in its parent's panel
    assert not any(page.panels.values())  # a graph this small starts with every panel open
    assert len(page.ids) == len(set(page.ids))
    for svg in re.findall(r"<svg.*?</svg>", text, re.S):
        ET.fromstring(svg)  # each panel's drawing is well-formed SVG
    assert 'data-path="model/dense"' in text and 'data-path="model/cond@true_fn"' in text


def test_a_bigger_graph_starts_with_its_deeper_groups_closed():
    g = sg.Graph()
    with g, sg.name_scope("model"):
        h = sg.placeholder(("batch", 4), sg.float32, name="x")
        for i in range(2):
            with sg.name_scope(f"block{i}"):
                h = -h
                with sg.name_scope("inner"):
                    for _ in range(25):
                        h = snp.tanh(h)
    page = _Page(sg.viz.explorer_html(g))
    hidden = {p for p, is_hidden in page.panels.items() if is_hidden}
    assert len(page.panels) == 6 and len(hidden) == 2  # the two inner scopes wait for a click


def test_library_calls_start_closed():
    g = sg.Graph()
    with g, sg.name_scope("model"):
        sg.nn.dense(sg.placeholder(("batch", 4), sg.float32, name="x"), 8, name="fc1")
    page = _Page(sg.viz.explorer_html(g))
    hidden = {p for p, is_hidden in page.panels.items() if is_hidden}
    shown = set(page.panels) - hidden
    assert len(shown) == 2  # the graph and model; fc1 (dense), its initializers and the seed wait for a click
    assert len(hidden) == len(g.calls) and {c.name for c in g.calls} >= {"model/fc1", "seed"}


def test_the_explorer_ships_everything_inline():
    text = sg.viz.explorer_html(_graph()[0])
    js = (Path(sg.viz.__file__).parent / "explorer.js").read_text()
    assert js in text and "<script src" not in text and "<link" not in text
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", text))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}
    assert '<details class="sgx-listing">' in text and "model/dense/tanh = tanh(" in text


def test_graph_function_and_tensor_show_the_explorer_in_jupyter():
    g, y = _graph()
    f = sg.function(lambda a: snp.tanh(a), [sg.TensorType((3,), sg.float32)])
    for obj in (g, f, y):
        bundle = obj._repr_mimebundle_()
        assert bundle["text/plain"] == repr(obj)
        assert bundle["text/html"].startswith('<div class="sgx"')
    with g:
        other = snp.exp(sg.placeholder((2,), sg.float32, name="other"))
    assert "other" not in y._repr_mimebundle_()["text/html"].split("sgx-listing")[1]
    assert "exp" in other._repr_mimebundle_()["text/html"]


def test_without_dot_jupyter_shows_the_listing(monkeypatch):
    monkeypatch.setattr(jupyter.shutil, "which", lambda name: None)
    g, _ = _graph()
    assert jupyter.notebook_html(g) is None
    assert g._repr_mimebundle_()["text/html"].startswith("<pre>graph explore {")


def test_a_graph_too_big_for_panels_is_one_closed_drawing():
    g, _ = _graph()
    text = sg.viz.explorer_html(g, max_nodes=3)
    assert "more than the explorer draws" in text and not _Page(text).panels


def test_a_crowded_group_is_chunked_into_panels():
    g = sg.Graph()
    with g:
        h = sg.placeholder((3,), sg.float32, name="x")
        for _ in range(240):
            h = snp.tanh(h)
    page = _Page(sg.viz.explorer_html(g))
    assert 3 <= len(page.panels) - 1 <= 6 and not [p for p, hidden in page.panels.items() if not hidden][1:]


def test_lowered_programs_show_cost_memory_and_stablehlo():
    g = sg.Graph()
    with g:
        x = sg.placeholder((4, 3), sg.float32, name="x")
        y = snp.tanh(x @ sg.constant(np.ones((3, 2), np.float32))).sum()
    with sg.Session(g) as sess:
        lowered = sess.lower(y, {x: np.ones((4, 3), np.float32)})
    text = jupyter.notebook_html(lowered)
    assert re.search(r"<th[^>]*>flops</th><td[^>]*>\d", text)
    assert re.search(r"<th[^>]*>memory: arguments</th><td[^>]*>48 B</td>", text)
    assert "StableHLO (" in text and "stablehlo.tanh" in text
    assert sg.viz.lowered.human_bytes(1536) == "1.5 KiB" and sg.viz.lowered.human_count(2.5e6) == "2.5 M"
