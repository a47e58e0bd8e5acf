"""Stored initial values: a warm process initializes its variables without loading a program (backend).

A Session initializes its variables by running a compiled program (the
initializers, drawing from the Session's seed). In a fresh process whose
plan store has that program, loading its executable and running it once
is a third of the time to the first training step, for values that are the
same in every process: the program is a pure function of the root key
(``seed``) and its plan key (graph, library, machine...). So the first
process that runs an initialization also writes its results, as they came
out of the program, to ``<entry>.sginit`` beside the plan (disk_cache's
format: checked, atomic, evicted with the rest), named by the plan key and
the root key's bytes; a later process puts them on the device instead, bit
for bit what the program would give. The executable is loaded only if a
run misses (another seed), and all else about the program (its text,
analyses, nodes) is as before.

Only plain initializations take part: no feeds, no variable read (only the
seed: a variable initialized from another's current value is computed), one
device without a mesh, numpy's own dtypes (bool, ints, floats, complex)
and at most ``MAX_BYTES`` of values in all (a large model's values are
better computed than copied through the disk).
"""

from __future__ import annotations

import json
import struct

import numpy as np

from . import disk_cache, pjrt
from .planning import SEED

FORMAT = 1
SUFFIX = ".sginit"
MAX_BYTES = 64 << 20
_LENGTH = struct.Struct("<Q")  # the header's JSON length, before the values' bytes
_KINDS = frozenset("biufc")


def eligible(plan, layout, seed) -> bool:
    """Whether an initialization's results may be stored and restored: see the module docstring.
    ``seed`` is the Session's root key as numpy (its state before any run)."""
    if layout.mesh is not None or len(layout.devices) != 1 or not isinstance(seed, np.ndarray):
        return False
    if plan.arg_positions or plan.n_fetched or plan.checks_finite or set(plan.state_in) - {SEED}:
        return False
    if len(plan.out_types) != len(plan.state_out):
        return False
    size = 0
    for shape, dt in plan.out_types:
        dt = np.dtype(dt)
        if dt.kind not in _KINDS or dt.byteorder == ">":
            return False
        size += int(np.prod(shape, dtype=np.int64)) * dt.itemsize
    return size <= MAX_BYTES


def entry_name(plan_key: str, plan, seed: np.ndarray) -> str:
    """The entry of an initialization's values: its plan key and the root key it read."""
    return disk_cache.key("initial values", FORMAT, plan_key, plan.state_in, seed.dtype.str, seed.tobytes())


def load(name: str, plan) -> list[np.ndarray] | None:
    """The stored values of entry ``name``, checked against the results ``plan`` says; None when
    there are none or they do not fit (a miss: the program runs and they are written again)."""
    payload, _ = disk_cache.load(name, 0, SUFFIX)
    if payload is None:
        return None
    try:
        (length,) = _LENGTH.unpack_from(payload)
        header = json.loads(payload[_LENGTH.size : _LENGTH.size + length])
        types = [(tuple(int(d) for d in shape), np.dtype(dt)) for shape, dt in header["types"]]
        if types != [(tuple(shape), np.dtype(dt)) for shape, dt in plan.out_types]:
            return None
        values, at = [], _LENGTH.size + length
        for shape, dt in types:
            n = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
            if at + n > len(payload):
                return None
            values.append(np.frombuffer(payload, dt, n // dt.itemsize, at).reshape(shape))
            at += n
    except (ValueError, KeyError, TypeError, struct.error):
        return None
    return values if at == len(payload) else None


def store(name: str, values: list[np.ndarray]) -> None:
    """Write an initialization's results (best effort, as disk_cache.store)."""
    header = json.dumps({"types": [[list(v.shape), v.dtype.str] for v in values]}).encode()
    body = b"".join(np.ascontiguousarray(v).tobytes() for v in values)
    disk_cache.store(name, _LENGTH.pack(len(header)) + header + body, 0, SUFFIX)


class Initializer:
    """What a Program calls to initialize variables: the stored values of its entry when the run
    reads the root key they were stored for, else the executable (``load()`` gives it, once),
    whose results are then stored. Anything else asked of it (analyses, shardings) is the
    executable's, loaded on first use."""

    def __init__(self, name: str, seed: np.ndarray, values, load_executable, placements: list):
        self._name, self._seed, self._values = name, seed, values
        self._load, self._placements = load_executable, placements
        self._executable = None

    def executable(self):
        """The initialization's executable, loaded (or compiled) on first use."""
        if self._executable is None:
            self._executable = self._load()
        return self._executable

    def __call__(self, args) -> list:
        read = [a if isinstance(a, np.ndarray) else pjrt.host_result(a) for a in args]
        seed = self._seed
        same = len(read) <= 1 and all(a.dtype == seed.dtype and np.array_equal(a, seed) for a in read)
        if same and self._values is not None:
            return [pjrt.put(v, where) for v, where in zip(self._values, self._placements)]
        outs = self.executable()(args)
        if same:  # copied now: the next run may donate these buffers
            self._values = [np.array(pjrt.to_numpy(o)) for o in outs]
            store(self._name, self._values)
        return outs

    def cost_analysis(self) -> dict:
        """No flops when its values are stored (nothing runs, so no worker thread waits for it)."""
        return {} if self._values is not None else self.executable().cost_analysis()

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.executable(), name)


def stored_initializer(plan_key: str, plan, layout, seed, load_executable) -> Initializer | None:
    """An Initializer that restores the stored values of this initialization (its executable
    loaded only if a run misses), or None when none are stored for ``seed`` or it takes no part."""
    if not eligible(plan, layout, seed):
        return None
    name = entry_name(plan_key, plan, seed)
    values = load(name, plan)
    if values is None:
        return None
    return Initializer(name, seed, values, load_executable, _placements(plan, layout))


def recording_initializer(plan_key: str, plan, layout, seed, executable):
    """``executable``, or where this initialization takes part, an Initializer running it that
    stores its results after its first run for later processes."""
    if not eligible(plan, layout, seed):
        return executable
    name = entry_name(plan_key, plan, seed)
    return Initializer(name, seed, None, lambda: executable, _placements(plan, layout))


def _placements(plan, layout) -> list:
    return [layout.placement(v, len(shape)) for v, (shape, _) in zip(plan.state_out, plan.out_types)]


__all__ = [
    "Initializer",
    "eligible",
    "entry_name",
    "load",
    "recording_initializer",
    "store",
    "stored_initializer",
]
