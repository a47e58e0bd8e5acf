"""The plan store: a program's Plan and StableHLO text on disk, found before any planning (backend).

The persistent compile cache (disk_cache.py) keys an executable by its
StableHLO, so finding it takes planning and lowering first: tenths of a
second for a training step, most of a warm process's work before its
first result. The plan store keys what planning and lowering would give
by what decides them, known before either runs:

- ``graph``: the graph's JSON (``to_json`` without locations or its name),
  i.e. every node's op, attributes and inputs, nested bodies included;
- ``feeds``: the fed tensors' shapes and dtypes, in the feeds' order;
- ``library``: this package's source files (paths, sizes, times) and
  numpy's version, so an edited lowering rule is a miss;
- ``machine``: pjrt.machine_identity (jaxlib, platform, devices) and XLA_FLAGS;
- ``mesh`` and ``check_numerics``: the Session's options that reach the program;

and, as the entry's identity, which tensors are fetched and fed and which
variables an initialization writes. An entry (``<key>.sgplan`` beside the
executables, written and checked by disk_cache) holds the Plan (without its
Tensors: the run at hand gives those), the StableHLO text and the name of
the executable's entry, so a hit loads the executable straight, or compiles
the text when that entry is gone. A graph that holds a host callback (it
does not serialize), uses an op whose rules are not the library's (a user's
OpDef may change between processes under one name) or runs over several
processes gets no key and takes the full path. Anything that does not check
out (damaged entry, a plan that does not fit the run) is a miss, never a
load. Beside each entry, ``<name>.sglast`` remembers the parts of the last
key stored for the same fetches and feeds by name, so a miss says what
changed ("graph changed", "feeds changed", ...).
"""

from __future__ import annotations

import json
import os
import re
import struct
from dataclasses import dataclass

import numpy as np

from ..graph.opdef import all_ops
from ..graph.serialize import graph_content
from . import disk_cache, pjrt
from .lowering import ModuleText
from .planning import Plan, plan_run
from .program import executable_entry

FORMAT = 1
SUFFIX = ".sgplan"
LAST_SUFFIX = ".sglast"
_LENGTH = struct.Struct("<Q")  # the plan's JSON length, before the StableHLO text
_PACKAGE = __name__.split(".")[0]
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NOT_LIBRARY = {"tests", "benchmarks", "examples", "notebooks", "docs", "__pycache__"}
_RULES = ("infer", "lower", "vjp", "jvp", "batch", "fold", "subsumes", "vary")


@dataclass(frozen=True)
class PlanKey:
    """Where a program's plan is stored (``name``), where the last key for the same fetches and
    feeds by name is remembered (``last``), and the digests of the parts that made ``name``."""

    name: str
    last: str
    parts: dict


@dataclass(frozen=True)
class StoredPlan:
    """What an entry holds: the Plan for the run at hand, the StableHLO text and the executable's
    disk cache entry."""

    plan: Plan
    text: ModuleText
    entry: str


def key_for(graph, fetch_ts, fed, writes, layout, check_numerics: bool) -> tuple[PlanKey | None, str]:
    """The plan key of a run of ``fetch_ts`` with ``fed`` ([(Tensor, array)]; ``writes`` for an
    initialization), or None and why the run has none."""
    if disk_cache.directory() is None:
        return None, "cache off"
    if layout.multiprocess:
        return None, "no plan key: several processes"
    tensors = [*fetch_ts, *(t for t, _ in fed), *(writes or {}).values()]
    if any(t.node.graph is not graph for t in tensors):
        return None, "no plan key: a tensor of another graph"
    described = _graph_digest(graph)
    if described.startswith("no plan key"):
        return None, described
    mesh = layout.mesh
    parts = {
        "graph": described,
        "feeds": disk_cache.key(*((arr.shape, arr.dtype.str) for _, arr in fed)),
        "library": _library_digest(),
        "machine": disk_cache.key(pjrt.machine_identity(layout.devices), os.environ.get("XLA_FLAGS", "")),
        "mesh": "none" if mesh is None else disk_cache.key(mesh.axis_names, mesh.axis_sizes),
        "check_numerics": str(bool(check_numerics) and writes is None),  # initializers check nothing
    }
    by_id = (
        tuple((t.node.id, t.index) for t in fetch_ts),
        tuple((t.node.id, t.index) for t, _ in fed),
        tuple((v, t.node.id, t.index) for v, t in (writes or {}).items()),
    )
    by_name = (tuple(t.name for t in fetch_ts), tuple(t.name for t, _ in fed), tuple(writes or ()))
    name = disk_cache.key("plan", FORMAT, *by_id, *sorted(parts.items()))
    return PlanKey(name, disk_cache.key("last", FORMAT, *by_name), parts), ""


