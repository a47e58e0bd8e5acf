"""Checkpoint policies: which values sg.checkpoint keeps for the gradient (ops layer).

``sg.checkpoint(f, policy=...)`` asks its policy about every op application
in ``f``: ``policy(op, *in_types, **attrs) -> bool`` gets the op's OpDef,
its operands' TensorTypes and its attributes, as jax's policies get the
primitive, the avals and the params. True keeps the outputs for the
gradient (if the backward pass reads them), False recomputes them from the
function's inputs there. The function's inputs are always kept. These are
jax.checkpoint_policies' names and meanings, reachable as
``sg.checkpoint_policies``.

    step = sg.checkpoint(layer, policy=sg.checkpoint_policies.dots_saveable)
"""

from __future__ import annotations

from .primitives.dot_general import dot_general_op
from .primitives.remat import checkpoint_name_op


def everything_saveable(op, *in_types, **attrs) -> bool:
    """Keep every value: no recomputation (the gradient of ``f`` without checkpoint)."""
    return True


def nothing_saveable(op, *in_types, **attrs) -> bool:
    """Keep nothing but the inputs: recompute all of ``f`` (sg.checkpoint's default)."""
    return False


def dots_saveable(op, *in_types, **attrs) -> bool:
    """Keep the results of matrix products (dot_general); recompute the cheap elementwise rest."""
    return op is dot_general_op


def dots_with_no_batch_dims_saveable(op, *in_types, **attrs) -> bool:
    """Keep the results of matrix products without batch dims (``x @ w``, not batched matmuls)."""
    return op is dot_general_op and not attrs.get("lhs_batch") and not attrs.get("rhs_batch")


checkpoint_dots = dots_saveable
checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable


def save_only_these_names(*names: str):
    """A policy keeping the values named one of ``names`` by sg.checkpoint_name, and nothing else."""
    wanted = frozenset(names)

    def policy(op, *in_types, **attrs) -> bool:
        return op is checkpoint_name_op and attrs.get("name") in wanted

    return policy


def save_any_names_but_these(*names: str):
    """A policy keeping every value named by sg.checkpoint_name except those named one of ``names``."""
    unwanted = frozenset(names)

    def policy(op, *in_types, **attrs) -> bool:
        return op is checkpoint_name_op and attrs.get("name") not in unwanted

    return policy


def save_anything_except_these_names(*names: str):
    """A policy keeping every value except those named one of ``names`` by sg.checkpoint_name."""
    unwanted = frozenset(names)

    def policy(op, *in_types, **attrs) -> bool:
        return not (op is checkpoint_name_op and attrs.get("name") in unwanted)

    return policy


# jax's offloading policies move some kept values to host memory. A Session keeps every value on the
# device, so here a value they would offload is kept like a saved one: the same gradient, computed
# without recomputing it, at the device memory a saving policy costs.
def save_and_offload_only_these_names(
    *, names_which_can_be_saved, names_which_can_be_offloaded, offload_src="device", offload_dst="pinned_host"
):
    """Keep the values named in ``names_which_can_be_saved`` or ``names_which_can_be_offloaded``
    (kept on the device: stablegraph does not offload to the host), recompute the rest."""
    return save_only_these_names(*names_which_can_be_saved, *names_which_can_be_offloaded)


def offload_dot_with_no_batch_dims(offload_src="device", offload_dst="pinned_host"):
    """Keep the results of matrix products without batch dims (kept on the device: stablegraph does
    not offload to the host), as ``dots_with_no_batch_dims_saveable``."""
    return dots_with_no_batch_dims_saveable


def save_from_both_policies(policy_1, policy_2):
    """A policy keeping what either policy keeps."""

    def policy(op, *in_types, **attrs) -> bool:
        return bool(policy_1(op, *in_types, **attrs)) or bool(policy_2(op, *in_types, **attrs))

    return policy


__all__ = [
    "checkpoint_dots", "checkpoint_dots_with_no_batch_dims", "dots_saveable", "dots_with_no_batch_dims_saveable",
    "everything_saveable", "nothing_saveable", "offload_dot_with_no_batch_dims", "save_and_offload_only_these_names",
    "save_any_names_but_these", "save_anything_except_these_names", "save_from_both_policies",
    "save_only_these_names",
]  # fmt: skip
