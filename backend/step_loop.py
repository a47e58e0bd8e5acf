"""Many steps per call: ``sess.run(fetches, feeds, steps=k)`` as one compiled loop (backend).

A run of ``steps=k`` is k runs of the same step folded into one program: the
step is planned as a single run would be (planning.py, on one step's feed
shapes), then lowered inside a ``stablehlo.while`` over a step counter. Each
trip slices step i's batch out of the stacked feeds (leading axis k), reads
the variables from the loop's carry, runs the step's nodes, writes each
fetch's value into row i of its stacked result and carries the variables'
new values on. Variables the step only reads are loop invariants; those it
writes are donated to the program, so XLA updates them in place, and the
Session stores their values after the last step. The counters of the
Generators are ordinary written variables, so dropout keys advance per step
exactly as k runs would advance them: the results equal k separate runs.

Feeds are a dict of stacked values (numpy or device arrays), or a feed
source: any object with ``next_feeds(steps)`` (see ``take_source``).
Programs are cached per (fetches, stacked feed shapes), so per k; a
``StepsRepeat`` is the fast path of a run that repeats one.
"""

from __future__ import annotations

import time

import numpy as np

from ..graph import FeedError, TensorType, dtypes, flatten, located, unflatten, user_location
from ..graph.rewrite import Walk
from ..ops.primitives import hlo
from ..sharding import PartitionSpec, sdy_sharding
from . import feeds as feeding
from . import pjrt
from .lowering import LoweringPass, ModuleText, _lowering, _partition
from .placement import named_from_tiling
from .planning import Plan, plan_run
from .program import LONG_FLOPS, MISSED, Program, _flops, compile_text, is_fetch_leaf, is_flat, shaped
from .stats import CompileRecord, change_reason


def is_source(feeds) -> bool:
    """Whether ``feeds`` is a feed source (has ``next_feeds``) rather than a mapping of values."""
    return feeds is not None and type(feeds) is not dict and callable(getattr(feeds, "next_feeds", None))


def take_source(source, steps):
    """The feeds a source gives for one run: ``source.next_feeds(steps)`` (one batch per
    placeholder with ``steps`` None, else the next ``steps`` batches stacked), or its
    ``run_feeds(steps)`` where it has one (the same batches as a run takes them best: see
    sg.data.prefetch); a FeedError at the user's line when it gives something other than a
    mapping."""
    take = getattr(source, "run_feeds", None)
    feeds = take(steps) if take is not None else source.next_feeds(steps)
    if feeds is not None and not hasattr(feeds, "items"):
        raise FeedError(
            located(
                f"the feed source {type(source).__name__}.next_feeds({steps}) gave a "
                f"{type(feeds).__name__}, not a mapping {{placeholder: value}}",
                user_location(),
            )
        )
    return feeds


def check_steps(steps) -> int:
    """``steps`` as an int >= 1, or a FeedError at the user's line."""
    if isinstance(steps, bool) or not isinstance(steps, int | np.integer) or steps < 1:
        raise FeedError(
            located(
                f"sess.run's steps= is the number of steps to run, an int >= 1; got {steps!r}",
                user_location(),
            )
        )
    return int(steps)


def run_steps(session, fetches, feeds, steps: int | None):
    """``session.run(fetches, feeds, steps=steps)``: each fetch's values of the k steps stacked
    along a new leading axis (None for a train op), the variables written as k runs write them.

    ``steps`` None is one plain run of a feed source's batch, whose device arrays go to the
    program as they are (a plain run's feeds are numpy)."""
    if steps is not None:
        steps = check_steps(steps)
    if is_source(feeds):
        feeds = take_source(feeds, steps)
    one_by_one = session.check_numerics or session._layout.multiprocess
    if steps is None and one_by_one:
        return session.run(fetches, feeds)  # (the general path: its feeds read back to the host)
    repeat = session._step_repeats.get(_key(fetches, feeds, steps))
    if repeat is not None:
        out = repeat.run(feeds, session._state, session.stats)
        if out is not MISSED:
            return out
    if one_by_one:
        # each step checked as its own run (find_nonfinite names the step's node); over several
        # processes, each step a run of the global program (feeds are each process's blocks)
        return _one_by_one(session, fetches, convert_stacked(session.graph, feeds, steps), steps)
    program, values, tree = prepare(session, fetches, feeds, steps)
    return unflatten(tree, program.execute(session._state, session.stats, values))


