"""Indexing primitives: gather and scatter in StableHLO's general form (ops layer).

Both ops take their index arrays as integer tensors and describe how index
vectors address the operand with StableHLO's dimension numbers. Batch dims of
the indices may be symbolic; window sizes are ints, or a symbol that takes a
symbolic operand dim whole. sg.numpy builds numpy indexing (``x[i, :, j]``,
``x.at[i].add(v)``, take, take_along_axis) from these two ops.

Each op is a module of its own (ops/gather.py, ops/scatter.py, their shared
dimension-number checks in ops/index_dims.py); this module gathers their
public names and add_along_axis, the scatter-add that vjp rules build
(defined in ops/ad_util.py).
"""

from __future__ import annotations

from .ad_util import add_along_axis
from .gather import GatherAttrs, gather, gather_op
from .scatter import SCATTER_KINDS, ScatterAttrs, scatter, scatter_op

__all__ = [
    "GatherAttrs", "gather", "gather_op",
    "SCATTER_KINDS", "ScatterAttrs", "add_along_axis", "scatter", "scatter_op",
]  # fmt: skip
