"""Drawing Graphs and Functions with graphviz, and their inline SVG in Jupyter (viz layer).

``draw(g)`` gives a ``graphviz.Digraph``: one box per node (op name, short
attributes, output types), one edge per input, name scopes as nested
clusters, placeholders/parameters and constants styled apart. Jupyter shows
a Graph or Function as that SVG when graphviz's ``dot`` binary is installed,
and as the text listing otherwise.
"""

from __future__ import annotations

import html
import os
import shutil

import graphviz

from ..graph import Function, Graph
from ..graph.printing import format_attrs, held_functions, register_display

_ATTRS_WIDTH = 48  # characters of attributes shown in a box; the listing has them all
_INLINE_LIMIT = 400  # nodes; bigger graphs show as text in Jupyter (layout gets slow and unreadable)

_INPUT_OPS = ("placeholder", "parameter")
_CONSTANT_OPS = ("constant", "iota")
_STYLES = {
    "input": {"shape": "box", "style": "rounded,filled", "fillcolor": "#dbeafe", "color": "#1d4ed8"},
    "constant": {"shape": "box", "style": "filled", "fillcolor": "#f3f4f6", "color": "#9ca3af"},
    "op": {"shape": "box", "style": "rounded,filled", "fillcolor": "#ffffff", "color": "#374151"},
    "variable": {"shape": "box", "style": "filled", "fillcolor": "#fef3c7", "color": "#b45309"},
    "scope": {"shape": "box3d", "style": "filled", "fillcolor": "#eef2ff", "color": "#4338ca"},
    "return": {"shape": "box", "style": "rounded,filled", "fillcolor": "#dcfce7", "color": "#15803d"},
}


def draw(
    graph_or_function, path: str | os.PathLike | None = None, format: str | None = None, collapse: int = 0
) -> graphviz.Digraph:
    """A graphviz drawing of a Graph or Function; also written to ``path`` if given.

    ``format`` is any graphviz output format ("svg", "png", "pdf", ...); by
    default it is taken from the path's suffix, else "svg". Rendering needs
    the ``dot`` binary (Debian package ``graphviz``); building the Digraph
    does not. In Jupyter the returned Digraph displays itself. ``collapse=N``
    draws each name scope N levels deep as one box (its name and node count),
    which keeps a big model readable (TensorBoard's view).

        sg.draw(g, "out/model.svg")
        sg.draw(g, "out/model_scopes.svg", collapse=1)
    """
    if collapse:
        return _draw_collapsed(graph_or_function, path, format, collapse)
    obj = graph_or_function
    if isinstance(obj, Function):
        graph, results, title = obj.graph, obj.results, f"function {obj.name}"
    elif isinstance(obj, Graph):
        graph, results, title = obj, (), f"graph {obj.name}"
    else:
        raise TypeError(f"sg.draw wants a Graph or a Function, got {type(obj).__name__}")
    dot = graphviz.Digraph(
        name=graph.name,
        graph_attr={"label": title, "labelloc": "t", "fontname": "Helvetica", "rankdir": "TB"},
        node_attr={"fontname": "Helvetica", "fontsize": "10", "margin": "0.12,0.04"},
        edge_attr={"fontname": "Helvetica", "fontsize": "8", "color": "#6b7280", "arrowsize": "0.6"},
    )
    _add_scope(dot, _scope_tree(graph.nodes), "")
    for node in graph.nodes:
        for t in node.inputs:
            label = f":{t.index}" if len(t.node.outputs) > 1 else None
            dot.edge(_node_id(t.node), _node_id(node), label=label)
    if results:
        dot.node("return", label=_html_label("return", "", ""), **_STYLES["return"])
        for i, t in enumerate(results):
            label = f":{t.index}" if len(t.node.outputs) > 1 else None
            dot.edge(_node_id(t.node), "return", label=label, headlabel=str(i) if len(results) > 1 else None)
    if path is not None:
        _render(dot, path, format)
    return dot


