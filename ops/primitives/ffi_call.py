"""The ffi_call primitive: a user's compiled kernel called through XLA's typed FFI (ops layer).

It lowers to the custom call jax.ffi emits: ``stablehlo.custom_call @target``
with ``api_version = 4`` and the typed attributes in ``backend_config`` as a
dictionary (ffi_attributes.py), row-major layouts. XLA finds the kernel by
target name and platform, so the target must have been registered
(``sg.ffi.register``, backend/ffi.py) for the Session's platform; the table
of what sg.ffi.register gave lives here (``note_registered``), for the
GraphError a compile of an unregistered target becomes (backend/ffi.py).

Rules: vectorize follows ``vmap_method`` ("sequential": a loop over the batch
in the program, one kernel call per lane; "expand_dims" and "broadcast_all":
one call on operands batched along a new leading axis, unbatched ones of size
1 or broadcast; None: a GraphError naming the call). No derivative of its own
(sg.custom_vjp / sg.custom_jvp give one). Under a mesh the call is one
instruction XLA's partitioner does not see into, so it runs on whole,
replicated operands, unless the user gives a sharding rule (ffi_sharding.py);
inside sg.spmd it runs per device on the device's shard.
"""

from __future__ import annotations

import itertools
import re

import numpy as np

from ...graph import (
    FOREIGN_CALL,
    Attrs,
    GraphError,
    OpDef,
    Tensor,
    TensorType,
    dtypes,
    located,
    user_location,
)
from ...graph.attrs import DimsAttr, DTypeAttr, ShapeAttr
from . import batching, hlo
from .constants import constant
from .ffi_attributes import FfiAttribute, backend_config, encode
from .ffi_sharding import (
    inside_manual_region,
    local_type,
    normalize_rule,
    sharding_attr,
    splits_over,
    with_lead,
)
from .hlo import ir, sh
from .registry import bind_node

VMAP_METHODS = ("sequential", "expand_dims", "broadcast_all")
_INSTANCES = itertools.count(1)
_REGISTERED: dict[str, set[str]] = {}  # target -> the platforms ("cpu", "gpu") a handler is registered for


def platform_kind(platform: str) -> str:
    """The platform a handler is registered for, in a Session's terms ("cuda" is "gpu")."""
    name = platform.strip().lower()
    return "gpu" if name in ("gpu", "cuda", "rocm") else name


def note_registered(target: str, platform: str) -> None:
    """Record that XLA has a handler for ``target`` on ``platform`` (sg.ffi.register calls it)."""
    _REGISTERED.setdefault(target, set()).add(platform_kind(platform))


def registered_platforms(target: str) -> tuple[str, ...]:
    """The platforms sg.ffi.register gave ``target`` a handler on (for messages), sorted."""
    return tuple(sorted(_REGISTERED.get(target, ())))


class FfiCallAttrs(Attrs):
    target: str
    shapes: tuple[ShapeAttr, ...]  # the kernel's results, as one call writes them
    dtypes: tuple[DTypeAttr, ...]
    attributes: tuple[FfiAttribute, ...] = ()
    vmap_method: str | None = None
    has_side_effect: bool = False
    # "sequential" vectorize: one level per vectorize, outermost first; each says which operands
    # carry that level's batch axis (leading, once the outer levels' axes are indexed away)
    lanes: tuple[tuple[bool, ...], ...] = ()
    lane_sizes: DimsAttr = ()
    instance: int = 0  # a side-effecting call's own number: simplify never merges two of them
    # the user's sharding rule (ffi_sharding.py): per operand and result, the mesh axes each dim is
    # split over; vectorize's leading axes (per operand, and on every result) are whole
    in_specs: tuple[tuple[tuple[str, ...], ...], ...] | None = None
    out_specs: tuple[tuple[tuple[str, ...], ...], ...] | None = None
    lead_in: tuple[int, ...] = ()
    lead_out: int = 0


def _infer(attrs: FfiCallAttrs, *in_types) -> tuple:
    return tuple(TensorType((*attrs.lane_sizes, *s), d) for s, d in zip(attrs.shapes, attrs.dtypes))


