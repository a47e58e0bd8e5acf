"""sg.numpy's histograms, set operations and searching against numpy (ops/numpy_like/histograms.py,
set_ops.py); each table is one graph."""

import numpy as np
import pytest

from stablegraph import numpy as snp

R = np.random.default_rng(12)

HIST_CASES = {
    "histogram": lambda xp, x, y, w: xp.histogram(x),
    "histogram_range_w": lambda xp, x, y, w: xp.histogram(x, 5, range=(-1, 1), weights=w),
    "histogram_edges_density": lambda xp, x, y, w: xp.histogram(x, [-2.0, -0.5, 0, 0.3, 2.0], density=True),
    "bin_edges": lambda xp, x, y, w: xp.histogram_bin_edges(x, 4),
    "histogram2d": lambda xp, x, y, w: xp.histogram2d(x, y, bins=(3, 4)),
    "histogram2d_range": lambda xp, x, y, w: xp.histogram2d(x, y, 3, [(-1, 1), (-0.5, 2)], density=True),
    "histogramdd": lambda xp, x, y, w: xp.histogramdd(xp.stack([x, y, w], 1), bins=(2, 3, 2)),
    "histogramdd_w": lambda xp, x, y, w: xp.histogramdd(xp.stack([x, y], 1), bins=2, weights=w),
    "searchsorted": lambda xp, x, y, w: xp.searchsorted(np.array([-1.0, 0, 0, 0.5, np.nan]), x),
    "searchsorted_r": lambda xp, x, y, w: xp.searchsorted(np.array([-1.0, 0, 0, 0.5]), x, side="right"),
    "searchsorted_sorter": lambda xp, x, y, w: xp.searchsorted(np.array([0.5, -1.0, 0]), w, sorter=[1, 2, 0]),
    "digitize": lambda xp, x, y, w: xp.digitize(x, [-1.0, 0.0, 1.0]),
    "digitize_right": lambda xp, x, y, w: xp.digitize(x, [-1.0, 0.0, 1.0], right=True),
    "digitize_down": lambda xp, x, y, w: xp.digitize(x, [1.0, 0.0, -1.0]),
    "interp_knots": lambda xp, x, y, w: xp.searchsorted(xp.sort(y), xp.sort(y), side="right"),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_histograms_and_searching_against_numpy(run, dtype, check_table):
    x = R.normal(size=40).astype(dtype)
    y = R.normal(size=40).astype(dtype)
    w = R.uniform(size=40).astype(dtype)
    as_float = {k: (lambda got, want: (got, want.astype(got.dtype))) for k in HIST_CASES if "hist" in k}
    check_table(
        run, HIST_CASES, (x, y, w), rtol=1e-5, atol=1e-6, fixups=as_float
    )  # counts are floats, as in jax


def _first(n):
    return lambda got, want: (got[:n], want[:n])


SET_CASES = {
    "unique": lambda xp, a, b, f: xp.unique(a, size=5) if xp is snp else np.unique(a),
    "unique_all": lambda xp, a, b, f: (
        xp.unique(a, True, True, True, size=5) if xp is snp else np.unique(a, True, True, True)
    ),
    "unique_pad": lambda xp, a, b, f: (
        xp.unique(a, size=8, fill_value=-1) if xp is snp else np.r_[np.unique(a), [-1] * 3]
    ),
    "unique_counts_pad": lambda xp, a, b, f: (
        xp.unique(a, return_counts=True, size=7)[1]
        if xp is snp
        else np.r_[np.unique(a, return_counts=True)[1], 0, 0]
    ),
    "unique_nan": lambda xp, a, b, f: xp.unique(f, size=4) if xp is snp else np.unique(f),
    "unique_values": lambda xp, a, b, f: xp.unique_values(b, size=4) if xp is snp else np.unique(b),
    "unique_counts": lambda xp, a, b, f: (
        tuple(xp.unique_counts(b, size=4)) if xp is snp else np.unique(b, return_counts=True)
    ),
    "unique_inverse": lambda xp, a, b, f: (
        tuple(xp.unique_inverse(a, size=5)) if xp is snp else np.unique(a, return_inverse=True)
    ),
    "unique_all_api": lambda xp, a, b, f: (
        tuple(xp.unique_all(b, size=4)) if xp is snp else np.unique(b, True, True, True)
    ),
    "union1d": lambda xp, a, b, f: xp.union1d(a, b, size=7) if xp is snp else np.union1d(a, b),
    "intersect1d": lambda xp, a, b, f: xp.intersect1d(a, b, size=2) if xp is snp else np.intersect1d(a, b),
    "setdiff1d": lambda xp, a, b, f: xp.setdiff1d(a, b, size=3) if xp is snp else np.setdiff1d(a, b),
    "setdiff1d_pad": lambda xp, a, b, f: (
        xp.setdiff1d(a, b, size=5) if xp is snp else np.r_[np.setdiff1d(a, b), 0, 0]
    ),
    "setxor1d": lambda xp, a, b, f: xp.setxor1d(a, b, size=5) if xp is snp else np.setxor1d(a, b),
    "isin": lambda xp, a, b, f: xp.isin(a, b),
    "isin_invert": lambda xp, a, b, f: xp.isin(xp.reshape(a, (2, 4)), b, invert=True),
    "bincount": lambda xp, a, b, f: xp.bincount(a, length=10) if xp is snp else np.bincount(a, minlength=10),
    "bincount_w": lambda xp, a, b, f: (
        xp.bincount(b, weights=f[:5], length=10) if xp is snp else np.bincount(b, f[:5], minlength=10)
    ),
    "bincount_static": lambda xp, a, b, f: xp.bincount(np.array([0, 3, 3, 1]), minlength=2),
}


def test_set_operations_against_numpy(run, check_table):
    a = np.array([3, 1, 2, 3, 7, 1, 1, 9], np.int32)
    b = np.array([1, 9, 4, 4, 0], np.int32)
    f = np.array([0.5, np.nan, 0.2, 0.5, np.nan, 3.0], np.float32)
    check_table(run, SET_CASES, (a, b, f), rtol=1e-6)
