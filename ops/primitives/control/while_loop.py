"""The while primitive: repeat a body while a predicate holds; stablehlo.while (ops layer).

A loop of unknown length has no reverse-mode rule: sg.while_loop(max_steps=)
and sg.fori_loop with Python int bounds build a scan instead. Forward mode
needs no bound: the jvp is a while over the carry and its tangents.

Under vectorize, a predicate that is the same for every lane keeps one
while of the vectorized bodies; a batched predicate loops while any lane
goes on, and each step keeps the carry of the lanes whose predicate fails.
"""

from __future__ import annotations

from ....graph import (
    Attrs,
    Function,
    FunctionAttr,
    GraphError,
    OpDef,
    Tensor,
    TensorType,
    current_graph,
    dtypes,
    function,
)
from ....graph.function import inline
from .. import ad_util, hlo
from ..batching import batched_at
from ..reduce import reduce
from ..registry import bind_node
from .common import TangentStep, carry_bdims, lane_select, out_types, split, types_str


class WhileAttrs(Attrs):
    cond_fn: FunctionAttr  # (carry..., its captures...) -> bool scalar
    body_fn: FunctionAttr  # (carry..., its captures...) -> carry


def _while_infer(attrs: WhileAttrs, *in_types: TensorType) -> tuple[TensorType, ...]:
    cond, body = attrs.cond_fn, attrs.body_fn
    n = len(body.params)
    carry = list(in_types[:n])
    ccap, bcap = split(in_types, [cond, body], n)
    pred = out_types(cond, carry + ccap, f"while_loop cond {cond.name}")
    if len(pred) != 1 or pred[0].shape != () or pred[0].dtype is not dtypes.bool_:
        raise GraphError(f"while_loop cond {cond.name} must return one bool scalar, got {types_str(pred)}")
    outs = out_types(body, carry + bcap, f"while_loop body {body.name}")
    if list(outs) != carry:
        raise GraphError(
            f"while_loop body {body.name} must keep the carry's types: it takes {types_str(carry)} "
            f"and returns {types_str(outs)}"
        )
    return tuple(carry)


def _while_lower(ctx, attrs: WhileAttrs, *values):
    cond, body = attrs.cond_fn, attrs.body_fn
    n = len(body.params)
    ccap, bcap = split(values, [cond, body], n)
    return hlo.while_loop(
        values[:n],
        lambda *c: ctx.lower_function(cond, list(c) + ccap),
        lambda *c: ctx.lower_function(body, list(c) + bcap),
    )


def _while_batch(ctx, attrs: WhileAttrs, xs, bdims):
    cond, body = attrs.cond_fn, attrs.body_fn
    n = len(body.params)
    ccap, bcap = split(list(zip(xs, bdims)), [cond, body], n)

    def step(carry):  # a batched predicate makes every carry batched: lanes stop at different steps
        if ctx.vectorize(cond, carry, ccap)[1][0] is not None:
            return [0] * n
        return ctx.vectorize(body, carry, bcap)[1]

    carry = carry_bdims(step, bdims[:n])
    init = [x if c is None else batched_at(x, b, ctx.size) for x, b, c in zip(xs, bdims, carry)]
    cond_fn, (pred_bdim,) = ctx.vectorize(cond, carry, ccap)
    body_fn, _ = ctx.vectorize(body, carry, bcap, carry)
    if pred_bdim is None:
        return while_call(cond_fn, body_fn, init, name="while"), carry
    types = [x.type for x in init]

    def any_lane(*c):
        return reduce(inline(cond_fn, current_graph(), c)[0], "or", (0,))

    def masked(*c):  # lanes whose predicate fails keep their carry
        graph = current_graph()
        go = inline(cond_fn, graph, c)[0]
        return [lane_select(go, new, old) for new, old in zip(inline(body_fn, graph, c), c)]

    any_fn, masked_fn = function(any_lane, types, name=cond.name), function(masked, types, name=body.name)
    return while_call(any_fn, masked_fn, init, name="while"), carry


def _while_jvp(ctx, attrs: WhileAttrs, xs, ys, tangents):
    """A while over the carry and its tangents: the body with its forward pass, the predicate on
    the carry alone. The carries with a tangent are those given one and those the body gives one
    (a fixed point); the predicate's captures carry none (a bool has no tangent)."""
    cond, body = attrs.cond_fn, attrs.body_fn
    n = len(body.params)
    init = list(xs[:n])
    ccap, bcap = split(xs, [cond, body], n)
    _, t_bcap = split(tangents, [cond, body], n)
    diff = ad_util.is_differentiable
    tc = [j for j in range(n) if tangents[j] is not None and diff(init[j])]
    tk = [m for m, (c, t) in enumerate(zip(bcap, t_bcap)) if t is not None and diff(c)]
    if not tc and not tk:
        return [None] * len(ys)
    while True:
        step = TangentStep(ctx, body, n, bcap, tc, [], [t_bcap[m] for m in tk], tk)
        types = [t.type for t in init] + [init[j].type for j in tc]
        body_fn = function(step, types, name=f"{body.name}_jvp")
        grown = sorted(set(tc) | {j for j in step.carry_out if diff(init[j])})
        if grown == tc:
            break
        tc = grown

    def predicate(*carry_and_tangents):
        return inline(cond, current_graph(), list(carry_and_tangents[:n]), captures=ccap)

    cond_fn = function(predicate, types, name=cond.name)
    t_init = [tangents[j] if tangents[j] is not None else ad_util.zeros_like(init[j]) for j in tc]
    out = while_call(cond_fn, body_fn, init + t_init, name="while_jvp")
    for y, value in zip(ys, out[:n]):
        ctx.same_values(y, value)
    result: list = [None] * len(ys)
    for i, j in enumerate(tc):
        result[j] = out[n + i]
    return result


def _while_vary(ctx, attrs: WhileAttrs, vary):
    """Inside sg.spmd, to a fixed point: a carry varies along what the body makes it vary along, and
    every carry along the predicate's axes (devices may stop after different numbers of steps)."""
    cond, body = attrs.cond_fn, attrs.body_fn
    n = len(body.params)
    ccap, bcap = split(vary, [cond, body], n)
    carry = [frozenset(v) for v in vary[:n]]
    while True:
        (pred,) = ctx.body(cond, carry + ccap)
        new = [c | o | pred for c, o in zip(carry, ctx.body(body, carry + bcap))]
        if new == carry:
            return carry
        carry = new


while_op = OpDef(
    "while",
    _while_infer,
    _while_lower,
    attrs=WhileAttrs,
    jvp=_while_jvp,
    batch=_while_batch,
    vary=_while_vary,
    reasons={
        "vjp": "a loop of unknown length: give sg.while_loop a bound with max_steps=, or give "
        "sg.fori_loop Python int bounds",
    },
    doc="Repeats body_fn on the carry while cond_fn holds; stablehlo.while.",
)


def while_call(cond: Function, body: Function, init, name: str | None = None) -> list[Tensor]:
    """Bind while_op on the carry ``init``, the bodies' captures passed as inputs."""
    inputs = [*init, *cond.captures, *body.captures]
    node = bind_node(while_op, inputs, WhileAttrs(cond_fn=cond, body_fn=body), name=name)
    return list(node.outputs)
