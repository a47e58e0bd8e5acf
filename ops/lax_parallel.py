"""jax.lax's remaining collectives inside sg.spmd: axis_size, pbroadcast, pcast, pshuffle,
pswapaxes, ragged_all_to_all (ops layer, built on the collective primitives).

Each is what jax documents it to be in terms of the basic collectives: pbroadcast is the psum
of the value masked to the source device (jax 0.10.2 has no CPU lowering for its own), pshuffle
a ppermute from a list of sources, pswapaxes an all_to_all over one axis, pcast(to="varying")
marks a replicated value as varying (the pvary primitive). ragged_all_to_all exchanges
variable-length row ranges between devices; XLA's CPU has no kernel for the StableHLO op of that
name, so it is written with all_gather and per-row selection (a value every device can compute).
"""

from __future__ import annotations

from ..graph import GraphError, Tensor, dtypes, flatten, library, located, unflatten, user_location
from .primitives import constants, prims
from .primitives.collectives import all_gather, all_to_all, axis_index, ppermute, psum, pvary
from .primitives.compare import convert, select
from .primitives.dynamic_slicing import dynamic_slice
from .primitives.slicing import slice as _slice

__all__ = ["axis_size", "pbroadcast", "pcast", "pshuffle", "pswapaxes", "ragged_all_to_all"]


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def _no_groups(axis_index_groups, who: str) -> None:
    if axis_index_groups is not None:
        raise _error(f"{who}: axis_index_groups is not supported (collectives run over whole mesh axes)")


def axis_size(axis_name) -> int:
    """The number of devices along ``axis_name`` (a mesh axis or a tuple of them) inside sg.spmd,
    a Python int, as jax.lax.axis_size."""
    return psum(1, axis_name)


def pbroadcast(x, axis_name, source: int):
    """Every device of ``axis_name`` gets the value ``x`` has on device ``source`` (a position
    along the axis); ``x`` may be a nest. As jax.lax.pbroadcast: the psum of ``x`` where
    ``axis_index == source`` and zeros elsewhere."""
    size = axis_size(axis_name)
    if not 0 <= int(source) < size:
        raise _error(f"pbroadcast's source {source} is not a position along {axis_name!r} (size {size})")
    here = prims.compare(axis_index(axis_name), constants.constant(int(source), dtypes.int32), "EQ")

    def one(v):
        v = v if isinstance(v, Tensor) else constants.constant(v)
        wide = v if v.dtype.kind != "b" else convert(v, dtypes.int32)
        zeros = prims.broadcast_in_dim(constants.constant(0, wide.dtype), wide.shape, ())
        picked = select(prims.broadcast_in_dim(here, wide.shape, ()), wide, zeros)
        total = psum(picked, axis_name)
        return total if v.dtype.kind != "b" else prims.compare(total, zeros, "NE")

    leaves, tree = flatten(x)
    return unflatten(tree, [one(v) for v in leaves])


def pcast(x, axis_name, *, to: str):
    """jax.lax.pcast: ``to="varying"`` marks ``x`` (replicated along ``axis_name``) as varying
    along it, unchanged in value (sg.spmd's out_specs must then name the axis). The "reduced"
    and "unreduced" casts belong to jax's explicit-sharding types, which stablegraph does not
    have: a GraphError."""
    if isinstance(axis_name, set | frozenset):
        raise _error(f"pcast wants axis_name as a str or a tuple, got {axis_name!r}")
    if to not in ("varying", "reduced", "unreduced"):
        raise _error(f"pcast's to is 'varying', 'reduced' or 'unreduced', got {to!r}")
    if to != "varying":
        raise _error(f"pcast to={to!r}: stablegraph has no reduced/unreduced sharding types; only 'varying'")
    if not axis_name:
        return x
    return pvary(x, axis_name)


def pshuffle(x, axis_name, perm):
    """Device ``i`` of ``axis_name`` gets the ``x`` of device ``perm[i]`` (``perm`` a permutation
    of the positions), as jax.lax.pshuffle: a ppermute."""
    perm = [int(p) for p in perm]
    if sorted(perm) != list(range(len(perm))):
        raise _error(f"pshuffle wants a permutation of 0..{len(perm) - 1}, got {perm}")
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


