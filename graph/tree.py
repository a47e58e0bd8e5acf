"""Nested structures of leaves (lists, tuples, dicts, None) for fetches and results.

``flatten(nest)`` gives the leaves and a treedef; ``unflatten(treedef, leaves)``
rebuilds the same structure. Dicts keep their key order. ``register_node`` adds
a class of the ops layer as a nest of its own (sg.random's typed KeyArray: a
nest of one leaf, its uint32 data), so fetches, transforms and calls see through it. ``describe`` and
``leaf_paths`` spell a treedef for error messages. ``prefix_leaves`` spreads a
prefix nest (jax's in_axes, shard_map's specs) over the leaves of a treedef.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_NODES: dict[type, tuple[Callable[[Any], tuple], Callable[[list], Any]]] = {}


def register_node(cls: type, children: Callable[[Any], tuple], rebuild: Callable[[list], Any]) -> None:
    """Make instances of ``cls`` nests: ``children(x)`` their parts, ``rebuild(parts)`` one again."""
    _NODES[cls] = (children, rebuild)


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
    node = _NODES.get(type(x))
    if node is not None:
        return (type(x), tuple(_flatten(v, leaves, is_leaf) for v in node[0](x)))
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
    if kind in _NODES:
        return _NODES[kind][1](items)
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


class PrefixMismatch(Exception):
    """Where a prefix nest does not fit a treedef: ``path`` (an indexing suffix, '' at the top),
    ``entry`` (the prefix's part there), ``subtree`` (the treedef there) and ``problem``:
    "not_a_nest" (the entry is neither a leaf entry nor a tuple/list/dict), "leaf" (a nest of
    entries where the value is one leaf or None), "kind" (a dict against a sequence or back),
    "keys" (other keys or another length)."""

    def __init__(self, problem: str, path: str, entry, subtree):
        super().__init__(problem, path)
        self.problem, self.path, self.entry, self.subtree = problem, path, entry, subtree


def prefix_leaves(prefix, treedef, is_entry: Callable[[Any], bool], path: str = "") -> list:
    """One entry of ``prefix`` per leaf of ``treedef``: an entry (``is_entry``) stands for every
    leaf below it, and tuples, lists and dicts of entries follow the nest's own. Raises
    PrefixMismatch where the two disagree, for the caller to word."""
    if is_entry(prefix):
        return [prefix] * len(leaf_paths(treedef))
    if not isinstance(prefix, tuple | list | dict):
        raise PrefixMismatch("not_a_nest", path, prefix, treedef)
    if treedef is None or treedef == ("none",):
        raise PrefixMismatch("leaf", path, prefix, treedef)
    children = dict(zip(treedef[1], treedef[2])) if treedef[0] is dict else list(treedef[1])
    if isinstance(prefix, dict) != isinstance(children, dict):
        raise PrefixMismatch("kind", path, prefix, treedef)
    keys = list(children) if isinstance(children, dict) else list(range(len(children)))
    if (list(prefix) if isinstance(prefix, dict) else list(range(len(prefix)))) != keys:
        raise PrefixMismatch("keys", path, prefix, treedef)
    return [e for k in keys for e in prefix_leaves(prefix[k], children[k], is_entry, f"{path}[{k!r}]")]
