"""State in graphs: Variables, assignments, train ops, defaults (ops layer).

``sg.Variable(initializer, shape, dtype, name, trainable)`` declares a
variable (graph/variables.py) and builds its initial value in the graph: an
initializer ``init(key, shape, dtype)`` draws from a key folded out of the
Session's seed with the variable's name, so values are reproducible from
``Session(g, seed=...)`` and do not change when other variables are added.

``sg.assign(v, x)`` is an ``assign`` node whose output is the new value; a
run that needs it makes that value an extra program result and the Session
swaps it in after the run (reads in the same run still see the old value).
``sg.group(*ops)`` bundles writes into one train op, which fetches as None.
"""

from __future__ import annotations

import inspect
import zlib

import numpy as np

from ..graph import (
    GROUP,
    STATEFUL,
    WRITES_VARIABLE,
    Attrs,
    GraphError,
    NoAttrs,
    OpDef,
    Tensor,
    TensorType,
    current_graph,
    dtypes,
    library_call,
    located,
    register_overloads,
    user_location,
)
from ..graph import name_scope as _name_scope
from ..graph.dims import check_shape
from ..graph.library import returns
from ..graph.structural import ShardedVariableAttrs, check_spec
from ..graph.variables import Variable as VariableTensor
from ..graph.variables import VariableAttrs, seed_op, variable_op
from .numpy_like.core import asarray
from .numpy_like.manipulation import broadcast_to
from .primitives import hlo
from .primitives.compare import convert
from .primitives.registry import bind, bind_node
from .random_keys import fold_in, remember_words

__all__ = [
    "Variable", "assign", "assign_add", "assign_sub", "group", "placeholder_with_default", "training_switch",
    "global_variables", "trainable_variables", "global_step", "seed_key", "variables_initializer",
    "global_variables_initializer", "local_variables_initializer",
]  # fmt: skip


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


# -- assign ----------------------------------------------------------------------
class AssignAttrs(Attrs):
    var: str
    auto: bool = False  # runs whenever the variable is read (a Generator's advance)


assign_op = OpDef(
    "assign",
    lambda attrs, value: value,
    lambda ctx, attrs, value: value,
    attrs=AssignAttrs,
    reasons={
        "vjp": "a write to state: gradients do not flow through assignment",
        "batch": "a write to state: an assign inside a vectorized function is an error",
    },  # fmt: skip
    traits=STATEFUL | WRITES_VARIABLE,
    doc="The new value of a Variable; the Session stores it after the run.",
)


def assign(var: VariableTensor, value, *, auto: bool = False) -> Tensor:
    """Set ``var`` to ``value`` when a run needs this node; returns the new value.

    ``value`` is cast to the variable's dtype where numpy's same_kind casting
    allows and broadcast to its shape. Two writes to one variable in one run
    is a GraphError; reads in the run see the value from its start.
    """
    if not isinstance(var, VariableTensor):
        raise _error(f"assign wants a Variable, got {type(var).__name__}")
    want = var.type
    value = value if isinstance(value, Tensor) else asarray(value)
    if value.dtype is not want.dtype:
        if not np.can_cast(value.dtype.np, want.dtype.np, "same_kind"):
            raise _error(f"assign to {var.var_name} {want}: cannot cast a {value.type} value")
        value = convert(value, want.dtype)
    if tuple(value.shape) != tuple(want.shape):
        try:
            value = broadcast_to(value, want.shape)
        except GraphError:
            raise _error(f"assign to {var.var_name} {want}: a {value.type} value does not fit") from None
    return bind(assign_op, value, var=var.var_name, auto=auto, name="assign")


def assign_add(var: VariableTensor, delta) -> Tensor:
    """``var += delta`` (reads the value from the start of the run)."""
    return assign(var, var + delta)


def assign_sub(var: VariableTensor, delta) -> Tensor:
    """``var -= delta`` (reads the value from the start of the run)."""
    return assign(var, var - delta)


# -- group -----------------------------------------------------------------------
group_op = OpDef(
    "group",
    lambda attrs, *inputs: TensorType((), dtypes.bool_),
    lambda ctx, attrs, *values: hlo.constant(np.array(True), dtypes.bool_),
    attrs=NoAttrs,
    reasons={"vjp": "a train op: its value carries nothing", "batch": "a train op: writes state"},
    traits=STATEFUL | GROUP,
    doc="One op standing for several (a train op); fetching it runs them and gives None.",
)


def group(*ops, name: str = "group") -> Tensor:
    """One op that runs all of ``ops`` (assigns, other groups; nests and None allowed).

    ``sess.run(train_op)`` gives None, as TF1's ``tf.group``.
    """
    flat = []
    pending = list(ops)
    while pending:
        item = pending.pop(0)
        if item is None:
            continue
        if isinstance(item, list | tuple):
            pending[:0] = list(item)
        elif isinstance(item, Tensor):
            flat.append(item)
        else:
            raise _error(f"group wants Tensors (assigns, train ops), got {type(item).__name__}")
    return bind(group_op, *flat, name=name)


