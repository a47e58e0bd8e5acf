"""The reverse pass: the node loop (graph.rewrite.Walk) backwards, calling each op's vjp rule (transforms).

Every gradient in stablegraph (sg.vjp, sg.grad, sg.gradients, jvp by double
vjp) goes through ``backward``. Cotangents that are zero are never built:
``None`` stands for them, and a rule sees ``None`` for outputs no gradient
reached. Nodes a rule emits carry the forward node's source location, under
a ``grad`` name scope, so errors in a gradient point at the user's line.
Rules are called as ``vjp(ctx, attrs, xs, ys, cts)``; ``ctx`` (the one
RuleContext type, graph/rule_context.py, with this pass's services) lets the
rules of body-holding ops run this pass on a body.
"""

from __future__ import annotations

from ..graph import GraphError, Tensor, emitting_for, located, name_scope, user_location
from ..graph.rewrite import Walk
from ..graph.rule_context import RuleContext, Services
from ..ops.primitives import ad_util
from .simplify import simplify


def relevant_nodes(nodes, wrt, seeds) -> list:
    """The nodes on some path of floating/complex values from ``wrt`` to ``seeds`` (graph order kept)."""
    reached = set(wrt)
    forward = []
    for node in nodes:
        if "zero_derivative" in node.op.traits:
            continue  # stop_gradient, floor, sign: no derivative flows through
        if any(t in reached for t in node.inputs):
            # Integer and bool values carry no cotangent, so a path through them
            # (bits of a float, an index) is no path for the gradient.
            reached.update(o for o in node.outputs if ad_util.is_differentiable(o))
            forward.append(node)
    needed = set(seeds)
    out = []
    for node in reversed(forward):
        if any(o in needed for o in node.outputs):
            needed.update(node.inputs)
            out.append(node)
    out.reverse()
    return out


def check_differentiable(wrt, what: str = "differentiate") -> None:
    for t in wrt:
        if not ad_util.is_differentiable(t):
            made = f" ({t.name} was made at {t.node.location})" if t.node.location is not None else ""
            raise GraphError(
                located(
                    f"cannot {what} with respect to {t.name}: it is {t.type}, and only floating and complex "
                    f"values have gradients (integer and bool values carry none){made}",
                    user_location(),
                )
            )


def backward(nodes, seeds: dict[Tensor, Tensor], wrt, values: dict | None = None) -> list[Tensor | None]:
    """Cotangents of ``wrt`` given cotangents ``seeds`` of some outputs.

    Emits the cotangent graph into the graph being built; returns one Tensor
    (or None for a zero cotangent) per tensor in ``wrt``. With ``values``
    (tensor -> the tensor holding its value), rules read the nodes' operands
    and results through it: sg.checkpoint walks its body's own nodes with
    the values it recomputed or saved.
    """
    cts: dict[Tensor, Tensor] = {}
    for t, ct in seeds.items():
        if ad_util.is_differentiable(t):  # a mask or index output seeds nothing
            _accumulate(cts, t, ct)

    def visit(walk, node) -> list:
        out_cts = [cts.get(o) for o in node.outputs]
        if all(c is None for c in out_cts):
            return []
        rule = node.op.vjp
        if rule is None:
            why = node.op.reasons.get("vjp", "not written yet")
            raise GraphError(located(f"cannot differentiate through {node.op.name}: it has no vjp rule ({why})",
                                     node.location, node.name))  # fmt: skip
        xs, ys = node.inputs, node.outputs
        if values is not None:
            xs, ys = [values.get(t, t) for t in xs], [values.get(t, t) for t in ys]
        with emitting_for(node.location, origin=node.name), name_scope("grad"):
            in_cts = rule(RuleContext(REVERSE, node.op, node), node.attrs, xs, ys, out_cts)
        for t, x, ct in zip(node.inputs, xs, in_cts):
            if ct is not None and ad_util.is_differentiable(t):
                _check_ct(node, x, ct)
                _accumulate(cts, t, ct)
        return []  # the cotangents went to the operands' entries

    Walk(cts).run(reversed(relevant_nodes(nodes, wrt, seeds)), visit)
    return [cts.get(t) for t in wrt]


class ReversePass(Services):
    """What the reverse pass offers vjp rules: itself, over nodes a rule builds (a body's recomputed
    forward), and simplify for the backward Functions rules make (cond, scan)."""

    name = "the reverse pass"

    def backward(self, ctx, nodes, seeds, wrt, values=None):
        return backward(nodes, seeds, wrt, values)

    def simplify(self, ctx, fn):
        return simplify(fn)


REVERSE = ReversePass()


def _accumulate(cts: dict, t: Tensor, ct: Tensor) -> None:
    prev = cts.get(t)
    cts[t] = ct if prev is None else ad_util.add(prev, ct)


def _check_ct(node, t: Tensor, ct: Tensor) -> None:
    if ct.type != t.type:
        raise GraphError(
            located(f"internal error: the vjp rule of {node.op.name} gave a cotangent {ct.type} for input {t.type}",
                    node.location, node.name)
        )  # fmt: skip
