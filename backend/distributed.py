"""Many processes, one program: ``sg.distributed`` joins this process to its peers (backend).

``initialize`` connects every process to a coordination service (process 0
starts it in a process of its own, backend/coordinator.py, serving at
``coordinator_address``) and makes a CPU client whose devices
are every process's (``local_device_count`` each, gloo TCP collectives
between them); ``sg.devices()`` and ``sg.make_mesh`` then list the global
devices in process order, so a mesh spans processes. Every process then
builds the same graph and makes the same ``sess.run`` calls (SPMD across
processes): a feed split over such a mesh is each process's block of the
global value, a replicated feed is the whole value in every process.

Joining is checked: a peer that never arrives is a DistributedError after
``timeout``. Liveness after that is watched here, not by jaxlib: jaxlib
0.10.2 aborts the process when its coordination service misses a heartbeat
(its callback cannot take the status it is handed), and a gloo collective
whose peer died waits forever. So jaxlib gets a heartbeat timeout it never
reaches, and a daemon thread in every process bumps a counter of its own in
the service's key-value store (``stablegraph/alive/<process>``) and reads its
peers'. A run over the processes waits for its results in short slices
(pjrt's ``_run_global`` calls ``wait_ready``); once a peer's counter has not
moved for ``timeout`` seconds, or the coordinator has not answered for that
long, the run raises DistributedError naming them, and the group is lost:
later runs raise at once, ``shutdown`` does not wait for the peers, and the
process exits normally (the collective left waiting is abandoned inside
XLA's thread pool). A process that holds the GIL for longer than ``timeout``
(one long C call that does not release it) looks dead to its peers.

The coordination service must outlive every member that is still there:
when it goes away, jaxlib's error poll in each connected process calls the
same broken callback and the process aborts (measured: within about a
second). So it runs in a process of its own, which every member keeps alive
through a TCP connection (backend/coordinator.py), and process 0 dying is
one more lost peer.
"""

from __future__ import annotations

import atexit
import ctypes
import math
import threading
import time

from ..graph import ExecutionError
from . import coordinator, pjrt

_NEVER = 10**6  # jaxlib's heartbeat timeout (s): its own detection would abort the process
_KEEPALIVE = "stablegraph/keepalive"  # the key under which process 0 tells the others the keep-alive port


class DistributedError(ExecutionError):
    """Processes could not join, or a peer was lost: names the coordinator and the timeout."""


