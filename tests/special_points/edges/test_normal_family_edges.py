"""The normal family at the special-point sweep's edges (issue 20 part 2): truncnorm's log
probabilities at the ends of their support, gennorm's cdf slope at 0 and log_ndtr's second slope in
its lower tail. Oracles: the sign of the true value (about -1e-38), scipy's density, the sweep's
closed form (the continued fraction of the Mills ratio in long double)."""

from __future__ import annotations

import numpy as np
import scipy.stats

import stablegraph as sg
from stablegraph.test_util import run_graph

from ..closed_forms_special import log_ndtr as log_ndtr_slope


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


def test_log_ndtr_second_slope_keeps_its_digits_in_the_lower_tail():
    """-r (x + r) with r = ndtr' / ndtr: at x = -10 the chain rule through phi / Phi cancelled
    (-0.9905546221750657, 1600 ulps off; jax's -0.990554622174848 is 500 off); -1 at x = -inf and
    -0 at x = inf (jax: nan for both)."""
    x = np.array([-np.inf, -1e10, -40.0, -20.0, -10.0, -5.5, -1.0, 0.0, 3.0, 39.0, 41.0, np.inf])

    def fn(x):
        slope = sg.gradients(sg.numpy.sum(sg.scipy.special.log_ndtr(x)), [x])[0]
        return slope, sg.gradients(sg.numpy.sum(slope), [x])[0]

    d1, d2 = run_graph(fn, x)
    (want1,), (want2,) = log_ndtr_slope(1)(x), log_ndtr_slope(2)(x)
    np.testing.assert_allclose(d1, want1, rtol=4e-16)
    np.testing.assert_allclose(d2[:-1], want2[:-1], rtol=8e-16, atol=1e-300)
    assert d2[-1] == 0 and d2[0] == -1