# -- lowering -----------------------------------------------------------------------------------
def _row_major(rank: int) -> ir.Attribute:
    return ir.DenseIntElementsAttr.get(np.arange(rank - 1, -1, -1, dtype=np.int64), type=ir.IndexType.get())


def _shape(v) -> list:
    return list(ir.RankedTensorType(v.type).shape)


def _element(v) -> ir.Type:
    return ir.RankedTensorType(v.type).element_type


def _custom_call(attrs: FfiCallAttrs, operands, result_types) -> list:
    """One call of the kernel on ``operands``: its results (MLIR values)."""
    attributes = {
        "call_target_name": ir.StringAttr.get(attrs.target),
        "has_side_effect": ir.BoolAttr.get(attrs.has_side_effect),
        "api_version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4),
        "backend_config": backend_config(attrs.attributes),
        "called_computations": ir.ArrayAttr.get([]),
        "operand_layouts": ir.ArrayAttr.get([_row_major(len(_shape(v))) for v in operands]),
        "result_layouts": ir.ArrayAttr.get(
            [_row_major(len(ir.RankedTensorType(t).shape)) for t in result_types]
        ),
    }
    op = sh.CustomCallOp.build_generic(
        results=list(result_types), operands=list(operands), attributes=attributes
    )
    return list(op.results)


def _lower(ctx, attrs: FfiCallAttrs, *values) -> list:
    mesh = splits_over(ctx.mesh)
    if attrs.in_specs is None or mesh is None or inside_manual_region():
        return _call_all_lanes(ctx, attrs, list(values), ctx.out_types)
    return _per_device(ctx, attrs, list(values), mesh)


def _call_all_lanes(ctx, attrs: FfiCallAttrs, values, out_types) -> list:
    depth = len(attrs.lanes)
    sizes = [ctx.dim(s) for s in attrs.lane_sizes]
    inner = [TensorType(t.shape[depth:], t.dtype) for t in out_types]
    return _call_lanes(attrs, values, attrs.lanes, sizes, inner)


class _PerDeviceBody:
    """The manual computation's body: the kernel on one device's blocks (ffi_sharding.py)."""

    def __init__(self, ctx, attrs: FfiCallAttrs, in_types, out_types):
        self.ctx, self.attrs, self.out_types = ctx, attrs, out_types
        self.local_types = [hlo.tensor_type(t) for t in in_types]

    def __call__(self, *values):
        return _call_all_lanes(self.ctx, self.attrs, list(values), self.out_types)


def _per_device(ctx, attrs: FfiCallAttrs, values, mesh) -> list:
    """The call under the user's sharding rule: one kernel call per device on its blocks."""
    leads = attrs.lead_in or (0,) * len(values)
    in_specs = [with_lead(s, n) for s, n in zip(attrs.in_specs, leads)]
    out_specs = [with_lead(s, attrs.lead_out) for s in attrs.out_specs]
    node = ctx.node
    local_in = [
        local_type(mesh, s, t, f"operand {i}", node) for i, (s, t) in enumerate(zip(in_specs, ctx.in_types))
    ]
    local_out = [
        local_type(mesh, s, t, f"result {i}", node) for i, (s, t) in enumerate(zip(out_specs, ctx.out_types))
    ]
    return hlo.manual_computation(
        [hlo.tensor_type(t) for t in ctx.out_types], values, [sharding_attr(s) for s in in_specs],
        [sharding_attr(s) for s in out_specs], [n for n, _ in mesh],
        _PerDeviceBody(ctx, attrs, local_in, local_out),
    )  # fmt: skip


