"""What the control-flow primitives share: body types, capture slices, stacked rows, batching (ops layer).

A body is a Function held as an attribute. Tensors of the enclosing graph
that a body reads are its *captures*: the node takes them as extra inputs
after the operands, and the lowering hands them to the body, which StableHLO
lets a region read from above.
"""

from __future__ import annotations

from ....graph import Function, Tensor, TensorType, current_graph
from ....graph.errors import GraphError
from ....graph.function import bind_symbols, inline, substitute_dim
from .. import ad_util, shape
from ..compare import select


def types_str(types) -> str:
    return "(" + ", ".join(str(t) for t in types) + ")"


def out_types(fn: Function, arg_types, what: str) -> tuple[TensorType, ...]:
    """fn's result types when called on ``arg_types`` (its symbols renamed to the arguments')."""
    params = [p.type for p in fn.params + fn.capture_params]
    if len(params) != len(arg_types):
        raise GraphError(f"{what} takes {len(params)} values, got {len(arg_types)}")
    subst = bind_symbols(params, arg_types, what)
    return tuple(TensorType(tuple(substitute_dim(d, subst) for d in t.shape), t.dtype) for t in fn.out_types)


def split(values, fns, start: int) -> list[list]:
    """Each Function's slice of the captured values, which follow one another from ``start``."""
    out = []
    for fn in fns:
        out.append(list(values[start : start + len(fn.capture_params)]))
        start += len(fn.capture_params)
    return out


def row(t) -> TensorType:
    """The type of one step of a stacked tensor."""
    return TensorType(t.type.shape[1:], t.type.dtype)


def first_index(values, t) -> int:
    """The first position of ``t`` in ``values`` (by identity)."""
    return next(i for i, v in enumerate(values) if v is t)


def carry_bdims(batch_step, bdims) -> list:
    """The batch axes of a loop's carry under vectorize: a fixed point.

    A carry starts batched (at axis 0) where its initial value is; ``batch_step``
    vectorizes the loop's body for a guess and gives the batch axes of the new
    carry. A carry that comes out batched must go in batched, so the guess
    grows until the body keeps it (at most one round per carry).
    """
    carry = [None if b is None else 0 for b in bdims]
    while True:
        out = batch_step(carry)
        grown = [0 if c is not None or o is not None else None for c, o in zip(carry, out)]
        if grown == carry:
            return carry
        carry = grown


def lane_select(pred: Tensor, new: Tensor, old: Tensor) -> Tensor:
    """Per lane, ``new`` where the (batch,) ``pred`` holds and ``old`` elsewhere; both batched at 0."""
    return select(shape.broadcast_in_dim(pred, new.type.shape, (0,)), new, old)


class TangentStep:
    """A body with its forward pass, as the Python function of a new body (the jvp rules' step).

    Called on (carry, carry tangents at ``tc``, operands, operand tangents at
    ``tx``), it runs ``body`` on (carry, operands) and the rule context's
    forward pass over it, and returns (new carry, its tangents at ``tc``,
    the other results, their tangents). ``nc`` counts the carries (0 for a
    cond branch, no operands for a while body). The captures at ``tk`` have
    the tangents ``cap_tangents`` (outer tensors, captured in). The other
    results' tangents are those at ``want_ys`` (zeros where the body gives
    none), else those the body gives. After a call, ``carry_out`` lists the
    carries whose new value has a tangent and ``ys_out`` the other results
    that do.
    """

    def __init__(self, ctx, body: Function, nc: int, caps, tc, tx, cap_tangents, tk, want_ys=None):
        self.ctx, self.body, self.nc, self.caps = ctx, body, nc, caps
        self.tc, self.tx, self.cap_tangents, self.tk, self.want_ys = tc, tx, cap_tangents, tk, want_ys
        self.carry_out: list[int] = []
        self.ys_out: list[int] = []

    def __call__(self, *args):
        graph = current_graph()
        nc, tc, tx = self.nc, self.tc, self.tx
        nx = len(self.body.params) - nc
        carry, t_carry = args[:nc], args[nc : nc + len(tc)]
        rows, t_rows = args[nc + len(tc) : nc + len(tc) + nx], args[nc + len(tc) + nx :]
        start = len(graph.nodes)
        env: dict = {}
        outs = inline(self.body, graph, list(carry) + list(rows), captures=self.caps, env=env)
        seeds = {carry[j]: t for j, t in zip(tc, t_carry)}
        seeds.update((rows[k], t) for k, t in zip(tx, t_rows))
        cap_params = self.body.capture_params
        seeds.update((env[cap_params[m]], graph.capture(t)) for m, t in zip(self.tk, self.cap_tangents))
        again: dict = {}
        got = self.ctx.forward(graph.nodes[start:], seeds, outs, again)
        outs = [again.get(o, o) for o in outs]  # values a nested rule computed again with their tangents
        self.carry_out = [j for j in range(nc) if got[j] is not None]
        self.ys_out = [k for k in range(len(outs) - nc) if got[nc + k] is not None]
        wanted = self.ys_out if self.want_ys is None else self.want_ys
        t_new = [_or_zeros(got[j], outs[j]) for j in tc]
        return [*outs[:nc], *t_new, *outs[nc:], *(_or_zeros(got[nc + k], outs[nc + k]) for k in wanted)]


def _or_zeros(tangent, like: Tensor) -> Tensor:
    return tangent if tangent is not None else ad_util.zeros_like(like)
