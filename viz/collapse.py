"""Which groups a drawing opens (viz layer): collapse depth, expand by name, auto mode, chunks.

graphviz's ``dot`` slows down sharply past a few hundred boxes (minutes for
a few thousand), so a big graph is drawn with groups closed: ``collapse=N``
closes every group N levels deep (1: the top-level scopes), ``expand`` opens
named groups (and the groups around them) whatever the depth, and
``collapse="auto"`` picks the deepest level that keeps the drawing under
``BUDGET`` boxes. A group still too crowded (a flat graph of thousands of
nodes) is split into chunks of consecutive nodes, each drawn as one box.

Library calls (a dense layer, a loss, an optimizer's minimize) are closed
whatever the depth, as listings print them as one line, unless ``expand``
names them, ``expand=True`` opens them all, or ``collapse=None`` (or 0)
opens everything.
"""

from __future__ import annotations

import math

from ..graph import GraphError, located, user_location

BUDGET = 150  # boxes in an auto drawing: dot lays this out in well under a second
CHUNK_MIN = 50  # nodes in a chunk, at least
CHUNKS_MAX = 60  # chunks in one group, at most (chunks grow past CHUNK_MIN to stay under it)


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def plan(view, collapse="auto", expand=()) -> set:
    """The set of open groups; in auto mode crowded open groups are chunked too.

    ``expand=True`` with ``collapse="auto"`` opens everything (auto would close scopes again);
    with a depth it opens the library calls down to that depth.
    """
    if collapse is True:
        collapse = 1
    if not (collapse == "auto" or collapse is None or collapse is False or isinstance(collapse, int)):
        raise _error(f"collapse wants 'auto', a depth (int) or None, got {collapse!r}")
    if isinstance(collapse, int) and collapse < 0:
        raise _error(f"collapse wants a depth >= 0, got {collapse}")
    if expand is True and collapse == "auto":
        collapse = None
    everything = collapse is None or collapse is False or collapse == 0
    shut = closed_libraries if not (everything or expand is True) else _never
    if collapse == "auto":
        depth = auto_depth(view.root, BUDGET, shut)
    else:
        depth = collapse or math.inf  # 0, None, False: nothing closed
    opened = set(_walk_open(view.root, depth, shut))
    for g in resolve(view, () if expand is True else expand):
        opened.update(_walk_open(g, depth, shut))  # its scopes open as the top level's do
        while g is not None:
            opened.add(g)
            g = g.parent
    if collapse == "auto":
        for g in list(opened):
            chunk_crowded(view, g, BUDGET)
    return opened


def resolve(view, names) -> list:
    """The groups named by ``names``: a full path ("model/dense") or a unique last part ("dense")."""
    if isinstance(names, str):
        names = [names]
    groups = view.groups()
    found = []
    for name in names:
        exact = [g for g in groups if name in (g.path, *g.aliases)]
        tail = [g for g in groups if any(p.endswith("/" + name) for p in (g.path, *g.aliases))]
        if not exact and not tail:
            known = ", ".join(sorted(g.path for g in groups)[:12]) or "none"
            raise _error(f"expand: no group named {name!r}; the groups are {known}")
        found += exact or tail
    return found


def closed_libraries(group) -> bool:
    """Whether ``group`` stays closed whatever the depth: a library call does."""
    return group.kind == "library"


def _never(group) -> bool:
    return False


def _walk_open(group, depth, shut):
    """The groups open at ``depth``: not below it, not ``shut``, nor inside a closed one."""
    yield group
    for child in group.children.values():
        if child.depth < depth and not shut(child):
            yield from _walk_open(child, depth, shut)


def visible(group, depth, shut=_never) -> int:
    """Boxes drawn for ``group`` when groups ``depth`` levels deep (and ``shut`` ones) are closed."""
    if group.parent is not None and (group.depth >= depth or shut(group)):
        return 1
    return len(group.boxes) + sum(visible(c, depth, shut) for c in group.children.values())


def auto_depth(root, budget: int, shut=_never) -> float:
    """The deepest collapse level whose drawing fits ``budget`` boxes (inf: all open; 1 at least)."""
    deepest = max((g.depth for g in root.walk()), default=0)
    if visible(root, math.inf, shut) <= budget:
        return math.inf
    for depth in range(deepest, 1, -1):
        if visible(root, depth, shut) <= budget:
            return depth
    return 1


def chunk_crowded(view, group, limit: int) -> list:
    """Split ``group``'s direct items into closed chunks if there are more than ``limit``; the chunks."""
    items = group.items()
    if len(items) <= limit:
        return []
    segments = {id(g): s for s, g in group.children.items()}
    group.boxes, group.children = [], {}
    size = max(CHUNK_MIN, math.ceil(len(items) / CHUNKS_MAX))
    chunks = []
    for k, start in enumerate(range(0, len(items), size)):
        part = items[start : start + size]
        label = f"nodes {start + 1}–{start + len(part)} of {len(items)}"
        chunk = view.child(group, f"#{k + 1}", kind="chunk", label=label)
        for item in part:
            if id(item) in segments:  # a child group keeps its path
                chunk.children[segments[id(item)]] = item
                item.parent = chunk
            else:
                chunk.boxes.append(item)
                item.group = chunk
        chunks.append(chunk)
    return chunks