def _call_lanes(attrs: FfiCallAttrs, values, lanes, sizes, inner) -> list:
    """The kernel called once per lane of each sequential level (``inner``: the types one call
    writes): a stablehlo.while per level that slices the batched operands at the lane and
    writes each result into its place."""
    if not lanes:
        return _custom_call(attrs, values, [hlo.tensor_type(t) for t in inner])
    batched, size = lanes[0], sizes[0]
    out_types = [TensorType(tuple(sizes) + tuple(t.shape), t.dtype) for t in inner]
    int32 = dtypes.int32

    def cond(i, *accs):
        return hlo.compare(i, hlo.constant(np.array(size, np.int32), int32), "LT", int32)

    def body(i, *accs):
        lane = [_lane_of(v, i) if b else v for v, b in zip(values, batched)]
        results = _call_lanes(attrs, lane, lanes[1:], sizes[1:], inner)
        placed = [_placed(acc, r, i) for acc, r in zip(accs, results)]
        return [sh.add(i, hlo.constant(np.array(1, np.int32), int32)), *placed]

    init = [hlo.constant(np.array(0, np.int32), int32)] + [hlo.full(t.shape, 0, t.dtype) for t in out_types]
    return hlo.while_loop(init, cond, body)[1:]


def _lane_of(v, i) -> ir.Value:
    """``v[i]`` (its leading axis indexed by the i32 scalar ``i``)."""
    shape = _shape(v)
    zero = hlo.constant(np.array(0, np.int32), dtypes.int32)
    piece = sh.dynamic_slice(v, [i] + [zero] * (len(shape) - 1), hlo.dense_i64([1, *shape[1:]]))
    return sh.reshape(ir.RankedTensorType.get(shape[1:], _element(v)), piece)


def _placed(acc, value, i) -> ir.Value:
    """``acc`` with ``acc[i] = value``."""
    shape = _shape(value)
    row = sh.reshape(ir.RankedTensorType.get([1, *shape], _element(value)), value)
    zero = hlo.constant(np.array(0, np.int32), dtypes.int32)
    return sh.dynamic_update_slice(acc, row, [i] + [zero] * len(shape))


# -- vectorize ----------------------------------------------------------------------------------
def _batch(ctx, attrs: FfiCallAttrs, xs, bdims):
    method = attrs.vmap_method
    if method is None:
        raise GraphError(located(
            f"sg.ffi_call({attrs.target!r}) cannot be vectorized without a vmap_method: give "
            "vmap_method='sequential' (one kernel call per lane), 'expand_dims' (one call, unbatched "
            "operands with a size-1 leading axis) or 'broadcast_all' (one call, every operand broadcast "
            "along the batch)",
            ctx.node.location, ctx.node.name,
        ))  # fmt: skip
    size = ctx.size
    leads = attrs.lead_in or (0,) * len(xs)
    if method == "sequential":
        inputs = [x if b is None else batching.batched_at(x, b, size, 0) for x, b in zip(xs, bdims)]
        update = {
            "lanes": (tuple(b is not None for b in bdims), *attrs.lanes),
            "lane_sizes": (size, *attrs.lane_sizes),
            "lead_in": tuple(n + (b is not None) for n, b in zip(leads, bdims)),
        }
    else:
        broadcast = method == "broadcast_all"
        inputs = [batching.leading_or_one(x, b, size, broadcast) for x, b in zip(xs, bdims)]
        update = {"shapes": tuple((size, *s) for s in attrs.shapes), "lead_in": tuple(n + 1 for n in leads)}
    update["lead_out"] = attrs.lead_out + 1
    node = bind_node(ctx.op, inputs, attrs.model_copy(update=update), name=node_name(attrs.target))
    return list(node.outputs), [0] * len(node.outputs)


_NO_DERIVATIVE = (
    "a compiled kernel has no derivative here: wrap the call in sg.custom_vjp (or sg.custom_jvp) and "
    "give one, e.g. a second kernel computing the backward pass (docs/ARCHITECTURE.md, 'XLA FFI kernels')"
)

ffi_call_op = OpDef(
    "ffi_call",
    _infer,
    _lower,
    attrs=FfiCallAttrs,
    batch=_batch,
    reasons={"vjp": _NO_DERIVATIVE, "jvp": _NO_DERIVATIVE},
    traits=FOREIGN_CALL,
    doc="A user's compiled kernel (C++, CUDA) called through XLA's typed FFI, with declared result types.",
)