def pswapaxes(x, axis_name, axis: int, *, axis_index_groups=None):
    """Swap the device axis ``axis_name`` with the local dim ``axis`` (of one entry per device):
    device i's entry j becomes device j's entry i, as jax.lax.pswapaxes (an all_to_all)."""
    _no_groups(axis_index_groups, "pswapaxes")
    return all_to_all(x, axis_name, axis, axis)


@library()
def ragged_all_to_all(
    operand, output, input_offsets, send_sizes, output_offsets, recv_sizes, *, axis_name, axis_index_groups=None
):  # fmt: skip
    """Variable-length exchange along dim 0, as jax.lax.ragged_all_to_all: device ``i`` sends
    ``operand[input_offsets[j] : input_offsets[j] + send_sizes[j]]`` to device ``j``, which
    writes it at rows ``output_offsets[j]`` onward of its ``output`` (offsets in the receiver's
    output, given by the sender); rows nothing arrives at keep ``output``'s values.
    ``recv_sizes[j]`` (what arrives from ``j``) is implied by the senders' sizes and is not
    read. Every device gathers all the operands and picks its rows (XLA's CPU has no kernel
    for stablehlo's ragged_all_to_all).
    """
    _no_groups(axis_index_groups, "ragged_all_to_all")
    if operand.dtype is not output.dtype or tuple(operand.shape[1:]) != tuple(output.shape[1:]):
        raise _error(
            f"ragged_all_to_all wants operand and output of one dtype and trailing shape, got {operand.type} "
            f"and {output.type}"
        )
    n = axis_size(axis_name)
    for name, v in (("input_offsets", input_offsets), ("send_sizes", send_sizes),
                    ("output_offsets", output_offsets), ("recv_sizes", recv_sizes)):  # fmt: skip
        if v.shape != (n,) or v.dtype.kind not in "iu":
            raise _error(f"ragged_all_to_all wants {name} as integers of shape ({n},), got {v.type}")
    me = axis_index(axis_name)
    # what every sender s sends to this device: its operand, start, size and where it goes here
    operands = all_gather(operand, axis_name)  # (n, rows, ...)
    picks = [_column(all_gather(convert(v, dtypes.int32), axis_name), me)
             for v in (input_offsets, send_sizes, output_offsets)]  # fmt: skip
    starts, sizes, dests = picks  # each (n,): sender s's numbers for this device
    rows = output.shape[0]
    r = constants.iota(dtypes.int32, (n, rows), 1)
    dest = prims.broadcast_in_dim(dests, (n, rows), (0,))
    offset = prims.sub(r, dest)
    inside = prims.and_(
        prims.compare(
            offset, prims.broadcast_in_dim(constants.constant(0, dtypes.int32), (n, rows), ()), "GE"
        ),
        prims.compare(offset, prims.broadcast_in_dim(sizes, (n, rows), (0,)), "LT"),
    )
    source = prims.add(prims.broadcast_in_dim(starts, (n, rows), (0,)), offset)
    out = output
    for s in range(n):  # later senders win where ranges overlap (an ill-formed exchange)
        taken = _take_rows(_row(operands, s), _row(source, s), operand.shape[0])
        mask = prims.broadcast_in_dim(_row(inside, s), output.shape, (0,))
        out = select(mask, taken, out)
    return out


def _row(x: Tensor, i: int) -> Tensor:
    """x[i] of a stacked tensor, by a static slice."""
    start = (i, *(0 for _ in x.shape[1:]))
    limit = (i + 1, *x.shape[1:])
    return prims.reshape(_slice(x, start, limit), tuple(x.shape[1:]))


def _column(x: Tensor, index: Tensor) -> Tensor:
    """x[:, index] of an (n, n) tensor for a scalar Tensor index."""
    zero = constants.constant(0, dtypes.int32)
    return prims.reshape(dynamic_slice(x, (zero, index), (x.shape[0], 1)), (x.shape[0],))


def _take_rows(x: Tensor, rows: Tensor, size) -> Tensor:
    """x[clip(rows)] along dim 0 (rows: int32 of shape (m,))."""
    clipped = prims.clamp(
        constants.constant(0, dtypes.int32), rows, constants.constant(max(int(size) - 1, 0), dtypes.int32)
    )
    index = prims.reshape(clipped, (*clipped.shape, 1))
    return prims.gather(
        x, index, offset_dims=tuple(range(1, x.ndim)), collapsed_slice_dims=(0,), start_index_map=(0,),
        index_vector_dim=1, slice_sizes=(1, *x.shape[1:]),
    )  # fmt: skip
