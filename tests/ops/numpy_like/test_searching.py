"""nonzero, flatnonzero, argwhere and count_nonzero with a static size, against numpy."""

import inspect

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

RNG = np.random.default_rng(7)


def _padded(idx: np.ndarray, size: int, fill) -> np.ndarray:
    out = np.full((size,) + idx.shape[1:], fill, idx.dtype)
    n = min(size, len(idx))
    out[:n] = idx[:n]
    return out


def test_static_size_matches_numpy_padded(run):
    x = (RNG.random((3, 4)) < 0.4) * RNG.integers(1, 5, (3, 4))
    x = x.astype(np.int32)
    k = int((x != 0).sum())
    got = run(
        lambda p: {
            "flat_big": snp.flatnonzero(p, size=k + 3, fill_value=-1),
            "flat_small": snp.flatnonzero(p, size=max(k - 2, 0)),
            "nz": snp.nonzero(p, size=k + 2),
            "nz_fill": snp.nonzero(p, size=k + 2, fill_value=-7),
            "argwhere": snp.argwhere(p, size=k),
            "count": snp.count_nonzero(p),
            "count0": snp.count_nonzero(p, axis=0),
        },
        x,
    )
    np.testing.assert_array_equal(got["flat_big"], _padded(np.flatnonzero(x), k + 3, -1))
    np.testing.assert_array_equal(got["flat_small"], np.flatnonzero(x)[: max(k - 2, 0)])
    for g, w in zip(got["nz"], np.nonzero(x)):
        np.testing.assert_array_equal(g, _padded(w, k + 2, 0))
    for g, w in zip(got["nz_fill"], np.nonzero(x)):
        np.testing.assert_array_equal(g, _padded(w, k + 2, -7))
    np.testing.assert_array_equal(got["argwhere"], np.argwhere(x))
    assert got["count"] == np.count_nonzero(x)
    np.testing.assert_array_equal(got["count0"], np.count_nonzero(x, axis=0))


def test_data_dependent_shapes_say_what_to_use():
    g = sg.Graph()
    with g:
        x = sg.placeholder((4,), sg.float32)
        for fn in (snp.nonzero, snp.flatnonzero, snp.argwhere):
            with pytest.raises(sg.GraphError) as e:
                line = inspect.currentframe().f_lineno + 1
                fn(x)
            assert "depends on the data" in str(e.value) and "size=" in str(e.value)
            assert f"test_searching.py:{line}" in str(e.value)
