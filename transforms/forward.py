"""The forward pass: the node loop (graph.rewrite.Walk) in order, calling each op's jvp rule (transforms).

sg.jvp (and so sg.jacfwd and sg.hessian) goes through ``forward``. It is
the mirror of transforms/backward.py: tangents that are zero are never
built (``None`` stands for them), and the nodes a rule emits carry the
primal node's source location under a ``jvp`` name scope.

Rules are called as ``jvp(ctx, attrs, xs, ys, tangents) -> tangents of ys``.
An op without its own rule gets one from what it declares, never from its
name:

- trait ``linear`` (broadcast, reshape, slice, ...): the op applied to the
  tangents, non-differentiable operands (indices, predicates) kept as they are;
- trait ``bilinear`` (dot_general): the sum of the op with one operand
  replaced by its tangent at a time;
- otherwise its vjp rule, transposed for this one node: the vjp is linear
  in its cotangent, so the reverse pass over the vjp's nodes, seeded with
  the tangents, gives J @ t. Correct for every op with a vjp, but it builds
  the vjp first, so direct rules are worth writing where that costs more.
"""

from __future__ import annotations

from ..graph import GraphError, Tensor, current_graph, emitting_for, located, name_scope
from ..graph.rewrite import Walk
from ..graph.rule_context import RuleContext
from ..ops.primitives import ad_util
from ..ops.primitives.registry import bind_node
from .backward import REVERSE, ReversePass, backward, relevant_nodes


def forward(
    nodes, tangents: dict[Tensor, Tensor], outputs, primals: dict | None = None
) -> list[Tensor | None]:
    """Tangents of ``outputs`` given the ``tangents`` of some tensors, through ``nodes``.

    Emits the tangent graph into the graph being built; returns one Tensor
    (or None for a zero tangent) per output. A node without any rule is an
    error only if a rule (or an output) reads its tangents: a custom_vjp's
    forward ops, which its transposed vjp never reads, need no rules.

    A rule may compute its node's values again beside their tangents (scan's
    jvp: one loop carrying both) and say so (``ctx.same_values``); the nodes
    after it on the tangents' path are then built again on those values, so
    that the first computation, which nothing reads any more, drops out when
    the program is simplified. ``primals``, when given, is filled with each
    such tensor -> the one that computes it now (the caller's outputs too).
    """
    tans = {t: tan for t, tan in tangents.items() if ad_util.is_differentiable(t)}
    again = {} if primals is None else primals

    def visit(walk, node) -> list:
        ins = Tangents(tans.get(x) if ad_util.is_differentiable(x) else None for x in node.inputs)
        if ins.all_zero() or not any(ad_util.is_differentiable(y) for y in node.outputs):
            return [None] * len(node.outputs)  # a mask or an index carries no tangent
        try:
            rule = rule_for(node)
        except GraphError as e:
            return [_Unknown(e)] * len(node.outputs)
        xs, ys = _on_new_values(node, again)
        with emitting_for(node.location, origin=node.name), name_scope("jvp"):
            outs = rule(RuleContext(FORWARD, node.op, node, again=again), node.attrs, xs, ys, ins)
        got = []
        for y, new_y, t in zip(node.outputs, ys, outs):
            if new_y is not y:
                again.setdefault(y, again.get(new_y, new_y))
            if t is not None and ad_util.is_differentiable(y):
                _check_tangent(node, y, t)
            got.append(t if ad_util.is_differentiable(y) else None)
        return got

    Walk(tans).run(relevant_nodes(nodes, list(tans), outputs), visit)
    return list(Tangents(tans.get(o) for o in outputs))


def _on_new_values(node, again: dict) -> tuple[list, list]:
    """The node's operands and results, on the values a rule computed again: the node built once
    more on those (not a node that writes state or groups: they happen once)."""
    xs = [again.get(x, x) for x in node.inputs]
    if all(a is b for a, b in zip(xs, node.inputs)) or node.op.traits & {"writes_variable", "group"}:
        return xs, list(node.outputs)
    with emitting_for(node.location, origin=node.name):
        return xs, list(bind_node(node.op, xs, node.attrs, name=node.name).outputs)


class _Unknown:
    """The tangent of an output of a node with no rule: its error, raised when something reads it."""

    __slots__ = ("error",)

    def __init__(self, error: GraphError):
        self.error = error


