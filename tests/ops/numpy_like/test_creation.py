"""sg.numpy creation functions (ops/numpy_like/creation.py) against numpy, in one graph per test."""

from __future__ import annotations

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

f32, f64, i32 = np.float32, np.float64, np.int32

# name -> (builder, numpy reference with the dtype we promise)
CASES = {
    "zeros": (lambda: snp.zeros((2, 3)), np.zeros((2, 3), f32)),
    "zeros_int": (lambda: snp.zeros(4, sg.int32), np.zeros(4, i32)),
    "zeros_0d": (lambda: snp.zeros(()), np.zeros((), f32)),
    "zeros_np_int": (lambda: snp.zeros(np.int64(3), "float64"), np.zeros(3, f64)),
    "ones_bool": (lambda: snp.ones([2, 2], sg.bool_), np.ones((2, 2), bool)),
    "ones_f64": (lambda: snp.ones((3,), np.float64), np.ones(3, f64)),
    "empty": (lambda: snp.empty((2, 0)), np.zeros((2, 0), f32)),
    "full_int": (lambda: snp.full((2, 3), 7), np.full((2, 3), 7, i32)),
    "full_float": (lambda: snp.full((2,), 2.5), np.full(2, 2.5, f32)),
    "full_row": (lambda: snp.full((3, 2), [1, 2], dtype=sg.float32), np.full((3, 2), [1, 2], f32)),
    "full_tensor": (lambda: snp.full((2, 2), snp.asarray(3.0, sg.float64)), np.full((2, 2), 3.0, f64)),
    "full_like": (lambda: snp.full_like(np.ones((2, 3), np.int8), 5), np.full((2, 3), 5, np.int8)),
    "ones_like_dtype": (lambda: snp.ones_like(np.ones(3, f32), dtype=sg.int32), np.ones(3, i32)),
    "zeros_like_shape": (lambda: snp.zeros_like(np.ones(3, f32), shape=(2, 2)), np.zeros((2, 2), f32)),
    "empty_like": (lambda: snp.empty_like(np.ones((1, 2), bool)), np.zeros((1, 2), bool)),
    "array": (lambda: snp.array([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]], i32)),
    "array_ndmin": (lambda: snp.array([1.0, 2.0], ndmin=3), np.array([1.0, 2.0], f32, ndmin=3)),
    "array_dtype": (lambda: snp.array(np.arange(3), dtype=sg.float32), np.arange(3, dtype=f32)),
    "arange": (lambda: snp.arange(5), np.arange(5, dtype=i32)),
    "arange_start": (lambda: snp.arange(-3, 4), np.arange(-3, 4, dtype=i32)),
    "arange_step": (lambda: snp.arange(10, -3, -4), np.arange(10, -3, -4, dtype=i32)),
    "arange_empty": (lambda: snp.arange(5, 2), np.arange(5, 2, dtype=i32)),
    "arange_float": (lambda: snp.arange(0, 1, 0.1), np.arange(0, 1, 0.1).astype(f32)),
    "arange_float_stop": (lambda: snp.arange(2.5), np.arange(2.5).astype(f32)),
    "arange_neg_float": (lambda: snp.arange(1.0, -1.0, -0.25), np.arange(1.0, -1.0, -0.25).astype(f32)),
    "arange_f64": (lambda: snp.arange(0, 2, 0.3, dtype=sg.float64), np.arange(0, 2, 0.3)),
    "arange_int64": (lambda: snp.arange(3, 9, 2, dtype="int64"), np.arange(3, 9, 2)),
    "arange_float_dtype": (lambda: snp.arange(4, dtype=sg.float32), np.arange(4, dtype=f32)),
    "arange_np_scalars": (lambda: snp.arange(np.int32(2), np.int64(6)), np.arange(2, 6, dtype=np.int64)),
    "arange_np_float": (lambda: snp.arange(np.float64(0.5), 2), np.arange(0.5, 2)),
    "arange_big": (lambda: snp.arange(2**40, 2**40 + 3), np.arange(2**40, 2**40 + 3)),
    "linspace": (lambda: snp.linspace(0, 1, 5), np.linspace(0, 1, 5, dtype=f32)),
    "linspace_default": (lambda: snp.linspace(-2.0, 3.0), np.linspace(-2.0, 3.0).astype(f32)),
    "linspace_open": (lambda: snp.linspace(1, 2, 4, endpoint=False), np.linspace(1, 2, 4, endpoint=False).astype(f32)),
    "linspace_one": (lambda: snp.linspace(3, 7, 1), np.linspace(3, 7, 1).astype(f32)),
    "linspace_none": (lambda: snp.linspace(3, 7, 0), np.linspace(3, 7, 0).astype(f32)),
    "linspace_int": (lambda: snp.linspace(0, 10, 4, dtype=sg.int32), np.linspace(0, 10, 4, dtype=i32)),
    "linspace_neg_int": (lambda: snp.linspace(-5, 0, 4, dtype=sg.int32), np.linspace(-5, 0, 4, dtype=i32)),
    "linspace_f64": (lambda: snp.linspace(np.float64(0), 1, 7), np.linspace(0, 1, 7)),
    "linspace_arrays": (lambda: snp.linspace([0, 1], [[2, 3], [4, 5]], 3), np.linspace([0, 1], [[2, 3], [4, 5]], 3).astype(f32)),
    "linspace_axis": (lambda: snp.linspace([0.0, 10.0], 1.0, 3, axis=-1), np.linspace([0.0, 10.0], 1.0, 3, axis=-1).astype(f32)),
    "eye": (lambda: snp.eye(3), np.eye(3, dtype=f32)),
    "eye_rect": (lambda: snp.eye(3, 5, k=2, dtype=sg.int32), np.eye(3, 5, k=2, dtype=i32)),
    "eye_below": (lambda: snp.eye(4, 2, k=-1, dtype=bool), np.eye(4, 2, k=-1, dtype=bool)),
    "identity": (lambda: snp.identity(2, sg.float64), np.identity(2)),
    "tri": (lambda: snp.tri(3, 4), np.tri(3, 4, dtype=f32)),
    "tri_k": (lambda: snp.tri(4, 3, k=-1, dtype=sg.int32), np.tri(4, 3, k=-1, dtype=i32)),
}  # fmt: skip


