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

from jaxlib.cpu import _lapack  # noqa: E402

from ..graph import GraphError  # noqa: E402
from ..ops.primitives import hlo  # noqa: E402  (the MLIR context a module with callbacks is parsed in)
from .placement import Tiling, assemble, assemble_local, local_slices, slices  # noqa: E402

XlaRuntimeError = xc.XlaRuntimeError


@functools.cache
def _register_lapack_kernels() -> None:
    """Register jaxlib's CPU LAPACK kernels as XLA custom-call targets, once, before the first
    program that calls one is compiled or loaded (``_needs_kernels``).

    Lowering rules in ops/ emit custom calls by target name (ops/primitives/lapack.py);
    XLA finds the kernels only once they are registered. jaxlib's
    ``cpu._lapack`` lists them as ``{target name: capsule}``; the ``*_ffi``
    ones use XLA's typed FFI (api_version 1), the others the original
    custom-call ABI (0). ``initialize()`` binds them to the LAPACK routines of
    scipy's bundled OpenBLAS. jax registers the same names when jax.lax.linalg
    is imported; registering a name twice is harmless. Not at import: ``initialize`` imports
    scipy.linalg, about half a second of every fresh process that never factors a matrix.
    """
    _lapack.initialize()
    for name, capsule in _lapack.registrations().items():
        api_version = 1 if name.endswith("_ffi") else 0
        xc.register_custom_call_target(name, capsule, platform="cpu", api_version=api_version)


def _needs_kernels(mlir_text: str) -> None:
    """Register the LAPACK kernels if the program calls one (ops/primitives/lapack.py's targets)."""
    if "lapack_" in mlir_text:
        _register_lapack_kernels()


GPU_PLATFORMS = ("gpu", "cuda")
# Where a Session without a mesh, sg.devices() and sg.make_mesh run: CPU unless the environment says
# otherwise (STABLEGRAPH_PLATFORM=gpu on a GPU machine, read once at import, like JAX_PLATFORMS).
DEFAULT_PLATFORM = os.environ.get("STABLEGRAPH_PLATFORM", "cpu").strip().lower() or "cpu"


@functools.cache
def client(platform: str = DEFAULT_PLATFORM, num_devices: int = 1):
    """The PJRT client of ``platform`` (cached). Every client is made here, so another kind
    (a distributed one) plugs in at this one place. On CPU, ``num_devices`` devices."""
    if platform in GPU_PLATFORMS:
        return _cuda_client()
    if platform != "cpu":
        raise GraphError(
            f"sg.devices: no platform {platform!r} (from the argument or STABLEGRAPH_PLATFORM); "
            "the platforms are 'cpu' and 'gpu'"
        )
    if num_devices > MAX_CPU_DEVICES:  # each is a thread pool and buffers: far more brings the process down
        raise GraphError(f"sg.devices: at most {MAX_CPU_DEVICES} CPU devices, {num_devices} asked for")
    # Programs run inline on the calling thread (a program over several devices still runs on
    # the client's threads): a run waits for its fetches anyway, and handing each run to a pool
    # thread and waking the caller after costs more than a small step's compute on a busy
    # machine (docs/ARCHITECTURE.md, "Per-run cost").
    return xc.make_cpu_client(asynchronous=False, num_devices=num_devices)


MAX_CPU_DEVICES = 1024

# The CUDA PJRT plugins `pip install stablegraph[cuda13]` / `[cuda12]` bring, newest first, with the
# CUDA libraries each loads: (package under nvidia/, file), in an order whose dependencies come first.
CUDA_LIBRARIES = {
    "jax_plugins.xla_cuda13": (
        ("cu13", "libcudart.so.13"), ("cu13", "libnvrtc.so.13"), ("cu13", "libnvJitLink.so.13"),
        ("cu13", "libcublasLt.so.13"), ("cu13", "libcublas.so.13"), ("cu13", "libcusparse.so.12"),
        ("cu13", "libcusolver.so.12"), ("cu13", "libcufft.so.12"), ("cu13", "libcupti.so.13"),
        ("nccl", "libnccl.so.2"), ("cudnn", "libcudnn.so.9"),
    ),
    "jax_plugins.xla_cuda12": (
        ("cuda_runtime", "libcudart.so.12"), ("cuda_nvrtc", "libnvrtc.so.12"),
        ("nvjitlink", "libnvJitLink.so.12"), ("cublas", "libcublasLt.so.12"), ("cublas", "libcublas.so.12"),
        ("cusparse", "libcusparse.so.12"), ("cusolver", "libcusolver.so.11"), ("cufft", "libcufft.so.11"),
        ("cuda_cupti", "libcupti.so.12"), ("nccl", "libnccl.so.2"), ("cudnn", "libcudnn.so.9"),
    ),
}  # fmt: skip
CUDA_KERNELS = {"jax_plugins.xla_cuda13": "jax_cuda13_plugin", "jax_plugins.xla_cuda12": "jax_cuda12_plugin"}


