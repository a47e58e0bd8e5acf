"""What a Session compiled and why (backend)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class CompileRecord:
    """One compile: which fetches, the reason, how long lowering+compiling took, and where the
    executable came from (``source``: "compiled", with why the persistent cache missed; "disk",
    loaded from it; "shared", compiled by another Session in this process). ``plan``: "hit" when
    the plan store gave the plan and StableHLO (nothing was planned or lowered), else why it
    missed ("no entry", "graph changed", "feeds changed", ...; plan_store.py)."""

    fetches: tuple[str, ...]
    reason: str
    seconds: float
    source: str = "compiled"
    plan: str = ""

    def __str__(self) -> str:
        shown = ", ".join(self.fetches[:4]) + (
            f", ... ({len(self.fetches)} fetches)" if len(self.fetches) > 4 else ""
        )
        plan = f", plan {self.plan}" if self.plan else ""
        return f"compile of [{shown}]: {self.reason}; {self.source}{plan} ({self.seconds * 1e3:.0f} ms)"


@dataclass
class SessionStats:
    """Counters of a Session: runs, cache hits, and one record per compile.

    The counters are kept without a lock, so runs from several threads at once
    may miss a few counts.
    """

    runs: int = 0
    cache_hits: int = 0
    records: list[CompileRecord] = field(default_factory=list)

    @property
    def compiles(self) -> int:
        return len(self.records)

    @property
    def reasons(self) -> list[str]:
        return [r.reason for r in self.records]

    @property
    def disk_hits(self) -> int:
        """How many programs came from the persistent compile cache instead of XLA."""
        return sum(r.source == "disk" for r in self.records)

    @property
    def disk_misses(self) -> list[str]:
        """Why each program the persistent cache did not have was compiled (cache off, no entry...)."""
        return [
            r.source.partition("disk cache: ")[2].rstrip(")")
            for r in self.records
            if "disk cache:" in r.source
        ]

    @property
    def plan_hits(self) -> int:
        """How many programs the plan store gave whole: found before planning, nothing lowered."""
        return sum(r.plan == "hit" for r in self.records)

    @property
    def plan_misses(self) -> list[str]:
        """Why each program the plan store did not have was planned (graph changed, no entry...)."""
        return [r.plan for r in self.records if r.plan and r.plan != "hit"]

    def __str__(self) -> str:
        lines = [
            f"{self.runs} runs, {self.compiles} compiles ({self.disk_hits} from the disk cache), "
            f"{self.cache_hits} cache hits"
        ]
        lines += [f"  {r}" for r in self.records]
        return "\n".join(lines)


def change_reason(old_sig, new_sig) -> str:
    """Why a new signature (tuple of (tensor, shape)) needs another compile.

    e.g. "placeholder x: batch 128 -> 64"; "feeds changed: +y".
    """
    old, new = dict(old_sig), dict(new_sig)
    if old.keys() != new.keys():
        added = [t.name for t in new if t not in old]
        removed = [t.name for t in old if t not in new]
        return "feeds changed: " + ", ".join([f"+{n}" for n in added] + [f"-{n}" for n in removed])
    parts = []
    for t, shape in new.items():
        before = old[t]
        if before == shape:
            continue
        what = f"{t.node.op.name} {t.name}" if "feed" in t.node.op.traits else f"feed {t.name}"
        changes = [
            f"{d} {a} -> {b}" if isinstance(d, str) else f"dim {i} {a} -> {b}"
            for i, (d, a, b) in enumerate(zip(t.type.shape, before, shape))
            if a != b
        ]
        parts.append(f"{what}: {', '.join(changes)}")
    return "; ".join(parts) or "same signature"
