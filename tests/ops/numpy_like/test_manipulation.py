"""sg.numpy shape manipulation (ops/numpy_like/manipulation.py) against numpy, in one graph per test."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stablegraph as sg
from stablegraph import numpy as snp

f32, f64, i32 = np.float32, np.float64, np.int32
RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 3, 4)).astype(f32)
B = RNG.integers(-5, 5, (2, 3)).astype(i32)
C = RNG.random(3) < 0.5
D = RNG.standard_normal((3, 2))  # float64: enters graphs as a constant

# name -> (builder on (a, b, c) placeholders, numpy reference, dtype we promise where numpy differs)
CASES = {
    "concat_axis1": (lambda a, b, c: snp.concatenate([a, a], 1), lambda: np.concatenate([A, A], 1), None),
    "concat_neg": (lambda a, b, c: snp.concatenate((a, snp.flip(a, 2)), -1), lambda: np.concatenate([A, A[..., ::-1]], -1), None),
    "concat_none": (lambda a, b, c: snp.concatenate([b, c], axis=None), lambda: np.concatenate([B, C], axis=None), None),
    "concat_promote": (lambda a, b, c: snp.concatenate([b, snp.ones((1, 3))]), lambda: np.concatenate([B, np.ones((1, 3))]), f32),
    "concat_f64": (lambda a, b, c: snp.concatenate([D, snp.transpose(b)], 1), lambda: np.concatenate([D, B.T], 1), None),
    "concat_dtype": (lambda a, b, c: snp.concatenate([b, b], dtype=sg.float32), lambda: np.concatenate([B, B]).astype(f32), None),
    "concat_lists": (lambda a, b, c: snp.concatenate([[1, 2], c]), lambda: np.concatenate([[1, 2], C]), i32),
    "stack_weak": (lambda a, b, c: snp.stack([snp.ones((), sg.int8), 3, 5]), lambda: np.array([1, 3, 5]), np.int8),
    "concat_weak": (lambda a, b, c: snp.concatenate([snp.ravel(snp.asarray(a, sg.float16)), [1.5]]), lambda: np.concatenate([A.astype(np.float16).ravel(), [1.5]]), np.float32),
    "hstack_weak": (lambda a, b, c: snp.hstack([snp.asarray(c, sg.uint8), 7]), lambda: np.hstack([C, 7]), np.uint8),
    "stack0": (lambda a, b, c: snp.stack([b, b * 2]), lambda: np.stack([B, B * 2]), None),
    "stack_last": (lambda a, b, c: snp.stack([b, b, b], axis=-1), lambda: np.stack([B, B, B], -1), None),
    "stack_mid": (lambda a, b, c: snp.stack((c, c), 1), lambda: np.stack([C, C], 1), None),
    "asarray_tensors": (lambda a, b, c: snp.asarray([b, b]), lambda: np.asarray([B, B]), None),
    "asarray_nested": (lambda a, b, c: snp.asarray([[b[0, 0], 2], [3.5, b[1, 2]]]), lambda: np.asarray([[B[0, 0], 2], [3.5, B[1, 2]]], f32), f32),
    "hstack1": (lambda a, b, c: snp.hstack([c, c, c]), lambda: np.hstack([C, C, C]), None),
    "hstack2": (lambda a, b, c: snp.hstack([b, b]), lambda: np.hstack([B, B]), None),
    "vstack": (lambda a, b, c: snp.vstack([b, c]), lambda: np.vstack([B, C]), None),
    "vstack1": (lambda a, b, c: snp.vstack([c, c]), lambda: np.vstack([C, C]), None),
    "dstack": (lambda a, b, c: snp.dstack([b, b]), lambda: np.dstack([B, B]), None),
    "column_stack": (lambda a, b, c: snp.column_stack([c, c]), lambda: np.column_stack([C, C]), None),
    "column_stack2": (lambda a, b, c: snp.column_stack([snp.transpose(b), c]), lambda: np.column_stack([B.T, C]), i32),
    "split": (lambda a, b, c: snp.split(a, 2, axis=2), lambda: np.split(A, 2, axis=2), None),
    "split_idx": (lambda a, b, c: snp.split(a, [1, -1], axis=2), lambda: np.split(A, [1, -1], axis=2), None),
    "split_back": (lambda a, b, c: snp.split(a, [2, 1, 9], axis=1), lambda: np.split(A, [2, 1, 9], axis=1), None),
    "array_split": (lambda a, b, c: snp.array_split(a, 3, axis=-1), lambda: np.array_split(A, 3, axis=-1), None),
    "array_split_many": (lambda a, b, c: snp.array_split(b, 5, axis=1), lambda: np.array_split(B, 5, axis=1), None),
    "hsplit": (lambda a, b, c: snp.hsplit(b, 3), lambda: np.hsplit(B, 3), None),
    "hsplit1": (lambda a, b, c: snp.hsplit(c, [1]), lambda: np.hsplit(C, [1]), None),
    "vsplit": (lambda a, b, c: snp.vsplit(b, 2), lambda: np.vsplit(B, 2), None),
    "flip_all": (lambda a, b, c: snp.flip(a), lambda: np.flip(A), None),
    "flip_1": (lambda a, b, c: snp.flip(a, 1), lambda: np.flip(A, 1), None),
    "flip_2": (lambda a, b, c: snp.flip(a, (0, -1)), lambda: np.flip(A, (0, -1)), None),
    "fliplr": (lambda a, b, c: snp.fliplr(b), lambda: np.fliplr(B), None),
    "flipud": (lambda a, b, c: snp.flipud(c), lambda: np.flipud(C), None),
    "moveaxis": (lambda a, b, c: snp.moveaxis(a, 0, -1), lambda: np.moveaxis(A, 0, -1), None),
    "moveaxis2": (lambda a, b, c: snp.moveaxis(a, [0, 1], [-1, -3]), lambda: np.moveaxis(A, [0, 1], [-1, -3]), None),
    "swapaxes": (lambda a, b, c: snp.swapaxes(a, 0, 2), lambda: np.swapaxes(A, 0, 2), None),
    "ravel": (lambda a, b, c: snp.ravel(a), lambda: np.ravel(A), None),
    "ravel_0d": (lambda a, b, c: snp.ravel(3), lambda: np.ravel(3), i32),
    "broadcast_to": (lambda a, b, c: snp.broadcast_to(c, (2, 3)), lambda: np.broadcast_to(C, (2, 3)), None),
    "broadcast_to_int": (lambda a, b, c: snp.broadcast_to(2.5, 3), lambda: np.broadcast_to(2.5, 3), f32),
    "broadcast_arrays": (lambda a, b, c: snp.broadcast_arrays(b, c, 1), lambda: np.broadcast_arrays(B, C, np.int32(1)), None),
    "clip": (lambda a, b, c: snp.clip(a, -0.5, 0.5), lambda: np.clip(A, -0.5, 0.5), None),
    "clip_lo": (lambda a, b, c: snp.clip(b, 0, None), lambda: np.clip(B, 0, None), None),
    "clip_hi_float": (lambda a, b, c: snp.clip(b, None, 1.5), lambda: np.clip(B, None, 1.5), f32),
    "clip_kw": (lambda a, b, c: snp.clip(b, min=-1, max=2), lambda: np.clip(B, -1, 2), None),
    "clip_arrays": (lambda a, b, c: snp.clip(a, a_min=np.zeros(4, f32), a_max=0.3), lambda: np.clip(A, np.zeros(4, f32), 0.3), None),
    "clip_none": (lambda a, b, c: snp.clip(b), lambda: B, None),
    "tile": (lambda a, b, c: snp.tile(c, 2), lambda: np.tile(C, 2), None),
    "tile_more": (lambda a, b, c: snp.tile(b, (2, 1, 2)), lambda: np.tile(B, (2, 1, 2)), None),
    "tile_fewer": (lambda a, b, c: snp.tile(a, (3,)), lambda: np.tile(A, (3,)), None),
    "tile_zero": (lambda a, b, c: snp.tile(b, 0), lambda: np.tile(B, 0), None),
    "tile_f64": (lambda a, b, c: snp.tile(D, (1, 2)), lambda: np.tile(D, (1, 2)), None),
    "repeat": (lambda a, b, c: snp.repeat(b, 2), lambda: np.repeat(B, 2), None),
    "repeat_axis": (lambda a, b, c: snp.repeat(b, 3, axis=1), lambda: np.repeat(B, 3, axis=1), None),
    "repeat_list": (lambda a, b, c: snp.repeat(a, [2], axis=0), lambda: np.repeat(A, [2], axis=0), None),
    "repeat_same": (lambda a, b, c: snp.repeat(c, [2, 2, 2], axis=0), lambda: np.repeat(C, [2, 2, 2], axis=0), None),
    "repeat_zero": (lambda a, b, c: snp.repeat(c, 0), lambda: np.repeat(C, 0), None),
    "atleast_1d": (lambda a, b, c: snp.atleast_1d(5.0), lambda: np.atleast_1d(5.0), f32),
    "atleast_1d_many": (lambda a, b, c: snp.atleast_1d(b, 1), lambda: np.atleast_1d(B, 1), i32),
    "atleast_2d": (lambda a, b, c: snp.atleast_2d(c), lambda: np.atleast_2d(C), None),
    "atleast_2d_0d": (lambda a, b, c: snp.atleast_2d(True), lambda: np.atleast_2d(True), None),
    "atleast_3d_1": (lambda a, b, c: snp.atleast_3d(c), lambda: np.atleast_3d(C), None),
    "atleast_3d_2": (lambda a, b, c: snp.atleast_3d(b), lambda: np.atleast_3d(B), None),
    "atleast_3d_0": (lambda a, b, c: snp.atleast_3d(2), lambda: np.atleast_3d(2), i32),
    "atleast_3d_3": (lambda a, b, c: snp.atleast_3d(a), lambda: np.atleast_3d(A), None),
    "pad_int": (lambda a, b, c: snp.pad(b, 1), lambda: np.pad(B, 1), None),
    "pad_pairs": (lambda a, b, c: snp.pad(b, ((1, 2), (0, 3)), constant_values=9), lambda: np.pad(B, ((1, 2), (0, 3)), constant_values=9), None),
    "pad_pair": (lambda a, b, c: snp.pad(a, (1, 2)), lambda: np.pad(A, (1, 2)), None),
    "pad_one": (lambda a, b, c: snp.pad(a, [[2]]), lambda: np.pad(A, [[2]]), None),
    "pad_bool": (lambda a, b, c: snp.pad(c, 2, constant_values=True), lambda: np.pad(C, 2, constant_values=True), None),
    "pad_cast": (lambda a, b, c: snp.pad(b, (0, 1), constant_values=2.7), lambda: np.pad(B, (0, 1), constant_values=2.7), None),
    "pad_values": (lambda a, b, c: snp.pad(b, ((1, 1), (2, 0)), constant_values=((1, 2), (3, 4))), lambda: np.pad(B, ((1, 1), (2, 0)), constant_values=((1, 2), (3, 4))), None),
    "pad_value_pair": (lambda a, b, c: snp.pad(a, 1, constant_values=(-1, 1)), lambda: np.pad(A, 1, constant_values=(-1, 1)), None),
    "pad_tensor_value": (lambda a, b, c: snp.pad(b, 1, constant_values=snp.sum(b)), lambda: np.pad(B, 1, constant_values=B.sum()), None),
    "pad_f64": (lambda a, b, c: snp.pad(D, ((0, 1), (1, 0)), constant_values=0.5), lambda: np.pad(D, ((0, 1), (1, 0)), constant_values=0.5), None),
    "roll_flat": (lambda a, b, c: snp.roll(a, 5), lambda: np.roll(A, 5), None),
    "roll_axis": (lambda a, b, c: snp.roll(a, -2, axis=1), lambda: np.roll(A, -2, axis=1), None),
    "roll_multi": (lambda a, b, c: snp.roll(a, (1, 3), (0, 2)), lambda: np.roll(A, (1, 3), (0, 2)), None),
    "roll_big": (lambda a, b, c: snp.roll(b, 7, axis=-1), lambda: np.roll(B, 7, axis=-1), None),
    "roll_same_axis": (lambda a, b, c: snp.roll(c, (1, 1), (0, 0)), lambda: np.roll(C, (1, 1), (0, 0)), None),
    "roll_zero": (lambda a, b, c: snp.roll(b, 0, axis=0), lambda: np.roll(B, 0, axis=0), None),
    "reshape": (lambda a, b, c: snp.reshape(a, (4, -1)), lambda: np.reshape(A, (4, -1)), None),
    "transpose": (lambda a, b, c: snp.transpose(a, (1, 0, 2)), lambda: np.transpose(A, (1, 0, 2)), None),
    "expand_squeeze": (lambda a, b, c: snp.squeeze(snp.expand_dims(b, (0, 2))), lambda: B, None),
}  # fmt: skip


def _check(got, want, key, dtype=None):
    if isinstance(want, list | tuple):
        assert isinstance(got, list | tuple) and len(got) == len(want), (key, got)
        for g, w in zip(got, want):
            _check(g, w, key, dtype)
        return
    want = np.asarray(want)
    want = want.astype(dtype) if dtype is not None else want
    assert got.dtype == want.dtype, (key, got.dtype, want.dtype)
    assert got.shape == want.shape, (key, got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=key)


def test_manipulation_cases(run):
    got = run(lambda a, b, c: {k: build(a, b, c) for k, (build, _, _) in CASES.items()}, A, B, C)
    for key, (_, ref, dtype) in CASES.items():
        _check(got[key], ref(), key, dtype)


def test_symbolic_batch_dim(run):
    x = RNG.standard_normal((5, 3)).astype(f32)
    types = {}

    def build(x, c):
        out = dict(
            concat_cols=snp.concatenate([x, x], 1),
            concat_rows=snp.concatenate([x, snp.flip(x, 0)], 0),
            stack=snp.stack([x, x]),
            split=snp.split(x, 3, axis=1),
            flip=snp.flip(x),
            moveaxis=snp.moveaxis(x, 0, 1),
            swapaxes=snp.swapaxes(x, 0, 1),
            ravel=snp.ravel(x),
            broadcast_to=snp.broadcast_to(c, ("batch", 3)),
            broadcast_arrays=snp.broadcast_arrays(x, c),
            clip=snp.clip(x, -0.1, 0.2),
            tile=snp.tile(x, (2, 1)),
            repeat=snp.repeat(x, 2, axis=0),
            pad=snp.pad(x, ((0, 0), (1, 2))),
            roll=snp.roll(x, 1, axis=1),
            roll_zero=snp.roll(x, 0, axis=0),
            atleast_3d=snp.atleast_3d(x),
            hstack=snp.hstack([x, x]),
            vstack=snp.vstack([x, x]),
        )
        types.update({k: v.type for k, v in out.items() if isinstance(v, sg.Tensor)})
        return out

    got = run(build, x, C, symbolic={0: ("batch", 3)})
    want = dict(
        concat_cols=np.concatenate([x, x], 1),
        concat_rows=np.concatenate([x, x[::-1]], 0),
        stack=np.stack([x, x]),
        split=np.split(x, 3, axis=1),
        flip=np.flip(x),
        moveaxis=x.T,
        swapaxes=x.T,
        ravel=x.ravel(),
        broadcast_to=np.broadcast_to(C, (5, 3)),
        broadcast_arrays=np.broadcast_arrays(x, C),
        clip=np.clip(x, -0.1, 0.2),
        tile=np.tile(x, (2, 1)),
        repeat=np.repeat(x, 2, axis=0),
        pad=np.pad(x, ((0, 0), (1, 2))),
        roll=np.roll(x, 1, axis=1),
        roll_zero=x,
        atleast_3d=np.atleast_3d(x),
        hstack=np.hstack([x, x]),
        vstack=np.vstack([x, x]),
    )
    for key, w in want.items():
        _check(got[key], w, key)
    assert types["ravel"].shape == ("3*batch",)
    assert types["concat_rows"].shape == ("2*batch", 3)
    assert types["tile"].shape == ("2*batch", 3)
    assert types["repeat"].shape == ("2*batch", 3)
    assert types["stack"].shape == (2, "batch", 3)


ERRORS = [
    (lambda x: snp.concatenate([snp.sum(x), snp.sum(x)]), "concatenate cannot join 0-d arrays"),
    (lambda x: snp.concatenate([x, snp.ravel(x)]), "concatenate wants arrays of one rank, got f32[batch,4], f32[4*batch]"),
    (lambda x: snp.concatenate([]), "concatenate needs at least one array"),
    (lambda x: snp.concatenate(x), "concatenate wants a sequence of arrays"),
    (lambda x: snp.concatenate([x, x], axis=2), "axis 2 is out of range for an array of rank 2"),
    (lambda x: snp.concatenate([x, np.ones((3, 3), f32)], 1), "concatenate wants operands of one dtype and rank, equal outside dim 1"),
    (lambda x: snp.stack([x, snp.ones((2, 4))]), "stack wants arrays of one shape, got f32[batch,4], f32[2,4]"),
    (lambda x: snp.split(x, 3, axis=1), "split of 4 elements into 3 sections is not an equal division"),
    (lambda x: snp.split(x, 2, axis=0), "split needs a static size along axis 0, got f32[batch,4]"),
    (lambda x: snp.array_split(x, 0, axis=1), "array_split wants a positive number of sections, got 0"),
    (lambda x: snp.pad(x, 1, mode="bogus"), "pad wants mode in"),
    (lambda x: snp.pad(x, ((0, 0), (-1, 0))), "pad wants non-negative int pad widths"),
    (lambda x: snp.pad(x, ((0, 0), (1, 2), (3, 4))), "pad wants pad_width of shape (), (2,), (1, 2) or (2, 2)"),
    (lambda x: snp.repeat(x, [1, 2], axis=1), "repeat got 2 counts for 4 elements along axis 1"),
    (lambda x: snp.repeat(x, -1), "repeat wants a non-negative repeat count, got -1"),
    (lambda x: snp.roll(x, 1, axis=0), "roll needs a static size along axis 0, got f32[batch,4]"),
    (lambda x: snp.moveaxis(x, (0, 1), 0), "moveaxis wants as many source as destination axes"),
    (lambda x: snp.tile(x, (-1, 1)), "tile wants non-negative reps"),
    (lambda x: snp.flip(x, (0, 0)), "repeated axis"),
    (lambda x: snp.broadcast_to(x, (3, 4)), "cannot broadcast shapes (batch, 4) and (3, 4)"),
    (lambda x: snp.ravel(x, order="F"), "ravel supports order='C' only"),
]  # fmt: skip


@pytest.mark.parametrize("fn, part", ERRORS)
def test_errors_point_at_the_line(fn, part):
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 4), sg.float32)
        with pytest.raises(sg.GraphError) as e:
            fn(x)
    msg = str(e.value)
    assert f"test_manipulation.py:{fn.__code__.co_firstlineno}" in msg, msg
    assert part in msg, msg


@st.composite
def _split_case(draw):
    shape = draw(st.lists(st.integers(0, 5), min_size=1, max_size=3))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[axis]
    cuts = draw(st.one_of(st.integers(1, 4), st.lists(st.integers(-n - 1, n + 2), max_size=3)))
    return shape, axis, cuts


@settings(max_examples=12)
@given(_split_case())
def test_array_split_then_concatenate_round_trips(run, case):
    shape, axis, cuts = case
    x = np.arange(int(np.prod(shape)), dtype=f32).reshape(shape)
    pieces, whole = run(
        lambda x: (snp.array_split(x, cuts, axis), snp.concatenate(snp.array_split(x, cuts, axis), axis)), x
    )
    for got, want in zip(pieces, np.array_split(x, cuts, axis), strict=True):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(whole, np.concatenate(np.array_split(x, cuts, axis), axis))


@settings(max_examples=12)
@given(
    shape=st.lists(st.integers(0, 3), min_size=1, max_size=3),
    widths=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=3, max_size=3),
    value=st.integers(-3, 3),
)
def test_pad_matches_numpy(run, shape, widths, value):
    x = np.arange(int(np.prod(shape)), dtype=i32).reshape(shape)
    widths = widths[: len(shape)]
    got = run(lambda x: snp.pad(x, widths, constant_values=value), x)
    np.testing.assert_array_equal(got, np.pad(x, widths, constant_values=value))
