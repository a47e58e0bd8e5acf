"""Compiled programs, the executable cache they share, and the repeat fast path (backend).

A Program is immutable once made: it records everything a run needs (which
feeds are arguments, which variables it reads and writes, where each fetch
comes from), so the per-run path does no planning. ``Lowered`` and
``Compiled`` are what ``sess.lower(...)`` and ``.compile()`` give users.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from ..graph import CompileError, Tensor
from ..graph.display import display_html
from . import feeds as feeding
from . import pjrt
from .placement import named_from_tiling
from .state import with_nodes

# A program is called from a worker thread when the main thread runs it, so that
# Ctrl-C reaches Python during the run, if it has a loop (which may never end) or
# at least this many flops (some tenths of a second on a CPU core and more).
LONG_FLOPS = 1e9


class Program:
    """A compiled program and how to call it.

    Its arguments are the feeds at ``arg_positions``, then the state buffers
    named in ``state_in``; its results are the fetches (``fetch_slots`` maps
    each fetch to a result, None for a train op), then the new values of the
    variables in ``state_out``. ``interruptible``: see ``LONG_FLOPS``.
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
        "interruptible",
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
        self.interruptible = "stablehlo.while" in text or _flops(executable) >= LONG_FLOPS


def _flops(executable) -> float:
    try:
        return float(executable.cost_analysis().get("flops", 0.0))
    except Exception:  # no analysis for this program: it is only a hint, so run it inline
        return 0.0


class Lowered(str):
    """The StableHLO text of a program; ``.compile()`` gives its cost and memory analysis
    (and, on a mesh, the layouts XLA chose for its arguments and results)."""

    def __new__(cls, text: str, devices, mesh=None, arg_types=(), out_types=()):
        self = super().__new__(cls, text)
        self._devices = devices
        self._mesh = mesh
        self._types = (tuple(arg_types), tuple(out_types))
        return self

    def compile(self) -> Compiled:
        arg_types, out_types = self._types
        return Compiled(
            compile_text(str(self), self._devices, (), arg_types, out_types), self._mesh, self._types
        )

    def _repr_html_(self) -> str:
        return display_html(self)  # viz renders it: cost and memory analysis, the text folded


class Compiled:
    """A compiled program's analyses: cost (flops, bytes), memory sizes, layouts on the mesh."""

    def __init__(self, executable: pjrt.Executable, mesh=None, types=((), ())):
        self._exe = executable
        self._mesh = mesh
        self._types = types

    def input_shardings(self) -> list:
        """The NamedSharding XLA gave each argument (None where no PartitionSpec names it, or
        without a mesh)."""
        return self._named(self._exe.in_shardings, self._types[0])

    def output_shardings(self) -> list:
        """The NamedSharding of each result (fetches, then new variable values), as ``input_shardings``."""
        return self._named(self._exe.out_shardings, self._types[1])

    def _named(self, shardings, types) -> list:
        if self._mesh is None or len(self._exe.devices) == 1:
            return [None] * len(types)
        return [named_from_tiling(s.tile, self._mesh, len(shape)) for s, (shape, _) in zip(shardings, types)]

    def cost_analysis(self) -> dict:
        return self._exe.cost_analysis()

    def memory_analysis(self) -> dict:
        return self._exe.memory_analysis()

    def as_text(self) -> str:
        return self._exe.hlo_text()


_EXECUTABLES: OrderedDict = OrderedDict()  # (text, devices, types) -> Executable, shared by Sessions
_EXECUTABLES_KEPT = 64
_EXECUTABLES_LOCK = threading.Lock()  # Sessions in several threads share the cache


def compile_text(text: str, devices, nodes, arg_types=(), out_types=(), n_host=None) -> pjrt.Executable:
    """Compile ``text`` (or reuse the executable another Session compiled from the same text)."""
    key = (text, tuple(devices), _types_key(arg_types), _types_key(out_types), n_host)
    with _EXECUTABLES_LOCK:
        exe = _EXECUTABLES.get(key)
        if exe is not None:
            _EXECUTABLES.move_to_end(key)
            return exe
    try:
        exe = pjrt.compile(text, devices, arg_types, out_types, n_host)
    except pjrt.XlaRuntimeError as e:
        raise CompileError(with_nodes(f"XLA could not compile the graph: {e}", nodes)) from None
    with _EXECUTABLES_LOCK:
        _EXECUTABLES[key] = exe
        if len(_EXECUTABLES) > _EXECUTABLES_KEPT:
            _EXECUTABLES.popitem(last=False)
    return exe


