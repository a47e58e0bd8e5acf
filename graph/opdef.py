"""OpDef: everything one primitive is, in one record, plus the op table (graph layer).

Each primitive is declared once (in ops/ or, for the structural ops that the
backend turns into arguments, in graph/structural.py) with all its rules:

- ``infer(attrs, *in_types) -> TensorType | tuple``: output types, raising
  GraphError with a message such as "add wants equal shapes, got ...";
- ``lower(ctx, attrs, *values) -> value | list``: emit StableHLO through
  ops/primitives/hlo.py, reading concrete types from ``ctx.in_types``/``ctx.out_types``;
- ``vjp(ctx, attrs, xs, ys, cts)``, ``jvp``, ``batch(ctx, attrs, xs, bdims)``:
  autodiff and vectorization rules; ``ctx`` (a RuleContext, graph/rule_context.py:
  one type for every rule kind) is what the pass offers the rule, so rules of
  ops holding bodies transform them in place;
- ``traits``: properties passes ask for instead of op names (elementwise,
  stateful, moves_data, constant; the structural ops' feed, parameter,
  reads_state, seed, group; the constants below);
- ``fold(attrs, *numpy_inputs) -> numpy output(s)``: constant folding for
  sg.simplify, returning None where folding would be wrong (e.g. an integer
  division by zero, whose value XLA leaves to the platform). Optional, not
  part of RULES: an elementwise op without one says why in ``reasons["fold"]``.

A rule that is absent says why in ``reasons`` (e.g. "integer op: no
gradient"), so a completeness test can tell a gap from a decision.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ConfigDict

from .errors import GraphError
from .internal_model import InternalModel


class Attrs(InternalModel):
    """Base of every op's attribute model: validated, immutable."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True, defer_build=True)


class NoAttrs(Attrs):
    """For ops without attributes."""


RULES = ("lower", "vjp", "jvp", "batch")

# traits: what passes ask of an op instead of its name
ELEMENTWISE = frozenset({"elementwise"})  # element by element; a scalar operand (a select's pred) fits all
LINEAR = frozenset({"linear"})  # linear in its differentiable operands: forward mode applies it to tangents
BILINEAR = frozenset({"bilinear"})  # linear in each operand separately (dot_general)
STATEFUL = frozenset({"stateful"})  # reads or writes Session state: refused under vectorize
ZERO_DERIVATIVE = frozenset({"zero_derivative"})  # stop_gradient, floor, sign: no gradient path through it
MOVES_DATA = frozenset({"moves_data"})  # one operand; every output element is a copy of one of its elements
BROADCAST = frozenset({"broadcast"})  # repeats its operand into a larger shape: of a scalar, any splat
CONSTANT = frozenset({"constant"})  # no inputs; its fold, called with none, gives its value
LAYOUT = frozenset({"layout"})  # may declare its result's mesh layout: ``attrs.sharding`` (a spec, or None)
WRITES_VARIABLE = frozenset({"writes_variable"})  # its value becomes variable ``attrs.var``'s after the run
# run for what it does, not for a value (a print, a callback, a check): it has no outputs, runs
# whenever its inputs are computed (pruning and dead-code elimination keep it), and is never shared;
# its attrs have ``recomputed`` (a vjp's copy, graph.inline) and ``effect_key()`` (shared by copies)
EFFECT = frozenset({"effect"})
HOST_CALLBACK = frozenset({"host_callback"})  # calls Python from the program: not saved as JSON
# calls a user's compiled kernel (sg.ffi_call): a run may fail with the kernel's message, so the
# program donates no variable buffer (a failed run keeps the Session's variables)
FOREIGN_CALL = frozenset({"foreign_call"})
# the structural ops: what the Session and the function machinery make of a node
FEED = frozenset({"feed"})  # a graph input, fed by Session.run (placeholder)
PARAMETER = frozenset({"parameter"})  # an input of a Function's body: its signature, kept even if unused
READS_STATE = frozenset(
    {"reads_state"}
)  # its value is Session state at the run's start (a Variable's, the seed)
SEED = frozenset({"seed"})  # the Session's random key: the state slot no Variable names
GROUP = frozenset({"group"})  # a fetch without a value (a train op): sess.run gives None for it


@dataclass(eq=False)
class OpDef:
    """One primitive: its name, attribute model and rules."""

    name: str
    infer: Callable[..., Any]
    lower: Callable[..., Any] | None = None
    attrs: type[Attrs] = NoAttrs
    vjp: Callable[..., Any] | None = None
    jvp: Callable[..., Any] | None = None
    batch: Callable[..., Any] | None = None
    fold: Callable[..., Any] | None = None  # optional: not part of RULES
    # optional: subsumes(big_attrs, small_attrs) -> for each output of a node with small_attrs, the
    # output of a node with big_attrs (same inputs) holding the same value; None if it does not
    subsumes: Callable[..., Any] | None = None
    # optional: vary(ctx, attrs, in_axes) -> for each output, the mesh axes (frozensets) along which
    # its value may differ between the devices of an sg.spmd region, given its inputs'; absent: the
    # union of the inputs' (ops/primitives/replication.py, which sg.spmd's out_specs check runs)
    vary: Callable[..., Any] | None = None
    reasons: dict[str, str] = field(default_factory=dict)
    doc: str = ""
    tensor_class: type | None = None  # the Tensor subclass of its outputs (Variable), if not Tensor
    # what passes may ask of an op instead of its name: the trait constants above
    traits: frozenset[str] = frozenset()

    def __post_init__(self):
        # No rule and no reason is left for tests/ops/test_registry.py to catch: nothing is filled in.
        register(self)

    def __repr__(self) -> str:
        return f"<OpDef {self.name}>"

    def rule(self, name: str):
        """The named rule, or a GraphError saying why the op has none."""
        fn = getattr(self, name)
        if fn is None:
            why = self.reasons.get(name, "not written yet")
            raise GraphError(f"op {self.name} has no {name} rule ({why})")
        return fn


_OPS: dict[str, OpDef] = {}


def register(op: OpDef) -> OpDef:
    if op.name in _OPS:
        raise GraphError(f"op {op.name} is defined twice")
    _OPS[op.name] = op
    return op


def lookup(name: str) -> OpDef:
    try:
        return _OPS[name]
    except KeyError:
        raise GraphError(f"unknown op {name!r}") from None


def all_ops() -> dict[str, OpDef]:
    return dict(_OPS)
