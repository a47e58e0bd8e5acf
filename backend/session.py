"""Session: runs fetches of a Graph with feeds, compiling each distinct program once (backend).

One run is a pure function (variables, feeds) -> (fetches, new variables):
prune the graph to what the fetches need (a fed tensor overrides its value
and cuts off what only it needed), extract that as a Function of the feeds
and simplify it (sg.simplify), bind symbolic dims from the feed shapes,
lower to StableHLO, compile with XLA, execute through PJRT. Executables are
cached by (fetches, fed tensors, feed shapes); dtypes are fixed per tensor,
so shapes are what can change.

Variables live on the device in the Session (``self._state``), one buffer
each. The variables a run reads become extra arguments of its program and
the assigns it needs extra results; a variable that is both read and written
is donated, so XLA updates it in place and no new buffer is allocated.
"""

from __future__ import annotations

import time
from collections import OrderedDict

import numpy as np

from ..graph import (
    CompileError,
    ExecutionError,
    FeedError,
    GraphError,
    Tensor,
    extract,
    flatten,
    located,
    unflatten,
)  # fmt: skip
from ..graph.structural import parameter_op, placeholder_op
from ..graph.variables import seed_op, variable_op
from ..ops.random.keys import seed_words
from ..ops.state import assign_op, group_op
from ..transforms import simplify
from . import checkpoint, pjrt
from . import feeds as feeding
from .lowering import concrete_type, lower_module
from .stats import CompileRecord, SessionStats, change_reason

SEED = "\0seed"  # the root random key's entry among the Session's state buffers


class Program:
    """A compiled program and how to call it.

    Its arguments are the feeds at ``arg_positions``, then the state buffers
    named in ``state_in``; its results are the fetches (``fetch_slots`` maps
    each fetch to a result, None for a train op), then the new values of the
    variables in ``state_out``.
    """

    __slots__ = (
        "executable",
        "arg_positions",
        "state_in",
        "state_out",
        "fetch_slots",
        "text",
        "nodes",
        "runs",
    )

    def __init__(self, executable, arg_positions, text, nodes, state_in=(), state_out=(), fetch_slots=None):
        self.executable = executable
        self.arg_positions = arg_positions
        self.state_in = tuple(state_in)
        self.state_out = tuple(state_out)
        self.fetch_slots = fetch_slots
        self.text = text
        self.nodes = nodes
        self.runs = 0


class Lowered(str):
    """The StableHLO text of a program; ``.compile()`` gives its cost and memory analysis."""

    def __new__(cls, text: str, devices):
        self = super().__new__(cls, text)
        self._devices = devices
        return self

    def compile(self) -> Compiled:
        return Compiled(_compile(str(self), self._devices, ()))


class Compiled:
    """A compiled program's analyses: cost (flops, bytes) and memory sizes."""

    def __init__(self, executable: pjrt.Executable):
        self._exe = executable

    def cost_analysis(self) -> dict:
        return self._exe.cost_analysis()

    def memory_analysis(self) -> dict:
        return self._exe.memory_analysis()

    def as_text(self) -> str:
        return self._exe.hlo_text()


_EXECUTABLES: OrderedDict = OrderedDict()  # (text, devices, types) -> Executable, shared by Sessions
_EXECUTABLES_KEPT = 64


def _compile(text: str, devices, nodes, arg_types=(), out_types=(), n_host=None) -> pjrt.Executable:
    """Compile ``text`` (or reuse the executable another Session compiled from the same text)."""
    key = (text, tuple(devices), _types_key(arg_types), _types_key(out_types), n_host)
    exe = _EXECUTABLES.get(key)
    if exe is not None:
        _EXECUTABLES.move_to_end(key)
        return exe
    try:
        exe = pjrt.compile(text, devices, arg_types, out_types, n_host)
    except pjrt.XlaRuntimeError as e:
        raise CompileError(_with_nodes(f"XLA could not compile the graph: {e}", nodes)) from None
    _EXECUTABLES[key] = exe
    if len(_EXECUTABLES) > _EXECUTABLES_KEPT:
        _EXECUTABLES.popitem(last=False)
    return exe


def _types_key(types) -> tuple:
    return tuple((tuple(shape), np.dtype(dt).str) for shape, dt in types)


def _with_nodes(message: str, nodes) -> str:
    named = [n for n in nodes if n.name in message] or list(nodes)[-3:]
    where = "\n".join(f"  {located(n.op.name, n.location, n.name)}" for n in named)
    return f"{message}\nnodes involved:\n{where}" if where else message


def _is_fetch_leaf(x) -> bool:
    return isinstance(x, Tensor | str)


