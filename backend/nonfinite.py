"""Which node made a run's first nan or infinity, found in one compiled program (backend).

``find`` plans the run as the Session would (the same pruned, simplified
program), adds to it, for every floating tensor in graph order (the feeds
and variables it reads first), a summary: how many values are nan, +inf and
-inf, and the least and greatest of the others. The program returns only
those tables (it writes no variable), so a single run of the fused program
gives every node's verdict: no op-by-op re-run that could disagree with it.
The user's prints and checks are left out of that run (a failing check
would stop it before the tables are out).
The first tensor in graph order with a non-finite value is the culprit; its
node, op, the user's file:line, the library call it belongs to, the forward
node a gradient node comes from, and its inputs' summaries make the report.

A nan made inside a control-flow body (a scan's, a while's, a cond's
branch) shows at the node holding the body; so the program also runs, beside
each such node, a copy whose bodies summarize their own tensors at every
call and hand the tables to a host callback (a Book records them in the
order they came). The first non-finite value recorded in the bodies of the
culprit's node is reported instead, with the iteration that made it.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..graph import Function, TensorType, current_graph, dtypes, function, located
from ..graph.function import inline
from ..ops import numpy_like as snp
from ..ops.primitives import prims
from ..ops.primitives.host_callback import HostFunction, debug_callback
from ..ops.primitives.registry import bind_node
from .lowering import concrete_type, lower_module
from .planning import plan_run
from .program import Program, compile_text


@dataclasses.dataclass(frozen=True)
class Summary:
    """What one tensor held in the run: counts of nan, +inf and -inf, and the range of the rest."""

    name: str
    type: TensorType
    nan: int
    pos_inf: int
    neg_inf: int
    low: float
    high: float

    @property
    def finite(self) -> bool:
        return not (self.nan or self.pos_inf or self.neg_inf)

    def __str__(self) -> str:
        bad = ", ".join(
            f"{n} {w}" for n, w in ((self.nan, "nan"), (self.pos_inf, "+inf"), (self.neg_inf, "-inf")) if n
        )
        span = f"min {self.low:.6g} max {self.high:.6g}" if self.low <= self.high else "no finite value"
        return f"{self.name} {self.type}: {span}" + (f", {bad}" if bad else "")


@dataclasses.dataclass(frozen=True)
class NonfiniteReport:
    """The outcome of ``sess.find_nonfinite``: the first node (in graph order) whose value held a
    nan or an infinity, with its inputs' summaries; ``found`` is False when every value was finite.

    ``node``, ``op``, ``location`` (the user's file:line), ``call`` (the library call it belongs
    to, e.g. ``fc1 (dense)``), ``gradient_of`` (for a gradient node: the forward node it comes
    from), ``value`` (its output's Summary), ``inputs`` (theirs), ``inside`` (for a node of a
    control-flow body: which body, which iteration), ``checked`` (how many tensors).
    """

    found: bool
    checked: int
    node: str | None = None
    op: str | None = None
    location: object = None
    call: str | None = None
    gradient_of: str | None = None
    value: Summary | None = None
    inputs: tuple = ()
    inside: str | None = None

    def __bool__(self) -> bool:
        return self.found

    def __str__(self) -> str:
        if not self.found:
            return f"every value of the run is finite ({self.checked} floating tensors checked)"
        kinds = [
            w
            for n, w in ((self.value.nan, "nan"), (self.value.pos_inf, "+inf"), (self.value.neg_inf, "-inf"))
            if n
        ]
        made = " and ".join(kinds)
        head = located(f"node '{self.node}' ({self.op}) made {made}", self.location)
        lines = [f"{head}; first in graph order of {self.checked} floating tensors"]
        if self.inside:
            lines.append(f"  in {self.inside}")
        if self.call:
            lines.append(f"  in the library call {self.call}")
        if self.gradient_of:
            lines.append(f"  a gradient node, from the forward node '{self.gradient_of}'")
        lines.append(f"  value: {self.value}")
        if self.inputs:
            lines.append("  inputs:")
            lines += [f"    {s}" for s in self.inputs]
        return "\n".join(lines)

    def _repr_pretty_(self, p, cycle) -> None:
        p.text(str(self))


class Book:
    """The summaries the instrumented bodies hand over, per body, in the order they came."""

    def __init__(self):
        self.entries: dict = {}  # (node name, body name) -> [(sequence number, counts, ranges)]
        self.bodies: dict = {}  # (node name, body name) -> the body's checked tensors
        self.count = 0

    def recorder(self, key):
        def record(counts: np.ndarray, ranges: np.ndarray) -> None:
            self.entries.setdefault(key, []).append((self.count, counts.copy(), ranges.copy()))
            self.count += 1

        record.__qualname__ = f"record {key[1]}"
        return record


def find(graph, fetch_ts, fed, layout, state, stats, devices) -> NonfiniteReport:
    """Run the program of ``fetch_ts`` with ``fed`` once, instrumented (see the module docstring)."""
    plan, body = plan_run(graph, fetch_ts, fed, layout, state.has_value)
    checked = [t for t in body.args if _floating(t.type)]
    checked += [o for n in body.nodes for o in n.outputs if _floating(o.type)]
    program_graph = (body.nodes or [t.node for t in body.args] or [None])[0]
    if not checked or program_graph is None:
        return NonfiniteReport(found=False, checked=0)
    book = Book()
    with program_graph.graph:
        counts, ranges = _tables(checked)
        for node in body.nodes:
            _copy_with_recording_bodies(node, book)
    nodes = tuple(n for n in program_graph.graph.nodes if "parameter" not in n.op.traits)
    shardings = None if body.shardings is None else (body.shardings[0], ())
    text = lower_module(
        nodes, body.args, (counts, ranges), body.bindings, None, layout.mesh, shardings,
        devices[0].platform, plan.trains, effects=False,
    )  # fmt: skip
    out_types = (((len(checked), 3), np.dtype(np.int32)), ((len(checked), 2), np.dtype(np.float64)))
    diagnostic = dataclasses.replace(plan, state_out=(), fetch_slots=None, out_types=out_types, aliases=())
    executable, _ = compile_text(text, layout.devices, nodes, diagnostic.arg_types, out_types, 2)
    got_counts, got_ranges = Program(executable, diagnostic, text, nodes).execute(
        state, stats, [arr for _, arr in fed]
    )
    concrete = [concrete_type(t, body.bindings) for t in checked]
    summaries = [_summary(t, ty, c, r) for t, ty, c, r in zip(checked, concrete, got_counts, got_ranges)]
    return _report(graph, checked, summaries, book)


def _summary(t, ty, counts, ranges) -> Summary:
    return Summary(_name(t), ty, *map(int, counts), float(ranges[0]), float(ranges[1]))


def _bodies(node) -> dict:
    """The Functions a node's attributes hold, by field (a tuple for a field holding several)."""
    out = {}
    for key in type(node.attrs).model_fields:
        value = getattr(node.attrs, key)
        if isinstance(value, Function) or (
            isinstance(value, tuple) and value and all(isinstance(v, Function) for v in value)
        ):
            out[key] = value
    return out


