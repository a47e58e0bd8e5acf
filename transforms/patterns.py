"""Algebraic identities for sg.simplify, as a table of (pattern, rewrite) pairs (transforms layer).

A pattern describes the node being built (its op and, recursively, the ops
producing its inputs); a rewrite receives the match and returns an existing
Tensor, a ``New`` node to build in its place, or None when the identity does
not hold after all. The driver (transforms/simplify.py) applies the table to
every node, and to every node a rewrite builds, until nothing changes.

Every rewrite keeps the result's type exactly. Identities that are false for
floats (x * 0 is NaN for x = inf) are restricted to integers and bools;
x + 0 -> x also maps -0.0 to -0.0 where IEEE gives +0.0, as XLA does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .folding import splat_value


@dataclass(frozen=True)
class Pat:
    """Matches a tensor: by the op that produced it (and that op's inputs), or by its value.

    ``value``: every element equals it (a constant, or a broadcast of one).
    ``kinds``: dtype kinds the tensor may have ("iub" for integers and bools).
    ``name``: the keyword the rewrite receives the tensor under.
    """

    op: str | None = None
    inputs: tuple[Pat, ...] | None = None
    name: str | None = None
    value: object = None
    kinds: str | None = None


def P(op: str, *inputs: Pat, name: str | None = None) -> Pat:  # noqa: N802  (reads like a constructor)
    return Pat(op, tuple(inputs), name)


def var(name: str, kinds: str | None = None) -> Pat:
    return Pat(name=name, kinds=kinds)


def const(value, name: str | None = None) -> Pat:
    return Pat(name=name, value=value)


@dataclass(frozen=True)
class New:
    """A node a rewrite asks for: ``op`` applied to ``inputs`` (Tensors or News) with ``attrs``."""

    op: str
    inputs: tuple
    attrs: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Rule:
    pattern: Pat
    rewrite: object  # (root, **bindings) -> Tensor | New | None
    doc: str


def match(pat: Pat, t, bindings: dict, splat=splat_value) -> bool:
    """Does tensor ``t`` (or, for a root, a node being built) match ``pat``? Fills ``bindings``.

    ``splat(t)`` gives the one value all of t's elements hold, or None (the driver memoizes it).
    """
    if pat.op is not None:
        node = t if _is_term(t) else t.node
        if node.op.name != pat.op or len(node.out_types) != 1:
            return False
        if pat.inputs is not None and not (
            len(pat.inputs) == len(node.inputs)
            and all(match(p, i, bindings, splat) for p, i in zip(pat.inputs, node.inputs))
        ):
            return False
    if pat.kinds is not None and _type(t).dtype.kind not in pat.kinds:
        return False
    if pat.value is not None:
        v = splat(t)
        if v is None or not v == pat.value:
            return False
    if pat.name is not None:
        bindings[pat.name] = t
    return True


def _is_term(t) -> bool:
    return not hasattr(t, "node")


def _type(t):
    return t.out_types[0] if _is_term(t) else t.type


# -- the rewrites --------------------------------------------------------------
def _keep_x(root, x, **_):
    return x


def _keep_zero(root, zero, **_):
    return zero


def _same_type_x(root, x):
    return x if x.type == root.out_types[0] else None


def _broadcast_of_broadcast(root, inner, x):
    outer_dims, inner_dims = root.attrs.broadcast_dimensions, inner.node.attrs.broadcast_dimensions
    dims = tuple(outer_dims[d] for d in inner_dims)
    return New("broadcast_in_dim", (x,), {"shape": root.attrs.shape, "broadcast_dimensions": dims})


def _identity_broadcast(root, x):
    dims = root.attrs.broadcast_dimensions
    return x if x.type == root.out_types[0] and dims == tuple(range(x.ndim)) else None


def _transpose_of_transpose(root, inner, x):
    perm = tuple(inner.node.attrs.permutation[p] for p in root.attrs.permutation)
    return New("transpose", (x,), {"permutation": perm})


def _identity_transpose(root, x):
    return x if root.attrs.permutation == tuple(range(x.ndim)) else None


def _reshape_of_reshape(root, inner, x):
    return New("reshape", (x,), {"shape": root.attrs.shape})


def _pick(branch: str):
    return lambda root, **b: b[branch]


x = var("x")
ints = "iub"  # integers and bools: x * 0 == 0 holds only for them

bb, tt, rr = (P(op, x, name="inner") for op in ("broadcast_in_dim", "transpose", "reshape"))

# fmt: off
RULES: tuple[Rule, ...] = (
    Rule(P("mul", x, const(1)), _keep_x, "x * 1 -> x"),
    Rule(P("mul", const(1), x), _keep_x, "1 * x -> x"),
    Rule(P("add", x, const(0)), _keep_x, "x + 0 -> x"),
    Rule(P("add", const(0), x), _keep_x, "0 + x -> x"),
    Rule(P("sub", x, const(0)), _keep_x, "x - 0 -> x"),
    Rule(P("div", x, const(1)), _keep_x, "x / 1 -> x"),
    Rule(P("mul", var("x", ints), const(0, "zero")), _keep_zero, "x * 0 -> 0 (integers and bools)"),
    Rule(P("mul", const(0, "zero"), var("x", ints)), _keep_zero, "0 * x -> 0 (integers and bools)"),
    Rule(P("neg", P("neg", x)), _keep_x, "-(-x) -> x"),
    Rule(P("select", const(True), var("x"), var("y")), _pick("x"), "select(true, x, y) -> x"),
    Rule(P("select", const(False), var("x"), var("y")), _pick("y"), "select(false, x, y) -> y"),
    Rule(P("broadcast_in_dim", bb), _broadcast_of_broadcast, "broadcast(broadcast(x)) -> one broadcast"),
    Rule(P("broadcast_in_dim", x), _identity_broadcast, "broadcast to x's shape, dims in order -> x"),
    Rule(P("transpose", tt), _transpose_of_transpose, "transpose(transpose(x)) -> one transpose"),
    Rule(P("transpose", x), _identity_transpose, "the identity transpose -> x"),
    Rule(P("reshape", rr), _reshape_of_reshape, "reshape(reshape(x)) -> one reshape"),
    Rule(P("reshape", x), _same_type_x, "reshape to x's shape -> x"),
    Rule(P("convert", x), _same_type_x, "convert to x's dtype -> x"),
)
# fmt: on


def rules_by_op(rules=RULES) -> dict[str, list[Rule]]:
    table: dict[str, list[Rule]] = {}
    for rule in rules:
        table.setdefault(rule.pattern.op, []).append(rule)
    return table
