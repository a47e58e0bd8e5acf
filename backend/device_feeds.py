"""Checking batches against placeholders and copying them to a Session's devices ahead of a run
(backend).

An input pipeline that prefetches (sg.data.prefetch) checks each batch on its
own thread, before the run that takes it, with the Session's own feed rules
(feeds.py: same_kind casts that keep every value, ranks, static dims, one
size per symbol, dims that split evenly over the mesh), and puts it on the
devices as the placeholder's sharding lays it out over the Session's mesh
(replicated without one), so the run's program takes the buffers as they
are. A block of ``steps`` stacked batches keeps its stack axis whole.

Single batches for a Session on one CPU device stay on the host once
converted and checked (``host_rows``): there the device's memory is the
host's, and the run's own dispatch takes a numpy feed for about what a put
costs, while a put on the thread holds the GIL that the run needs (the
thread's per-batch Python work shows up in every step's time on two cores).
``place_single`` puts such a batch on the device when a user asks for it.
"""

from __future__ import annotations

import numpy as np

from ..graph import FeedError, Tensor, located
from ..sharding import PartitionSpec, as_spec
from . import feeds as feeding
from . import pjrt
from .placement import tiling
from .shardings import REPLICATED, MeshLayout


class FeedPlacer:
    """Converts, checks and places the values of ``tensors`` (placeholders of one Session)."""

    def __init__(self, layout: MeshLayout, tensors: list[Tensor]):
        self.tensors = list(tensors)
        self._layout = layout
        self._where: dict = {}  # (tensor, rank) -> a pjrt sharding
        self._fits: set = set()  # the shape signatures ``check`` passed (binding symbols is slow)
        # single batches go to the run as host arrays: one CPU device, nothing to split
        self.host_rows = not layout.partitioned and layout.devices[0].platform == "cpu"

    def convert(self, tensor: Tensor, value, stacked: bool = False) -> np.ndarray:
        """``value`` as the placeholder's dtype (a FeedError if the cast would change it);
        ``stacked``: a stack of batches along a new first axis."""
        if not stacked:
            return feeding.convert(tensor, value)
        arr = feeding.convert(tensor, value, stacked=1)
        if arr.ndim != len(tensor.type.shape) + 1:
            raise FeedError(
                located(
                    f"feed for {tensor.name} has batches of shape {arr.shape[1:]}, expected "
                    f"({', '.join(str(d) for d in tensor.type.shape)}) {tensor.dtype.name}",
                    tensor.node.location,
                )
            )
        return arr

    def check(self, fed: list[tuple[Tensor, np.ndarray]]) -> None:
        """FeedError unless the converted ``fed`` values fit their placeholders together: static
        dims, one size per symbol, dims that split evenly over the mesh. The answer depends on
        the shapes alone, so each signature is checked once."""
        signature = tuple([(t, arr.shape) for t, arr in fed])
        if signature in self._fits:
            return
        feeding.bind(fed)
        self._layout.check_feeds(fed)
        self._fits.add(signature)

    def put(self, tensor: Tensor, value: np.ndarray, stacked: bool = False):
        """``value`` on the devices as ``tensor``'s sharding says (``stacked``: its first axis is a
        stack of steps, kept whole). Over several processes, where a feed is each process's block,
        the value stays on the host for the run to place."""
        layout = self._layout
        if layout.multiprocess:
            return value
        key = (tensor, value.ndim, stacked)
        where = self._where.get(key)
        if where is None:
            where = self._where[key] = self._placement(tensor, value.ndim, stacked)
        return pjrt.put(value, where)

    def _placement(self, tensor: Tensor, rank: int, stacked: bool):
        layout = self._layout
        if not layout.partitioned:
            return pjrt.placed(layout.devices)
        spec = as_spec(layout.declared(tensor) or REPLICATED)
        if stacked:
            spec = PartitionSpec(None, *spec.padded(rank - 1))
        return pjrt.placed(layout.devices, tiling(spec, layout.mesh, rank))

    def put_rows(self, stacks: list[np.ndarray]) -> list[list]:
        """Per batch of a run of them (``stacks``: each placeholder's batches stacked along a new
        first axis, converted and checked), its values as a run takes them, one per placeholder:
        on the devices, or numpy rows with ``host_rows``."""
        tensors = self.tensors
        if self.host_rows:
            return [[v[i] for v in stacks] for i in range(len(stacks[0]))]
        return [[self.put(t, v[i]) for t, v in zip(tensors, stacks)] for i in range(len(stacks[0]))]

    def place_single(self, values: list) -> list:
        """One batch's converted values (one per placeholder) as a run takes them (``put_rows``)."""
        if self.host_rows:
            return list(values)
        return [self.put(t, v) for t, v in zip(self.tensors, values)]

    def on_devices(self, values: list) -> list:
        """One batch's values as ``place_single`` gave them, each on the devices."""
        if not self.host_rows:
            return values
        return [self.put(t, v) for t, v in zip(self.tensors, values)]
