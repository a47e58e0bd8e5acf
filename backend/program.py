"""Compiled programs, the executable cache they share, and the repeat fast path (backend).

A Program is an executable with its Plan (which feeds are arguments, which
variables it reads and writes, where each fetch comes from), so the per-run
path does no planning; a Repeat is its fast path for runs that repeat one. ``Lowered`` and
``Compiled`` are what ``sess.lower(...)`` and ``.compile()`` give users.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict

import numpy as np

from ..graph import CompileError, Tensor
from ..graph.display import display_html
from . import disk_cache, pjrt
from . import feeds as feeding
from .lowering import ModuleText
from .placement import named_from_tiling
from .planning import Plan
from .state import NonfiniteRun, raise_failed_run, with_nodes

# A program is called from a worker thread when the main thread runs it, so that
# Ctrl-C reaches Python during the run, if it has a loop (which may never end) or
# at least this many flops (some tenths of a second on a CPU core and more).
LONG_FLOPS = 1e9


class Program:
    """A compiled program, its Plan, and the two ways a run calls it.

    ``execute`` is the general call: it picks the feeds the program takes,
    runs it beside the Session's state (reading and writing variables as the
    plan says) and returns the fetches' values. ``repeat`` makes the fast
    path for runs that repeat one (same fetches, same feed keys): see Repeat.
    ``interruptible``: see ``LONG_FLOPS``. ``compile_seconds``: how long the Session took to
    lower and compile it (or load it from disk), which run_async weighs against ``gathering``:
    the seconds its run_async runs took so far, until they are gathered (then True, or the loop
    program that runs them), or False where they never are (gathering.py). It is the program's,
    not a Repeat's: a Repeat is replaced whenever a run of other shapes comes between (an
    epoch's last, smaller batch), and the time summed must survive that.
    """

    __slots__ = (
        "executable",
        "plan",
        "text",
        "nodes",
        "runs",
        "interruptible",
        "compile_seconds",
        "gathering",
    )

    def __init__(self, executable, plan: Plan, text: str, nodes, compile_seconds: float = 0.0):
        self.executable = executable
        self.plan = plan
        self.text = text
        self.nodes = nodes
        self.runs = 0
        self.compile_seconds = compile_seconds
        self.gathering = 0.0
        self.interruptible = "stablehlo.while" in text or _flops(executable) >= LONG_FLOPS

    def execute(self, state, stats, values) -> list:
        """The fetches' values (None for a train op) from a run on the feeds' ``values`` (in the
        feed signature's order), with the state buffers ``state`` holds; counted in ``stats``."""
        stats.runs += 1
        if self.runs:
            stats.cache_hits += 1
        self.runs += 1
        plan = self.plan
        positions = plan.arg_positions  # increasing: as many as the feeds means all of them, in order
        args = values if len(positions) == len(values) else [values[i] for i in positions]
        if plan.state_out:
            outs = state.write(self, args)
        elif plan.state_in:
            outs = state.read(self, args)
        else:
            outs = state.call(self, args)
        if plan.checks_finite:
            if not outs[-1]:
                raise NonfiniteRun()
            outs = outs[:-1]
        slots = plan.fetch_slots
        return outs if slots is None else [None if i is None else outs[i] for i in slots]

    def repeat(self, fed, fetches, feeds) -> Repeat:
        """The fast path for later runs of ``fetches`` with feeds keyed as ``feeds`` (given with
        the values ``fed`` this run converted them to)."""
        return Repeat(self, fed, fetches, feeds)


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
        self._callbacks = getattr(text, "host_callbacks", ())
        self._devices = devices
        self._mesh = mesh
        self._types = (tuple(arg_types), tuple(out_types))
        return self

    def compile(self) -> Compiled:
        arg_types, out_types = self._types
        text = ModuleText(self)
        text.host_callbacks = self._callbacks
        exe, _ = compile_text(text, self._devices, (), arg_types, out_types)
        return Compiled(exe, self._mesh, self._types)

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


class SharedExecutables:
    """This process's compiled programs, by (text, devices, types), for Sessions to share: each
    one a Session still holds (weakly: it goes with the last of them) and the ``recent`` last
    used (so that a Session made again on the same graph finds its program). A bound on their
    number alone did not bound memory: a sweep of large graphs kept 64 of them, gigabytes."""

    def __init__(self, recent: int = 8):
        self._held: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        self._recent: OrderedDict = OrderedDict()
        self._recent_kept = recent

    def get(self, key):
        exe = self._held.get(key)
        if exe is not None:
            self._keep(key, exe)
        return exe

    def put(self, key, exe) -> None:
        self._held[key] = exe
        self._keep(key, exe)

    def _keep(self, key, exe) -> None:
        self._recent[key] = exe
        self._recent.move_to_end(key)
        if len(self._recent) > self._recent_kept:
            self._recent.popitem(last=False)

    def clear(self) -> None:
        self._held.clear()
        self._recent.clear()


_EXECUTABLES = SharedExecutables()
_EXECUTABLES_LOCK = threading.Lock()  # Sessions in several threads share the cache


def compile_text(
    text: str,
    devices,
    nodes,
    arg_types=(),
    out_types=(),
    n_host=None,
    disk: bool = False,
    entry=None,
    suffix: str = disk_cache.SUFFIX,
) -> tuple[pjrt.Executable, str]:
    """The executable of ``text`` (a ModuleText carries its host callbacks) and where it came
    from: "shared" (another Session in this process compiled it), "disk" (the persistent
    cache, with ``disk``; ``entry``: its name when known, as a stored plan knows it), else
    "compiled" with why the disk cache missed. ``suffix``: the disk entry's file ending (a program no
    Session runs keeps its own: kernel_warmup.py)."""
    callbacks = getattr(text, "host_callbacks", ())
    key = (text, tuple(devices), _types_key(arg_types), _types_key(out_types), n_host, callbacks)
    with _EXECUTABLES_LOCK:
        exe = _EXECUTABLES.get(key)
        if exe is not None:
            return exe, "shared"
    exe, how = None, "compiled"
    if not disk:
        entry = None
    elif entry is None:
        entry = executable_entry(text, devices, arg_types, out_types, n_host)
    if entry is not None:
        exe, why = _load(entry, text, devices, arg_types, out_types, n_host, callbacks, suffix)
        how = "disk" if exe is not None else f"compiled (disk cache: {why})"
    if exe is None:
        try:
            exe = pjrt.compile(text, devices, arg_types, out_types, n_host, callbacks)
        except pjrt.XlaRuntimeError as e:
            from . import ffi  # noqa: PLC0415  (loaded by a failed compile: sg.ffi is loaded on first use)

            unregistered = ffi.unregistered_target(e, nodes, devices[0].platform)  # sg.ffi_call's target
            if unregistered is not None:
                raise unregistered from None
            raise CompileError(with_nodes(f"XLA could not compile the graph: {e}", nodes)) from None
        if entry is not None:
            disk_cache.store(entry, pjrt.serialize(exe), len(callbacks), suffix)
    with _EXECUTABLES_LOCK:
        _EXECUTABLES.put(key, exe)
    return exe, how


def executable_entry(text: str, devices, arg_types=(), out_types=(), n_host=None) -> str:
    """The name of ``text``'s executable in the persistent cache: a hash of what decides the
    compiled code (the text without locations, the machine, the types, the host results)."""
    return disk_cache.key(
        getattr(text, "portable", "") or text, pjrt.machine_identity(devices),
        _types_key(arg_types), _types_key(out_types), n_host,
    )  # fmt: skip


def _load(entry: str, text, devices, arg_types, out_types, n_host, callbacks, suffix: str):
    """The executable of a disk cache entry and "hit", or None and why it missed (an entry
    jaxlib cannot load is a miss too: it is compiled and written again)."""
    payload, why = disk_cache.load(entry, len(callbacks), suffix)
    if payload is None:
        return None, why
    try:
        return pjrt.deserialize(payload, text, devices, arg_types, out_types, n_host, callbacks), "hit"
    except Exception as e:  # noqa: BLE001  (jaxlib's errors for bytes it cannot load vary)
        return None, f"entry not loadable ({type(e).__name__})"


def _types_key(types) -> tuple:
    return tuple((tuple(shape), np.dtype(dt).str) for shape, dt in types)


def is_fetch_leaf(x) -> bool:
    return isinstance(x, Tensor | str)


def is_flat(tree, fetches) -> bool:
    """Whether ``fetches`` (flattened to ``tree``) is one leaf or a flat list, tuple or dict of leaves."""
    if tree is None:
        return True
    kind = type(fetches)
    n = len(fetches) if kind in (list, tuple, dict) else -1
    if kind is dict:
        return tree == (dict, tuple(fetches), (None,) * n)
    return tree == (kind, (None,) * n)


MISSED = object()  # Repeat.run's answer when the feeds' shapes changed: the full path finds the program


def shaped(results: list, kind, keys=None):
    """A run's results in its fetches' flat form: ``kind`` list, tuple or dict (with ``keys``), or
    anything else for one fetch (a repeat path's shaping without the tree walk)."""
    if kind is list:
        return results
    if kind is tuple:
        return tuple(results)
    if kind is dict:
        return dict(zip(keys, results))
    return results[0]


class Repeats:
    """A Session's fast-path table: the Repeat of each run seen before, by its fetches and feed keys.

    Keys are taken for runs whose fetches are one Tensor or name, or a flat
    list, tuple or dict of them, and whose feeds are a dict (by Tensor or
    name) or None. Names are as good as Tensors here: a graph only grows, so
    a name always resolves to the same tensor.
    """

    __slots__ = ("_table", "_followers")

    def __init__(self):
        self._table: dict = {}
        self._followers = weakref.WeakSet()  # steps holding a Repeat of this table (step_callable.py)

    def find(self, fetches, feeds) -> Repeat | None:
        kind = type(fetches)
        if (kind is Tensor or kind is str) and type(feeds) is dict:  # the commonest run, keyed inline
            return self._table.get((kind, fetches, *feeds))
        key = _key(fetches, feeds)
        try:
            return None if key is None else self._table.get(key)
        except TypeError:  # nested fetches (unhashable): they take the full path
            return None

    def add(self, fetches, feeds, repeat: Repeat) -> None:
        key = _key(fetches, feeds)
        if key is not None:
            self._table[key] = repeat

    def follow(self, step) -> None:
        """Tell ``step`` (its ``drop()``) when the table drops its Repeats: a step keeps one to
        run without asking the table, and must not run it after the Session closed or
        switched check_numerics."""
        self._followers.add(step)

    def clear(self) -> None:
        self._table.clear()
        for step in list(self._followers):
            step.drop()

    def __len__(self) -> int:
        return len(self._table)


def _key(fetches, feeds):
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


class Repeat:
    """The fast path for a run repeating an earlier one: same fetches, same feed keys.

    When the program allows it (``_strict``), ``run_values`` calls the executable's strict C++
    dispatcher on the feeds' values and shapes its results as the fetches. If the last feeds
    went in unconverted (``raw``), it is handed them as given: jaxlib's dispatcher checks their
    types in C++, and one the program does not take exactly is a miss. Otherwise, and after
    such a miss, ``values_for`` converts the feeds as the full path does (Python scalars, other
    dtypes) and lets them through when they have the shapes fed last time.
    """

    __slots__ = ("program", "tensors", "specs", "kind", "keys", "strict", "form", "raw")

    def __init__(self, program: Program, fed, fetches, feeds):
        self.program = program
        self.tensors = tuple(t for t, _ in fed)
        self.specs = tuple((arr.dtype, arr.shape) for _, arr in fed)
        self.kind = kind = type(fetches)
        self.keys = tuple(fetches) if kind is dict else None
        # the results' shape for the strict call: None (the one result), list, tuple, or a dict's keys
        self.form = self.keys if kind is dict else kind if kind is list or kind is tuple else None
        # every feed an array of the program's own dtype and shape (nothing was converted): the
        # executable's own dispatch can take such feeds straight
        self.raw = feeds is None or all(
            type(v) is np.ndarray and v.dtype == arr.dtype and v.shape == arr.shape
            for v, (_, arr) in zip(feeds.values(), fed)
        )
        self.strict = self._strict(program, len(fed))

    def run(self, feeds, state, stats):
        """The run's result in the fetches' structure, or MISSED when a feed's shape changed."""
        return self.run_values(() if feeds is None else feeds.values(), state, stats)

    def run_values(self, given, state, stats):
        """``run`` for the feeds' values alone, in the order of the feeds it was made for
        (``Session.run`` calls it straight: a repeated run is this one frame deep).

        The strict dispatcher takes the values as given while ``raw``; one the program does not
        take exactly (ArgumentMismatch) turns ``raw`` off, and from then on the values are
        converted and checked first. jax's x64 flag is on for the call, if jax is loaded: with
        it off the dispatcher would take a 64-bit feed as its 32-bit kind and cast it (wrapping
        ints, overflowing floats) instead of missing."""
        strict = self.strict
        values = given
        if strict is None or not self.raw:
            values = self.values_for(given)
            if values is None:
                return MISSED
        if strict is not None:
            x64 = _x64
            if x64 is None:
                x64 = _jax_x64()
            try:
                if x64 is None:
                    results = strict(*values)
                else:
                    old = x64.swap_local(True)
                    try:
                        results = strict(*values)
                    finally:
                        x64.set_local(old)
            except pjrt.ArgumentMismatch:
                if values is given:  # as given: convert and check them, now and from now on
                    self.raw = False
                    return self.run_values(given, state, stats)
                # converted and still not the strict kind (a device array placed elsewhere): the general call
            except Exception as e:  # noqa: BLE001  (jaxlib raises a failed callback as a ValueError)
                raise_failed_run(self.program, e)
            else:
                stats.runs += 1
                stats.cache_hits += 1
                form = self.form
                if form is None:
                    out = _asarray(results)
                    return out if out.dtype is not _OBJECT else pjrt.host_result(results)
                return host_shaped(results, form)
        return self.shape_results(self.program.execute(state, stats, values))

    def values_for(self, given) -> list | None:
        """The feeds' values as the program takes them (FeedError as the full path gives it), or
        None when one has another shape than last time (the full path finds its program)."""
        values = list(given)
        for i, (v, (dt, shape)) in enumerate(zip(values, self.specs)):
            if type(v) is not np.ndarray or v.dtype is not dt:
                if pjrt.is_device_array(v) and pjrt.type_of(v) == (shape, dt):
                    continue  # a device array of the program's type (a feed source's) goes as it is
                v = values[i] = feeding.convert(self.tensors[i], v)
            if v.shape != shape:
                return None
        return values

    def shape_results(self, results: list):
        return shaped(results, self.kind, self.keys)

    def _strict(self, program: Program, n_fed: int):
        """The executable's strict dispatcher (see ``run_values``) when a run of ``program`` is just
        that call: no variables, not run on a worker for Ctrl-C, every feed an argument in
        order, every result a fetch; else None."""
        plan = program.plan
        simple = (
            not plan.state_in and not plan.state_out and not program.interruptible
            and plan.fetch_slots is None and len(plan.arg_positions) == n_fed and not plan.checks_finite
        )  # fmt: skip
        strict = getattr(program.executable, "strict", None)
        if not simple or strict is None:
            return None
        return strict(self.form is None)


def host_shaped(results, form):
    """The strict dispatcher's results (device arrays on the CPU) as numpy views in the fetches'
    ``form``: list, tuple, or a dict's keys (``Repeat.form``). The results of one run share its
    completion: if it failed, the first one tells, and the error is raised."""
    out = list(map(_asarray, results))
    if out and out[0].dtype is _OBJECT:
        out = [pjrt.host_result(r) for r in results]
    if form is list:
        return out
    return tuple(out) if form is tuple else dict(zip(form, out))


def _jax_x64():
    """jax's x64 flag once jax is loaded (kept from then on), else None."""
    global _x64
    _x64 = pjrt.jax_x64()
    return _x64


_x64 = None  # jax's x64 flag, once jax is loaded (``Repeat.run_values``)
_asarray = np.asarray
_OBJECT = np.dtype(object)  # what numpy makes of a result whose run failed on the device
