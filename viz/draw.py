"""``sg.draw``: a graphviz drawing of a Graph, Function or Tensor, and its files (viz layer).

One box per node (op or the user's name, short attributes, output types;
the tooltip gives the full name and the user's file:line), one edge per
tensor labelled with its shape, name scopes as clusters (or closed into one
box), library calls as one box each until opened, control-flow bodies as clusters beside their node, gradient nodes in
orange tied to their forward node by a dashed edge, fetches with a double
border. Drawing only reads the graph.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where a drawing is made: ``import stablegraph`` stays light
    import graphviz

from .collapse import plan
from .emit import heat_of, to_dot
from .view import build_view

_SOURCE_FORMATS = ("dot", "gv")  # written as DOT text; no layout, no ``dot`` binary needed


def draw(
    obj,
    path: str | os.PathLike | None = None,
    format: str | None = None,
    *,
    collapse="auto",
    expand=(),
    profile=None,
) -> graphviz.Digraph:
    """A graphviz drawing of a Graph, a Function, or what a Tensor (or list of Tensors) needs.

    ``path`` also writes it, in ``format`` or the path's suffix: svg, png,
    pdf, ... (any graphviz format; rendering needs the ``dot`` binary from
    the Debian package ``graphviz``) or dot/gv (the DOT source). In Jupyter
    the returned Digraph shows itself.

    ``collapse``: ``"auto"`` (default) keeps every scope open on small
    graphs and closes scopes on big ones so the drawing stays readable and
    fast; ``N`` draws each scope N levels deep as one box (1: top-level
    scopes); ``None`` or 0 opens everything. Library calls (``sg.nn.dense``,
    losses, optimizers...) are one closed box each unless opened: ``expand``
    names scopes, library calls (or control-flow bodies, ``"loop@body"``) to
    draw open anyway; ``expand=True`` opens every library call, and with the
    default ``collapse="auto"`` every scope too (the whole graph, however big).

        sg.draw(g, "out/model.svg")
        sg.draw(g, expand=["fc1"], collapse=1)
        sg.draw(loss)  # only what loss depends on

    ``profile`` (what ``sess.profile`` gave) shades every box, and every closed group, by its
    share of the profiled device time (the share is in its tooltip).
    """
    view = build_view(obj)
    dot = to_dot(view, plan(view, collapse, expand), heat=heat_of(view, profile))
    if path is not None:
        render(dot, path, format)
    return dot


def render(dot: graphviz.Digraph, path: str | os.PathLike, format: str | None = None) -> None:
    """Write ``dot`` to ``path`` in ``format`` (default: the path's suffix, else svg)."""
    path = os.fspath(path)
    fmt = format or os.path.splitext(path)[1].lstrip(".") or "svg"
    data = dot.source.encode() if fmt in _SOURCE_FORMATS else dot.pipe(format=fmt)
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