# -- placeholder_with_default ------------------------------------------------------
def _placeholder_with_default_batch(ctx, attrs, xs, bdims):
    # a batched default makes a batched feed point: a value fed to it has the batched shape
    return list(bind_node(ctx.op, xs, attrs).outputs), list(bdims)


placeholder_with_default_op = OpDef(
    "placeholder_with_default",
    lambda attrs, default: default,
    lambda ctx, attrs, default: default,
    vjp=lambda ctx, attrs, xs, ys, cts: [cts[0]],
    attrs=NoAttrs,
    batch=_placeholder_with_default_batch,
    doc="A graph input that takes its default value when it is not fed.",
)


def placeholder_with_default(value, shape=None, name: str | None = None) -> Tensor:
    """A placeholder that is ``value`` unless fed (TF1's tf.placeholder_with_default).

    ``training = sg.placeholder_with_default(True, name="training")``; feed
    ``{training: False}`` to switch it off for one run.
    """
    default = asarray(value)
    if shape is not None and _shape(shape) != tuple(default.shape):
        raise _error(f"placeholder_with_default: the default's shape {default.shape} is not {tuple(shape)}")
    return bind(placeholder_with_default_op, default, name=name or "placeholder_with_default")


# -- the training switch -------------------------------------------------------------
training_switch_op = OpDef(
    "training_switch",
    lambda attrs: TensorType((), dtypes.bool_),
    lambda ctx, attrs: hlo.constant(np.array(ctx.training), dtypes.bool_),
    attrs=NoAttrs,
    reasons={
        "vjp": "a bool: carries no gradient",
        "jvp": "a bool: carries no gradient",
        "batch": "no inputs: the same for every lane",
    },
    doc="True in a run that writes variables (a train op), False in any other, unless fed.",
)


def training_switch(name: str = "training") -> Tensor:
    """A bool scalar that is True in runs that write Variables (a train op, batch norm's
    ``update_ops``; a Generator's automatic advance does not count) and False in all others
    (evaluation, inference), unless fed: what ``sg.nn.training()`` is made of.

    Evaluation is then safe by default: ``sess.run(acc, feeds)`` sees no dropout and uses
    batch norm's moving statistics, while ``sess.run([loss, train], feeds)`` trains with
    them. Feed it (``{"training": True}``) to choose for one run.
    """
    return bind(training_switch_op, name=name)


# -- variables ---------------------------------------------------------------------
def seed_key() -> Tensor:
    """The Session's root random key (uint32[2]) in the current graph: ``[0, seed]``.

    Made once per graph, with its two words (which every Variable's key folds
    in) in the same library call, so that no initializer slices them again.
    """
    graph = current_graph()
    return graph.singleton("seed", lambda: _seed(graph))


def _seed(graph) -> Tensor:
    with library_call("seed_key", "seed", scope=False) as call:
        key = graph.add_node(seed_op, (), NoAttrs(), name="seed").output
        with _name_scope("seed"):
            remember_words(key)
        returns(call, key)
    return key


def _salt(name: str) -> int:
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


def Variable(  # noqa: N802
    initializer=None, shape=None, dtype=None, name: str | None = None, trainable: bool = True, sharding=None,
    *, initial_value=None,
):  # fmt: skip
    """A variable of the current graph, initialized when a Session starts (TF1's tf.Variable).

    ``initializer`` is an initializer ``init(key, shape, dtype)`` (see
    sg.nn.initializers; needs ``shape``; dtype defaults to float32) or an
    initial value (numpy data, a Python number, a Tensor of the graph).
    TF1's keyword ``initial_value=`` takes a value too, or a callable of no
    arguments that builds it. ``sharding=sg.PartitionSpec(None, "model")``
    keeps its buffer split over the Session's mesh (replicated when not
    given; ignored without a mesh).

        w = sg.Variable(sg.nn.initializers.glorot_uniform(), (64, 128), name="w")
        step = sg.Variable(0, name="step", trainable=False)
        b = sg.Variable(initial_value=np.zeros(10), name="b")
    """
    initializer = _one_initializer(initializer, initial_value, name)
    graph = current_graph()
    full = graph.unique_name(name or "Variable")
    shared = graph.variable_name(full)
    if shared != full:  # built inside a layer that reuses its variables (reuse=True)
        return _reused(graph, shared, initializer, shape, dtype)
    local = full.rsplit("/", 1)[-1]
    with _name_scope(local):
        value = _initial_value(initializer, shape, dtype, full)
    if not all(isinstance(d, int) for d in value.shape):
        raise _error(f"variable {full} wants a static shape, got {value.shape}")
    if trainable and value.dtype.kind not in "fc":
        trainable = False  # an integer or bool variable has no gradient to train with
    fields = dict(var=full, shape=value.shape, dtype=value.dtype, trainable=trainable, init=value.name)
    if sharding is None:
        attrs = VariableAttrs(**fields)
    else:
        attrs = ShardedVariableAttrs(**fields, sharding=check_spec(sharding, value.shape, f"variable {full}"))
    return graph.add_node(variable_op, (), attrs, full_name=full).output


