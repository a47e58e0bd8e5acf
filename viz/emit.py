"""A View, with some groups open, as a graphviz Digraph (viz layer).

Open groups become clusters, closed ones a single box that stands in for
every node inside; edges between the boxes actually drawn are merged (one
edge per pair, labelled with the shape, or "N tensors"). With ``focus`` only
that group's contents are drawn (the explorer draws one group per panel) and
edges that cross its border end at small stub labels naming the outside node.
``href`` gives closed group boxes a link (the explorer opens its panel).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where a drawing is made: ``import stablegraph`` stays light
    import graphviz

from . import styles
from .labels import box_label, box_tooltip, cluster_label, group_label, group_tooltip

_EDGE_LABELS = 60  # boxes; past this, edge labels become xlabels, which dot places after layout (fast)
_FAST_LAYOUT = 100  # boxes; past this, fewer network-simplex rounds (dot's slowest step on big graphs)
_STUBS = 12  # outside neighbours shown per direction in a focused drawing


class Ids:
    """Dot ids; ``prefix`` keeps drawings on one HTML page apart, ``local`` one drawing's stubs and edges.

    A box or a closed group is drawn once on a page (ids from ``prefix``);
    stubs and edges repeat from drawing to drawing (ids from ``prefix + local``).
    """

    def __init__(self, prefix: str = "", local: str = ""):
        self.prefix, self.local = prefix, local

    def box(self, box) -> str:
        if isinstance(box.order, float):  # a diff's removed box, placed between two kept ones
            return f"{self.prefix}r{int(box.order)}"
        return f"{self.prefix}n{box.order}"

    def group(self, group) -> str:
        return f"{self.prefix}g{group.index}"

    def own(self, name: str) -> str:
        return f"{self.prefix}{self.local}{name}"


def to_dot(
    view, opened, focus=None, ids: Ids | None = None, href=None, title=True, heat=None
) -> graphviz.Digraph:
    """The Digraph of ``view`` with the groups in ``opened`` drawn open (``title``: label it);
    ``heat`` ({box key: share of a profile's time}) shades boxes and closed groups by it."""
    focus = focus or view.root
    ids = ids or Ids()
    count = _count(focus, opened)
    graph_attr = dict(styles.GRAPH)
    if title:
        graph_attr["label"] = focus.label if focus.parent else view.title
    if ids.prefix:
        graph_attr["id"] = ids.own("graph")
    if count > _FAST_LAYOUT:
        graph_attr.update(nslimit="2", nslimit1="2")
    import graphviz  # noqa: PLC0415

    dot = graphviz.Digraph(name="G", graph_attr=graph_attr, node_attr=styles.NODE, edge_attr=styles.EDGE)
    shown: dict[str, str] = {}  # box key -> id of the box it is drawn in
    _add_items(dot, focus, opened, ids, shown, href, styles.Heat(heat) if heat else None)
    _add_links(dot, view, shown, ids, label_key="label" if count <= _EDGE_LABELS else "xlabel")
    return dot


def heat_of(view, profile) -> dict | None:
    """{box key: the share of ``profile``'s time charged to its node}, or None without a profile."""
    if profile is None:
        return None
    return {key: profile.share_of(box.node.name) for key, box in view.boxes.items() if box.node is not None}


def _count(group, opened) -> int:
    return len(group.boxes) + sum(_count(c, opened) if c in opened else 1 for c in group.children.values())


def _add_items(dot, group, opened, ids: Ids, shown: dict, href, heat=None) -> None:
    """The group's boxes, then its children: open ones as clusters, closed ones as one box."""
    for box in group.boxes:
        shown[box.key] = ids.box(box)
        attrs = styles.box_attrs(box)
        tooltip = box_tooltip(box)
        if heat is not None:
            attrs, tooltip = heat.shade(attrs, tooltip, [box])
        dot.node(ids.box(box), label=box_label(box), tooltip=tooltip, id=ids.box(box), **attrs)
    for child in group.children.values():
        library = child.library
        status, counts = styles.status_of(child)
        if child in opened:
            with dot.subgraph(name=f"cluster_{child.path}") as cluster:
                cluster.attr(
                    label=cluster_label(child, library),
                    id=ids.group(child),
                    **styles.cluster_attrs(child, library, status),
                )
                _add_items(cluster, child, opened, ids, shown, href, heat)
            continue
        gid = ids.group(child)
        for box in child.all_boxes():
            shown[box.key] = gid
        link = {"href": href(child)} if href else {}
        attrs = styles.group_box_attrs(child, library, status)
        label = group_label(child, counts, library)
        tooltip = group_tooltip(child)
        if heat is not None:
            attrs, tooltip = heat.shade(attrs, tooltip, child.all_boxes())
        dot.node(gid, label=label, tooltip=tooltip, id=gid, **link, **attrs)


def _add_links(dot, view, shown: dict, ids: Ids, label_key: str) -> None:
    """One edge per (from, to, kind, status) among drawn boxes; stubs for the outside ends."""
    merged: dict[tuple, list[str]] = {}
    stubs: dict[str, dict[str, str]] = {"in": {}, "out": {}}
    for link in view.links:
        src, dst = shown.get(link.src), shown.get(link.dst)
        if src is None and dst is None or link.kind == "grad" and not _alone(dst, link.dst, view, ids):
            continue  # a tie into a closed group says nothing: every gradient node there has one
        if src is None:
            src = _stub(dot, stubs["in"], link.src, ids, "in")
        elif dst is None:
            dst = _stub(dot, stubs["out"], link.dst, ids, "out")
        if src != dst:
            merged.setdefault((src, dst, link.kind, link.status), []).append(link.label)
    for k, ((src, dst, kind, status), labels) in enumerate(merged.items()):
        attrs = styles.link_attrs(kind, status)
        if ids.prefix:
            attrs["id"] = ids.own(f"e{k}")
        text = labels[0] if len(set(labels)) == 1 else f"{len(labels)} tensors"
        if text:
            attrs[label_key] = text
        dot.edge(src, dst, **attrs)


def _alone(shown_id, key: str, view, ids: Ids) -> bool:
    """Whether box ``key`` is drawn as its own box (not closed into a group, nor outside)."""
    return shown_id is not None and shown_id == ids.box(view.boxes[key])


def _stub(dot, seen: dict, key: str, ids: Ids, side: str) -> str:
    """A small label for a node outside the focused group; past ``_STUBS`` they share one."""
    if key in seen:
        return seen[key]
    if len(seen) >= _STUBS:
        sid = ids.own(f"{side}_more")
        if sid not in seen.values():
            dot.node(sid, label="(more)", **styles.STUB)
        seen[key] = sid
        return sid
    sid = seen[key] = ids.own(f"{side}{len(seen)}")
    dot.node(sid, label=key, tooltip=("from " if side == "in" else "to ") + key, **styles.STUB)
    return sid