def prepare(session, fetches, feeds, steps: int | None) -> tuple[Program, list, object]:
    """The loop program of a ``steps`` run (``feeds`` a mapping), the feeds' values it takes and
    the fetches' tree; the run's fast path is kept for the next one like it. ``steps`` None:
    the single run's own program."""
    leaves, tree = flatten(fetches, is_leaf=is_fetch_leaf)
    fetch_ts = tuple(feeding.resolve(session.graph, f) for f in leaves)
    fed = convert_stacked(session.graph, feeds, steps)
    if steps is None:
        program = session._program(fetch_ts, [(t, Stacked(_shape(v), _dtype(v))) for t, v in fed])
    else:
        program = steps_program(session, fetch_ts, fed, steps)
    key = _key(fetches, feeds, steps)
    if key is not None:
        session._step_repeats[key] = StepsRepeat(program, fed, tree, fetches)
    return program, [v for _, v in fed], tree


def _one_by_one(session, fetches, fed, steps: int):
    """k single runs, their fetches stacked (a Session that checks numerics, or whose mesh spans
    processes)."""
    runs = []
    for i in range(steps):
        runs.append(session.run(fetches, {t: _row(v, i) for t, v in fed}))
    leaves = [flatten(r, is_leaf=lambda x: x is None)[0] for r in runs]
    _, tree = flatten(runs[0], is_leaf=lambda x: x is None)
    stacked = [None if col[0] is None else np.stack(col) for col in zip(*leaves)]
    return unflatten(tree, stacked)


def _row(value, i: int):
    return pjrt.to_numpy(value)[i] if pjrt.is_device_array(value) else value[i]


# -- feeds -------------------------------------------------------------------------
class Stacked:
    """A stand-in with a shape and dtype (what planning reads of a feed): one step's batch of a
    stacked feed, without slicing or copying it (it may be a device array)."""

    __slots__ = ("shape", "dtype", "ndim")

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.ndim = tuple(shape), np.dtype(dtype), len(shape)


def convert_stacked(graph, feeds, steps: int | None) -> list:
    """[(placeholder Tensor, value)] of stacked feeds: numpy values converted as single feeds
    are (same_kind casting, value checks), device arrays taken as they are when their dtype is
    the placeholder's. FeedError at the user's line for a leading axis that is not ``steps``
    (``steps`` None: one batch each, no stack axis)."""
    if feeds is None:
        return []
    if type(feeds) is not dict:
        feeds = feeding.as_mapping(feeds)
    fed = []
    for key, value in feeds.items():
        t = feeding.resolve(graph, key)
        if pjrt.is_device_array(value):
            shape, dtype = pjrt.type_of(value)
            if dtype != t.dtype.np:
                raise FeedError(
                    located(
                        f"feed for {t.name} is a device array of dtype {dtype}, expected {t.dtype.name}: "
                        "a device array is taken as it is (place it with the placeholder's dtype)",
                        user_location(),
                    )
                )
        else:
            value = feeding.convert(t, value, stacked=0 if steps is None else 1)
            shape = value.shape
        if steps is None:
            if len(shape) != len(t.type.shape):
                raise feeding.wrong_rank(t, shape)
            fed.append((t, value))
            continue
        if len(shape) != len(t.type.shape) + 1 or shape[0] != steps:
            raise FeedError(
                located(
                    f"with steps={steps}, the feed for {t.name} stacks {steps} batches along a new leading "
                    f"axis: expected shape ({steps}, {', '.join(str(d) for d in t.type.shape)}), "
                    f"got {tuple(shape)}",
                    user_location(),
                )
            )
        fed.append((t, value))
    if len({id(t) for t, _ in fed}) < len(fed):
        seen: set = set()
        twice = next(t for t, _ in fed if t in seen or seen.add(t))
        raise FeedError(located(f"{twice.name} is fed twice (by Tensor and by name?)", user_location()))
    return fed


