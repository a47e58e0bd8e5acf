"""The error types users see (graph layer).

Every error that points at a graph node says where the user built it:
``train.py:17 (node model/dense/matmul): matmul wants ...``. The helper
``located`` formats that prefix in one place.
"""

from __future__ import annotations

from .location import user_location


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


class GraphTypeError(GraphError, TypeError):
    """A GraphError where Python's protocols expect a TypeError: a Tensor asked for its value
    (``float(x)``, ``np.asarray(x)``, ``if x:``) while the graph is built, or a graph object
    pickled. Code that tries a conversion and catches TypeError keeps working."""


class Unpicklable:
    """Mixin: pickling raises a GraphTypeError at the user's line with ``_pickle_advice``; so does
    copying, unless the class defines ``__deepcopy__``.

    Graphs, Tensors, Functions and Sessions hold op definitions, device buffers
    and user callables; a pickle of them would be a wrong or unloadable copy.
    """

    __slots__ = ()
    _pickle_advice = "save a graph with g.to_json() and variables with sess.save(path)"

    def __reduce_ex__(self, protocol):
        what = "pickled" if hasattr(type(self), "__deepcopy__") else "pickled or copied"
        raise GraphTypeError(
            located(f"a {type(self).__name__} cannot be {what}: {self._pickle_advice}", user_location())
        )
