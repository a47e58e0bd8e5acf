"""NamedSharding (a PartitionSpec bound to a Mesh) and its Shardy spelling (sharding layer).

The backend lowers shardings as Shardy (``sdy``) attributes; their text is
written here, in plain Python, so ops and backend spell them alike:
``sdy.mesh @mesh = <["data"=2, "model"=2]>`` and
``#sdy.sharding<@mesh, [{"data"}, {}]>``.
"""

from __future__ import annotations

from ..graph import GraphError, located, user_location
from .mesh import MESH_SYMBOL, Mesh
from .spec import as_spec


class NamedSharding:
    """How a value lies on a mesh: ``NamedSharding(mesh, PartitionSpec(None, "model"))``.

    Equal (and hash alike) when the meshes are equal and the specs name the
    same layout (trailing None entries do not count).
    """

    __slots__ = ("mesh", "spec")

    def __init__(self, mesh: Mesh, spec=()):
        if not isinstance(mesh, Mesh):
            raise GraphError(
                located(f"NamedSharding wants a Mesh, got {type(mesh).__name__}", user_location())
            )
        self.mesh = mesh
        self.spec = as_spec(spec)
        check_axes(self.spec, mesh, "NamedSharding", user_location())

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, NamedSharding)
            and self.mesh == other.mesh
            and self.spec.normalized() == other.spec.normalized()
        )

    def __hash__(self) -> int:
        return hash((self.mesh, self.spec.normalized()))

    def __repr__(self) -> str:
        return f"NamedSharding({self.mesh!r}, {self.spec!r})"

    def shard_shape(self, shape) -> tuple[int, ...]:
        """The shape of one device's piece of a value of ``shape`` (dims must divide evenly)."""
        return tuple(n // parts for n, parts in zip(shape, split_counts(self.spec, self.mesh, len(shape))))


def check_axes(spec, mesh: Mesh, what: str, where=None) -> None:
    """GraphError (located at ``where``, if given) if ``spec`` names an axis ``mesh`` lacks."""
    unknown = [a for a in as_spec(spec).axes if a not in mesh.shape]
    if unknown:
        raise GraphError(
            located(
                f"{what}: sharding {tuple(spec)!r} names axis {unknown[0]!r}, not an axis of {mesh!r}", where
            )
        )


def split_counts(spec, mesh: Mesh, rank: int) -> tuple[int, ...]:
    """Into how many pieces each of ``rank`` dims is split."""
    counts = []
    for entry in as_spec(spec).padded(rank):
        n = 1
        for a in () if entry is None else (entry,) if isinstance(entry, str) else entry:
            n *= mesh.shape[a]
        counts.append(n)
    return tuple(counts)


def sdy_mesh(mesh: Mesh) -> str:
    """The attribute of the module's ``sdy.mesh`` op: ``#sdy.mesh<["data"=2, "model"=2]>``."""
    return "#sdy.mesh<[" + ", ".join(f'"{a}"={n}' for a, n in mesh.shape.items()) + "]>"


def sdy_sharding(spec, rank: int, open_dims: bool = False) -> str:
    """``#sdy.sharding<@mesh, [{"data"}, {}]>`` for a value of ``rank``; ``open_dims`` lets the
    partitioner shard the spec's unnamed dims further (``{?}``) instead of keeping them whole."""
    empty = "{?}" if open_dims else "{}"
    dims = []
    for entry in as_spec(spec).padded(rank):
        axes = () if entry is None else (entry,) if isinstance(entry, str) else entry
        dims.append("{" + ", ".join(f'"{a}"' for a in axes) + "}" if axes else empty)
    return f"#sdy.sharding<@{MESH_SYMBOL}, [{', '.join(dims)}]>"