def _cuda_client():
    """A client of the CUDA PJRT plugin (jax-cuda13-pjrt or jax-cuda12-pjrt at jaxlib's version),
    loaded from its shared library without importing jax. GraphError when it is missing or finds
    no GPU. If jax is loaded, its CUDA client is shared: a process has one CUDA plugin, and the
    one of jax and stablegraph that starts it second could not register it again."""
    found = _installed_cuda_plugin()
    shared = _jax_cuda_client()
    if shared is not None:
        if found is not None:  # jax registered the plugin's custom-call handler
            _register_cusolver_kernels(CUDA_KERNELS[found[0].name], None)
        return shared
    if found is None:
        raise GraphError(
            "sg.devices(platform='gpu'): no CUDA plugin is installed; on a machine with an NVIDIA GPU, "
            "pip install 'stablegraph[cuda13]' (or [cuda12] for CUDA 12 drivers): jax-cuda13-pjrt at jaxlib's version"
        )
    spec, libraries = found
    _load_cuda_libraries(libraries)
    library = os.path.join(os.path.dirname(spec.origin), "xla_cuda_plugin.so")
    try:
        c_api = None
        if not xc.pjrt_plugin_loaded("cuda"):
            c_api = xc.load_pjrt_plugin_dynamically("cuda", library)
        if not xc.pjrt_plugin_initialized("cuda"):
            xc.initialize_pjrt_plugin("cuda")
        cuda = xc.make_c_api_client("cuda", xc.generate_pjrt_gpu_plugin_options(), None)
    except Exception as e:  # jaxlib reports a missing driver or device as a bare runtime error
        first = str(e).split("\n", 1)[0]
        raise GraphError(
            f"sg.devices(platform='gpu'): the CUDA plugin found no usable GPU ({first})"
        ) from None
    _register_cusolver_kernels(CUDA_KERNELS[spec.name], c_api)
    return cuda


def _register_cusolver_kernels(package: str, c_api) -> None:
    """Register the cuSOLVER kernels of jaxlib's CUDA kernel package (jax-cuda13-plugin) as XLA
    custom-call targets for CUDA, as ``_register_lapack_kernels`` does LAPACK's on the CPU;
    ``c_api`` (the plugin this module loaded, or None when jax did) takes the registrations.
    Without that package the GPU factorizations fail to compile, naming
    the missing target."""
    import importlib  # noqa: PLC0415

    try:
        extension = importlib.import_module(f"{package}.cuda_plugin_extension")
        solver = importlib.import_module(f"{package}._solver")
    except ImportError:
        return
    if c_api is not None:
        xc.register_custom_call_handler(
            "CUDA", functools.partial(extension.register_custom_call_target, c_api)
        )
        xc.register_custom_type_handler("CUDA", functools.partial(extension.register_custom_type, c_api))
    for name, capsule in solver.registrations().items():
        try:
            xc.register_custom_call_target(
                name, capsule, platform="CUDA", api_version=1 if name.endswith("_ffi") else 0
            )
        except Exception:  # jax registered it already
            continue
    _register_gpu_callbacks(extension)


def _register_gpu_callbacks(extension) -> None:
    """The plugin's FFI handlers (the Python callback ``xla_ffi_python_gpu_callback`` and its
    variants) and FFI types (its transpose plan cache: without it a callback program fails to
    compile, "Type id ... is not registered"), which sg.debug.print and sg.pure_callback need."""
    for name, value in getattr(extension, "ffi_types", dict)().items():
        try:
            xc.register_custom_type(name, value, platform="CUDA")
        except Exception:  # jax registered it already
            continue
    for name, handler in getattr(extension, "ffi_handlers", dict)().items():
        try:
            xc.register_custom_call_target(name, handler, platform="CUDA", api_version=1)
        except Exception:  # jax registered it already
            continue


