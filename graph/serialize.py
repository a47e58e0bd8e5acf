"""JSON round trip of graphs through pydantic models (graph layer). Never pickle."""

from __future__ import annotations

from pydantic import BaseModel

from .errors import GraphError
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


def graph_to_json(graph: Graph, indent: int | None = None) -> str:
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
    return GraphModel(name=graph.name, nodes=nodes).model_dump_json(indent=indent)


def graph_from_json(text: str) -> Graph:
    model = GraphModel.model_validate_json(text)
    if model.format != FORMAT:
        raise GraphError(f"unknown graph format {model.format!r}, expected {FORMAT!r}")
    graph = Graph(model.name)
    for nm in model.nodes:
        op = lookup(nm.op)
        inputs = [graph.node(name).outputs[i] for name, i in nm.inputs]
        loc = SourceLocation(nm.location.file, nm.location.line) if nm.location else None
        node = graph.add_node(op, inputs, op.attrs.model_validate(nm.attrs), name=nm.name, location=loc)
        if node.name != nm.name:
            raise GraphError(f"node name {nm.name!r} appears twice in the JSON graph")
    return graph
