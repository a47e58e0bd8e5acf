"""The error types users see (graph layer).

Every error that points at a graph node says where the user built it:
``train.py:17 (node model/dense/matmul): matmul wants ...``. The helper
``located`` formats that prefix in one place.
"""

from __future__ import annotations


class StablegraphError(Exception):
    """Base class of every error stablegraph raises on purpose."""


class GraphError(StablegraphError, ValueError):
    """Raised while building or transforming a graph: bad types, shapes, usage."""


class FeedError(StablegraphError, ValueError):
    """Raised by Session.run for a missing, extra or mistyped feed."""


class CompileError(StablegraphError, RuntimeError):
    """XLA refused to compile the lowered graph; names the nodes involved."""


class ExecutionError(StablegraphError, RuntimeError):
    """The compiled program failed at run time; names the nodes involved."""


class CheckpointError(StablegraphError, ValueError):
    """A checkpoint is missing, unreadable, or does not match the graph's variables."""


def located(message: str, location=None, node_name: str | None = None) -> str:
    """Prefix a message with the user's file:line and the node name, if known."""
    where = []
    if location is not None:
        where.append(str(location))
    if node_name:
        where.append(f"(node {node_name})")
    return f"{' '.join(where)}: {message}" if where else message
