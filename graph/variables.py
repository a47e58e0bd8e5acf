"""Variables and the Session's seed: declarations the backend turns into program state (graph layer).

A Variable is a named buffer the Session holds on the device between runs.
In the graph it is a ``variable`` node whose output is the variable's value
at the start of a run; writes are ``assign`` nodes (ops/state.py) that the
Session turns into extra program results and swaps in after the run. The
``seed`` node stands for the Session's root random key (uint32[2]); variable
initializers draw from keys folded out of it, so they are reproducible from
``Session(g, seed=...)``.

Several ``variable`` nodes may read one variable (copies made by transforms):
the variable is named by the ``var`` attribute, not by the node.
"""

from __future__ import annotations

from .attrs import DTypeAttr, ShapeAttr
from .dtypes import uint32
from .opdef import LAYOUT, READS_STATE, SEED, Attrs, NoAttrs, OpDef
from .overloads import overload
from .tensor import Tensor
from .types import TensorType


class VariableAttrs(Attrs):
    var: str
    shape: ShapeAttr
    dtype: DTypeAttr
    trainable: bool = True
    init: str | None = None  # the name of the tensor holding the initial value


class Variable(Tensor):
    """A Tensor whose value persists across ``Session.run`` calls (TF1's tf.Variable).

    Reading it in a graph gives the value at the start of the run; change it
    with ``v.assign(x)``, ``v.assign_add(x)``, ``v.assign_sub(x)`` (or
    ``sg.assign``...), fetch or set it with ``sess.get(v)`` / ``sess.set(v, x)``.
    """

    __slots__ = ()

    @property
    def var_name(self) -> str:
        return self.node.attrs.var

    @property
    def trainable(self) -> bool:
        return self.node.attrs.trainable

    @property
    def initial_value(self) -> Tensor | None:
        init = self.node.attrs.init
        return None if init is None else self.graph.tensor(init)

    def assign(self, value) -> Tensor:
        return overload("assign")(self, value)

    def assign_add(self, delta) -> Tensor:
        return overload("assign_add")(self, delta)

    def assign_sub(self, delta) -> Tensor:
        return overload("assign_sub")(self, delta)

    def __repr__(self) -> str:
        flag = "" if self.trainable else ", not trainable"
        return f"<Variable {self.var_name} : {self.type}{flag}>"


_STATE = "state: the Session supplies its value"
variable_op = OpDef(
    "variable",
    lambda attrs: TensorType(attrs.shape, attrs.dtype),
    attrs=VariableAttrs,
    reasons={
        "lower": "becomes an argument of main",
        "vjp": "a leaf: differentiate with respect to it",
        "batch": _STATE,
    },  # fmt: skip
    traits=LAYOUT | READS_STATE,
    doc="Reads a Variable: its value at the start of the run.",
    tensor_class=Variable,
)

seed_op = OpDef(
    "seed",
    lambda attrs: TensorType((2,), uint32),
    attrs=NoAttrs,
    reasons={"lower": "becomes an argument of main", "vjp": _STATE, "batch": _STATE},
    traits=READS_STATE | SEED,
    doc="The Session's root random key (uint32[2]), from Session(g, seed=...).",
)
