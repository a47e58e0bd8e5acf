"""JSON round trip of graphs and functions through pydantic models (graph layer). Never pickle.

A document (format ``stablegraph.graph/2``) is flat::

    {"format": "stablegraph.graph/2", "name": "g", "nodes": [NODE, ...], "functions": [BODY, ...]}
    NODE = {"name": "m/x", "op": "add", "attrs": {...}, "inputs": [[node index, output index], ...],
            "location": {"file": "train.py", "line": 17}}          # location: optional
    BODY = {"name": "true_fn", "nodes": [NODE, ...], "params": [node index, ...],
            "capture_params": [node index, ...], "results": [[node index, output index], ...]}
    CALL = {"name": "model/fc1", "fn": "dense", "parent": call index, "outputs": [[node, output], ...]}

A graph or body with library calls (graph/calls.py) lists them in ``calls``
(each after the call it was made in) and each of their nodes names its
innermost one (``"call": i``). Both keys are left out when there are none,
so a document without calls reads as before.

A Function held in an attribute (a cond branch, a scan body) is written as
``{"function": i}``, an index into ``functions``, which lists every body
once, each after the bodies it uses. So the nesting depth of the document
does not grow with the nesting of bodies, and writing and reading are loops,
not recursion: 200 levels of cond inside cond are fine.

Locations are written relative to the working directory (see
``location.portable_file``), or left out with ``locations=False``; a loaded
graph keeps them as written. Reading trusts nothing: every malformed
document is a GraphError that says where (``function 2 (true_fn) node 5
(add): ...``) and what is wrong.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, get_origin

from pydantic import (
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    TypeAdapter,
    ValidationError,
)

from .attrs import dim_fields
from .calls import Call
from .errors import GraphError, located
from .function import Function, FunctionGraph
from .graph import Graph
from .internal_model import InternalModel
from .location import SourceLocation, portable_file, user_location
from .opdef import lookup
from .overloads import register_overloads
from .structural import SHARDED_ATTRS

FORMAT = "stablegraph.graph/2"
_WRITING = "stablegraph.function_index"  # serialization context: id(Function) -> index in "functions"
_READING = "stablegraph.functions"  # validation context: the Functions loaded so far
# what a node's infer or an attribute validator may raise on a document that makes no sense
_BAD_INPUT = (TypeError, ValueError, IndexError, KeyError, AttributeError, ArithmeticError)


class _Model(InternalModel):
    # defer_build: the schemas are built at the first (de)serialization, not at import
    model_config = ConfigDict(extra="forbid", defer_build=True)


class LocationModel(_Model):
    file: str
    line: int


class NodeModel(_Model):
    name: str = Field(min_length=1)
    op: str
    attrs: dict[str, Any] = {}
    inputs: list[tuple[int, int]] = []
    location: LocationModel | None = None
    derived_from: str | None = None  # the node a transform made this one for (Node.derived_from)
    call: int | None = None  # the innermost library call that built it (an index in "calls")


class CallModel(_Model):
    """A library call: its name (scope path), the function, the call it was made in, what it returned."""

    name: str = Field(min_length=1)
    fn: str
    parent: int | None = None
    outputs: list[tuple[int, int]] = []


class BodyModel(_Model):
    """A graph's nodes; for a Function also its parameters and results."""

    name: str
    nodes: list[NodeModel]
    params: list[int] = []
    capture_params: list[int] = []
    results: list[tuple[int, int]] = []
    calls: list[CallModel] = []


class DocumentModel(_Model):
    """A whole document: a graph (or a Function: then params and results too) and its bodies."""

    format: str
    name: str
    nodes: list[NodeModel]
    params: list[int] = []
    capture_params: list[int] = []
    results: list[tuple[int, int]] = []
    calls: list[CallModel] = []
    functions: list[BodyModel] = []  # every nested body, each after those it uses


# -- writing -------------------------------------------------------------------------------------
def graph_to_json(graph: Graph, indent: int | None = None, locations: bool = True) -> str:
    """The JSON document of ``graph``; ``locations=False`` leaves out the source lines."""
    return _document(graph, None, locations).model_dump_json(indent=indent, exclude_defaults=True)


def _document(graph: Graph, fn: Function | None, locations: bool) -> DocumentModel:
    order = _bodies(graph)
    context = {_WRITING: {id(f): i for i, f in enumerate(order)}}
    bodies = [BodyModel(**_body(f.graph, f, context, locations)) for f in order]
    return DocumentModel(format=FORMAT, functions=bodies, **_body(graph, fn, context, locations))


