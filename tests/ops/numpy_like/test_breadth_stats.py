"""sg.numpy's statistics against numpy: nan* reductions, quantiles, average, cov, corrcoef,
histograms, set operations and searching (ops/numpy_like/nan_reductions.py, statistics.py,
histograms.py, set_ops.py); each table is one graph."""

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

R = np.random.default_rng(11)

NAN_CASES = {
    f"{f}_{ax}_{kd}": (lambda xp, x, f=f, ax=ax, kd=kd: getattr(xp, f)(x, axis=ax, keepdims=kd))
    for f in ("nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd", "ptp")
    for ax, kd in ((None, False), (1, True), ((0, 2), False))
}
NAN_CASES.update(
    {
        "nanvar_ddof": lambda xp, x: xp.nanvar(x, axis=1, ddof=1),
        "nanstd_ddof": lambda xp, x: xp.nanstd(x, axis=2, ddof=1),
        "nanargmin": lambda xp, x: xp.nanargmin(x[1:], axis=1),
        "nanargmax": lambda xp, x: xp.nanargmax(x[1:], axis=2),
        "nanargmax_flat": lambda xp, x: xp.nanargmax(x),
        "nancumsum": lambda xp, x: xp.nancumsum(x, axis=1),
        "nancumprod": lambda xp, x: xp.nancumprod(x * 0.5),
        "cumulative_sum": lambda xp, x: xp.cumulative_sum(x[0, 0], include_initial=True),
        "cumulative_prod": lambda xp, x: xp.cumulative_prod(x, axis=2),
        "nanmedian": lambda xp, x: xp.nanmedian(x, axis=1),
        "nanmedian_flat": lambda xp, x: xp.nanmedian(x),
        "nanquantile": lambda xp, x: xp.nanquantile(x, [0.1, 0.75], axis=2),
        "nanpercentile": lambda xp, x: xp.nanpercentile(x, 40, axis=(0, 1), keepdims=True),
        "nanmean_allnan": lambda xp, x: xp.nanmean(x[0, 2]),  # that row is all NaN below
        "nanmax_allnan": lambda xp, x: xp.nanmax(x[0], axis=1),
    }
)


@pytest.mark.parametrize("dtype", [np.float32])
def test_nan_reductions_against_numpy(run, dtype, check_table):
    x = R.normal(size=(3, 4, 5)).astype(dtype)
    x[R.random(x.shape) < 0.2] = np.nan
    x[1:, 0, :] = x[1:, :, 0] = 1.5  # nanargmin/nanargmax below: no all-NaN slice in x[1:]
    x[0, 2] = np.nan
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        check_table(
            run, {k: v for k, v in NAN_CASES.items() if "allnan" not in k}, (x,), rtol=2e-5, atol=1e-5
        )
    x2 = x.copy()
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        check_table(run, {k: v for k, v in NAN_CASES.items() if "allnan" in k}, (x2,))


def test_nan_functions_on_integers_are_the_plain_ones(run, check_table):
    a = R.integers(-5, 6, size=(4, 5)).astype(np.int32)
    cases = {
        f: (lambda xp, a, f=f: getattr(xp, f)(a, axis=1)) for f in ("nansum", "nanmax", "nanargmin", "ptp")
    }
    cases["nanmean"] = lambda xp, a: xp.nanmean(a, axis=0)
    check_table(run, cases, (a,), rtol=1e-6)


QUANTILE_CASES = {
    "median": lambda xp, x: xp.median(x),
    "median_ax": lambda xp, x: xp.median(x, axis=1),
    "median_even": lambda xp, x: xp.median(x[:, :4], axis=1, keepdims=True),
    "quantile": lambda xp, x: xp.quantile(x, 0.3, axis=0),
    "quantile_q": lambda xp, x: xp.quantile(x, [[0.0, 0.2], [0.9, 1.0]], axis=1),
    "quantile_axes": lambda xp, x: xp.quantile(x, np.array([0.25, 0.5]), axis=(0, 1)),
    "percentile": lambda xp, x: xp.percentile(x, [5, 50, 95], axis=1, keepdims=True),
    **{
        f"q_{m}": (lambda xp, x, m=m: xp.quantile(x, [0.13, 0.5, 0.71], axis=1, method=m))
        for m in ("linear", "lower", "higher", "nearest", "midpoint")
    },
    "average": lambda xp, x: xp.average(x),
    "average_w": lambda xp, x: xp.average(x, axis=1, weights=np.arange(1.0, 8.0)),
    "average_wfull": lambda xp, x: xp.average(x, axis=0, weights=x * x + 1, returned=True),
    "average_kd": lambda xp, x: xp.average(x, axis=1, keepdims=True),
    "cov": lambda xp, x: xp.cov(x),
    "cov_cols": lambda xp, x: xp.cov(x, rowvar=False, bias=True),
    "cov_y": lambda xp, x: xp.cov(x[0], x[1], ddof=0),
    "cov_w": lambda xp, x: xp.cov(
        x, fweights=np.array([1, 2, 1, 3, 1, 1, 2]), aweights=np.linspace(0.5, 2, 7)
    ),
    "cov_1d": lambda xp, x: xp.cov(x[2]),
    "corrcoef": lambda xp, x: xp.corrcoef(x),
    "corrcoef_y": lambda xp, x: xp.corrcoef(x[0], x[3], rowvar=True),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_quantiles_and_moments_against_numpy(run, dtype, check_table):
    x = R.normal(size=(5, 7)).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    check_table(run, QUANTILE_CASES, (x,), rtol=tol, atol=tol)


def test_quantile_of_integers_and_nan(run, check_table):
    a = R.integers(0, 20, size=(3, 6)).astype(np.int32)
    f = np.array([1.0, np.nan, 3.0, 2.0], np.float32)
    cases = {
        "median_int": lambda xp, a, f: xp.median(a, axis=1),
        "percentile_int": lambda xp, a, f: xp.percentile(a, 75),
        "median_nan": lambda xp, a, f: xp.median(f),
        "quantile_nan": lambda xp, a, f: xp.quantile(f, [0.1, 0.9]),
    }
    check_table(run, cases, (a, f), rtol=1e-6)


def test_data_dependent_sizes_ask_for_size():
    with sg.Graph():
        x = sg.placeholder((5,), sg.int32)
        for fn in (snp.unique, lambda t: snp.union1d(t, t), lambda t: snp.setdiff1d(t, t), snp.trim_zeros):
            with pytest.raises(sg.GraphError, match="size=n"):
                fn(x)
        with pytest.raises(sg.GraphError, match="length=n"):
            snp.bincount(x)
        with pytest.raises(sg.GraphError, match="q in"):
            snp.quantile(x, 1.5)
