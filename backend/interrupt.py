"""Running a blocking device call so that Ctrl-C still reaches Python (backend).

PJRT runs a CPU program inside the calling thread, in C++, and Python only
handles a signal when that call returns: a runaway ``while_loop`` would
never give KeyboardInterrupt back. So the main thread hands such a call to a
worker thread and waits for it on a lock, and a lock wait is interrupted by
signals. XLA cannot cancel a program, so an interrupted call is abandoned,
not stopped: it runs to its end on the worker, which then calls whatever the
caller asked for with ``Job.abandon``. Handing a call over costs tens of
microseconds, so Sessions do it only for programs that may run long.

At exit, Python waits for abandoned calls to end (a second Ctrl-C stops the
wait): a worker that comes back from C++ while the interpreter is being torn
down aborts the process, as Python ends such threads by unwinding them.
"""

from __future__ import annotations

import atexit
import queue
import sys
import threading
import time

MAIN_THREAD = threading.main_thread().ident  # the only thread Python delivers signals to


class Job:
    """One call on a worker thread: ``wait()`` for its result, or ``abandon(then)`` it."""

    __slots__ = ("fn", "arg", "result", "error", "_done", "_mutex", "_ended", "_then")

    def __init__(self, fn, arg):
        self.fn, self.arg = fn, arg
        self.result = self.error = None
        self._done = threading.Lock()
        self._done.acquire()  # released by the worker when the call (and ``then``) has ended
        self._mutex = threading.Lock()
        self._ended = False
        self._then = None

    def wait(self):
        """The call's result (or its exception). KeyboardInterrupt can arrive while waiting."""
        self._done.acquire()
        self._done.release()
        if self.error is not None:
            raise self.error
        return self.result

    def abandon(self, then) -> bool:
        """Stop waiting: ``then(job)`` runs on the worker when the call ends.

        False if the call has ended already (then its result is there to take).
        """
        with self._mutex:
            if self._ended:
                return False
            self._then = then
            _ABANDONED.add(self)
            return True

    def ended(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds (-1: no limit) for the call (and ``then``) to end; whether it has."""
        if self._done.acquire(timeout=timeout):
            self._done.release()
            return True
        return False

    def _run(self) -> None:
        try:
            self.result = self.fn(self.arg)
        except BaseException as e:  # handed to the waiting thread, or to ``then``
            self.error = e
        with self._mutex:
            self._ended = True
            then = self._then
        try:
            if then is not None:  # abandoned: nobody waits for the result, so settle first
                then(self)
        finally:
            _ABANDONED.discard(self)
            self._done.release()


class _Worker:
    """A daemon thread that runs Jobs one after another, then goes back to the idle list."""

    def __init__(self):
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._loop, name="stablegraph-run", daemon=True).start()

    def _loop(self) -> None:
        while True:
            job = self.jobs.get()
            job._run()
            job = None  # drop the arguments and results before idling
            _IDLE.append(self)


_IDLE: list[_Worker] = []  # a worker still running an abandoned call is not here
_ABANDONED: set[Job] = set()  # abandoned calls still running


def start(fn, arg) -> Job:
    """Start ``fn(arg)`` on an idle worker thread (a new one if all are busy)."""
    try:
        worker = _IDLE.pop()
    except IndexError:
        worker = _Worker()
    job = Job(fn, arg)
    worker.jobs.put(job)
    return job


def wait_abandoned(timeout: float | None = None) -> bool:
    """Wait for the abandoned calls still running to end (up to ``timeout`` seconds); whether they all have."""
    end = None if timeout is None else time.monotonic() + timeout
    for job in list(_ABANDONED):
        left = -1 if end is None else max(0.0, end - time.monotonic())
        if not job.ended(left):
            return False
    return True


def _wait_at_exit() -> None:
    if not _ABANDONED:
        return
    print(
        f"stablegraph: waiting for {len(_ABANDONED)} run(s) interrupted by Ctrl-C to end on the device "
        "(Ctrl-C again to exit now)",
        file=sys.stderr,
    )
    try:
        wait_abandoned()
    except KeyboardInterrupt:
        pass


atexit.register(_wait_at_exit)