class Tangents(tuple):
    """The tangents handed to a rule (None: zero); reading one that no rule could give raises why."""

    def __getitem__(self, i):
        got = tuple.__getitem__(self, i)
        for t in got if isinstance(i, slice) else (got,):
            if isinstance(t, _Unknown):
                raise t.error
        return got

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def all_zero(self) -> bool:
        return all(t is None for t in tuple.__iter__(self))


def rule_for(node):
    """The jvp rule of ``node``'s op: its own, one its traits imply, or its vjp transposed."""
    op = node.op
    if op.jvp is not None:
        return op.jvp
    if "linear" in op.traits:
        return linear_jvp
    if "bilinear" in op.traits:
        return bilinear_jvp
    if op.vjp is not None:
        return transposed_vjp
    why = op.reasons.get("vjp", "not written yet")
    raise GraphError(
        located(
            f"cannot differentiate through {op.name}: it has no jvp or vjp rule ({why})",
            node.location,
            node.name,
        )
    )


def _tangent_inputs(xs, tangents, replace) -> list[Tensor]:
    """The operands with the differentiable ones in ``replace`` swapped for their tangents
    (zeros for a zero tangent); the other operands (indices, predicates) stay primal."""
    out = []
    for i, (x, t) in enumerate(zip(xs, tangents)):
        swap = i in replace and ad_util.is_differentiable(x)
        out.append((t if t is not None else ad_util.zeros_like(x)) if swap else x)
    return out


def _outputs(node, ys) -> list[Tensor | None]:
    return [o if ad_util.is_differentiable(y) else None for o, y in zip(node.outputs, ys)]


def linear_jvp(ctx, attrs, xs, ys, tangents):
    """For an op linear in its differentiable operands (jointly): the op on their tangents."""
    node = bind_node(ctx.op, _tangent_inputs(xs, tangents, range(len(xs))), attrs)
    return _outputs(node, ys)


def bilinear_jvp(ctx, attrs, xs, ys, tangents):
    """For an op linear in each operand separately: one application per non-zero tangent, summed."""
    total: list = [None] * len(ys)
    for i, t in enumerate(tangents):
        if t is None:
            continue
        node = bind_node(ctx.op, _tangent_inputs(xs, tangents, {i}), attrs)
        total = [o if s is None else ad_util.add(s, o) for s, o in zip(total, _outputs(node, ys))]
    return total


def transposed_vjp(ctx, attrs, xs, ys, tangents):
    """J @ t for one node from its vjp rule: the reverse pass over the vjp's nodes (built on dummy
    cotangents, zeros: any value works, the vjp is linear in them) seeded with the tangents."""
    graph = current_graph()
    dummies = [ad_util.zeros_like(y) if ad_util.is_differentiable(y) else None for y in ys]
    start = len(graph.nodes)
    cts = ctx.op.vjp(RuleContext(REVERSE, ctx.op, ctx.node), attrs, xs, ys, dummies)
    seeds: dict = {}
    for i, c in enumerate(cts):  # a tangent is read only where the vjp gives a cotangent
        t = tangents[i] if c is not None else None
        if t is not None:
            seeds[c] = t if c not in seeds else ad_util.add(seeds[c], t)
    live = [d for d in dummies if d is not None]
    got = iter(backward(graph.nodes[start:], seeds, live))
    return [next(got) if d is not None else None for d in dummies]


class ForwardPass(ReversePass):
    """What the forward pass offers jvp rules: itself over nodes a rule builds (a body), the generic
    rules to fall back on, and (as the reverse pass) the reverse pass and simplify, for
    transposing a user's jvp."""

    name = "the forward pass"

    def forward(self, ctx, nodes, tangents, outputs, primals=None):
        return forward(nodes, tangents, outputs, primals)

    def linear(self, ctx, attrs, xs, ys, tangents):
        return linear_jvp(ctx, attrs, xs, ys, tangents)

    def transposed_vjp(self, ctx, attrs, xs, ys, tangents):
        return transposed_vjp(ctx, attrs, xs, ys, tangents)


FORWARD = ForwardPass()


def _check_tangent(node, y: Tensor, t: Tensor) -> None:
    if t.type != y.type:
        raise GraphError(
            located(f"internal error: the jvp rule of {node.op.name} gave a tangent {t.type} for output {y.type}",
                    node.location, node.name)
        )  # fmt: skip
