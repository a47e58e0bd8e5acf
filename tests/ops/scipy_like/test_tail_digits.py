"""Tails that lost their digits to a cancellation, found by the special-point sweep, against scipy
and closed forms in float64: cauchy's quantiles (q - 1/2 rounded q away in float32), cauchy's
log cdf/sf (the log of a number near 1, and a cdf that underflows far left), and expm1's
derivative (y + 1 cancels for x < 0; expon.logcdf's slope was 400 ulps off at x = 10)."""

import numpy as np
import pytest
import scipy.stats

import stablegraph as sg
from stablegraph import numpy as snp

Q = [1e-30, 1e-7, 1e-5, 0.01, 0.2, 0.25, 0.3, 0.5, 0.7, 0.75, 0.8, 0.99, 0.999, 0.0, 1.0, -0.5, 1.5, np.nan]
Z = [
    -3e38,
    -1e30,
    -1e9,
    -1e8,
    -1e4,
    -10.0,
    -1.0,
    0.0,
    1.0,
    10.0,
    100.0,
    1e4,
    1e9,
    3e38,
    np.inf,
    -np.inf,
    np.nan,
]
X = [-30.0, -10.0, -3.0, -1.0, -0.1, -1e-5, 0.0, 1e-5, 0.5, 3.0, 30.0]


def _ulps(ours, ref, dtype):
    ours, ref = np.asarray(ours, np.float64), np.asarray(ref, np.float64).astype(dtype).astype(np.float64)
    finite = np.isfinite(ref)
    assert np.array_equal(np.isnan(ours), np.isnan(ref)), (ours, ref)
    assert np.array_equal(ours[~finite & ~np.isnan(ref)], ref[~finite & ~np.isnan(ref)]), (ours, ref)
    tiny = np.finfo(dtype).tiny
    diff = np.abs(ours[finite] - ref[finite])
    err = np.where(
        diff <= 16 * tiny, 0.0, diff / np.maximum(np.abs(ref[finite]), tiny)
    )  # XLA flushes subnormals
    return err.max() / np.finfo(dtype).eps


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cauchy_tails_and_expm1_slope_keep_their_digits(dtype):
    q, z, x = (np.array(v, dtype) for v in (Q, Z, X))
    g = sg.Graph()
    with g:
        pq, pz, px = (sg.placeholder(a.shape, sg.dtype(dtype)) for a in (q, z, x))
        cauchy = sg.scipy.stats.cauchy
        fetches = [
            cauchy.ppf(pq),
            cauchy.isf(pq),
            cauchy.logcdf(pz),
            cauchy.logsf(pz),
            sg.grad(lambda t: snp.sum(cauchy.ppf(t)))(pq),
            sg.grad(lambda t: snp.sum(snp.expm1(t)))(px),
            sg.grad(lambda t: snp.sum(sg.scipy.stats.expon.logcdf(t)))(px),
        ]
    with sg.Session(g) as sess:
        ppf, isf, logcdf, logsf, dppf, dexpm1, dlogcdf = sess.run(fetches, {pq: q, pz: z, px: x})
    q64, z64, x64 = (a.astype(np.float64) for a in (q, z, x))
    with np.errstate(all="ignore"):
        assert _ulps(ppf, scipy.stats.cauchy.ppf(q64), dtype) <= 4
        assert _ulps(isf, scipy.stats.cauchy.isf(q64), dtype) <= 4
        assert _ulps(logcdf[:-4], scipy.stats.cauchy.logcdf(z64[:-4]), dtype) <= 4  # to 1e9
        assert _ulps(logsf[:-4], scipy.stats.cauchy.logsf(z64[:-4]), dtype) <= 4
        inner = (q64 > 0) & (q64 < 1)
        near_end = np.minimum(q64, 1 - q64)[inner]  # sin(pi q) = sin(pi (1 - q)), exact near q = 1
        assert _ulps(dppf[inner], np.pi / np.sin(np.pi * near_end) ** 2, dtype) <= 8
        assert _ulps(dexpm1, np.exp(x64), dtype) <= 2
        positive = x64 > 0
        slope = np.exp(-x64[positive]) / -np.expm1(-x64[positive])  # d/dx log(1 - e**-x)
        assert _ulps(dlogcdf[positive], slope, dtype) <= 8
