"""Asynchronous runs: ``sess.run_async(fetches, feeds, steps=None)`` and the handle it returns (backend).

jaxlib dispatches a program and returns before it ends: its results are
futures until read. ``run_async`` plans, converts the feeds and starts the
program as ``run`` does, then returns a ``RunHandle`` at once, so Python
prepares the next step (or enqueues it) while the device works. The new
variable values are stored in the Session when the run starts, as futures,
so runs take effect in the order they were started: a later run reads the
variables an earlier one writes (jaxlib makes it wait for them). Errors of
any stage (a bad feed, a failed compile, a failed run) surface on the
handle's ``result()``, as ``run`` raises them.

PJRT's CPU client runs a one-device program inside the calling thread
(pjrt.py), so there a launch ends before it returns. A program long enough
to pay for a thread hand-off (``WORKER_FLOPS``) is therefore run on a
worker thread (``State.start``), which holds the Session's gate until the
run ends: the caller goes on to the next batch while the step computes, as
jax's asynchronous dispatch lets a jitted loop do, and the next run waits
for this one. Shorter programs run inline, where a hand-off would cost more
than it overlaps.
"""

from __future__ import annotations

import atexit
import threading
import time
import weakref

import numpy as np

from ..graph import flatten, unflatten
from . import step_loop
from .program import _flops, is_fetch_leaf, is_flat
from .state import raise_failed_run


class RunHandle:
    """A run started by ``sess.run_async``: ``result()`` waits for it and gives what ``sess.run``
    would have returned (or raises its error); ``done()`` says whether it has ended."""

    __slots__ = (
        "_session", "_program", "_tree", "_outs", "_token", "_before", "_value", "_error", "_settled", "_watch",
        "_job",
    )  # fmt: skip

    def __init__(self, session=None, program=None, tree=None, outs=(), token=None, before=None, job=None):
        self._session, self._program, self._tree = session, program, tree
        self._outs, self._token, self._before = outs, token, before
        self._job = job  # the worker's Job of a run started on one (State.start), else None
        self._value = self._error = None
        self._settled = program is None
        self._watch: threading.Thread | None = None

    @classmethod
    def ended(cls, value=None, error: BaseException | None = None) -> RunHandle:
        """A handle of a run that already ended, with its value or its error."""
        handle = cls()
        handle._value, handle._error = value, error
        return handle

    def done(self) -> bool:
        """Whether the run has ended (``result()`` will not wait)."""
        if self._settled:
            return True
        if self._job is not None:
            return self._job.ended(0)
        live = [r for r in self._outs if not r.is_deleted()]
        if live or self._token is None:  # (without a token, a fetch's result is never handed on)
            return all(r.is_ready() for r in live)
        # every result was donated on to a later run: ask the run's token, on a thread of its own
        if self._watch is None:
            self._watch = threading.Thread(target=self._wait_quietly, daemon=True)
            self._watch.start()
        return not self._watch.is_alive()

    def _wait_quietly(self) -> None:
        try:
            self._token.block_until_ready()
        except Exception:  # noqa: BLE001  (result() raises it)
            pass

    def result(self):
        """What ``sess.run`` would return for this run (waiting for it), or its error."""
        if not self._settled:
            self._settle()
        if self._error is not None:
            raise self._error
        return self._value

    def _settle(self) -> None:
        if self._job is not None:
            self._settle_job()
            return
        program, session = self._program, self._session
        try:
            try:
                if self._token is not None:
                    self._token.block_until_ready()
                values = program.executable.host_values(self._outs)
            except Exception as e:  # noqa: BLE001  (jaxlib raises a failed callback as a ValueError)
                lost = session._state.undo_failed(program, self._outs, self._before or {}, e)
                try:
                    raise_failed_run(program, e)
                except Exception as named:  # noqa: BLE001
                    if lost:
                        named.args = (
                            f"{named}\nvariables {', '.join(lost)} lost the values this run was writing",
                        )
                    raise named from None
            slots = program.plan.fetch_slots
            fetched = values if slots is None else [None if i is None else values[i] for i in slots]
            tree = self._tree
            self._value = tree.shape_results(fetched) if type(tree) is _Shape else unflatten(tree, fetched)
        except Exception as e:  # noqa: BLE001
            self._error = e
        finally:
            self._settled = True
            self._outs, self._token, self._before = (), None, None

    def _settle_job(self) -> None:
        """Settle a run started on a worker: its Job gives the fetches (its error is named, and
        the variables it lost are said, by the State's run, as ``run`` raises them)."""
        try:
            outs = self._job.wait()  # (a Ctrl-C here leaves the handle unsettled: result() waits again)
            slots = self._program.plan.fetch_slots
            fetched = outs if slots is None else [None if i is None else outs[i] for i in slots]
            tree = self._tree
            self._value = tree.shape_results(fetched) if type(tree) is _Shape else unflatten(tree, fetched)
        except Exception as e:  # noqa: BLE001
            self._error = e
        self._settled = True
        self._job = None

    def __repr__(self) -> str:
        state = "done" if self.done() else "running"
        return f"<run handle: {state}>"


