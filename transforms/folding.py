"""Constant folding for sg.simplify: running an op's ``fold`` rule, and splats (transforms layer).

Each op says how it folds, next to its other rules: ``OpDef.fold(attrs,
*arrays) -> array``, or None where folding would disagree with XLA (an
integer division by zero, a float to int conversion out of range). This
module only runs those rules and reads the op traits (graph/opdef.py) that
say what a node holds; it tests no op by its name.

A *splat* is a tensor whose elements all hold one value: a constant, or an
op that only moves elements ("moves_data") of a splat. Elementwise and
moving ops of splats fold to a splat even when their shape is symbolic or
large, written as a "broadcast" of a scalar constant.
"""

from __future__ import annotations

import numpy as np

SPLAT_LIMIT = 1024  # largest constant inspected for a repeated value


def constant_value(t) -> np.ndarray | None:
    """The value of a constant node's output (its fold of no inputs), else None."""
    node = t.node
    return node.op.fold(node.attrs) if "constant" in node.op.traits else None


def splat_value(t) -> np.ndarray | None:
    """The one value (0-d array) every element of ``t`` holds, if it is known, else None."""
    node = t.node
    if "moves_data" in node.op.traits:  # every element is one of the operand's
        return splat_value(node.inputs[0])
    value = constant_value(t)
    if value is None or not 0 < value.size <= SPLAT_LIMIT:
        return None
    first = value.reshape(-1)[0]
    return first if np.all(value == first) else None


def is_canonical_splat(node) -> bool:
    """A broadcast of a constant scalar: how folding writes splats, so never folded again.

    Found by the "broadcast" trait rather than by "moves_data": a reshape of a
    scalar constant to shape (1,) moves data too, but folds to the broadcast.
    """
    if "broadcast" not in node.op.traits:
        return False
    source = node.inputs[0]
    return "constant" in source.node.op.traits and source.type.shape == ()


def evaluate(op, attrs, arrays) -> list[np.ndarray] | None:
    """Run ``op``'s fold rule with numpy's warnings off; None where it has none, declines or numpy cannot."""
    if op.fold is None:
        return None
    try:
        with np.errstate(all="ignore"):
            out = op.fold(attrs, *arrays)
    except (TypeError, ValueError, ArithmeticError):
        return None  # e.g. a dtype (float8, bfloat16) numpy has no loop for
    if out is None:
        return None
    return [np.asarray(o) for o in out] if isinstance(out, tuple | list) else [np.asarray(out)]
