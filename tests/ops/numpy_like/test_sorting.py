"""sg.numpy sort, argsort, argmax, argmin, cumsum, cumprod, cummax, cummin against numpy."""

import inspect

import numpy as np
import pytest

import stablegraph as sg
import stablegraph.numpy as snp

RNG = np.random.default_rng(11)


def _data(shape, dt):
    if dt == np.bool_:
        return RNG.integers(0, 2, size=shape).astype(bool)
    x = RNG.integers(-5, 6, size=shape).astype(dt)
    if np.issubdtype(dt, np.floating):
        x = (x * 0.5).astype(dt)
        flat = x.reshape(-1)
        flat[RNG.integers(0, flat.size, size=2)] = np.nan
    return x


def _descending_stable(x, axis):
    n = x.shape[axis]
    return np.flip(n - 1 - np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.int8, np.bool_])
def test_sort_and_argsort_every_axis(run, dt):
    x = _data((3, 4, 5), dt)
    axes = [None, -1, 0, 1]
    got = run(
        lambda p: {
            "sort": [snp.sort(p, axis=a) for a in axes],
            "argsort": [snp.argsort(p, axis=a) for a in axes],
            "desc": [snp.argsort(p, axis=a, descending=True) for a in (-1, 0)],
            "desc_values": snp.sort(p, axis=1, descending=True),
        },
        x,
    )
    for a, s, i in zip(axes, got["sort"], got["argsort"]):
        np.testing.assert_array_equal(s, np.sort(x, axis=a), err_msg=f"sort axis={a}")
        np.testing.assert_array_equal(i, np.argsort(x, axis=a, kind="stable"), err_msg=f"argsort axis={a}")
        assert s.dtype == dt and i.dtype == np.int32
    for a, i in zip((-1, 0), got["desc"]):
        np.testing.assert_array_equal(i, _descending_stable(x, a % 3))
    np.testing.assert_array_equal(got["desc_values"], np.flip(np.sort(x, axis=1), 1))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.uint8, np.bool_])
def test_argmax_argmin_axes_keepdims_and_methods(run, dt):
    x = _data((4, 3, 5), dt)
    if np.issubdtype(dt, np.floating):
        x[2, 1, :] = np.nan
    axes = [None, 0, 1, -1]

    def build(p):
        out = {}
        for a in axes:
            for k in (False, True):
                out[f"max {a} {k}"] = snp.argmax(p, axis=a, keepdims=k)
                out[f"min {a} {k}"] = snp.argmin(p, axis=a, keepdims=k)
        out["method max"] = p.argmax(axis=1)
        out["method min"] = p.argmin()
        return out

    got = run(build, x)
    for a in axes:
        for k in (False, True):
            for name, ref in (("max", np.argmax), ("min", np.argmin)):
                g = got[f"{name} {a} {k}"]
                np.testing.assert_array_equal(
                    g, ref(x, axis=a, keepdims=k), err_msg=f"{name} axis={a} keepdims={k}"
                )
                assert g.dtype == np.int32
    np.testing.assert_array_equal(got["method max"], np.argmax(x, axis=1))
    np.testing.assert_array_equal(got["method min"], np.argmin(x))


CUM_DTYPES = [  # input dtype, cumsum/cumprod result dtype (small ints and bool accumulate in int32)
    (np.float32, np.float32),
    (np.float64, np.float64),
    (np.int32, np.int32),
    (np.int8, np.int32),
    (np.uint8, np.uint32),
    (np.bool_, np.int32),
    (np.int64, np.int64),
]


@pytest.mark.parametrize("dt,acc", CUM_DTYPES)
def test_cumulative_functions_dtypes_and_axes(run, dt, acc):
    x = _data((3, 6), dt) if dt != np.float32 else RNG.uniform(0.5, 1.5, (3, 6)).astype(dt)
    if np.issubdtype(dt, np.floating):
        x = np.nan_to_num(x, nan=1.5)
    axes = [None, 0, 1, -1]
    got = run(
        lambda p: (
            {
                f"{fn} {a}": getattr(snp, fn)(p, axis=a)
                for fn in ("cumsum", "cumprod", "cummax", "cummin")
                for a in axes
            }
            | {"cumsum f64": snp.cumsum(p, axis=0, dtype=sg.float64)}
        ),
        x,
    )
    refs = {
        "cumsum": lambda a: np.cumsum(x, axis=a, dtype=acc),
        "cumprod": lambda a: np.cumprod(x, axis=a, dtype=acc),
        "cummax": lambda a: np.maximum.accumulate(
            x.reshape(-1) if a is None else x, axis=0 if a is None else a
        ),
        "cummin": lambda a: np.minimum.accumulate(
            x.reshape(-1) if a is None else x, axis=0 if a is None else a
        ),
    }
    for key, g in got.items():
        fn, a = key.split()
        if a == "f64":
            np.testing.assert_allclose(g, np.cumsum(x, axis=0, dtype=np.float64))
            assert g.dtype == np.float64
            continue
        want = refs[fn](None if a == "None" else int(a))
        assert g.dtype == want.dtype, key
        np.testing.assert_allclose(g, want, rtol=1e-5, err_msg=key)


def test_nan_in_running_max_and_symbolic_batch(run):
    x = RNG.normal(size=(5, 4)).astype(np.float32)
    x[1, 2] = np.nan
    got = run(
        lambda p: [snp.cummax(p, 0), snp.cumsum(p, 1), snp.argmax(p, 1), snp.sort(p, 0), snp.argsort(p, 1)],
        x,
        symbolic={0: ("batch", 4)},
    )
    np.testing.assert_array_equal(got[0], np.maximum.accumulate(x, 0))
    np.testing.assert_allclose(got[1], np.cumsum(x, 1), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[2], np.argmax(x, 1))
    np.testing.assert_array_equal(got[3], np.sort(x, 0))
    np.testing.assert_array_equal(got[4], np.argsort(x, 1, kind="stable"))


def test_python_lists_and_scalars(run):
    got = run(lambda: [snp.sort([3, 1, 2]), snp.argmax(7.0), snp.cumsum([True, True, False])])
    np.testing.assert_array_equal(got[0], [1, 2, 3])
    assert got[1] == 0
    np.testing.assert_array_equal(got[2], [1, 2, 2])
    assert got[2].dtype == np.int32


def test_errors_name_the_function_and_this_line():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3, 0), sg.float32)
        y = sg.placeholder((2, 3), sg.float32)
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            snp.argmax(x, axis=1)
        assert "argmax of an empty sequence f32[3,0]" in str(e.value)
        assert f"test_sorting.py:{line}" in str(e.value)
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            snp.cumsum(y, axis=2)
        assert "axis 2 is out of range for an array of rank 2" in str(e.value)
        assert f"test_sorting.py:{line}" in str(e.value)
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            snp.sort(y, order="name")
        assert "order=" in str(e.value) and f"test_sorting.py:{line}" in str(e.value)