def _jax_cuda_client():
    """jax's CUDA client when jax is loaded and has one (started now if it was not yet), else None."""
    bridge = sys.modules.get("jax._src.xla_bridge")
    if bridge is None:
        return None
    try:
        return bridge.get_backend("cuda")
    except RuntimeError:  # jax has no CUDA plugin, or found no GPU: stablegraph looks for itself
        return None


def _installed_cuda_plugin():
    """(module spec, CUDA libraries) of the first CUDA plugin installed, or None."""
    for package, libraries in CUDA_LIBRARIES.items():
        spec = _find_spec(package)
        if spec is not None and spec.origin is not None:
            return spec, libraries
    return None


def _find_spec(name: str):
    import importlib.util  # noqa: PLC0415  (only GPU users pay for it)

    try:
        return importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return None


def _load_cuda_libraries(libraries) -> None:
    """Load the CUDA libraries pip put under site-packages/nvidia/, so that the plugin, which looks
    them up by name, finds these copies. One that is absent is left to the system's search path
    (a CUDA toolkit installed outside Python)."""
    import ctypes  # noqa: PLC0415

    for package, filename in libraries:
        spec = _find_spec(f"nvidia.{package}")
        if spec is None or not spec.submodule_search_locations:
            continue
        path = os.path.join(list(spec.submodule_search_locations)[0], "lib", filename)
        try:
            ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError:  # absent or unloadable: the plugin's own lookup says what is wrong, if anything
            continue


def default_devices(n: int = 1) -> list:
    """``n`` devices of this process's default platform (a Session without a mesh runs on the first)."""
    found = list(client(DEFAULT_PLATFORM, n).devices())
    if len(found) < n:
        raise GraphError(f"sg.Session: {DEFAULT_PLATFORM} has {len(found)} devices, {n} asked for")
    return found[:n]


def devices(n: int | None = None, platform: str | None = None) -> list:
    """``n`` devices of ``platform`` (the default one); on CPU a client with ``n`` devices, or
    after ``sg.distributed.initialize`` the global devices of every process, in process order."""
    platform = platform or DEFAULT_PLATFORM
    if _multi.client is not None and platform == "cpu":
        found = sorted(_multi.client.devices(), key=lambda d: (d.process_index, d.id))
    else:
        found = list(client(platform, n or 1).devices())
    if n is not None and len(found) < n:
        raise GraphError(f"sg.devices: {platform} has {len(found)} devices, {n} asked for")
    return found[:n] if n else found


# -- several processes (distributed.py drives these) ----------------------------------------------
class _Multi:
    """The distributed CPU client once this process joined others, and the runtime watching them
    (``check()`` raises if a peer was lost; ``wait_ready(results)`` waits for a run's results,
    raising once a peer is silent; ``failed(error)`` is the error a failed run raises)."""

    client = None
    runtime = None


_multi = _Multi()


def start_service(address: str, num_processes: int, timeout: int, heartbeat: int):
    """The coordination service (process 0 runs it); raises XlaRuntimeError if it cannot start."""
    return _jax.get_distributed_runtime_service(
        address, num_processes, heartbeat_timeout=heartbeat, cluster_register_timeout=timeout
    )


def connect(address: str, process_id: int, timeout: int, heartbeat: int, on_missed_heartbeat):
    """A client of the service, connected (waits for every process, up to ``timeout`` s).

    On a missed heartbeat jaxlib 0.10.2 aborts the process, with or without the callback
    ``on_missed_heartbeat(status)`` (it cannot hand the status to Python): distributed.py
    gives a ``heartbeat`` it never reaches and watches the peers itself."""
    dist = _jax.get_distributed_runtime_client(
        address, process_id, init_timeout=timeout, heartbeat_timeout=heartbeat, rpc_timeout=timeout,
        missed_heartbeat_callback=on_missed_heartbeat, shutdown_on_destruction=False,
    )  # fmt: skip
    dist.connect()
    return dist


def global_cpu_client(dist, process_id: int, num_processes: int, local_devices: int):
    """A CPU client whose devices are every process's, with gloo TCP collectives between them."""
    collectives = _jax.make_gloo_tcp_collectives(distributed_client=dist)
    return xc.make_cpu_client(
        distributed_client=dist, node_id=process_id, num_nodes=num_processes,
        collectives=collectives, num_devices=local_devices,
    )  # fmt: skip


