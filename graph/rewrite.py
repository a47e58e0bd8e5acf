"""The one node walk every rewrite shares: inline, extract, vjp, vectorize, simplify (graph layer).

A ``Rewriter`` rebuilds nodes of a source graph into the graph being built.
It keeps the old -> new map (``env``: a source tensor to whatever the
transform maps it to, a Tensor for a copy, a (Tensor, batch axis) pair for
vectorize), substitutes symbols in shape attributes, and carries each node's
source location, name (optionally under a prefix) and ``derived_from`` onto
what it emits. A transform gives ``visit(rewriter, node)``, returning the
node's new outputs or None for a plain copy; so the loop over nodes, the
parameter skipping and the bookkeeping are written once. ``Walk`` is that
loop alone, for walks whose values are not tensors (the lowering's MLIR
values).
"""

from __future__ import annotations

from contextlib import contextmanager

from .attrs import dim_fields
from .dims import substitute
from .graph import current_graph, emitting_for, name_scope
from .opdef import Attrs


class Walk:
    """The loop over nodes: ``visit(walk, node)`` gives each node's new outputs, kept in ``env``.

    Parameters are bound by the caller (through ``env``) and skipped; an
    output already in ``env`` (a fed value) stays bound. Every pass over
    nodes runs on this loop: the rewrites (vectorize, simplify, inline), the
    lowering (its values are MLIR values), the replication analysis, the
    forward pass (its values are tangents) and the reverse pass, which walks
    the nodes backwards and whose visit adds cotangents to the operands'
    entries itself (it gives no outputs).
    """

    def __init__(self, env: dict | None = None):
        self.env: dict = {} if env is None else env

    def run(self, nodes, visit) -> Walk:
        env = self.env
        for node in nodes:
            if "parameter" in node.op.traits:
                continue
            outs = visit(self, node)
            for old, new in zip(node.outputs, outs):
                env.setdefault(old, new)
        return self


class Rewriter(Walk):
    """A Walk that rebuilds nodes into a graph; a visit that returns None asks for a plain copy."""

    def __init__(
        self, env: dict | None = None, subst: dict | None = None, prefix: str | None = None, graph=None
    ):
        super().__init__(env)
        self.graph = current_graph() if graph is None else graph
        self.subst = subst or {}
        self.prefix = prefix

    def copy(self, node, inputs=None, attrs=None) -> list:
        """A copy of ``node`` on new ``inputs`` (default: its inputs through ``env``); its outputs."""
        inputs = [self.env[t] for t in node.inputs] if inputs is None else inputs
        attrs = substitute_attrs(node.attrs if attrs is None else attrs, self.subst)
        new = self.graph.add_node(
            node.op, inputs, attrs, name=self.name_of(node.name), location=node.location
        )
        if node.derived_from is not None:
            new.derived_from = self.name_of(node.derived_from)
        return list(new.outputs)

    def name_of(self, name: str) -> str:
        return f"{self.prefix}/{name}" if self.prefix else name

    @contextmanager
    def emitting(self, node, scope: str | None = None, origin: bool = False):
        """Nodes a rule builds for ``node`` get its location (and, with ``origin``, derive from it),
        under name scope ``scope``."""
        with emitting_for(node.location, origin=node.name if origin else None):
            if scope is None:
                yield
            else:
                with name_scope(scope):
                    yield

    def run(self, nodes, visit=None) -> Rewriter:
        """Rebuild ``nodes`` in order, through ``visit`` where it gives outputs, else as copies."""

        def visit_or_copy(walk, node):
            outs = visit(walk, node) if visit is not None else None
            return self.copy(node) if outs is None else outs

        super().run(nodes, visit_or_copy)
        return self


def substitute_attrs(attrs: Attrs, subst) -> Attrs:
    """The same attrs with symbols in their dim fields replaced (see graph.attrs)."""
    if not subst:
        return attrs
    changes = {}
    for k in dim_fields(type(attrs)):
        v = getattr(attrs, k)
        changes[k] = tuple(substitute(d, subst) for d in v) if isinstance(v, tuple) else substitute(v, subst)
    return attrs.model_copy(update=changes) if changes else attrs
