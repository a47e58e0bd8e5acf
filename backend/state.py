"""A Session's variable buffers and the order of the runs that use them (backend).

Runs that only read variables go concurrently; a run that writes any (an
assign, a train op, a Generator's automatic advance) runs alone: it closes
a gate, waits for the reading runs in flight, runs, and opens the gate.
Writers donate their variables' buffers to XLA, and PJRT's CPU client
deadlocks when a program donates a buffer that another running program
reads, so this order is needed, not only tidy. Runs that use no variable
take no lock at all.

A variable of the Session is in one of four conditions: it has a buffer;
it is lost (its buffer was donated to a run that failed; runs that need it
are refused, naming it, until ``initialize``, ``set`` or ``restore`` gives
it a value); it is pending (a run interrupted by Ctrl-C still computes its
new value, which it takes when that run ends); or it has no value yet (the
Session initializes it when first needed).
"""

from __future__ import annotations

import collections
import threading

from ..graph import ExecutionError, located
from ..ops.primitives import host_callback
from . import interrupt, pjrt

QUEUED = 8  # started runs that may wait behind the running one (State.start)


class RunGate:
    """A readers-writer lock that costs a reader one uncontended lock and two list calls.

    A writer holds the gate for its whole run, so new readers wait behind it;
    readers hold the gate only to register, so a waiting writer is next. The
    writer then waits until the readers in flight have left.
    """

    __slots__ = ("_gate", "_readers", "_drained", "_writer_waiting", "before")

    def __init__(self):
        self._gate = threading.Lock()
        self._readers: list = []  # one entry per reader in flight; append and pop are atomic
        self._drained = threading.Event()
        self._writer_waiting = False
        self.before = None  # called before entering, while set: runs gathered runs first (gathering.py)

    def enter_read(self) -> None:
        if self.before is not None:
            self.before()
        with self._gate:
            self._readers.append(None)

    def exit_read(self) -> None:
        readers = self._readers
        readers.pop()
        if self._writer_waiting and not readers:
            self._drained.set()

    def enter_write(self) -> None:
        if self.before is not None:
            self.before()
        self._gate.acquire()
        if self._readers:
            try:
                self._wait_for_readers()
            except BaseException:  # Ctrl-C while waiting: leave the gate open
                self._gate.release()
                raise

    def exit_write(self) -> None:
        self._gate.release()

    def _wait_for_readers(self) -> None:
        # set the flag before looking again, so the last reader out sees it and wakes us
        self._writer_waiting = True
        self._drained.clear()
        try:
            while self._readers:
                self._drained.wait(0.05)
        finally:
            self._writer_waiting = False