def use_global(cpu_client, runtime) -> None:
    """Make ``cpu_client`` what ``devices()`` lists (None: back to this process's own)."""
    _multi.client, _multi.runtime = cpu_client, runtime


def spans_processes(devices) -> bool:
    """Whether some of ``devices`` belong to another process."""
    me = devices[0].client.process_index()
    return any(d.process_index != me for d in devices)


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


class _Tiled(xc.GSPMDSharding):
    """A sharding over several devices (an XLA tiling) with the Python-side members jaxlib reads."""

    memory_kind = None
    is_fully_addressable = True

    def __init__(self, devices: tuple, hlo, tile: Tiling):
        super().__init__(xc.DeviceList(devices), hlo)
        self.devices = list(devices)
        self.tile = tile
        self.replicated = hlo.is_replicated()

    def _to_xla_hlo_sharding(self, ndim):
        return self._hlo_sharding

    def is_fully_replicated(self):
        return self.replicated

    @property
    def device_set(self):
        return set(self.devices)

    @property
    def _device_assignment(self):
        return tuple(self.devices)


class _GlobalTiled(_Tiled):
    """A sharding over devices of several processes; this one holds the pieces of its devices
    at positions ``local``."""

    is_fully_addressable = False

    def __init__(self, devices: tuple, hlo, tile: Tiling, local: tuple):
        super().__init__(devices, hlo, tile)
        self.local = local
        self.local_devices = [devices[i] for i in local]


@functools.cache
def tiled(devices: tuple, tile: Tiling) -> _Tiled:
    """The sharding of a value split by ``tile`` over ``devices`` (logical id i = devices[i])."""
    if all(d == 1 for d in tile.dims[: len(tile.dims) - tile.extra]):
        hlo = _REPLICATED
    else:
        op = xc.OpSharding()
        op.type = xc.OpSharding.Type.OTHER
        op.tile_assignment_dimensions = list(tile.dims)
        op.tile_assignment_devices = list(tile.devices)
        op.replicate_on_last_tile_dim = tile.extra == 1
        hlo = xc.HloSharding.from_proto(op)
    if spans_processes(devices):
        me = devices[0].client.process_index()
        return _GlobalTiled(
            devices, hlo, tile, tuple(i for i, d in enumerate(devices) if d.process_index == me)
        )
    return _Tiled(devices, hlo, tile)


def tiling_of(hlo, rank: int, n_devices: int) -> Tiling:
    """An XLA sharding (HloSharding or OpSharding) as a Tiling of a value of ``rank``."""
    if not isinstance(hlo, xc.HloSharding):
        hlo = xc.HloSharding.from_proto(hlo)
    if hlo.is_replicated() or n_devices == 1:
        extra = 1 if n_devices > 1 else 0
        return Tiling((1,) * rank + (n_devices,) * extra, tuple(range(n_devices)), extra)
    dims = tuple(hlo.tile_assignment_dimensions())
    extra = len(hlo.subgroup_types()) or (1 if hlo.replicate_on_last_tile_dim() else 0)
    return Tiling(dims, tuple(hlo.tile_assignment_devices()), extra)


def _compiled_shardings(devices: tuple, shardings, types) -> list:
    return [tiled(devices, tiling_of(h, len(shape), len(devices))) for h, (shape, _) in zip(shardings, types)]


def jax_x64():
    """jax's x64 flag (the object: its ``swap_local``/``set_local`` turn it on or off for this
    thread) once jax is loaded, else None (stablegraph's own flag, always on, is installed)."""
    config = sys.modules.get("jax._src.config")
    return None if config is None else config.enable_x64


class _x64_for:
    """Keep 64-bit data 64-bit while jax's x64 flag (if jax is loaded) is off.

    Turns jax's flag on for this thread only, for the duration of the block.
    """

    __slots__ = ("flag", "old")

    def __init__(self, wide: bool):
        self.flag = jax_x64() if wide else None

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


def start_host_copies(arrays) -> None:
    """Start copying each one-device array to the host without waiting (``to_numpy`` then takes
    the copy): several fetches read one after another wait for one transfer, not one each. (A
    sharded array's pieces are new objects each time they are asked for: it is left alone.)"""
    for array in arrays:
        if type(array._sharding) is _SingleDevice:
            array._copy_single_device_array_to_host_async()