def _one_initializer(initializer, initial_value, name):
    """The initializer or initial value, given positionally or as TF1's ``initial_value=``."""
    who = f"sg.Variable {name!r}" if name else "sg.Variable"
    if initial_value is None:
        if initializer is None:
            raise _error(f"{who} needs an initial value or an initializer")
        return initializer
    if initializer is not None:
        raise _error(f"{who} got an initial value twice: as its first argument and as initial_value=")
    if callable(initial_value) and not isinstance(initial_value, Tensor):
        try:
            takes_none = not inspect.signature(initial_value).parameters
        except (TypeError, ValueError):
            takes_none = False
        if takes_none:  # TF1's lazy initial value: a function of no arguments
            return initial_value()
    return initial_value


def _reused(graph, name: str, initializer, shape, dtype) -> VariableTensor:
    """The existing variable ``name`` that a Variable built under a reusing layer stands for, after
    checking that it has the shape (and dtype, when given) the layer asks for."""
    found = next((v for v in graph.variables if v.var_name == name), None)
    if found is None:
        raise _error(f"reuse: there is no variable {name} to share (reuse=True builds no new variables)")
    if shape is not None:
        want = _shape(shape)
    elif isinstance(initializer, Tensor) or not callable(initializer):
        want = tuple(initializer.shape) if isinstance(initializer, Tensor) else np.shape(initializer)
    else:
        want = tuple(found.shape)
    dt = dtypes.dtype(dtype) if dtype is not None else found.dtype
    if tuple(want) != tuple(found.shape) or dt is not found.dtype:
        raise _error(
            f"reuse: variable {name} is {found.type}, but the layer reusing it wants {TensorType(want, dt)}"
        )
    return found


def _initial_value(initializer, shape, dtype, full: str) -> Tensor:
    if callable(initializer) and not isinstance(initializer, Tensor):
        if shape is None:
            raise _error(f"variable {full}: an initializer needs a shape")
        with library_call(_initializer_name(initializer), "init") as call:
            value = _initialize(initializer, _shape(shape), dtype, full)
            returns(call, value)
        return value
    with _name_scope("init"):
        value = asarray(initializer, dtype)
        if shape is not None:
            shape = _shape(shape)
            if tuple(value.shape) != tuple(shape):
                value = broadcast_to(value, shape)
    return value


def _initialize(initializer, shape: tuple, dtype, full: str) -> Tensor:
    """Call ``initializer`` with a key folded out of the seed by the variable's name.

    Initializers marked ``uses_key = False`` (zeros, ones, constant) get None
    instead, so that no key is built for them.
    """
    dt = dtypes.dtype(dtype) if dtype is not None else dtypes.float32
    key = fold_in(seed_key(), _salt(full)) if getattr(initializer, "uses_key", True) else None
    value = asarray(initializer(key, shape, dt))
    if tuple(value.shape) != tuple(shape):
        raise _error(f"variable {full}: the initializer gave {value.type}, not shape {shape}")
    return convert(value, dt)


def _initializer_name(initializer) -> str:
    name = getattr(initializer, "__name__", None)
    return name if isinstance(name, str) and name.isidentifier() else "initializer"


def _shape(shape) -> tuple:
    return check_shape((shape,) if isinstance(shape, int) else tuple(shape))


def global_variables() -> list:
    """Every Variable of the current graph."""
    return current_graph().variables


def trainable_variables() -> list:
    """The trainable Variables of the current graph (what optimizers update by default)."""
    return current_graph().trainable_variables


def variables_initializer(var_list, name: str = "init") -> Tensor:
    """A train-op-like Tensor that sets ``var_list`` back to their initial values when run
    (TF1's ``tf.variables_initializer``). A Session initializes variables by itself when a run
    first needs them, so running it is optional; running it again re-initializes, from the
    Session's seed (the same values as the first time)."""
    variables = list(var_list)
    for v in variables:
        if not isinstance(v, VariableTensor):
            raise _error(f"variables_initializer wants Variables, got {type(v).__name__} {v!r}")
    return group(*[assign(v, v.initial_value) for v in variables], name=name)


def global_variables_initializer() -> Tensor:
    """An op that initializes every Variable of the current graph (TF1's
    ``sess.run(tf.global_variables_initializer())``); see ``variables_initializer``."""
    return variables_initializer(current_graph().variables)


def local_variables_initializer() -> Tensor:
    """TF1's initializer of local variables: stablegraph has none, so it runs nothing."""
    return group(name="init_local")


def global_step() -> VariableTensor:
    """The graph's step counter (int32, not trainable); optimizers add 1 per train step."""
    graph = current_graph()
    return graph.singleton("global_step", lambda: Variable(0, (), dtypes.int32, "global_step", False))


register_overloads({"assign": assign, "assign_add": assign_add, "assign_sub": assign_sub})
