"""Session: runs fetches of a Graph with feeds, compiling each distinct program once (backend).

One run is a pure function of the feeds: prune the graph to what the fetches
need (a fed tensor overrides its value and cuts off what only it needed),
extract that as a Function of the feeds and simplify it (sg.simplify),
bind symbolic dims from the feed shapes, lower to StableHLO, compile with
XLA, execute through PJRT. Executables are cached by (fetches, fed tensors,
feed shapes); dtypes are fixed per tensor, so shapes are what can change.
"""

from __future__ import annotations

import time

import numpy as np

from ..graph import CompileError, ExecutionError, FeedError, Tensor, extract, flatten, located, unflatten
from ..graph.structural import parameter_op, placeholder_op
from ..transforms import simplify
from . import feeds as feeding
from . import pjrt
from .lowering import concrete_type, lower_module
from .stats import CompileRecord, SessionStats, change_reason


class Program:
    """A compiled program and how to call it: which feeds become its arguments."""

    __slots__ = ("executable", "arg_positions", "text", "nodes", "runs")

    def __init__(self, executable, arg_positions, text, nodes):
        self.executable = executable
        self.arg_positions = arg_positions
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


def _compile(text: str, devices, nodes, arg_types=(), out_types=()) -> pjrt.Executable:
    try:
        return pjrt.compile(text, devices, arg_types, out_types)
    except pjrt.XlaRuntimeError as e:
        raise CompileError(_with_nodes(f"XLA could not compile the graph: {e}", nodes)) from None


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
        return (kind, head)
    if type(feeds) is not dict:
        return None
    key = (kind, head, *feeds)
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
    """Runs parts of a graph: ``sess.run(fetches, feeds)``.

    ``devices=N`` asks for a CPU client with N devices (programs run on the
    first until sharding places them). Use as a context manager or call close().
    """

    def __init__(self, graph, devices: int | None = None):
        self.graph = graph
        self.devices = pjrt.cpu_devices(devices or 1)
        self.stats = SessionStats()
        self._cache: dict = {}
        self._repeats: dict = {}
        self._last_signature: dict = {}
        self._closed = False

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._cache.clear()
        self._repeats.clear()
        self._closed = True

    # -- running ---------------------------------------------------------------
    def run(self, fetches, feeds=None):
        """Evaluate ``fetches`` (a Tensor, a name, or any nest of them) with ``feeds``.

        Returns numpy arrays in the structure of ``fetches``.
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
        try:
            return program.executable([values[i] for i in program.arg_positions])
        except pjrt.XlaRuntimeError as e:
            raise ExecutionError(
                _with_nodes(f"the program failed while running: {e}", program.nodes)
            ) from None

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
        """The nodes to lower and which feeds are arguments; FeedError if a placeholder is unfed."""
        fed_ts = [t for t, _ in fed]
        nodes = self.graph.ancestors(fetch_ts, stop=fed_ts)
        missing = [n for n in nodes if n.op is placeholder_op]
        if missing:
            names = ", ".join(f"{n.name} {n.out_types[0]}" for n in missing)
            raise FeedError(
                located(f"placeholder {names} needs a feed for these fetches", missing[0].location)
            )
        used = {t for n in nodes for t in n.inputs} | set(fetch_ts)
        positions = [i for i, t in enumerate(fed_ts) if t in used]
        return nodes, positions

    def _lower(self, fetch_ts, fed):
        """Lower the simplified program: the fetches as a Function of the feeds they use."""
        _, positions = self._plan(fetch_ts, fed)
        bindings = feeding.bind(fed)
        program = simplify(extract(self.graph, fetch_ts, [fed[i][0] for i in positions]))
        nodes = [n for n in program.graph.nodes if n.op is not parameter_op]
        text = lower_module(nodes, program.params, program.results, bindings)
        return nodes, positions, text, bindings

    def _compile(self, fetch_ts, fed, signature) -> Program:
        start = time.perf_counter()
        nodes, positions, text, bindings = self._lower(fetch_ts, fed)
        arg_types = [(fed[i][1].shape, fed[i][1].dtype) for i in positions]
        out_types = [(ty.shape, ty.dtype.np) for ty in (concrete_type(t, bindings) for t in fetch_ts)]
        executable = _compile(text, self.devices[:1], nodes, arg_types, out_types)
        names = tuple(t.name for t in fetch_ts)
        previous = self._last_signature.get(fetch_ts)
        if previous is None:
            reason = "first run of these fetches"
        else:
            reason = change_reason(previous, signature)
        self._last_signature[fetch_ts] = signature
        self.stats.records.append(CompileRecord(names, reason, time.perf_counter() - start))
        return Program(executable, positions, text, nodes)

    def lower(self, fetches, feeds=None) -> Lowered:
        """The StableHLO text that ``run(fetches, feeds)`` would compile."""
        leaves, _ = flatten(fetches, is_leaf=_is_fetch_leaf)
        fetch_ts = tuple(feeding.resolve(self.graph, f) for f in leaves)
        text = self._lower(fetch_ts, self._convert_feeds(feeds))[2]
        return Lowered(text, self.devices[:1])