class State:
    """The device buffers of a Session's variables (and its root key), by name.

    ``read`` and ``write`` run a program over them (see the module docstring
    for who waits for whom); ``values``, ``assign`` and ``close`` are the
    Session's other ways in.
    """

    def __init__(self, buffers: dict):
        self.buffers = buffers
        self.lost: dict[str, str] = {}  # name -> why its value is gone
        self.lost_as: dict[str, type] = {}  # name -> the error class of a loss that keeps its own
        self.pending: dict[str, interrupt.Job] = {}  # name -> interrupted run computing its value
        self.held: dict[str, set] = {}  # name -> interrupted runs still reading its buffer
        self.gate = RunGate()
        self.closed = False
        self._queue: collections.deque | None = None  # runs started on a worker, waiting their turn
        self._queue_lock = threading.Lock()
        self.queue_worker: interrupt.Job | None = None  # the worker's Job of the last queue started

    def __getitem__(self, name: str):
        """The buffer of a variable that has one (KeyError otherwise)."""
        return self.buffers[name]

    def has_value(self, name: str) -> bool:
        return name in self.buffers or name in self.lost or name in self.pending

    # -- runs ------------------------------------------------------------------
    def read(self, program, args) -> list:
        """Run a program that reads variables and writes none, beside other readers."""
        gate = self.gate
        gate.enter_read()
        try:
            return self.call(program, args + self._inputs(program))
        finally:
            gate.exit_read()

    def write(self, program, args) -> list:
        """Run a program that writes variables, alone; store their new buffers."""
        self.gate.enter_write()
        try:
            return self._write_held(program, args)
        finally:
            self.gate.exit_write()

    def _write_held(self, program, args) -> list:
        """``write``'s run, with the write gate already held."""
        outs = self._writing(program, args, self.call)
        n = len(outs) - len(program.plan.state_out)
        if program.plan.checks_finite and not outs[n - 1]:
            raise NonfiniteRun()  # nothing stored: the run donated nothing, the old values stand
        self._store(program.plan.state_out, outs[n:])
        return outs[:n]

    def start(self, program, args) -> interrupt.Job:
        """Run a program on a worker thread and return its Job at once (``sess.run_async`` of a
        long program on one CPU device, where PJRT runs programs inside the calling thread).
        The Job's result is what ``write``, ``read`` or ``call`` would have returned.

        Started runs form a queue that one worker works through in order, holding the write
        gate from the first run's start to the last one's end: a later run (or ``get``,
        ``set``, ``close``) waits for them, so runs take effect in the order they were started.
        A run started while others are queued or running joins the queue and the caller goes
        on at once, as jax's asynchronous dispatch lets a jitted loop enqueue step k + 1 while
        step k computes: the worker starts it the moment the run before it ends. At most
        ``QUEUED`` runs wait in the queue; starting one more waits until the oldest has run.
        """
        job = interrupt.Job(self._started_run(program), args)
        if self.gate.before is not None:  # gathered runs were started first: they run first
            self.gate.before()
        while True:
            with self._queue_lock:
                queue = self._queue
                if queue is None:
                    break
                if len(queue) < QUEUED:
                    queue.append(job)
                    return job
                oldest = queue[0]
            oldest.ended(-1)  # the queue is full: wait for its oldest run (Ctrl-C: nothing queued)
        self.gate.enter_write()  # waits for the runs of other threads (a queue holds the gate)
        with self._queue_lock:
            self._queue = collections.deque()
        try:
            self.queue_worker = interrupt.start(self._work_through, job)
        except BaseException as e:
            self._end_queue(e)
            raise
        return job

    def _started_run(self, program):
        """What a started run does on the worker (the write gate is held by its queue)."""
        plan = program.plan

        def run(args):
            if plan.state_out:
                return self._write_held(program, args)
            return self.call(program, args + self._inputs(program) if plan.state_in else args)

        return run

    def _work_through(self, job) -> None:
        """The worker: run ``job``, then each run queued behind it, then open the gate."""
        while job is not None:
            job._run()
            with self._queue_lock:
                queue = self._queue
                if queue:
                    job = queue.popleft()
                else:
                    self._queue = None
                    self.gate.exit_write()
                    job = None

    def _end_queue(self, error: BaseException) -> None:
        """No worker could be started: the queued runs fail with ``error``; the gate opens."""
        with self._queue_lock:
            queue, self._queue = self._queue, None
            self.gate.exit_write()
        for job in queue or ():
            job.error = error
            job._done.release()

    def _writing(self, program, args, call):
        """``call(program, args + the variables' buffers)`` for a run that writes variables (the
        write gate held): held buffers copied first; if it fails, the variables whose buffers it
        was given to donate lose their values, and the error says which."""
        args = args + self._inputs(program)
        if self.held:
            self._unhold(program, args, len(args) - len(program.plan.state_in))
        try:
            return call(program, args)
        except BaseException as e:
            lost = self._lose_donated(program, e)
            if lost and isinstance(e, ExecutionError):  # its class kept: DistributedError
                raise type(e)(f"{e}\n{_lost_message(lost, self.lost)}") from None
            raise

    def launch(self, program, args) -> tuple[list, object, dict]:
        """Start a run without waiting for it (``sess.run_async``): as ``read`` or ``write``, but
        the new variable buffers are stored at once, still being computed (a later run takes
        them as they are: jaxlib orders the two runs). Returns the fetch results (device
        arrays), the run's token (see pjrt.Executable.launch) and the buffers the variables it
        writes had before (``undo_failed``)."""
        plan = program.plan
        gate = self.gate
        if not plan.state_out:
            if not plan.state_in:
                return (*_launch(program, args), {})
            gate.enter_read()
            try:
                return (*_launch(program, args + self._inputs(program)), {})
            finally:
                gate.exit_read()
        gate.enter_write()
        try:
            outs, token = self._writing(program, args, _launch)
            n = len(outs) - len(plan.state_out)
            before = {v: self.buffers.get(v) for v in plan.state_out}
            self._store(plan.state_out, outs[n:])
            return outs, token, before
        finally:
            gate.exit_write()

    def undo_failed(self, program, outs, before: dict, error) -> list[str]:
        """After a started run failed later: each variable still holding the buffer it wrote takes
        back its value from before the run if that buffer was not donated, else is lost (as
        after a failed ``write``). Returns the variables lost."""
        self.gate.enter_write()
        try:
            n = len(outs) - len(program.plan.state_out)
            lost = []
            for v, buf in zip(program.plan.state_out, outs[n:]):
                if self.buffers.get(v) is not buf:
                    continue  # a later run or set() gave it a value meanwhile
                old = before.get(v)
                if old is not None and not pjrt.is_deleted(old):
                    self.buffers[v] = old
                    continue
                del self.buffers[v]
                self.lost[v] = f"the run its buffer was donated to failed: {_first_line(error)}"
                lost.append(v)
            return lost
        finally:
            self.gate.exit_write()

    def _inputs(self, program) -> list:
        buffers = self.buffers
        try:
            return [buffers[v] for v in program.plan.state_in]
        except KeyError:
            raise self.unavailable(program.plan.state_in, program.nodes) from None

    def call(self, program, args) -> list:
        """The executable on ``args`` (by itself: for a program that uses no variable).

        From the main thread, a program that may run long runs on a worker, so
        that Ctrl-C interrupts the wait (the program itself runs on; see ``_abandon``).
        """
        try:
            if program.interruptible and threading.get_ident() == interrupt.MAIN_THREAD:
                return self._call_interruptibly(program, args)
            return program.executable(args)
        except Exception as e:  # noqa: BLE001  (jaxlib raises a failed callback as a ValueError)
            raise_failed_run(program, e)

    def _call_interruptibly(self, program, args) -> list:
        job = interrupt.start(program.executable, args)
        try:
            return job.wait()
        except KeyboardInterrupt:
            self._abandon(program, job)
            if not job.abandon(self._settle_later(program)):
                self._settle(program, job)  # it ended as the interrupt came: take its values now
            raise

    # -- interrupted runs -------------------------------------------------------
    def _abandon(self, program, job) -> None:
        """Ctrl-C left ``job`` running: the variables it writes wait for it (pending);
        those it only reads are held (a later run copies them before donating)."""
        for v in program.plan.state_out:
            self.pending[v] = job
            self.buffers.pop(v, None)
        for v in program.plan.state_in:
            if v not in self.pending:
                self.held.setdefault(v, set()).add(job)

    def _settle_later(self, program):
        def settle(job) -> None:  # on the worker thread, when the abandoned run has ended
            self.gate.enter_write()
            try:
                if not self.closed:
                    self._settle(program, job)
            finally:
                self.gate.exit_write()

        return settle

    def _settle(self, program, job) -> None:
        """An abandoned run ended: release what it held; the variables still waiting for
        it take its values (or are lost, if it failed)."""
        for v in program.plan.state_in:
            jobs = self.held.get(v)
            if jobs is not None:
                jobs.discard(job)
                if not jobs:
                    del self.held[v]
        n = len(program.plan.state_out)
        for k, v in enumerate(program.plan.state_out):
            if self.pending.get(v) is not job:
                continue  # given a new value meanwhile
            del self.pending[v]
            if job.error is None:
                self.buffers[v] = job.result[len(job.result) - n + k]
            else:
                self.lost[v] = (
                    f"the run interrupted by Ctrl-C that was computing it failed: {_first_line(job.error)}"
                )

    def _unhold(self, program, args, first) -> None:
        """Copy the buffers this run would donate while an interrupted run still reads them
        (donating a buffer that a running program reads deadlocks PJRT's CPU client)."""
        for k, v in enumerate(program.plan.state_in):
            if v in self.held and v in program.plan.state_out:
                copy = pjrt.copy(self.buffers[v])
                self.buffers[v] = args[first + k] = copy
                del self.held[v]

    # -- failures and unavailable variables --------------------------------------
    def _lose_donated(self, program, error) -> list[str]:
        """After a failed run: the variables whose buffers it consumed are lost."""
        lost = []
        for v in program.plan.state_in:
            buf = self.buffers.get(v)
            if buf is not None and pjrt.is_deleted(buf):
                del self.buffers[v]
                self.lost[v] = f"the run its buffer was donated to failed: {_first_line(error)}"
                if type(error) is not ExecutionError and isinstance(error, ExecutionError):
                    self.lost_as[v] = type(error)  # DistributedError: later runs raise it too
                lost.append(v)
        return lost

    def unavailable(self, names, nodes=()) -> Exception:
        """The error for a run or ``get`` that needs variables without a value now."""
        if self.closed:
            return ExecutionError("this Session is closed")
        lost = [v for v in names if v in self.lost]
        if lost:
            error = next((self.lost_as[v] for v in lost if v in self.lost_as), ExecutionError)
            return error(_lost_message(lost, self.lost))
        pending = [v for v in names if v in self.pending]
        if pending:
            one = len(pending) == 1
            head = f"variable {pending[0]} is" if one else f"variables {', '.join(pending)} are"
            return ExecutionError(
                f"{head} being updated by a run interrupted by Ctrl-C that is still running on the "
                f"device; {'it takes its value' if one else 'they take their values'} from that run "
                f"when it ends (run again then), or sess.initialize, sess.set or sess.restore gives "
                f"{'it a new value' if one else 'them new values'} now"
            )
        missing = [v for v in names if v not in self.buffers]
        return ExecutionError(with_nodes(f"variables {missing} have no value in this Session", nodes))

    # -- the Session's other ways in ----------------------------------------------
    def values(self, names) -> list:
        """Copies of the variables' values as numpy, all from one moment."""
        self.gate.enter_read()
        try:
            buffers = self.buffers
            if any(v not in buffers for v in names):
                raise self.unavailable(names)
            # copies: the buffer may be donated by the next run
            return [pjrt.to_numpy(buffers[v]).copy() for v in names]
        finally:
            self.gate.exit_read()

    def assign(self, buffers: dict) -> None:
        """Give variables new buffers (set, restore), between runs."""
        self.gate.enter_write()
        try:
            self._store(list(buffers), list(buffers.values()))
        finally:
            self.gate.exit_write()

    def _store(self, names, buffers) -> None:
        self.buffers.update(zip(names, buffers))
        if self.lost or self.pending or self.held:
            for v in names:
                self.lost.pop(v, None)
                self.lost_as.pop(v, None)
                self.pending.pop(v, None)
                self.held.pop(v, None)

    def close(self) -> None:
        self.gate.enter_write()
        try:
            self.closed = True
            for part in (self.buffers, self.lost, self.lost_as, self.pending, self.held):
                part.clear()
        finally:
            self.gate.exit_write()


