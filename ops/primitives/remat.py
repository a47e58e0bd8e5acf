"""The primitives rematerialization uses: optimization_barrier and checkpoint_name (ops layer).

sg.checkpoint (ops/checkpoint.py) recomputes a function's values in its
gradient instead of keeping them from the forward pass. Two small ops serve it:

- ``optimization_barrier`` passes its operands through unchanged, and XLA
  may neither move computation across it nor merge what follows it with
  what came before (stablehlo.optimization_barrier). The recomputation
  starts from its outputs, and the barrier also takes the cotangents: so
  XLA can neither fold the recomputation back into the forward pass (CSE)
  nor run it before the backward pass needs it.
- ``checkpoint_name(x, name)`` is the identity on a value, a node that
  carries a name for checkpoint policies (``save_only_these_names``) to
  ask for, as jax.ad_checkpoint.checkpoint_name.
"""

from __future__ import annotations

from ...graph import (
    Attrs,
    GraphError,
    NoAttrs,
    OpDef,
    Tensor,
    TensorType,
    flatten,
    located,
    unflatten,
    user_location,
)
from . import hlo
from .constants import constant
from .registry import bind_node


# -- optimization_barrier ------------------------------------------------------------
def _barrier_infer(attrs: NoAttrs, *xs: TensorType) -> tuple[TensorType, ...]:
    if not xs:
        raise GraphError("optimization_barrier wants at least one operand")
    return xs


def _barrier_lower(ctx, attrs: NoAttrs, *values):
    return list(hlo.sh.OptimizationBarrierOp(list(values)).results)


def _barrier_vjp(ctx, attrs: NoAttrs, xs, ys, cts):
    return list(cts)


def _barrier_batch(ctx, attrs: NoAttrs, xs, bdims):
    return list(bind_node(optimization_barrier_op, list(xs), NoAttrs()).outputs), list(bdims)


optimization_barrier_op = OpDef(
    "optimization_barrier",
    _barrier_infer,
    _barrier_lower,
    vjp=_barrier_vjp,
    batch=_barrier_batch,
    traits=frozenset({"linear"}),
    reasons={"fold": "it is there to stop optimizations, simplify's too"},
    doc="Its operands, unchanged, with no optimization across it; stablehlo.optimization_barrier.",
)


def optimization_barrier(values) -> list[Tensor]:
    """``values`` (a list of Tensors) unchanged, computed before anything that reads the results."""
    return list(bind_node(optimization_barrier_op, list(values), NoAttrs()).outputs)


# -- checkpoint_name -----------------------------------------------------------------
class NameAttrs(Attrs):
    name: str  # what checkpoint policies see (save_only_these_names, save_any_names_but_these)


def _name_infer(attrs: NameAttrs, x: TensorType) -> TensorType:
    return x


def _name_lower(ctx, attrs: NameAttrs, x):
    return x


def _name_vjp(ctx, attrs: NameAttrs, xs, ys, cts):
    return list(cts)


def _named(x: Tensor, attrs: NameAttrs) -> Tensor:
    return bind_node(checkpoint_name_op, [x], attrs).outputs[0]


def _name_batch(ctx, attrs: NameAttrs, xs, bdims):
    return [_named(xs[0], attrs)], list(bdims)


checkpoint_name_op = OpDef(
    "checkpoint_name",
    _name_infer,
    _name_lower,
    attrs=NameAttrs,
    vjp=_name_vjp,
    batch=_name_batch,
    traits=frozenset({"linear", "moves_data"}),
    reasons={"fold": "it marks a value for sg.checkpoint's policies: kept as it is"},
    doc="The identity, naming a value for sg.checkpoint's policies; lowers to nothing.",
)


def checkpoint_name(x, name: str):
    """``x`` (a Tensor or a nest of them) unchanged, named ``name`` for sg.checkpoint's policies.

    Inside a function given to ``sg.checkpoint(f, policy=sg.checkpoint_policies.
    save_only_these_names("h"))``, the values named "h" are kept for the
    gradient and the rest is recomputed. As jax.ad_checkpoint.checkpoint_name.

        h = sg.checkpoint_name(snp.tanh(x @ w), "h")
    """
    if not isinstance(name, str):
        raise GraphError(
            located(
                f"checkpoint_name wants a str name, got {type(name).__name__} {name!r:.40}", user_location()
            )
        )
    leaves, tree = flatten(x)
    named = [_named(v if isinstance(v, Tensor) else constant(v), NameAttrs(name=name)) for v in leaves]
    return unflatten(tree, named)


__all__ = ["checkpoint_name", "checkpoint_name_op", "optimization_barrier", "optimization_barrier_op"]