def _copy_with_recording_bodies(node, book: Book) -> None:
    """Beside a node holding bodies, a copy of it (same inputs) whose bodies record their tensors'
    summaries at every call; its outputs are unused, its recordings are what is wanted."""
    held = _bodies(node)
    if not held:
        return
    update = {
        key: tuple(_recording(f, node, book) for f in value)
        if isinstance(value, tuple)
        else _recording(value, node, book)
        for key, value in held.items()
    }
    bind_node(node.op, list(node.inputs), node.attrs.model_copy(update=update), name=f"{node.name}_diagnosed")


def _recording(fn: Function, owner, book: Book) -> Function:
    """``fn`` again, computing the same results, that also hands the summaries of its floating
    tensors (params first, then its nodes' outputs) to the book at every call."""
    key = (owner.name, fn.name)

    def body(*params):
        graph = current_graph()
        env: dict = {}
        caps = [graph.capture(c) for c in fn.captures]  # the same captures, in the same order
        results = inline(fn, graph, list(params), captures=caps, env=env)
        tensors = [t for t in fn.params if _floating(t.type)]
        tensors += [
            o
            for n in fn.graph.nodes
            if "parameter" not in n.op.traits
            for o in n.outputs
            if _floating(o.type)
        ]
        book.bodies[key] = tensors
        if tensors:
            counts, ranges = _tables([env[t] for t in tensors])
            recorder = HostFunction(
                book.recorder(key), "sg.Session.find_nonfinite", owner.location, diagnostic=True
            )
            debug_callback(recorder, [counts, ranges])
        return results

    return function(body, [p.type for p in fn.params], name=fn.name)


def _floating(ty: TensorType) -> bool:
    return ty.dtype.is_floating or ty.dtype.is_complex