def _shape(value) -> tuple:
    return pjrt.type_of(value)[0] if pjrt.is_device_array(value) else value.shape


def _dtype(value) -> np.dtype:
    return pjrt.type_of(value)[1] if pjrt.is_device_array(value) else value.dtype


# -- the program ----------------------------------------------------------------------
def steps_program(session, fetch_ts: tuple, fed: list, steps: int) -> Program:
    """The compiled loop of ``steps`` steps of these fetches (cached in the Session's programs)."""
    signature = tuple((t, _shape(v)) for t, v in fed)
    key = ("steps", fetch_ts, signature)
    program = session._cache.get(key)
    if program is None:
        program = session._cache[key] = _compile(session, fetch_ts, fed, steps)
    return program


def _compile(session, fetch_ts, fed, steps: int) -> Program:
    session._initialize_missing()  # the program reads the variables
    layout = session._layout
    one_step = [(t, Stacked(_shape(v)[1:], _dtype(v))) for t, v in fed]
    pins = None
    if layout.partitioned:  # (compiled first: its compile is a record of its own)
        pins = _single_step_specs(session, fetch_ts, one_step)
    start = time.perf_counter()
    layout.check_feeds(one_step)
    plan, body = plan_run(session.graph, fetch_ts, one_step, layout, session._state.has_value)
    loop_plan, text = _lower_loop(plan, body, fed, steps, layout, session.devices[0].platform, pins)
    executable, source = compile_text(
        text, layout.devices, body.nodes, loop_plan.arg_types, loop_plan.out_types, loop_plan.n_fetched,
        disk=True,
    )  # fmt: skip
    previous = session._last_signature.get(("steps", fetch_ts))
    reason = f"first run of these fetches with steps={steps}" if previous is None else (
        change_reason(previous, loop_plan.feed_signature)
    )  # fmt: skip
    session._last_signature[("steps", fetch_ts)] = loop_plan.feed_signature
    names = tuple(t.name for t in fetch_ts)
    session.stats.records.append(CompileRecord(names, reason, time.perf_counter() - start, source))
    program = Program(executable, loop_plan, text, body.nodes)
    if text.count("stablehlo.while") == 1:  # the step loop alone: it ends after ``steps`` trips
        program.interruptible = loop_flops(executable, steps) >= LONG_FLOPS
    return program


def loop_flops(executable, steps: int) -> float:
    """The flops of a ``steps``-step loop program: XLA's cost analysis counts one trip of a loop.
    A loop whose every trip is short runs inline (Program.interruptible): a Ctrl-C waits for at
    most LONG_FLOPS of work, and the run saves the two thread hand-offs, which on a loaded
    machine cost more wall time than a 50-step loop of a small model computes."""
    return _flops(executable) * steps


def _pin(value, spec):
    """``value`` laid out by ``spec`` (sdy.sharding_constraint), or as it is for None."""
    if spec is None:
        return value
    rank = len(hlo.ir.RankedTensorType(value.type).shape)
    sharding = hlo.ir.Attribute.parse(sdy_sharding(spec, rank))
    return hlo.ir.Operation.create(
        "sdy.sharding_constraint", results=[value.type], operands=[value], attributes={"sharding": sharding}
    ).result


def _single_step_specs(session, fetch_ts, one_step) -> list:
    """The PartitionSpec of each result (fetch values, new variables) of the single-step program
    of these fetches, as XLA laid them out there: the loop pins its step's results the same way,
    so that XLA partitions the step as it does one run (the same collectives, the same sums)."""
    single = session._program(fetch_ts, one_step)
    mesh = session.mesh
    specs = []
    for sharding, (shape, _) in zip(single.executable.out_shardings, single.plan.out_types):
        named = named_from_tiling(sharding.tile, mesh, len(shape))
        specs.append(None if named is None else named.spec)
    return specs


