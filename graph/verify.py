"""verify: re-check a graph's invariants after a transform (graph layer).

Every node's inputs come from earlier nodes of the same graph, its output
types are what its op infers again from its inputs and attributes, and names
are unique; a Function's parameters and results belong to its graph. Passes
keep these by construction; tests call ``verify`` after every pass to prove it.
"""

from __future__ import annotations

from .errors import GraphError, located
from .function import Function
from .graph import Graph
from .types import TensorType


def verify(obj: Graph | Function) -> None:
    """Raise GraphError at the first node that breaks an invariant."""
    graph = obj.graph if isinstance(obj, Function) else obj
    seen: set = set()
    names: set[str] = set()
    for node in graph.nodes:
        _check_node(node, graph, seen, names)
        seen.add(node)
        names.add(node.name)
    if isinstance(obj, Function):
        for what, tensors in (("parameter", obj.params + obj.capture_params), ("result", obj.results)):
            for t in tensors:
                if t.node not in seen:
                    raise GraphError(f"verify: {what} {t.name} of function {obj.name} is not in its graph")
        for p in obj.params + obj.capture_params:
            if "parameter" not in p.node.op.traits:
                raise GraphError(
                    f"verify: parameter {p.name} of function {obj.name} is a {p.node.op.name} node"
                )


def _check_node(node, graph, seen: set, names: set) -> None:
    def fail(message: str):
        raise GraphError(located(f"verify: {message}", node.location, node.name))

    if node.name in names:
        fail(f"the name {node.name} is used twice")
    if node.graph is not graph:
        fail(f"node {node.name} says it belongs to graph {node.graph.name!r}")
    for t in node.inputs:
        if t.node not in seen:
            fail(f"input {t.name} of {node.name} is not an earlier node of graph {graph.name!r}")
    try:
        out = node.op.infer(node.attrs, *(t.type for t in node.inputs))
    except GraphError as e:
        fail(f"{node.op.name} no longer accepts its inputs: {e}")
    out_types = (out,) if isinstance(out, TensorType) else tuple(out)
    if out_types != node.out_types:
        have = ", ".join(str(t) for t in node.out_types)
        want = ", ".join(str(t) for t in out_types)
        fail(f"{node.name} has type {have} but {node.op.name} infers {want}")
