"""How a Session lays values out on its mesh (backend).

The graph names mesh axes only (PartitionSpecs on placeholders, Variables
and sharding_constraint); a Session with a mesh binds them here: the spec
of each argument and result of a program it lowers, the device layout of
each variable's buffer, the check that fed dims split evenly, and
``sess.sharding_of``. Without annotations a feed or a variable is
replicated, and a fetch is laid out as XLA chooses.
"""

from __future__ import annotations

import numpy as np

from ..graph import FeedError, GraphError, located
from ..graph.structural import sharding_of
from ..sharding import Mesh, NamedSharding, PartitionSpec, as_spec, check_axes, sdy_mesh, sdy_sharding
from . import pjrt
from .placement import check_divisible, global_shape, local_block, named_from_tiling, tiling

REPLICATED = PartitionSpec()


class MeshLayout:
    """The layouts of one Session's values on its mesh (``mesh`` None: one device)."""

    def __init__(self, graph, mesh: Mesh | None, devices: list):
        self.graph = graph
        self.mesh = mesh
        self.devices = devices  # what programs compile for: the mesh's, or one device
        self.partitioned = mesh is not None and mesh.size > 1
        self._variables: dict = {}
        self._placements: dict = {}
        # a mesh over several processes: this one holds the devices at ``local`` (positions)
        self.multiprocess = self.partitioned and pjrt.spans_processes(devices)
        me = devices[0].client.process_index()
        self.local = tuple(i for i, d in enumerate(devices) if d.process_index == me)

    # -- specs -----------------------------------------------------------------
    def declared(self, tensor):
        """The spec the graph gives ``tensor`` (a placeholder, a variable or its new value, a
        constrained value), or None."""
        node = tensor.node
        traits = node.op.traits
        if "writes_variable" in traits:
            spec = self.variable_spec(node.attrs.var)
        elif "layout" in traits:
            spec = sharding_of(node)
        else:
            return None
        return None if spec is None else self._checked(spec, node)

    def variable_spec(self, name: str) -> PartitionSpec:
        """A variable's declared spec (replicated when it has none)."""
        var = self._variables.get(name)
        if var is None:
            self._variables = {v.var_name: v for v in self.graph.variables}
            var = self._variables.get(name)
        spec = None if var is None else sharding_of(var.node)
        return REPLICATED if spec is None else self._checked(spec, var.node)

    def _checked(self, spec, node) -> PartitionSpec:
        spec = as_spec(spec)
        if self.mesh is not None:
            try:
                check_axes(spec, self.mesh, f"{node.op.name} {node.name}")
            except GraphError as e:
                raise GraphError(located(str(e), node.location, node.name)) from None
        return spec

    def program_specs(self, fed_ts, state_in, fetches, state_out):
        """(argument specs, result specs) of a program: feeds, then state read; fetches, then
        state written. Feeds and state default to replicated; fetches to XLA's choice (None)."""
        args = [self.declared(t) or REPLICATED for t in fed_ts]
        args += [self.variable_spec(v) for v in state_in]
        results = [self.declared(t) for t in fetches]
        results += [self.variable_spec(v) for v in state_out]
        return args, results

    def check_feeds(self, fed) -> None:
        """FeedError for a fed dim that does not split evenly over its mesh axes."""
        if not self.partitioned:
            return
        for t, arr in fed:
            spec = self.declared(t)
            if spec is not None:
                try:
                    check_divisible(t.name, arr.shape, spec, self.mesh)
                except FeedError as e:  # led by the user's line that made the placeholder
                    raise FeedError(located(str(e), t.node.location)) from None

    def as_global(self, fed) -> list:
        """On a mesh over several processes, each feed is this process's block of the global
        value its spec splits: the feeds as stand-ins of the global shapes (for lowering)."""
        out = []
        for t, arr in fed:
            spec = self.declared(t) or REPLICATED
            block = local_block(tiling(spec, self.mesh, arr.ndim), self.local, arr.ndim)
            shape = None if block is None else global_shape(arr.shape, block)
            if shape is None:
                held = "?" if block is None else " x ".join(str(n) for _, n, _ in block)
                raise FeedError(
                    located(
                        f"feed for {t.name} has shape {arr.shape}: with sharding {tuple(spec)!r} on {self.mesh!r} "
                        f"it is this process's block of the global value, split {held} over its devices; "
                        "give each split dim a multiple of its pieces",
                        t.node.location,
                    )
                )
            out.append((t, arr if shape == arr.shape else np.broadcast_to(np.zeros((), arr.dtype), shape)))
        return out

    def gather_text(self, name: str, shape, dtype) -> str:
        """A program that returns a variable's value replicated on every device (so every
        process can read the whole of one split over several processes)."""
        ty = f"tensor<{''.join(f'{n}x' for n in shape)}{_ELEMENT[np.dtype(dtype).name]}>"
        split = sdy_sharding(self.variable_spec(name), len(shape))
        whole = sdy_sharding(REPLICATED, len(shape))
        n = self.mesh.size
        return (
            f"module @gather attributes {{mhlo.num_partitions = {n} : i32, mhlo.num_replicas = 1 : i32}} {{\n"
            f"  sdy.mesh @{self.mesh.symbol} = {sdy_mesh(self.mesh)[len('#sdy.mesh') :]}\n"
            f"  func.func public @main(%a: {ty} {{sdy.sharding = {split}}}) -> ({ty} {{sdy.sharding = {whole}}}) {{\n"
            f"    return %a : {ty}\n  }}\n}}\n"
        )

    # -- buffers -----------------------------------------------------------------
    def placement(self, name: str, rank: int):
        """Where a variable's buffer lives: one device, or split over the mesh by its spec."""
        if not self.partitioned:
            return pjrt.placed(self.devices)
        key = (name, rank)
        where = self._placements.get(key)
        if where is None:
            tile = tiling(self.variable_spec(name), self.mesh, rank)
            where = self._placements[key] = pjrt.placed(self.devices, tile)
        return where

    # -- sess.sharding_of ----------------------------------------------------------
    def sharding_of(self, tensor, programs) -> NamedSharding | None:
        """The layout of ``tensor`` on the mesh: declared, else as one of the compiled ``programs``
        that fetches it lays it out. None without a mesh."""
        if self.mesh is None:
            return None
        spec = self.declared(tensor)
        if spec is not None:
            return NamedSharding(self.mesh, spec)
        rank = len(tensor.type.shape)
        if not self.partitioned:
            return NamedSharding(self.mesh, REPLICATED)
        for program in programs:
            plan = program.plan
            slot = next((i for i, t in enumerate(plan.fetches) if t is tensor), None)
            if slot is not None:
                if plan.fetch_slots is not None:
                    slot = plan.fetch_slots[slot]
                tile = program.executable.out_shardings[slot].tile
                named = named_from_tiling(tile, self.mesh, rank)
                if named is not None:
                    return named
                raise GraphError(
                    f"{tensor.name} is laid out in a way no PartitionSpec on {self.mesh!r} names"
                )
        raise GraphError(
            f"the layout of {tensor.name} is XLA's choice and no run of this Session has fetched it yet: "
            "fetch it once, or pin it with sg.sharding_constraint"
        )


_ELEMENT = {  # numpy dtype name -> MLIR element type
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
    "bfloat16": "bf16", "float16": "f16", "float32": "f32", "float64": "f64",
    "complex64": "complex<f32>", "complex128": "complex<f64>",
    "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2", "float8_e4m3fnuz": "f8E4M3FNUZ",
    "float8_e5m2fnuz": "f8E5M2FNUZ",
}  # fmt: skip