def _check(got, want, key):
    assert got.dtype == want.dtype, (key, got.dtype, want.dtype)
    assert got.shape == want.shape, (key, got.shape, want.shape)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=key)
    else:
        np.testing.assert_array_equal(got, want, err_msg=key)


def test_creation_cases(run):
    got = run(lambda: {k: build() for k, (build, _) in CASES.items()})
    for key, (_, want) in CASES.items():
        _check(got[key], want, key)


def test_static_dtypes_and_shapes():
    g = sg.Graph()
    with g:
        assert snp.zeros(("batch", 3)).type == sg.TensorType(("batch", 3), sg.float32)
        assert snp.arange(5).dtype is sg.int32
        assert snp.arange(5.0).dtype is sg.float32
        assert snp.arange(0, 3, 0.5).shape == (6,)
        assert snp.linspace(0, 1, 3).dtype is sg.float32
        assert snp.eye(2).dtype is sg.float32
        y, step = snp.linspace(0, 1, 5, retstep=True)
        assert step.shape == () and step.dtype is sg.float32


def test_symbolic_shapes_and_like(run, rng):
    x = rng.standard_normal((4, 3)).astype(f32)
    m = rng.standard_normal((2, 4, 4)).astype(f32)
    ints = rng.integers(-9, 9, (4, 3)).astype(np.int32)

    def build(x, m, ints):
        return dict(
            zeros=snp.zeros(("batch", 3)),
            ones_sym=snp.ones(("batch", "batch"), sg.int32),
            zeros_like=snp.zeros_like(x),
            ones_like=snp.ones_like(x, dtype=sg.bool_),
            full_like=snp.full_like(ints, -2),
            empty_like=snp.empty_like(x),
            tril=snp.tril(m),
            triu=snp.triu(m, 1),
            tril_k=snp.tril(ints, -1),
            triu_neg=snp.triu(ints, -2),
            full_row=snp.full(("batch", 3), [1.0, 2.0, 3.0]),
        )

    got = run(build, x, m, ints, symbolic={0: ("batch", 3), 1: ("n", "k", "k"), 2: ("batch", 3)})
    want = dict(
        zeros=np.zeros((4, 3), f32),
        ones_sym=np.ones((4, 4), i32),
        zeros_like=np.zeros_like(x),
        ones_like=np.ones((4, 3), bool),
        full_like=np.full_like(ints, -2),
        empty_like=np.zeros_like(x),
        tril=np.tril(m),
        triu=np.triu(m, 1),
        tril_k=np.tril(ints, -1),
        triu_neg=np.triu(ints, -2),
        full_row=np.full((4, 3), [1.0, 2.0, 3.0], f32),
    )
    for key, w in want.items():
        _check(got[key], w, key)


def test_tril_triu_bool_and_float64(run):
    b = np.random.default_rng(1).random((3, 5)) < 0.7
    d = np.arange(12.0).reshape(4, 3)
    got = run(lambda: [snp.tril(b, 2), snp.triu(b), snp.tril(d), snp.triu(d, -1)])
    for g, w in zip(got, [np.tril(b, 2), np.triu(b), np.tril(d), np.triu(d, -1)]):
        _check(g, w, "tri")


ERRORS = [
    (lambda x: snp.arange(x), "arange wants static Python numbers"),
    (lambda x: snp.arange(0, 3, 0), "arange wants a nonzero step"),
    (lambda x: snp.linspace(0, 1, -1), "linspace wants num >= 0, got -1"),
    (lambda x: snp.tril(snp.arange(3)), "tril/triu want an array of at least 2 dims, got i32[3]"),
    (lambda x: snp.zeros((2, -1)), "zeros wants a shape of ints or symbol names"),
    (lambda x: snp.full((2,), np.ones(3)), "cannot broadcast"),
    (lambda x: snp.full((), np.ones(3)), "full cannot broadcast a fill value of shape (3,) to ()"),
]


@pytest.mark.parametrize("fn, part", ERRORS)
def test_errors_point_at_the_line(fn, part):
    g = sg.Graph()
    with g:
        x = sg.placeholder((), sg.float32)
        with pytest.raises(sg.GraphError) as e:
            fn(x)
    msg = str(e.value)
    assert f"test_creation.py:{fn.__code__.co_firstlineno}" in msg, msg
    assert part in msg, msg
