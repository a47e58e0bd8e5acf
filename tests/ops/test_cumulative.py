"""The cumulative primitive (running sum, prod, max, min) against numpy's ufunc.accumulate."""

import inspect

import numpy as np
import pytest

import stablegraph as sg
from stablegraph.ops.primitives.cumulative import cumulative

RNG = np.random.default_rng(7)
UFUNCS = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}
SHAPES = [(1,), (9,), (3, 5), (2, 3, 17)]


def _want(x, kind, axis, reverse):
    if not reverse:
        return UFUNCS[kind].accumulate(x, axis=axis, dtype=x.dtype)
    return np.flip(UFUNCS[kind].accumulate(np.flip(x, axis), axis=axis, dtype=x.dtype), axis)


def _data(shape, dt):
    if dt == np.bool_:
        return RNG.integers(0, 2, size=shape).astype(bool)
    if np.issubdtype(dt, np.integer):
        return RNG.integers(-3, 4, size=shape).astype(dt)
    x = RNG.uniform(0.5, 1.5, size=shape).astype(dt)  # products stay finite and well conditioned
    if np.issubdtype(dt, np.complexfloating):
        x = x + 1j * RNG.uniform(-0.5, 0.5, size=shape)
    return x.astype(dt)


DTYPES = [np.float32, np.float64, np.int32, np.uint8, np.int64, np.bool_, np.complex64]


def _kinds(dt):
    return ["max", "min"] if dt == np.bool_ else ["sum", "prod"] if dt == np.complex64 else list(UFUNCS)


def test_every_kind_axis_direction_and_dtype(run):
    # float32 goes through every axis and direction; every dtype through every kind.
    cases = [
        (np.float32, k, s, ax, rev)
        for k in UFUNCS
        for s in SHAPES[::3]
        for ax in range(len(s))
        for rev in (0, 1)
    ]
    cases += [(dt, k, (3, 5), j % 2, j % 2) for dt in DTYPES for j, k in enumerate(_kinds(dt))]
    xs = [_data(s, dt) for dt, _, s, _, _ in cases]
    got = run(lambda *ps: [cumulative(p, k, ax, bool(rev)) for p, (_, k, _, ax, rev) in zip(ps, cases)], *xs)
    for x, (dt, k, _, ax, rev), g in zip(xs, cases, got):
        want = _want(x, k, ax, rev)
        msg = f"{k} {x.dtype} shape {x.shape} axis {ax} reverse {rev}"
        assert g.dtype == dt and g.shape == want.shape, msg
        if np.issubdtype(dt, np.inexact):
            np.testing.assert_allclose(
                g, want, rtol=2e-5 if dt in (np.float32, np.complex64) else 1e-12, err_msg=msg
            )
        else:  # integer overflow wraps the same way in any order of combination
            np.testing.assert_array_equal(g, want, err_msg=msg)


def test_nan_and_infinities_propagate_like_numpy(run):
    x = np.array([[1.0, np.nan, 3.0, -np.inf, 2.0], [np.inf, 0.0, -1.0, 5.0, np.nan]], np.float32)
    cases = [(k, rev) for k in UFUNCS for rev in (False, True)]
    got = run(lambda p: [cumulative(p, k, 1, rev) for k, rev in cases], x)
    for (k, rev), g in zip(cases, got):
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(g, _want(x, k, 1, rev), err_msg=f"{k} reverse {rev}")


def test_negative_axis_and_a_symbolic_dim(run):
    x = RNG.normal(size=(6, 4)).astype(np.float32)
    got = run(
        lambda p: [cumulative(p, "sum", 0), cumulative(p, "max", -1, reverse=True)],
        x,
        symbolic={0: ("batch", 4)},
    )
    np.testing.assert_allclose(got[0], np.cumsum(x, 0), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[1], _want(x, "max", 1, True))


def test_long_axis(run):
    x = RNG.integers(-5, 6, size=(1000,)).astype(np.int32)
    got = run(lambda p: [cumulative(p, "sum", 0), cumulative(p, "min", 0, reverse=True)], x)
    np.testing.assert_array_equal(got[0], np.cumsum(x).astype(np.int32))
    np.testing.assert_array_equal(got[1], _want(x, "min", 0, True))


def test_errors_name_the_op_the_type_and_this_line():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3, 4), sg.float32)
        b = sg.placeholder((5,), sg.bool_)
        c = sg.placeholder((2,), sg.complex64)
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            cumulative(x, "sum", 2)
        assert "cumulative_sum wants 0 <= axis < 2, got axis 2 for f32[3,4]" in str(e.value)
        assert f"test_cumulative.py:{line}" in str(e.value)
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            cumulative(b, "prod", 0)
        assert f"cumulative_prod wants a numeric dtype, got {b.type}" in str(e.value)
        assert f"test_cumulative.py:{line}" in str(e.value)
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            cumulative(c, "max", 0)
        assert f"cumulative_max is not defined for complex operands, got {c.type}" in str(e.value)
        assert f"test_cumulative.py:{line}" in str(e.value)
        with pytest.raises(sg.GraphError, match="cumulative: bad attributes: kind"):
            cumulative(x, "mean", 0)