def graph_content(graph: Graph) -> str:
    """What ``graph_to_json(graph, locations=False)`` says but the graph's own name, as compact JSON
    made of plain dicts (no document model validates it): what the plan store hashes for its
    key (backend/plan_store.py), in the first run of every fresh process."""
    order = _bodies(graph)
    context = {_WRITING: {id(f): i for i, f in enumerate(order)}}
    bodies = [_body(f.graph, f, context, False, dict, dict) for f in order]
    top = _body(graph, None, context, False, dict, dict)
    del top["name"]  # unnamed graphs are numbered per process: no part of their programs
    return json.dumps({"format": FORMAT, **top, "functions": bodies}, separators=(",", ":"))


def _body(
    graph: Graph, fn: Function | None, context: dict, locations: bool, node_model=None, call_model=None
) -> dict:
    node_model, call_model = node_model or NodeModel, call_model or CallModel
    python = next((n for n in graph.nodes if "host_callback" in n.op.traits), None)
    if python is not None:
        raise GraphError(
            located(
                f"to_json: node {python.name} ({python.op.name}) calls a Python function, which JSON cannot "
                "hold (and loading never runs code from a file): build the callback again after from_json",
                python.location,
                python.name,
            )
        )
    nodes = [
        node_model(
            name=n.name,
            op=n.op.name,
            attrs=n.attrs.model_dump(mode="json", context=context),
            inputs=[(t.node.id, t.index) for t in n.inputs],
            location=_location(n.location) if locations and n.location else None,
            derived_from=n.derived_from,
            call=None if n.call is None else n.call.id,
        )
        for n in graph.nodes
    ]
    calls = [
        call_model(
            name=c.name,
            fn=c.fn,
            parent=None if c.parent is None else c.parent.id,
            outputs=[(t.node.id, t.index) for t in c.outputs if t.node.graph is graph],
        )
        for c in graph.calls
    ]
    if fn is None:
        return {"name": graph.name, "nodes": nodes, "calls": calls}
    return {
        "name": fn.name,
        "nodes": nodes,
        "calls": calls,
        "params": [p.node.id for p in fn.params],
        "capture_params": [p.node.id for p in fn.capture_params],
        "results": [(r.node.id, r.index) for r in fn.results],
    }


def _location(loc: SourceLocation) -> LocationModel:
    return LocationModel(file=portable_file(loc.file), line=loc.line)


_FIELDS_BACKWARDS: dict[type, tuple[str, ...]] = {}  # an attribute model's field names, last first
_PLAIN = frozenset({int, float, bool, str, type(None)})  # attribute values that hold no Function


def _uses(graph: Graph) -> list[Function]:
    """The Functions that the attributes of ``graph``'s nodes hold (in tuples, lists, dicts too)."""
    out = []
    for node in graph.nodes:
        attrs = node.attrs
        names = _FIELDS_BACKWARDS.get(type(attrs))
        if names is None:
            names = _FIELDS_BACKWARDS[type(attrs)] = tuple(reversed(type(attrs).model_fields))
        stack = [getattr(attrs, f) for f in names]
        while stack:
            v = stack.pop()
            if type(v) in _PLAIN:
                continue
            if isinstance(v, Function):
                out.append(v)
            elif isinstance(v, (tuple, list)):
                stack.extend(reversed(v))
            elif isinstance(v, dict):
                stack.extend(reversed(list(v.values())))
    return out


def _bodies(graph: Graph) -> list[Function]:
    """Every Function nested in ``graph``, once each, each after the ones it uses (no recursion)."""
    order: list[Function] = []
    seen: set[int] = set()
    stack = [(f, False) for f in reversed(_uses(graph))]
    while stack:
        fn, done = stack.pop()
        if done:
            order.append(fn)
        elif id(fn) not in seen:
            seen.add(id(fn))
            stack.append((fn, True))
            stack.extend((f, False) for f in reversed(_uses(fn.graph)) if id(f) not in seen)
    return order


def _function_out(fn: Function, info) -> dict:
    """A Function attribute: its index in the document being written, or a document of its own."""
    table = info.context.get(_WRITING, {}) if isinstance(info.context, dict) else {}
    if id(fn) in table:
        return {"function": table[id(fn)]}
    return _document(fn.graph, fn, True).model_dump(mode="json", exclude_defaults=True)


# -- reading -------------------------------------------------------------------------------------
def graph_from_json(text: str | bytes) -> Graph:
    """The Graph of a document written by ``graph_to_json``; a GraphError at the caller's line says
    what is malformed and where in the document."""
    try:
        try:
            raw = json.loads(text)
        except (ValueError, TypeError, RecursionError) as e:
            raise GraphError(f"a graph must be a JSON document: {type(e).__name__}: {e}") from None
        doc = _parse(raw)
        return _load_graph(doc, Graph, _functions(doc), f"graph {doc.name!r}")
    except GraphError as e:
        raise GraphError(located(str(e), user_location())) from None