def _draw_collapsed(graph, path, format, depth: int) -> graphviz.Digraph:
    if not isinstance(graph, Graph):
        raise TypeError(f"sg.draw(collapse=...) wants a Graph, got {type(graph).__name__}")
    dot = graphviz.Digraph(
        name=graph.name,
        graph_attr={"label": f"graph {graph.name} (scopes {depth} deep)", "labelloc": "t",
                    "fontname": "Helvetica", "rankdir": "TB"},
        node_attr={"fontname": "Helvetica", "fontsize": "10", "margin": "0.12,0.04"},
        edge_attr={"color": "#6b7280", "arrowsize": "0.6"},
    )  # fmt: skip
    box: dict = {}  # node -> the id of the box it is drawn in
    members: dict[str, list] = {}
    for node in graph.nodes:
        scopes = node.name.split("/")[:-1]
        if len(scopes) >= depth:
            box[node] = "s_" + "/".join(scopes[:depth])
            members.setdefault(box[node], []).append(node)
        else:
            box[node] = _node_id(node)
            dot.node(box[node], label=_node_label(node), tooltip=_tooltip(node), **_STYLES[_kind(node)])
    for bid, nodes in members.items():
        ops = sorted({n.op.name for n in nodes})
        title = html.escape(bid[2:])
        detail = html.escape(f"{len(nodes)} nodes: {', '.join(ops[:4])}{', ...' if len(ops) > 4 else ''}")
        label = f'<<b>{title}</b><br/><font point-size="8">{detail}</font>>'
        dot.node(bid, label=label, tooltip=title, **_STYLES["scope"])
    edges = {(box[t.node], box[node]) for node in graph.nodes for t in node.inputs}
    for a, b in sorted(edges):
        if a != b:
            dot.edge(a, b)
    if path is not None:
        _render(dot, path, format)
    return dot


def _render(dot: graphviz.Digraph, path: str | os.PathLike, format: str | None) -> None:
    fmt = format or os.path.splitext(path)[1].lstrip(".") or "svg"
    data = dot.pipe(format=fmt)
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def _scope_tree(nodes) -> dict:
    """{"nodes": [...], "children": {scope: subtree}} from the ``a/b/name`` node names."""
    root: dict = {"nodes": [], "children": {}}
    for node in nodes:
        *scopes, _ = node.name.split("/")
        tree = root
        for s in scopes:
            tree = tree["children"].setdefault(s, {"nodes": [], "children": {}})
        tree["nodes"].append(node)
    return root


def _add_scope(dot: graphviz.Digraph, tree: dict, path: str) -> None:
    for node in tree["nodes"]:
        dot.node(_node_id(node), label=_node_label(node), tooltip=_tooltip(node), **_STYLES[_kind(node)])
    for scope, sub in tree["children"].items():
        full = f"{path}/{scope}" if path else scope
        with dot.subgraph(name=f"cluster_{full}") as cluster:
            cluster.attr(label=scope, style="rounded,dashed", color="#9ca3af", fontsize="10")
            _add_scope(cluster, sub, full)


def _kind(node) -> str:
    if node.op.name in _INPUT_OPS:
        return "input"
    if node.op.name in _CONSTANT_OPS:
        return "constant"
    if node.op.name in ("variable", "seed"):
        return "variable"
    return "op"


def _node_id(node) -> str:
    return f"n{node.id}"


def _node_label(node) -> str:
    base = node.name.rsplit("/", 1)[-1]
    title = _title(base, node.op.name)
    attrs = "" if node.op.name in _INPUT_OPS else format_attrs(node.attrs)  # the type says it all
    held = held_functions(node)
    if held:  # a control-flow node is one box naming its subgraphs (print the graph for their bodies)
        attrs = "holds " + ", ".join(fn.listing_name for fn in held)
    if len(attrs) > _ATTRS_WIDTH:
        attrs = attrs[: _ATTRS_WIDTH - 1] + "…"
    types = ", ".join(str(t) for t in node.out_types)
    return _html_label(title, attrs, types)


def _title(base: str, op: str) -> str:
    """The op name, or the node's own name when the user gave one (``x: placeholder``)."""
    stem, _, suffix = base.rpartition("_")
    stem = stem if suffix.isdigit() else base
    if stem.startswith(op):
        return stem  # "tanh", or the builder's more precise "reduce_sum"
    return f"{base}: {op}"


def _html_label(title: str, attrs: str, types: str) -> str:
    rows = [f"<b>{html.escape(title)}</b>"]
    if attrs:
        rows.append(f'<font point-size="8">{html.escape(attrs)}</font>')
    if types:
        rows.append(f'<font point-size="9" color="#1f2937">{html.escape(types)}</font>')
    return "<" + "<br/>".join(rows) + ">"


def _tooltip(node) -> str:
    where = f" at {node.location}" if node.location is not None else ""
    return f"{node.name}{where}"


def svg_html(obj) -> str | None:
    """Inline SVG (plus the text listing, folded) for Jupyter; None without ``dot``."""
    if not isinstance(obj, Graph | Function) or shutil.which("dot") is None:
        return None
    graph = obj.graph if isinstance(obj, Function) else obj
    if len(graph.nodes) > _INLINE_LIMIT:
        return None
    try:
        svg = draw(obj).pipe(format="svg", encoding="utf-8")
    except (graphviz.ExecutableNotFound, graphviz.CalledProcessError):
        return None
    svg = svg[svg.find("<svg") :]  # drop the XML prolog and doctype: this goes inside HTML
    listing = html.escape(str(obj))
    return f"<div>{svg}<details><summary>listing</summary><pre>{listing}</pre></details></div>"


register_display(svg_html)