def _repeat_key(fetches, feeds):
    """A hashable key for a run whose fetches are a Tensor or a flat list/tuple of them."""
    kind = type(fetches)
    if kind is Tensor:
        head = fetches
    elif kind is list or kind is tuple:
        head = tuple(fetches)
    else:
        return None
    if feeds is None:
        key = (kind, head)
    elif type(feeds) is dict:
        key = (kind, head, *feeds)
    else:
        return None
    try:
        hash(key)
    except TypeError:
        return None
    return key


class _Repeat:
    """The fast path for a run repeating an earlier one: same fetches, same feed keys.

    It applies when every fed value is a numpy array of the dtype and shape
    fed last time, so no conversion, check or signature is needed.
    """

    __slots__ = ("program", "specs", "kind")

    def __init__(self, program: Program, fed, kind):
        self.program = program
        self.specs = tuple((arr.dtype, arr.shape) for _, arr in fed)
        self.kind = kind

    def values_if_unchanged(self, feeds) -> list | None:
        if feeds is None:
            return []
        values = list(feeds.values())
        for v, (dt, shape) in zip(values, self.specs):
            if type(v) is not np.ndarray or v.dtype is not dt or v.shape != shape:
                return None
        return values

    def shape_results(self, results: list):
        if self.kind is Tensor:
            return results[0]
        return results if self.kind is list else tuple(results)


