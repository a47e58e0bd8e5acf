"""collapse="auto": small graphs stay open, big ones close scopes (or chunk a flat graph) and draw fast."""

from __future__ import annotations

import time

import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.viz.collapse import BUDGET


def _blocks(n_blocks: int, per_layer: int, scoped: bool = True) -> sg.Graph:
    """x -> n_blocks blocks of 4 layers of ``per_layer`` elementwise ops (in scopes, or flat)."""
    g = sg.Graph("big")
    with g:
        h = sg.placeholder(("batch", 8), sg.float32, name="x")
        for i in range(n_blocks):
            for j in range(4):
                if scoped:
                    with sg.name_scope(f"block{i}"), sg.name_scope(f"layer{j}"):
                        for k in range(per_layer):
                            h = snp.tanh(h) if k % 2 else -h
                else:
                    for k in range(per_layer):
                        h = snp.tanh(h) if k % 2 else -h
    return g


def test_small_graphs_are_drawn_open(svg):
    d = svg(sg.draw(_blocks(2, 3)))
    assert not d.all("sg-collapsed") and len(d.all("cluster", "sg-scope")) == 2 + 8


def test_a_5000_node_graph_draws_in_seconds_with_its_scopes_closed(svg, tmp_path):
    g = _blocks(50, 25)
    assert len(g.nodes) == 5001
    start = time.perf_counter()
    sg.draw(g, tmp_path / "big.svg")
    took = time.perf_counter() - start
    assert took < 10, f"drawing 5,000 nodes took {took:.1f} s"
    d = svg((tmp_path / "big.svg").read_text())
    boxes = d.all("node", "sg-collapsed", "sg-scope")
    assert len(d.all("node")) <= BUDGET and len(boxes) == 50  # block0..block49 (layers inside: too many)
    assert "100 nodes: neg, tanh" in d.texts(d.one("node", text="block7"))


def test_a_flat_5000_node_graph_is_drawn_in_chunks(svg, tmp_path):
    g = _blocks(50, 25, scoped=False)
    start = time.perf_counter()
    d = svg(sg.draw(g))
    took = time.perf_counter() - start
    assert took < 10, f"drawing 5,000 unscoped nodes took {took:.1f} s"
    chunks = d.all("node", "sg-collapsed", "sg-chunk")
    labels = [d.texts(c)[0] for c in chunks]
    assert 10 <= len(chunks) <= 60 and labels[0].startswith("nodes 1–") and labels[-1].endswith("of 5001")


def test_collapse_depth_and_expand_pick_what_is_open(svg):
    g = _blocks(3, 2)
    deep = svg(sg.draw(g, collapse=2))
    assert [len(deep.all("cluster")), len(deep.all("node", "sg-collapsed"))] == [3, 12]
    some = svg(sg.draw(g, collapse=1, expand=["block1/layer2"]))
    assert {some.texts(c)[0] for c in some.all("cluster")} == {"block1", "layer2"}
    assert {some.texts(c)[0] for c in some.all("node", "sg-collapsed")} == {
        "block0", "block2", "layer0", "layer1", "layer3"
    }  # fmt: skip


def test_a_scope_holding_only_one_scope_is_drawn_as_one(svg):
    g = sg.Graph()
    with g, sg.name_scope("outer"), sg.name_scope("inner"):
        snp.exp(sg.constant(np.ones(3, np.float32)))
    d = svg(sg.draw(g))
    assert [d.texts(c)[0] for c in d.all("cluster")] == ["outer/inner"]
    assert svg(sg.draw(g, collapse=1, expand=["outer"])).all("cluster")  # the outer name still opens it
