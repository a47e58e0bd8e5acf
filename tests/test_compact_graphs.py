"""Compact graphs: the demo model is small, reads in a screenful and draws in a few dozen boxes.

Library functions (layers, activations, losses, optimizers, initializers,
samplers) are one library call each (graph/calls.py): one line in
``print(g)`` and one box in ``sg.draw(g)`` until opened. These are the
targets of issue 11 for demo.py's model (2,340 nodes when it was written;
488 before library calls and the savings that came with them).
"""

from __future__ import annotations

import re

import stablegraph as sg
from stablegraph import demo

NODES, LINES, BOXES = 400, 60, 40


def _demo_graph():
    return demo.build(features=64, classes=10, steps=600)


def _boxes(drawing) -> int:
    svg = drawing.pipe(format="svg", encoding="utf-8")
    return len(re.findall(r'<g id="[^"]*" class="node', svg))


def test_the_demo_model_has_at_most_400_nodes():
    g, _ = _demo_graph()
    assert len(g.nodes) <= NODES, len(g.nodes)


def test_the_demo_listing_has_at_most_60_lines_one_per_library_call():
    g, t = _demo_graph()
    lines = str(g).splitlines()
    assert len(lines) <= LINES, "\n".join(lines)
    for line in (
        "  fc1 = dense(seed, x) : f32[batch,128]",
        "  relu = relu(fc1) : f32[batch,128]",
        "  dropout = dropout(rng, relu, training) : f32[batch,128]",
        "  fc2 = dense(seed, dropout) : f32[batch,10]",
        "  mean = mean(softmax_cross_entropy_with_integer_labels) : f32[]",
    ):
        assert line in lines, "\n".join(lines)
    (adam,) = [line for line in lines if line.startswith("  adam = adam.minimize(")]
    assert all(v in adam for v in ("fc1/kernel", "fc1/bias", "fc2/kernel", "fc2/bias", "global_step"))
    assert adam.endswith(": pred[]") and t["train"].node.call.name == "adam"


def test_the_whole_listing_is_still_there_when_asked():
    g, _ = _demo_graph()
    assert len(g.listing(expand=True).splitlines()) == len(g.nodes) + 2
    opened = g.listing(expand=["fc1", "adam"]).splitlines()
    assert "  fc1/kernel/init = glorot_uniform(seed) : f32[64,128]" in opened
    assert "  fc1/kernel/adam = adam.update(" in "\n".join(opened)


def test_the_default_drawing_has_at_most_40_boxes():
    g, _ = _demo_graph()
    boxes = _boxes(sg.draw(g))
    assert boxes <= BOXES, boxes
    assert _boxes(sg.draw(g, expand=["adam"])) > boxes  # opening a call draws what is inside
