"""Where the pieces of a sharded value live: tilings, slices, assembling (backend, pure numpy).

A tiling is XLA's description of a sharded value, as plain data:
``dims`` (how many tiles along each array dim, then the replication
groups), ``devices`` (the logical device id of each tile, row-major) and
``extra`` (how many trailing entries of ``dims`` are replication, not array
dims). Logical ids are positions in the mesh's device list (row-major), the
order programs are compiled for. pjrt.py turns tilings into jaxlib's
HloSharding and back; everything else here is numpy.
"""

from __future__ import annotations

import itertools
import math
from functools import cache
from typing import NamedTuple

import numpy as np

from ..graph import FeedError
from ..sharding import Mesh, NamedSharding, PartitionSpec, as_spec, split_counts
from ..sharding.spec import spec_axes


class Tiling(NamedTuple):
    dims: tuple[int, ...]
    devices: tuple[int, ...]
    extra: int  # trailing dims of ``dims`` that replicate rather than split


def tiling(spec, mesh: Mesh, rank: int) -> Tiling:
    """The tiling of a value of ``rank`` laid out by ``spec`` on ``mesh``."""
    entries = as_spec(spec).padded(rank)
    used = [a for e in entries for a in spec_axes(e)]
    rest = [a for a in mesh.axis_names if a not in used]
    order = [mesh.axis_names.index(a) for a in used + rest]
    ids = np.arange(mesh.size).reshape(mesh.axis_sizes).transpose(order)
    dims = list(split_counts(entries, mesh, rank))
    replicas = math.prod(mesh.shape[a] for a in rest)
    extra = 1 if replicas > 1 else 0
    if extra:
        dims.append(replicas)
    return Tiling(tuple(dims), tuple(int(i) for i in ids.reshape(-1)), extra)


@cache
def slices(shape: tuple, tile: Tiling, n_devices: int) -> tuple:
    """Each logical device's piece of a value of ``shape``: a tuple of slices per device."""
    rank = len(shape)
    out: list = [None] * n_devices
    grid = np.array(tile.devices, dtype=np.int64).reshape(tile.dims)
    chunks = [-(-n // t) for n, t in zip(shape, tile.dims[:rank])]  # XLA pads uneven tiles at the end
    for index in itertools.product(*(range(t) for t in tile.dims)):
        piece = tuple(
            slice(min(i * c, n), min((i + 1) * c, n)) for i, c, n in zip(index[:rank], chunks, shape)
        )
        out[int(grid[index])] = piece
    return tuple(out)


def assemble(pieces, shape: tuple, tile: Tiling, dtype) -> np.ndarray:
    """The global value from each device's piece (numpy arrays in logical device order)."""
    out = np.empty(shape, dtype)
    filled = set()
    for piece, where in zip(pieces, slices(shape, tile, len(pieces))):
        key = tuple((s.start, s.stop) for s in where)
        if key not in filled:  # replicas hold the same piece
            out[where] = piece[tuple(slice(0, s.stop - s.start) for s in where)]  # XLA may pad the last
            filled.add(key)
    return out


def check_divisible(name: str, shape, spec, mesh: Mesh) -> None:
    """FeedError if a dim ``spec`` splits does not divide evenly over its mesh axes."""
    entries = as_spec(spec).padded(len(shape))
    for d, (n, entry) in enumerate(zip(shape, entries)):
        axes = spec_axes(entry)
        parts = math.prod(mesh.shape[a] for a in axes)
        if parts > 1 and n % parts:
            sizes = " x ".join(f"{a}={mesh.shape[a]}" for a in axes)
            raise FeedError(
                f"feed for {name} has shape {tuple(shape)}: dim {d} ({n}) does not split evenly over mesh "
                f"axes {sizes} ({parts} pieces); give it a multiple of {parts}"
            )


def named_from_tiling(tile: Tiling, mesh: Mesh, rank: int) -> NamedSharding | None:
    """The NamedSharding on ``mesh`` whose tiling is ``tile`` (None if no spec gives it)."""
    for spec in _candidate_specs(tile.dims[:rank], mesh):
        if tiling(spec, mesh, rank) == tile:
            return NamedSharding(mesh, spec)
    if tile.dims and math.prod(tile.dims) == 1 and rank == len(tile.dims):
        return NamedSharding(mesh, PartitionSpec())
    return None


def _candidate_specs(counts, mesh: Mesh):
    """Specs whose split counts are ``counts``: ordered, disjoint groups of mesh axes per dim."""
    names = [a for a in mesh.axis_names if mesh.shape[a] > 1]

    def fill(d, free):
        if d == len(counts):
            yield ()
            return
        for k in range(len(free) + 1):
            for group in itertools.permutations(free, k):
                if math.prod(mesh.shape[a] for a in group) != counts[d]:
                    continue
                entry = None if not group else group[0] if len(group) == 1 else group
                rest = [a for a in free if a not in group]
                for tail in fill(d + 1, rest):
                    yield (entry, *tail)

    for entries in fill(0, names):
        yield PartitionSpec(*entries)


# -- values over devices of several processes: each process holds a block ----------------------
def local_block(tile: Tiling, positions, rank: int) -> tuple | None:
    """Per array dim, (first tile, tiles, of all tiles) that the devices at ``positions`` hold
    together; None if their tiles do not form one block (then no local array is their part)."""
    grid = np.array(tile.devices, dtype=np.int64).reshape(tile.dims)
    index_of = {int(grid[i]): i for i in np.ndindex(*tile.dims)}
    held = [index_of[p][:rank] for p in positions]
    block = []
    for d in range(rank):
        got = sorted({i[d] for i in held})
        if got[-1] - got[0] + 1 != len(got):
            return None
        block.append((got[0], len(got), tile.dims[d]))
    if len(set(held)) != math.prod(n for _, n, _ in block):
        return None
    return tuple(block)


def global_shape(local_shape: tuple, block: tuple) -> tuple | None:
    """The shape of the global value whose block is ``local_shape`` (None if it cannot be)."""
    out = []
    for n, (_, held, of) in zip(local_shape, block):
        if n % held:
            return None
        out.append(n // held * of)
    return tuple(out)


@cache
def local_slices(shape: tuple, tile: Tiling, positions: tuple, n_devices: int) -> tuple:
    """(where the local block lies in the global value of ``shape``, each local device's piece
    as slices of the block)."""
    block = local_block(tile, positions, len(shape))
    if block is None:
        raise FeedError(f"this process's devices do not hold one block of a value of shape {shape}")
    every = slices(shape, tile, n_devices)
    chunks = [-(-n // t) for n, t in zip(shape, tile.dims[: len(shape)])]
    box = tuple(
        slice(min(first * c, n), min((first + held) * c, n))
        for (first, held, _), c, n in zip(block, chunks, shape)
    )
    pieces = tuple(
        tuple(slice(s.start - b.start, s.stop - b.start) for s, b in zip(every[p], box)) for p in positions
    )
    return box, pieces


def assemble_local(pieces, shape: tuple, tile: Tiling, positions: tuple, dtype) -> np.ndarray:
    """This process's block of a value of ``shape`` from its devices' pieces (in ``positions`` order)."""
    box, where = local_slices(shape, tile, positions, len(tile.devices))
    out = np.empty(tuple(b.stop - b.start for b in box), dtype)
    for piece, w in zip(pieces, where):
        out[w] = piece[tuple(slice(0, s.stop - s.start) for s in w)]
    return out
