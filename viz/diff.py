"""``sg.viz.diff``: one drawing of what a transform added, removed and kept (viz layer).

Nodes of the two graphs are matched by name and op: a match is kept (grey),
a node only in ``after`` was added (green), a node only in ``before`` was
removed (red, dashed, drawn where it was). Edges are matched by their ends
the same way. A closed group shows its counts ("+3 −2") and is coloured
added, removed, or changed (amber) when it holds both kinds.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where a drawing is made: ``import stablegraph`` stays light
    import graphviz

from .collapse import plan
from .draw import render
from .emit import to_dot
from .styles import STATUS_COLORS
from .view import Box, Link, View, build_view


def diff(
    before,
    after,
    path: str | os.PathLike | None = None,
    format: str | None = None,
    *,
    collapse="auto",
    expand=(),
) -> graphviz.Digraph:
    """A drawing of ``after`` with what differs from ``before`` coloured; written to ``path`` if given.

    ``before`` and ``after`` are Graphs, Functions or Tensors (anything
    ``sg.draw`` takes); ``collapse`` and ``expand`` work as in ``sg.draw``.

        sg.viz.diff(f, sg.simplify(f), "out/simplify.svg")
    """
    view = diff_view(build_view(before), build_view(after))
    dot = to_dot(view, plan(view, collapse, expand))
    if path is not None:
        render(dot, path, format)
    return dot


def diff_view(before: View, after: View) -> View:
    """``after``'s View with every box and link marked, and ``before``'s leftovers added as removed."""
    view = after
    renamed: dict[str, str] = {}  # before's key -> its key in the merged view
    for key, old in before.boxes.items():
        new = view.boxes.get(key)
        if new is not None and _op(new) == _op(old):
            new.status = "kept"
            new.origin = new.origin or old.origin  # a rebuilt gradient node is still one
            continue
        renamed[key] = key if new is None else f"{key} (before)"  # same name, another op: both drawn
        _add_removed(view, old, renamed[key])
    for box in view.boxes.values():
        if box.status is None:
            box.status = "added"
    _mark_links(view, before, renamed)
    legend = " · ".join(f'<font color="{STATUS_COLORS[s]}">{s}</font>' for s in ("added", "removed", "kept"))
    view.title = f"<<b>diff</b>: {_esc(before.title)} → {_esc(after.title)}<br/>{legend}>"
    return view


def _add_removed(view: View, old: Box, key: str) -> None:
    """Copy a box of ``before`` into the merged view, in the group at the same path."""
    group = view.root
    for g in _ancestry(old.group):
        group = view.child(group, g.path.rsplit("/", 1)[-1], kind=g.kind, label=g.label, key=g.key)
        group.library = g.library
    # order + 0.5: drawn near its old place, and its dot id cannot clash with a kept box's
    box = Box(key, old.node, old.kind, old.order + 0.5, fetch=old.fetch, origin=old.origin)
    box.status, box.group = "removed", group
    group.boxes.append(box)
    view.boxes[key] = box


def _ancestry(group) -> list:
    """The groups from the top level down to ``group`` (the root left out)."""
    chain = []
    while group is not None and group.parent is not None:
        chain.append(group)
        group = group.parent
    return chain[::-1]


def _mark_links(view: View, before: View, renamed: dict) -> None:
    """Links of ``after`` become kept or added; links only in ``before`` come back as removed."""
    old = {(x.src, x.dst, x.kind): x for x in before.links}
    marked = []
    for x in view.links:
        ends_kept = view.boxes[x.src].status == view.boxes[x.dst].status == "kept"
        status = "kept" if ends_kept and (x.src, x.dst, x.kind) in old else "added"
        marked.append(Link(x.src, x.dst, x.label, x.kind, status))
    new = {(x.src, x.dst, x.kind) for x in marked if x.status == "kept"}
    for (src, dst, kind), x in old.items():
        if (src, dst, kind) not in new:
            marked.append(Link(renamed.get(src, src), renamed.get(dst, dst), x.label, kind, "removed"))
    view.links = marked


def _op(box: Box) -> str:
    return box.node.op.name if box.node is not None else "return"


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
