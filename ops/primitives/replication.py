"""Which mesh axes a value inside sg.spmd varies along: the replication analysis (ops layer).

In a per-device region every value is, along each mesh axis, either the
same on all devices of that axis (replicated there) or possibly different
(it varies). An out_spec that does not name an axis promises the output is
replicated along it, and the region returns one device's copy: were the
copies different, that would silently be a piece of the value. sg.spmd
checks the promise with this analysis, as jax's shard_map does (check_vma).

It walks a body's nodes in order with, for each value, the set of axes it
varies along. A parameter varies along the axes its in_spec splits it
over; a tensor the body captures is replicated. An op's outputs vary along
the union of its inputs' axes unless its OpDef has a ``vary`` rule:
axis_index varies along its axes, psum/pmax/pmin and all_gather give a
value replicated along theirs, ppermute, psum_scatter and all_to_all one
that varies along theirs; ops holding bodies (cond, while, scan, the
custom-rule calls) ask ``ctx.body`` for their bodies, loops to a fixed
point over the carry. The analysis is conservative: "varies" means "may
differ".
"""

from __future__ import annotations

from ...graph import Function
from ...graph.rewrite import Walk
from ...graph.rule_context import RuleContext, Services

NONE: frozenset[str] = frozenset()


class ReplicationPass(Services):
    """What the replication analysis offers vary rules: itself, on a body a rule holds."""

    name = "the replication analysis"

    def body(self, ctx, fn: Function, in_vary) -> list[frozenset[str]]:
        """The axes each result of ``fn`` varies along, given its params' then its capture params'."""
        return varies(fn, in_vary)


ANALYSIS = ReplicationPass()


def varies(fn: Function, in_vary) -> list[frozenset[str]]:
    """The axes each result of ``fn`` varies along, given those of its params then capture params."""
    env = dict(zip(fn.params + fn.capture_params, (frozenset(v) for v in in_vary)))

    def visit(walk, node):
        ins = [walk.env.get(t, NONE) for t in node.inputs]
        if node.op.vary is not None:
            return [frozenset(v) for v in node.op.vary(RuleContext(ANALYSIS, node.op, node), node.attrs, ins)]
        return [NONE.union(*ins)] * len(node.outputs)

    Walk(env).run(fn.graph.nodes, visit)
    return [env.get(r, NONE) for r in fn.results]


def union(*sets) -> frozenset[str]:
    return NONE.union(*sets)


__all__ = ["NONE", "ReplicationPass", "union", "varies"]