class Session:
    """Runs parts of a graph and holds its variables: ``sess.run(fetches, feeds)``.

    ``seed`` makes variable initializers and ``sg.random`` generators
    reproducible; variables are initialized when first needed (by a run,
    ``get`` or ``save``), unless ``restore`` or ``set`` gave them a value.
    ``devices=N`` asks for a CPU client with N devices (programs run on the
    first until sharding places them). Use as a context manager or call close().
    """

    def __init__(self, graph, devices: int | None = None, seed: int = 0):
        self.graph = graph
        self.devices = pjrt.cpu_devices(devices or 1)
        self.seed = seed
        self.stats = SessionStats()
        self._cache: dict = {}
        self._repeats: dict = {}
        self._last_signature: dict = {}
        self._state: dict = {SEED: np.array(seed_words(seed, "Session"), np.uint32)}  # as sg.random.key(seed)
        self._closed = False

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._cache.clear()
        self._repeats.clear()
        self._state.clear()
        self._closed = True

    # -- running ---------------------------------------------------------------
    def run(self, fetches, feeds=None):
        """Evaluate ``fetches`` (a Tensor, a name, or any nest of them) with ``feeds``.

        Returns numpy arrays in the structure of ``fetches`` (None for a train
        op); the variables the fetches assign change after the run.
        """
        if self._closed:
            raise FeedError("this Session is closed")
        key = _repeat_key(fetches, feeds)
        repeat = self._repeats.get(key) if key is not None else None
        if repeat is not None:
            values = repeat.values_if_unchanged(feeds)
            if values is not None:
                return repeat.shape_results(self._execute(repeat.program, values))
        leaves, tree = flatten(fetches, is_leaf=_is_fetch_leaf)
        fetch_ts = tuple(feeding.resolve(self.graph, f) for f in leaves)
        fed = self._convert_feeds(feeds)
        signature = tuple([(t, arr.shape) for t, arr in fed])
        program = self._cache.get((fetch_ts, signature))
        if program is None:
            program = self._compile(fetch_ts, fed, signature)
            self._cache[(fetch_ts, signature)] = program
        if (
            key is not None
            and all(type(f) is Tensor for f in leaves)
            and tree in (None, (type(fetches), (None,) * len(leaves)))
        ):
            self._repeats[key] = _Repeat(program, fed, type(fetches))
        return unflatten(tree, self._execute(program, [arr for _, arr in fed]))

    def _execute(self, program: Program, values) -> list:
        self.stats.runs += 1
        if program.runs:
            self.stats.cache_hits += 1
        program.runs += 1
        args = [values[i] for i in program.arg_positions]
        state = self._state
        if program.state_in:
            args += [state[v] for v in program.state_in]
        try:
            outs = program.executable(args)
        except pjrt.XlaRuntimeError as e:
            raise ExecutionError(
                _with_nodes(f"the program failed while running: {e}", program.nodes)
            ) from None
        if program.state_out:
            n = len(outs) - len(program.state_out)
            state.update(zip(program.state_out, outs[n:]))
            outs = outs[:n]
        if program.fetch_slots is not None:
            return [None if i is None else outs[i] for i in program.fetch_slots]
        return outs

    def _convert_feeds(self, feeds) -> list:
        if not feeds:
            return []
        graph, fed = self.graph, []
        for key, value in feeds.items():
            t = key if type(key) is Tensor and key.node.graph is graph else feeding.resolve(graph, key)
            fed.append((t, feeding.convert(t, value)))
        if len(fed) > 1 and len({id(t) for t, _ in fed}) < len(fed):
            seen = set()
            twice = next(t for t, _ in fed if t in seen or seen.add(t))
            raise FeedError(f"{twice.name} is fed twice (by Tensor and by name?)")
        return fed

    def _plan(self, fetch_ts, fed):
        """What a run does: the feeds it uses (positions) and the variables it writes.

        FeedError if a placeholder is unfed; GraphError if two assigns write
        one variable. A variable read in the run whose Generator advances it
        gets that write too, unless the run writes it already.
        """
        fed_ts = [t for t, _ in fed]
        nodes = self.graph.ancestors(fetch_ts, stop=fed_ts)
        missing = [n for n in nodes if n.op is placeholder_op]
        if missing:
            names = ", ".join(f"{n.name} {n.out_types[0]}" for n in missing)
            raise FeedError(
                located(f"placeholder {names} needs a feed for these fetches", missing[0].location)
            )
        writes: dict[str, Tensor] = {}
        for n in nodes:
            if n.op is assign_op:
                _add_write(writes, n)
        advances = self._advances()
        extra = [advances[n.attrs.var] for n in nodes if n.op is variable_op and n.attrs.var in advances]
        for n in extra:
            if n.attrs.var not in writes:
                writes[n.attrs.var] = n.output
        if extra:
            nodes = self.graph.ancestors([*fetch_ts, *writes.values()], stop=fed_ts)
        used = {t for n in nodes for t in n.inputs} | set(fetch_ts)
        positions = [i for i, t in enumerate(fed_ts) if t in used]
        return positions, writes

    def _advances(self) -> dict:
        """The automatic writes of the graph (Generators' advances), by variable."""
        return {n.attrs.var: n for n in self.graph.nodes_of("assign") if n.attrs.auto}

    def _lower(self, fetch_ts, fed, writes=None):
        """Lower the simplified program: fetches and new variable values as a Function of
        the feeds it uses, then of the state it reads. Returns the lowering and its layout."""
        if writes is None:
            positions, writes = self._plan(fetch_ts, fed)
        else:
            positions = []
        bindings = feeding.bind(fed)
        values = [t for t in fetch_ts if t.op is not group_op]
        fetch_slots = None
        if len(values) < len(fetch_ts):
            slots = iter(range(len(values)))
            fetch_slots = [None if t.op is group_op else next(slots) for t in fetch_ts]
        state_out = list(writes)
        outputs = values + [writes[v] for v in state_out]
        program = simplify(extract(self.graph, outputs, [fed[i][0] for i in positions]))
        reads = [n for n in program.graph.nodes if n.op is variable_op or n.op is seed_op]
        state_in = [SEED if n.op is seed_op else n.attrs.var for n in reads]
        self._check_state(state_in)
        args = [*program.params, *(n.output for n in reads)]
        aliases = {
            len(program.params) + state_in.index(v): len(values) + k
            for k, v in enumerate(state_out)
            if state_in.count(v) == 1
        }
        nodes = [n for n in program.graph.nodes if n.op is not parameter_op]
        text = lower_module(nodes, args, program.results, bindings, aliases)
        layout = _Layout(positions, state_in, state_out, fetch_slots, [t.type for t in args], len(values))
        return nodes, text, bindings, layout, program.results

    def _check_state(self, state_in) -> None:
        missing = [v for v in state_in if v not in self._state]
        if missing:
            raise FeedError(f"variables {missing} are not in this Session: were they made in another graph?")

    def _compile(self, fetch_ts, fed, signature, writes=None) -> Program:
        start = time.perf_counter()
        if writes is None:
            self._initialize_missing()
        nodes, text, bindings, layout, results = self._lower(fetch_ts, fed, writes)
        arg_types = [(fed[i][1].shape, fed[i][1].dtype) for i in layout.positions]
        arg_types += [(tuple(ty.shape), ty.dtype.np) for ty in layout.arg_types[len(layout.positions) :]]
        out_types = [(ty.shape, ty.dtype.np) for ty in (concrete_type(t, bindings) for t in results)]
        executable = _compile(text, self.devices[:1], nodes, arg_types, out_types, layout.n_host)
        names = tuple(t.name for t in fetch_ts) or tuple(writes or ())
        previous = self._last_signature.get(fetch_ts)
        if writes is not None:
            reason = "initializing variables"
        elif previous is None:
            reason = "first run of these fetches"
        else:
            reason = change_reason(previous, signature)
        self._last_signature[fetch_ts] = signature
        self.stats.records.append(CompileRecord(names, reason, time.perf_counter() - start))
        return Program(
            executable, layout.positions, text, nodes, layout.state_in, layout.state_out, layout.fetch_slots
        )

    def lower(self, fetches, feeds=None) -> Lowered:
        """The StableHLO text that ``run(fetches, feeds)`` would compile."""
        leaves, _ = flatten(fetches, is_leaf=_is_fetch_leaf)
        fetch_ts = tuple(feeding.resolve(self.graph, f) for f in leaves)
        text = self._lower(fetch_ts, self._convert_feeds(feeds))[1]
        return Lowered(text, self.devices[:1])

    # -- variables ---------------------------------------------------------------
    def _initialize_missing(self) -> None:
        """Run the initializers of the graph's variables that have no value yet."""
        todo = [v for v in self.graph.variables if v.var_name not in self._state]
        if todo:
            self.initialize(todo)

    def initialize(self, var_list=None) -> None:
        """(Re)set variables to their initial values (all by default), from the Session's seed."""
        variables = self._variables(var_list)
        writes = {}
        for v in variables:
            init = v.initial_value
            if init is None:
                raise GraphError(located(f"variable {v.var_name} has no initializer", v.node.location))
            writes[v.var_name] = init
        if writes:
            key = ("initialize", tuple(writes))
            program = self._cache.get(key)
            if program is None:
                program = self._cache[key] = self._compile((), [], (), writes)
            self._execute(program, [])

    def _variables(self, var_list) -> list:
        if var_list is None:
            return self.graph.variables
        by_name = {v.var_name: v for v in self.graph.variables}
        out = []
        for v in [var_list] if isinstance(var_list, Tensor | str) else var_list:
            name = v if isinstance(v, str) else getattr(v, "var_name", None)
            if name not in by_name:
                raise FeedError(f"{name or v!r} is not a variable of graph {self.graph.name!r}")
            out.append(by_name[name])
        return out

    def get(self, var):
        """The current value of a variable (or a list of them) as numpy."""
        if isinstance(var, list | tuple):
            return [self.get(v) for v in var]
        (v,) = self._variables(var)
        if v.var_name not in self._state:
            self._initialize_missing()
        return np.array(pjrt.to_numpy(self._state[v.var_name]))  # a copy: the buffer may be donated next run

    def set(self, var, value) -> None:
        """Give a variable a new value (numpy data of its shape; same_kind casting)."""
        (v,) = self._variables(var)
        try:
            arr = feeding.convert(v, value)
        except FeedError as e:
            raise FeedError(str(e).replace("feed for", "sess.set value for", 1)) from None
        if arr.shape != tuple(v.shape):
            raise FeedError(f"variable {v.var_name} is {v.type}, got a value of shape {arr.shape}")
        self._state[v.var_name] = pjrt.put(arr, self.devices[0])

    def save(
        self, path: str, var_list=None, step: int | None = None, keep: int = 5, *,
        global_step: int | None = None, max_to_keep: int | None = None,
    ) -> str:  # fmt: skip
        """Write variables (all by default) to ``path`` (``path-<step>`` with ``step``), atomically.

        The file is numpy's npz (no pickles); with ``step``, only the newest
        ``keep`` checkpoints of ``path`` are kept. Returns the file written.
        TF1's names ``global_step=`` and ``max_to_keep=`` work too.
        """
        step = global_step if step is None else step
        keep = max_to_keep if max_to_keep is not None else keep
        arrays = {v.var_name: self.get(v) for v in self._variables(var_list)}
        return checkpoint.save(path, arrays, step=int(step) if step is not None else None, keep=keep)

    def restore(self, path: str, var_list=None) -> str:
        """Load variables (all by default) from a checkpoint written by ``save``.

        ``path`` is the file, or the prefix given to ``save`` (the newest step
        is taken). Names, shapes and dtypes are checked first; every mismatch
        is reported and nothing changes unless all match. Returns the file read.
        """
        variables = self._variables(var_list)
        found, arrays = checkpoint.load(path, {v.var_name: (tuple(v.shape), v.dtype.np) for v in variables})
        for v in variables:
            self._state[v.var_name] = pjrt.put(arrays[v.var_name], self.devices[0])
        return found


class _Layout:
    """Where a program's arguments and results come from and go."""

    def __init__(self, positions, state_in, state_out, fetch_slots, arg_types, n_host):
        self.positions, self.state_in, self.state_out = positions, state_in, state_out
        self.fetch_slots, self.arg_types, self.n_host = fetch_slots, arg_types, n_host


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