def _lower_loop(plan: Plan, body, fed, steps: int, layout, platform: str, pins=None) -> tuple[Plan, str]:
    """The loop's Plan and StableHLO text: ``main(stacked feeds, variables) -> (stacked fetches,
    new variables)`` around a while over the step's nodes."""
    n_fed = len(plan.arg_positions)
    n_values = plan.n_fetched
    state_in = tuple(dict.fromkeys(plan.state_in))  # a variable read by two nodes is one argument
    state_out = plan.state_out
    reads = body.args[n_fed:]  # one per entry of plan.state_in
    feed_ts = body.args[:n_fed]
    bindings = body.bindings
    stacked_types = [(_shape(fed[i][1]), _dtype(fed[i][1])) for i in plan.arg_positions]
    state_types = [plan.arg_types[n_fed + plan.state_in.index(v)] for v in state_in]
    value_types = plan.out_types[:n_values]
    out_state_types = plan.out_types[n_values:]
    arg_types = (*stacked_types, *state_types)
    out_types = (*(((steps, *shape), dt) for shape, dt in value_types), *out_state_types)
    aliases = {n_fed + state_in.index(v): n_values + k for k, v in enumerate(state_out) if v in state_in}

    lowering = LoweringPass(body.nodes)
    visit = _lowering(lowering, bindings, layout.mesh, platform, plan.trains)
    with hlo.new_context(), hlo.ir.Location.unknown():
        module = hlo.ir.Module.create()
        mlir_args = [hlo.tensor_type(_concrete(shape, dt)) for shape, dt in arg_types]
        with hlo.ir.InsertionPoint(module.body):

            @hlo.func.FuncOp.from_py_func(*mlir_args, name="main")
            def main(*values):
                feeds, held = values[:n_fed], dict(zip(state_in, values[n_fed:]))
                zero = hlo.constant(0, dtypes.int32)
                init = [
                    held[v] if v in held else hlo.full(shape, 0, _dt(dt))
                    for v, (shape, dt) in zip(state_out, out_state_types)
                ]
                stacks = [hlo.full((steps, *shape), 0, _dt(dt)) for shape, dt in value_types]

                def cond(i, *_):
                    return hlo.compare(i, hlo.constant(steps, dtypes.int32), "LT", dtypes.int32)

                def step(i, *carry):
                    carried = dict(zip(state_out, carry[: len(state_out)]))
                    env = {}
                    for t, x, (shape, dt) in zip(feed_ts, feeds, stacked_types):
                        window = hlo.sh.dynamic_slice(
                            x, [i] + [zero] * (len(shape) - 1), hlo.dense_i64((1, *shape[1:]))
                        )
                        env[t] = hlo.sh.reshape(hlo.tensor_type(_concrete(shape[1:], dt)), window)
                    for t, v in zip(reads, plan.state_in):
                        env[t] = carried[v] if v in carried else held[v]
                    lowering._tokens.append(None)  # the step's effects chain inside the loop's body
                    try:
                        env = Walk(env).run(body.nodes, visit).env
                    finally:
                        lowering._tokens.pop()
                    results = [env[t] for t in body.results]
                    if pins is not None:
                        results = [_pin(r, spec) for r, spec in zip(results, pins)]
                    new_stacks = []
                    for buf, y, (shape, dt) in zip(carry[len(state_out) :], results[:n_values], value_types):
                        row = hlo.sh.reshape(hlo.tensor_type(_concrete((1, *shape), dt)), y)
                        new_stacks.append(hlo.sh.dynamic_update_slice(buf, row, [i] + [zero] * len(shape)))
                    return [hlo.sh.add(i, hlo.constant(1, dtypes.int32)), *results[n_values:], *new_stacks]

                out = hlo.while_loop([zero, *init, *stacks], cond, step)
                new_state, stacked = out[1 : 1 + len(state_out)], out[1 + len(state_out) :]
                return [*stacked, *new_state]

        main.func_op.attributes["sym_visibility"] = hlo.ir.StringAttr.get("public")
        if lowering.host_callbacks:
            aliases = {}  # a callback that raises fails the run: the variables must outlive it
        if layout.mesh is not None:
            placeholders = [fed[i][0] for i in plan.arg_positions]  # (declared specs: not the body's params)
            specs = _loop_specs(layout, placeholders, state_in, body.results[:n_values], state_out, pins)
            _partition(module, main.func_op, layout.mesh, aliases, specs)
        elif aliases:
            hlo.alias_arguments(main.func_op, len(arg_types), aliases)
        module.operation.verify()
        text = ModuleText(module.operation.get_asm(enable_debug_info=True))
        text.host_callbacks = tuple(lowering.host_callbacks)
        text.portable = module.operation.get_asm(enable_debug_info=False)
    loop_plan = Plan(
        fetches=plan.fetches,
        feed_signature=tuple((t, _shape(v)) for t, v in fed),
        arg_positions=plan.arg_positions,
        state_in=state_in,
        state_out=state_out,
        fetch_slots=plan.fetch_slots,
        arg_types=arg_types,
        out_types=out_types,
        aliases=tuple(sorted(aliases.items())),
        trains=plan.trains,
    )
    return loop_plan, text


