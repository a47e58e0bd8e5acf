"""Nested structures of leaves (lists, tuples, dicts, None) for fetches and results.

``flatten(nest)`` gives the leaves and a treedef; ``unflatten(treedef, leaves)``
rebuilds the same structure. Dicts keep their key order. ``describe`` and
``leaf_paths`` spell a treedef for error messages.
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


def describe(treedef) -> str:
    """A treedef spelled like the nest it stands for, leaves as ``*``: ``(*, {'a': *})``."""
    if treedef is None:
        return "*"
    if treedef == ("none",):
        return "None"
    kind = treedef[0]
    if kind is dict:
        return "{" + ", ".join(f"{k!r}: {describe(sub)}" for k, sub in zip(treedef[1], treedef[2])) + "}"
    items = [describe(sub) for sub in treedef[1]]
    if kind is list:
        return "[" + ", ".join(items) + "]"
    if kind is tuple:
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return f"{kind.__name__}(" + ", ".join(items) + ")"


def leaf_paths(treedef) -> list[str]:
    """Each leaf's place in the nest, as an indexing suffix: ``[0]``, ``['a'][1]``, ``''`` for a bare leaf."""
    if treedef is None:
        return [""]
    if treedef == ("none",):
        return []
    if treedef[0] is dict:
        keyed = zip((f"[{k!r}]" for k in treedef[1]), treedef[2])
    else:
        keyed = zip((f"[{i}]" for i in range(len(treedef[1]))), treedef[1])
    return [key + rest for key, sub in keyed for rest in leaf_paths(sub)]
