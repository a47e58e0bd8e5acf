"""Session: runs fetches of a Graph with feeds, compiling each distinct program once (backend).

One run is a pure function (variables, feeds) -> (fetches, new variables):
prune the graph to what the fetches need (a fed tensor overrides its value
and cuts off what only it needed), extract that as a Function of the feeds
and simplify it (sg.simplify), bind symbolic dims from the feed shapes,
lower to StableHLO, compile with XLA, execute through PJRT. Executables are
cached by (fetches, fed tensors, feed shapes); dtypes are fixed per tensor,
so shapes are what can change.

Variables live on the device in the Session (``self._state``, see
state.py), one buffer each. The variables a run reads become extra arguments
of its program and the assigns it needs extra results; a variable that is
both read and written is donated, so XLA updates it in place and no new
buffer is allocated. A Session may be shared by threads: runs that read
variables go concurrently, runs that write any are serialized (state.py).

With a mesh, every program is lowered as an SPMD program over it
(shardings.py decides each argument's and result's PartitionSpec), feeds
are split as the compiled program lays them out, and variable buffers live
split over the mesh's devices.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

import numpy as np

from ..graph import (
    ExecutionError,
    FeedError,
    Graph,
    GraphError,
    Tensor,
    flatten,
    located,
    unflatten,
)  # fmt: skip
from ..graph.errors import GraphTypeError, Unpicklable
from ..graph.location import user_location
from ..ops.random_keys import seed_words
from ..sharding import Mesh
from . import (
    async_run,
    checkpoint,
    distributed,
    kernel_warmup,
    pjrt,
    plan_store,
    step_loop,
)
from . import feeds as feeding
from .async_run import RunHandle
from .device_feeds import FeedPlacer
from .gathering import Gatherer
from .initial_values import Initializer, recording_initializer, stored_initializer
from .initialization_order import initialization_stages
from .lowering import lower_module
from .planning import SEED, Plan, plan_run
from .program import MISSED, Lowered, Program, Repeats, compile_text, is_fetch_leaf, is_flat
from .shardings import MeshLayout
from .state import NonfiniteRun, State
from .stats import CompileRecord, SessionStats, change_reason
from .step_callable import make_step

if TYPE_CHECKING:  # loaded by the first search or profile, not by the import
    from .nonfinite import NonfiniteReport
    from .profiling import Profile


def _session_devices(n) -> list:
    """The devices of a Session without a mesh: ``n`` (default 1) of the default platform, or a
    GraphError at the user's line saying how many there are."""
    if n is None:
        return pjrt.default_devices(1)
    platform = pjrt.DEFAULT_PLATFORM
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        try:
            have = (
                f"the cpu platform makes 1 to {pjrt.MAX_CPU_DEVICES} devices on demand"
                if platform == "cpu"
                else f"{platform} has {len(pjrt.devices())} devices"
            )
        except GraphError as e:
            have = str(e)
        raise GraphError(
            located(f"sg.Session wants devices=N with N >= 1, got {n!r}; {have}", user_location())
        )
    try:
        return pjrt.default_devices(int(n))
    except GraphError as e:
        raise GraphError(located(f"sg.Session(devices={n}): {e}", user_location())) from None


