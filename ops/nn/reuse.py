"""Layers that share their Variables: the ``reuse=`` switch of sg.nn's layers (ops layer).

TF1's ``tf.layers`` habits: a layer named like an earlier one makes a new
layer (``fc``, then ``fc_1``) unless it is told to share. ``reuse=True``
shares the Variables of the layer of that name in the current scope
(``fc/kernel``, ``fc/bias``), checking that it asks for the same shapes; a
missing or different variable is a GraphError at the user's line.
``reuse=sg.AUTO_REUSE`` shares when that layer exists and makes it when it
does not. Either way the reusing call's ops get a scope of their own
(``fc_1``), as in TF1, while the Variables it reads stay ``fc/...``; layers
built inside a reusing one (none today, but any Variable built in its scope)
share too.
"""

from __future__ import annotations

from contextlib import contextmanager

from ...graph import GraphError, current_graph, library_call, located, user_location

__all__ = ["AUTO_REUSE"]


class _AutoReuse:
    """The ``reuse=`` value that shares a layer's Variables when they exist and makes them when not."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "sg.AUTO_REUSE"


AUTO_REUSE = _AutoReuse()


@contextmanager
def layer_call(fn: str, name: str, reuse):
    """``library_call(fn, name)`` for a layer that owns Variables, sharing them as ``reuse`` says."""
    if reuse is not None and reuse is not True and reuse is not False and reuse is not AUTO_REUSE:
        raise GraphError(
            located(f"{fn} wants reuse=True, False, None or sg.AUTO_REUSE, got {reuse!r}", user_location())
        )
    graph = current_graph()
    here = graph.scoped(name)
    path = graph.variable_name(here)
    inherited = path != here  # inside a layer that shares
    exists = any(v.var_name.startswith(path + "/") for v in graph.variables)
    if reuse is True and not exists:
        raise GraphError(
            located(
                f"{fn} {name!r} with reuse=True: there are no variables under {path}/ to share; build the "
                "layer once without reuse first (or pass reuse=sg.AUTO_REUSE)",
                user_location(),
            )
        )
    share = exists and (reuse is True or reuse is AUTO_REUSE or (reuse is None and inherited))
    with library_call(fn, name) as call:
        if share:
            with graph.reusing(call.name, path):
                yield call
        else:
            yield call
