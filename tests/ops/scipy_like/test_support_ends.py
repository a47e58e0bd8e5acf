"""Derivatives of distribution methods at the ends of their support, against closed forms.

The methods hold their argument inside the support before the formula; with clip or maximum
(whose slope is split in half at a tie, as jax's clip) a point exactly on the end got half its
derivative: pareto's log density and sf at z = 1, truncnorm's cdf and sf at its bounds. The end
is a point of the support: the whole one-sided slope is kept."""

import numpy as np
import scipy.stats

import stablegraph as sg
from stablegraph import numpy as snp


def test_the_slope_at_the_support_ends_is_whole():
    b = 2.0
    cases = {
        # name: (method on t, points, closed-form derivative at them)
        "pareto.logpdf": (lambda t: sg.scipy.stats.pareto.logpdf(t, b), [1.0, 2.0], lambda x: -(b + 1) / x),
        "pareto.sf": (lambda t: sg.scipy.stats.pareto.sf(t, b), [1.0, 2.0], lambda x: -b / x ** (b + 1)),
        "truncnorm.cdf": (
            lambda t: sg.scipy.stats.truncnorm.cdf(t, -0.5, 1.0),
            [1.0, 0.25],
            lambda x: scipy.stats.truncnorm.pdf(x, -0.5, 1.0),
        ),
        "truncnorm.sf": (
            lambda t: sg.scipy.stats.truncnorm.sf(t, -0.5, 1.0),
            [-0.5, 0.25],
            lambda x: -scipy.stats.truncnorm.pdf(x, -0.5, 1.0),
        ),
    }  # fmt: skip
    g = sg.Graph()
    with g:
        holders = {k: sg.placeholder((len(pts),), sg.float64) for k, (_, pts, _) in cases.items()}
        grads = {k: sg.grad(lambda t, f=f: snp.sum(f(t)))(holders[k]) for k, (f, _, _) in cases.items()}
    with sg.Session(g) as sess:
        got = sess.run(grads, {holders[k]: np.array(pts) for k, (_, pts, _) in cases.items()})
    for key, (_, pts, slope) in cases.items():
        np.testing.assert_allclose(got[key], slope(np.array(pts)), rtol=1e-12, err_msg=key)
