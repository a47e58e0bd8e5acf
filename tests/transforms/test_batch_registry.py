"""Completeness of vectorization: every primitive has a batch rule, or says why it needs none.

An op with no inputs is never batched (the rewrite copies it); a stateful op
is refused under vectorize; every other primitive must have a rule, and a
test file of the batch rules (tests/transforms/test_batch_*.py) must
exercise it through check_vectorize.
"""

from __future__ import annotations

import pathlib
import re

import pytest

from stablegraph.graph.opdef import all_ops

HERE = pathlib.Path(__file__).resolve().parent
NEVER_BATCHED = {
    "placeholder",
    "parameter",
    "variable",
    "seed",
    "constant",
    "iota",
    "dim_value",
    "axis_index",
    "platform_index",
    "training_switch",
}


@pytest.mark.parametrize("name", sorted(all_ops()))
def test_every_primitive_batches_or_says_why_not(name):
    op = all_ops()[name]
    if name in NEVER_BATCHED or "stateful" in op.traits:
        assert op.batch is None and op.reasons.get("batch", "") not in ("", "not written yet"), name
        return
    assert op.batch is not None, f"{name} has no batch rule ({op.reasons.get('batch')})"


def test_every_batch_rule_is_exercised():
    text = "\n".join(
        p.read_text() for p in HERE.glob("test_batch_*.py") if p.name != "test_batch_registry.py"
    )
    missing = [
        name for name, op in all_ops().items()
        if op.batch is not None and not re.search(rf"\b{re.escape(name)}_?\b", text)
    ]  # fmt: skip
    assert not missing, f"batch rules no test_batch_*.py names: {missing}"
