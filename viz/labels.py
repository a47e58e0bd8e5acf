"""The words on a drawing (viz layer): box labels, tooltips, group and edge labels.

Box labels are graphviz HTML-like labels: the op (or the user's name for
the node), short attributes, and the output types. Tooltips carry the full
node name, its type and the user's file:line, which is what a reader hovers
for. Everything here is plain text from the IR; styles live in styles.py.
"""

from __future__ import annotations

import html
from collections import Counter

from ..graph.location import portable_file
from ..graph.printing import format_attrs, held_functions

ATTRS_WIDTH = 48  # characters of attributes shown in a box; the listing has them all
_INPUTS = frozenset({"feed", "parameter"})  # traits of the inputs: their type says it all


def edge_label(t) -> str:
    """A tensor's shape as an edge reads it: ``[batch,3]``, with ``:i`` for one of several outputs."""
    shape = "[" + ",".join(str(d) for d in t.type.shape) + "]"
    return f":{t.index} {shape}" if len(t.node.out_types) > 1 else shape


def where(node) -> str:
    """The user's file:line that built the node (relative to the working directory), or ''."""
    loc = node.location
    return f"{portable_file(loc.file)}:{loc.line}" if loc is not None else ""


def box_label(box) -> str:
    """The HTML-like label of a node's box: title, short attributes, output types."""
    if box.node is None:
        return _html_label("return", "", "")
    node = box.node
    title = _title(node.name.rsplit("/", 1)[-1], node.op.name)
    attrs = "" if _INPUTS & node.op.traits else format_attrs(node.attrs)
    held = held_functions(node)
    if held:  # the bodies are drawn beside the node; the box names them
        attrs = "holds " + ", ".join(fn.listing_name for fn in held)
    if len(attrs) > ATTRS_WIDTH:
        attrs = attrs[: ATTRS_WIDTH - 1] + "…"
    types = ", ".join(str(t) for t in node.out_types)
    return _html_label(title, attrs, types)


def box_tooltip(box) -> str:
    """Name, op and types, the user's file:line, and the forward node of a gradient node."""
    if box.node is None:
        return "return = the results, in order"
    node = box.node
    lines = [f"{box.key} = {node.op.name} : {', '.join(str(t) for t in node.out_types)}"]
    if where(node):
        lines.append(f"built at {where(node)}")
    if box.origin is not None:
        lines.append(f"gradient of {box.origin}")
    if box.status is not None:
        lines.append(box.status)
    return "\n".join(lines)


def group_label(group, counts: Counter, library: str | None) -> str:
    """A closed group's box: its name, node count and commonest ops (and diff counts)."""
    boxes = [b for b in group.all_boxes() if b.node is not None]
    ops = Counter(b.node.op.name for b in boxes)
    common = ", ".join(op for op, _ in ops.most_common(3)) + (", …" if len(ops) > 3 else "")
    rows = [f"<b>{html.escape(group.label)}</b>"]
    if library and library != group.label:  # "fc1" says "dense", "relu" needs not say "relu"
        rows.append(f'<font point-size="8">{html.escape(library)}</font>')
    rows.append(f'<font point-size="8">{len(boxes)} nodes: {html.escape(common)}</font>')
    if counts["added"] or counts["removed"]:
        rows.append(f'<font point-size="9">+{counts["added"]} −{counts["removed"]}</font>')
    return "<" + "<br/>".join(rows) + ">"


def group_tooltip(group) -> str:
    boxes = [b for b in group.all_boxes() if b.node is not None]
    first = next((where(b.node) for b in boxes if where(b.node)), "")
    lines = [f"{group.path} ({group.kind}): {len(boxes)} nodes"]
    if first:
        lines.append(f"first built at {first}")
    return "\n".join(lines)


def cluster_label(group, library: str | None) -> str:
    return f"{group.label} ({library})" if library and library != group.label else group.label


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
