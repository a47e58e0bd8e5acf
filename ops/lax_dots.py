"""Grouped and scaled contractions, as jax.lax's ragged_dot, ragged_dot_general and scaled_dot,
with RaggedDotDimensionNumbers (ops layer, library calls over dot_general).

A ragged dot splits one lhs dim into consecutive groups of ``group_sizes`` rows. Where that dim
is a free (non-contracting) one, rows of group i meet the rhs's slice i along its group dim;
where it is contracted, group i contracts only its own stretch of it and the groups come out
stacked in front; where it is a batch dim, it is an ordinary batched dot. Each is written as
the dense form jax's CPU lowering uses: the operand repeated once per group, masked to the
group's stretch, then one dot_general that also contracts (or batches) the group axis. Rows past
the last group give zeros. Gradients and vectorize come from the masking ops and dot_general.
"""

from __future__ import annotations

from ..graph import GraphError, Tensor, dtypes, library, located, user_location
from .primitives import compare, constants, prims
from .primitives.dot_general import dot_general as _dot_general

__all__ = ["RaggedDotDimensionNumbers", "ragged_dot", "ragged_dot_general", "scaled_dot"]


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


class RaggedDotDimensionNumbers:
    """Where ragged_dot_general's groups are: ``dot_dimension_numbers`` as dot_general's
    ``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``, the one lhs dim split into
    groups (``lhs_ragged_dimensions``) and, when that dim is a free one, the rhs dim indexing the
    groups (``rhs_group_dimensions``), as jax.lax.RaggedDotDimensionNumbers."""

    __slots__ = ("dot_dimension_numbers", "lhs_ragged_dimensions", "rhs_group_dimensions")

    def __init__(self, dot_dimension_numbers, lhs_ragged_dimensions, rhs_group_dimensions):
        (lc, rc), (lb, rb) = dot_dimension_numbers
        self.dot_dimension_numbers = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
        self.lhs_ragged_dimensions = tuple(int(d) for d in lhs_ragged_dimensions)
        self.rhs_group_dimensions = tuple(int(d) for d in rhs_group_dimensions)

    def _key(self):
        return (self.dot_dimension_numbers, self.lhs_ragged_dimensions, self.rhs_group_dimensions)

    def __eq__(self, other):
        return isinstance(other, RaggedDotDimensionNumbers) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (
            f"RaggedDotDimensionNumbers(dot_dimension_numbers={self.dot_dimension_numbers}, "
            f"lhs_ragged_dimensions={self.lhs_ragged_dimensions}, "
            f"rhs_group_dimensions={self.rhs_group_dimensions})"
        )


_BASIC = RaggedDotDimensionNumbers((((1,), (1,)), ((), ())), (0,), (0,))


def _mode(rank: int, numbers: RaggedDotDimensionNumbers) -> tuple[str, int]:
    if len(numbers.lhs_ragged_dimensions) != 1:
        raise _error(f"ragged_dot_general wants exactly one lhs ragged dimension, got {numbers}")
    (lc, _), (lb, _) = numbers.dot_dimension_numbers
    dim = numbers.lhs_ragged_dimensions[0]
    if not 0 <= dim < rank:
        raise _error(f"ragged_dot_general's lhs ragged dimension {dim} is out of range for rank {rank}")
    mode = "contracting" if dim in lc else "batch" if dim in lb else "free"
    return mode, dim


def _prefix(mode: str, rank: int, dim: int, batch, contract) -> list[int]:
    """The dims whose sizes lead a group_sizes of rank > 1 (one set of groups per index)."""
    free = [d for d in range(rank) if d not in batch and d not in contract]
    if mode == "free":
        return [*batch, *free[: free.index(dim)]]
    if mode == "contracting":
        return [*batch, *contract[: list(contract).index(dim)]]
    return list(batch[: list(batch).index(dim)])