def start(session, fetches, feeds=None, steps=None) -> RunHandle:
    """``sess.run_async``: the run planned and started as ``sess.run`` would, its handle returned."""
    try:
        if session._closed or session.check_numerics or session._layout.multiprocess:
            # a checked run searches a failed run's nodes, and a run over several processes waits
            # for its peers: both run here, their handle has ended
            return RunHandle.ended(session.run(fetches, feeds, steps=steps))
        if steps is not None or step_loop.is_source(feeds):  # (a source's batches may be device arrays)
            if steps is not None:
                steps = step_loop.check_steps(steps)
            if step_loop.is_source(feeds):
                feeds = step_loop.take_source(feeds, steps)
            program, values, tree = step_loop.prepare(session, fetches, feeds, steps)
        else:
            repeat = session._repeats.find(fetches, feeds)  # a run seen before: its program, feeds checked
            values = None if repeat is None else repeat.values_for(() if feeds is None else feeds.values())
            if values is not None:
                gathering = repeat.program.gathering
                if type(gathering) is not float and gathering is not False:
                    handle = session._gatherer.add(repeat, fetches, values)
                    if handle is not None:
                        return handle
                return _repeat_started(repeat, session, values)
            leaves, tree = flatten(fetches, is_leaf=is_fetch_leaf)
            fed = session._convert_feeds(feeds)
            program = session._program(tuple(session._resolve(f) for f in leaves), fed)
            if is_flat(tree, fetches):  # the next run like it takes the fast path, as run's do
                session._repeats.add(fetches, feeds, program.repeat(fed, fetches, feeds))
            values = [arr for _, arr in fed]
        return _started(program, session, values, tree, steps)
    except Exception as e:  # noqa: BLE001  (every error surfaces on the handle)
        return RunHandle.ended(error=e)


# Programs of at least this many flops (XLA's cost analysis) run on a worker thread on one CPU
# device: about 0.3 ms of compute and more, against tens of microseconds for the hand-off.
WORKER_FLOPS = 1e7
_FLOPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # executable -> its flops


def _repeat_started(repeat, session, values) -> RunHandle:
    """The handle of a repeated run started on the feeds' ``values``. The time its starts take is
    summed (``Program.gathering``: a run launched inline ends before its start returns, and on a
    worker a start waits for a turn once QUEUED runs wait): once they have cost what the program's
    compile did, the Session's Gatherer takes the later runs (gathering.py), if it may."""
    program = repeat.program
    spent = program.gathering
    if type(spent) is not float:
        return _started(program, session, values, _Shape(repeat))
    begin = time.perf_counter()
    handle = _started(program, session, values, _Shape(repeat))
    spent = program.gathering = spent + (time.perf_counter() - begin)
    gatherer = session._gatherer
    if gatherer.worth(program, spent):
        program.gathering = gatherer.eligible(program)  # True: gather from the next run on
    return handle


def _started(program, session, values, tree, steps=None) -> RunHandle:
    """The handle of ``program`` (of ``steps`` steps, or a single run) started on the feeds'
    ``values``: on a worker (``on_worker``) or launched here. A run on a worker reads its numpy
    feeds later: it takes copies, since the caller may overwrite its arrays for the next step."""
    if on_worker(session, program, steps or 1):
        values = [v.copy() if type(v) is np.ndarray else v for v in values]
        return RunHandle(session, program, tree, job=start_on_worker(program, session, values))
    outs, token, before = _launch(program, session, values)
    return RunHandle(session, program, tree, outs, token, before)


def on_one_cpu_device(session) -> bool:
    """Whether the Session runs on one CPU device, where PJRT runs a program inside the calling thread."""
    devices = session._layout.devices
    return len(devices) == 1 and devices[0].platform == "cpu"


def on_worker(session, program, steps: int = 1) -> bool:
    """Whether ``run_async`` runs ``program`` (``steps`` trips of a step loop) on a worker thread:
    one CPU device (where PJRT runs it inside the calling thread) and at least WORKER_FLOPS of
    work (XLA's cost analysis counts one trip of a loop)."""
    if not on_one_cpu_device(session):
        return False
    exe = program.executable
    flops = _FLOPS.get(exe)
    if flops is None:
        flops = _FLOPS[exe] = _flops(exe)
    return flops * steps >= WORKER_FLOPS


def _count(program, session) -> None:
    stats = session.stats
    stats.runs += 1
    if program.runs:
        stats.cache_hits += 1
    program.runs += 1


def _args(program, values) -> list:
    positions = program.plan.arg_positions
    return list(values if len(positions) == len(values) else [values[i] for i in positions])


def start_on_worker(program, session, values):
    """Start ``program`` on a worker thread beside the Session's state (State.start); counted as a run."""
    _count(program, session)
    state = session._state
    job = state.start(program, _args(program, values))
    running = [j for j in _RUNNING if not j.ended(0)]
    running.append(job)
    worker = state.queue_worker  # (waited for at exit too: it still runs Python after the last run)
    if worker is not None and not any(j is worker for j in running):
        running.append(worker)
    _RUNNING[:] = running
    return job


_RUNNING: list = []  # the Jobs of runs started on workers that may not have ended


@atexit.register
def _wait_for_workers() -> None:
    """At exit, wait for runs started on workers (nobody may have read them): a worker coming back
    from C++ while the interpreter is torn down aborts the process (interrupt.py)."""
    for job in list(_RUNNING):
        job.ended(-1)


class _Shape:
    """The fetches' structure of a run that took a Repeat: its ``shape_results``."""

    __slots__ = ("shape_results",)

    def __init__(self, repeat):
        self.shape_results = repeat.shape_results


def _launch(program, session, values) -> tuple[list, object, dict]:
    """Start ``program`` on the feeds' ``values`` beside the Session's state; counted as a run."""
    _count(program, session)
    return session._state.launch(program, _args(program, values))
