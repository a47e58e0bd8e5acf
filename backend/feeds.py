"""Checking feeds against placeholders and binding symbolic dims (backend).

A wrong feed is reported here, in Python, and never reaches XLA: a missing
placeholder, a name that is not in the graph, a rank or size mismatch, a
dtype that numpy's same_kind casting would not allow, or one symbol bound to
two sizes.
"""

from __future__ import annotations

import numpy as np

from ..graph import FeedError, GraphError, Tensor
from ..graph.dims import evaluate, factors


def resolve(graph, key) -> Tensor:
    """A feed or fetch key (Tensor or name) as a Tensor of ``graph``."""
    if isinstance(key, Tensor):
        if key.graph is not graph:
            raise FeedError(f"tensor {key.name} belongs to another graph ({key.graph.name!r})")
        return key
    if isinstance(key, str):
        try:
            return graph.tensor(key)
        except GraphError as e:
            raise FeedError(str(e)) from None
    raise FeedError(f"feeds and fetches are Tensors or names, got {type(key).__name__}")


def convert(tensor: Tensor, value) -> np.ndarray:
    """The fed value as a numpy array of the tensor's dtype (same_kind casting)."""
    ty = tensor.node.out_types[tensor.index]
    want = ty.dtype.np
    arr = value if type(value) is np.ndarray else np.asarray(value)
    if arr.dtype is want and arr.ndim == len(ty.shape):
        return arr
    if arr.dtype != want:
        if not np.can_cast(arr.dtype, want, casting="same_kind"):
            raise FeedError(
                f"feed for {tensor.name} has dtype {arr.dtype}, which does not cast to "
                f"{tensor.dtype.name} (same_kind); convert it first"
            )
        arr = arr.astype(want)
    if arr.ndim != len(tensor.type.shape):
        raise FeedError(f"feed for {tensor.name} has shape {arr.shape}, expected {_spelled(tensor)}")
    return arr


def bind(fed: list[tuple[Tensor, np.ndarray]]) -> dict[str, int]:
    """Symbol -> size from the feeds; FeedError on any mismatch."""
    bindings: dict[str, int] = {}
    source: dict[str, str] = {}
    later = []
    for t, arr in fed:
        for d, n in zip(t.type.shape, arr.shape):
            if isinstance(d, int):
                if d != n:
                    raise FeedError(f"feed for {t.name} has shape {arr.shape}, expected {_spelled(t)}")
                continue
            coef, syms = factors(d)
            if coef != 1 or len(syms) != 1:
                later.append((t, arr))
                continue
            if d in bindings and bindings[d] != n:
                raise FeedError(
                    f"dim {d} is {bindings[d]} in the feed for {source[d]} but {n} in the feed for "
                    f"{t.name} (shape {arr.shape})"
                )
            bindings[d], source[d] = n, t.name
    for t, arr in later:
        try:
            want = tuple(evaluate(d, bindings) for d in t.type.shape)
        except KeyError:
            continue
        if want != arr.shape:
            raise FeedError(f"feed for {t.name} has shape {arr.shape}, expected {_spelled(t)} = {want}")
    return bindings


def _spelled(t: Tensor) -> str:
    return "(" + ", ".join(str(d) for d in t.type.shape) + ")" + f" {t.dtype.name}"
