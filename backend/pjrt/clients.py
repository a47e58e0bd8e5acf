"""PJRT clients and their devices: CPU, CUDA through its plugin, and one spanning processes (backend.pjrt).

Every client is made here, and the custom-call kernels the lowerings name
(jaxlib's LAPACK on CPU, cuSOLVER on CUDA) are registered with XLA here.
"""

from __future__ import annotations

import functools
import os
import sys

from jaxlib import _jax
from jaxlib import xla_client as xc
from jaxlib.cpu import _lapack

from ...graph import GraphError


def _register_lapack_kernels() -> None:
    """Register jaxlib's CPU LAPACK kernels as XLA custom-call targets, once, at import.

    Lowering rules in ops/ emit custom calls by target name (ops/primitives/lapack.py);
    XLA finds the kernels only once they are registered. jaxlib's
    ``cpu._lapack`` lists them as ``{target name: capsule}``; the ``*_ffi``
    ones use XLA's typed FFI (api_version 1), the others the original
    custom-call ABI (0). ``initialize()`` binds them to the LAPACK routines of
    scipy's bundled OpenBLAS. jax registers the same names when jax.lax.linalg
    is imported; registering a name twice is harmless.
    """
    _lapack.initialize()
    for name, capsule in _lapack.registrations().items():
        api_version = 1 if name.endswith("_ffi") else 0
        xc.register_custom_call_target(name, capsule, platform="cpu", api_version=api_version)


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
    return xc.make_cpu_client(num_devices=num_devices)


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
    for name, capsule in solver.registrations().items():
        try:
            xc.register_custom_call_target(
                name, capsule, platform="CUDA", api_version=1 if name.endswith("_ffi") else 0
            )
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
    if multi.client is not None and platform == "cpu":
        found = sorted(multi.client.devices(), key=lambda d: (d.process_index, d.id))
    else:
        found = list(client(platform, n or 1).devices())
    if n is not None and len(found) < n:
        raise GraphError(f"sg.devices: {platform} has {len(found)} devices, {n} asked for")
    return found[:n] if n else found


# -- several processes (distributed.py drives these) ----------------------------------------------
class Multi:
    """The distributed CPU client once this process joined others, and the runtime watching them
    (``check()`` raises if a peer was lost; ``wait_ready(results)`` waits for a run's results,
    raising once a peer is silent; ``failed(error)`` is the error a failed run raises)."""

    client = None
    runtime = None


multi = Multi()


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
    multi.client, multi.runtime = cpu_client, runtime


def spans_processes(devices) -> bool:
    """Whether some of ``devices`` belong to another process."""
    me = devices[0].client.process_index()
    return any(d.process_index != me for d in devices)
