"""How things look (viz layer): graphviz attributes for boxes, groups, clusters and edges.

Every drawn element also gets an SVG ``class`` (``sg-input``, ``sg-grad``,
``sg-collapsed``, ``sg-added``...), so tests, stylesheets and the explorer can
find elements by meaning rather than by colour.

Library groups: the nodes of one library call (graph/calls.py: an
``sg.nn.dense``, a loss, ``adam.minimize``) are drawn apart: a solid purple
cluster when open, a purple 3-D box when closed (the default), the function's
name in the label, class ``sg-library``.
"""

from __future__ import annotations

from collections import Counter

_BOXES = {
    "input": {"shape": "box", "style": "rounded,filled", "fillcolor": "#dbeafe", "color": "#1d4ed8"},
    "constant": {"shape": "box", "style": "filled", "fillcolor": "#f3f4f6", "color": "#9ca3af"},
    "variable": {"shape": "box", "style": "filled", "fillcolor": "#fef3c7", "color": "#b45309"},
    "control": {"shape": "box", "style": "rounded,filled", "fillcolor": "#e0f2fe", "color": "#0369a1"},
    "op": {"shape": "box", "style": "rounded,filled", "fillcolor": "#ffffff", "color": "#374151"},
    "return": {"shape": "box", "style": "rounded,filled", "fillcolor": "#ecfdf5", "color": "#047857"},
}
_GRAD = {"fillcolor": "#ffedd5", "color": "#c2410c"}  # gradient nodes: orange
_FETCH = {"peripheries": "2", "penwidth": "1.6"}
# a diff: added green, removed red (dashed), kept grey
_STATUS = {
    "added": {"fillcolor": "#bbf7d0", "color": "#15803d", "penwidth": "1.8"},
    "removed": {"fillcolor": "#fecaca", "color": "#b91c1c", "penwidth": "1.8", "fontcolor": "#7f1d1d"},
    "changed": {"fillcolor": "#fef9c3", "color": "#a16207", "penwidth": "1.8"},
    "kept": {"fillcolor": "#f9fafb", "color": "#9ca3af"},
}
STATUS_COLORS = {k: v["color"] for k, v in _STATUS.items()}

_GROUP_BOXES = {
    "scope": {"fillcolor": "#eef2ff", "color": "#4338ca"},
    "library": {"fillcolor": "#f3e8ff", "color": "#7e22ce"},
    "body": {"fillcolor": "#e0f2fe", "color": "#0369a1"},
    "chunk": {"fillcolor": "#f3f4f6", "color": "#4b5563"},
}
_CLUSTERS = {
    "scope": {"style": "rounded,dashed", "color": "#9ca3af"},
    "library": {"style": "rounded,filled", "color": "#7e22ce", "fillcolor": "#faf5ff"},
    "body": {"style": "rounded,filled", "color": "#0369a1", "fillcolor": "#f0f9ff"},
    "chunk": {"style": "rounded,dotted", "color": "#6b7280"},
}
_LINKS = {
    "data": {"color": "#6b7280"},
    "grad": {"color": "#f97316", "style": "dashed", "arrowhead": "empty", "constraint": "false"},
    "body": {"color": "#0369a1", "style": "dotted", "arrowhead": "odot"},
}


def box_attrs(box) -> dict:
    """Shape, colours and SVG class of a node's box."""
    attrs = dict(_BOXES[box.kind])
    classes = [f"sg-{box.kind}"]
    if box.origin is not None:
        attrs.update(_GRAD)
        classes.append("sg-grad")
    if box.fetch:
        attrs.update(_FETCH)
        classes.append("sg-fetch")
    if box.status is not None:
        attrs.update(_STATUS[box.status])
        classes.append(f"sg-{box.status}")
        if box.status == "removed":
            attrs["style"] += ",dashed"
    attrs["class"] = " ".join(classes)
    return attrs


def status_of(group) -> tuple[str | None, Counter]:
    """A group's diff status (added, removed, changed or kept; None outside a diff) and its counts."""
    counts = Counter(b.status for b in group.all_boxes())
    if None in counts:
        return None, counts
    if set(counts) == {"added"} or set(counts) == {"removed"}:
        return next(iter(counts)), counts
    return ("changed" if counts["added"] or counts["removed"] else "kept"), counts


def group_box_attrs(group, library: str | None, status: str | None) -> dict:
    """A closed group: a 3-D box, coloured by kind (or by diff status)."""
    look = "library" if library else group.kind
    attrs = {"shape": "box3d", "style": "filled", **_GROUP_BOXES[look]}
    classes = ["sg-collapsed", f"sg-{look}"]
    if status is not None:
        attrs.update(_STATUS[status])
        classes.append(f"sg-{status}")
    attrs["class"] = " ".join(classes)
    return attrs


def cluster_attrs(group, library: str | None, status: str | None) -> dict:
    """An open group: a cluster around its members, outlined by kind."""
    look = "library" if library else group.kind
    attrs = {"fontsize": "10", "fontname": "Helvetica", **_CLUSTERS[look]}
    classes = ["sg-cluster", f"sg-{look}"]
    if status in ("added", "removed"):
        attrs["color"] = _STATUS[status]["color"]
        classes.append(f"sg-{status}")
    attrs["class"] = " ".join(classes)
    return attrs


def link_attrs(kind: str, status: str | None) -> dict:
    attrs = dict(_LINKS[kind])
    classes = [f"sg-{kind}"]
    if status in ("added", "removed"):
        attrs.update(color=_STATUS[status]["color"], penwidth="1.6")
        if status == "removed":
            attrs["style"] = "dashed"
    if status is not None:
        classes.append(f"sg-{status}")
    attrs["class"] = " ".join(classes)
    return attrs


GRAPH = {"fontname": "Helvetica", "labelloc": "t", "rankdir": "TB"}
NODE = {"fontname": "Helvetica", "fontsize": "10", "margin": "0.12,0.04"}
EDGE = {"fontname": "Helvetica", "fontsize": "8", "arrowsize": "0.6", "fontcolor": "#4b5563"}
STUB = {"shape": "plaintext", "fontsize": "8", "fontcolor": "#6b7280", "class": "sg-stub"}


def legend() -> list[tuple[str, str, str]]:
    """(what, fill, border) for each kind of box, for a legend beside a drawing."""
    rows = [(k, v["fillcolor"], v["color"]) for k, v in _BOXES.items() if k != "return"]
    rows.append(("gradient", _GRAD["fillcolor"], _GRAD["color"]))
    rows += [(f"{k} (closed)", v["fillcolor"], v["color"]) for k, v in _GROUP_BOXES.items()]
    return rows


class Heat:
    """Shades boxes by their share of a profile's time: white for none, deep red for the box (or
    closed group, its boxes summed) with the largest share; the share goes in the tooltip."""

    def __init__(self, shares: dict):
        self.shares = shares
        self.top = max(shares.values(), default=0.0) or 1.0

    def shade(self, attrs: dict, tooltip: str, boxes) -> tuple[dict, str]:
        share = sum(self.shares.get(b.key, 0.0) for b in boxes)
        level = min(share / self.top, 1.0)
        fade = round(255 * (1 - 0.8 * level))
        attrs = {**attrs, "style": "filled" + (",rounded" if "rounded" in attrs.get("style", "") else ""),
                 "fillcolor": f"#ff{fade:02x}{fade:02x}"}  # fmt: skip
        return attrs, f"{tooltip}\n{share:.1%} of the profiled time"
