"""Products in numpy spelling: matmul, dot, tensordot, einsum (ops layer)."""

from __future__ import annotations

from ..linalg import dot_general
from .core import asarray, broadcast_shapes, broadcast_to, error, result_dtype
from .manipulation import expand_dims, squeeze


def matmul(a, b):
    """Matrix product with numpy semantics: 1-d operands and batch broadcasting."""
    dt = result_dtype(a, b)
    x, y = asarray(a, dt), asarray(b, dt)
    if x.ndim == 0 or y.ndim == 0:
        raise error(f"matmul wants operands of rank >= 1, got {x.type} and {y.type}")
    x1, y1 = x.ndim == 1, y.ndim == 1
    if x1:
        x = expand_dims(x, 0)
    if y1:
        y = expand_dims(y, 1)
    if x.shape[-1] != y.shape[-2]:
        raise error(f"matmul wants x.shape[-1] == y.shape[-2], got {x.shape} and {y.shape}")
    batch = broadcast_shapes(x.shape[:-2], y.shape[:-2])
    x = broadcast_to(x, batch + tuple(x.shape[-2:]))
    y = broadcast_to(y, batch + tuple(y.shape[-2:]))
    nb = len(batch)
    out = dot_general(x, y, ((x.ndim - 1,), (nb,)), (tuple(range(nb)), tuple(range(nb))))
    if x1:
        out = squeeze(out, -2)
    if y1:
        out = squeeze(out, -1)
    return out


__all__ = ["matmul"]
