"""sg.viz.diff: one drawing of what a transform added (green), removed (red) and kept (grey)."""

from __future__ import annotations

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.viz.styles import STATUS_COLORS

F3 = sg.TensorType((3,), sg.float32)


def _with_dead_code(a, b):
    with sg.name_scope("dead"):
        snp.exp(a) * 3.0  # unused: simplify removes it
    return snp.tanh(a) + snp.tanh(a) + b  # CSE merges the two tanh


def _names(d, *classes) -> set[str]:
    return {d.tooltip(n).split(" = ")[0] for n in d.all("node", *classes)}


def test_simplify_diff_colours_removed_and_kept_nodes(svg):
    f = sg.function(_with_dead_code, [F3, F3])
    s = sg.simplify(f)
    d = svg(sg.viz.diff(f, s))
    removed = {n.name for n in f.graph.nodes} - {n.name for n in s.graph.nodes}
    assert removed >= {"dead/exp", "tanh_1"}
    assert _names(d, "sg-removed") == removed
    assert _names(d, "sg-kept") == {n.name for n in s.graph.nodes} | {"return"}
    assert not _names(d, "sg-added")
    assert {d.stroke(n) for n in d.all("node", "sg-removed")} == {STATUS_COLORS["removed"]}
    assert {d.stroke(n) for n in d.all("node", "sg-kept")} == {STATUS_COLORS["kept"]}
    assert "dead" in {d.texts(c)[0] for c in d.all("cluster", "sg-removed")}  # a scope that went away
    gone = d.all("edge", "sg-removed")
    assert gone and {d.stroke(e) for e in gone} == {STATUS_COLORS["removed"]}


def test_a_node_only_in_after_is_added_and_a_changed_op_is_both(svg):
    before = sg.function(lambda a: snp.tanh(a) * 2.0, [F3], name="f")
    after = sg.function(lambda a: snp.sin(snp.exp(a)) * 2.0, [F3], name="f")
    d = svg(sg.viz.diff(before, after))
    assert _names(d, "sg-added") == {"exp", "sin"}
    assert _names(d, "sg-removed") == {"tanh"}
    assert {d.fill(n) for n in d.all("node", "sg-added")} == {"#bbf7d0"}
    added_edges = [d.texts(e) for e in d.all("edge", "sg-added")]
    assert ["[3]"] in added_edges and d.all("edge", "sg-kept")


def test_a_closed_group_shows_its_counts_and_overall_colour(svg):
    f = sg.function(_with_dead_code, [F3, F3])
    d = svg(sg.viz.diff(f, sg.simplify(f), collapse=1))
    dead = d.one("node", "sg-collapsed", "sg-removed", text="dead")
    assert "+0 −4" in d.texts(dead) and d.stroke(dead) == STATUS_COLORS["removed"]


def test_what_simplify_takes_out_of_a_gradient_stays_marked_as_gradient(svg):
    df = sg.grad(sg.function(lambda a: snp.tanh(a * a).sum(), [F3]))
    d = svg(sg.viz.diff(df, sg.simplify(df), collapse=None))
    removed_grads = _names(d, "sg-removed", "sg-grad")
    assert removed_grads and all(name.startswith("grad/") for name in removed_grads)
    assert _names(d, "sg-kept", "sg-grad")
