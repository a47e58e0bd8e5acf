"""Many processes, one program: ``sg.distributed`` joins this process to its peers (backend).

``initialize`` connects every process to a coordination service (process 0
runs it, at ``coordinator_address``) and makes a CPU client whose devices
are every process's (``local_device_count`` each, gloo TCP collectives
between them); ``sg.devices()`` and ``sg.make_mesh`` then list the global
devices in process order, so a mesh spans processes. Every process then
builds the same graph and makes the same ``sess.run`` calls (SPMD across
processes): a feed split over such a mesh is each process's block of the
global value, a replicated feed is the whole value in every process.

Joining is checked: a peer that never arrives is a DistributedError after
``timeout``. A peer that dies after joining is not recoverable with jaxlib
0.10.2: its coordination service then terminates the surviving processes
(measured: they abort within the heartbeat timeout, as jax's own processes
do), so they never hang. The missed-heartbeat callback records what it can
for a run that fails before that.
"""

from __future__ import annotations

import math
import threading

from ..graph import ExecutionError
from . import pjrt


class DistributedError(ExecutionError):
    """Processes could not join, or a peer was lost: names the coordinator and the timeout."""


class _Runtime:
    """This process's membership: the service (process 0), the client, what went wrong."""

    def __init__(self, coordinator: str, num_processes: int, process_id: int, timeout: float):
        self.coordinator, self.num_processes, self.process_id = coordinator, num_processes, process_id
        self.timeout = timeout
        self.service = self.client = None
        self.lost: str | None = None  # why the peers are gone (a missed heartbeat), once known
        self.barriers = 0

    def on_missed_heartbeat(self, status) -> None:  # on jaxlib's thread: record, never raise
        self.lost = f"the coordination service stopped answering heartbeats ({status})"

    def where(self) -> str:
        return (
            f"process {self.process_id} of {self.num_processes}, coordinator {self.coordinator}, "
            f"timeout {self.timeout:g} s"
        )

    def check(self) -> None:
        """DistributedError if a peer or the coordinator was lost (before a run that needs them)."""
        if self.lost is not None:
            raise DistributedError(
                f"a peer process or the coordinator is gone ({self.where()}): {self.lost}; "
                "restart every process (sg.distributed.shutdown, then initialize)"
            )

    def failed(self, error) -> DistributedError:
        """The error of a run over the processes that failed with ``error``."""
        self.lost = self.lost or f"a run over the processes failed: {_first_line(error)}"
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
    ``coordinator_address`` ("host:port"; process 0 serves it). Waits up to ``timeout`` seconds
    for every process, else raises DistributedError. ``local_device_count`` CPU devices per
    process (default 1). After it, ``sg.devices()`` lists every process's devices."""
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
                runtime.service = pjrt.start_service(coordinator_address, n, secs, secs)
            runtime.client = pjrt.connect(coordinator_address, pid, secs, secs, runtime.on_missed_heartbeat)
            cpu = pjrt.global_cpu_client(runtime.client, pid, n, local)
        except Exception as e:  # jaxlib's errors here are RuntimeErrors with little text
            _stop(runtime)
            raise DistributedError(
                f"sg.distributed.initialize: {n} processes did not all reach the coordinator within the "
                f"timeout ({runtime.where()}); is every process started, with the same address and "
                f"num_processes? ({type(e).__name__}: {_first_line(e)})"
            ) from None
        pjrt.use_global(cpu, runtime)
        _runtime = runtime


def shutdown() -> None:
    """Leave the group: disconnect, and stop the service (process 0). Sessions on meshes that span
    processes cannot run after it. Waits up to the timeout for the peers to shut down too."""
    global _runtime
    with _lock:
        runtime, _runtime = _runtime, None
        pjrt.use_global(None, None)
        if runtime is not None:
            _stop(runtime)


def _stop(runtime: _Runtime) -> None:
    for part in (runtime.client, runtime.service):
        if part is not None:
            try:
                part.shutdown()
            except Exception:  # a peer already gone: nothing left to tell it
                pass
    runtime.client = runtime.service = None


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
    every process. Without peers, just ``produce()``."""
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
    try:
        answer = runtime.client.blocking_key_value_get(key, int(runtime.timeout * 1000))
    except Exception as e:
        runtime.lost = runtime.lost or f"process 0 did not finish {what}"
        raise DistributedError(
            f"{what}: process 0 did not report within the timeout ({runtime.where()}): {_first_line(e)}"
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