def _launch(program, args) -> tuple[list, object]:
    """``program.executable.launch(args)``; a run that fails at once raises as ``State.call``'s.
    The run's token is asked for when only it can tell that the run failed or ended: a program
    with host callbacks, or one whose every result is a variable (a later run may take them)."""
    token = bool(program.text.host_callbacks) or program.plan.n_fetched == 0
    try:
        return program.executable.launch(args, token)
    except Exception as e:  # noqa: BLE001  (jaxlib raises a failed callback as a ValueError)
        raise_failed_run(program, e)


def _lost_message(names, why: dict) -> str:
    """Which variables lost their values, why, and how to give them new ones."""
    one = len(names) == 1
    head = f"variable {names[0]} lost its value" if one else f"variables {', '.join(names)} lost their values"
    reasons = "; ".join(dict.fromkeys(why[v] for v in names))
    them = "it" if one else "them"
    return (
        f"{head} ({reasons}); runs that read {them} are refused until sess.initialize, "
        f"sess.set or sess.restore gives {them} a new value"
    )


def _first_line(error) -> str:
    return str(error).split("\n", 1)[0]


class NonfiniteRun(Exception):
    """A run of a Session with check_numerics=True made a nan or an infinity in a fetch or a new
    variable value; the Session finds where (sess.find_nonfinite) and raises an ExecutionError."""