def _parse(raw) -> DocumentModel:
    if not isinstance(raw, dict):
        raise GraphError(f"a graph document is a JSON object, got {type(raw).__name__}")
    if raw.get("format") != FORMAT:
        got = repr(raw["format"]) if "format" in raw else "no 'format' key"
        raise GraphError(f"unknown graph format: {got}, expected {FORMAT!r}")
    try:
        return DocumentModel.model_validate(raw)
    except ValidationError as e:
        lines = [_describe(raw, err) for err in e.errors()]
        more = [f"... and {len(lines) - 10} more"] if len(lines) > 10 else []
        raise GraphError("malformed graph document:\n  " + "\n  ".join(lines[:10] + more)) from None


def _describe(raw: dict, err: dict) -> str:
    """One pydantic error as "function 2 (f) node 5 (add): inputs.0.1: what is wrong"."""
    loc, body, where = list(err["loc"]), raw, f"graph {_label(raw)!r}"
    if loc[:1] == ["functions"] and len(loc) > 1:
        body = _item(raw.get("functions"), loc[1])
        where, loc = f"function {loc[1]} ({_label(body)})", loc[2:]
    if loc[:1] == ["nodes"] and len(loc) > 1:
        where += f" node {loc[1]} ({_label(_item(_get(body, 'nodes'), loc[1]))})"
        loc = loc[2:]
    return f"{where}: {'.'.join(str(part) for part in loc) or 'the entry'}: {err['msg']}"


def _get(obj, key):
    return obj.get(key) if isinstance(obj, dict) else None


def _item(seq, i):
    return seq[i] if isinstance(seq, list) and isinstance(i, int) and 0 <= i < len(seq) else None


def _label(obj) -> str:
    name = _get(obj, "name")
    return name if isinstance(name, str) else "?"


def _functions(doc: DocumentModel) -> list[Function]:
    """The document's function table, built in order: each body only uses those before it."""
    functions: list[Function] = []
    for i, body in enumerate(doc.functions):
        functions.append(_load_function(body, functions, f"function {i} ({body.name})"))
    return functions


def _load_graph(
    body: BodyModel | DocumentModel, cls: type[Graph], functions: list[Function], where: str
) -> Graph:
    graph = cls(body.name)
    calls = _load_calls(body.calls, where)
    for k, nm in enumerate(body.nodes):
        at = f"{where} node {k} ({nm.name})"
        node = _load_node(graph, nm, functions, at)
        if nm.call is not None:
            if not 0 <= nm.call < len(calls):
                raise GraphError(f"{at}: call {nm.call} is not one of the {len(calls)} calls")
            node.call = calls[nm.call]
    for i, (call, cm) in enumerate(zip(calls, body.calls)):
        call.outputs = tuple(_ref(graph, r, f"{where} call {i} ({cm.name})", "output") for r in cm.outputs)
        graph.add_call(call)
    return graph


def _load_calls(models: list[CallModel], where: str) -> list[Call]:
    """The library calls of a body, in order: each one's parent comes before it."""
    calls: list[Call] = []
    for i, cm in enumerate(models):
        if cm.parent is not None and not 0 <= cm.parent < i:
            raise GraphError(f"{where} call {i} ({cm.name}): parent {cm.parent} is not a call before it")
        calls.append(Call(cm.name, cm.fn, None if cm.parent is None else calls[cm.parent]))
    return calls


def _load_node(graph: Graph, nm: NodeModel, functions: list[Function], at: str):
    try:
        op = lookup(nm.op)
    except GraphError as e:
        raise GraphError(f"{at}: {e}") from None
    inputs = [_ref(graph, ref, at, "input") for ref in nm.inputs]
    attrs = _attrs(op, nm.attrs, functions, at)
    loc = SourceLocation(nm.location.file, nm.location.line) if nm.location else None
    try:
        node = graph.add_node(op, inputs, attrs, location=loc, full_name=nm.name)
    except GraphError as e:
        raise GraphError(f"{at}: {e}") from None
    except _BAD_INPUT as e:  # e.g. the wrong number of inputs for the op's infer
        types = ", ".join(str(t.type) for t in inputs)
        raise GraphError(
            f"{at}: op {op.name} cannot take {len(inputs)} inputs ({types}) with these attributes: "
            f"{type(e).__name__}: {e}"
        ) from None
    if loc is None:
        node.location = None  # add_node looked up the caller's line; the document has none
    node.derived_from = nm.derived_from
    return node


