"""Graph JSON faults: malformed documents are GraphErrors naming the node; deep bodies; portable locations."""

import copy
import json
import os

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.graph import SourceLocation
from stablegraph.graph.location import portable_file


def _graph():
    """Nodes 0 x, 1 c, 2 add, 3 tanh, 4 w, ... 9 cond (functions 0 false_fn, 1 true_fn capturing w)."""
    g = sg.Graph("t")
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        c = sg.constant(np.ones(3, np.float32), name="c")
        y = snp.tanh(x + c)
        w = sg.constant(np.float32(2.0), name="w")
        sg.cond(snp.sum(x) > 0, lambda v: v * w, lambda v: -v, y)
    return g


DOC = json.loads(_graph().to_json())


def _load(edit):
    """from_json of the test graph's document after ``edit(doc)`` changed it in place."""
    doc = copy.deepcopy(DOC)
    edit(doc)
    return sg.Graph.from_json(json.dumps(doc))


def _set(path, value):
    def edit(doc):
        *head, last = path
        for key in head:
            doc = doc[key]
        doc[last] = value

    return edit


def test_the_document_round_trips():
    g = _graph()
    assert str(_load(lambda doc: None)) == str(g)
    assert [n["name"] for n in DOC["nodes"]][:4] == ["x", "c", "add", "tanh"]
    assert DOC["nodes"][9]["attrs"] == {"branches": [{"function": 0}, {"function": 1}]}


