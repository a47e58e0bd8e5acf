"""jax.lax.scatter_apply: a function applied to the operand's elements that scatter indices hit
(ops layer, a library call over scatter_add, select and while_loop).

XLA applies the function once per update, so an element hit twice gets it twice. Here the hits
are counted with a scatter_add of ones, the function is applied where the count is > 0, and
again, in a loop, where it is > 1, > 2, ... up to the largest count (no iteration without
repeated indices). The function is applied to the whole operand and the results selected: it
must work element by element, as jax traces it on one scalar.
"""

from __future__ import annotations

from ..graph import GraphError, Tensor, dtypes, library, located, user_location
from .control_api import while_loop
from .lax_indexing import scatter_add
from .primitives import constants, prims
from .primitives import reduce as _reduce

__all__ = ["scatter_apply"]


def _fill(like: Tensor, value, dtype) -> Tensor:
    return prims.broadcast_in_dim(constants.constant(value, dtype), like.shape, ())


@library()
def scatter_apply(
    operand, scatter_indices, func, dimension_numbers, *, update_shape=(), indices_are_sorted=False,
    unique_indices=False, mode=None,
):  # fmt: skip
    """``operand`` with ``func`` applied to each element the scatter with ``dimension_numbers``
    (jax's ScatterDimensionNumbers) would update, once per update that hits it, as
    jax.lax.scatter_apply; ``update_shape`` is the updates' shape that scatter would take,
    ``mode`` its out-of-bounds rule. ``func`` works element by element (sg.numpy.sin,
    ``lambda v: v * 2``). No gradient flows through repeated applications' loop (jax defines none).
    """
    ones = prims.broadcast_in_dim(constants.constant(1, dtypes.int32), tuple(update_shape), ())
    hits = scatter_add(
        _fill(operand, 0, dtypes.int32), scatter_indices, ones, dimension_numbers,
        indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode,
    )  # fmt: skip
    out = _applied(func, operand, hits, constants.constant(0, dtypes.int32))
    if unique_indices:
        return out
    most = _reduce.reduce(hits, "max", tuple(range(hits.ndim)))

    def again(state):
        k, x = state
        return prims.add(k, constants.constant(1, dtypes.int32)), _applied(func, x, hits, k)

    start = constants.constant(1, dtypes.int32)
    return while_loop(lambda state: prims.compare(state[0], most, "LT"), again, (start, out))[1]


def _applied(func, x: Tensor, hits: Tensor, more_than: Tensor) -> Tensor:
    """func(x) where an element was hit more than ``more_than`` times (a scalar), x elsewhere."""
    y = func(x)
    if not isinstance(y, Tensor) or y.type != x.type:
        got = y.type if isinstance(y, Tensor) else type(y).__name__
        message = f"scatter_apply's func must keep the operand's type {x.type}, got {got}"
        raise GraphError(located(message, user_location()))
    threshold = prims.broadcast_in_dim(more_than, hits.shape, ())
    return prims.select(prims.compare(hits, threshold, "GT"), y, x)
