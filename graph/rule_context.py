"""RuleContext: the one type every op rule gets as ``ctx``, whichever pass runs it (graph layer).

The passes that call rules (the reverse and forward passes, vectorize, the
replication analysis, the lowering) each make a RuleContext for the node
they hand a rule, filling what they know; a rule reads only what its kind
needs:

- every rule: ``op`` (its OpDef) and ``node`` (None for a rule called on
  operands with no node of their own, as a jvp falling back on a vjp);
- vjp and jvp rules: ``backward`` and ``forward`` (the passes themselves, for
  bodies a rule builds), ``simplify``, and for jvp rules ``linear``,
  ``transposed_vjp`` (the generic rules) and ``same_values``;
- batch rules: ``size`` and ``vectorize`` (a body batched);
- vary rules: ``body`` (the replication analysis of a body);
- lower rules: ``in_types``, ``out_types``, ``bindings``, ``mesh``,
  ``platform``, ``training``, ``concrete``, ``dim``, ``lower_function``,
  ``host_callback``, ``runs_effects``, ``runs_elsewhere``, ``effect_token`` and
  ``set_effect_token``.

The passes live above graph/ (transforms/, backend/) and the rules below
them (ops/): the context is how a rule reaches its pass without importing
it. The services a pass offers come from its ``Services`` (one per pass);
asking for one the running pass does not offer is an internal error naming it.
"""

from __future__ import annotations

from .dims import evaluate
from .errors import FeedError, GraphError, located


class Services:
    """What a pass offers the rules it runs; each pass subclasses it with its own. The defaults
    say the service is not there."""

    name = "this pass"

    def _missing(self, what: str):
        raise GraphError(f"internal error: {what} is not available to the rules {self.name} runs")

    def backward(self, ctx, nodes, seeds, wrt, values=None):
        return self._missing("the reverse pass")

    def forward(self, ctx, nodes, tangents, outputs, primals=None):
        return self._missing("the forward pass")

    def simplify(self, ctx, fn):
        return self._missing("simplify")

    def linear(self, ctx, attrs, xs, ys, tangents):
        return self._missing("the linear jvp rule")

    def transposed_vjp(self, ctx, attrs, xs, ys, tangents):
        return self._missing("the transposed vjp")

    def vectorize(self, ctx, fn, in_bdims, captures=(), out_bdims=None):
        return self._missing("vectorize")

    def body(self, ctx, fn, in_vary):
        return self._missing("the replication analysis")

    def lower_function(self, ctx, fn, values, extra=()):
        return self._missing("lowering a body")

    def host_callback(self, ctx, fn):
        return self._missing("host callbacks")

    def runs_effects(self, ctx):
        return self._missing("the effects switch")

    def runs_elsewhere(self, ctx, key):
        return self._missing("the program's effects")

    def effect_token(self, ctx):
        return self._missing("the ordered effects' token")

    def set_effect_token(self, ctx, value):
        return self._missing("the ordered effects' token")


class RuleContext:
    """What a rule may ask of the pass running it (see the module's docstring)."""

    __slots__ = (
        "services", "op", "node", "again", "size",
        "in_types", "out_types", "bindings", "mesh", "platform", "training",
    )  # fmt: skip

    def __init__(
        self, services: Services, op=None, node=None, *, again: dict | None = None, size=None,
        in_types=(), out_types=(), bindings=None, mesh=None, platform: str = "cpu", training: bool = False,
    ):  # fmt: skip
        self.services, self.op, self.node = services, op, node
        self.again = {} if again is None else again  # forward mode: tensors -> the values computed again
        self.size = size  # vectorize: the batch size
        self.in_types, self.out_types = in_types, out_types  # lowering: the node's concrete types
        self.bindings = {} if bindings is None else bindings  # lowering: symbol -> int
        self.mesh, self.platform, self.training = mesh, platform, training

    # -- the reverse and forward passes ---------------------------------------
    def backward(self, nodes, seeds, wrt, values=None):
        """The reverse pass over ``nodes`` (a body a rule built): cotangents of ``wrt``."""
        return self.services.backward(self, nodes, seeds, wrt, values)

    def forward(self, nodes, tangents, outputs, primals=None):
        """The forward pass over ``nodes``: tangents of ``outputs`` (``primals`` as forward's)."""
        return self.services.forward(self, nodes, tangents, outputs, primals)

    def simplify(self, fn):
        return self.services.simplify(self, fn)

    def linear(self, attrs, xs, ys, tangents):
        """The jvp of an op linear in its differentiable operands: the op on their tangents."""
        return self.services.linear(self, attrs, xs, ys, tangents)

    def transposed_vjp(self, attrs, xs, ys, tangents):
        """The jvp from the op's vjp, transposed for this one node."""
        return self.services.transposed_vjp(self, attrs, xs, ys, tangents)

    def same_values(self, y, new) -> None:
        """Say that ``new`` (built by a jvp rule) computes the node's output ``y``: later nodes on
        the tangents' path are built on ``new``, and the node that made ``y`` may drop out."""
        self.again[y] = new

    # -- vectorize and the replication analysis -------------------------------
    def vectorize(self, fn, in_bdims, captures=(), out_bdims=None):
        """``fn`` batched (see transforms/vectorize.py): the new Function and its results' batch axes."""
        return self.services.vectorize(self, fn, in_bdims, captures, out_bdims)

    def body(self, fn, in_vary) -> list:
        """The mesh axes each result of ``fn`` varies along, given its params' then capture params'."""
        return self.services.body(self, fn, in_vary)

    # -- lowering ---------------------------------------------------------------
    def concrete(self, ty):
        return ty.evaluate(self.bindings)

    def dim(self, d) -> int:
        """The int value of a dim held in an attribute (an expression in the bound symbols)."""
        try:
            return evaluate(d, self.bindings)
        except KeyError as e:
            node = self.node
            raise FeedError(
                located(f"the value of {d} is not known: no feed binds {e.args[0]}", node.location, node.name)
            ) from None

    def lower_function(self, fn, values, extra=()) -> list:
        """Emit a Function's body inline on ``values`` (its params, then its captures); the values
        of its results, then of the tensors of ``fn`` in ``extra``."""
        return self.services.lower_function(self, fn, values, extra)

    def host_callback(self, fn) -> int:
        """The index by which the program's custom calls reach ``fn``, a Python function it is
        compiled with."""
        return self.services.host_callback(self, fn)

    def runs_effects(self) -> bool:
        """Whether the program runs the user's effects (a diagnostic program does not)."""
        return self.services.runs_effects(self)

    def runs_elsewhere(self, key) -> bool:
        """Whether the program holds a copy of the effect ``key`` names that is not a vjp's
        recomputation (then a recomputed copy is left out: see graph.inline)."""
        return self.services.runs_elsewhere(self, key)

    def effect_token(self):
        """The value the last ordered effect of the body being lowered gave (None: none yet)."""
        return self.services.effect_token(self)

    def set_effect_token(self, value) -> None:
        """Make ``value`` (an ordered effect's result) what the next ordered effect waits for."""
        self.services.set_effect_token(self, value)


__all__ = ["RuleContext", "Services"]
