"""PartitionSpec: how a value's dims split over named mesh axes (sharding layer).

A spec is a tuple with one entry per leading dim of a value: None (the dim
is whole on every device), an axis name (split over that mesh axis) or a
tuple of names (split over their product, the first name major). Dims past
the spec's end are replicated, so ``PartitionSpec()`` is fully replicated.
Specs name axes only; a NamedSharding binds one to a Mesh.
"""

from __future__ import annotations

from ..graph import GraphError, located, user_location
from ..graph.structural import spec_axes, spec_entries


def _entries(entries) -> tuple:
    """The entries checked, a mistake being a GraphError at the user's line."""
    try:
        return spec_entries(entries)
    except GraphError as e:
        raise GraphError(located(f"PartitionSpec: {e}", user_location())) from None


class PartitionSpec(tuple):
    """``PartitionSpec("data", None)``: dim 0 split over mesh axis ``data``, dim 1 whole."""

    __slots__ = ()

    def __new__(cls, *entries):
        return super().__new__(cls, _entries(entries))

    def __repr__(self) -> str:
        return f"PartitionSpec({', '.join(repr(e) for e in self)})"

    @property
    def axes(self) -> tuple[str, ...]:
        """Every mesh axis the spec splits over, in order."""
        return tuple(a for e in self for a in spec_axes(e))

    def padded(self, rank: int) -> PartitionSpec:
        """The spec with None entries up to ``rank``."""
        return PartitionSpec(*self, *(None,) * (rank - len(self)))

    def normalized(self) -> tuple:
        """The canonical form equal layouts share: one-name tuples as the name, no trailing None."""
        entries = [e[0] if isinstance(e, tuple) and len(e) == 1 else (e or None) for e in self]
        while entries and entries[-1] is None:
            entries.pop()
        return tuple(entries)


def as_spec(spec) -> PartitionSpec:
    """A PartitionSpec from one, a tuple or a list of entries."""
    if type(spec) is PartitionSpec:
        return spec
    if isinstance(spec, str) or spec is None:
        raise GraphError(
            located(
                f"a sharding spec is a PartitionSpec or a tuple of axis names, got {spec!r}", user_location()
            )
        )
    return PartitionSpec(*spec)
