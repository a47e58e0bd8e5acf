"""An sg.Graph as a TensorBoard GraphDef (summary layer).

TensorBoard's graph tab groups nodes by the ``/``-separated parts of their
names. A graph's node names already carry their name scopes and library
calls (``model/fc1/dot_general`` is built by the ``dense`` call ``model/fc1``),
so they are kept as they are and the tab opens on the model's scopes and
layers, closed. Bodies a node holds (control flow, custom gradients) are
added under the node's name and the attribute holding them
(``loop/body/mul``), with an edge from every outer tensor a body captures.
Attributes carry what a reader wants on a node's card: its output types
(``_output_shapes``, which also labels edges, and ``outputs``, symbolic
dims kept), the user's file:line, the library call, the forward node of a
gradient node and the op's own attributes.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from ..graph.dims import is_symbolic
from ..graph.dtypes import DType
from .events import protos

_LONG = 200  # characters of an attribute's text kept (a constant's value can be large)
_TYPE_NAMES = {"float16": "DT_HALF", "float32": "DT_FLOAT", "float64": "DT_DOUBLE", "bool": "DT_BOOL"}


def _dtype_enum(dtype: DType) -> int:
    """TensorFlow's DataType number for ``dtype`` (DT_INVALID for one it has no name for)."""
    return _dtype_enum_of(dtype.name)


@functools.cache
def _dtype_enum_of(name: str) -> int:
    data_type = protos().types.DataType
    tf_name = _TYPE_NAMES.get(name, "DT_" + name.upper())
    return data_type.Value(tf_name) if tf_name in data_type.keys() else 0


def _shape(tensor_type):
    tensor_shape_pb2 = protos().tensor_shape
    dims = [
        tensor_shape_pb2.TensorShapeProto.Dim(size=-1 if is_symbolic(d) else int(d))
        for d in tensor_type.shape
    ]
    return tensor_shape_pb2.TensorShapeProto(dim=dims)


def _text(value) -> bytes:
    """An attribute's text, cut to _LONG characters: an array summarized, a body by its signature
    (its nodes are in the GraphDef under the node), anything else as it prints."""
    if isinstance(value, np.ndarray):
        text = np.array2string(value, threshold=20)
    elif (
        hasattr(value, "listing_name")
        or isinstance(value, tuple)
        and any(hasattr(v, "listing_name") for v in value)
    ):
        text = repr(value)
    else:
        text = str(value)
    return (text if len(text) <= _LONG else text[: _LONG - 3] + "...").encode()


def _attr(value):
    """An AttrValue for one of an op's attributes: numbers, strings, dtypes and int tuples as
    themselves, anything else (arrays, Functions, nests) as its text."""
    attr_value = protos().attr_value.AttrValue
    if isinstance(value, bool):
        return attr_value(b=value)
    if isinstance(value, numbers.Integral):
        return attr_value(i=int(value))
    if isinstance(value, numbers.Real):
        return attr_value(f=float(value))
    if isinstance(value, DType):
        return attr_value(type=_dtype_enum(value))
    if isinstance(value, str):
        return attr_value(s=value.encode())
    if (
        isinstance(value, tuple)
        and value
        and all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value)
    ):
        return attr_value(list=attr_value.ListValue(i=[int(v) for v in value]))
    return attr_value(s=_text(value))


def _held(node):
    """(attribute name, Function) of each body ``node`` holds; a tuple of bodies is numbered."""
    attrs = node.attrs
    for key in type(attrs).model_fields:
        value = getattr(attrs, key)
        items = value if isinstance(value, tuple) else (value,)
        bodies = [f for f in items if hasattr(f, "listing_name") and hasattr(f, "graph")]
        for i, fn in enumerate(bodies):
            yield (key if len(bodies) == 1 else f"{key}_{i}"), fn


class _Builder:
    def __init__(self):
        self.AttrValue = protos().attr_value.AttrValue
        self.graph_def = protos().graph.GraphDef()
        self.names: dict[int, str] = {}  # id(node) -> its GraphDef name
        self.by_graph_name: dict[str, str] = {}  # graph node name -> GraphDef name (outer names first)

    def ref(self, tensor) -> str:
        name = self.names[id(tensor.node)]
        return name if tensor.index == 0 else f"{name}:{tensor.index}"

    def add(self, nodes, prefix: str = "", captured: dict | None = None) -> None:
        captured = captured or {}
        for node in nodes:
            name = prefix + node.name
            self.names[id(node)] = name
            self.by_graph_name.setdefault(node.name, name)
        for node in nodes:
            self.graph_def.node.append(self.node_def(node, captured))
        for node in nodes:
            for key, fn in _held(node):
                inner = {id(p.node): self.ref(outer) for outer, p in zip(fn.captures, fn.capture_params)
                         if id(outer.node) in self.names}  # fmt: skip
                self.add(list(fn.graph.nodes), f"{self.names[id(node)]}/{key}/", inner)

    def node_def(self, node, captured: dict):
        AttrValue = self.AttrValue
        node_def = protos().node_def.NodeDef(name=self.names[id(node)], op=node.op.name)
        node_def.input.extend(self.ref(t) for t in node.inputs)
        if id(node) in captured:
            node_def.input.append(captured[id(node)])
        attr = node_def.attr
        for key in type(node.attrs).model_fields:
            attr[key].CopyFrom(_attr(getattr(node.attrs, key)))
        attr["_output_shapes"].CopyFrom(
            AttrValue(list=AttrValue.ListValue(shape=[_shape(t) for t in node.out_types]))
        )
        attr["outputs"].CopyFrom(AttrValue(s=", ".join(str(t) for t in node.out_types).encode()))
        if len(node.out_types) == 1:
            attr["T"].CopyFrom(AttrValue(type=_dtype_enum(node.out_types[0].dtype)))
        if node.location is not None:
            attr["location"].CopyFrom(AttrValue(s=node.location.full.encode()))
        if node.derived_from is not None:  # a gradient node: the forward node it was made for
            attr["derived_from"].CopyFrom(AttrValue(s=node.derived_from.encode()))
        if node.call is not None:
            attr["call"].CopyFrom(AttrValue(s=f"{node.call.name} = {node.call.fn}(...)".encode()))
        return node_def


def graph_def(graph):
    """(GraphDef of ``graph``, {graph node name: GraphDef name}) — the names of body nodes are
    their bodies' own (how profiles name them), mapped to where the GraphDef put them."""
    builder = _Builder()
    builder.add(list(graph.nodes))
    return builder.graph_def, builder.by_graph_name
