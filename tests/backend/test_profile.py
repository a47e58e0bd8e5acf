"""sess.profile: XLA's per-op device times attributed to graph nodes. The digits MLP's training
step (the demo's model) must have at least 90% of the device time XLA reports charged to named
nodes; the rows are checked against the graph (every node exists, has its op and the user's
line), the groupings against the rows, the trace file against its JSON format, and a drawing's
shading against the shares."""

import json
import os
import re

import numpy as np
import pytest

import stablegraph as sg

HERE = os.path.basename(__file__)


@pytest.fixture(scope="module")
def digits_step():
    X, Y = sg.data.load_digits()
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", X.shape[1]), sg.float32, name="x")
        y = sg.placeholder(("batch",), sg.int32, name="y")
        h = sg.nn.relu(sg.nn.dense(x, 128, name="fc1"))
        logits = sg.nn.dense(h, 10, name="fc2")
        loss = sg.nn.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        train = sg.optim.adam(3e-3).minimize(loss)
    feeds = {x: X[:256].astype(np.float32), y: Y[:256].astype(np.int32)}
    with sg.Session(g) as sess:
        prof = sess.profile([loss, train], feeds, runs=20)
    return g, prof


def test_the_digits_step_is_attributed_to_graph_nodes(digits_step):
    g, prof = digits_step
    assert prof.runs == 20 and prof.total_us > 0
    assert prof.attributed >= 0.90, prof.table()
    names = {n.name: n for n in g.nodes}
    for row in prof.rows:
        node = names[row.node]  # every row is a node of the user's graph ...
        assert row.op == node.op.name and os.path.basename(row.location.file) == HERE  # ... at its line
    times = [r.time_us for r in prof.rows]
    assert times == sorted(times, reverse=True)
    assert abs(sum(r.share for r in prof.rows) - 1.0) < 1e-9
    np.testing.assert_allclose(sum(prof.by_call().values()), sum(times), rtol=1e-9)
    np.testing.assert_allclose(sum(prof.by_scope().values()), sum(times), rtol=1e-9)
    assert any(k.startswith("fc1 (dense)") for k in prof.by_call())
    assert any(k.startswith("adam") for k in prof.by_call())  # the gradient's nodes: in the optimizer's call
    text = str(prof)
    assert re.search(
        r"profile of 20 runs: [\d.]+ us of device time per run, \d+% charged to graph nodes", text
    )
    assert prof.rows[0].node in text


def test_trace_and_drawing(digits_step, tmp_path):
    g, prof = digits_step
    path = tmp_path / "trace.json"
    prof.to_chrome_trace(path)
    events = json.loads(path.read_text())["traceEvents"]
    assert events and all(e["ph"] == "X" and e["dur"] >= 0 for e in events)
    assert {e["name"] for e in events} >= {r.node for r in prof.rows}
    dot = sg.draw(g, profile=prof, collapse=None, expand=True).source
    assert dot.count('fillcolor="#ff3333"') == 1  # the node with the largest share: the deepest shade
    top_share = f"{prof.rows[0].share:.1%} of the profiled time"
    assert top_share in dot
    page = sg.viz.explorer_html(g, profile=prof)  # the Jupyter explorer, shaded the same way
    assert "#ff3333" in page and top_share in page


def test_profile_arguments():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        y = x * 2
    with sg.Session(g) as sess:
        with pytest.raises(sg.GraphError, match="runs >= 1"):
            sess.profile(y, {x: np.ones(3, np.float32)}, runs=0)
