"""The normal family at the special-point sweep's edges (issue 20 part 2): truncnorm's log
probabilities at the ends of their support and gennorm's cdf slope at 0. Oracles: the sign of the
true value (about -1e-38), scipy's density."""

from __future__ import annotations

import numpy as np
import scipy.stats

import stablegraph as sg
from stablegraph.test_util import run_graph


def test_truncnorm_log_probabilities_round_to_minus_zero_inside_the_support():
    """float32 log cdf / log sf strictly inside [a, b] where the probability rounds to 1: -0 (the
    true value is about -1e-38, flushed), not +0, and not the -1.2e-7 that two differently rounded
    logs of the mass left at x = 1.2e-38 above a = 0."""
    tiny, big = np.float32(1.1754943508222875e-38), np.float32(3.4028234663852886e38)
    x = np.array([-tiny, big, tiny, tiny, -big], np.float32)
    a = np.array([-2.5, 0.0, 0.0, 0.0, -np.inf], np.float32)
    b = np.array([0.0, np.inf, 1.0, np.inf, 1.0], np.float32)
    tn = sg.scipy.stats.truncnorm
    log_cdf, log_sf = run_graph(lambda x, a, b: (tn.logcdf(x, a, b), tn.logsf(x, a, b)), x, a, b)
    assert np.all(log_cdf[:2] == 0) and np.all(np.signbit(log_cdf[:2]))
    assert np.all(log_sf[2:] == 0) and np.all(np.signbit(log_sf[2:]))


def test_gennorm_cdf_slope_at_zero_is_the_density():
    """d/dx gennorm.cdf at x = +-0 was 0 (sign(0) in the chain rule); it is the density
    beta / (2 Gamma(1 / beta)), 1/2 at beta = 1; elsewhere it stays the density."""
    x = np.array([0.0, -0.0, 0.5, -0.5, 1.5])
    beta = np.array([1.0, 1.0, 1.0, 3.0, 0.7])

    def fn(x, beta):
        return sg.gradients(sg.numpy.sum(sg.scipy.stats.gennorm.cdf(x, beta)), [x])[0]

    slope = run_graph(fn, x, beta)
    np.testing.assert_allclose(slope, scipy.stats.gennorm.pdf(x, beta), rtol=1e-14)
