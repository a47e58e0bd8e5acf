"""Nested structures of leaves (lists, tuples, dicts, None) for fetches and results.

``flatten(nest)`` gives the leaves and a treedef; ``unflatten(treedef, leaves)``
rebuilds the same structure. Dicts keep their key order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def flatten(nest, is_leaf: Callable[[Any], bool] | None = None):
    leaves: list = []
    treedef = _flatten(nest, leaves, is_leaf)
    return leaves, treedef


def _flatten(x, leaves, is_leaf):
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return None
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x), tuple(_flatten(v, leaves, is_leaf) for v in x))
    if isinstance(x, list | tuple):
        return (type(x), tuple(_flatten(v, leaves, is_leaf) for v in x))
    if isinstance(x, dict):
        return (dict, tuple(x.keys()), tuple(_flatten(v, leaves, is_leaf) for v in x.values()))
    if x is None:
        return ("none",)
    leaves.append(x)
    return None


def unflatten(treedef, leaves):
    it = iter(leaves)
    out = _build(treedef, it)
    return out


def _build(td, it):
    if td is None:
        return next(it)
    if td == ("none",):
        return None
    kind = td[0]
    if kind is dict:
        return {k: _build(sub, it) for k, sub in zip(td[1], td[2])}
    items = [_build(sub, it) for sub in td[1]]
    if kind is list:
        return items
    if kind is tuple:
        return tuple(items)
    return kind(*items)  # namedtuple