@pytest.mark.parametrize(
    "path, value, words",
    [
        (("nodes", 2, "inputs", 0), [-1, 0], ["node 2 (add)", "[-1, 0]", "refers to node -1"]),
        (("nodes", 2, "inputs", 0), [7, 0], ["node 2 (add)", "refers to node 7", "nodes 0..1 before it"]),
        (("nodes", 2, "inputs", 0), [2, 0], ["node 2 (add)", "refers to node 2"]),  # itself
        (("nodes", 3, "inputs", 0), [2, 1], ["node 3 (tanh)", "output 1 of node 2 (add)", "1 output"]),
        (("nodes", 3, "inputs", 0), [2, -1], ["node 3 (tanh)", "output -1"]),
        (("nodes", 3, "inputs"), [[2, 0], [1, 0]], ["node 3 (tanh)", "tanh", "2 inputs"]),  # arity
        (("nodes", 2, "inputs"), [[0, 0]], ["node 2 (add)", "add", "1 inputs"]),
        (("nodes", 2, "op"), "no_such_op", ["node 2 (add)", "unknown op 'no_such_op'"]),
        (("nodes", 0, "attrs", "dtype"), "float99", ["node 0 (x)", "placeholder", "dtype"]),
        (("nodes", 0, "attrs", "colour"), "red", ["node 0 (x)", "colour", "Extra inputs"]),
        (("nodes", 0, "attrs"), {"dtype": "float32"}, ["node 0 (x)", "shape", "Field required"]),
        (("nodes", 1, "attrs", "value"), {"dtype": "float32"}, ["node 1 (c)", "constant", "value", "'data'"]),
        (("nodes", 1, "attrs", "value", "data"), "***", ["node 1 (c)", "constant"]),
        (("nodes", 9, "attrs", "branches", 0), {"function": 5}, ["node 9 (cond)", "function 5", "0..1"]),
        (("nodes", 9, "attrs", "branches", 0), {"function": -1}, ["node 9 (cond)", "function -1"]),
        (("nodes", 9, "attrs", "branches"), [{"function": 0}], ["node 9 (cond)", "cond"]),
        (("nodes", 9, "attrs", "branches", 1), {"function": 0}, ["node 9 (cond)", "cond"]),  # too few inputs
        (("nodes", 4, "name"), "x", ["node 4 (x)", "'x' is taken"]),
        (("nodes", 4, "name"), "", ["node 4 ()", "name"]),
        (("nodes", 3, "inputs"), "tanh's input", ["node 3 (tanh)", "inputs", "list"]),
        (("nodes", 3, "inputs", 0), [2], ["node 3 (tanh)", "inputs.0"]),
        (("nodes", 3, "name"), 3, ["node 3 (?)", "name", "string"]),
        (("nodes", 3, "location"), {"file": "a.py"}, ["node 3 (tanh)", "location.line", "Field required"]),
        (("functions", 1, "nodes", 3, "inputs", 0), [5, 0], ["function 1 (true_fn) node 3 (mul)", "node 5"]),
        (("functions", 1, "nodes", 0, "op"), "parameterr", ["function 1 (true_fn) node 0 (v)", "parameterr"]),
        (
            ("functions", 0, "params"),
            [1],
            ["function 0 (false_fn)", "params lists node 1", "not a parameter"],
        ),
        (("functions", 0, "params"), [], ["function 0 (false_fn)", "not listed: v"]),
        (("functions", 0, "results"), [[1, 3]], ["function 0 (false_fn)", "result [1, 3]", "output 3"]),
        (("functions", 0, "nodes"), None, ["function 0 (false_fn)", "nodes", "list"]),
        (("name",), ["t"], ["graph", "name", "string"]),
        (("nodes",), {"x": 1}, ["nodes", "list"]),
        (("functions",), 3, ["functions", "list"]),
    ],
)
def test_malformed_documents_are_graph_errors_naming_the_node(path, value, words):
    with pytest.raises(sg.GraphError) as e:
        _load(_set(path, value))
    for word in words:
        assert word in str(e.value), (word, str(e.value))


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda doc: doc.pop("format"), ["format", "stablegraph.graph/2"]),
        (
            lambda doc: doc.update(format="stablegraph.graph/1"),
            ["stablegraph.graph/1", "unknown graph format"],
        ),
        (lambda doc: doc.pop("nodes"), ["graph 't'", "nodes", "Field required"]),
        (lambda doc: doc["nodes"][2].pop("op"), ["node 2 (add)", "op", "Field required"]),
        (lambda doc: doc["functions"][0].pop("name"), ["function 0 (?)", "name", "Field required"]),
        (lambda doc: doc["functions"].pop(), ["node 9 (cond)", "function 1", "0..0"]),
        (lambda doc: doc["nodes"].insert(0, doc["nodes"].pop(3)), ["node 0 (tanh)", "refers to node 2"]),
        (lambda doc: doc.update(extra=1), ["extra", "Extra inputs"]),
    ],
)
def test_missing_keys_and_misplaced_parts_are_graph_errors(edit, words):
    with pytest.raises(sg.GraphError) as e:
        _load(edit)
    for word in words:
        assert word in str(e.value), (word, str(e.value))


@pytest.mark.parametrize("text", ["", "{", "[1, 2]", "null", '"graph"', "[" * 100_000, b"\xff\xfe"])
def test_text_that_is_not_a_document_is_a_graph_error(text):
    with pytest.raises(sg.GraphError):
        sg.Graph.from_json(text)


def _paths(doc, path=()):
    yield path
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*path, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, (*path, i))


def test_every_damage_to_a_document_is_a_graph_error_or_a_graph():
    """Each part of the document deleted or replaced by junk: never a raw KeyError, TypeError, ..."""
    junk = [None, -1, 10**30, "x", [], {}, [-1, -1], {"function": 0}, 1.5, True]
    outcomes = {"graph": 0, "error": 0}
    for path in list(_paths(DOC))[1:]:
        for value in [*junk, "<delete>"]:

            def edit(doc, path=path, value=value):
                *head, last = path
                for key in head:
                    doc = doc[key]
                if value == "<delete>":
                    del doc[last]
                else:
                    doc[last] = value

            try:
                _load(edit)
                outcomes["graph"] += 1
            except sg.GraphError:
                outcomes["error"] += 1
    assert outcomes["error"] > 1000 and outcomes["graph"] > 0


