"""Graph traversal: networkx view and pruning to what fetches need (graph layer)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx


def to_networkx(graph) -> nx.MultiDiGraph:
    """Nodes keyed by name (with op, type and location); one edge per input use. networkx is
    imported here, on the first use of ``g.nx``: it costs a fresh process a few tenths of a second."""
    import networkx as nx  # noqa: PLC0415

    g = nx.MultiDiGraph(name=graph.name)
    for node in graph.nodes:
        g.add_node(
            node.name,
            op=node.op.name,
            types=[str(t) for t in node.out_types],
            location=str(node.location) if node.location else None,
        )
        for slot, t in enumerate(node.inputs):
            g.add_edge(t.node.name, node.name, output=t.index, slot=slot)
    return g


def ancestors(graph, tensors, stop=()) -> list:
    """The nodes ``tensors`` depend on, in graph order.

    A tensor in ``stop`` (a fed tensor) is taken as given: its node is kept
    only if another, unfed output of it is needed.
    """
    stop = set(stop)
    needed: set = set()
    pending = [t for t in tensors if t not in stop]
    while pending:
        t = pending.pop()
        node = t.node
        if node in needed:
            continue
        needed.add(node)
        pending.extend(i for i in node.inputs if i not in stop)
    return sorted(needed, key=lambda n: n.id)
