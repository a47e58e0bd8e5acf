"""Gradient clipping by global norm, as TF1's tf.clip_by_global_norm (train layer).

``clipped, norm = sg.optim.clip_by_global_norm(grads, 1.0)`` scales every
tensor by ``max_norm / max(norm, max_norm)``, where ``norm`` is the 2-norm
of all of them taken together; so the direction of the whole gradient is
kept. None entries pass through (a variable without a gradient).
"""

from __future__ import annotations

from ...graph import GraphError, Tensor, dtypes, library, located, user_location
from ...ops import numpy_like as snp
from ...ops.numpy_like.core import asarray
from . import checks

__all__ = ["global_norm", "clip_by_global_norm"]


def _norm_dtype(tensors):
    return dtypes.float64 if any(t.dtype is dtypes.float64 for t in tensors) else dtypes.float32


def _tensor_list(tensors, who: str) -> list:
    """``tensors`` as a list: a list, tuple or other iterable of tensors, but not one Tensor (whose rows
    a list() would silently take)."""
    if isinstance(tensors, Tensor):
        raise checks.type_error(f"{who} wants a list of tensors, got one Tensor {tensors.name}: pass [t]")
    try:
        return list(tensors)
    except TypeError:
        raise checks.type_error(f"{who} wants a list of tensors, got {type(tensors).__name__}") from None


@library()
def global_norm(tensors) -> Tensor:
    """``sqrt(sum of squares of every element of every tensor)``; None entries are skipped.

    Sums in float32 (float64 if any tensor is float64), whatever the tensors' dtypes.
    """
    present = [asarray(t) for t in _tensor_list(tensors, "global_norm") if t is not None]
    if not present:
        raise GraphError(located("global_norm wants at least one tensor", user_location()))
    bad = [t for t in present if t.dtype.kind != "f"]
    if bad:
        raise GraphError(located(f"global_norm wants floating tensors, got {bad[0].type}", user_location()))
    dt = _norm_dtype(present)
    total = None
    for t in present:
        t = t.astype(dt)
        s = snp.sum(t * t)
        total = s if total is None else total + s
    return snp.sqrt(total)


@library()
def clip_by_global_norm(tensors, max_norm, norm: Tensor | None = None):
    """Scale ``tensors`` so that their global norm is at most ``max_norm``; returns ``(clipped, norm)``.

    ``norm`` is the global norm before clipping (pass one already computed to
    reuse it). Each clipped tensor keeps its dtype; None entries stay None.

        grads, norm = sg.optim.clip_by_global_norm(grads, 5.0)
    """
    tensors = _tensor_list(tensors, "clip_by_global_norm")
    if not isinstance(max_norm, Tensor):  # a Tensor is checked by nobody: its value comes later
        checks.number("clip_by_global_norm: max_norm", max_norm, 0.0, low_open=True)
    if norm is None:
        norm = global_norm(tensors)
    max_norm = asarray(max_norm, norm.dtype)
    scale = max_norm / snp.maximum(norm, max_norm)
    clipped = [None if t is None else asarray(t) * scale.astype(asarray(t).dtype) for t in tensors]
    return clipped, norm
