"""A real TensorBoard (the `tensorboard` package, no TensorFlow) started on loopback reads what
sg.summary.FileWriter wrote: its HTTP API serves the scalars, the graph and the profile's run
metadata, and headless chromium shows the graph tab with the model's scopes as boxes coloured by the
profile's compute time (a screenshot is left in out/tensorboard_graph.png). One server for the module; it is stopped after it."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from selenium.webdriver.support.ui import WebDriverWait

import stablegraph as sg
from stablegraph.backend.profiling import NodeTime, Profile

ROOT = Path(__file__).resolve().parents[2]
LOSSES = [2.5, 1.25, 0.5, float("nan"), 0.125]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """(base url, graph) of a TensorBoard serving one run, ``run1``, of scalars, a graph and a profile."""
    logdir = tmp_path_factory.mktemp("tensorboard")
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 4), sg.float32, name="x")
        with sg.name_scope("model"):
            y = sg.nn.dense(sg.nn.relu(sg.nn.dense(x, 8, name="fc1")), 2, name="fc2")
        sg.numpy.mean(y**2)
    rows = [NodeTime("model/fc1/dot_general", "dot_general", None, None, 12.0, 0.6),
            NodeTime("model/fc2/dot_general", "dot_general", None, None, 8.0, 0.4)]  # fmt: skip
    with sg.summary.FileWriter(logdir / "run1", graph=g) as writer:
        for step, loss in enumerate(LOSSES):
            writer.scalar("loss", loss, step=step)
        writer.add_profile(Profile(rows, 1, 20e3, {}, []), step=3)
    port = _free_port()
    log = open(logdir / "tensorboard.log", "w+")  # noqa: SIM115  (closed in the teardown)
    process = subprocess.Popen(
        [sys.executable, "-m", "tensorboard.main", "--logdir", str(logdir), "--host", "127.0.0.1",
         "--port", str(port), "--load_fast=false", "--reload_interval", "0"],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, f"tensorboard exited: {(logdir / 'tensorboard.log').read_text()}"
            try:
                if json.loads(_get(f"{base}/data/plugin/scalars/scalars?run=run1&tag=loss")):
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, f"no answer: {(logdir / 'tensorboard.log').read_text()}"
            time.sleep(0.1)
        yield base, g
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def test_the_server_serves_the_scalars_the_graph_and_the_profile(server):
    base, g = server
    points = json.loads(_get(f"{base}/data/plugin/scalars/scalars?run=run1&tag=loss"))
    assert [p[1] for p in points] == list(range(len(LOSSES)))
    got = [float(p[2]) for p in points]  # JSON has no nan: the server writes "NaN"
    np.testing.assert_array_equal(np.float32(got), np.float32(LOSSES))
    info = json.loads(_get(f"{base}/data/plugin/graphs/info"))["run1"]
    assert info["run_graph"] and info["tags"]["step_3"]["profile"]
    graph = _get(f"{base}/data/plugin/graphs/graph?run=run1").decode()
    for node in g.nodes:
        assert f'name: "{node.name}"' in graph
    assert 'key: "location"' in graph and "f32[batch,8]" in graph
    metadata = _get(f"{base}/data/plugin/graphs/run_metadata?run=run1&tag=step_3").decode()
    assert 'node_name: "model/fc1/dot_general"' in metadata and "all_end_rel_micros: 12" in metadata


_FIND = """
function find(root, selector, out) {
  root.querySelectorAll(selector).forEach(e => out.push(e));
  root.querySelectorAll("*").forEach(e => { if (e.shadowRoot) find(e.shadowRoot, selector, out); });
  return out;
}
const nodes = find(document, "svg g.node", []);
"""
_NAMES = _FIND + 'return nodes.map(n => n.getAttribute("data-name")).filter(name => name);'
_NODE = _FIND + "return nodes.find(n => n.getAttribute('data-name') === arguments[0]);"
_FILLS = (
    _FIND
    + """return Object.fromEntries(nodes.map(n => {
  const shape = n.querySelector(".nodeshape > *");
  return [n.getAttribute("data-name"), shape ? getComputedStyle(shape).fill : ""];
}));"""
)
_CONTROLS = _FIND.replace("svg g.node", "tf-graph-controls") + "return nodes[0];"
_OPEN = "arguments[0].querySelector('.nodeshape').dispatchEvent(new MouseEvent('dblclick', {bubbles: true}));"


def _until(driver, condition):
    return WebDriverWait(driver, 30, poll_frequency=0.2).until(lambda d: condition(d) or False)


def test_the_graph_tab_draws_the_scopes_and_the_profiles_compute_time(server, chromium):
    """The graph tab (its svg lives in shadow roots, searched by script) opens on the top-level
    scopes, closed. Its controls are set as a user's clicks would set them (the run's second
    tag, the profile; colour by compute time) and ``model`` is opened (a double click): its three
    library calls are boxes, the two profiled ones coloured by their time, relu hatched as a
    node with no stats."""
    base, _ = server
    chromium.get(f"{base}/#graphs&run=run1")
    names = _until(chromium, lambda d: d.execute_script(_NAMES))
    assert {"x", "model", "mean"} <= set(names) and not any(n.startswith("model/") for n in names), names
    controls = chromium.execute_script(_CONTROLS)
    tags = chromium.execute_script("return arguments[0].datasets[0].tags.map(t => t.tag);", controls)
    assert tags == [None, "step_3"]  # the op graph, then the profile's run metadata
    chromium.execute_script("arguments[0]._selectedTagIndex = 1;", controls)
    _until(chromium, lambda d: d.execute_script(_NAMES))  # drawn again for the tag
    chromium.execute_script("arguments[0].colorBy = 'compute_time';", controls)
    _until(chromium, lambda d: d.execute_script(_FILLS).get("model", "").startswith("rgb("))
    chromium.execute_script(_OPEN, chromium.execute_script(_NODE, "model"))
    calls = {"model/fc1", "model/relu", "model/fc2"}
    _until(chromium, lambda d: calls <= set(d.execute_script(_NAMES)))
    time.sleep(1.0)  # the view's zoom to fit is animated
    fills = chromium.execute_script(_FILLS)
    assert not any(n.startswith("model/fc1/") for n in fills), fills  # the calls stay closed
    assert fills["model/fc1"].startswith("rgb(") and fills["model/fc2"].startswith("rgb("), fills
    assert fills["model/fc1"] != fills["model/fc2"] and "Hatch" in fills["model/relu"], fills
    (ROOT / "out").mkdir(exist_ok=True)
    chromium.save_screenshot(str(ROOT / "out" / "tensorboard_graph.png"))
    assert (ROOT / "out" / "tensorboard_graph.png").read_bytes()[:4] == b"\x89PNG"
