"""The coordination service in a process of its own, which outlives any one member (backend).

jaxlib 0.10.2 aborts every process whose coordination service goes away, so
the service must not die with process 0. ``sg.distributed.initialize`` in
process 0 starts this module as a child in a session of its own (``start``);
the child serves jaxlib's coordination service at the coordinator address,
and every member process holds a TCP connection to it (its keep-alive) for
as long as it lives. The service stops once every member has connected and
every connection has closed, that is once each member shut down or exited;
a member that dies, process 0 included, leaves it running for the others,
whose liveness watch then reports the loss (backend/distributed.py).

Run as ``python -m stablegraph.backend.coordinator ADDRESS PROCESSES TIMEOUT HEARTBEAT``:
it prints one line, ``keepalive PORT`` once serving, or ``error MESSAGE``.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loaded where a connection is made: a single-process program never needs it
    import socket


def serve(address: str, num_processes: int, timeout: int, heartbeat: int) -> int:
    import socket  # noqa: PLC0415

    from . import pjrt  # noqa: PLC0415  (the parent's start() need not load jaxlib for this)

    try:
        service = pjrt.start_service(address, num_processes, timeout, heartbeat)
        host = host_of(address)
        listener = socket.create_server((host, 0), family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    except Exception as e:  # the port is taken, the host unknown: say so to process 0
        _say(f"error {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        return 1
    _say(f"keepalive {listener.getsockname()[1]}")
    sys.stdout.close()  # process 0 reads no more; it may be gone before this process is
    _keep_serving(listener, num_processes, timeout)
    service.shutdown()
    return 0


def _keep_serving(listener: socket.socket, num_processes: int, timeout: int) -> None:
    """Return once every member connected and all closed again; or once no member has held a
    connection for a while (one died before connecting, or process 0 gave up joining)."""
    members: set[socket.socket] = set()
    joined = 0
    idle_since = time.monotonic()
    grace = 2 * timeout + 10
    while True:
        ready, _, _ = select.select([listener, *members], [], [], 1.0)
        for s in ready:
            if s is listener:
                conn, _ = listener.accept()
                members.add(conn)
                joined += 1
            elif not _still_open(s):
                members.discard(s)
                s.close()
                if not members:
                    idle_since = time.monotonic()
        if not members and (joined >= num_processes or time.monotonic() - idle_since > grace):
            return


def _still_open(conn: socket.socket) -> bool:
    try:
        return bool(conn.recv(64))
    except OSError:
        return False


def _say(line: str) -> None:
    print(line, flush=True)


def host_of(address: str) -> str:
    """The host part of "host:port" ("[::1]:80" -> "::1")."""
    return address.rsplit(":", 1)[0].strip("[]")


def start(address: str, num_processes: int, timeout: int, heartbeat: int) -> tuple[subprocess.Popen, int]:
    """Start the service's process; (the process, its keep-alive port) once it serves. Raises
    RuntimeError with its message if it could not start within ``timeout`` seconds (+ startup)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "stablegraph.backend.coordinator", address, str(num_processes),
         str(timeout), str(heartbeat)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        start_new_session=True, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    ready, _, _ = select.select([proc.stdout], [], [], timeout + 30)
    line = proc.stdout.readline().strip() if ready else ""
    proc.stdout.close()
    if line.startswith("keepalive "):
        return proc, int(line.split()[1])
    proc.kill()
    raise RuntimeError(line.removeprefix("error ") or "the coordination service's process did not start")


def keep_alive(address: str, port: int, timeout: float) -> socket.socket:
    """This member's connection to the service's process: open for as long as the process lives."""
    import socket  # noqa: PLC0415

    return socket.create_connection((host_of(address), port), timeout=timeout)


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])))
