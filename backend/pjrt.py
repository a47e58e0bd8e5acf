"""The only runtime glue to jaxlib: clients, device arrays, compile, execute (backend).

jaxlib's Python API is not stable between releases (the version is pinned
exactly in pyproject.toml); everything stablegraph needs from its runtime
goes through the small surface below, so an upgrade touches this file only.
Without jax, jaxlib's array code needs the x64 flag set once and a sharding
object with the Python-side methods jax normally adds; both are here.
"""

from __future__ import annotations

import functools
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # keep XLA's C++ info logs off the user's terminal

import numpy as np  # noqa: E402
from jaxlib import _jax  # noqa: E402
from jaxlib import xla_client as xc  # noqa: E402
from jaxlib._jax import config as _config  # noqa: E402
from jaxlib._jax import jax_jit as _jax_jit  # noqa: E402

# jaxlib's array code reads one installed x64 flag; with it on, 64-bit data stays
# 64-bit. stablegraph has no global x64 switch (each graph's dtypes decide), so
# it installs a flag that is always on. jax, if the user imports it too,
# installs its own flag (off by default); puts of 64-bit data then swap ours in
# for the call and give jax its flag back, so neither library changes the other.
_X64_ON = _config.Config("stablegraph_x64", True)
_jax_jit.set_enable_x64_state(_X64_ON)

XlaRuntimeError = xc.XlaRuntimeError


@functools.cache
def cpu_client(num_devices: int = 1):
    """A PJRT CPU client with ``num_devices`` devices (cached per count)."""
    return xc.make_cpu_client(num_devices=num_devices)


def cpu_devices(num_devices: int = 1) -> list:
    return list(cpu_client(num_devices).devices())


class _Aval:
    """The (shape, dtype) record batched_device_put expects from jax."""

    __slots__ = ("shape", "dtype", "weak_type", "ndim")

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.weak_type = tuple(shape), np.dtype(dtype), False
        self.ndim = len(self.shape)


@functools.cache
def _aval(shape, dtype) -> _Aval:
    return _Aval(shape, dtype)


_REPLICATED = xc.HloSharding.replicate()


class _SingleDevice(xc.SingleDeviceSharding):
    """A single-device sharding with the few Python-side members jaxlib reads.

    The device list and device come from the C++ base class; only what jax
    would add in Python is supplied here, as class attributes where possible
    because device_put reads them on every call.
    """

    memory_kind = None
    is_fully_addressable = True
    num_devices = 1

    def _to_xla_hlo_sharding(self, ndim):
        return _REPLICATED

    def is_fully_replicated(self):
        return True

    @property
    def device_set(self):
        return {self._device}

    @property
    def _device_assignment(self):
        return (self._device,)


@functools.cache
def _single(device) -> _SingleDevice:
    return _SingleDevice(device)


def put(value: np.ndarray, device):
    """Copy a numpy array onto ``device`` as a device array (64-bit data stays 64-bit)."""
    with _x64_for(value.dtype.itemsize >= 8):
        return xc.batched_device_put(
            _aval(value.shape, value.dtype), _single(device), [value], [device], True, False
        )


class _x64_for:
    """Lend stablegraph's x64 flag to jaxlib while 64-bit data is put on a device.

    jaxlib's output path imports jax when it is installed, and jax installs
    its own x64 flag (off by default, which would turn float64 into float32).
    """

    __slots__ = ("jax_config",)

    def __init__(self, wide: bool):
        self.jax_config = sys.modules.get("jax._src.config") if wide else None

    def __enter__(self):
        if self.jax_config is not None:
            _jax_jit.set_enable_x64_state(_X64_ON)

    def __exit__(self, *exc):
        if self.jax_config is not None:
            _jax_jit.set_enable_x64_state(self.jax_config.enable_x64)


def to_numpy(array) -> np.ndarray:
    return np.asarray(array)


class Executable:
    """A compiled program for one device, called with numpy arrays of fixed types."""

    def __init__(self, loaded, device, arg_types, out_types):
        self._exe = loaded
        self._avals = [_aval(tuple(shape), np.dtype(dt)) for shape, dt in arg_types]
        self._wide = any(a.dtype.itemsize >= 8 for a in self._avals)
        self._sharding = _single(device)
        self._devices = [device]
        # One result handler per output, made once: turning results into arrays
        # then skips the per-call sharding lookup.
        self._handlers = [
            _jax.array_result_handler(_aval(tuple(shape), np.dtype(dt)), self._sharding, True, True)
            for shape, dt in out_types
        ]

    def __call__(self, values) -> list[np.ndarray]:
        """Copy ``values`` in, run, and copy every result out (raises XlaRuntimeError)."""
        put, sharding, devices = xc.batched_device_put, self._sharding, self._devices
        if self._wide:
            with _x64_for(True):
                arrays = [put(a, sharding, [v], devices, True, False) for a, v in zip(self._avals, values)]
        else:
            arrays = [put(a, sharding, [v], devices, True, False) for a, v in zip(self._avals, values)]
        results = self._exe.execute_sharded(arrays).consume_with_handlers(self._handlers)
        return [np.asarray(r) for r in results]

    def cost_analysis(self) -> dict:
        return dict(self._exe.cost_analysis())

    def memory_analysis(self) -> dict:
        stats = self._exe.get_compiled_memory_stats()
        names = ("argument_size_in_bytes", "output_size_in_bytes", "temp_size_in_bytes",
                 "alias_size_in_bytes", "generated_code_size_in_bytes")  # fmt: skip
        return {n: getattr(stats, n) for n in names}

    def hlo_text(self) -> str:
        return self._exe.hlo_modules()[0].to_string()


def compile(mlir_text: str, devices, arg_types=(), out_types=()) -> Executable:
    """Compile StableHLO text for ``devices``; ``arg_types`` and ``out_types`` list the
    (shape, numpy dtype) of its arguments and results (raises XlaRuntimeError)."""
    client = devices[0].client
    options = xc.CompileOptions()
    loaded = client.compile_and_load(mlir_text, list(devices), options)
    return Executable(loaded, devices[0], arg_types, out_types)
