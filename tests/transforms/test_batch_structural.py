"""Batch rules of the structural primitives: vectorize equals a loop over lanes, every axis choice.

shape (broadcast_in_dim, reshape, transpose), slicing (slice, rev, pad, concatenate,
dynamic_slice, dynamic_update_slice), dim_size, threefry2x32 and placeholder_with_default;
each check_vectorize call builds all its cases into one graph. The symbolic test batches
operands whose other dims are symbols through a vectorized Function, whose rules see the
batch size as the symbol "vmap" (dim_size only appears for a symbolic dim).
"""

from __future__ import annotations

import numpy as np

import stablegraph as sg
from stablegraph.ops.primitives import compare, constants, elementwise, shape, slicing
from stablegraph.ops.primitives.batching import inserted
from stablegraph.ops.primitives.threefry import threefry2x32
from stablegraph.test_util import check_vectorize

U32_MAX = np.iinfo(np.uint32).max


def _scalar(v, k: int):
    """Element k of the vector v, as a scalar (a slice and a reshape)."""
    return shape.reshape(slicing.slice(v, (k,), (k + 1,)), ())


def _shape_cases(x, y):
    # x: (2, 3, 4); y: (3, 1)
    return (
        shape.transpose(x, (2, 0, 1)),
        shape.reshape(x, (6, 4)),  # the batch axis stays where the dims before it end, else goes first
        shape.reshape(x, (2, 12, 1)),
        shape.broadcast_in_dim(x, (2, 5, 3, 4), (0, 2, 3)),
        shape.broadcast_in_dim(y, (3, 4, 2), (0, 2)),  # a size-1 dim repeated
        shape.broadcast_in_dim(_scalar(shape.reshape(y, (3,)), 1), (2, 2), ()),
        sg.placeholder_with_default(y),
    )


def test_shape_ops_batch_like_a_loop():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    check_vectorize(_shape_cases, [x, np.ones((3, 1), np.float32)])


def _static_slicing_cases(x, v):
    # x: (4, 3); v: a scalar padding value
    ones = constants.constant(np.ones((4, 1), np.float32))
    return (
        slicing.slice(x, (1, 0), (4, 3), (2, 2)),
        slicing.rev(x, (0, 1)),
        slicing.pad(x, v, (1, -1), (0, 2), (1, 0)),  # a batched v: a pad, a mask and a select
        slicing.pad(x, constants.constant(7.0), (0, 1), (2, 0)),
        slicing.concatenate([x, ones, x], 1),
        slicing.concatenate([x, shape.broadcast_in_dim(v, (4, 2), ())], 1),  # batch axes apart
    )


def test_static_slicing_ops_batch_like_a_loop():
    check_vectorize(_static_slicing_cases, [np.ones((4, 3), np.float32), np.float32(0)])


def _dynamic_slicing_cases(x, starts):
    # x: (5, 3); starts: 2 ints, some out of range (the ops clamp them); u: an update batched
    # with the starts, c, d: unbatched operand and update
    i, j = _scalar(starts, 0), _scalar(starts, 1)
    u = shape.broadcast_in_dim(compare.convert(starts, "float32"), (2, 2), (1,))
    c = constants.constant(np.arange(15, dtype=np.float32).reshape(5, 3))
    d = constants.constant(np.full((2, 2), -1, np.float32))
    return (
        slicing.dynamic_slice(x, (i, j), (2, 2)),
        slicing.dynamic_slice(x, (i, 1), (3, 1)),
        slicing.dynamic_update_slice(x, d, (i, j)),
        slicing.dynamic_update_slice(x, slicing.slice(x, (0, 0), (2, 2)), (0, j)),
        slicing.dynamic_update_slice(x, u, (1, 0)),
        slicing.dynamic_update_slice(c, u, (i, j)),
    )


def test_dynamic_slicing_ops_batch_like_a_loop():
    # starts are drawn per lane from [-1, 5]: per-lane starts become a gather or a scatter
    check_vectorize(_dynamic_slicing_cases, [np.ones((5, 3), np.float32), np.array([-1, 5], np.int32)])


def _threefry_cases(k, x):
    # k: (3,), a key word per column; its first two words as (2, 1), one per row; x: (2, 3)
    # counters, paired with unbatched ones
    by_row = shape.reshape(slicing.slice(k, (0,), (2,)), (2, 1))
    return threefry2x32(k, by_row, x, constants.constant(np.arange(6, dtype=np.uint32).reshape(2, 3)))


