"""A kernel's sharding rule: how an sg.ffi_call runs per device under a Session's mesh (ops layer).

XLA's partitioner does not see into a custom call: under a mesh it gathers
the operands and runs the kernel whole on every device (checked on jaxlib
0.10.2: even a Shardy ``sdy.sharding_rule`` on the call only shards the
result after the gathered call). A user who knows the kernel works row by row
says so with ``sharding_rule=(in_specs, out_specs)``: PartitionSpecs, as
sg.spmd takes them, one per operand and per result (or one for all). The call
then lowers to an ``sdy.manual_computation`` over the mesh: each device's
kernel reads its blocks of the operands, as the specs split them, and writes
its blocks of the results; XLA moves data into that layout. Without a mesh,
or inside an sg.spmd region (already per device), the rule has no effect.

Vectorize adds leading axes to operands and results; they are never split, so
the rule's specs are kept for the trailing dims (``lead_in``, ``lead_out``).
"""

from __future__ import annotations

import math

from ...graph import GraphError, TensorType, located
from ...sharding import PartitionSpec, sdy_sharding
from .hlo import ir

Spec = tuple[tuple[str, ...], ...]  # per dim, the mesh axes it is split over


def normalize_rule(rule, in_ranks: list[int], out_ranks: list[int], location) -> tuple[tuple, tuple]:
    """``rule`` = ``(in_specs, out_specs)`` as per-dim axis tuples, one per operand and result."""
    if not (isinstance(rule, tuple | list) and len(rule) == 2):
        raise GraphError(located(
            f"sg.ffi_call: sharding_rule is (in_specs, out_specs), PartitionSpecs as sg.spmd takes them, "
            f"got {rule!r}", location,
        ))  # fmt: skip
    ins = _per_value(rule[0], in_ranks, "operand", location)
    outs = _per_value(rule[1], out_ranks, "result", location)
    return ins, outs


def _per_value(specs, ranks: list[int], what: str, location) -> tuple[Spec, ...]:
    if specs is None or isinstance(specs, PartitionSpec):
        specs = [specs] * len(ranks)
    elif not isinstance(specs, tuple | list) or len(specs) != len(ranks):
        raise GraphError(located(
            f"sg.ffi_call: sharding_rule wants one PartitionSpec per {what} ({len(ranks)}), or one for "
            f"all, got {specs!r}", location,
        ))  # fmt: skip
    return tuple(_spec(s, r, f"{what} {i}", location) for i, (s, r) in enumerate(zip(specs, ranks)))


def _spec(spec, rank: int, what: str, location) -> Spec:
    if spec is not None and not isinstance(spec, PartitionSpec):
        raise GraphError(located(f"sg.ffi_call: sharding_rule's spec for {what} is a PartitionSpec, "
                                 f"got {spec!r}", location))  # fmt: skip
    entries = tuple(spec or ())
    if len(entries) > rank:
        raise GraphError(located(
            f"sg.ffi_call: sharding_rule's spec {spec!r} for {what} has {len(entries)} entries for "
            f"rank {rank}", location,
        ))  # fmt: skip
    padded = (*entries, *(None,) * (rank - len(entries)))
    return tuple(() if e is None else (e,) if isinstance(e, str) else tuple(e) for e in padded)


def splits_over(mesh) -> tuple[tuple[str, int], ...] | None:
    """The mesh's (axis, size) pairs when it has more than one device; None otherwise."""
    if mesh is None:
        return None
    names = tuple(mesh.axis_names)
    shape = mesh.shape
    sizes = [shape[n] for n in names] if isinstance(shape, dict) else list(shape)
    axes = tuple((str(n), int(s)) for n, s in zip(names, sizes))
    return axes if math.prod(s for _, s in axes) > 1 else None


def inside_manual_region() -> bool:
    """Whether the op being emitted sits in an sdy.manual_computation (an sg.spmd body)."""
    op = ir.InsertionPoint.current.block.owner
    while op is not None:
        name = op.operation.name
        if name == "sdy.manual_computation":
            return True
        if name in ("func.func", "builtin.module"):
            return False
        op = op.operation.parent
    return False


def with_lead(spec: Spec, lead: int) -> Spec:
    return ((),) * lead + spec


def local_type(mesh, spec: Spec, ty: TensorType, what: str, node) -> TensorType:
    """One device's block of the (concrete) ``ty`` split by ``spec``."""
    sizes = dict(mesh)
    unknown = sorted({a for axes in spec for a in axes} - set(sizes))
    if unknown:
        raise GraphError(located(
            f"sg.ffi_call: sharding_rule names mesh axes {unknown} the Session's mesh "
            f"{tuple(sizes)} does not have", node.location, node.name,
        ))  # fmt: skip
    shape = []
    for i, (d, axes) in enumerate(zip(ty.shape, spec)):
        n = math.prod(sizes[a] for a in axes)
        if d % n:
            raise GraphError(located(
                f"sg.ffi_call: sharding_rule splits dim {i} of {what} {ty} over {axes} ({n} devices), "
                "which does not divide it", node.location, node.name,
            ))  # fmt: skip
        shape.append(d // n)
    return TensorType(tuple(shape), ty.dtype)


def sharding_attr(spec: Spec) -> ir.Attribute:
    entries = [None if not axes else axes[0] if len(axes) == 1 else axes for axes in spec]
    return ir.Attribute.parse(sdy_sharding(PartitionSpec(*entries), len(spec)))


__all__ = [
    "inside_manual_region",
    "local_type",
    "normalize_rule",
    "sharding_attr",
    "splits_over",
    "with_lead",
]