# -- the public builder -------------------------------------------------------------------------
def ffi_call(
    target: str,
    result_types,
    *args,
    vmap_method=None,
    has_side_effect: bool = False,
    sharding_rule=None,
    **attributes,
):
    """The results of the kernel registered as ``target`` (sg.ffi.register) called on ``args``.

    ``result_types``: an sg.TensorType (or anything with shape and dtype), or a list or tuple of
    them: the buffers the kernel writes; dims may be symbolic (``("batch", 4)``), bound from the
    feeds when the Session runs. That the kernel writes exactly these types is the caller's
    contract: XLA hands the kernel buffers of these shapes and cannot check what it writes.
    ``args``: Tensors (or arrays, made constants), passed as the kernel's ``Arg`` buffers in
    order, row-major. ``attributes``: the kernel's typed ``Attr``s by name (see
    ops/primitives/ffi_attributes.py for how each Python value is typed: ``np.float32(1e-5)``
    is a float, ``1e-5`` a double, a dtype XLA's element-type number as an int32).
    ``vmap_method`` says how vectorize calls it ("sequential", "expand_dims", "broadcast_all";
    None refuses vectorize); ``has_side_effect`` keeps XLA from removing or merging the call.
    ``sharding_rule=(in_specs, out_specs)`` (PartitionSpecs as sg.spmd takes them, one per operand
    and per result, or one for all) says the kernel works on blocks: under a Session's mesh each
    device then calls it on its blocks (ops/primitives/ffi_sharding.py); without a rule the call
    runs whole, on gathered operands, on every device.
    Lowers to ``stablehlo.custom_call @target`` with ``api_version = 4``.

        y = sg.ffi_call("rms_norm", sg.TensorType(x.shape, x.dtype), x, eps=np.float32(1e-5),
                        vmap_method="broadcast_all")

    Returns one Tensor for one result type, a list for a list or tuple of them.
    """
    location = user_location()
    if not isinstance(target, str) or not target:
        raise GraphError(located(f"sg.ffi_call wants a target name (a str) first, got {target!r}", location))
    if vmap_method is not None and vmap_method not in VMAP_METHODS:
        raise GraphError(located(
            f"sg.ffi_call: vmap_method must be one of {VMAP_METHODS} or None, got {vmap_method!r}", location
        ))  # fmt: skip
    single = not isinstance(result_types, list | tuple)
    types = [_result_type(t, location) for t in ([result_types] if single else result_types)]
    inputs = [a if isinstance(a, Tensor) else constant(a) for a in args]  # numpy keeps its dtype
    in_specs = out_specs = None
    if sharding_rule is not None:
        ranks = [len(x.type.shape) for x in inputs], [len(t.shape) for t in types]
        in_specs, out_specs = normalize_rule(sharding_rule, *ranks, location)
    attrs = FfiCallAttrs(
        target=target, shapes=tuple(tuple(t.shape) for t in types), dtypes=tuple(t.dtype for t in types),
        attributes=encode(attributes, location), vmap_method=vmap_method, has_side_effect=bool(has_side_effect),
        instance=next(_INSTANCES) if has_side_effect else 0, in_specs=in_specs, out_specs=out_specs,
    )  # fmt: skip
    outputs = list(bind_node(ffi_call_op, inputs, attrs, name=node_name(target)).outputs)
    return outputs[0] if single else outputs


def node_name(target: str) -> str:
    """The name a call's node gets: its target's, so listings, drawings and errors say which kernel."""
    return re.sub(r"[^A-Za-z0-9_.\-]", "_", target)


def _result_type(t, location) -> TensorType:
    if isinstance(t, TensorType):
        return t
    if hasattr(t, "shape") and hasattr(t, "dtype"):
        return TensorType(tuple(t.shape), dtypes.dtype(t.dtype))
    raise GraphError(located(
        f"sg.ffi_call: a result type is an sg.TensorType (or has shape and dtype), got {t!r}", location
    ))  # fmt: skip


__all__ = [
    "FfiCallAttrs",
    "VMAP_METHODS",
    "ffi_call",
    "ffi_call_op",
    "note_registered",
    "registered_platforms",
]