def _loop_specs(layout, feed_ts, state_in, values, state_out, pins=None):
    """The loop program's PartitionSpecs: a stacked feed or fetch is split as one step's value
    (a fetch as ``pins`` says, when given), its leading (step) axis whole; variables as declared."""
    args, results = layout.program_specs(feed_ts, state_in, values, state_out)
    n_fed, n_values = len(feed_ts), len(values)
    if pins is not None:
        results = [*pins[:n_values], *results[n_values:]]
    args = [PartitionSpec(None, *s) if i < n_fed else s for i, s in enumerate(args)]
    results = [
        PartitionSpec(None, *s) if i < n_values and s is not None else s for i, s in enumerate(results)
    ]
    return args, results


def _dt(np_dtype) -> dtypes.DType:
    return dtypes.dtype(np.dtype(np_dtype))


def _concrete(shape, dt) -> TensorType:
    return TensorType(tuple(shape), _dt(dt))


# -- the repeat fast path ---------------------------------------------------------------
def _key(fetches, feeds, steps: int):
    """The fast-path key of a run: its steps, fetches and feed keys (None when not hashable)."""
    kind = type(fetches)
    if kind is list or kind is tuple:
        head = tuple(fetches)
    elif kind is dict:
        head = (tuple(fetches), tuple(fetches.values()))
    else:
        head = fetches
    if feeds is None:
        keys = ()
    elif type(feeds) is dict:
        keys = tuple(feeds)
    else:
        return None
    key = (steps, kind, head, keys)
    try:
        hash(key)
    except TypeError:
        return None
    return key


class StepsRepeat:
    """The fast path of a ``steps=k`` run repeating an earlier one (same fetches, feed keys and
    steps): feeds of the shapes and dtypes of last time go straight to the program."""

    __slots__ = ("program", "tensors", "specs", "tree", "kind", "keys")

    def __init__(self, program: Program, fed, tree, fetches=None):
        self.program = program
        self.tensors = tuple(t for t, _ in fed)
        self.specs = tuple((_shape(v), _dtype(v)) for _, v in fed)
        self.tree = tree
        # flat fetches (one, or a list, tuple or dict of them) are shaped without the tree walk
        self.kind = type(fetches) if is_flat(tree, fetches) else None
        self.keys = tuple(fetches) if self.kind is dict else None

    def run(self, feeds, state, stats):
        values = [] if feeds is None else list(feeds.values())
        for v, (shape, dt) in zip(values, self.specs):
            if type(v) is np.ndarray:
                if v.dtype != dt or v.shape != shape:
                    return MISSED
            elif not pjrt.is_device_array(v) or pjrt.type_of(v) != (shape, dt):
                return MISSED
        results = self.program.execute(state, stats, values)
        if self.kind is None:
            return unflatten(self.tree, results)
        return shaped(results, self.kind, self.keys)
