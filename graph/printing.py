"""Readable text listings of graphs and functions, like a jaxpr (graph layer).

One line per node: ``name = op[attrs](inputs) : type``, and one line per
closed library call (calls.py): ``name = fn(inputs) : output types`` where
its last node stands, inputs being what it reads from outside and outputs
what it returned. A line that reads a closed call's output names the call
(``fc1``, or ``fc1:1`` for its second output). Calls are closed unless
``expand`` opens them: True opens every call, a list of names those calls.
Stable enough for golden tests: attributes print in declaration order,
arrays print their values when small.
"""

from __future__ import annotations

import numpy as np

from .calls import Grouping, resolve
from .dims import SymbolicSize
from .errors import GraphError

_SMALL_ARRAY = 8


def format_value(v) -> str:
    if isinstance(v, np.ndarray):
        if v.size <= _SMALL_ARRAY:
            body = np.array2string(v, separator=", ", threshold=_SMALL_ARRAY).replace("\n", "")
            return body if v.ndim else str(v.item())
        return f"<{v.dtype}{list(v.shape)}>"
    if hasattr(v, "short") and hasattr(v, "np"):  # a DType
        return v.name
    if isinstance(v, tuple):
        items = [x if isinstance(x, str) else format_value(x) for x in v]  # dims print bare
        return "(" + ", ".join(items) + ("," if len(v) == 1 else "") + ")"
    if hasattr(v, "listing_name"):  # a Function held as an attribute
        return v.listing_name
    return repr(v) if isinstance(v, str) and not isinstance(v, SymbolicSize) else str(v)  # dims print bare


def format_attrs(attrs) -> str:
    fields = [(k, getattr(attrs, k)) for k in type(attrs).model_fields]
    return ", ".join(f"{k}={format_value(v)}" for k, v in fields)


def node_line(node, ref=None) -> str:
    """``name = op[attrs](inputs) : types``; ``ref(tensor)`` names the inputs (default: their names)."""
    attrs = format_attrs(node.attrs)
    ins = ", ".join(ref(t) if ref else t.name for t in node.inputs)
    types = ", ".join(str(t) for t in node.out_types) or "()"  # an effect (a print) has no outputs
    return f"{node.name} = {node.op.name}{f'[{attrs}]' if attrs else ''}({ins}) : {types}"


def held_functions(node) -> list:
    """The Functions a node holds in its attributes (control-flow bodies, custom vjps), in order."""
    out = []
    for k in type(node.attrs).model_fields:
        v = getattr(node.attrs, k)
        for f in v if isinstance(v, tuple) else (v,):
            if hasattr(f, "listing_name") and f not in out:
                out.append(f)
    return out


def _grouping(graph, nodes, expand, strict: bool = True) -> Grouping:
    try:
        return Grouping(nodes, resolve(graph.calls, expand, strict))
    except KeyError as e:
        raise GraphError(f"{graph.name}: {e.args[0]}") from None


def _body_lines(grouping: Grouping, indent: str, expand) -> list[str]:
    """A line per visible node (the Functions it holds listed under it) or closed call."""
    lines = []
    for item in grouping.items():
        if item in grouping.members:
            lines.append(indent + grouping.call_line(item))
            continue
        lines.append(indent + node_line(item, grouping.ref))
        for fn in held_functions(item):
            body = function_listing(fn, indent, expand, strict=False)
            lines += [indent * 2 + line for line in body.split("\n")]
    return lines


def graph_listing(graph, indent: str = "  ", expand=False) -> str:
    """The listing of a Graph; ``expand`` opens library calls (True: all; or a list of names)."""
    grouping = _grouping(graph, graph.nodes, expand)
    return "\n".join([f"graph {graph.name} {{", *_body_lines(grouping, indent, expand), "}"])


def function_listing(fn, indent: str = "  ", expand=False, strict: bool = True) -> str:
    """The listing of a Function: its parameters, body (as a Graph's) and results."""
    params = ", ".join(f"{p.name}: {p.type}" for p in fn.params)
    nodes = [n for n in fn.graph.nodes if "parameter" not in n.op.traits]
    grouping = _grouping(fn.graph, nodes, expand, strict)
    results = ", ".join(grouping.ref(t) for t in fn.results)
    return "\n".join(
        [f"function {fn.name}({params}) -> ({', '.join(str(t) for t in fn.out_types)}) {{"]
        + _body_lines(grouping, indent, expand)
        + [f"{indent}return {results}", "}"]
    )
