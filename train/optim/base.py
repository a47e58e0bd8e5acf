"""The Optimizer: gradients in, one train op out; state kept in Variables (train layer).

``opt.minimize(loss)`` takes the gradients of ``loss`` with respect to the
trainable variables and ``opt.apply_gradients(pairs)`` turns (grad, var)
pairs into one train op: an ``sg.group`` holding exactly one assign per
variable (the variable itself, each piece of its optimizer state) plus
``global_step += 1``. Everything is read at the start of the run, so the
update number (for schedules and Adam's bias correction) is the global step
before the run, and the train op can be fetched with the loss. ``minimize``
also puts in the layer-state updates its loss depends on (batch_norm's
moving statistics; ops/nn/updates.py).

Optimizer state is non-trainable Variables named after the variable they
belong to, e.g. ``fc1/kernel/adam/mu``, made the first time an optimizer
sees a variable (``opt.get_slot(var, "mu")`` finds it). A subclass says
which state it needs (``_slot_inits``), which scalars every variable's
update reads (``_shared``: built once per dtype, not once per variable) and
how one variable moves (``_apply``); see optimizers.py.

``minimize`` and ``apply_gradients`` are one library call each (graph/calls.py),
named after the optimizer (``adam``), with one nested call per variable
(``fc1/kernel/adam``, an ``adam.update``), so a listing shows a train step as
one line.
"""

from __future__ import annotations

from contextlib import ExitStack, contextmanager

from ...graph import (
    GraphError,
    Tensor,
    current_graph,
    dtypes,
    library_call,
    located,
    name_scope,
    user_location,
)
from ...graph.library import returns
from ...graph.structural import sharding_of
from ...graph.variables import Variable as VariableTensor
from ...ops.nn.updates import updates_for
from ...ops.numpy_like.core import asarray, broadcast_to
from ...ops.state import Variable, assign, global_step, group
from ...transforms import gradients
from . import checks
from .clipping import clip_by_global_norm
from .schedules import _as_schedule

__all__ = ["Optimizer"]


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


