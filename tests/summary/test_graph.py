"""add_graph and add_profile read back with TensorBoard's EventAccumulator: the GraphDef's nodes,
edges, scopes (name scopes and library calls as name prefixes, bodies under their node) and
attributes (types, the user's file:line, the call), and a profile's run metadata naming those nodes."""

from __future__ import annotations

import time

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.compat.proto import types_pb2

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.backend.profiling import NodeTime, Profile
from stablegraph.test_util import line_of


@pytest.fixture(scope="module")
def model():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 4), sg.float32, name="x")
        with sg.name_scope("model"):
            h = sg.nn.relu(sg.nn.dense(x, 8, name="fc1"))  # the fc1 line
            y = sg.nn.dense(h, 2, name="fc2")
        loss = snp.mean(y**2)
        total = sg.fori_loop(0, 3, lambda i, c: c * loss + 1.0, loss)  # the loop line
        sg.gradients(loss, [x])
    return g, x, loss, total


def _read(logdir) -> EventAccumulator:
    acc = EventAccumulator(str(logdir))
    acc.Reload()
    return acc


def _inner_nodes(g):
    """(GraphDef name we expect, node) of every node a body of ``g`` holds, outermost first."""
    out = []
    for node in g.nodes:
        for key in type(node.attrs).model_fields:
            fn = getattr(node.attrs, key)
            if isinstance(fn, sg.Function):
                out += [(f"{node.name}/{key}/{n.name}", n) for n in fn.graph.nodes]
    return out


def test_the_graph_keeps_its_nodes_edges_scopes_and_source_lines(tmp_path, model):
    g, x, loss, total = model
    with sg.summary.FileWriter(tmp_path, graph=g):
        pass
    graph_def = _read(tmp_path).Graph()
    nodes = {n.name: n for n in graph_def.node}
    inner = _inner_nodes(g)
    assert len(nodes) == len(graph_def.node) == len(g.nodes) + len(inner)  # names are unique
    for node in g.nodes:
        written = nodes[node.name]
        want_inputs = [t.node.name + (f":{t.index}" if t.index else "") for t in node.inputs]
        assert written.op == node.op.name and list(written.input) == want_inputs, node.name
        assert written.attr["outputs"].s.decode() == ", ".join(str(t) for t in node.out_types)
        assert written.attr["location"].s.decode() == node.location.full
        assert written.attr["derived_from"].s.decode() == (node.derived_from or "")
    # name scopes and library calls are the names' prefixes, which the graph tab groups by
    assert sum(n.derived_from is not None for n in g.nodes) > 5  # the gradient's nodes
    fc1 = [n for n in g.nodes if n.call is not None and n.call.name == "model/fc1"]
    assert fc1 and all(n.name.startswith("model/fc1/") for n in fc1)
    dot = nodes["model/fc1/dot_general"]
    here = __file__
    assert dot.attr["location"].s.decode() == f"{here}:{line_of(here, '# the fc1 line')}"
    assert dot.attr["call"].s.decode() == "model/fc1 = dense(...)"
    assert dot.attr["T"].type == types_pb2.DT_FLOAT
    assert [d.size for d in dot.attr["_output_shapes"].list.shape[0].dim] == [-1, 8]  # batch: -1
    assert dot.attr["outputs"].s == b"f32[batch,8]"
    assert (
        nodes["x"].attr["shape"].s == b"('batch', 4)" and nodes["x"].attr["dtype"].type == types_pb2.DT_FLOAT
    )
    assert list(nodes["model/fc1/kernel"].attr["shape"].list.i) == [4, 8]
    # the loop's body sits under the loop's node; the value it captures arrives by an edge
    loop = total.node.name
    body = {name: n for name, n in inner}
    assert all(name.startswith(f"{loop}/body/") for name in body)
    (capture,) = [nodes[name] for name, n in body.items() if n.name.startswith("capture_")]
    assert list(capture.input) == [loss.node.name]
    assert nodes[loop].attr["body"].s.startswith(b"<Function ")  # by its signature: its nodes are below
    assert nodes[loop].attr["location"].s.decode().endswith(f":{line_of(here, '# the loop line')}")
    assert graph_def.node[0].name == "x"  # the graph's own order


def _check_spans(stats: dict) -> None:
    """The tab times a scope by its span (first start to last end): each span is its nodes' total."""
    scopes = {"/".join(name.split("/")[:k]) for name in stats for k in range(1, name.count("/") + 1)}
    for scope in scopes:
        inside = [s for name, s in stats.items() if name.startswith(scope + "/")]
        end = max(s.all_start_micros + s.all_end_rel_micros for s in inside)
        assert end - min(s.all_start_micros for s in inside) == sum(s.all_end_rel_micros for s in inside), (
            scope
        )
    assert len({s.all_start_micros for s in stats.values()}) == len(stats)  # none overlaps another


def test_a_profile_becomes_run_metadata_on_the_graphs_nodes(tmp_path, model):
    g, x, loss, total = model
    with sg.Session(g) as sess:
        profile = sess.profile(total, {x: np.ones((16, 4), np.float32)}, runs=2)
    with sg.summary.FileWriter(tmp_path, graph=g) as writer:
        writer.add_profile(profile, step=5)
        writer.add_profile(profile, step=6, tag="second")
        # XLA's CPU profiler times a loop as a whole: a row naming a body's node is made here
        inner_only = next(n for _, n in _inner_nodes(g) if n.name not in g and "parameter" not in n.op.traits)
        by_hand = Profile(
            [NodeTime(inner_only.name, inner_only.op.name, None, None, 0.2, 1.0)], 1, 200.0, {}, []
        )
        writer.add_profile(by_hand, step=7)
        rows = [NodeTime(name, "op", None, None, us, 0.0) for name, us in
                [("model/fc1/dot_general", 5.0), ("mean/div", 4.0), ("model/fc1/add", 3.0)]]  # fmt: skip
        writer.add_profile(Profile(rows, 1, 12e3, {}, []), step=8)
    acc = _read(tmp_path)
    assert sorted(acc.Tags()["run_metadata"]) == ["second", "step_5", "step_7", "step_8"]
    names = {n.name for n in acc.Graph().node}
    inner = {n.name: name for name, n in reversed(_inner_nodes(g))}
    (device,) = acc.RunMetadata("step_5").step_stats.dev_stats
    stats = {stat.node_name: stat for stat in device.node_stats}
    assert len(stats) == len(device.node_stats) == len(profile.rows) > 0
    for row in profile.rows:
        stat = stats[row.node if row.node in g else inner[row.node]]
        assert stat.node_name in names and stat.all_end_rel_micros == max(1, round(row.time_us))
        assert abs(stat.all_start_micros / 1e6 - time.time()) < 600  # microseconds since the epoch
    _check_spans(stats)
    # slowest first interleaves scopes: fc1, mean, fc1 again
    (device,) = acc.RunMetadata("step_8").step_stats.dev_stats
    stats = {stat.node_name: stat for stat in device.node_stats}
    assert [stats[n].all_end_rel_micros for n in ("model/fc1/dot_general", "mean/div", "model/fc1/add")] == [
        5,
        4,
        3,
    ]
    _check_spans(stats)
    ((stat,),) = [d.node_stats for d in acc.RunMetadata("step_7").step_stats.dev_stats]
    assert stat.node_name == f"{total.node.name}/body/{inner_only.name}" and stat.node_name in names
    assert stat.all_end_rel_micros == 1  # under a microsecond still shows as a node that ran
