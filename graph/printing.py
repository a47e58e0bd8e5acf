"""Readable text listings of graphs and functions, like a jaxpr (graph layer).

One line per node: ``name = op[attrs](inputs) : type``. Stable enough for
golden tests: attributes print in declaration order, arrays print their
values when small.
"""

from __future__ import annotations

import html

import numpy as np

from .dims import SymbolicSize

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


def node_line(node) -> str:
    attrs = format_attrs(node.attrs)
    ins = ", ".join(t.name for t in node.inputs)
    types = ", ".join(str(t) for t in node.out_types)
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


def _node_lines(node, indent: str) -> list[str]:
    """The node's line, then the listings of the Functions it holds, indented under it."""
    lines = [indent + node_line(node)]
    for fn in held_functions(node):
        lines += [indent * 2 + line for line in function_listing(fn, indent).split("\n")]
    return lines


def graph_listing(graph, indent: str = "  ") -> str:
    lines = [f"graph {graph.name} {{"]
    lines += [line for n in graph.nodes for line in _node_lines(n, indent)]
    lines.append("}")
    return "\n".join(lines)


def function_listing(fn, indent: str = "  ") -> str:
    params = ", ".join(f"{p.name}: {p.type}" for p in fn.params)
    body = [line for n in fn.graph.nodes if n.op.name != "parameter" for line in _node_lines(n, indent)]
    results = ", ".join(t.name for t in fn.results)
    return "\n".join(
        [f"function {fn.name}({params}) -> ({', '.join(str(t) for t in fn.out_types)}) {{"]
        + body
        + [f"{indent}return {results}", "}"]
    )


_display_hooks: list = []


def register_display(hook) -> None:
    """Let a higher layer (viz) render graphs in Jupyter; hook(graph) -> html or None."""
    _display_hooks.append(hook)


def display_html(obj) -> str:
    for hook in reversed(_display_hooks):
        out = hook(obj)
        if out is not None:
            return out
    return f"<pre>{html.escape(str(obj))}</pre>"


def display_bundle(obj) -> dict:
    """Jupyter's ``_repr_mimebundle_`` of a Graph, Function or Tensor: its repr and display_html."""
    return {"text/plain": repr(obj), "text/html": display_html(obj)}