class Session(Unpicklable):
    """Runs parts of a graph and holds its variables: ``sess.run(fetches, feeds)``.

    ``seed`` makes variable initializers and ``sg.random`` generators
    reproducible; variables are initialized when first needed (by a run,
    ``get`` or ``save``), unless ``restore`` or ``set`` gave them a value.
    ``mesh`` (an sg.Mesh) runs every program SPMD over its devices: feeds
    and variables are split as their shardings say (replicated otherwise)
    and XLA lays out the rest; without one, programs run on one device and
    sharding annotations are ignored, so one graph runs on any mesh.
    ``devices=N`` asks for N devices of the default platform (CPU, or what
    STABLEGRAPH_PLATFORM names; programs run on the first). ``check_numerics=True`` checks every
    run's fetches and new variable values: one with a nan or an infinity is an ExecutionError
    saying which node made it first (``find_nonfinite``), and writes no variable (its programs
    donate nothing). Use as a context manager or call close().
    A Session does not pickle or copy: save its variables with ``save`` and ``restore`` them.
    """

    _pickle_advice = (
        "save its variables with sess.save(path) and restore them in a new Session (sess.restore)"
    )

    def __init__(
        self, graph, mesh: Mesh | None = None, seed: int = 0, *, devices: int | None = None,
        check_numerics: bool = False,
    ):  # fmt: skip
        where = user_location()
        if not isinstance(graph, Graph):
            raise GraphTypeError(
                located(
                    f"sg.Session takes a Graph, got {type(graph).__name__}: build ops inside "
                    "`with g:` for a g = sg.Graph() and pass g",
                    where,
                )
            )
        if mesh is not None and not isinstance(mesh, Mesh):
            raise GraphTypeError(
                located(
                    f"sg.Session's mesh is an sg.Mesh (sg.make_mesh(...)), got {type(mesh).__name__}", where
                )
            )
        if mesh is not None and devices is not None:
            raise GraphError(
                located(
                    f"sg.Session got both a mesh ({mesh.size} devices) and devices={devices!r}: the mesh "
                    "says which devices run the graph; leave devices out",
                    where,
                )
            )
        if not isinstance(seed, int | np.integer) or isinstance(seed, bool):
            raise GraphTypeError(
                located(f"sg.Session's seed is an int, got {type(seed).__name__} {seed!r}", where)
            )
        self.graph = graph
        self.mesh = mesh
        self.devices = mesh.device_list if mesh is not None else _session_devices(devices)
        self._layout = MeshLayout(graph, mesh, self.devices if mesh is not None else self.devices[:1])
        kernel_warmup.start(self.devices, self._layout.multiprocess)  # XLA's CPU matrix kernels, meanwhile
        self.seed = seed
        self.stats = SessionStats()
        self._cache: dict = {}
        self._repeats = Repeats()
        self._step_repeats: dict = {}  # the fast paths of steps=k runs (step_loop.StepsRepeat)
        self._check_numerics = bool(check_numerics)
        self._last_signature: dict = {}
        root = np.array(seed_words(seed, "Session"), np.uint32)  # as sg.random.key(seed)
        self._state = State({SEED: root})
        self._init_lock = threading.Lock()  # one thread initializes what is missing
        self._gatherer = Gatherer(self)  # run_async's repeated runs, gathered into loops
        self._closed = False

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Drop the compiled programs and the variables' buffers; the Session refuses use after."""
        self._closed = True
        self._state.close()
        self._cache.clear()
        self._repeats.clear()
        self._step_repeats.clear()

    @property
    def check_numerics(self) -> bool:
        """Whether each run checks its values for nan and inf (see the class docstring)."""
        return self._check_numerics

    @check_numerics.setter
    def check_numerics(self, value: bool) -> None:
        """Turn the checks on or off: the programs compiled either way are dropped, so the next run
        of each compiles (or finds on disk) the program that does what the flag now says."""
        value = bool(value)
        if value != self._check_numerics:
            self._check_numerics = value
            self._cache.clear()
            self._repeats.clear()
            self._step_repeats.clear()

    def _check_open(self) -> None:
        if self._closed:
            raise FeedError("this Session is closed")

    # -- running ---------------------------------------------------------------
    def run(self, fetches, feeds=None, feed_dict=None, steps=None):
        """Evaluate ``fetches`` (a Tensor, a name, or any nest of them) with ``feeds``.

        ``feeds`` is a dict {placeholder or name: value}; TF1's keyword
        ``feed_dict=`` names the same thing (giving both is a FeedError).
        Returns numpy arrays in the structure of ``fetches`` (None for a train
        op); the variables the fetches assign change after the run.
        ``steps=k`` runs k steps as one compiled loop (step_loop.py): each feed
        stacks k batches along a new leading axis, each fetch comes back
        stacked so, and the variables change as k runs would change them.
        ``feeds`` may also be a feed source (an object with ``next_feeds``,
        as ``sg.data.prefetch`` gives): it is asked for the run's batches.
        """
        if feed_dict is not None:
            feeds = feeding.one_of(feeds, feed_dict)
        if self._closed:
            raise FeedError("this Session is closed")
        if steps is not None or (type(feeds) is not dict and step_loop.is_source(feeds)):
            return step_loop.run_steps(self, fetches, feeds, steps)
        try:  # (free unless raised: the lean path of a repeated run stays one call deep)
            repeat = self._repeats.find(fetches, feeds)
            if repeat is not None:
                results = repeat.run_values(() if feeds is None else feeds.values(), self._state, self.stats)
                if results is not MISSED:
                    return results
            leaves, tree = flatten(fetches, is_leaf=is_fetch_leaf)
            fed = self._convert_feeds(feeds)
            program = self._program(tuple(feeding.resolve(self.graph, f) for f in leaves), fed)
            if is_flat(tree, fetches):
                self._repeats.add(fetches, feeds, program.repeat(fed, fetches, feeds))
            return unflatten(tree, program.execute(self._state, self.stats, [arr for _, arr in fed]))
        except NonfiniteRun:
            report = self.find_nonfinite(fetches, feeds)
            raise ExecutionError(
                "the run made a nan or an infinity (the Session checks numerics); no variable was written\n"
                f"{report}"
            ) from None

    def run_async(self, fetches, feeds=None, steps=None) -> RunHandle:
        """Start ``run(fetches, feeds, steps=steps)`` and return at once: a handle whose
        ``result()`` waits for the run and gives what ``run`` gives (or raises its error, naming
        the node) and whose ``done()`` says whether it ended. Runs take effect in the order they
        were started, so the next step can be started while the device works (async_run.py).
        On one CPU device, once the short runs of a repeated run_async have cost what their
        program's compile did, later ones are gathered and run 16 at a time as one loop, equal
        to single runs (gathering.py): anything that needs them (a handle's result or done, get,
        set, another run) runs them first.

            pending = sess.run_async([loss, train], {x: xb, y: yb})
            xb, yb = next(batches)                  # meanwhile, on the host
            value, _ = pending.result()
        """
        return async_run.start(self, fetches, feeds, steps)

    def _resolve(self, key) -> Tensor:
        return feeding.resolve(self.graph, key)

    def make_callable(self, fetches, feed_list=()):
        """TF1's ``Session.make_callable``: a function of the values of ``feed_list`` (tensors or
        names, in that order) that runs ``fetches``, as ``run(fetches, dict(zip(feed_list,
        values)))`` does. Resolving the fetches and feeds and finding the program happen once,
        so a call costs little more than jaxlib's dispatch.

            step = sess.make_callable([loss, train], [x, y])
            for xb, yb in batches:
                value, _ = step(xb, yb)
        """
        self._check_open()
        feeds = tuple(feeding.resolve(self.graph, f) for f in feed_list)
        if len(set(feeds)) < len(feeds):
            raise FeedError(located("make_callable: a tensor appears twice in feed_list", user_location()))
        leaves, _ = flatten(fetches, is_leaf=is_fetch_leaf)
        for leaf in leaves:
            feeding.resolve(self.graph, leaf)  # an unknown fetch is an error now, not at the first call
        return make_step(self, fetches, feeds)

    def feed_placer(self, feeds) -> FeedPlacer:
        """A FeedPlacer for the placeholders ``feeds`` (tensors or names): it checks values as
        ``run`` would and puts them on this Session's devices as their shardings say, ahead of
        the run (what sg.data.prefetch uses on its thread)."""
        self._check_open()
        return FeedPlacer(self._layout, [feeding.resolve(self.graph, f) for f in feeds])

    def _program(self, fetch_ts: tuple, fed: list) -> Program:
        """The compiled program of these fetches and feed shapes (compiled on first use)."""
        signature = tuple([(t, arr.shape) for t, arr in fed])
        program = self._cache.get((fetch_ts, signature))
        if program is None:
            program = self._cache[(fetch_ts, signature)] = self._compile(fetch_ts, fed)
        return program

    def _convert_feeds(self, feeds) -> list:
        if type(feeds) is not dict and feeds is not None:
            feeds = feeding.as_mapping(feeds)
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

    def _planned(self, fetch_ts, fed, writes=None) -> tuple[Plan, str, tuple]:
        """The plan of a run, its StableHLO text and the nodes lowered (for error messages)."""
        if writes is None:
            self._initialize_missing()  # the program reads the variables
        layout = self._layout
        if layout.multiprocess:
            fed = layout.as_global(fed)
        layout.check_feeds(fed)
        check = self.check_numerics and writes is None
        plan, body = plan_run(self.graph, fetch_ts, fed, layout, self._state.has_value, writes, check)
        text = lower_module(
            body.nodes, body.args, body.results, body.bindings, dict(plan.aliases), layout.mesh,
            body.shardings, self.devices[0].platform, plan.trains,
        )  # fmt: skip
        return plan, text, body.nodes

    def _compile(self, fetch_ts, fed, writes=None) -> Program:
        start = time.perf_counter()
        if writes is None:
            self._initialize_missing()  # first: a stored plan reads every variable
        key, plan_source = plan_store.key_for(
            self.graph, fetch_ts, fed, writes, self._layout, self.check_numerics
        )
        found = None
        if key is not None:
            found, plan_source = self._stored_program(key, fetch_ts, fed, writes)
        if found is not None:
            plan, text, nodes, executable, source = found
        else:
            plan, text, nodes = self._planned(fetch_ts, fed, writes)
            executable, source = compile_text(
                text, self._layout.devices, nodes, plan.arg_types, plan.out_types, plan.n_fetched, disk=True
            )
            if key is not None:
                plan_store.store(key, plan, text, self._layout.devices)
        if writes is not None and key is not None and not isinstance(executable, Initializer):
            seed = self._state.buffers.get(SEED)  # later processes restore its results (initial_values.py)
            executable = recording_initializer(key.name, plan, self._layout, seed, executable)
        previous = self._last_signature.get(fetch_ts)
        if writes is not None:
            reason = "initializing variables"
        elif previous is None:
            reason = "first run of these fetches"
        else:
            reason = change_reason(previous, plan.feed_signature)
        self._last_signature[fetch_ts] = plan.feed_signature
        names = tuple(t.name for t in fetch_ts) or tuple(writes or ())
        seconds = time.perf_counter() - start
        self.stats.records.append(CompileRecord(names, reason, seconds, source, plan_source))
        return Program(executable, plan, text, nodes, seconds)

    def _stored_program(self, key, fetch_ts, fed, writes) -> tuple[tuple | None, str]:
        """(plan, text, nodes, executable, source) of a run from the plan store (plan_store.py),
        nothing planned or lowered, the executable loaded from disk (or compiled from the stored
        text), and "hit"; or None and why not (a miss, or any failure: the full path then gives
        the run, or its error)."""
        layout, has_state = self._layout, self._state.has_value
        stored, why = plan_store.load(key, fetch_ts, fed, has_state)
        if stored is None:
            return None, why
        plan, check = stored.plan, self.check_numerics and writes is None
        nodes = plan_store.later_nodes(self.graph, fetch_ts, fed, layout, has_state, writes, check)

        def load() -> tuple:
            return compile_text(
                stored.text, layout.devices, nodes, plan.arg_types, plan.out_types, plan.n_fetched,
                disk=True, entry=stored.entry,
            )  # fmt: skip

        try:
            layout.check_feeds(fed)
            restored = writes is not None and stored_initializer(
                key.name, plan, layout, self._state.buffers.get(SEED), lambda: load()[0]
            )  # an initialization whose values are stored: its executable loads only if a run misses
            executable, source = (restored, "disk") if restored else load()
        except Exception:  # noqa: BLE001  (planned again: the full path says what is wrong)
            return None, "stored plan did not compile"
        return (plan, stored.text, nodes, executable, source), "hit"

    def find_nonfinite(self, fetches, feeds=None, feed_dict=None) -> NonfiniteReport:
        """Which node made the first nan or infinity of a run of ``fetches`` with ``feeds``: one run
        of the same compiled program, with every floating node's value summarized in it (the
        nodes in graph order, the first non-finite one reported with its op, file:line, library
        call and inputs' ranges). The run writes no variable.

            print(sess.find_nonfinite(train, {x: bad_batch}))
        """
        if feed_dict is not None:
            feeds = feeding.one_of(feeds, feed_dict)
        self._check_open()
        leaves, _ = flatten(fetches, is_leaf=is_fetch_leaf)
        fetch_ts = tuple(feeding.resolve(self.graph, f) for f in leaves)
        fed = self._convert_feeds(feeds)
        self._initialize_missing()
        from . import nonfinite  # noqa: PLC0415  (loaded by the first search: most processes never search)

        return nonfinite.find(self.graph, fetch_ts, fed, self._layout, self._state, self.stats, self.devices)

    def profile(self, fetches, feeds=None, runs: int = 10, feed_dict=None) -> Profile:
        """Where the device time of ``sess.run(fetches, feeds)`` goes, per graph node: one run to
        compile, then ``runs`` runs under jaxlib's profiler, XLA's per-op times attributed to the
        nodes their ops were lowered from (backend/profiling.py). The runs are real runs: a
        train op among the fetches trains ``runs + 1`` steps.

            prof = sess.profile(train, {x: batch}, runs=20)
            print(prof)                       # node, op, file:line, time, share; slowest first
        """
        if feed_dict is not None:
            feeds = feeding.one_of(feeds, feed_dict)
        if isinstance(runs, bool) or not isinstance(runs, int | np.integer) or runs < 1:
            raise GraphError(located(f"sess.profile wants runs >= 1, got {runs!r}", user_location()))
        self.run(fetches, feeds)
        leaves, _ = flatten(fetches, is_leaf=is_fetch_leaf)
        fetch_ts = tuple(feeding.resolve(self.graph, f) for f in leaves)
        program = self._program(fetch_ts, self._convert_feeds(feeds))

        def run_all() -> None:
            for _ in range(int(runs)):
                self.run(fetches, feeds)

        from . import profiling  # noqa: PLC0415  (loaded by the first profile)

        events = pjrt.profile_events(run_all)
        return profiling.attribute(
            self.graph, program.nodes, program.executable.hlo_text(), events, int(runs)
        )

    def lower(self, fetches, feeds=None) -> Lowered:
        """The StableHLO text that ``run(fetches, feeds)`` would compile."""
        self._check_open()
        leaves, _ = flatten(fetches, is_leaf=is_fetch_leaf)
        fetch_ts = tuple(feeding.resolve(self.graph, f) for f in leaves)
        plan, text, _ = self._planned(fetch_ts, self._convert_feeds(feeds))
        return Lowered(text, self._layout.devices, self.mesh, plan.arg_types, plan.out_types)

    def export(self, fetches, feeds=None, *, include_variables: bool = True, vjp: bool = False):
        """An sg.Exported of ``fetches`` ({name: tensor}, a list or one tensor) as a function of
        ``feeds`` ({name: placeholder}, ...), symbolic dims kept; with ``include_variables`` the
        values of the variables it reads are taken now and go with it (else they are inputs too).
        ``vjp=True``: differentiable where it is called inside a graph (backend/exporting.py).

            exp = sess.export({"probs": probs}, feeds={"x": x}); exp.save("model.sgx")
        """
        self._check_open()
        self._initialize_missing()
        values = self._state.values
        from . import exporting  # noqa: PLC0415  (the export modules load with the first export)

        return exporting.from_session(
            self, fetches, feeds, include_variables=include_variables, vjp=vjp, state_values=values
        )

    def sharding_of(self, tensor):
        """How ``tensor`` (a Tensor or name: a variable, feed, fetch) lies on the Session's mesh,
        as an sg.NamedSharding: as annotated, else as the compiled program that fetched it lays
        it out. None for a Session without a mesh."""
        self._check_open()
        t = feeding.resolve(self.graph, tensor)
        return self._layout.sharding_of(t, list(self._cache.values()))

    # -- variables ---------------------------------------------------------------
    def _initialize_missing(self) -> None:
        """Run the initializers of the graph's variables that have no value yet (not those
        lost or pending: they are never reset behind the user's back)."""
        if not self._missing():
            return
        with self._init_lock:  # decided again under the lock, so two threads never both initialize
            todo = self._missing()
            if todo:
                self.initialize(todo)

    def _missing(self) -> list:
        return [v for v in self.graph.variables if not self._state.has_value(v.var_name)]

    def initialize(self, var_list=None) -> None:
        """(Re)set variables to their initial values (all by default), from the Session's seed."""
        self._check_open()
        variables = self._variables(var_list)
        for v in variables:
            if v.initial_value is None:
                raise GraphError(located(f"variable {v.var_name} has no initializer", v.node.location))
        for stage in initialization_stages(variables, self.graph.variables, self._state.has_value):
            writes = {v.var_name: v.initial_value for v in stage}
            key = ("initialize", tuple(writes))
            program = self._cache.get(key)
            if program is None:
                program = self._cache[key] = self._compile((), [], writes)
            program.execute(self._state, self.stats, [])

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
        """The current value of a variable (or a list of them, all from one moment) as numpy."""
        self._check_open()
        variables = self._variables(var if isinstance(var, list | tuple) else [var])
        self._initialize_missing()
        names = [v.var_name for v in variables]
        values = self._global_values(names) if self._layout.multiprocess else self._state.values(names)
        return values if isinstance(var, list | tuple) else values[0]

    def _global_values(self, names) -> list:
        """``get`` on a mesh over several processes: a variable split over them is gathered by a
        program every process runs (so every process calls ``get`` alike, as it runs alike)."""
        state = self._state
        state.gate.enter_read()
        try:
            if any(v not in state.buffers for v in names):
                raise state.unavailable(names)
            out = []
            for v in names:
                buf = state.buffers[v]
                if not pjrt.holds_whole(buf):
                    shape, dtype = pjrt.type_of(buf)
                    text = self._layout.gather_text(v, shape, dtype)
                    gather, _ = compile_text(text, self.devices, (), [(shape, dtype)], [(shape, dtype)])
                    buf = gather([buf])[0]
                out.append(np.array(pjrt.to_numpy(buf)))  # a copy: the buffer may be donated next
            return out
        finally:
            state.gate.exit_read()

    def set(self, var, value) -> None:
        """Give a variable a new value (numpy data of its shape; same_kind casting)."""
        self._check_open()
        (v,) = self._variables(var)
        try:
            arr = feeding.convert(v, value)
        except FeedError as e:
            raise FeedError(str(e).replace("feed for", "sess.set value for", 1)) from None
        if arr.shape != tuple(v.shape):
            raise FeedError(f"variable {v.var_name} is {v.type}, got a value of shape {arr.shape}")
        self._state.assign({v.var_name: pjrt.put(arr, self._layout.placement(v.var_name, arr.ndim))})

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
        variables = self._variables(var_list)
        arrays = dict(zip([v.var_name for v in variables], self.get(variables)))
        if self._layout.multiprocess:  # every process has the whole values now; process 0 writes them
            return distributed.from_process_zero(
                f"saving checkpoint {path}", lambda: checkpoint.save(path, arrays, step=step, keep=keep)
            )
        return checkpoint.save(path, arrays, step=step, keep=keep)

    def restore(self, path: str, var_list=None) -> str:
        """Load variables (all by default) from a checkpoint written by ``save``.

        ``path`` is the file, or the prefix given to ``save`` (the newest step
        is taken). Names, shapes and dtypes are checked first; every mismatch
        is reported and nothing changes unless all match. Returns the file read.
        """
        self._check_open()
        variables = self._variables(var_list)
        found, arrays = checkpoint.load(path, {v.var_name: (tuple(v.shape), v.dtype.np) for v in variables})
        layout = self._layout
        self._state.assign(
            {
                v.var_name: pjrt.put(arrays[v.var_name], layout.placement(v.var_name, len(v.shape)))
                for v in variables
            }
        )
        return found
