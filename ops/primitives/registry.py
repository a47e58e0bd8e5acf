"""Adding primitive applications to the graph being built (ops layer).

``bind(op, *inputs, **attrs)`` validates the attributes with the op's
pydantic model, appends a node to the current graph and returns its output
Tensor (or the tuple of outputs for multi-output ops). The OpDef table
itself lives in graph.opdef so that a graph can be read back from JSON.
"""

from __future__ import annotations

from pydantic import ValidationError

from ...graph import GraphError, OpDef, Tensor, all_ops, current_graph, located, lookup, user_location

__all__ = ["bind", "bind_node", "all_ops", "lookup", "OpDef"]


def bind_node(op: OpDef, inputs, attrs=None, name: str | None = None, **kwargs):
    """Append one application of ``op``; returns the Node."""
    if attrs is None:
        try:
            attrs = op.attrs(**kwargs)
        except ValidationError as e:
            raise GraphError(
                located(f"{op.name}: bad attributes: {_first_error(e)}", user_location())
            ) from None
    for t in inputs:
        if not isinstance(t, Tensor):
            raise GraphError(
                located(f"{op.name} wants Tensor inputs, got {type(t).__name__}", user_location())
            )
    return current_graph().add_node(op, inputs, attrs, name=name)


def bind(op: OpDef, *inputs, name: str | None = None, **kwargs):
    """Append one application of ``op``; returns its Tensor (or tuple of Tensors)."""
    node = bind_node(op, inputs, name=name, **kwargs)
    return node.outputs[0] if len(node.outputs) == 1 else node.outputs


def _first_error(e: ValidationError) -> str:
    err = e.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ()))
    return f"{where}: {err.get('msg')}" if where else str(err.get("msg"))
