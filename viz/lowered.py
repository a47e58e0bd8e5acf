"""``sess.lower(...)`` shown readably in Jupyter (viz layer): cost, memory and the StableHLO.

``lowered_html(lowered)`` compiles the program (``lowered.compile()``) and
shows XLA's cost analysis (flops, transcendentals, bytes accessed) and
memory analysis (argument, output, temporary sizes) as a small table, with
the StableHLO text folded below it.
"""

from __future__ import annotations

import html

from ..graph import StablegraphError

_COST = (("flops", "flops"), ("transcendentals", "transcendentals"), ("bytes accessed", "bytes accessed"))
_MEMORY = (
    ("argument_size_in_bytes", "arguments"),
    ("output_size_in_bytes", "outputs"),
    ("alias_size_in_bytes", "aliased (donated)"),
    ("temp_size_in_bytes", "temporaries"),
    ("generated_code_size_in_bytes", "generated code"),
)


def human_bytes(n: float) -> str:
    """1536 -> '1.5 KiB'."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def human_count(n: float) -> str:
    """12345678 -> '12.3 M'."""
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n:g}"


def analysis_rows(lowered) -> list[tuple[str, str]]:
    """(what, value) rows of the cost and memory analyses; a row saying why if compiling failed."""
    try:
        compiled = lowered.compile()
        cost, memory = compiled.cost_analysis(), compiled.memory_analysis()
    except StablegraphError as e:
        return [("analysis", f"not available: {e}")]
    rows = [(label, human_count(cost[k])) for k, label in _COST[:2] if k in cost]
    rows += [(label, human_bytes(cost[k])) for k, label in _COST[2:] if k in cost]
    rows += [(f"memory: {label}", human_bytes(memory[k])) for k, label in _MEMORY if k in memory]
    return rows


def lowered_html(lowered) -> str:
    """The cost and memory table of a lowered program, then its StableHLO text (folded)."""
    rows = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:right'>{html.escape(v)}</td></tr>"
        for k, v in analysis_rows(lowered)
    )
    text = str(lowered)
    ops = sum(1 for line in text.splitlines() if "stablehlo." in line)
    return (
        f'<div class="sg-lowered"><table>{rows}</table>'
        f"<details><summary>StableHLO ({len(text.splitlines())} lines, {ops} ops)</summary>"
        f"<pre>{html.escape(text)}</pre></details></div>"
    )
