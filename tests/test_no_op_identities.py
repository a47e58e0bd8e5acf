"""Passes, the backend and the drawings ask an op's traits, never its identity or its name.

A check such as ``n.op is variable_op`` or ``n.op.name == "placeholder"`` outside ops/ ties a pass
to one primitive: a second op of the same kind (another input, another state read) would slip
past it. The structural ops declare what the Session and the function machinery need to know
(graph/opdef.py: feed, parameter, reads_state, seed, group, writes_variable), and the code asks
that. This test greps every module outside ops/ for the spellings of such a check (a comparison
with a variable, as the simplifier's pattern table matching the op its rule names, is not one).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("graph", "sharding", "transforms", "backend", "viz", "train", "summary")

CHECKS = re.compile(
    r"\.op\s+is\s+(not\s+)?\w+_op\b"  # n.op is variable_op
    r"|\bop\s+is\s+(not\s+)?\w+_op\b"
    r"|\.op\.name\s*(==|!=)\s*[\"']"  # n.op.name == "parameter"
    r"|\.op\.name\s+(not\s+)?in\b"  # n.op.name in _INPUT_OPS
    r"|\bnodes_of\(\s*[\"']"  # g.nodes_of("assign")
)


def offending_lines() -> list[str]:
    found = []
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if CHECKS.search(line.split("#", 1)[0]):
                    found.append(f"{rel}:{number}: {line.strip()}")
    return found


def test_no_pass_asks_an_op_by_identity_or_name():
    found = offending_lines()
    assert not found, "ask the op's traits instead:\n" + "\n".join(found)


def test_the_check_sees_each_spelling():
    for line in (
        "if n.op is variable_op:",
        "missing = [n for n in nodes if n.op is not placeholder_op]",
        'if node.op.name == "placeholder":',
        'if node.op.name in ("a", "b"):',
        'for n in self.graph.nodes_of("assign"):',
    ):
        assert CHECKS.search(line), line
    for line in (
        'if "feed" in n.op.traits:',
        "title = node.op.name",
        "self.nodes_of(op_name)",
        "n.op.name == op_name",
    ):
        assert not CHECKS.search(line), line