def _name(t) -> str:
    return t.node.name if len(t.node.outputs) == 1 else f"{t.node.name}:{t.index}"


def _tables(tensors):
    """Two tensors: per tensor (nan, +inf, -inf) counts as int32 rows, and (least, greatest) of
    its other values as float64 rows. Tensors of one shape are stacked and summarized together:
    five reductions per shape, not per tensor (XLA builds a kernel for each reduction, and a
    program of hundreds of them took 20 s to compile)."""
    groups: dict = {}
    for k, t in enumerate(tensors):
        x = snp.abs(t) if t.dtype.is_complex else t
        groups.setdefault(tuple(t.shape), []).append((k, prims.convert(x, dtypes.float64)))
    counts, ranges, order = [], [], []
    for members in groups.values():
        order += [k for k, _ in members]
        wide = snp.stack([w for _, w in members])
        axes = tuple(range(1, wide.ndim))
        nan = snp.isnan(wide)
        counts.append(snp.stack([
            _count(nan, axes), _count(wide == np.inf, axes), _count(wide == -np.inf, axes),
        ], axis=1))  # fmt: skip
        bad = nan | snp.isinf(wide)
        low = snp.where(bad, np.inf, wide)  # +inf for no finite value
        high = snp.where(bad, -np.inf, wide)
        if axes:
            low, high = prims.reduce(low, "min", axes), prims.reduce(high, "max", axes)
        ranges.append(snp.stack([low, high], axis=1))
    counts, ranges = snp.concatenate(counts), snp.concatenate(ranges)
    if order == sorted(order):  # one shape, or shapes met in runs: the rows are in order already
        return counts, ranges
    back = np.argsort(np.asarray(order, np.int64)).astype(np.int32)  # rows back in the tensors' order
    return snp.take(counts, back, axis=0), snp.take(ranges, back, axis=0)


def _count(flags, axes):
    return snp.sum(flags, axis=axes, dtype=dtypes.int32) if axes else flags.astype(dtypes.int32)


def _report(graph, checked, summaries, book: Book) -> NonfiniteReport:
    first = next((k for k, s in enumerate(summaries) if not s.finite), None)
    if first is None:
        return NonfiniteReport(found=False, checked=len(summaries))
    node = checked[first].node
    inner = _first_in_bodies(node, book)
    if inner is not None:
        return inner
    by_tensor = dict(zip(checked, summaries))
    original = graph.node(node.name) if node.name in graph else None
    op = original.op.name if original is not None and "parameter" in node.op.traits else node.op.name
    return _made(node, op, summaries[first], [by_tensor[t] for t in node.inputs if t in by_tensor],
                 len(summaries), original)  # fmt: skip


def _made(node, op, value, inputs, checked, original, where=None) -> NonfiniteReport:
    call = getattr(original, "call", None)
    return NonfiniteReport(
        found=True,
        checked=checked,
        node=node.name,
        op=op,
        location=node.location,
        call=f"{call.name} ({call.fn})" if call is not None else None,
        gradient_of=node.derived_from,
        value=value,
        inputs=tuple(inputs),
        inside=where,
    )


def _first_in_bodies(node, book: Book) -> NonfiniteReport | None:
    """The first non-finite value the bodies of ``node`` recorded (earliest call first, then
    graph order within the body), as a report naming the body and the iteration; None if none."""
    found = []
    for (owner, body_name), calls in book.entries.items():
        if owner != node.name:
            continue
        tensors = book.bodies[(owner, body_name)]
        for iteration, (seq, counts, ranges) in enumerate(calls):
            bad = np.flatnonzero(counts.sum(axis=1))
            if bad.size:
                found.append((seq, iteration, body_name, tensors, counts, ranges, int(bad[0])))
                break
    if not found:
        return None
    seq, iteration, body_name, tensors, counts, ranges, k = min(found, key=lambda f: f[0])
    summaries = {t: _summary(t, t.type, c, r) for t, c, r in zip(tensors, counts, ranges)}
    made = tensors[k].node
    inputs = [summaries[t] for t in made.inputs if t in summaries]
    where = (
        f"iteration {iteration} of {body_name}, the body of '{node.name}' ({node.op.name}, {node.location})"
    )
    checked = sum(len(t) for t in book.bodies.values())
    return _made(made, made.op.name, summaries[tensors[k]], inputs, checked, None, where)


__all__ = ["NonfiniteReport", "Summary", "find"]
