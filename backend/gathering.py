"""``run_async``'s repeated runs gathered into step loops (backend).

On one CPU device PJRT runs a short program inside the calling thread
(pjrt.py, async_run.py), so a loop that starts every step with ``run_async``
and reads the losses every few steps (the idiomatic jax loop, written with a
Session) can neither overlap its host work with the step's compute nor avoid
paying one program launch per step; a long program goes to a worker thread,
whose Python between two runs leaves XLA's threads waiting. A Session sees
the whole step, so it can do better. Once the ``run_async`` runs of one
repeated run (same fetches, same feed keys and shapes) have taken as long as
compiling its program took, later ones are gathered instead of started: each
run's feeds are copied into row i of a stack at once (the caller may reuse
its arrays) and its handle comes back. When ``CHUNK`` runs are gathered they
run as one ``steps=CHUNK`` loop (step_loop.py: equal to CHUNK single runs,
bit for bit on CPU), on a worker thread where the loop is long enough
(``async_run.on_worker``, so the caller gathers the next chunk meanwhile),
else at once; each handle takes its row of the stacked fetches. Fewer than
CHUNK run one by one as soon as anything needs them: a handle's ``result()``
or ``done()``, or any use of the Session's variables. Every run, ``get``,
``set``, ``save`` and ``close`` passes the State's gate, whose ``before``
hook flushes the gathered runs first, and ``State.start`` calls the hook
before it queues a run. So runs still take effect in the order they were
started, and nothing sees a state they have not reached. A caller that
reads each result as it goes never fills a loop: after ``SHORT_FLUSHES``
such flushes in a row, its runs are launched again (and timed anew).

The switch costs one compile of the loop, about what the step's own compile
cost. Waiting until the runs have cost that much first bounds what a short
loop loses to about twice its time (the ski-rental rule); a long loop then
runs each step at about a loop trip's cost (benchmarks/training_loop.py).
Programs with host callbacks (a raising callback would fail the whole
chunk), checked runs (check_numerics: run synchronously), meshes and runs
fed device arrays are never gathered.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from . import async_run, step_loop
from .async_run import RunHandle

CHUNK = 16  # runs per loop program: with reads every 50 steps, 3 loops and 2 single runs
MIN_SECONDS = 0.1  # at least this much time of runs before gathering: a short loop never compiles one
GATHER = True  # Program.gathering once its runs are gathered, until their loop is compiled
# flushes in a row of fewer than CHUNK / 2 runs after which a program's runs are launched again: its
# caller reads each result as it goes, so gathering only adds its bookkeeping (about 10% of a short step)
SHORT_FLUSHES = 64


class GatheredHandle(RunHandle):
    """The handle of a gathered run: its ``result()`` and ``done()`` first run the gathered runs
    (their loop, or one by one), then give what ``sess.run`` would have given. A loop started on
    a worker thread (``_Chunk``) gives its row when it ends."""

    __slots__ = ("_gatherer", "_chunk", "_row")

    def __init__(self, gatherer: Gatherer, session):
        super().__init__(session)  # (holds the Session, as a started run's handle does)
        self._settled = False
        self._gatherer = gatherer
        self._chunk: _Chunk | None = None
        self._row = 0

    def done(self) -> bool:
        if not self._settled and self._chunk is None:
            self._gatherer.flush()
        if not self._settled and self._chunk is not None:
            if not self._chunk.ended():
                return False
            self._settle_from_chunk()
        return True

    def result(self):
        if not self._settled and self._chunk is None:
            self._gatherer.flush()
        if not self._settled and self._chunk is not None:
            self._settle_from_chunk()
        return super().result()

    def _settle_from_chunk(self) -> None:
        try:
            stacked = self._chunk.fetched()  # (a Ctrl-C while it waits leaves this handle unsettled)
        except Exception as e:  # noqa: BLE001  (the loop failed: every run of it failed with it)
            self._settle_with(error=e)
        else:
            row = self._row
            self._settle_with(
                self._chunk.repeat.shape_results([None if f is None else f[row] for f in stacked])
            )
        self._chunk = None

    def __repr__(self) -> str:  # (without running the gathered runs, as done() would)
        return "<run handle: done>" if self._settled else "<run handle: gathered, not run yet>"

    def _settle_with(self, value=None, error: BaseException | None = None) -> None:
        self._value, self._error, self._settled = value, error, True


class Gatherer:
    """A Session's gathered runs: those of one Repeat at a time, their feeds stacked row by row."""

    def __init__(self, session):
        # weak: a Session dropped unclosed frees its buffers at once (its gathered runs' handles hold it)
        self._session_ref = weakref.ref(session)
        self._lock = threading.RLock()  # reentrant: the flush's own runs pass the gate's hook
        self._repeat = None
        self._fetches = None
        self._stacks: list = []
        self._handles: list[GatheredHandle] = []
        self._short_flushes = 0

    @property
    def _session(self):
        return self._session_ref()

    # -- when -------------------------------------------------------------------
    def worth(self, program, seconds: float) -> bool:
        """Whether runs of ``program`` that took ``seconds`` so far have paid for a loop's compile."""
        return seconds >= max(program.compile_seconds, MIN_SECONDS)

    def eligible(self, program) -> bool:
        """Whether runs of ``program`` may be gathered: one CPU device (where a launch runs inline),
        no host callback, no numerics check."""
        return (
            async_run.on_one_cpu_device(self._session) and not program.plan.checks_finite
            and not getattr(program.text, "host_callbacks", ())
        )  # fmt: skip

    # -- gathering ------------------------------------------------------------------
    def add(self, repeat, fetches, values) -> GatheredHandle | None:
        """Gather a run of ``repeat`` on the feeds' ``values`` (numpy arrays of its feeds' types) and
        return its handle; None (nothing gathered) when a value is a device array."""
        if any(type(v) is not np.ndarray for v in values):
            return None
        with self._lock:
            if self._repeat is not repeat:
                self._flush_held()
                self._repeat, self._fetches = repeat, fetches
                self._stacks = [np.empty((CHUNK, *shape), dt) for dt, shape in repeat.specs]
            row = len(self._handles)
            for stack, value in zip(self._stacks, values):
                stack[row] = value
            handle = GatheredHandle(self, self._session)
            self._handles.append(handle)
            if row == 0:
                self._session._state.gate.before = self.flush
            if row + 1 == CHUNK:
                self._flush_held()
            return handle

    def flush(self) -> None:
        """Run the gathered runs (one loop for a full chunk, else one by one), settling their handles."""
        with self._lock:
            self._flush_held()

    def _flush_held(self) -> None:
        handles = self._handles
        if not handles:
            return
        repeat, fetches, stacks = self._repeat, self._fetches, self._stacks
        self._handles, self._repeat, self._fetches, self._stacks = [], None, None, []
        self._session._state.gate.before = None
        self._count_short(repeat, len(handles))
        try:
            if len(handles) == CHUNK and self._loop(repeat, fetches, stacks) is not None:
                self._run_loop(repeat, stacks, handles)
            else:
                self._run_one_by_one(repeat, stacks, handles)
        finally:
            for handle in handles:  # (a Ctrl-C mid-way: the rest say so)
                if not handle._settled and handle._chunk is None:
                    handle._settle_with(error=KeyboardInterrupt("the run was interrupted before it started"))

    def _count_short(self, repeat, gathered: int) -> None:
        """After SHORT_FLUSHES flushes in a row of fewer than CHUNK / 2 runs, launch ``repeat``'s runs
        again (and time them anew: they are gathered again once that is worth it)."""
        if gathered >= CHUNK // 2:
            self._short_flushes = 0
            return
        self._short_flushes += 1
        if self._short_flushes >= SHORT_FLUSHES:
            self._short_flushes = 0
            repeat.program.gathering = 0.0

    def _loop(self, repeat, fetches, stacks):
        """The ``steps=CHUNK`` loop program of ``repeat`` (compiled on first use), or None if it
        cannot be made (its runs then go one by one, and are gathered no more)."""
        loop = repeat.program.gathering
        if loop is GATHER:
            try:
                loop, _, _ = step_loop.prepare(
                    self._session, fetches, dict(zip(repeat.tensors, stacks)), CHUNK
                )
            except Exception:  # noqa: BLE001  (the single runs give their own errors)
                loop = None
            repeat.program.gathering = False if loop is None else loop
        return loop or None

    def _run_loop(self, repeat, stacks, handles) -> None:
        """Run the chunk's loop: on a worker thread where a loop of CHUNK steps is long enough
        (async_run.on_worker), so the caller gathers the next chunk meanwhile; else here. Each
        handle takes its row of the loop's fetches when it is read."""
        session, loop = self._session, repeat.program.gathering
        chunk = _Chunk(loop, repeat)
        if async_run.on_worker(session, loop, CHUNK):
            chunk.job = async_run.start_on_worker(loop, session, stacks)
        else:
            try:
                chunk.stacked = loop.execute(session._state, session.stats, stacks)
            except Exception as e:  # noqa: BLE001  (every run of the chunk failed with it)
                chunk.error = e
        for i, handle in enumerate(handles):
            handle._chunk, handle._row = chunk, i

    def _run_one_by_one(self, repeat, stacks, handles) -> None:
        session = self._session
        for i, handle in enumerate(handles):
            try:
                value = repeat.run_values([stack[i] for stack in stacks], session._state, session.stats)
            except Exception as e:  # noqa: BLE001  (surfaces on its handle, as run_async's errors do)
                handle._settle_with(error=e)
            else:
                handle._settle_with(value)


class _Chunk:
    """A chunk's loop: its fetches stacked per step (``stacked``) or its error once it ended, or
    the Job of the worker thread it runs on until then."""

    __slots__ = ("job", "program", "repeat", "stacked", "error")

    def __init__(self, program, repeat):
        self.program, self.repeat = program, repeat
        self.job = self.stacked = self.error = None

    def ended(self) -> bool:
        return self.job is None or self.job.ended(0)

    def fetched(self) -> list:
        """The loop's fetches, stacked per step (waits for it; raises its error, named by the State)."""
        if self.job is not None:
            try:
                outs = self.job.wait()
            except Exception as e:  # noqa: BLE001
                self.error = e
            else:
                slots = self.program.plan.fetch_slots
                self.stacked = outs if slots is None else [None if i is None else outs[i] for i in slots]
            self.job = None
        if self.error is not None:
            raise self.error
        return self.stacked