def _grouped(x: Tensor, dim: int, group_sizes: Tensor, prefix) -> Tensor:
    """x repeated once per group in a new leading axis, zero outside group g's stretch of ``dim``
    (group_sizes: (*x.shape[prefix], groups))."""
    groups = group_sizes.shape[-1]
    shape = (groups, *x.shape)
    ends = prims.cumulative(group_sizes, "sum", group_sizes.ndim - 1)
    starts = prims.sub(ends, group_sizes)
    at = (*(p + 1 for p in prefix), 0)  # where group_sizes' dims go: the prefix dims, then the groups
    order = sorted(range(len(at)), key=at.__getitem__)
    starts, ends = (
        prims.broadcast_in_dim(prims.transpose(v, order), shape, sorted(at)) for v in (starts, ends)
    )
    index = constants.iota(group_sizes.dtype, shape, dim + 1)
    inside = prims.and_(prims.compare(starts, index, "LE"), prims.compare(index, ends, "LT"))
    spread = prims.broadcast_in_dim(x, shape, tuple(range(1, len(shape))))
    zeros = prims.broadcast_in_dim(constants.constant(0, x.dtype), shape, ())
    return prims.select(inside, spread, zeros)


def _shifted(dims) -> tuple[int, ...]:
    return tuple(d + 1 for d in dims)


@library()
def ragged_dot_general(
    lhs, rhs, group_sizes, ragged_dot_dimension_numbers, precision=None, preferred_element_type=None,
    group_offset=None, out_sharding=None,
):  # fmt: skip
    """A dot_general whose lhs has one dim split into consecutive groups, as
    jax.lax.ragged_dot_general (see RaggedDotDimensionNumbers).

    ``group_sizes`` (integers, shape ``(groups,)`` or the leading dims jax allows then
    ``groups``) gives each group's length. The ragged dim is: a free lhs dim (rows of group i
    use the rhs's slice i of its group dim; result as dot_general's without that dim), a
    contracting dim (group i contracts its own stretch; the result gains a leading groups
    dim), or a batch dim (an ordinary batched dot). ``precision`` is accepted as dot_general
    takes it; ``group_offset`` is not supported (jax's CPU lowering has none either).
    """
    if group_offset is not None:
        raise _error("ragged_dot_general: group_offset is not supported (jax's CPU lowering raises too)")
    numbers = ragged_dot_dimension_numbers
    if not isinstance(numbers, RaggedDotDimensionNumbers):
        raise _error(f"ragged_dot_general wants a RaggedDotDimensionNumbers, got {numbers!r}")
    lhs, rhs, group_sizes = (
        v if isinstance(v, Tensor) else constants.constant(v) for v in (lhs, rhs, group_sizes)
    )
    if group_sizes.dtype.kind not in "iu" or group_sizes.ndim < 1:
        raise _error(f"ragged_dot_general wants integer group_sizes of rank >= 1, got {group_sizes.type}")
    if preferred_element_type is not None:
        lhs, rhs = (compare.convert(t, dtypes.dtype(preferred_element_type)) for t in (lhs, rhs))
    mode, dim = _mode(lhs.ndim, numbers)
    (lc, rc), (lb, rb) = numbers.dot_dimension_numbers
    prefix = _prefix(mode, lhs.ndim, dim, lb, lc)
    want = (*(lhs.shape[p] for p in prefix), group_sizes.shape[-1])
    if group_sizes.ndim == 1:
        group_sizes = prims.broadcast_in_dim(group_sizes, want, (len(want) - 1,))
    if tuple(group_sizes.shape) != want:
        raise _error(f"ragged_dot_general wants group_sizes of shape {want}, got {group_sizes.type}")
    if mode == "batch":
        return _dot_general(lhs, rhs, (lc, rc), (lb, rb))
    if mode == "free":
        if len(numbers.rhs_group_dimensions) != 1:
            raise _error("ragged_dot_general wants one rhs group dimension when the ragged dim is a free one")
        group = numbers.rhs_group_dimensions[0]
        if rhs.shape[group] != group_sizes.shape[-1]:
            raise _error(
                f"ragged_dot_general wants rhs dim {group} to have one entry per group "
                f"({group_sizes.shape[-1]}), got {rhs.type}"
            )
        spread = _grouped(lhs, dim, group_sizes, prefix)
        return _dot_general(spread, rhs, ((*_shifted(lc), 0), (*rc, group)), (_shifted(lb), rb))
    if numbers.rhs_group_dimensions:
        raise _error("ragged_dot_general wants no rhs group dimension when the ragged dim is contracted")
    rhs_dim = rc[list(lc).index(dim)]
    rhs_prefix = _prefix(mode, rhs.ndim, rhs_dim, rb, rc)
    spread_lhs = _grouped(lhs, dim, group_sizes, prefix)
    spread_rhs = _grouped(rhs, rhs_dim, group_sizes, rhs_prefix)  # the prefix dims have the lhs's sizes
    batch = ((0, *_shifted(lb)), (0, *_shifted(rb)))
    return _dot_general(spread_lhs, spread_rhs, (_shifted(lc), _shifted(rc)), batch)


