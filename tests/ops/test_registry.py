"""Completeness: every primitive declares every rule or says why not, and is exercised by a test."""

import pathlib
import re

import pytest

import stablegraph as sg
from stablegraph.graph.opdef import RULES, all_ops

TESTS = pathlib.Path(__file__).resolve().parents[1]
STRUCTURAL = {"placeholder", "parameter", "variable", "seed"}  # become arguments of main


@pytest.mark.parametrize("name", sorted(all_ops()))
def test_every_rule_is_present_or_explained(name):
    op = all_ops()[name]
    assert callable(op.infer)
    for rule in RULES:
        fn = getattr(op, rule)
        assert fn is not None or op.reasons.get(rule) or rule == "jvp", (
            f"{name}.{rule} is neither written nor explained"
        )
    assert op.lower is not None or name in STRUCTURAL, f"{name} cannot be lowered"
    assert op.doc or op.lower is None, f"{name} has no doc"


def test_every_elementwise_op_folds_or_says_why():
    """sg.simplify folds elementwise ops of constants by their fold rule; transforms/test_simplify.py
    checks every fold rule against XLA."""
    missing = [
        name for name, op in all_ops().items()
        if "elementwise" in op.traits and op.fold is None and not op.reasons.get("fold")
    ]  # fmt: skip
    assert not missing, f"elementwise ops with neither a fold rule nor a reason: {missing}"


def test_every_primitive_appears_in_a_test():
    text = "\n".join(p.read_text() for p in TESTS.rglob("test_*.py") if p.name != "test_registry.py")
    missing = [
        name for name, op in all_ops().items()
        if name not in STRUCTURAL and not re.search(rf"\b{re.escape(name)}_?\b", text)
    ]  # fmt: skip
    assert not missing, f"primitives no test mentions: {missing}"


def test_a_missing_rule_is_a_clear_error():
    op = all_ops()["placeholder"]
    with pytest.raises(
        sg.GraphError, match="op placeholder has no lower rule \\(becomes an argument of main\\)"
    ):
        op.rule("lower")