class Optimizer:
    """Updates Variables from their gradients (TF1's tf.train.Optimizer, optax's math).

    Make one with a factory (``sg.optim.adam(1e-3)``, ``sg.optim.sgd(0.1)``...),
    then ``train = opt.minimize(loss)`` and ``sess.run([loss, train], feeds)``.
    """

    kind = "optimizer"  # the default name: the state's scope under each variable

    def __init__(self, learning_rate, *, clip_norm=None, name: str | None = None):
        if isinstance(learning_rate, bool) or not (
            isinstance(learning_rate, int | float | Tensor) or callable(learning_rate)
        ):
            raise checks.type_error(
                f"{self.kind}: learning_rate must be a number, a schedule (step -> value) or a Tensor, "
                f"got {type(learning_rate).__name__}"
            )
        if isinstance(learning_rate, int | float):  # a negative rate would climb the loss
            checks.number(f"{self.kind}: learning_rate", learning_rate, 0.0)
        if clip_norm is not None:
            checks.number(f"{self.kind}: clip_norm", clip_norm, 0.0, low_open=True)
        if name is not None and (not isinstance(name, str) or not name or "/" in name or ":" in name):
            raise checks.error(
                f"{self.kind}: bad optimizer name {name!r}: a non-empty str without '/' or ':'"
            )
        self.learning_rate = learning_rate
        self.clip_norm = clip_norm
        self.name = name or self.kind
        self._slots: dict = {}  # (graph, var name) -> {slot name: Variable}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} learning_rate={self.learning_rate!r}>"

    # -- what a subclass provides ---------------------------------------------
    def _slot_inits(self, var) -> dict[str, float]:
        """The state one variable needs: slot name -> initial value (filled to the var's shape)."""
        return {}

    def _shared(self, lr: Tensor, count: Tensor) -> dict:
        """The scalars every variable's update reads, for one dtype: ``lr``, ``neg_lr`` and
        ``count`` (the update number, from 1), plus what a subclass adds (its constants)."""
        return {"lr": lr, "neg_lr": -lr, "count": count}

    def _apply(self, var, grad, slots: dict, s: dict):
        """The change to add to ``var`` and the new value of each slot.

        ``s`` is ``_shared``'s scalars, of the variable's dtype; ``slots`` holds
        each slot's value at the start of the run.
        """
        raise NotImplementedError

    def _check_pairs(self, pairs: list) -> None:
        """A subclass's checks of the (grad, var) pairs to apply (adamw's mask)."""

    # -- public API -----------------------------------------------------------
    @property
    def slot_names(self) -> list[str]:
        """The names of the state each variable gets, e.g. ``["mu", "nu"]`` for Adam."""
        return list(self._slot_inits(None))

    def get_slot(self, var, name: str):
        """The Variable holding state ``name`` of ``var`` (made by minimize / apply_gradients)."""
        slots = self._slots.get((var.graph, var.var_name))
        if slots is None or name not in slots:
            raise KeyError(f"{self.name} has no slot {name!r} for {var.var_name}; slots: {self.slot_names}")
        return slots[name]

    def learning_rate_at(self, step) -> Tensor | float:
        """The learning rate at ``step`` (a Tensor such as ``sg.global_step()``, or an int)."""
        lr = self.learning_rate
        if isinstance(lr, Tensor):
            return lr
        return _as_schedule(lr)(step)

    def compute_gradients(self, loss, var_list=None) -> list:
        """``[(grad, var), ...]`` for ``loss`` (a scalar) and ``var_list`` (default: the trainable variables)."""
        loss = _checked_loss(loss)
        if var_list is None:
            var_list = current_graph().trainable_variables
            if not var_list:
                raise _error("minimize: the graph has no trainable variables (make some with sg.Variable)")
        var_list = list(var_list)
        self._check_vars(var_list)
        grads = gradients(loss, var_list)
        return list(zip(grads, var_list))

    def minimize(self, loss, var_list=None, global_step=None) -> Tensor:
        """One train op that moves ``var_list`` (default: trainable variables) down ``loss``.

        ``global_step`` is the int Variable to count updates with (default: ``sg.global_step()``).
        The train op also runs the layer-state updates ``loss`` depends on (batch_norm's
        moving statistics; see ops/nn/updates.py).

            train = sg.optim.adam(1e-3).minimize(loss)
            l, _ = sess.run([loss, train], {x: xb, y: yb})
        """
        loss = _checked_loss(loss)
        var_list = self._trained_by(loss, var_list)
        with library_call(f"{self.kind}.minimize", self.name) as call:
            pairs = self.compute_gradients(loss, var_list)
            train = self._apply_gradients(pairs, global_step, updates_for(asarray(loss)))
            returns(call, train)
        return train

    def _trained_by(self, loss, var_list) -> list:
        """The variables of ``var_list`` (default: the trainable ones) that ``loss`` has a gradient for,
        as TF1's minimize skips those whose gradient is None; a GraphError if none has one."""
        candidates = current_graph().trainable_variables if var_list is None else list(var_list)
        if not candidates:
            return var_list  # compute_gradients says what is missing
        self._check_vars(candidates)
        reached = _gradient_path_variables(loss)
        trained = [v for v in candidates if v.var_name in reached]
        if not trained:
            names = ", ".join(v.var_name for v in candidates[:8]) + (", ..." if len(candidates) > 8 else "")
            raise _error(
                f"{self.name}.minimize: no gradients for any variable: loss {loss.name} {loss.type} does "
                f"not depend on [{names}] through differentiable ops (stop_gradient, integer values and "
                "comparisons carry no gradient)"
            )
        return trained

    def apply_gradients(self, grads_and_vars, global_step=None) -> Tensor:
        """One train op applying ``[(grad, var), ...]`` (TF1 order); pairs with grad None are skipped.

        Clips by global norm first when the optimizer has ``clip_norm``; adds 1
        to ``global_step`` (default ``sg.global_step()``) in the same op.
        """
        with library_call(f"{self.kind}.apply_gradients", self.name) as call:
            train = self._apply_gradients(grads_and_vars, global_step)
            returns(call, train)
        return train

    def _apply_gradients(self, grads_and_vars, global_step, layer_updates=()) -> Tensor:
        """The train op, built in the optimizer's call (its scope is open), with ``layer_updates``
        (assigns of layer state, e.g. moving statistics) in the same group."""
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise _error("apply_gradients: no variable has a gradient")
        self._check_pairs(pairs)
        variables = [v for _, v in pairs]
        self._check_vars(variables)
        grads = [self._gradient(g, v) for g, v in pairs]
        step = _step_variable(global_step)
        lr = self.learning_rate_at(step)
        lr = asarray(lr, dtypes.float32) if not isinstance(lr, Tensor) else lr
        next_step = step + 1
        count = next_step.astype(dtypes.float32)
        if self.clip_norm is not None:
            grads, _ = clip_by_global_norm(grads, self.clip_norm)
        shared = {}
        for v in variables:
            if v.dtype not in shared:
                shared[v.dtype] = self._shared(lr.astype(v.dtype), count.astype(v.dtype))
        writes = [w for g, v in zip(grads, variables) for w in self._update(v, g, shared[v.dtype])]
        writes.append(assign(step, next_step))
        return group(*writes, *layer_updates, name="train")

    def _gradient(self, g, v) -> Tensor:
        g = asarray(g)
        if tuple(g.shape) != tuple(v.shape):
            raise _error(f"apply_gradients: the gradient for {v.var_name} is {g.type}, not shape {v.shape}")
        return g.astype(v.dtype) if g.dtype is not v.dtype else g

    def _update(self, v, g, shared: dict) -> list:
        """The assigns of one variable and its state, in a call of their own named after it."""
        graph = current_graph()
        # state and update math live under the variable's own name, whatever scope we are in
        with graph, _scopes(v.var_name.split("/") + [self.name]), library_call(f"{self.kind}.update"):
            slots = self._slots_for(graph, v)
            delta, new = self._apply(v, g, dict(slots), shared)
            return [assign(v, v + delta)] + [assign(slots[k], new[k]) for k in slots]

    # -- helpers --------------------------------------------------------------
    def _check_vars(self, variables) -> None:
        seen = set()
        for v in variables:
            if not isinstance(v, VariableTensor):
                raise _error(f"{self.name} updates Variables, got {v!r}")
            if v.dtype.kind != "f":
                raise _error(f"{self.name}: cannot train {v.var_name} {v.type}: only real floating variables")
            if v.var_name in seen:
                raise _error(f"{self.name}: {v.var_name} appears twice in the variables to update")
            seen.add(v.var_name)

    def _slots_for(self, graph, var) -> dict:
        """The variable's state, made on first use; slots that start equal share one initial value."""
        key = (graph, var.var_name)
        if key not in self._slots:
            fills: dict = {}
            slots = {}
            for name, value in self._slot_inits(var).items():
                if value not in fills:
                    fills[value] = broadcast_to(asarray(value, var.dtype), tuple(var.shape))
                # a slot lies on the mesh like its variable (Adam's moments of a split weight are split)
                slots[name] = Variable(
                    fills[value], name=name, trainable=False, sharding=sharding_of(var.node)
                )
            self._slots[key] = slots
        return self._slots[key]