def load(key: PlanKey, fetch_ts, fed, has_state) -> tuple[StoredPlan | None, str]:
    """The stored plan of ``key`` for this run and "hit", or None and why it missed."""
    payload, why = disk_cache.load(key.name, 0, SUFFIX)
    if payload is None:
        return None, _why_missed(key) if why == "no entry" else why
    try:
        (length,) = _LENGTH.unpack_from(payload)
        fields = json.loads(payload[_LENGTH.size : _LENGTH.size + length])
        text = ModuleText(payload[_LENGTH.size + length :].decode())
        plan = _plan_from(fields["plan"], fetch_ts, fed)
        entry = fields["entry"]
    except (ValueError, KeyError, TypeError, IndexError, struct.error):
        return None, "unreadable plan entry"
    if not isinstance(entry, str) or not _fits(plan, fetch_ts, fed, has_state):
        return None, "plan does not fit this run"
    return StoredPlan(plan, text, entry), "hit"


def store(key: PlanKey, plan: Plan, text: str, devices) -> None:
    """Write the plan of ``key`` (with its StableHLO ``text`` and the name of its executable's
    entry for ``devices``), and remember its parts for the next miss's reason. Best effort, as
    disk_cache.store. A program with host callbacks is not stored (a graph with one has no key)."""
    if getattr(text, "host_callbacks", ()):
        return
    entry = executable_entry(text, devices, plan.arg_types, plan.out_types, plan.n_fetched)
    fields = json.dumps({"plan": _plan_fields(plan), "entry": entry}).encode()
    disk_cache.store(key.name, _LENGTH.pack(len(fields)) + fields + str(text).encode(), 0, SUFFIX)
    disk_cache.store(key.last, json.dumps(key.parts).encode(), 0, LAST_SUFFIX)


def _why_missed(key: PlanKey) -> str:
    """Why no plan is stored under ``key``: what changed since the last plan stored for the same
    fetches and feeds (by name), or "no entry"."""
    payload, _ = disk_cache.load(key.last, 0, LAST_SUFFIX)
    try:
        before = json.loads(payload) if payload is not None else None
    except ValueError:
        before = None
    if not isinstance(before, dict):
        return "no entry"
    changed = [part for part, digest in key.parts.items() if before.get(part) != digest]
    return f"{', '.join(changed)} changed" if changed else "no entry"


# -- what a key hashes ---------------------------------------------------------------------------
def _graph_digest(graph) -> str:
    """The digest of ``graph``'s content, kept until the graph changes (it only grows, or rolls
    back a failed build); or "no plan key: ..." saying why it has none."""
    memo = graph.memo("plan_store")
    last = graph.nodes[-1] if graph.nodes else None
    held = memo.get("digest")
    if held is not None and held[0] == len(graph.nodes) and held[1] is last and held[2] == len(graph.calls):
        return held[3]
    digest = _describe(graph)
    memo["digest"] = (len(graph.nodes), last, len(graph.calls), digest)
    return digest


def _describe(graph) -> str:
    try:
        document = graph_content(graph)  # the graph's JSON without its name and locations
    except Exception as e:  # noqa: BLE001  (a host callback, an attribute JSON cannot hold)
        return f"no plan key: the graph does not serialize ({type(e).__name__})"
    foreign = _foreign_ops(set(re.findall(r'"op":"([^"]+)"', document)))
    if foreign:
        return f"no plan key: op {sorted(foreign)[0]} is not the library's"
    return disk_cache.key(document)


def _foreign_ops(names) -> set[str]:
    """The ops among ``names`` whose rules are not all this library's (a user's OpDef)."""
    out = set()
    ops = all_ops()
    for name in names:
        op = ops.get(name)
        if op is None:
            continue
        for rule in _RULES:
            fn = getattr(op, rule, None)
            module = getattr(fn, "__module__", None) or ""
            if fn is not None and module.split(".")[0] != _PACKAGE:
                out.add(name)
                break
    return out


_LIBRARY: list[str] = []


