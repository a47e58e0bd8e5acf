"""XLA's CPU matrix kernels made ready in the background when a process's first CPU Session opens (backend).

XLA:CPU hands a float32 matrix product with a transposed operand (every
dense layer's gradient has one) to oneDNN, and oneDNN generates all its
GEMM kernels at the first such product of the process, behind one
``std::call_once``: about 25 ms in which that first run stands still
(measured on jaxlib 0.10.2; jax's first step pays it too). A fresh
process's first training step spends it after planning, loading its
executable and initializing its variables, when nothing else is left to do.

So the first Session that opens on a CPU device starts a daemon thread that
loads or compiles a 64x64 program with such a product and runs it once, while
the Session's own work goes on: loading an executable releases the GIL, and
so does running one. Its executable is kept in the persistent cache as a
``.sgwarm`` entry (not among the programs' ``.sgx``: no Session ran it). The
thread shares nothing with Sessions but the PJRT client, which is
thread-safe; whatever fails in it is dropped (the first real run then pays
the 25 ms itself). Processes spread over several hosts skip it (their client
belongs to the distributed runtime). benchmarks/first_result.py: about 20 ms
less per fresh process.
"""

from __future__ import annotations

import atexit
import threading

import numpy as np

from . import pjrt
from .program import compile_text

SIZE = 64
# a transposed float32 product: the shape of call that makes oneDNN generate its kernels
TEXT = f"""module @warm_matrix_kernels {{
  func.func public @main(%a: tensor<{SIZE}x{SIZE}xf32>) -> tensor<{SIZE}x{SIZE}xf32> {{
    %0 = stablehlo.dot_general %a, %a, contracting_dims = [0] x [0] : (tensor<{SIZE}x{SIZE}xf32>, tensor<{SIZE}x{SIZE}xf32>) -> tensor<{SIZE}x{SIZE}xf32>
    return %0 : tensor<{SIZE}x{SIZE}xf32>
  }}
}}"""
_TYPES = [((SIZE, SIZE), np.dtype(np.float32))]
SUFFIX = ".sgwarm"

_lock = threading.Lock()
_thread: threading.Thread | None = None


def start(devices, multiprocess: bool) -> None:
    """Start the warm-up once per process, for a Session on ``devices`` if they are CPU devices of
    this process alone; later calls do nothing."""
    global _thread
    if _thread is not None or multiprocess or devices[0].platform != "cpu":
        return
    with _lock:
        if _thread is None:
            _thread = threading.Thread(
                target=_warm, args=(devices[0],), name="stablegraph-warmup", daemon=True
            )
            _thread.start()


def _warm(device) -> None:
    try:
        _executable([device])([np.ones((SIZE, SIZE), np.float32)])
    except Exception:  # noqa: BLE001, S110  (best effort: the first real run pays the cost instead)
        pass


def _executable(devices) -> pjrt.Executable:
    """The warm-up program (compile_text: shared in the process, or its ``.sgwarm`` disk entry, or compiled)."""
    return compile_text(TEXT, devices, (), _TYPES, _TYPES, disk=True, suffix=SUFFIX)[0]


@atexit.register
def _wait_at_exit() -> None:
    """A daemon thread coming back from C++ while the interpreter is torn down aborts the process:
    wait for it (it ends within tens of milliseconds)."""
    if _thread is not None:
        _thread.join()
