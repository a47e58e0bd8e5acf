"""jax.lax.associative_scan: an inclusive scan with any associative combining function, in
O(log n) rounds of whole-array operations (ops layer, user-facing through sg.lax).

The scan pairs neighbouring elements, scans the pairs' combinations recursively (half as many),
then fills in the elements between them: the classic odd/even parallel prefix. Every round is
slicing, the user's function on whole slices, and interleaving, so the graph has O(log n) nodes
per leaf, differentiates and vectorizes like any other ops, and XLA sees no loop.
"""

from __future__ import annotations

from ..graph import GraphError, Tensor, flatten, library, located, unflatten, user_location
from . import numpy_like as snp


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def _slice(x: Tensor, axis: int, start: int, stop: int | None, step: int = 1) -> Tensor:
    index = [slice(None)] * x.ndim
    index[axis] = slice(start, stop, step)
    return x[tuple(index)]


def _interleave(evens: Tensor, odds: Tensor, axis: int) -> Tensor:
    """e0, o0, e1, o1, ... along ``axis`` (``evens`` has as many elements as ``odds`` or one more)."""
    n_even, n_odd = evens.shape[axis], odds.shape[axis]
    if n_even > n_odd:
        head = _interleave(_slice(evens, axis, 0, n_odd), odds, axis)
        return snp.concatenate([head, _slice(evens, axis, n_odd, None)], axis=axis)
    pairs = snp.stack([evens, odds], axis=axis + 1)
    shape = list(evens.shape)
    shape[axis] = 2 * n_even
    return snp.reshape(pairs, tuple(shape))


def _scan(combine, leaves: list[Tensor], axis: int) -> list[Tensor]:
    n = leaves[0].shape[axis]
    if n < 2:
        return leaves
    pairs = combine(
        [_slice(x, axis, 0, n - 1, 2) for x in leaves], [_slice(x, axis, 1, None, 2) for x in leaves]
    )
    odds = _scan(combine, pairs, axis)  # prefixes ending at elements 1, 3, 5, ...
    if n % 2 == 0:
        rest = combine([_slice(o, axis, 0, -1) for o in odds], [_slice(x, axis, 2, None, 2) for x in leaves])
    else:
        rest = combine(odds, [_slice(x, axis, 2, None, 2) for x in leaves])
    evens = [snp.concatenate([_slice(x, axis, 0, 1), r], axis=axis) for x, r in zip(leaves, rest)]
    return [_interleave(e, o, axis) for e, o in zip(evens, odds)]


@library()
def associative_scan(fn, elems, reverse: bool = False, axis: int = 0):
    """The inclusive scan of ``elems`` (a Tensor or any nest of them, all of one size along
    ``axis``) under ``fn``, an associative function of two nests of that structure that works on
    whole slices: element i of the result is fn(...fn(fn(e0, e1), e2)..., ei). With ``reverse``
    the scan runs from the last element. The order in which ``fn`` combines is not left to right,
    so a function that is not associative gives jax's (equally unspecified) kind of result."""
    leaves, tree = flatten(elems)
    leaves = [x if isinstance(x, Tensor) else snp.asarray(x) for x in leaves]
    if not leaves:
        raise _error("sg.lax.associative_scan wants at least one array in elems")
    rank = leaves[0].ndim
    if not -rank <= axis < max(rank, 1) or rank == 0:
        raise _error(f"sg.lax.associative_scan: axis {axis} is out of range for {leaves[0].type}")
    axis %= rank
    sizes = {x.shape[axis] if x.ndim == rank else None for x in leaves}
    if len(sizes) != 1 or not isinstance(next(iter(sizes)), int):
        raise _error(
            "sg.lax.associative_scan wants every array of elems with one known size along axis "
            f"{axis}, got {[x.type for x in leaves]}"
        )

    def combine(a: list, b: list) -> list:
        out, out_tree = flatten(fn(unflatten(tree, a), unflatten(tree, b)))
        if out_tree != tree or len(out) != len(a):
            raise _error("sg.lax.associative_scan: fn must return a nest of the structure of elems")
        return [snp.asarray(o) for o in out]

    if reverse:
        leaves = [snp.flip(x, axis) for x in leaves]
    scanned = _scan(combine, leaves, axis)
    if reverse:
        scanned = [snp.flip(x, axis) for x in scanned]
    return unflatten(tree, scanned)


__all__ = ["associative_scan"]
