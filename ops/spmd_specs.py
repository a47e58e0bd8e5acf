"""sg.spmd's in_specs and out_specs: prefixes of nests, normalized specs, the replication check (ops layer).

As in jax's shard_map, ``in_specs`` is a nest of PartitionSpecs that is a
prefix of the arguments' nest (a spec stands for every leaf below it): one
spec for everything, a tuple with one entry per argument, a dict of specs
for a dict argument. ``out_specs`` is the same for the body's results. Each
spec becomes, per dim, the tuple of mesh axes the dim is split over.

An out_spec that leaves out a mesh axis promises that the output is the
same on every device along it; ``check_replicated`` holds the body to that
promise with ops/primitives/replication.py, so a per-device value is never returned as
if it were the whole one. Every mistake is a GraphError at the user's line.
"""

from __future__ import annotations

from ..graph import GraphError, located, user_location
from ..graph.tree import PrefixMismatch, describe, prefix_leaves
from ..sharding import PartitionSpec
from .primitives.replication import varies

Spec = tuple[tuple[str, ...], ...]  # per dim, the mesh axes it is split over (major first)


def error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def is_spec(x) -> bool:
    """A leaf of a spec nest: a PartitionSpec (ours or one spelled like it), or None (replicated)."""
    return x is None or type(x).__name__ == "PartitionSpec"


def specs_for(specs, tree, what: str) -> list:
    """One spec per leaf of the nest ``tree``, ``specs`` being a prefix of it (``what``: in_specs ...)."""
    if tree is None and isinstance(specs, tuple | list) and len(specs) == 1 and is_spec(specs[0]):
        return [specs[0]]  # a single result given a one-spec tuple, as sg.spmd always allowed
    return _prefix(specs, tree, what, "")


def _prefix(specs, tree, what: str, path: str) -> list:
    try:
        return prefix_leaves(specs, tree, is_spec)
    except PrefixMismatch as e:
        raise _mismatch(e, what) from None


def _mismatch(e: PrefixMismatch, what: str) -> GraphError:
    """The error for a spec nest that does not fit the values, worded for spmd's users."""
    where, specs, tree = f"{what}{e.path}", e.entry, e.subtree
    if e.problem == "not_a_nest":
        return error(
            f"spmd: {where} is {specs!r} (a {type(specs).__name__}): give a PartitionSpec such as P('x'), "
            "or a tuple/list/dict of them matching the values"
        )
    if e.problem == "leaf":
        got = "a single value" if tree is None else "None"
        return error(f"spmd: {where} is a {type(specs).__name__} of specs, but the value there is {got}")
    if e.problem == "kind":
        return error(
            f"spmd: {where} is a {type(specs).__name__} of specs, but the value there is structured as "
            f"{describe(tree)}"
        )
    if not e.path:  # the top: the arguments or the results
        keys = tree[1]
        count = f"{len(keys)} argument{'s' * (len(keys) != 1)}" if what == "in_specs" else (
            f"returns {describe(tree)}")  # fmt: skip
        has = f"is called with {count}" if what == "in_specs" else count
        return error(f"spmd: {what} has {_keys(specs)}, but the function {has}")
    return error(f"spmd: {where} has {_keys(specs)}, but the value there is structured as {describe(tree)}")


def _keys(specs) -> str:
    if isinstance(specs, dict):
        return "the keys " + ", ".join(repr(k) for k in specs)
    return f"{len(specs)} entr{'y' if len(specs) == 1 else 'ies'}"


def normalize(spec, rank: int, mesh, what: str) -> Spec:
    """``spec`` (a PartitionSpec or None) as per-dim axis tuples for a value of ``rank``."""
    entries = _entries(spec, what)
    if len(entries) > rank:
        raise error(f"{what}: spec {_spelled(entries)} has {len(entries)} entries for a value of rank {rank}")
    names = [n for n, _ in mesh]
    out = []
    for e in (*entries, *(None,) * (rank - len(entries))):
        axes = () if e is None else (e,) if isinstance(e, str) else tuple(e)
        unknown = [a for a in axes if a not in names]
        if unknown:
            raise error(
                f"{what}: spec {_spelled(entries)} names {unknown}, not axes of the mesh {tuple(names)}"
            )
        out.append(axes)
    used = [a for axes in out for a in axes]
    if len(set(used)) != len(used):
        raise error(f"{what}: spec {_spelled(entries)} uses a mesh axis twice")
    return tuple(out)


def _entries(spec, what: str) -> tuple:
    if spec is None:
        return ()
    try:
        return tuple(PartitionSpec(*spec))
    except GraphError as e:
        raise error(f"{what}: {e}") from None


def _spelled(entries) -> str:
    return repr(PartitionSpec(*entries))


def check_replicated(body, in_specs, out_specs, mesh, paths, name: str) -> None:
    """GraphError unless every result of ``body`` is the same on all devices along each mesh axis its
    out_spec leaves out (axes of one device hold one copy and need no check)."""
    sizes = dict(mesh)
    vary = varies(body, [{a for axes in s for a in axes} for s in in_specs] + [()] * len(body.captures))
    for j, (v, spec, path) in enumerate(zip(vary, out_specs, paths)):
        named = {a for axes in spec for a in axes}
        loose = [a for a, _ in mesh if a in v and a not in named and sizes[a] > 1]
        if loose:
            axes = ", ".join(repr(a) for a in loose)
            one = loose[0] if len(loose) == 1 else tuple(loose)
            raise error(
                f"spmd {name}: {result_path(path)} ({body.out_types[j]} per device) has out_spec {_spelled(_as_entries(spec))}, "
                f"which promises it is the same on every device along mesh axis {axes}, but it varies along "
                f"{'it' if len(loose) == 1 else 'them'} (it depends on a value split over {axes} or on "
                f"axis_index): reduce it with sg.psum / sg.pmean / sg.all_gather over {one!r}, or name the "
                "axis in its out_spec to get every device's piece"
            )


def result_path(path: str) -> str:
    return f"result{path}" if path else "the result"


def _as_entries(spec: Spec) -> tuple:
    entries = [None if not axes else axes[0] if len(axes) == 1 else axes for axes in spec]
    while entries and entries[-1] is None:
        entries.pop()
    return tuple(entries)


__all__ = ["Spec", "check_replicated", "error", "is_spec", "normalize", "result_path", "specs_for"]