def _library_digest() -> str:
    """This package's source files (relative paths, sizes, modification times) and numpy's
    version, hashed once per process: an edited library is a new key."""
    if not _LIBRARY:
        files, start = [], len(_ROOT)
        for top, dirs, names in os.walk(_ROOT):
            dirs[:] = sorted(  # the package's own packages: not tests, builds or environments
                d for d in dirs
                if d not in _NOT_LIBRARY and not d.startswith(".") and os.path.exists(f"{top}/{d}/__init__.py")
            )  # fmt: skip
            for n in sorted(names):
                if n.endswith(".py"):
                    path = f"{top}/{n}"
                    try:
                        st = os.stat(path)
                    except OSError:
                        continue
                    files.append(f"{path[start:]}:{st.st_size}:{st.st_mtime_ns}")
        _LIBRARY.append(disk_cache.key(FORMAT, np.__version__, *files))
    return _LIBRARY[0]


# -- a Plan to JSON and back ---------------------------------------------------------------------
def _types_out(types) -> list:
    return [[list(shape), np.dtype(dt).str] for shape, dt in types]


def _types_in(raw) -> tuple:
    return tuple((tuple(int(d) for d in shape), np.dtype(dt)) for shape, dt in raw)


def _plan_fields(plan: Plan) -> dict:
    """A Plan as JSON values, without its Tensors (fetches and feed signature)."""
    return {
        "arg_positions": list(plan.arg_positions),
        "state_in": list(plan.state_in),
        "state_out": list(plan.state_out),
        "fetch_slots": None if plan.fetch_slots is None else list(plan.fetch_slots),
        "arg_types": _types_out(plan.arg_types),
        "out_types": _types_out(plan.out_types),
        "aliases": [list(pair) for pair in plan.aliases],
        "trains": plan.trains,
        "checks_finite": plan.checks_finite,
    }


def _plan_from(raw: dict, fetch_ts, fed) -> Plan:
    slots = raw["fetch_slots"]
    return Plan(
        fetches=tuple(fetch_ts),
        feed_signature=tuple((t, arr.shape) for t, arr in fed),
        arg_positions=tuple(int(i) for i in raw["arg_positions"]),
        state_in=tuple(str(v) for v in raw["state_in"]),
        state_out=tuple(str(v) for v in raw["state_out"]),
        fetch_slots=None if slots is None else tuple(None if i is None else int(i) for i in slots),
        arg_types=_types_in(raw["arg_types"]),
        out_types=_types_in(raw["out_types"]),
        aliases=tuple((int(a), int(b)) for a, b in raw["aliases"]),
        trains=bool(raw["trains"]),
        checks_finite=bool(raw["checks_finite"]),
    )


def _fits(plan: Plan, fetch_ts, fed, has_state) -> bool:
    """Whether a stored plan can serve this run: its arguments are these feeds (their types
    as fed) and state the Session holds, its results as many as the fetches need."""
    positions = plan.arg_positions
    if any(not 0 <= i < len(fed) for i in positions) or list(positions) != sorted(set(positions)):
        return False
    fed_types = [(fed[i][1].shape, fed[i][1].dtype) for i in positions]
    if fed_types != list(plan.arg_types[: len(positions)]):
        return False
    if len(plan.arg_types) != len(positions) + len(plan.state_in):
        return False
    if not all(has_state(v) for v in plan.state_in):
        return False
    n_values = (
        len(fetch_ts) if plan.fetch_slots is None else len({i for i in plan.fetch_slots if i is not None})
    )
    if plan.fetch_slots is not None and len(plan.fetch_slots) != len(fetch_ts):
        return False
    n_flag = 1 if plan.checks_finite else 0
    return len(plan.out_types) == n_values + n_flag + len(plan.state_out)


class LaterNodes:
    """A program's lowered nodes, found by planning again only when asked (an error message,
    a profile): a program from the plan store was never planned in this process."""

    __slots__ = ("_find", "_nodes")

    def __init__(self, find):
        self._find, self._nodes = find, None

    def _all(self) -> tuple:
        if self._nodes is None:
            self._nodes = tuple(self._find())
        return self._nodes

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __getitem__(self, i):
        return self._all()[i]


def later_nodes(graph, fetch_ts, fed, layout, has_state, writes, check_finite: bool) -> LaterNodes:
    """The nodes planning this run would lower, planned on first use (from the feeds' shapes and
    dtypes alone: the values are not kept)."""
    shapes = [(t, np.broadcast_to(np.zeros((), arr.dtype), arr.shape)) for t, arr in fed]
    return LaterNodes(
        lambda: plan_run(graph, fetch_ts, shapes, layout, has_state, writes, check_finite)[1].nodes
    )


__all__ = ["LaterNodes", "PlanKey", "StoredPlan", "key_for", "later_nodes", "load", "store"]
