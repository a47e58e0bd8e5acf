"""Node: one application of a primitive inside a Graph (graph layer)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import Unpicklable
from .tensor import Tensor

if TYPE_CHECKING:
    from .location import SourceLocation
    from .opdef import Attrs, OpDef
    from .types import TensorType


class Node(Unpicklable):
    """An op applied to input Tensors, with its output types, name and source line.

    Nodes are immutable once built; ``outputs`` holds the one Tensor object
    per output. ``derived_from`` names the node a transform made this one
    for (a gradient node's forward node), or is None. ``call`` is the
    innermost library call (graph/calls.py) that built it, or None.
    """

    __slots__ = (
        "op",
        "attrs",
        "inputs",
        "out_types",
        "name",
        "location",
        "graph",
        "outputs",
        "id",
        "derived_from",
        "call",
    )

    def __init__(self, op: OpDef, attrs: Attrs, inputs, out_types, name, location, graph, id_):
        self.op = op
        self.attrs = attrs
        self.inputs: tuple[Tensor, ...] = tuple(inputs)
        self.out_types: tuple[TensorType, ...] = tuple(out_types)
        self.name: str = name
        self.location: SourceLocation | None = location
        self.graph = graph
        self.id = id_
        self.derived_from: str | None = None  # the node a transform derived this one from (its name)
        self.call = None  # the innermost library call that built it (a graph.calls.Call)
        cls = op.tensor_class or Tensor
        self.outputs = tuple(cls(self, i) for i in range(len(self.out_types)))

    _pickle_advice = "save its graph with g.to_json()"

    def __copy__(self):
        return self  # immutable: a copy would be the same node

    def __deepcopy__(self, memo):
        return self

    @property
    def output(self) -> Tensor:
        """The single output (for one-output nodes)."""
        (out,) = self.outputs
        return out

    def __repr__(self) -> str:
        return f"<Node {self.name} = {self.op.name}>"
