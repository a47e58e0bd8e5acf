"""The sharding_constraint primitive: pin a tensor's layout on the device mesh (ops layer).

``sharding_constraint(x, spec)`` is x itself; on a Session's mesh it lowers
to ``sdy.sharding_constraint`` so that XLA lays the value out as ``spec``
says there (and propagates from it), and without a mesh to nothing. Its
derivative constrains the cotangent (or tangent) the same way; under
vectorize the batch dim is left unsplit.
"""

from __future__ import annotations

from ...graph import LAYOUT, LINEAR, Attrs, GraphError, OpDef, Tensor, TensorType, located, user_location
from ...graph.structural import SpecAttr, check_spec
from ...sharding import check_axes, sdy_sharding
from . import hlo
from .registry import bind

__all__ = ["sharding_constraint"]


class ShardingConstraintAttrs(Attrs):
    spec: SpecAttr

    @property
    def sharding(self):
        """The declared layout (the LAYOUT trait's field)."""
        return self.spec


def _sharding_constraint_infer(attrs, x: TensorType) -> TensorType:
    if len(attrs.spec) > len(x.shape):
        raise GraphError(
            f"sharding_constraint: spec {attrs.spec!r} has {len(attrs.spec)} entries for a value of rank "
            f"{len(x.shape)} ({x})"
        )
    return x


def _sharding_constraint_lower(ctx, attrs, x):
    mesh = ctx.mesh
    if mesh is None:
        return x
    try:
        check_axes(attrs.spec, mesh, "sharding_constraint")
    except GraphError as e:
        raise GraphError(located(str(e), ctx.node.location, ctx.node.name)) from None
    sharding = hlo.ir.Attribute.parse(sdy_sharding(attrs.spec, len(ctx.in_types[0].shape)))
    op = hlo.ir.Operation.create(
        "sdy.sharding_constraint", results=[x.type], operands=[x], attributes={"sharding": sharding}
    )
    return op.result


def _sharding_constraint_vjp(ctx, attrs, xs, ys, cts):
    ct = cts[0]
    return [None if ct is None else bind(sharding_constraint_op, ct, spec=attrs.spec)]


def _sharding_constraint_batch(ctx, attrs, xs, bdims):
    (x,), (bdim,) = xs, bdims
    rank = len(x.shape) - 1
    spec = list(attrs.spec) + [None] * (rank - len(attrs.spec))
    spec.insert(bdim, None)
    return [bind(sharding_constraint_op, x, spec=tuple(spec))], [bdim]


sharding_constraint_op = OpDef(
    "sharding_constraint",
    _sharding_constraint_infer,
    _sharding_constraint_lower,
    attrs=ShardingConstraintAttrs,
    vjp=_sharding_constraint_vjp,
    batch=_sharding_constraint_batch,
    traits=LINEAR | LAYOUT,
    doc="x, laid out on the Session's mesh as its spec says (sdy.sharding_constraint); x without a mesh.",
)


def sharding_constraint(x: Tensor, spec) -> Tensor:
    """``x``, laid out over the Session's mesh by ``spec`` (a PartitionSpec): XLA splits the
    value there and propagates the layout around it. No-op on one device.

    Lowers to ``sdy.sharding_constraint``. Example::

        h = sg.sharding_constraint(sg.nn.relu(x @ w1), sg.PartitionSpec("data", "model"))
    """
    if not isinstance(x, Tensor):
        raise GraphError(
            located(f"sharding_constraint wants a Tensor, got {type(x).__name__}", user_location())
        )
    entries = check_spec(spec, x.shape, "sharding_constraint")
    return bind(sharding_constraint_op, x, spec=entries, name="sharding_constraint")
