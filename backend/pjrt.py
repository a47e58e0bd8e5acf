"""The only runtime glue to jaxlib: clients, device arrays, compile, execute (backend).

jaxlib's Python API is not stable between releases (the version is pinned
exactly in pyproject.toml); everything stablegraph needs from its runtime
goes through the small surface below, so an upgrade touches this file only.

Calls go through jaxlib's C++ dispatcher (``_jax.pjit``), the one jax.jit
uses: after a first call that runs in Python, numpy arguments of the same
types are copied in, executed and wrapped in C++, so a Session call costs
about what a jitted jax call costs. That dispatcher, and jaxlib's array
code, read a few process-wide states that jax normally installs (the x64
flag, disable_jit, a post hook); stablegraph installs its own only when jax
has not, and never changes jax's.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import NamedTuple

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # keep XLA's C++ info logs off the user's terminal

import numpy as np  # noqa: E402
from jaxlib import _jax  # noqa: E402
from jaxlib import xla_client as xc  # noqa: E402
from jaxlib._jax import config as _config  # noqa: E402
from jaxlib._jax import jax_jit as _jax_jit  # noqa: E402

# With the installed x64 flag on, 64-bit data stays 64-bit. stablegraph has no
# global x64 switch (each graph's dtypes decide), so its own flag is always on.
# If jax is loaded (jaxlib's output path imports it whenever it is installed),
# jax's flag is the installed one, off by default: 64-bit calls then turn it on
# thread-locally for their duration (see _x64_for), which jax code never sees.
if "jax._src.config" not in sys.modules:
    _jax_jit.set_enable_x64_state(_config.Config("stablegraph_x64", True))
    _jax_jit.set_disable_jit_state(_config.Config("stablegraph_disable_jit", False))
    _jax_jit.set_post_hook_state(_config.Config("stablegraph_post_hook", None, include_in_jit_key=False))

from . import kernels  # noqa: E402

XlaRuntimeError = xc.XlaRuntimeError
kernels.register()


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


class _x64_for:
    """Keep 64-bit data 64-bit while jax's x64 flag (if jax is loaded) is off.

    Turns jax's flag on for this thread only, for the duration of the block.
    """

    __slots__ = ("flag", "old")

    def __init__(self, wide: bool):
        config = sys.modules.get("jax._src.config") if wide else None
        self.flag = config.enable_x64 if config is not None else None

    def __enter__(self):
        if self.flag is not None:
            self.old = self.flag.swap_local(True)

    def __exit__(self, *exc):
        if self.flag is not None:
            self.flag.set_local(self.old)


class _FastPath(NamedTuple):
    """What jaxlib's C++ dispatcher needs to run a program without Python.

    The field names are the ones the dispatcher reads (jax's
    MeshExecutableFastpathData has the same).
    """

    xla_executable: object
    out_pytree_def: object
    in_shardings: list
    out_shardings: list
    out_avals: list
    out_committed: list
    kept_var_bitvec: list
    in_device_local_layouts: list
    const_args: list


_TREES = _jax.pytree.PyTreeRegistry()  # lists of outputs; our own, apart from jax's
_DISPATCH_CACHE = _jax.PjitFunctionCache(capacity=256)


def to_numpy(array) -> np.ndarray:
    """A device array as numpy. Arrays of ml_dtypes types (bfloat16, float8) have
    no buffer-protocol format, so they take jaxlib's explicit copy."""
    out = np.asarray(array)
    if out.dtype == object:  # without jax's __array__, custom dtypes come out boxed
        return array._single_device_array_to_np_array_did_copy()[0]
    return out


