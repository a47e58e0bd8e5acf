"""Compiled programs and their calls through jaxlib's C++ dispatcher (backend.pjrt)."""

from __future__ import annotations

import functools
import sys
from typing import NamedTuple

import numpy as np
from jaxlib import _jax
from jaxlib import xla_client as xc

from .arrays import (
    OBJECT,
    as_host,
    aval,
    compiled_shardings,
    host_result,
    put,
    put_as,
    put_local,
    shape_dtype,
    single,
    to_numpy,
)  # fmt: skip
from .clients import multi, spans_processes
from .flags import x64_for

XlaRuntimeError = xc.XlaRuntimeError


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
        self._avals = [aval(tuple(shape), np.dtype(dt)) for shape, dt in arg_types]
        out_avals = [aval(tuple(shape), np.dtype(dt)) for shape, dt in out_types]
        self._n_host = len(out_avals) if n_host is None else n_host
        self._wide = any(a.dtype.itemsize >= 8 for a in self._avals + out_avals)
        self._devices = list(devices)
        if len(self._devices) == 1:
            one = single(self._devices[0])
            self.in_shardings, self.out_shardings = [one] * len(self._avals), [one] * len(out_avals)
        else:
            devs = tuple(self._devices)
            self.in_shardings = compiled_shardings(devs, loaded.get_parameter_shardings(), arg_types)
            self.out_shardings = compiled_shardings(devs, loaded.get_output_shardings(), out_types)
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
        self._strict: dict = {}  # ``direct``'s dispatchers, made on first use: one result alone? -> pjit

    def __call__(self, values) -> list:
        """Run on ``values`` (raises XlaRuntimeError): numpy results, then device results."""
        if self._wide:
            with x64_for(True):
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
            return [to_numpy(r) for r in host] + kept
        return [host_result(r) for r in host] + kept

    def direct(self, form=list):
        """A lean callable ``values -> numpy results`` for the common case, or None. ``form``
        shapes the results: None for the only result alone, ``list`` or ``tuple`` for a
        sequence of them, a tuple of keys for a dict of them.

        It skips ``__call__``'s branches when they cannot apply: results all
        host-bound, plain numpy dtypes, one CPU device, no 64-bit values (which need
        the x64 flag lent around the call). It takes the values as given (a Session's
        feeds, unconverted): jaxlib's dispatcher checks their types in C++, and one it
        has not seen raises ArgumentMismatch unless it is exactly what the program takes."""
        if self._wide or self._copy_out or self._n_host != len(self._handlers):
            return None
        leaf = form is None
        if leaf and len(self._handlers) != 1:
            return None
        strict = self._strict.get(leaf)
        if strict is None:
            strict = self._strict[leaf] = _jax.pjit(
                "stablegraph", self._run_in_python, functools.partial(self._strict_first_call, leaf), [], [],
                ("stablegraph",), _TREES, self._put_other, _DISPATCH_CACHE,
            )  # fmt: skip
        asarray, modules = np.asarray, sys.modules
        keys = form if type(form) is tuple else None
        as_tuple = form is tuple

        def call(values):
            # jax's x64 flag off would let the dispatcher take 64-bit feeds as their 32-bit
            # kind and cast them (wrapping ints, overflowing floats) instead of missing: with it
            # on, such a feed is a miss, and the Session converts and checks it. This is
            # ``x64_for(True)`` written out: no object per call on this hot path
            config = modules.get("jax._src.config")
            if config is None:
                results = strict(*values)
            else:
                flag = config.enable_x64
                old = flag.swap_local(True)
                try:
                    results = strict(*values)
                finally:
                    flag.set_local(old)
            if leaf:
                out = asarray(results)
                return out if out.dtype is not OBJECT else host_result(results)
            arrays = [asarray(r) for r in results]
            if any(a.dtype is OBJECT for a in arrays):
                arrays = [host_result(r) for r in results]
            if keys is not None:
                return dict(zip(keys, arrays))
            return tuple(arrays) if as_tuple else arrays

        return call

    def _run_in_python(self, *values) -> list:
        with x64_for(self._wide):
            arrays = [
                v if type(v) is _jax.ArrayImpl and v._sharding == sh else put_as(as_host(v), a, sh)
                for a, sh, v in zip(self._avals, self.in_shardings, values)
            ]  # fmt: skip
        return self._exe.execute_sharded(arrays).consume_with_handlers(self._handlers)

    def _run_global(self, *values) -> list:
        """Run over the devices of several processes: numpy arguments are this process's block
        of each value (see ``put_local``); results hold this process's pieces."""
        runtime = multi.runtime
        if runtime is not None:
            runtime.check()
        with x64_for(self._wide):
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
        """``direct``'s cache miss: as ``_first_call``, for exactly the types the program takes."""
        if not self._exact(values):
            raise ArgumentMismatch
        results = self._run_in_python(*values)
        if leaf:  # the one result itself, not a list of one: less for C++ to build per call
            return results[0], self._fast_path._replace(out_pytree_def=_TREES.flatten(0)[1]), False
        return results, self._fast_path, False

    def _exact(self, values) -> bool:
        return len(values) == len(self._avals) and all(
            type(v) in _EXACT_TYPES and shape_dtype(v) == (a.shape, a.dtype)
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
    """An argument of ``Executable.direct`` is not of the type, shape or dtype the program takes."""


def compile(mlir_text: str, devices, arg_types=(), out_types=(), n_host=None) -> Executable:
    """Compile StableHLO text for ``devices``; ``arg_types`` and ``out_types`` list the
    (shape, numpy dtype) of its arguments and results, of which the first ``n_host``
    come back as numpy (all by default). Arguments marked ``tf.aliasing_output`` in
    the text are donated to that result. On several devices the text is an SPMD
    program (Shardy annotations) partitioned over them. Raises XlaRuntimeError."""
    client = devices[0].client
    options = xc.CompileOptions()
    if len(devices) > 1 or "sdy.mesh" in mlir_text:
        options.num_partitions = len(devices)
        build = options.executable_build_options
        build.num_partitions = len(devices)
        build.use_spmd_partitioning = True
        build.use_shardy_partitioner = True
        if spans_processes(devices):  # global device ids (positions name no device of another process)
            build.device_assignment = xc.DeviceAssignment.create(np.array([[d.id for d in devices]]))
    loaded = client.compile_and_load(mlir_text, list(devices), options)
    return Executable(loaded, devices, arg_types, out_types, n_host)
