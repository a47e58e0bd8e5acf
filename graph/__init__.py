"""The IR: dtypes, dims, types, nodes, tensors, graphs, functions (bottom layer).

Imports nothing else of stablegraph and no jaxlib.
"""

from . import dtypes
from .attrs import ArrayAttr, DTypeAttr, ShapeAttr
from .calls import Call
from .dims import Dim
from .dtypes import DType, promote_types, result_type
from .errors import (
    CheckpointError,
    CompileError,
    ExecutionError,
    FeedError,
    GraphError,
    StablegraphError,
    located,
)
from .function import Function, extract, function, inline
from .graph import Graph, building, current_graph, emitting_for, library_call, name_scope
from .library import library
from .location import SourceLocation, user_location
from .node import Node
from .opdef import (
    BILINEAR,
    BROADCAST,
    CONSTANT,
    EFFECT,
    ELEMENTWISE,
    FEED,
    FOREIGN_CALL,
    GROUP,
    HOST_CALLBACK,
    LAYOUT,
    LINEAR,
    MOVES_DATA,
    PARAMETER,
    READS_STATE,
    SEED,
    STATEFUL,
    WRITES_VARIABLE,
    ZERO_DERIVATIVE,
    Attrs,
    NoAttrs,
    OpDef,
    all_ops,
    lookup,
)
from .overloads import register_overloads
from .serialize import FunctionAttr
from .structural import parameter_op, placeholder, placeholder_op
from .tensor import Tensor
from .tree import describe, flatten, leaf_paths, unflatten
from .types import TensorType
from .verify import verify

__all__ = [
    "ArrayAttr", "Attrs", "BILINEAR", "BROADCAST", "CONSTANT", "EFFECT", "ELEMENTWISE", "FEED", "FOREIGN_CALL", "GROUP", "HOST_CALLBACK", "LAYOUT", "LINEAR", "MOVES_DATA", "PARAMETER", "READS_STATE", "SEED", "STATEFUL", "WRITES_VARIABLE", "ZERO_DERIVATIVE", "Call", "CheckpointError", "CompileError", "DType", "DTypeAttr", "Dim", "ExecutionError",
    "FeedError", "Function", "FunctionAttr", "Graph", "GraphError", "NoAttrs", "Node", "OpDef", "ShapeAttr",
    "SourceLocation", "StablegraphError", "Tensor", "TensorType", "all_ops", "building",
    "current_graph", "describe", "dtypes", "emitting_for", "extract", "flatten", "function", "inline",
    "leaf_paths", "library", "library_call", "located", "lookup",
    "name_scope", "parameter_op", "placeholder", "placeholder_op", "promote_types",
    "register_overloads", "result_type", "unflatten", "user_location", "verify",
]  # fmt: skip