class _Runtime:
    """This process's membership: the service's process (started by process 0) and this
    process's keep-alive connection to it, the client, the watch on the peers, what went wrong."""

    def __init__(self, coordinator: str, num_processes: int, process_id: int, timeout: float):
        self.coordinator, self.num_processes, self.process_id = coordinator, num_processes, process_id
        self.timeout = timeout
        self.keeper = self.keepalive = self.client = self.cpu = None
        self.lost: str | None = None  # why the peers are gone, once known (see ``lose``)
        self.barriers = 0
        now = time.monotonic()
        self.seen = dict.fromkeys(range(num_processes), now)  # process -> when its counter last moved
        self.answered = now  # when the coordinator last answered the watch
        self._counts: dict[int, str] = {}
        self._stop = threading.Event()
        self._watch: threading.Thread | None = None

    def on_missed_heartbeat(self, status) -> None:  # on jaxlib's thread: record, never raise
        self.lose(f"the coordination service stopped answering heartbeats ({status})")

    def lose(self, why: str) -> None:
        """The group is lost: record why (the first reason stays), and keep jaxlib's objects
        alive to the end of the process. Destroying the CPU client joins its threads, one of
        which waits forever in a dead peer's collective; closing the keep-alive could stop the
        service, and then the client's error poll aborts the process (jaxlib 0.10.2)."""
        if self.lost is None:
            self.lost = why
            for part in (self.cpu, self.client, self.keepalive):
                if part is not None:
                    ctypes.pythonapi.Py_IncRef(ctypes.py_object(part))  # never released

    def where(self) -> str:
        return (
            f"process {self.process_id} of {self.num_processes}, coordinator {self.coordinator}, "
            f"timeout {self.timeout:g} s"
        )

    # -- the watch ---------------------------------------------------------------
    def start_watch(self) -> None:
        self._watch = threading.Thread(target=self._beat, name="stablegraph-alive", daemon=True)
        self._watch.start()

    def stop_watch(self) -> None:
        self._stop.set()
        watch, self._watch = self._watch, None
        if watch is not None and watch is not threading.current_thread():
            watch.join(self.timeout)

    def _beat(self) -> None:
        """Bump this process's counter and note which peers' counters moved, every ``period`` s."""
        period = min(0.5, self.timeout / 10)
        me, client = self.process_id, self.client
        while not self._stop.wait(period):
            try:
                client.key_value_increment(f"stablegraph/alive/{me}", 1)
                now = time.monotonic()
                self.answered = self.seen[me] = now
                for q in range(self.num_processes):
                    if q == me:
                        continue
                    try:
                        count = client.key_value_try_get(f"stablegraph/alive/{q}")
                    except Exception:  # not bumped yet (NOT_FOUND)
                        continue
                    if self._counts.get(q) != count:
                        self._counts[q] = count
                        self.seen[q] = now
            except Exception:  # the coordinator is gone or unreachable: ``answered`` stays behind
                pass

    def silent(self) -> str | None:
        """Who has been silent for ``timeout`` seconds (the coordinator, peers), or None."""
        now = time.monotonic()
        if now - self.answered > self.timeout:
            return f"the coordinator has not answered for {now - self.answered:.1f} s"
        quiet = [q for q, t in self.seen.items() if q != self.process_id and now - t > self.timeout]
        if quiet:
            names = ", ".join(map(str, quiet))
            return (
                f"process{'es' if len(quiet) > 1 else ''} {names} sent no sign of life for {self.timeout:g} s"
            )
        return None

    def check(self) -> None:
        """DistributedError if a peer or the coordinator was lost (before a run that needs them)."""
        if self.lost is not None:
            raise DistributedError(
                f"a peer process or the coordinator is gone ({self.where()}): {self.lost}; "
                "restart every process (sg.distributed.shutdown, then initialize)"
            )
        why = self.silent()
        if why is not None:
            raise self._lose(why)

    def _lose(self, why: str) -> DistributedError:
        self.lose(why)
        return DistributedError(
            f"a peer process or the coordinator is gone ({self.where()}): {why}; the group is lost: "
            "restart every process (sg.distributed.shutdown, then initialize)"
        )

    def wait_ready(self, arrays) -> None:
        """Wait for a run's results, in short slices; DistributedError once someone is silent
        (the run is then abandoned: a collective whose peer died never ends)."""
        pause = 1e-5
        for a in arrays:
            while not a.is_ready():
                why = self.silent() if self.lost is None else self.lost
                if why is not None:
                    raise self._lose(why)
                time.sleep(pause)
                pause = min(pause * 2, 0.01)

    def failed(self, error) -> DistributedError:
        """The error of a run over the processes that failed with ``error``."""
        self.lose(f"a run over the processes failed: {_first_line(error)}")
        return DistributedError(
            f"a run over {self.num_processes} processes failed ({self.where()}); a peer process "
            f"probably died or stopped: {_first_line(error)}"
        )


_runtime: _Runtime | None = None
_lock = threading.Lock()


def initialize(
    coordinator_address: str,
    num_processes: int,
    process_id: int,
    local_device_count: int | None = None,
    timeout: float = 60.0,
) -> None:
    """Join ``num_processes`` processes (this one is ``process_id``) through the coordinator at
    ``coordinator_address`` ("host:port"; process 0 starts it). Waits up to ``timeout`` seconds
    for every process, else raises DistributedError. ``local_device_count`` CPU devices per
    process (default 1). After it, ``sg.devices()`` lists every process's devices. A peer that
    is silent for ``timeout`` seconds later fails the runs over the processes (DistributedError)."""
    global _runtime
    n, pid = _count("num_processes", num_processes, 1), _count("process_id", process_id, 0)
    local = _count("local_device_count", 1 if local_device_count is None else local_device_count, 1)
    if pid >= n:
        raise DistributedError(f"sg.distributed.initialize: process_id {pid} is not below num_processes {n}")
    if not isinstance(coordinator_address, str) or ":" not in coordinator_address:
        raise DistributedError(f"coordinator_address is 'host:port', got {coordinator_address!r}")
    if not timeout > 0:
        raise DistributedError(f"timeout is a number of seconds > 0, got {timeout!r}")
    with _lock:
        if _runtime is not None:
            raise DistributedError(
                f"sg.distributed is already initialized ({_runtime.where()}); call shutdown() first"
            )
        runtime = _Runtime(coordinator_address, n, pid, float(timeout))
        secs = max(1, math.ceil(timeout))
        try:
            if pid == 0:
                runtime.keeper, port = coordinator.start(coordinator_address, n, secs, _NEVER)
                runtime.keepalive = coordinator.keep_alive(coordinator_address, port, secs)
            client = runtime.client = pjrt.connect(
                coordinator_address, pid, secs, _NEVER, runtime.on_missed_heartbeat
            )
            if pid == 0:
                client.key_value_set(_KEEPALIVE, str(port))
            else:
                port = int(client.blocking_key_value_get(_KEEPALIVE, secs * 1000))
                runtime.keepalive = coordinator.keep_alive(coordinator_address, port, secs)
            cpu = runtime.cpu = pjrt.global_cpu_client(client, pid, n, local)
        except Exception as e:  # jaxlib's errors here are RuntimeErrors with little text
            keeper = runtime.keeper
            _stop(runtime)
            if keeper is not None:  # the group never formed: no member needs the service
                keeper.kill()
            raise DistributedError(
                f"sg.distributed.initialize: {n} processes did not all reach the coordinator within the "
                f"timeout ({runtime.where()}); is every process started, with the same address and "
                f"num_processes? ({type(e).__name__}: {_first_line(e)})"
            ) from None
        now = time.monotonic()
        runtime.answered = now
        runtime.seen = dict.fromkeys(range(n), now)
        runtime.start_watch()
        pjrt.use_global(cpu, runtime)
        _runtime = runtime