def _ref(graph: Graph, ref: tuple[int, int], at: str, what: str):
    """The tensor [node index, output index] names among the nodes built so far."""
    i, j = ref
    if not 0 <= i < len(graph.nodes):
        before = f"nodes 0..{len(graph.nodes) - 1}" if graph.nodes else "no nodes"
        raise GraphError(f"{at}: {what} [{i}, {j}] refers to node {i}, but there are {before} before it")
    node = graph.nodes[i]
    if not 0 <= j < len(node.outputs):
        raise GraphError(
            f"{at}: {what} [{i}, {j}] refers to output {j} of node {i} ({node.name}), "
            f"which has {len(node.outputs)} output(s)"
        )
    return node.outputs[j]


def _attrs(op, raw: dict, functions: list[Function], at: str):
    cls = SHARDED_ATTRS.get(op.attrs, op.attrs) if "sharding" in raw else op.attrs  # a sharded input
    _check_dim_lists(cls, raw, f"{at}: bad attributes for op {op.name}")
    try:
        return cls.model_validate(raw, context={_READING: functions})
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'attrs'}: {err['msg']}" for err in e.errors()
        )
        raise GraphError(f"{at}: bad attributes for op {op.name}: {problems}") from None
    except _BAD_INPUT as e:
        field = _culprit(op, raw, functions)
        raise GraphError(f"{at}: bad attributes for op {op.name}: {field}: {type(e).__name__}: {e}") from None


def _check_dim_lists(cls, raw: dict, where: str) -> None:
    """Shapes (and other tuples of dims) are JSON lists: a string such as "(2, 3)" would otherwise be
    read one character at a time, and "ab" would even pass as the shape (a, b)."""
    for name in dim_fields(cls):
        if name in raw and get_origin(cls.model_fields[name].annotation) is tuple:
            value = raw[name]
            if not isinstance(value, list):
                raise GraphError(
                    f'{where}: {name} is a JSON list of dims, such as [2, 3] or ["batch", 3]; '
                    f"got {type(value).__name__} {value!r:.60}"
                )


def _culprit(op, raw: dict, functions: list[Function]) -> str:
    """The attribute whose validator raised a plain error (which pydantic does not locate)."""
    for name, field in op.attrs.model_fields.items():
        try:
            if name in raw:
                TypeAdapter(field.rebuild_annotation()).validate_python(
                    raw[name], context={_READING: functions}
                )
        except _BAD_INPUT:
            return name
    return "attrs"


def _load_function(body: BodyModel | DocumentModel, functions: list[Function], where: str) -> Function:
    graph = _load_graph(body, FunctionGraph, functions, where)
    params = [_param(graph, i, where, "params") for i in body.params]
    captured = [_param(graph, i, where, "capture_params") for i in body.capture_params]
    listed = body.params + body.capture_params
    unlisted = [n.name for n in graph.nodes if "parameter" in n.op.traits and n.id not in listed]
    if len(set(listed)) != len(listed) or unlisted:
        raise GraphError(
            f"{where}: every parameter node must be listed once in params or capture_params"
            + (f"; not listed: {', '.join(unlisted)}" if unlisted else "; some are listed twice")
        )
    results = [_ref(graph, r, where, "result") for r in body.results]
    fn = Function(graph, params, results, name=body.name)
    # Captured outer tensors are the node's inputs once saved: keep their parameters.
    fn.capture_params = tuple(captured)
    return fn


def _param(graph: Graph, i: int, where: str, what: str):
    if not 0 <= i < len(graph.nodes) or "parameter" not in graph.nodes[i].op.traits:
        raise GraphError(f"{where}: {what} lists node {i}, which is not a parameter node of the function")
    return graph.nodes[i].output


def _function_in(value, info) -> Function:
    """A Function attribute from ``{"function": i}`` (the document's table) or a document of its own."""
    if isinstance(value, Function):
        return value
    functions = info.context.get(_READING) if isinstance(info.context, dict) else None
    if isinstance(value, dict) and set(value) == {"function"} and functions is not None:
        i = value["function"]
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(functions):
            before = f"functions 0..{len(functions) - 1}" if functions else "no functions"
            raise ValueError(f"refers to function {i!r}, but the document defines {before} before it")
        return functions[i]
    if isinstance(value, dict) and "format" in value:
        doc = _parse(value)
        return _load_function(doc, _functions(doc), f"function {doc.name!r}")
    raise ValueError(
        f"a function attribute is {{'function': <index>}} in a graph document, got {value!r:.80}"
    )


FunctionAttr = Annotated[Function, PlainValidator(_function_in), PlainSerializer(_function_out)]

# Graph.to_json and from_json call these through the operator table: graph.py does not import this module
register_overloads({"Graph.to_json": graph_to_json, "Graph.from_json": graph_from_json})
