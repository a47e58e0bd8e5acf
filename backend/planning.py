"""What a run does, decided once per fetches and feed signature: a frozen Plan and the body to lower (backend).

Planning prunes the graph to what the fetches need (a fed tensor overrides
its value and cuts off what only it needed), checks that every placeholder
left is fed, collects the variables the run writes (its assigns, and the
Generators' advances of the state it reads), and extracts that as a
Function of the feeds it uses, simplified (sg.simplify). Its outcome is a
``Plan`` (how the program's arguments and results map to feeds, state and
fetches: what every later run of it needs, and nothing it must work out
again) and a ``Body`` (the nodes and tensors the lowering turns into
StableHLO).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..graph import FeedError, GraphError, Tensor, extract, located
from ..ops import numpy_like as snp
from ..transforms import simplify
from . import feeds as feeding
from .lowering import concrete_type
from .shardings import MeshLayout

SEED = "\0seed"  # the root random key's entry among the Session's state buffers


@dataclass(frozen=True, slots=True)
class Plan:
    """How a compiled program's arguments and results map to a run's feeds, state and fetches.

    Arguments: the feeds at ``arg_positions`` (increasing), then the state
    buffers named in ``state_in``. Results: one per fetch that has a value
    (``fetch_slots`` gives each fetch's result, None for a train op; None
    when every fetch has one, in order), then the new values of the
    variables in ``state_out``. ``arg_types`` and ``out_types`` are their
    (shape, numpy dtype); ``aliases`` pairs (argument, result) a variable
    both read and written donates; ``trains``: the run writes variables
    itself (a train op), so the training switch is on unless fed.
    """

    fetches: tuple[Tensor, ...]
    feed_signature: tuple[tuple[Tensor, tuple], ...]
    arg_positions: tuple[int, ...]
    state_in: tuple[str, ...]
    state_out: tuple[str, ...]
    fetch_slots: tuple[int | None, ...] | None
    arg_types: tuple[tuple[tuple, np.dtype], ...]
    out_types: tuple[tuple[tuple, np.dtype], ...]
    aliases: tuple[tuple[int, int], ...]
    trains: bool
    checks_finite: bool = False  # the last host result is a flag: every fetch and new value finite

    @property
    def n_fetched(self) -> int:
        """How many results are fetch values (they come back as numpy; the rest stay on the device)."""
        return len(self.out_types) - len(self.state_out)


@dataclass(frozen=True, slots=True)
class Body:
    """What the lowering turns into ``main(args) -> results``: the simplified program's nodes in
    graph order, its argument and result tensors, the symbols the feeds bind, and on a mesh
    the PartitionSpecs of the arguments and results (None without a mesh)."""

    nodes: tuple
    args: tuple[Tensor, ...]
    results: tuple[Tensor, ...]
    bindings: dict[str, int]
    shardings: tuple | None


def plan_run(
    graph, fetches, fed, layout: MeshLayout, has_state, writes=None, check_finite: bool = False
) -> tuple[Plan, Body]:
    """Plan a run of ``fetches`` (Tensors) with ``fed`` ([(Tensor, array)]) in the order given.

    ``has_state(name)`` says whether the Session holds a variable (FeedError
    for one it does not: made in another graph). ``writes`` ({variable:
    tensor}) plans a run that only writes them (initialization), using no feed.
    ``check_finite``: see Plan.checks_finite.
    """
    effects = ()
    if writes is None:
        positions, writes, effects = _feeds_and_writes(graph, fetches, fed)
    else:
        positions = ()
    bindings = feeding.bind(fed)
    values = tuple(t for t in fetches if "group" not in t.op.traits)
    fetch_slots = None
    if len(values) < len(fetches):
        slots = iter(range(len(values)))
        fetch_slots = tuple(None if "group" in t.op.traits else next(slots) for t in fetches)
    state_out = tuple(writes)
    program = simplify(
        extract(
            graph, [*values, *(writes[v] for v in state_out)], [fed[i][0] for i in positions], effects=effects
        )
    )
    reads = [n for n in program.graph.nodes if "reads_state" in n.op.traits]
    state_in = tuple(SEED if "seed" in n.op.traits else n.attrs.var for n in reads)
    missing = [v for v in state_in if not has_state(v)]
    if missing:
        raise FeedError(f"variables {missing} are not in this Session: were they made in another graph?")
    args = (*program.params, *(n.output for n in reads))
    n_fed = len(program.params)
    aliases = tuple(
        (n_fed + state_in.index(v), len(values) + k)
        for k, v in enumerate(state_out)
        if state_in.count(v) == 1
    )
    results = tuple(program.results)
    if check_finite:
        aliases = ()
        results = (*results[: len(values)], _all_finite(program, results), *results[len(values) :])
    shardings = None
    if layout.mesh is not None:  # a one-device mesh too: rules may need ctx.mesh (sg.spmd)
        shardings = layout.program_specs([fed[i][0] for i in positions], state_in, values, state_out)
        if check_finite:
            arg_specs, result_specs = shardings
            result_specs = list(result_specs)
            shardings = (arg_specs, (*result_specs[: len(values)], None, *result_specs[len(values) :]))
    arg_types = tuple((fed[i][1].shape, fed[i][1].dtype) for i in positions) + tuple(
        (tuple(t.type.shape), t.type.dtype.np) for t in args[n_fed:]
    )
    out_types = tuple((ty.shape, ty.dtype.np) for ty in (concrete_type(t, bindings) for t in results))
    plan = Plan(
        fetches=tuple(fetches),
        feed_signature=tuple((t, arr.shape) for t, arr in fed),
        arg_positions=tuple(positions),
        state_in=state_in,
        state_out=state_out,
        fetch_slots=fetch_slots,
        arg_types=arg_types,
        out_types=out_types,
        aliases=aliases,
        # the training switch's default: on in a run that writes variables itself (a train op, batch
        # norm's updates), not in one whose only writes are Generators' automatic advances
        trains=any(not getattr(writes[v].node.attrs, "auto", False) for v in state_out),
        checks_finite=check_finite,
    )
    nodes = tuple(n for n in program.graph.nodes if "parameter" not in n.op.traits)
    return plan, Body(nodes, args, results, bindings, shardings)


def _all_finite(program, results) -> Tensor:
    """A bool scalar built into ``program``: every floating value among ``results`` is finite."""
    with program.graph:
        flags = [snp.all(snp.isfinite(t)) for t in results if t.dtype.is_floating or t.dtype.is_complex]
        return snp.all(snp.stack(flags)) if flags else snp.asarray(True)


def _feeds_and_writes(graph, fetches, fed) -> tuple[list[int], dict[str, Tensor], list]:
    """The positions of the feeds the run uses, the variables it writes, and the effects it runs.

    FeedError if a placeholder is unfed; GraphError if two assigns write
    one variable. A variable read in the run whose Generator advances it
    gets that write too, unless the run writes it already. Effects: see
    ``_effects``.
    """
    fed_ts = [t for t, _ in fed]
    nodes = graph.ancestors(fetches, stop=fed_ts)
    missing = [n for n in nodes if "feed" in n.op.traits]
    if missing:
        names = ", ".join(f"{n.name} {n.out_types[0]}" for n in missing)
        raise FeedError(located(f"placeholder {names} needs a feed for these fetches", missing[0].location))
    writes: dict[str, Tensor] = {}
    for n in nodes:
        if "writes_variable" in n.op.traits:
            _add_write(writes, n)
    advances = {n.attrs.var: n for n in graph.nodes if "writes_variable" in n.op.traits and n.attrs.auto}
    extra = [advances[n.attrs.var] for n in nodes if _reads_variable(n) and n.attrs.var in advances]
    for n in extra:
        if n.attrs.var not in writes:
            writes[n.attrs.var] = n.output
    if extra:
        nodes = graph.ancestors([*fetches, *writes.values()], stop=fed_ts)
    effects = _effects(graph, nodes, fed_ts)
    if effects:
        nodes = graph.ancestors(
            [*fetches, *writes.values(), *(t for n in effects for t in n.inputs)], stop=fed_ts
        )
    used = {t for n in (*nodes, *effects) for t in n.inputs} | set(fetches)
    return [i for i, t in enumerate(fed_ts) if t in used], writes, effects


def _effects(graph, nodes, fed_ts) -> list:
    """The effects (prints, callbacks) a run computing ``nodes`` runs: those that read a value
    the run computes or is fed (or nothing but constants), and whose inputs need no placeholder
    it leaves unfed."""
    computed, fed = set(nodes), set(fed_ts)
    chosen = []
    for node in graph.nodes:
        if "effect" not in node.op.traits:
            continue
        needs = graph.ancestors(node.inputs, stop=fed_ts)
        if any("feed" in n.op.traits for n in needs):
            continue
        reads_feed = any(t in fed for n in (node, *needs) for t in n.inputs)
        if reads_feed or any(n in computed for n in needs) or all("constant" in n.op.traits for n in needs):
            chosen.append(node)
    return chosen


def _reads_variable(node) -> bool:
    """Whether a node reads a Variable's state (the seed is state no Variable names)."""
    return "reads_state" in node.op.traits and "seed" not in node.op.traits


def _add_write(writes: dict, node) -> None:
    var = node.attrs.var
    other = writes.get(var)
    if other is not None and other.node is not node:
        raise GraphError(
            f"variable {var} is assigned twice in one run:\n"
            f"  {located('assign', other.node.location, other.node.name)}\n"
            f"  {located('assign', node.location, node.name)}\n"
            "a run reads every variable once, at its start: combine the two updates into one assign"
        )
    writes[var] = node.output