def _nested_cond(depth: int):
    """A graph whose cond holds a branch holding a cond ... ``depth`` levels deep (built bottom up)."""
    ty = sg.TensorType((3,), sg.float32)
    fn = sg.function(lambda x: x + 1.0, [ty], name="leaf")
    for k in range(depth):
        fn = sg.function(
            lambda x, inner=fn: sg.cond(x.sum() > 0, inner, lambda y: y * 2.0, x), [ty], name=f"level{k}"
        )
    g = sg.Graph("deep")
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        fn(x)
    return g


def _depth(value) -> int:
    stack, deepest = [(value, 1)], 0
    while stack:
        v, d = stack.pop()
        deepest = max(deepest, d)
        children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        stack.extend((c, d + 1) for c in children)
    return deepest


def test_bodies_nested_200_deep_round_trip_without_recursion():
    g = _nested_cond(200)
    text = g.to_json()
    doc = json.loads(text)
    assert len(doc["functions"]) == 2 * 200 and _depth(doc) < 12  # flat: no nesting per level
    g2 = sg.Graph.from_json(text)
    assert str(g2) == str(g)
    assert g2.to_json() == text


def test_bodies_must_come_after_the_bodies_they_use():
    doc = json.loads(_nested_cond(2).to_json())
    names = [f["name"] for f in doc["functions"]]
    assert sorted(names) == ["false_fn", "false_fn", "leaf", "level0"] and names[-1] == "level0"
    doc["functions"].insert(0, doc["functions"].pop())  # level0 first: its cond uses bodies after it
    with pytest.raises(sg.GraphError) as e:
        sg.Graph.from_json(json.dumps(doc))
    msg = str(e.value)
    assert "function 0 (level0) node" in msg and "(cond)" in msg and "no functions before it" in msg, msg


def test_a_function_used_twice_is_written_once():
    ty = sg.TensorType((3,), sg.float32)
    twice = sg.function(lambda v: v * 2.0, [ty], name="twice")
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32, name="x")
        sg.cond(x.sum() > 0, twice, twice, x)
        sg.cond(x.sum() < 0, twice, lambda v: v, x)
    doc = json.loads(g.to_json())
    assert [f["name"] for f in doc["functions"]] == ["twice", "false_fn"]
    g2 = sg.Graph.from_json(g.to_json())
    (a, b) = g2.nodes_of("cond")
    assert a.attrs.branches[0] is a.attrs.branches[1] is b.attrs.branches[1]


def test_locations_are_relative_to_the_working_directory_or_left_out(tmp_path, monkeypatch):
    g = _graph()
    here = os.path.abspath(__file__)
    assert g.node("x").location.file == here
    monkeypatch.chdir(os.path.dirname(os.path.dirname(here)))  # tests/
    doc = json.loads(g.to_json())
    assert doc["nodes"][0]["location"]["file"] == "graph/test_serialize_faults.py"
    assert here not in g.to_json() and os.sep + "graph" + os.sep not in json.dumps(doc["nodes"][0])
    loaded = sg.Graph.from_json(g.to_json()).node("x").location
    assert loaded == SourceLocation("graph/test_serialize_faults.py", g.node("x").location.line)
    assert str(loaded) == str(g.node("x").location)  # errors print the same file:line
    monkeypatch.chdir(tmp_path)  # the file is outside: only its name is kept
    assert json.loads(g.to_json())["nodes"][0]["location"]["file"] == "test_serialize_faults.py"
    bare = g.to_json(locations=False)
    assert "location" not in bare and "test_serialize_faults" not in bare
    assert all(n.location is None for n in sg.Graph.from_json(bare).nodes)


def test_portable_file_keeps_names_that_are_not_absolute_paths(tmp_path):
    assert portable_file("<stdin>") == "<stdin>"
    assert portable_file("<ipython-input-3-abc>") == "<ipython-input-3-abc>"
    assert portable_file("train.py") == "train.py"
    assert portable_file(str(tmp_path / "a" / "b.py"), root=str(tmp_path)) == "a/b.py"
    assert portable_file(str(tmp_path / "b.py"), root=str(tmp_path / "a")) == "b.py"
