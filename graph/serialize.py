"""JSON round trip of graphs and functions through pydantic models (graph layer). Never pickle."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, PlainSerializer, PlainValidator

from .errors import GraphError
from .function import Function, FunctionGraph
from .graph import Graph
from .location import SourceLocation
from .opdef import lookup

FORMAT = "stablegraph.graph/1"


class LocationModel(BaseModel):
    file: str
    line: int


class NodeModel(BaseModel):
    name: str
    op: str
    attrs: dict
    inputs: list[tuple[str, int]]
    location: LocationModel | None = None


class GraphModel(BaseModel):
    format: str = FORMAT
    name: str
    nodes: list[NodeModel]


def _graph_model(graph: Graph) -> GraphModel:
    nodes = [
        NodeModel(
            name=n.name,
            op=n.op.name,
            attrs=n.attrs.model_dump(mode="json"),
            inputs=[(t.node.name, t.index) for t in n.inputs],
            location=LocationModel(file=n.location.file, line=n.location.line) if n.location else None,
        )
        for n in graph.nodes
    ]
    return GraphModel(name=graph.name, nodes=nodes)


def graph_to_json(graph: Graph, indent: int | None = None) -> str:
    return _graph_model(graph).model_dump_json(indent=indent)


def graph_from_json(text: str) -> Graph:
    return _graph_from_model(GraphModel.model_validate_json(text), Graph)


def _graph_from_model(model: GraphModel, cls) -> Graph:
    if model.format != FORMAT:
        raise GraphError(f"unknown graph format {model.format!r}, expected {FORMAT!r}")
    graph = cls(model.name)
    for nm in model.nodes:
        op = lookup(nm.op)
        inputs = [graph.node(name).outputs[i] for name, i in nm.inputs]
        loc = SourceLocation(nm.location.file, nm.location.line) if nm.location else None
        node = graph.add_node(op, inputs, op.attrs.model_validate(nm.attrs), name=nm.name, location=loc)
        if node.name != nm.name:
            raise GraphError(f"node name {nm.name!r} appears twice in the JSON graph")
    return graph


class FunctionModel(BaseModel):
    """A Function held as an op attribute: its graph, which nodes are its
    parameters (declared ones, then captures) and which tensors its results."""

    graph: GraphModel
    params: list[str]
    capture_params: list[str]
    results: list[tuple[str, int]]


def _function_out(fn) -> dict:
    return FunctionModel(
        graph=_graph_model(fn.graph),
        params=[p.node.name for p in fn.params],
        capture_params=[p.node.name for p in fn.capture_params],
        results=[(r.node.name, r.index) for r in fn.results],
    ).model_dump(mode="json")


def _function_in(value):
    if isinstance(value, Function):
        return value
    model = FunctionModel.model_validate(value)
    graph = _graph_from_model(model.graph, FunctionGraph)
    params = [graph.node(n).output for n in model.params]
    captured = {graph.node(n).output: graph.node(n).output for n in model.capture_params}
    results = [graph.node(n).outputs[i] for n, i in model.results]
    fn = Function(graph, params, results, name=model.graph.name)
    # Captured outer tensors are the node's inputs once saved: keep their parameters.
    fn.capture_params = tuple(captured)
    return fn


FunctionAttr = Annotated[Function, PlainValidator(_function_in), PlainSerializer(_function_out)]