@library()
def ragged_dot(
    lhs, rhs, group_sizes, precision=None, preferred_element_type=None, group_offset=None, out_sharding=None
):
    """``lhs`` (m, k) times a stack of ``rhs`` matrices (groups, k, n): rows of group i (the
    ``group_sizes[i]`` rows after the earlier groups') use ``rhs[i]``; rows past the last
    group give zeros. As jax.lax.ragged_dot (a mixture-of-experts layer's grouped matmul)."""
    return ragged_dot_general(lhs, rhs, group_sizes, _BASIC, precision, preferred_element_type, group_offset)


def _repeat_scale(scale: Tensor, shape, contracting) -> Tensor:
    """A scale with 2x or more fewer entries along the contracting dims than its operand (its
    other dims equal the operand's), each entry repeated to cover its block."""
    for d in range(len(shape)):
        have, size = scale.shape[d], shape[d]
        if d not in contracting:
            if have != size:
                raise _error(
                    f"scaled_dot wants a scale of the operand's size {size} in dim {d}, got {scale.type}"
                )
            continue
        if size % have or size // have < 2:
            raise _error(
                f"scaled_dot wants contracting dim {d} of size {size} to be a multiple (2x or more) of its "
                f"scale's size {have}"
            )
        wide = (*scale.shape[: d + 1], size // have, *scale.shape[d + 1 :])
        keep = (*range(d + 1), *range(d + 2, len(wide)))
        repeated = prims.broadcast_in_dim(scale, wide, keep)
        scale = prims.reshape(repeated, (*scale.shape[:d], size, *scale.shape[d + 1 :]))
    return scale


@library()
def scaled_dot(
    lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None, preferred_element_type=None
):
    """``(lhs * lhs_scale) @ (rhs * rhs_scale)`` by dot_general, in bfloat16 operands and
    ``preferred_element_type`` (default bfloat16), as jax.lax.scaled_dot.

    A scale matches its operand except along the contracting dims, where each entry covers a
    block (the subchannel) of 2 or more entries; a missing scale is 1. ``dimension_numbers``
    defaults to a (batched) matrix product over the last two dims.
    """
    if dimension_numbers is None:
        if lhs.ndim < 2:
            raise _error(f"scaled_dot wants operands of rank >= 2, got {lhs.type}")
        n = lhs.ndim
        batch = tuple(range(n - 2))
        dimension_numbers = (((n - 1,), (n - 2,)), (batch, batch))
    (lc, rc), (lb, rb) = dimension_numbers
    out_dtype = dtypes.dtype(preferred_element_type or dtypes.bfloat16)
    scaled = []
    for x, scale, contracting in ((lhs, lhs_scale, lc), (rhs, rhs_scale, rc)):
        x = compare.convert(x, dtypes.bfloat16)
        if scale is not None:
            scale = compare.convert(_repeat_scale(scale, x.shape, contracting), dtypes.bfloat16)
            x = prims.mul(x, scale)
        scaled.append(compare.convert(x, out_dtype))
    return _dot_general(*scaled, (tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