def shutdown() -> None:
    """Leave the group: disconnect (the service stops once every process has). Sessions on meshes
    that span processes cannot run after it. Waits up to the timeout for the peers to shut down
    too (not once the group is lost)."""
    global _runtime
    with _lock:
        runtime, _runtime = _runtime, None
        pjrt.use_global(None, None)
        if runtime is not None:
            _stop(runtime)


def _stop(runtime: _Runtime) -> None:
    runtime.stop_watch()
    if runtime.lost is None:  # else jaxlib's objects and the keep-alive stay as they are (see ``lose``)
        if runtime.client is not None:
            try:
                runtime.client.shutdown()  # waits for every peer's shutdown
            except Exception:  # a peer already gone: nothing left to tell it
                pass
        if runtime.keepalive is not None:
            runtime.keepalive.close()
    runtime.client = runtime.cpu = runtime.keepalive = runtime.keeper = None


@atexit.register
def _stop_watch_at_exit() -> None:
    # the watch thread must not be inside a jaxlib call when the interpreter tears threads down
    runtime = _runtime
    if runtime is not None:
        runtime.stop_watch()


def is_initialized() -> bool:
    return _runtime is not None


def process_index() -> int:
    """This process's index among those joined by ``initialize`` (0 without it)."""
    return 0 if _runtime is None else _runtime.process_id


def process_count() -> int:
    """How many processes ``initialize`` joined (1 without it)."""
    return 1 if _runtime is None else _runtime.num_processes


def from_process_zero(what: str, produce):
    """``produce()`` (a str) in process 0, handed to every process; its error is raised in
    every process. Without peers, just ``produce()``. The others wait up to the timeout, and
    fail early if process 0 falls silent."""
    runtime = _runtime
    if runtime is None or runtime.client is None:
        return produce()
    runtime.check()
    runtime.barriers += 1
    key = f"stablegraph/result/{runtime.barriers}"
    if runtime.process_id == 0:
        try:
            result = produce()
        except Exception as e:
            runtime.client.key_value_set(key, "!" + f"{type(e).__name__}: {_first_line(e)}")
            raise
        runtime.client.key_value_set(key, "=" + result)
        return result
    end = time.monotonic() + runtime.timeout
    while True:  # in slices of a blocking get, which answers as soon as process 0 sets the key
        try:
            answer = runtime.client.blocking_key_value_get(key, 500)
            break
        except Exception as e:  # not there yet (DEADLINE_EXCEEDED), or the coordinator is gone
            why = runtime.silent()
            if why is not None:
                raise DistributedError(f"{what}: process 0 did not report: {runtime._lose(why)}") from None
            if time.monotonic() > end:
                runtime.lose(f"process 0 did not finish {what}")
                raise DistributedError(
                    f"{what}: process 0 did not report within the timeout ({runtime.where()}): "
                    f"{_first_line(e)}"
                ) from None
    if answer.startswith("!"):
        raise DistributedError(f"{what} failed in process 0: {answer[1:]}")
    return answer[1:]


def _count(name: str, value, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise DistributedError(f"sg.distributed.initialize: {name} is an int >= {least}, got {value!r}")
    return value


def _first_line(error) -> str:
    return str(error).split("\n", 1)[0]
