"""The only runtime glue to jaxlib: clients, device arrays, compile, execute (backend).

jaxlib's Python API is not stable between releases (the version is pinned
exactly in pyproject.toml); everything stablegraph needs from its runtime
goes through the small surface below, so an upgrade touches this package only.
Its modules, each with one job: ``flags`` (the process-wide states jaxlib's
dispatcher reads), ``clients`` (PJRT clients, devices, custom-call kernels,
several processes), ``arrays`` (device arrays, shardings, numpy in and out)
and ``executables`` (compile, and calls through the C++ dispatcher).

Calls go through jaxlib's C++ dispatcher (``_jax.pjit``), the one jax.jit
uses: after a first call that runs in Python, numpy arguments of the same
types are copied in, executed and wrapped in C++, so a Session call costs
about what a jitted jax call costs.
"""

from __future__ import annotations

from . import flags  # noqa: F401  (first: installs the states the others' jaxlib calls read)
from .arrays import (
    copy,
    holds_whole,
    is_deleted,
    is_device_array,
    placed,
    put,
    sharding_of,
    tiled,
    tiling_of,
    to_numpy,
    type_of,
)  # fmt: skip
from .clients import (
    DEFAULT_PLATFORM,
    GPU_PLATFORMS,
    MAX_CPU_DEVICES,
    client,
    connect,
    default_devices,
    devices,
    global_cpu_client,
    spans_processes,
    start_service,
    use_global,
)  # fmt: skip
from .executables import ArgumentMismatch, Executable, XlaRuntimeError, compile

__all__ = [
    "DEFAULT_PLATFORM", "GPU_PLATFORMS", "MAX_CPU_DEVICES", "ArgumentMismatch", "Executable",
    "XlaRuntimeError", "client", "compile", "connect", "copy", "default_devices", "devices",
    "global_cpu_client", "holds_whole", "is_deleted", "is_device_array", "placed", "put",
    "sharding_of", "spans_processes", "start_service", "tiled", "tiling_of", "to_numpy", "type_of",
    "use_global",
]  # fmt: skip