def to_numpy(array) -> np.ndarray:
    """A device array as numpy. Arrays of ml_dtypes types (bfloat16, float8) have
    no buffer-protocol format, so they take jaxlib's explicit copy. A sharded
    array is assembled from its devices' pieces; one split over several processes gives this
    process's block of it (its devices' pieces)."""
    sharding = array._sharding
    if type(sharding) is _GlobalTiled:
        pieces = array._arrays
        if sharding.replicated:
            return to_numpy(pieces[0])
        shape = tuple(array.aval.shape)
        local = [to_numpy(p) for p in pieces]
        return assemble_local(local, shape, sharding.tile, sharding.local, pieces[0].aval.dtype)
    if type(sharding) is _Tiled:
        pieces = array._arrays
        if sharding.replicated:
            return to_numpy(pieces[0])
        shape = tuple(array.aval.shape)
        return assemble([to_numpy(p) for p in pieces], shape, sharding.tile, pieces[0].aval.dtype)
    out = np.asarray(array)
    if out.dtype == object:  # without jax's __array__, custom dtypes and arrays off the CPU come out boxed
        return array._single_device_array_to_np_array_did_copy()[0]
    return out


_OBJECT = np.dtype(object)


def host_result(array) -> np.ndarray:
    """A CPU result as numpy, viewed in place. A program that failed on the device leaves results
    that numpy (without jax's ``__array__``) would box as an object array: their error is raised
    (XlaRuntimeError) instead."""
    out = np.asarray(array)
    if out.dtype is _OBJECT:
        array.block_until_ready()  # raises the program's error
        return to_numpy(array)
    return out


