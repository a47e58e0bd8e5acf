"""Batch rules of compare, select, clamp, convert and bitcast_convert: vectorize equals a loop
over lanes, every axis choice, in one graph. select's predicate and clamp's bounds may be
scalars next to a full-shape operand, batched or not."""

from __future__ import annotations

import numpy as np

from stablegraph.ops.primitives import compare as C
from stablegraph.ops.primitives import constants
from stablegraph.test_util import check_vectorize


def _cases(ps, x):
    # ps: a bool scalar; x: (2, 3) float32; c, half: unbatched operands; p, lo: batched with x, ps
    c = constants.constant(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    half = constants.constant(np.float32(0.5))
    p, lo = C.compare(x, c, "LT"), C.convert(ps, "float32")
    return (
        p,
        C.select(p, x, c),
        C.select(p, c, half * c),  # a batched predicate between unbatched operands
        C.select(ps, x, c),  # a scalar predicate: stays one when unbatched, else broadcast
        C.select(ps, lo, half),  # all scalars
        C.clamp(lo, x, half),
        C.clamp(c, x, half),
        C.clamp(lo, c, half),  # a batched bound, an unbatched operand
        C.clamp(half, lo, half),
        C.convert(x, "int32"),
        C.bitcast_convert(x, "uint32"),
    )


def test_compare_select_clamp_convert_batch_like_a_loop():
    check_vectorize(_cases, [np.bool_(True), np.zeros((2, 3), np.float32)], atol=0, rtol=0)