def _types_key(types) -> tuple:
    return tuple((tuple(shape), np.dtype(dt).str) for shape, dt in types)


def is_fetch_leaf(x) -> bool:
    return isinstance(x, Tensor | str)


def repeat_key(fetches, feeds):
    """A key for a run whose fetches are one Tensor or name, or a flat list, tuple or dict of
    them, and whose feeds are a dict (by Tensor or name); None for other runs. It is unhashable
    when the fetches nest (the caller's lookup tells). Names are as good as Tensors here: a
    graph only grows, so a name always resolves to the same tensor."""
    kind = type(fetches)
    if kind is Tensor or kind is str:
        head = fetches
    elif kind is list or kind is tuple:
        head = tuple(fetches)
    elif kind is dict:
        head = (tuple(fetches), tuple(fetches.values()))
    else:
        return None
    if feeds is None:
        return (kind, head)
    if type(feeds) is dict:
        return (kind, head, *feeds)
    return None


def is_flat(tree, fetches) -> bool:
    """Whether ``fetches`` (flattened to ``tree``) is one leaf or a flat list, tuple or dict of leaves."""
    if tree is None:
        return True
    kind = type(fetches)
    n = len(fetches) if kind in (list, tuple, dict) else -1
    if kind is dict:
        return tree == (dict, tuple(fetches), (None,) * n)
    return tree == (kind, (None,) * n)


class Repeat:
    """The fast path for a run repeating an earlier one: same fetches, same feed keys.

    ``direct``, when the program allows it, takes the feeds' values and returns the run's
    result in the fetches' structure. If the last feeds went in unconverted (``raw``), it is
    handed them as given: jaxlib's dispatcher checks their types, and one the program does not
    take exactly raises pjrt.ArgumentMismatch. Otherwise, and after such a miss, ``values_for``
    converts the feeds as the full path does (Python scalars, other dtypes) and lets them
    through when they have the shapes fed last time.
    """

    __slots__ = ("program", "tensors", "specs", "kind", "keys", "direct", "raw")

    def __init__(self, program: Program, fed, fetches, feeds):
        self.program = program
        self.tensors = tuple(t for t, _ in fed)
        self.specs = tuple((arr.dtype, arr.shape) for _, arr in fed)
        self.kind = type(fetches)
        self.keys = tuple(fetches) if self.kind is dict else None
        # every feed an array of the program's own dtype and shape (nothing was converted): the
        # executable's own dispatch can take such feeds straight
        self.raw = feeds is None or all(
            type(v) is np.ndarray and v.dtype == arr.dtype and v.shape == arr.shape
            for v, (_, arr) in zip(feeds.values(), fed)
        )
        self.direct = self._direct(program, len(fed))

    def values_for(self, feeds) -> list | None:
        """The feeds' values as the program takes them (FeedError as the full path gives it), or
        None when one has another shape than last time (the full path finds its program)."""
        if feeds is None:
            return []
        values = list(feeds.values())
        for i, (v, (dt, shape)) in enumerate(zip(values, self.specs)):
            if type(v) is not np.ndarray or v.dtype is not dt:
                v = values[i] = feeding.convert(self.tensors[i], v)
            if v.shape != shape:
                return None
        return values

    def shape_results(self, results: list):
        kind = self.kind
        if kind is list:
            return results
        if kind is tuple:
            return tuple(results)
        if kind is dict:
            return dict(zip(self.keys, results))
        return results[0]

    def _direct(self, program: Program, n_fed: int):
        """The executable's lean call, shaped as the fetches, when a run of ``program`` is just
        that call: no variables, not run on a worker for Ctrl-C, every feed an argument in
        order, every result a fetch."""
        simple = (
            not program.state_in and not program.state_out and not program.interruptible
            and program.fetch_slots is None and len(program.arg_positions) == n_fed
        )  # fmt: skip
        make = getattr(program.executable, "direct", None)
        if not simple or make is None:
            return None
        kind = self.kind
        return make(self.keys if kind is dict else kind if kind is list or kind is tuple else None)