def test_threefry2x32_batches_bit_for_bit():
    words = np.array([0, U32_MAX, 7], np.uint32)
    check_vectorize(_threefry_cases, [words, np.stack([words, words[::-1]])], atol=0, rtol=0)


def _check_symbolic(fn, lane_types, lanes_for, axes_list, size: int = 3):
    """``vectorize(sg.function(fn, lane_types), in_axes)`` (its batch size is the symbol "vmap" while
    the rules run) against ``fn`` on each lane, for each in_axes in ``axes_list``, in one graph.
    ``lanes_for(i)`` draws argument i of one lane; an unbatched argument is the same in every lane."""
    vectorized = {axes: sg.vectorize(sg.function(fn, lane_types), in_axes=axes) for axes in axes_list}
    g, fetches, feeds = sg.Graph(), [], {}
    with g:
        for axes, f in vectorized.items():
            lanes = [[lanes_for(i) for _ in range(size)] if b is not None else [lanes_for(i)] * size
                     for i, b in enumerate(axes)]  # fmt: skip
            phs = []
            for t, b, ls in zip(lane_types, axes, lanes):
                value = ls[0] if b is None else np.stack(ls, b)
                phs.append(sg.placeholder(t.shape if b is None else inserted(t.shape, b, size), t.dtype))
                feeds[phs[-1]] = value
            per_lane = []
            for j in range(size):
                lane_phs = [sg.placeholder(t.shape, t.dtype) for t in lane_types]
                feeds.update({ph: ls[j] for ph, ls in zip(lane_phs, lanes)})
                per_lane.append(fn(*lane_phs))
            fetches.append((axes, f(*phs), per_lane))
    with sg.Session(g) as sess:
        results = sess.run([[got, per_lane] for _, got, per_lane in fetches], feeds)
    for (axes, _, _), (got, per_lane) in zip(fetches, results):
        for i, out in enumerate(got):
            np.testing.assert_array_equal(
                out, np.stack([lane[i] for lane in per_lane]), f"in_axes={axes}, output {i}"
            )


def _symbolic_cases(x, v, starts, k):
    # x: (n, 3); v: a scalar; starts: 2 ints; k: a uint32 key word
    n, (i, j) = x.shape[0], (_scalar(starts, 0), _scalar(starts, 1))
    bits = compare.bitcast_convert(x, "uint32")
    return (
        shape.transpose(x, (1, 0)),
        shape.reshape(x, (3, n)),
        shape.broadcast_in_dim(x, (n, 2, 3), (0, 2)),
        slicing.slice(x, (1, 0), (n, 3)),
        slicing.rev(x, (0,)),
        slicing.pad(x, v, (1, 0), (0, 1), (1, 0)),
        slicing.concatenate([x, slicing.rev(x, (0,))], 0),
        slicing.dynamic_slice(x, (i, j), (2, 2)),
        slicing.dynamic_update_slice(x, slicing.slice(x, (0, 0), (1, 2)), (i, j)),
        elementwise.apply(elementwise.mul, compare.convert(constants.dim_size(x, 0), "float32"), v),
        compare.clamp(v, x, constants.constant(np.float32(0.5))),
        compare.select(compare.compare(v, constants.constant(np.float32(0)), "LT"), x, slicing.rev(x, (0,))),
        *threefry2x32(k, k, bits, slicing.rev(bits, (1,))),
    )


def test_symbolic_dims_and_batch_size():
    rng = np.random.default_rng(1)
    types = [sg.TensorType(("n", 3), sg.float32), sg.TensorType((), sg.float32),
             sg.TensorType((2,), sg.int32), sg.TensorType((), sg.uint32)]  # fmt: skip
    draws = [
        lambda: rng.normal(size=(4, 3)).astype(np.float32),
        lambda: np.float32(rng.normal()),
        lambda: rng.integers(-1, 5, 2).astype(np.int32),
        lambda: rng.integers(0, U32_MAX, dtype=np.uint32, endpoint=True),
    ]
    axes = [(0, None, 0, None), (2, 0, None, 0), (None, 0, 0, 0)]
    _check_symbolic(_symbolic_cases, types, lambda i: draws[i](), axes)