class Executable:
    """A compiled program for one device or a mesh, called with numpy or device arrays of fixed types.

    The first call with arguments of the expected types runs in Python and
    hands jaxlib's C++ dispatcher what it needs; later calls stay in C++.
    The first ``n_host`` results come back as numpy arrays, the rest stay on
    the device (a Session's variables). Arguments the program donates (see
    ``compile``) are consumed by the call. On several devices, arguments
    and results are laid out as the compiled program says (its parameter
    and output shardings); numpy arguments are split accordingly.
    """

    def __init__(self, loaded, devices, arg_types, out_types, n_host=None):
        self._exe = loaded
        self._avals = [_aval(tuple(shape), np.dtype(dt)) for shape, dt in arg_types]
        out_avals = [_aval(tuple(shape), np.dtype(dt)) for shape, dt in out_types]
        self._n_host = len(out_avals) if n_host is None else n_host
        self._wide = any(a.dtype.itemsize >= 8 for a in self._avals + out_avals)
        self._devices = list(devices)
        if len(self._devices) == 1:
            one = _single(self._devices[0])
            self.in_shardings, self.out_shardings = [one] * len(self._avals), [one] * len(out_avals)
        else:
            devs = tuple(self._devices)
            self.in_shardings = _compiled_shardings(devs, loaded.get_parameter_shardings(), arg_types)
            self.out_shardings = _compiled_shardings(devs, loaded.get_output_shardings(), out_types)
        self._handlers = [
            _jax.array_result_handler(a, sh, True, True) for a, sh in zip(out_avals, self.out_shardings)
        ]
        # numpy views a result in place only for plain dtypes in one CPU device's memory; others are copied out
        self._copy_out = (
            len(self._devices) > 1
            or self._devices[0].platform != "cpu"
            or any(a.dtype.kind == "V" for a in out_avals)
        )
        self._fast_path = _FastPath(
            xla_executable=loaded,
            out_pytree_def=_TREES.flatten([0] * len(out_avals))[1],
            in_shardings=list(self.in_shardings),
            out_shardings=list(self.out_shardings),
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
        if len(self._devices) > 1 and spans_processes(self._devices):
            self._dispatch = self._run_global  # jaxlib's C++ dispatcher takes only addressable arrays
        self._strict: dict = {}  # ``strict``'s dispatchers, made on first use: one result alone? -> pjit

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
            if not host:  # nothing to read back: wait here, so that a failed run raises now (its
                kept[0].block_until_ready()  # results share one completion; reading one raises too)
        if self._copy_out:
            if len(host) > 1:
                start_host_copies(host)
            return [to_numpy(r) for r in host] + kept
        return [host_result(r) for r in host] + kept

    def launch(self, values, token: bool = True) -> tuple[list, object]:
        """Start a run on ``values`` and return at once (``sess.run_async``): its results as
        device arrays (futures: reading one waits for the run, and raises if it failed) and,
        with ``token``, a token whose ``block_until_ready()`` waits for the run and raises its
        error (a failed host callback leaves results that read fine: only the token tells;
        without it, jaxlib's C++ dispatcher starts the run). A small program may run before
        this returns, and may raise XlaRuntimeError here already. Where host-bound results are
        copied out (on a GPU; ml_dtypes results), their copies start now, behind the run: reading
        them later does not wait for a round trip each (on an H200, 250 us a fetch read one by one)."""
        if not token:
            with _x64_for(self._wide):
                results, token = list(self._dispatch(*values)), None
        else:
            with _x64_for(self._wide):
                arrays = [
                    v if type(v) is _jax.ArrayImpl and v._sharding == sh else _put_as(_host(v), a, sh)
                    for a, sh, v in zip(self._avals, self.in_shardings, values)
                ]  # fmt: skip
            started = self._exe.execute_sharded(arrays, with_tokens=True)
            token = started.consume_token()
            results = started.consume_with_handlers(self._handlers)
        if self._copy_out:
            start_host_copies(results[: self._n_host])
        return results, token

    def host_values(self, results) -> list:
        """The host-bound results of ``launch`` as numpy (waits for the run)."""
        host = results[: self._n_host]
        if self._copy_out:
            return [to_numpy(r) for r in host]
        return [host_result(r) for r in host]

    def strict(self, leaf: bool):
        """A lean C++ dispatcher for the common case (a Session's repeat runs, program.Repeat.run_values),
        or None. ``leaf``: it gives the only result alone, not a list of one.

        It applies where none of ``__call__``'s branches is needed: results all host-bound, plain numpy
        dtypes, one CPU device, no 64-bit values (which need the x64 flag lent around the
        call). Called with exactly the types the program takes (jax's x64 flag on, if jax is
        loaded), it gives the results as device arrays that numpy views in place; other
        arguments raise ArgumentMismatch (jaxlib checks their types in C++, and a miss
        comes back to Python)."""
        if self._wide or self._copy_out or self._n_host != len(self._handlers):
            return None
        if leaf and len(self._handlers) != 1:
            return None
        strict = self._strict.get(leaf)
        if strict is None:
            strict = self._strict[leaf] = _jax.pjit(
                "stablegraph", self._run_in_python, functools.partial(self._strict_first_call, leaf), [], [],
                ("stablegraph",), _TREES, self._put_other, _DISPATCH_CACHE,
            )  # fmt: skip
        return strict

    def _run_in_python(self, *values) -> list:
        with _x64_for(self._wide):
            arrays = [
                v if type(v) is _jax.ArrayImpl and v._sharding == sh else _put_as(_host(v), a, sh)
                for a, sh, v in zip(self._avals, self.in_shardings, values)
            ]  # fmt: skip
        return self._exe.execute_sharded(arrays).consume_with_handlers(self._handlers)

    def _run_global(self, *values) -> list:
        """Run over the devices of several processes: numpy arguments are this process's block
        of each value (see ``put_local``); results hold this process's pieces."""
        runtime = _multi.runtime
        if runtime is not None:
            runtime.check()
        with _x64_for(self._wide):
            arrays = [
                v if type(v) is _jax.ArrayImpl and v._sharding == sh else put_local(np.asarray(v), a, sh)
                for a, sh, v in zip(self._avals, self.in_shardings, values)
            ]  # fmt: skip
            try:
                results = self._exe.execute_sharded(arrays).consume_with_handlers(self._handlers)
                if runtime is not None:  # waits in slices: a dead peer's collective never ends
                    runtime.wait_ready(results)
                for r in results:
                    r.block_until_ready()  # a failed run raises here, not at a later read
            except XlaRuntimeError as e:
                if runtime is None:
                    raise
                raise runtime.failed(e) from None
        return results

    def _first_call(self, *values):
        """The dispatcher's cache miss: run in Python; allow the C++ path for exact types."""
        outs = self._run_in_python(*values)
        return outs, (self._fast_path if self._exact(values) else None), False

    def _strict_first_call(self, leaf: bool, *values):
        """``strict``'s cache miss: as ``_first_call``, for exactly the types the program takes."""
        if not self._exact(values):
            raise ArgumentMismatch
        results = self._run_in_python(*values)
        if leaf:  # the one result itself, not a list of one: less for C++ to build per call
            return results[0], self._fast_path._replace(out_pytree_def=_TREES.flatten(0)[1]), False
        return results, self._fast_path, False

    def _exact(self, values) -> bool:
        return len(values) == len(self._avals) and all(
            type(v) in _EXACT_TYPES and _shape_dtype(v) == (a.shape, a.dtype)
            for v, a in zip(values, self._avals)
        )

    def _put_other(self, value, sharding, layout):
        """The dispatcher's fallback for arguments it cannot copy itself."""
        return put(value, sharding)

    @property
    def devices(self) -> list:
        return list(self._devices)

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


class ArgumentMismatch(Exception):
    """An argument of ``Executable.strict``'s dispatcher is not of the type, shape or dtype the program takes."""


def _host(value) -> np.ndarray:
    """A numpy argument as it is, a device array laid out otherwise through the host (a rare path)."""
    return to_numpy(value) if type(value) is _jax.ArrayImpl else np.asarray(value)


def _shape_dtype(value) -> tuple:
    """A numpy or device array's (shape, dtype); without jax, device arrays keep them on ``aval``."""
    if type(value) is _jax.ArrayImpl:
        value = value.aval
    return tuple(value.shape), value.dtype


def _options(mlir_text: str, devices) -> xc.CompileOptions:
    """The compile options of a program (an SPMD one on several devices or a mesh)."""
    options = xc.CompileOptions()
    if len(devices) > 1 or "sdy.mesh" in mlir_text:
        options.num_partitions = len(devices)
        build = options.executable_build_options
        build.num_partitions = len(devices)
        build.use_spmd_partitioning = True
        build.use_shardy_partitioner = True
        if spans_processes(devices):  # global device ids (positions name no device of another process)
            build.device_assignment = xc.DeviceAssignment.create(np.array([[d.id for d in devices]]))
    return options


def compile(
    mlir_text: str, devices, arg_types=(), out_types=(), n_host=None, host_callbacks=()
) -> Executable:
    """Compile StableHLO text for ``devices``; ``arg_types`` and ``out_types`` list the
    (shape, numpy dtype) of its arguments and results, of which the first ``n_host``
    come back as numpy (all by default). Arguments marked ``tf.aliasing_output`` in
    the text are donated to that result. On several devices the text is an SPMD
    program (Shardy annotations) partitioned over them. ``host_callbacks``: the Python
    functions its callback custom calls name by index. Raises XlaRuntimeError."""
    client = devices[0].client
    options = _options(mlir_text, devices)
    _needs_kernels(mlir_text)
    if host_callbacks:  # jaxlib takes the functions only with a parsed module
        with hlo.new_context():
            module = hlo.ir.Module.parse(mlir_text)
            loaded = client.compile_and_load(
                module, xc.DeviceList(tuple(devices)), options, host_callbacks=list(host_callbacks)
            )
    else:
        loaded = client.compile_and_load(mlir_text, list(devices), options)
    return Executable(loaded, devices, arg_types, out_types, n_host)


def serialize(executable: Executable) -> bytes:
    """The compiled program as bytes ``deserialize`` loads (in this process or another)."""
    return executable._exe.serialize()


def deserialize(
    data: bytes, mlir_text: str, devices, arg_types=(), out_types=(), n_host=None, host_callbacks=()
) -> Executable:
    """The Executable ``serialize`` gave, loaded for ``devices`` (the program compiled from
    ``mlir_text``; its callbacks given again, as many as it was compiled with: jaxlib crashes
    on a program loaded without them). Raises XlaRuntimeError for bytes it cannot load."""
    client = devices[0].client
    _needs_kernels(mlir_text)
    loaded = client.deserialize_executable(
        data, xc.DeviceList(tuple(devices)), _options(mlir_text, devices), host_callbacks=list(host_callbacks)
    )
    return Executable(loaded, devices, arg_types, out_types, n_host)


def machine_identity(devices) -> str:
    """What besides the program decides compiled code: jaxlib's version, the platform and its
    version, the devices (kind and id, in order) and the process count."""
    client = devices[0].client
    kinds = ",".join(f"{d.device_kind}:{d.id}" for d in devices)
    version = getattr(client, "platform_version", "")
    return f"jaxlib {jaxlib_version()} {client.platform} {version} [{kinds}] processes={len({d.process_index for d in devices})}"


def jaxlib_version() -> str:
    from jaxlib import version  # noqa: PLC0415

    return version.__version__


def ffi_include_dir() -> str:
    """The folder holding XLA's FFI headers (``xla/ffi/api/ffi.h``), shipped inside jaxlib."""
    import jaxlib  # noqa: PLC0415

    return os.path.join(os.path.dirname(jaxlib.__file__), "include")


def register_ffi_handler(name: str, capsule, platform: str) -> None:
    """Register a typed-FFI handler (a PyCapsule of its function pointer) as XLA's custom-call
    target ``name`` on ``platform`` ("cpu" or "gpu"); for CUDA, jaxlib holds it until the CUDA
    plugin is loaded (``_cuda_client``) and hands it over then. Raises XlaRuntimeError."""
    xla_platform = "cpu" if platform == "cpu" else "CUDA"
    xc.register_custom_call_target(name, capsule, platform=xla_platform, api_version=1)


def profile_events(run) -> list[tuple[str, int, float]]:
    """Call ``run()`` under jaxlib's profiler: the (HLO instruction, start ns, duration ns) of each
    executable op or fusion XLA reports (events carrying an ``hlo_op``), in the order seen."""
    from jaxlib import _profile_data, _profiler  # noqa: PLC0415, F401  (_profile_data: the result's type)

    session = _profiler.ProfilerSession(_profiler.ProfileOptions())
    try:
        run()
    finally:
        data = session.stop_and_get_profile_data()
    events = []
    for plane in data.planes:
        for line in plane.lines:
            for event in line.events:
                stats = dict(event.stats)
                if "hlo_op" in stats:
                    events.append((str(stats["hlo_op"]), int(event.start_ns), float(event.duration_ns)))
    return events


def placed(devices, tile: Tiling | None = None):
    """Where a value goes: one device (``tile`` None), or split by ``tile`` over ``devices``."""
    return _single(devices[0]) if tile is None else tiled(tuple(devices), tile)


def put(value: np.ndarray, where):
    """A numpy array copied to a device, or split over a mesh by a sharding from ``placed``
    (a device array a program can take or donate)."""
    arr = np.asarray(value)
    sharding = where if isinstance(where, _SingleDevice | _Tiled) else _single(where)
    with _x64_for(arr.dtype.itemsize >= 8):
        return _put_as(arr, _aval(arr.shape, arr.dtype), sharding)


def _put_as(arr: np.ndarray, aval, sharding):
    if type(sharding) is _SingleDevice:
        return xc.batched_device_put(aval, sharding, [arr], [sharding._device], True, False)
    if type(sharding) is _GlobalTiled:  # ``arr`` is the global value: this process puts its pieces
        if sharding.replicated:
            pieces = [arr] * len(sharding.local)
        else:
            every = slices(tuple(arr.shape), sharding.tile, len(sharding.devices))
            pieces = [arr[every[i]] for i in sharding.local]
        return xc.batched_device_put(aval, sharding, pieces, sharding.local_devices, True, False)
    if sharding.replicated:
        pieces = [arr] * len(sharding.devices)
    else:
        pieces = [arr[where] for where in slices(tuple(arr.shape), sharding.tile, len(sharding.devices))]
    return xc.batched_device_put(aval, sharding, pieces, sharding.devices, True, False)


def put_local(block: np.ndarray, aval, sharding):
    """A global array of ``aval`` from this process's block of it (its devices' pieces together;
    all of it when replicated), as jax's make_array_from_process_local_data."""
    if sharding.replicated:
        pieces = [block] * len(sharding.local)
    else:
        _, where = local_slices(aval.shape, sharding.tile, sharding.local, len(sharding.devices))
        pieces = [block[w] for w in where]
    return xc.batched_device_put(aval, sharding, pieces, sharding.local_devices, True, False)


def holds_whole(array) -> bool:
    """Whether this process holds the whole value of a device array (not only its block)."""
    sharding = array._sharding
    return type(sharding) is not _GlobalTiled or sharding.replicated


def type_of(array) -> tuple:
    """A device array's (shape, numpy dtype)."""
    return tuple(array.aval.shape), np.dtype(array.aval.dtype)


def sharding_of(array):
    """The sharding a device array was placed with (``placed``'s kind)."""
    return array._sharding


def is_device_array(value) -> bool:
    return type(value) is _jax.ArrayImpl


def is_deleted(array) -> bool:
    """Whether a device array's buffer is gone: deleted, or donated to a program."""
    return type(array) is _jax.ArrayImpl and array.is_deleted()


def copy(array):
    """A new device array with ``array``'s value on its devices (through the host: a rare path)."""
    return put(to_numpy(array), array._sharding)
