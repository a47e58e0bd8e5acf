"""The operator table: what Tensor's operators and methods call, filled by the op sets (graph layer);
also Graph.to_json/from_json's codec, which graph/serialize.py installs (it imports graph.py).

It sits below the node classes so that the value core (dims' symbolic sizes) can reach the same
operators as Tensor without importing it: ``x.shape[0] * 2`` builds through the table too.
``SymbolicOperand`` marks values whose own operators build nodes (Tensor): a symbolic size meeting
one leaves the operation to it.
"""

from __future__ import annotations

from collections.abc import Callable

from .errors import GraphError

_OVERLOADS: dict[str, Callable] = {}


def register_overloads(table: dict[str, Callable]) -> None:
    """Install the functions Tensor operators and methods call (used by ops/)."""
    _OVERLOADS.update(table)


def overload(name: str) -> Callable:
    try:
        return _OVERLOADS[name]
    except KeyError:
        method = name if "." in name else f"Tensor.{name}"
        raise GraphError(f"{method} needs the op set: import stablegraph") from None


class SymbolicOperand:
    """Base of graph values whose operators build nodes (Tensor); no state, no behaviour."""

    __slots__ = ()


__all__ = ["SymbolicOperand", "overload", "register_overloads"]
