"""What the control-flow primitives share: body types, capture slices, stacked rows, batching (ops layer).

A body is a Function held as an attribute. Tensors of the enclosing graph
that a body reads are its *captures*: the node takes them as extra inputs
after the operands, and the lowering hands them to the body, which StableHLO
lets a region read from above.
"""

from __future__ import annotations

from ....graph import Function, Tensor, TensorType
from ....graph.errors import GraphError
from ....graph.function import bind_symbols, substitute_dim
from .. import shape
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
