"""Session: runs fetches of a Graph with feeds, compiling each distinct program once (backend).

One run is a pure function of the feeds: prune the graph to what the fetches
need (a fed tensor overrides its value and cuts off what only it needed),
bind symbolic dims from the feed shapes, lower to StableHLO, compile with
XLA, execute through PJRT. Executables are cached by (fetches, fed tensors,
feed shapes); dtypes are fixed per tensor, so shapes are what can change.
"""

from __future__ import annotations

import time

import numpy as np

from ..graph import CompileError, ExecutionError, FeedError, Tensor, flatten, located, unflatten
from ..graph.structural import placeholder_op
from . import feeds as feeding
from . import pjrt
from .lowering import lower_module
from .stats import CompileRecord, SessionStats, change_reason


class Program:
    """A compiled program and how to call it: which feeds become its arguments."""

    __slots__ = ("executable", "arg_positions", "text", "nodes")

    def __init__(self, executable, arg_positions, text, nodes):
        self.executable = executable
        self.arg_positions = arg_positions
        self.text = text
        self.nodes = nodes


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


def _compile(text: str, devices, nodes) -> pjrt.Executable:
    try:
        return pjrt.compile(text, devices)
    except pjrt.XlaRuntimeError as e:
        raise CompileError(_with_nodes(f"XLA could not compile the graph: {e}", nodes)) from None


def _with_nodes(message: str, nodes) -> str:
    named = [n for n in nodes if n.name in message] or list(nodes)[-3:]
    where = "\n".join(f"  {located(n.op.name, n.location, n.name)}" for n in named)
    return f"{message}\nnodes involved:\n{where}" if where else message


def _is_fetch_leaf(x) -> bool:
    return isinstance(x, Tensor | str)


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
        self._last_signature: dict = {}
        self._closed = False

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._cache.clear()
        self._closed = True

    # -- running ---------------------------------------------------------------
    def run(self, fetches, feeds=None):
        """Evaluate ``fetches`` (a Tensor, a name, or any nest of them) with ``feeds``.

        Returns numpy arrays in the structure of ``fetches``.
        """
        if self._closed:
            raise FeedError("this Session is closed")
        single = isinstance(fetches, Tensor) and fetches.node.graph is self.graph
        if single:
            fetch_ts, tree = (fetches,), None
        else:
            leaves, tree = flatten(fetches, is_leaf=_is_fetch_leaf)
            fetch_ts = tuple(feeding.resolve(self.graph, f) for f in leaves)
        fed = self._convert_feeds(feeds)
        signature = tuple((t, arr.shape) for t, arr in fed)
        key = (fetch_ts, signature)
        program = self._cache.get(key)
        if program is None:
            program = self._compile(fetch_ts, fed, signature)
            self._cache[key] = program
        else:
            self.stats.cache_hits += 1
        self.stats.runs += 1
        device = self.devices[0]
        arrays = [pjrt.put(fed[i][1], device) for i in program.arg_positions]
        try:
            outs = program.executable.run(arrays)
        except pjrt.XlaRuntimeError as e:
            raise ExecutionError(
                _with_nodes(f"the program failed while running: {e}", program.nodes)
            ) from None
        results = [np.asarray(o) for o in outs]
        return results[0] if single else unflatten(tree, results)

    def _convert_feeds(self, feeds) -> list:
        if not feeds:
            return []
        fed, seen = [], set()
        for key, value in feeds.items():
            t = feeding.resolve(self.graph, key)
            if t in seen:
                raise FeedError(f"{t.name} is fed twice (by Tensor and by name?)")
            seen.add(t)
            fed.append((t, feeding.convert(t, value)))
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
        nodes, positions = self._plan(fetch_ts, fed)
        bindings = feeding.bind(fed)
        text = lower_module(nodes, [fed[i][0] for i in positions], fetch_ts, bindings)
        return nodes, positions, text

    def _compile(self, fetch_ts, fed, signature) -> Program:
        start = time.perf_counter()
        nodes, positions, text = self._lower(fetch_ts, fed)
        executable = _compile(text, self.devices[:1], nodes)
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
        _, _, text = self._lower(fetch_ts, self._convert_feeds(feeds))
        return Lowered(text, self.devices[:1])
