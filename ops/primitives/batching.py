"""Small builders the batch (vectorize) rules share (ops layer).

A batch rule is ``batch(ctx, attrs, xs, bdims) -> (outs, out_bdims)``: ``xs``
are the operands in the vectorized graph, ``bdims[i]`` the axis of ``xs[i]``
that the batch runs along (None: the operand is the same for every lane),
and it returns the outputs with their batch axes. It is called only when
some operand is batched; ``ctx.size`` is the batch size (a Dim), ``ctx.op``
the rule's own OpDef, and ``ctx.vectorize(fn, in_bdims)`` vectorizes a body
the op holds. These helpers
move batch axes where a rule wants them, moving nothing that is already
there.
"""

from __future__ import annotations

from ...graph import Tensor
from . import prims
from .registry import bind_node


def moveaxis(x: Tensor, src: int, dst: int) -> Tensor:
    """``x`` with its axis ``src`` moved to position ``dst`` (a transpose, or x itself)."""
    if src == dst:
        return x
    perm = [d for d in range(x.ndim) if d != src]
    perm.insert(dst, src)
    return prims.transpose(x, perm)


def inserted(values, at: int, value) -> tuple:
    """``values`` (a shape, per-dim attributes) with ``value`` inserted at ``at``: the batch axis's entry."""
    return (*values[:at], value, *values[at:])


def batched_at(x: Tensor, bdim: int | None, size, at: int = 0) -> Tensor:
    """``x`` with its batch axis at ``at``; an unbatched x is broadcast along a new one of ``size``."""
    if bdim is not None:
        return moveaxis(x, bdim, at)
    return prims.broadcast_in_dim(x, inserted(x.shape, at, size), tuple(d + (d >= at) for d in range(x.ndim)))


def leading_or_one(x: Tensor, bdim: int | None, size, broadcast: bool) -> Tensor:
    """``x`` with its batch axis first, as foreign code called on a batch wants it (jax's
    vmap_method "expand_dims" / "broadcast_all"): an unbatched x gets a size-1 axis there, or all
    of ``size`` when ``broadcast``."""
    if bdim is not None or broadcast:
        return batched_at(x, bdim, size, 0)
    return batched_at(x, None, 1, 0)


def batch_size(xs, bdims):
    """The batch size, read off the first batched operand."""
    return next(x.shape[b] for x, b in zip(xs, bdims) if b is not None)


def elementwise_batch(ctx, attrs, xs, bdims):
    """For ops applied element by element to operands of one shape: bring every operand's batch axis
    to the first batched operand's position (broadcasting unbatched ones) and apply the op once."""
    at = next(b for b in bdims if b is not None)
    moved = [batched_at(x, b, ctx.size, at) for x, b in zip(xs, bdims)]
    node = bind_node(ctx.op, moved, attrs)
    return list(node.outputs), [at] * len(node.outputs)


def scalar_operand_batch(ctx, attrs, xs, bdims, scalar_ok):
    """For elementwise ops whose operands at the positions ``scalar_ok`` may also be scalars
    (select's predicate, clamp's bounds): an unbatched scalar there stays a scalar, a batched
    one is broadcast along the batch axis, the others go as in elementwise_batch."""
    full = next(i for i in range(len(xs)) if i not in scalar_ok)
    dims = tuple(d for i, d in enumerate(xs[full].shape) if i != bdims[full])
    rank = len(dims)
    at = next((b for x, b in zip(xs, bdims) if b is not None and x.ndim == rank + 1), 0)
    moved = []
    for i, (x, b) in enumerate(zip(xs, bdims)):
        if b is None and i in scalar_ok and x.ndim == 0:
            moved.append(x)
        elif x.ndim - (b is not None) == rank:
            moved.append(batched_at(x, b, ctx.size, at))
        else:
            moved.append(prims.broadcast_in_dim(x, inserted(dims, at, ctx.size), (at,)))
    node = bind_node(ctx.op, moved, attrs)
    return list(node.outputs), [at] * len(node.outputs)


def shift_axes(axes, bdim: int | None) -> tuple[int, ...]:
    """``axes`` of an operand without its batch axis, numbered as in the operand with it at ``bdim``."""
    if bdim is None:
        return tuple(axes)
    return tuple(a + (a >= bdim) for a in axes)


def rank_among(axes, at: int) -> int:
    """How many of ``axes`` (numbered without the batch axis) come before a batch axis put at ``at``."""
    return sum(a < at for a in axes)


def axis_at_rank(axes, rank: int) -> int:
    """The first position for a new axis that comes after exactly ``rank`` of the sorted ``axes``."""
    return axes[rank - 1] + 1 if rank else 0