class Executable:
    """A compiled program for one device, called with numpy or device arrays of fixed types.

    The first call with arguments of the expected types runs in Python and
    hands jaxlib's C++ dispatcher what it needs; later calls stay in C++.
    The first ``n_host`` results come back as numpy arrays, the rest stay on
    the device (a Session's variables). Arguments the program donates (see
    ``compile``) are consumed by the call.
    """

    def __init__(self, loaded, device, arg_types, out_types, n_host=None):
        self._exe = loaded
        self._avals = [_aval(tuple(shape), np.dtype(dt)) for shape, dt in arg_types]
        out_avals = [_aval(tuple(shape), np.dtype(dt)) for shape, dt in out_types]
        self._n_host = len(out_avals) if n_host is None else n_host
        self._wide = any(a.dtype.itemsize >= 8 for a in self._avals + out_avals)
        self._sharding = sharding = _single(device)
        self._devices = [device]
        self._handlers = [_jax.array_result_handler(a, sharding, True, True) for a in out_avals]
        self._custom_dtypes = any(a.dtype.kind == "V" for a in out_avals)  # bfloat16, float8_*
        self._fast_path = _FastPath(
            xla_executable=loaded,
            out_pytree_def=_TREES.flatten([0] * len(out_avals))[1],
            in_shardings=[sharding] * len(self._avals),
            out_shardings=[sharding] * len(out_avals),
            out_avals=out_avals,
            out_committed=[True] * len(out_avals),
            kept_var_bitvec=[True] * len(self._avals),
            in_device_local_layouts=[None] * len(self._avals),
            const_args=[],
        )
        self._dispatch = _jax.pjit(
            "stablegraph", self._run_in_python, self._first_call, [], [], ("stablegraph",),
            _TREES, self._put_other, _DISPATCH_CACHE,
        )  # fmt: skip

    def __call__(self, values) -> list:
        """Run on ``values`` (raises XlaRuntimeError): numpy results, then device results."""
        if self._wide:
            with _x64_for(True):
                results = self._dispatch(*values)
        else:
            results = self._dispatch(*values)
        n = self._n_host
        if n == len(results):
            host = results
            kept = []
        else:
            host, kept = results[:n], results[n:]
        if self._custom_dtypes:
            return [to_numpy(r) for r in host] + kept
        return [np.asarray(r) for r in host] + kept

    def _run_in_python(self, *values) -> list:
        with _x64_for(self._wide):
            arrays = [
                v if type(v) is _jax.ArrayImpl
                else xc.batched_device_put(a, self._sharding, [v], self._devices, True, False)
                for a, v in zip(self._avals, values)
            ]  # fmt: skip
        return self._exe.execute_sharded(arrays).consume_with_handlers(self._handlers)

    def _first_call(self, *values):
        """The dispatcher's cache miss: run in Python; allow the C++ path for exact types."""
        outs = self._run_in_python(*values)
        exact = len(values) == len(self._avals) and all(
            type(v) in _EXACT_TYPES and _shape_dtype(v) == (a.shape, a.dtype)
            for v, a in zip(values, self._avals)
        )
        return outs, (self._fast_path if exact else None), False

    def _put_other(self, value, sharding, layout):
        """The dispatcher's fallback for arguments it cannot copy itself."""
        return put(value, self._devices[0])

    def cost_analysis(self) -> dict:
        return dict(self._exe.cost_analysis())

    def memory_analysis(self) -> dict:
        stats = self._exe.get_compiled_memory_stats()
        names = ("argument_size_in_bytes", "output_size_in_bytes", "temp_size_in_bytes",
                 "alias_size_in_bytes", "generated_code_size_in_bytes")  # fmt: skip
        return {n: getattr(stats, n) for n in names}

    def hlo_text(self) -> str:
        return self._exe.hlo_modules()[0].to_string()


_EXACT_TYPES = (np.ndarray, _jax.ArrayImpl)


def _shape_dtype(value) -> tuple:
    """A numpy or device array's (shape, dtype); without jax, device arrays keep them on ``aval``."""
    if type(value) is _jax.ArrayImpl:
        value = value.aval
    return tuple(value.shape), value.dtype


def compile(mlir_text: str, devices, arg_types=(), out_types=(), n_host=None) -> Executable:
    """Compile StableHLO text for ``devices``; ``arg_types`` and ``out_types`` list the
    (shape, numpy dtype) of its arguments and results, of which the first ``n_host``
    come back as numpy (all by default). Arguments marked ``tf.aliasing_output`` in
    the text are donated to that result. Raises XlaRuntimeError."""
    client = devices[0].client
    options = xc.CompileOptions()
    loaded = client.compile_and_load(mlir_text, list(devices), options)
    return Executable(loaded, devices[0], arg_types, out_types, n_host)


def put(value: np.ndarray, device):
    """A numpy array copied to ``device`` (a device array a program can take or donate)."""
    arr = np.asarray(value)
    with _x64_for(arr.dtype.itemsize >= 8):
        return xc.batched_device_put(
            _aval(arr.shape, arr.dtype), _single(device), [arr], [device], True, False
        )


def is_device_array(value) -> bool:
    return type(value) is _jax.ArrayImpl


def is_deleted(array) -> bool:
    """Whether a device array's buffer is gone: deleted, or donated to a program."""
    return type(array) is _jax.ArrayImpl and array.is_deleted()


def copy(array):
    """A new device array with ``array``'s value on its device (through the host: a rare path)."""
    return put(to_numpy(array), array._sharding._device)
