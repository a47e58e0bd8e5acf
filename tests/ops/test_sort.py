"""The sort, argmax and argmin primitives against numpy (NaN placement included)."""

import inspect

import numpy as np
import pytest

import stablegraph as sg
from stablegraph.ops.primitives.constants import iota
from stablegraph.ops.primitives.sort import argmax, argmin, sort

RNG = np.random.default_rng(5)
SHAPES = [(7,), (3, 5), (2, 3, 4)]


def _data(shape, dt):
    """Random values with many ties; floats get NaN and infinities mixed in."""
    if dt == np.bool_:
        return RNG.integers(0, 2, size=shape).astype(bool)
    x = RNG.integers(-4, 5, size=shape).astype(dt)
    if np.issubdtype(dt, np.floating):
        x = x + RNG.choice([0.0, 0.5], size=shape).astype(dt)
        flat = x.reshape(-1)
        flat[RNG.integers(0, flat.size, size=3)] = [np.nan, np.inf, -np.inf]
    if np.issubdtype(dt, np.complexfloating):
        x = (x + 1j * RNG.integers(-2, 3, size=shape)).astype(dt)
    return x


def _descending_stable_argsort(x, axis):
    """Indices of the reverse of numpy's order (NaN first), ties in their original order."""
    n = x.shape[axis]
    rev = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return np.flip(n - 1 - rev, axis)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.uint8, np.bool_, np.complex64])
def test_sort_values_and_indices_every_dim(run, dt):
    xs = [_data(s, dt) for s in SHAPES]
    cases = [(i, d, desc) for i, s in enumerate(SHAPES) for d in range(len(s)) for desc in (False, True)]

    def build(*ps):
        out = []
        for i, d, desc in cases:
            idx = iota(sg.int32, ps[i].shape, d)
            out.append(sort((ps[i], idx), d, descending=desc))
        return out

    got = run(build, *xs)
    for (i, d, desc), (values, idx) in zip(cases, got):
        x = xs[i]
        want = _descending_stable_argsort(x, d) if desc else np.argsort(x, axis=d, kind="stable")
        np.testing.assert_array_equal(idx, want, err_msg=f"{dt} shape {x.shape} dim {d} desc={desc}")
        np.testing.assert_array_equal(values, np.take_along_axis(x, want, d))
        assert values.dtype == dt


def test_sort_puts_nan_last_and_keeps_signed_zero_ties(run):
    x = np.array([np.nan, 1.0, -np.nan, -0.0, 0.0, -np.inf, np.inf, -1.0], np.float32)
    got = run(lambda p: [sort(p), sort(p, descending=True), sort((p, iota(sg.int32, (8,))), 0)[1]], x)
    np.testing.assert_array_equal(got[0], np.sort(x))
    np.testing.assert_array_equal(np.signbit(got[0][2:4]), [True, False])  # -0.0 before 0.0: stable
    np.testing.assert_array_equal(got[1], np.sort(x)[::-1])
    np.testing.assert_array_equal(got[2], np.argsort(x, kind="stable"))


def test_sort_with_two_keys_is_lexicographic(run):
    a = RNG.integers(0, 3, size=(4, 9)).astype(np.int32)
    b = RNG.normal(size=(4, 9)).astype(np.float64)
    b[0, :3] = np.nan
    got = run(lambda p, q: sort((p, q, iota(sg.int32, (4, 9), 1)), 1, num_keys=2), a, b)
    for row in range(4):
        want = np.lexsort((b[row], a[row]))
        np.testing.assert_array_equal(got[2][row], want)
        np.testing.assert_array_equal(got[0][row], a[row][want])


def test_sort_on_a_symbolic_dim(run):
    x = RNG.normal(size=(5, 6)).astype(np.float32)
    got = run(lambda p: [sort(p, 1), sort(p, 0)], x, symbolic={0: ("batch", 6)})
    np.testing.assert_array_equal(got[0], np.sort(x, 1))
    np.testing.assert_array_equal(got[1], np.sort(x, 0))


@pytest.mark.parametrize(
    "dt", [np.float32, np.float64, np.int32, np.int8, np.uint16, np.bool_, np.complex128]
)
def test_argmax_argmin_first_index_and_nan(run, dt):
    xs = [_data(s, dt) for s in SHAPES]
    if np.issubdtype(dt, np.floating):
        xs[1][0, :] = np.nan  # a row of NaN only
        xs[1][1, 1:] = -np.inf  # a row whose ties are all the extreme value
    cases = [(i, d) for i, s in enumerate(SHAPES) for d in range(len(s))]
    got = run(lambda *ps: [(argmax(ps[i], d), argmin(ps[i], d)) for i, d in cases], *xs)
    for (i, d), (amax, amin) in zip(cases, got):
        np.testing.assert_array_equal(amax, np.argmax(xs[i], axis=d), err_msg=f"argmax {dt} {i} {d}")
        np.testing.assert_array_equal(amin, np.argmin(xs[i], axis=d), err_msg=f"argmin {dt} {i} {d}")
        assert amax.dtype == np.int32


def test_argmax_extreme_integers_and_index_dtype(run):
    info = np.iinfo(np.int32)
    x = np.array([[info.min, info.min, info.min], [info.max, 0, info.max]], np.int32)
    got = run(lambda p: [argmax(p, 1), argmin(p, 1), argmax(p, -1, sg.int64)], x)
    np.testing.assert_array_equal(got[0], [0, 0])
    np.testing.assert_array_equal(got[1], [0, 1])
    assert got[2].dtype == np.int64


def test_argmax_over_a_symbolic_dim(run):
    x = RNG.normal(size=(7, 4)).astype(np.float32)
    got = run(lambda p: [argmax(p, 0), argmin(p, 1)], x, symbolic={0: ("batch", 4)})
    np.testing.assert_array_equal(got[0], np.argmax(x, 0))
    np.testing.assert_array_equal(got[1], np.argmin(x, 1))


def test_errors_name_the_op_the_shapes_and_this_line():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3, 4), sg.float32)
        y = sg.placeholder((4, 3), sg.int32)
        e0 = sg.placeholder((3, 0), sg.float32)
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            sort((x, y), 0)
        assert "sort wants operands of one shape" in str(e.value)
        assert "f32[3,4]" in str(e.value) and "i32[4,3]" in str(e.value)
        assert f"test_sort.py:{line}" in str(e.value)
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            argmax(x, 2)
        assert "argmax wants 0 <= axis < 2" in str(e.value) and "f32[3,4]" in str(e.value)
        assert f"test_sort.py:{line}" in str(e.value)
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            argmin(e0, 1)
        assert "argmin of an empty axis 1 of f32[3,0]" in str(e.value)
        assert f"test_sort.py:{line}" in str(e.value)
        with pytest.raises(sg.GraphError, match="sort wants 1 <= num_keys <= 2"):
            sort((x, x), 1, num_keys=3)
