"""The interactive explorer Jupyter shows for a Graph, Function or Tensor (viz layer).

The explorer is one block of HTML: a panel per group (name scope,
control-flow body, chunk of a crowded group), each holding a small SVG that
``dot`` drew of that group alone, with its child groups closed. A closed
group's box links to its panel; explorer.js (inlined, with explorer.css: no
network, no libraries) opens and closes panels on click and shows a box's
tooltip (name, type, the user's file:line) on hover. Being plain HTML with an
inline script, it also works in a notebook exported by nbconvert. Drawing
one group per panel keeps every layout small, so ``dot`` stays fast.
"""

from __future__ import annotations

import html
import re
import uuid
from pathlib import Path

from ..graph import Function, Graph
from ..graph.printing import node_line
from . import styles
from .collapse import auto_depth, chunk_crowded, closed_libraries, plan
from .emit import Ids, heat_of, to_dot
from .view import build_view

MAX_NODES = 1500  # past this the explorer shows one drawing, scopes closed (about 1.5 kB of page per node)
PANEL_ITEMS = 100  # boxes in one panel; a more crowded group is chunked
LISTING_LINES = 2000  # of the folded text listing; print(g) has them all
START_BOXES = 40  # groups start open while all the open panels show at most this many boxes
_HERE = Path(__file__).parent
_NOISE = re.compile(r"<!--.*?-->\n?|<title>[^<]*</title>\n?", re.S)
_HINT = "hover a box for its type and source line; click a 3-D box to open its group, a heading to close it"


def explorer_html(obj, max_nodes: int = MAX_NODES, profile=None) -> str:
    """The explorer of a Graph, Function, Tensor or list of Tensors, as HTML (needs ``dot``);
    ``profile`` (what ``sess.profile`` gave) shades its boxes by their share of the time.

        IPython.display.HTML(sg.viz.explorer_html(g, profile=prof))
    """
    view = build_view(obj)
    heat = heat_of(view, profile)
    uid = f"sgx-{uuid.uuid4().hex[:10]}"
    if len(view.boxes) <= max_nodes:
        body = _panels(view, uid, heat)
    else:
        body = _overview(view, len(view.boxes), heat)
    return _page(uid, body, _listing(obj))


def _panels(view, uid: str, heat=None) -> str:
    """Every group's panel, nested as the groups are, with its SVG drawn by one ``dot`` run.

    A small graph starts with its panels open, library calls closed; a bigger
    one with the deeper groups closed too (as ``collapse="auto"`` would draw
    it, on a smaller budget).
    """
    start = auto_depth(view.root, START_BOXES, closed_libraries)
    for group in list(view.root.walk()):
        chunk_crowded(view, group, PANEL_ITEMS)
    groups = list(view.root.walk())

    def href(child) -> str:
        return f"#{uid}-p{child.index}"

    sources = [
        to_dot(view, {g}, g, Ids(f"{uid}-", f"p{g.index}-"), href, title=False, heat=heat).source
        for g in groups
    ]
    svgs = dict(zip(groups, _render(sources)))
    return _panel(view.root, svgs, uid, start)


def _render(sources: list[str]) -> list[str]:
    """The SVGs of several DOT graphs from one ``dot`` process (it lays out each graph in turn)."""
    import graphviz  # noqa: PLC0415  (only a drawing needs it: ``import stablegraph`` stays light)

    out = graphviz.pipe("dot", "svg", "\n".join(sources).encode()).decode()
    svgs = out.split("<?xml")[1:]
    if len(svgs) != len(sources):  # never seen; one run per graph is slower but sure
        svgs = [graphviz.pipe("dot", "svg", s.encode()).decode() for s in sources]
    return [_compact(s) for s in svgs]


def _compact(svg: str) -> str:
    """An SVG for inlining: no XML prolog, comments or titles (tooltips stay); fonts set by the CSS."""
    svg = _NOISE.sub("", svg[svg.find("<svg") :])
    return svg.replace(' font-family="Helvetica,sans-Serif"', "").replace("&#45;", "-")


def _panel(group, svgs: dict, uid: str, start) -> str:
    """A group's panel: heading, drawing, then its children's panels (hidden below depth ``start``)."""
    kids = "".join(_panel(c, svgs, uid, start) for c in group.children.values())
    n = sum(1 for b in group.all_boxes() if b.node is not None)
    meta = f"{group.kind if group.parent else 'all'}, {n} nodes"
    closable = group.parent is not None
    attrs = f'id="{uid}-p{group.index}" data-path="{html.escape(group.path)}"'
    cls = "sgx-panel sgx-closable" if closable else "sgx-panel sgx-root"
    title = group.path if closable else group.label
    hidden = " hidden" if group.kind in ("chunk", "library") or group.depth >= start else ""
    return (
        f'<div class="{cls}" {attrs}{hidden}>'
        f'<div class="sgx-head">{html.escape(title)}<span class="sgx-meta">{meta}</span></div>'
        f'<div class="sgx-svg">{svgs[group]}</div><div class="sgx-kids">{kids}</div></div>'
    )


def _overview(view, n: int, heat=None) -> str:
    """A too-big graph: one drawing with its scopes closed, and how to see inside."""
    svg = to_dot(view, plan(view, "auto"), heat=heat).pipe(format="svg", encoding="utf-8")
    note = (
        f"{n} nodes: more than the explorer draws, so groups are closed here; "
        'sg.draw(g, expand=["scope"]) draws any of them open.'
    )
    return f'<div class="sgx-note">{html.escape(note)}</div><div class="sgx-svg">{_compact(svg)}</div>'


def _listing(obj) -> str:
    """The text listing (for a Tensor, the nodes it needs), folded under the drawing."""
    if isinstance(obj, Graph | Function):
        text = str(obj)
    else:
        tensors = [obj] if not isinstance(obj, list | tuple) else list(obj)
        text = "\n".join(node_line(n) for n in tensors[0].graph.ancestors(tensors))
    lines = text.split("\n")
    if len(lines) > LISTING_LINES:
        text = "\n".join(
            [*lines[:LISTING_LINES], f"... {len(lines) - LISTING_LINES} more lines: print it for all"]
        )
    return f'<details class="sgx-listing"><summary>listing</summary><pre>{html.escape(text)}</pre></details>'


def _legend() -> str:
    chips = "".join(
        f'<span class="sgx-chip" style="background:{fill};border-color:{border}">{html.escape(what)}</span>'
        for what, fill, border in styles.legend()
    )
    return f'<div class="sgx-legend">{chips}</div>'


def _page(uid: str, body: str, listing: str) -> str:
    css = (_HERE / "explorer.css").read_text()
    js = (_HERE / "explorer.js").read_text()
    boot = f'window.sgExplorer((document.currentScript || {{}}).parentElement || document.getElementById("{uid}"));'
    bar = (
        '<div class="sgx-bar"><button data-sgx-all="open">open all</button>'
        f'<button data-sgx-all="close">close all</button><div class="sgx-info">{_HINT}</div></div>'
    )
    return f'<div class="sgx" id="{uid}"><style>{css}</style>{bar}{_legend()}{body}{listing}<script>{js}\n{boot}</script></div>'
