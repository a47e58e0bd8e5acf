"""sg.ffi: build a user's C++/CUDA kernels and register them as XLA FFI targets (backend).

    lib = sg.ffi.build("rms_norm", ["rms_norm.cc"])
    sg.ffi.register("rms_norm", lib.handler("RmsNorm"), platform="cpu")
    y = sg.ffi_call("rms_norm", sg.TensorType(x.shape, x.dtype), x, eps=np.float32(1e-5))

``build`` runs the system's g++ (nvcc when a source is ``.cu``) against the
FFI headers jaxlib ships (``include_dir()``), into a cache folder keyed by a
hash of the sources' bytes, the flags, the compiler and jaxlib's version: an
unchanged kernel loads the library built before, an edited one rebuilds. The
library goes in place by an atomic rename, so processes building the same
kernel at once never load a half-written file.

``register`` hands XLA the handler (through backend/pjrt.py, the one module
that touches jaxlib) and records the target in ops' table. XLA refuses to
compile a call to a target it has no handler for (one registered through
jax counts too); ``unregistered_target`` turns that into a GraphError at the
call's line, naming the platforms sg.ffi.register gave the target.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
from pathlib import Path

from ..graph import CompileError, GraphError, located, user_location
from ..graph.printing import held_functions
from ..ops.primitives.ffi_call import note_registered, platform_kind, registered_platforms
from . import pjrt

PLATFORMS = ("cpu", "cuda", "gpu")
CXX_FLAGS = ("-std=c++17", "-O2", "-shared", "-fPIC")
NVCC_FLAGS = ("-std=c++17", "-O2", "-shared", "-Xcompiler", "-fPIC")


def include_dir() -> str:
    """The folder to compile kernels against: it holds ``xla/ffi/api/ffi.h`` (from jaxlib)."""
    return pjrt.ffi_include_dir()


def cache_dir() -> Path:
    """Where built libraries are kept: $STABLEGRAPH_FFI_CACHE, else ~/.cache/stablegraph/ffi."""
    configured = os.environ.get("STABLEGRAPH_FFI_CACHE")
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "stablegraph" / "ffi"


class Library:
    """A built (or loaded) shared library of FFI handlers; ``handler(symbol)`` gives one to
    ``sg.ffi.register``. ``path``: the .so file (jax.ffi can load the same one)."""

    def __init__(self, path, name: str | None = None):
        self.path = Path(path)
        self.name = name or self.path.stem
        try:
            self._cdll = ctypes.CDLL(str(self.path))
        except OSError as e:
            raise GraphError(located(f"sg.ffi: cannot load {self.path}: {e}", user_location())) from None

    def __repr__(self) -> str:
        return f"<sg.ffi.Library {self.name} at {self.path}>"

    def handler(self, symbol: str):
        """The handler ``symbol`` (defined with XLA_FFI_DEFINE_HANDLER_SYMBOL) as a PyCapsule."""
        try:
            function = getattr(self._cdll, symbol)
        except AttributeError:
            raise GraphError(located(
                f"sg.ffi: library {self.name} ({self.path}) has no symbol {symbol!r}; a handler is defined "
                "with XLA_FFI_DEFINE_HANDLER_SYMBOL(Name, ...) outside any namespace",
                user_location(),
            )) from None  # fmt: skip
        return pycapsule(function)


_PyCapsule_New = ctypes.pythonapi.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)


def pycapsule(function):
    """A PyCapsule holding a ctypes function's address (what XLA's registration takes), as
    jax.ffi.pycapsule: ``sg.ffi.pycapsule(ctypes.CDLL(path).RmsNorm)``."""
    return _PyCapsule_New(ctypes.cast(function, ctypes.c_void_p).value, None, None)


def _is_capsule(value) -> bool:
    return type(value).__name__ == "PyCapsule"


_PyCapsule_GetPointer = ctypes.pythonapi.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = (ctypes.py_object, ctypes.c_char_p)
_HANDLERS: dict[tuple[str, str], int] = {}  # (target, platform) -> the registered function's address


def _address(capsule) -> int:
    return _PyCapsule_GetPointer(capsule, None)


def register(name: str, handler, platform: str = "cpu") -> None:
    """Make ``handler`` XLA's FFI target ``name`` on ``platform`` ("cpu", or "cuda"/"gpu").

    ``handler``: a PyCapsule of the handler's function pointer, a ctypes function pointer
    (``ctypes.CDLL(path).RmsNorm``), or what ``Library.handler`` gives. Registering the
    same function again is harmless; another one under a registered name is a GraphError
    (XLA keeps a target's first handler per platform for the life of the process).
    """
    location = user_location()
    if not isinstance(name, str) or not name:
        raise GraphError(located(f"sg.ffi.register wants a target name (a str), got {name!r}", location))
    if not isinstance(platform, str) or platform.strip().lower() not in PLATFORMS:
        raise GraphError(located(f"sg.ffi.register: platform must be one of {PLATFORMS}, got {platform!r}",
                                 location))  # fmt: skip
    if isinstance(handler, ctypes._CFuncPtr):
        handler = pycapsule(handler)
    if not _is_capsule(handler):
        raise GraphError(located(
            f"sg.ffi.register: the handler is a PyCapsule, a ctypes function pointer or Library.handler(...)'s "
            f"result, got {type(handler).__name__}",
            location,
        ))  # fmt: skip
    kind = platform_kind(platform)
    known = _HANDLERS.get((name, kind))
    if known == _address(handler):
        return  # the same function again (a re-run notebook cell): nothing to do
    if known is not None or kind in registered_platforms(name):
        raise GraphError(located(
            f"sg.ffi.register: target {name!r} already has another handler on {kind}, and XLA keeps the "
            "first for the life of the process: register the new one under another name (or restart)",
            location,
        ))  # fmt: skip
    try:
        pjrt.register_ffi_handler(name, handler, kind)
    except Exception as e:  # noqa: BLE001  (jaxlib raises its runtime error or a ValueError)
        raise GraphError(
            located(f"sg.ffi.register({name!r}): XLA refused the handler: {e}", location)
        ) from None
    _HANDLERS[(name, kind)] = _address(handler)
    note_registered(name, kind)


def build(name: str, sources, extra_flags=(), *, compiler: str | None = None) -> Library:
    """Compile ``sources`` (paths to .cc/.cpp, or .cu for nvcc) into a shared library ``name``
    and load it. The library is cached (see the module's docstring); ``extra_flags`` go on
    the compiler's command line after the defaults (-std=c++17 -O2 -shared -fPIC
    -isystem include_dir()). A failed compile is a CompileError with the compiler's output.
    """
    location = user_location()
    paths = [Path(s) for s in ([sources] if isinstance(sources, str | os.PathLike) else sources)]
    missing = [str(p) for p in paths if not p.is_file()]
    if not paths or missing:
        raise GraphError(
            located(f"sg.ffi.build({name!r}): no source file {missing or '(none given)'}", location)
        )
    cuda = any(p.suffix == ".cu" for p in paths)
    compiler = compiler or ("nvcc" if cuda else os.environ.get("CXX", "g++"))
    import shutil  # noqa: PLC0415  (shutil and tempfile load with the first build: not at import)

    found = shutil.which(compiler)
    if found is None:
        install = "the CUDA toolkit" if cuda else "g++ (Debian: apt-get install -y g++)"
        raise CompileError(located(f"sg.ffi.build({name!r}): no compiler {compiler!r} on PATH; install {install}",
                                   location))  # fmt: skip
    command = [found, *(NVCC_FLAGS if cuda else CXX_FLAGS), "-isystem", include_dir(), *map(str, paths),
               *map(str, extra_flags)]  # fmt: skip
    target = cache_dir() / f"{name}-{_key(paths, command)}.so"
    if not target.is_file():
        _compile(name, command, target, location)
    return Library(target, name)


def _key(paths, command) -> str:
    """A hash of everything that decides the library: the sources' bytes, the command, jaxlib."""
    digest = hashlib.sha256()
    for part in (*command, pjrt.jaxlib_version()):
        digest.update(part.encode() + b"\0")
    for p in paths:
        digest.update(p.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _compile(name: str, command, target: Path, location) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # noqa: PLC0415

    fd, partial = tempfile.mkstemp(prefix=f".{name}-", suffix=".so", dir=target.parent)
    os.close(fd)
    try:
        done = subprocess.run([*command, "-o", partial], capture_output=True, text=True)
        if done.returncode != 0:
            output = (done.stderr or done.stdout).strip()
            raise CompileError(located(
                f"sg.ffi.build({name!r}) failed ({' '.join(command[:1])} exit {done.returncode}):\n{output}",
                location,
            ))  # fmt: skip
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.remove(partial)


# -- runs that fail in a kernel ---------------------------------------------------------------
def kernel_nodes(nodes) -> list:
    """The sg.ffi_call nodes among ``nodes`` and the bodies they hold (loops, spmd, custom vjps)."""
    found, pending, seen = [], list(nodes), set()
    while pending:
        node = pending.pop(0)
        if id(node) in seen:
            continue
        seen.add(id(node))
        if "foreign_call" in node.op.traits:
            found.append(node)
        pending.extend(n for fn in held_functions(node) for n in fn.graph.nodes)
    return found


def unregistered_target(error, nodes, platform: str) -> GraphError | None:
    """The GraphError for a compile that failed because a kernel call's target has no handler
    on ``platform`` (XLA: "No FFI handler registered for <target> ..."), at the call's line and
    naming the platforms sg.ffi.register gave it; None for any other failure."""
    message = str(error)
    missing = [n for n in kernel_nodes(nodes) if f"handler registered for {n.attrs.target} " in message]
    if not missing:
        return None
    node = missing[0]
    target = node.attrs.target
    where = ", ".join(registered_platforms(target)) or "no platform"
    return GraphError(located(
        f"sg.ffi_call: target {target!r} is not registered for {platform} (registered for {where}); call "
        f"sg.ffi.register({target!r}, handler, platform={platform!r}) before the Session compiles",
        node.location, node.name,
    ))  # fmt: skip


def failure_message(error, kernels) -> str:
    """The message of a run that failed in a program calling ``kernels``: XLA's status (the
    kernel's own message) and each kernel call that may have raised it, at the user's line.
    When XLA could not decode the call (an attribute or operand of another type than the
    handler binds), each call's attributes are listed with their types."""
    status = str(error).strip()
    if "decode" in status:
        status += "\n" + "\n".join(f"sg.ffi_call({n.attrs.target!r}) passes {_signature(n)}" for n in kernels)
        status += "\n(np.float32(v) passes a float, a Python float a double, a Python int an int64_t)"
    if len(kernels) == 1:
        node = kernels[0]
        return located(f"sg.ffi_call({node.attrs.target!r}) failed: {status}", node.location, node.name)
    calls = "\n".join(f"  {located(f'sg.ffi_call({n.attrs.target!r})', n.location, n.name)}" for n in kernels)
    return f"a kernel called by sg.ffi_call failed: {status}\nthe program's kernel calls:\n{calls}"


def _signature(node) -> str:
    """A call's operand types and attributes, as the handler receives them."""
    operands = ", ".join(str(t.type) for t in node.inputs) or "no operands"
    attributes = ", ".join(str(a) for a in node.attrs.attributes) or "no attributes"
    return f"operands {operands}; attributes {attributes}"


__all__ = [
    "Library", "build", "cache_dir", "failure_message", "include_dir", "kernel_nodes", "pycapsule", "register",
    "unregistered_target",
]  # fmt: skip
