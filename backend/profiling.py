"""Per-node profiles: XLA's op times attributed back to graph nodes (backend).

``sess.profile(fetches, feeds, runs=N)`` runs the program N times under
jaxlib's profiler (pjrt.profile_events). Each event names an instruction of
the optimized HLO (an op, or a fusion of several); the lowering gives every
StableHLO op its node's name as an MLIR name location, which XLA keeps as the
instruction's ``op_name`` metadata, on fusions too. So event -> instruction
-> op_name -> node. A fusion is charged to the one op_name XLA keeps on it
(the node of its root, usually), which is how fused time shows: whole, at
one node. Container instructions (while, conditional, call) are left out of
the totals: the instructions inside them report their own time.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re

from ..graph.printing import held_functions

_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%([\w.\-]+)\s*=\s*(?:\([^=]*?\)|\S+)\s+([\w\-]+)\(")
_OP_NAME = re.compile(r'op_name="([^"]*)"')
CONTAINERS = frozenset({"while", "conditional", "call", "async-start", "async-done"})


@dataclasses.dataclass(frozen=True)
class NodeTime:
    """One graph node's share of a profile: device time per run (microseconds) and its share of
    the attributed total."""

    node: str
    op: str
    location: object
    call: str | None
    time_us: float
    share: float


class Profile:
    """XLA's per-op times of ``runs`` runs, attributed to graph nodes (see the module docstring).

    ``rows``: NodeTimes, slowest first; ``total_us``: the device time XLA reported per run;
    ``attributed``: the share of it charged to named graph nodes; ``unattributed``:
    {instruction: microseconds per run} for the rest; ``by_call()``, ``by_scope()``: the same
    grouped by library call and by top-level name scope; ``to_chrome_trace(path)``: the events
    as a Chrome/Perfetto trace. Prints as a table; ``sg.draw(g, path, profile=p)`` shades boxes.
    """

    def __init__(self, rows, runs: int, total_ns: float, unattributed: dict, events: list):
        self.rows = tuple(rows)
        self.runs = runs
        self.total_us = total_ns / runs / 1e3
        self.unattributed = {k: v / runs / 1e3 for k, v in unattributed.items()}
        attributed_us = sum(r.time_us for r in self.rows)
        self.attributed = attributed_us / self.total_us if self.total_us else 1.0
        self._events = events

    def share_of(self, node_name: str) -> float:
        """The share of the profiled time charged to a node (0 for one not in the profile)."""
        return next((r.share for r in self.rows if r.node == node_name), 0.0)

    def by_call(self) -> dict[str, float]:
        """Microseconds per run, per library call (``fc1 (dense)``); nodes of no call under '-'."""
        return self._grouped(lambda r: r.call or "-")

    def by_scope(self) -> dict[str, float]:
        """Microseconds per run, per top-level name scope (a node outside any under its own name)."""
        return self._grouped(lambda r: r.node.split("/", 1)[0])

    def _grouped(self, key) -> dict[str, float]:
        out: dict[str, float] = {}
        for r in self.rows:
            out[key(r)] = out.get(key(r), 0.0) + r.time_us
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))

    def to_chrome_trace(self, path) -> None:
        """Write the profiled events as a Chrome trace (JSON; opens in Perfetto and chrome://tracing)."""
        start = min((e[1] for e in self._events), default=0)
        trace = [
            {"name": node or instr, "cat": op, "ph": "X", "ts": (t0 - start) / 1e3, "dur": dur / 1e3,
             "pid": 0, "tid": 0, "args": {"instruction": instr}}
            for instr, t0, dur, node, op in self._events
        ]  # fmt: skip
        with open(os.fspath(path), "w") as f:
            json.dump({"traceEvents": trace, "displayTimeUnit": "ns"}, f)

    def table(self, limit: int = 20) -> str:
        head = (
            f"profile of {self.runs} runs: {self.total_us:.1f} us of device time per run, "
            f"{self.attributed:.0%} charged to graph nodes"
        )
        lines = [head, f"{'node':40} {'op':18} {'where':24} {'us/run':>10} {'share':>6}"]
        for r in self.rows[:limit]:
            where = str(r.location) if r.location is not None else ""
            lines.append(f"{r.node[:40]:40} {r.op[:18]:18} {where[:24]:24} {r.time_us:10.1f} {r.share:6.1%}")
        if len(self.rows) > limit:
            lines.append(f"... {len(self.rows) - limit} more nodes")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return (
            f"<Profile {len(self.rows)} nodes, {self.total_us:.1f} us/run, {self.attributed:.0%} attributed>"
        )

    def _repr_html_(self) -> str:
        import html  # noqa: PLC0415  (html.entities is large: loaded at the first display)

        rows = "".join(
            f"<tr><td>{html.escape(r.node)}</td><td>{html.escape(r.op)}</td>"
            f"<td>{html.escape(str(r.location or ''))}</td><td>{r.time_us:.1f}</td><td>{r.share:.1%}</td></tr>"
            for r in self.rows[:50]
        )
        return (
            f"<p>{html.escape(self.table(0).splitlines()[0])}</p><table><tr><th>node</th><th>op</th>"
            f"<th>where</th><th>us/run</th><th>share</th></tr>{rows}</table>"
        )


def instructions(hlo_text: str) -> dict[str, tuple[str, str | None]]:
    """{instruction name: (opcode, op_name or None)} of every instruction of an HLO module's text."""
    out = {}
    for line in hlo_text.splitlines():
        m = _INSTRUCTION.match(line)
        if m is None:
            continue
        named = _OP_NAME.search(line)
        out[m.group(1)] = (m.group(2), named.group(1) if named else None)
    return out


def node_table(graph, nodes) -> dict:
    """{node name: node} of ``nodes`` and of the nodes of every body they hold (outer names first)."""
    table: dict = {}
    pending = list(nodes)
    while pending:
        node = pending.pop(0)
        table.setdefault(node.name, node)
        pending.extend(
            n for fn in held_functions(node) for n in fn.graph.nodes if "parameter" not in n.op.traits
        )
    return table


def attribute(graph, nodes, hlo_text: str, events, runs: int) -> Profile:
    """The Profile of ``events`` ((instruction, start, duration) of ``runs`` runs) of a program
    lowered from ``nodes`` (of ``graph``) and compiled to ``hlo_text``."""
    table = instructions(hlo_text)
    by_name = node_table(graph, nodes)
    per_node: dict[str, float] = {}
    unattributed: dict[str, float] = {}
    kept, total = [], 0.0
    for instr, start, duration in events:
        opcode, op_name = table.get(instr, ("?", None))
        if opcode in CONTAINERS:
            continue
        total += duration
        name = (op_name or "").split(";")[0]
        node = by_name.get(name)
        if node is None:
            unattributed[instr] = unattributed.get(instr, 0.0) + duration
            kept.append((instr, start, duration, None, opcode))
            continue
        per_node[name] = per_node.get(name, 0.0) + duration
        kept.append((instr, start, duration, name, node.op.name))
    attributed_ns = sum(per_node.values())
    rows = []
    for name, ns in sorted(per_node.items(), key=lambda kv: -kv[1]):
        node = by_name[name]
        original = graph.node(name) if name in graph else None
        call = getattr(original, "call", None)
        rows.append(NodeTime(
            name, node.op.name, node.location, f"{call.name} ({call.fn})" if call is not None else None,
            ns / runs / 1e3, ns / attributed_ns if attributed_ns else 0.0,
        ))  # fmt: skip
    return Profile(rows, runs, total, unattributed, kept)


__all__ = ["NodeTime", "Profile", "attribute", "instructions"]
