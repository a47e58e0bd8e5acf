"""Pending state updates of layers (batch_norm's moving statistics), and who runs them (sg.nn, ops layer).

A layer whose state moves in a train step (``batch_norm``) notes each of its
assigns here with the tensor the assign follows (the batch statistic). The
notes live in the graph (``graph.memo``), not in a module global.

``Optimizer.minimize(loss)`` (train/optim/base.py) asks ``updates_for(loss)``
and puts those assigns into its train op, so ``sess.run([loss, train])``
moves the statistics of exactly the layers ``loss`` goes through: Keras's
behaviour, and TF1's ``UPDATE_OPS`` collection without the
``control_dependencies`` boilerplate. Code that builds its own train op
(``apply_gradients``, a hand-written ``sg.group``) adds ``sg.nn.update_ops()``
itself: ``train = sg.group(opt.apply_gradients(pairs), sg.nn.update_ops())``.
"""

from __future__ import annotations

from ...graph import Tensor, current_graph

__all__ = ["update_ops"]

_MEMO = "nn.update_ops"


def add_update(assign: Tensor, follows: Tensor) -> None:
    """Note ``assign`` (an ``sg.assign`` result) as a train-step update driven by ``follows``."""
    assign.node.graph.memo(_MEMO)[assign.node.name] = (assign, follows)


def update_ops() -> list:
    """Every pending layer-state update (moving statistics) of the current graph, in build order.

    ``minimize`` adds the ones its loss needs by itself; group these into a
    train op you build yourself.
    """
    return [assign for assign, _ in current_graph().memo(_MEMO).values()]


def updates_for(loss: Tensor) -> list:
    """The pending updates whose driving tensor ``loss`` depends on (the layers it goes through)."""
    graph = loss.node.graph
    notes = list(graph.memo(_MEMO).values())
    if not notes:
        return []
    needed = {id(node) for node in graph.ancestors([loss])}
    return [assign for assign, follows in notes if id(follows.node) in needed]