def raise_failed_run(program, error) -> None:
    """Raise the error for a failed run: a host callback that raised is an ExecutionError naming
    it (its API, node and the user's line), with its Python exception as the cause; an XLA
    failure one with XLA's message and the nodes involved; anything else itself."""
    for bound in getattr(program.text, "host_callbacks", ()):
        failure = bound.take_failure()
        if failure is not None:
            fn, node = bound.function, bound.node
            if isinstance(failure, host_callback.CheckFailed):
                message = f"{fn.what} failed: {failure}"
            else:
                message = f"{fn.what} raised {type(failure).__name__}: {failure}"
            raise ExecutionError(located(message, fn.location or node.location, node.name)) from failure
    if not isinstance(error, pjrt.XlaRuntimeError):
        raise error
    from . import ffi  # noqa: PLC0415  (loaded by a failed run: sg.ffi is loaded on first use)

    kernels = ffi.kernel_nodes(program.nodes)
    if kernels:  # a kernel's error status comes back as XLA's: name the calls that could have given it
        raise ExecutionError(ffi.failure_message(error, kernels)) from None
    raise ExecutionError(with_nodes(f"the program failed while running: {error}", program.nodes)) from None


def with_nodes(message: str, nodes) -> str:
    """``message`` with the nodes it names (or the last few) and their source lines."""
    named = [n for n in nodes if n.name in message] or list(nodes)[-3:]
    where = "\n".join(f"  {located(n.op.name, n.location, n.name)}" for n in named)
    return f"{message}\nnodes involved:\n{where}" if where else message