def _checked_loss(loss) -> Tensor:
    loss = asarray(loss)
    if tuple(loss.shape) != ():
        raise _error(f"minimize wants a scalar loss, got {loss.type}: reduce it first (e.g. loss.mean())")
    if loss.dtype.kind != "f":
        raise _error(f"minimize wants a floating loss, got {loss.type}")
    return loss


def _gradient_path_variables(loss: Tensor) -> set[str]:
    """The variables a gradient of ``loss`` reaches: read on a path of inexact values that passes
    no op with the ``zero_derivative`` trait (stop_gradient, floor, sign, ...)."""
    found, seen, pending = set(), set(), [loss]
    while pending:
        node = pending.pop().node
        if node in seen:
            continue
        seen.add(node)
        if node.outputs and isinstance(node.outputs[0], VariableTensor):
            found.add(node.attrs.var)
        if "zero_derivative" not in node.op.traits:
            pending.extend(t for t in node.inputs if t.dtype.is_inexact)
    return found


def _step_variable(step):
    if step is None:
        return global_step()
    if not isinstance(step, VariableTensor) or step.dtype.kind not in "iu" or tuple(step.shape) != ():
        raise _error(f"global_step must be a scalar int Variable, got {step!r}")
    return step


@contextmanager
def _scopes(names):
    """Nested ``sg.name_scope`` for each name in ``names`` (name_scope itself refuses '/')."""
    with ExitStack() as stack:
        for n in names:
            stack.enter_context(name_scope(n))
        yield
