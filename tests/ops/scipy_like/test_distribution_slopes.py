"""Distribution methods at the points the special-point sweep found wrong, against closed forms
and scipy: slopes at regular points (logistic at 0 had cdf' = 0 for 1/4: its softplus took
maximum's half slope and abs's), slopes of the branch a where does not take (expon's sf at
x = -100 in float32 was nan: exp(100) overflowed in the unused side), tails that lost digits
(log(1 - y) near y = 1, pareto's log cdf near 0), slopes at the ends of a clamp (bernoulli's and
poisson's log pmf in k at k = 0: clip's and maximum's tie rule halved them) and the sign of zeros
(isf(1/2) is +0, as scipy's)."""

import numpy as np
import pytest
import scipy.special
import scipy.stats

import stablegraph as sg
from stablegraph import numpy as snp

S = sg.scipy.stats
E = np.exp


def _logistic_pdf(x):
    return E(-np.abs(x)) / (1 + E(-np.abs(x))) ** 2


# name: (method, points, closed-form derivative)
SLOPES = {
    "logistic.cdf": (S.logistic.cdf, [0.0, -0.0, 3.0, -3.0], _logistic_pdf),
    "logistic.sf": (S.logistic.sf, [0.0, 3.0, -3.0], lambda x: -_logistic_pdf(x)),
    "logistic.logpdf": (S.logistic.logpdf, [0.0, 3.0, -3.0], lambda x: -np.tanh(x / 2)),
    "logistic.pdf": (S.logistic.pdf, [0.0, 3.0], lambda x: -_logistic_pdf(x) * np.tanh(x / 2)),
    "uniform.cdf": (S.uniform.cdf, [0.0, 0.5, 1.0, 2.0], lambda x: np.where(x <= 1, 1.0, 0.0)),
    "expon.sf": (S.expon.sf, [-100.0, -1e4, 0.0, 2.0], lambda x: np.where(x < 0, 0.0, -E(-np.maximum(x, 0)))),
    "expon.logcdf": (S.expon.logcdf, [-100.0, 0.0, -0.0, 1.0], lambda x: np.where(x < 0, 0.0, 1 / np.expm1(np.maximum(x, 0)))),
    "gumbel_r.sf": (S.gumbel_r.sf, [100.0, 1e4, 1.0], lambda x: -E(-x - E(-x))),
    # the log pmf as a function of k (jax's continuous extension): clip's tie halved it at k = 0, 1
    "bernoulli.logpmf": (lambda k: S.bernoulli.logpmf(k, 0.25), [0.0, 1.0], lambda k: np.log(0.25) - np.log(0.75) + 0 * k),
    "poisson.logpmf": (lambda k: S.poisson.logpmf(k, 2.5), [0.0, 3.0], lambda k: np.log(2.5) - scipy.special.digamma(k + 1)),
}  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_slopes_against_closed_forms(dtype):
    g = sg.Graph()
    with g:
        holders = {k: sg.placeholder((len(p),), sg.dtype(dtype)) for k, (_, p, _) in SLOPES.items()}
        grads = {k: sg.grad(lambda t, f=f: snp.sum(f(t)))(holders[k]) for k, (f, _, _) in SLOPES.items()}
    with sg.Session(g) as sess:
        got = sess.run(grads, {holders[k]: np.array(p, dtype) for k, (_, p, _) in SLOPES.items()})
    rtol = 1e-5 if dtype == np.float32 else 1e-13
    atol = 16 * np.finfo(dtype).tiny  # XLA flushes subnormal results on CPU (gumbel_r's slope at 100)
    with np.errstate(divide="ignore"):
        for key, (_, points, slope) in SLOPES.items():
            np.testing.assert_allclose(got[key], slope(np.array(points)), rtol=rtol, atol=atol, err_msg=key)


def test_tails_keep_their_digits_and_zeros_their_sign():
    cases = {
        # name: (our method, scipy's, points)
        "expon.logcdf": (S.expon.logcdf, scipy.stats.expon.logcdf, [3.0, 10.0, 1.0, 0.5]),
        "gumbel_r.logsf": (S.gumbel_r.logsf, scipy.stats.gumbel_r.logsf, [-2.0, -3.0, -1.5, 0.3]),
        "gumbel_l.logcdf": (S.gumbel_l.logcdf, scipy.stats.gumbel_l.logcdf, [0.0, 2.0, 3.0, np.inf]),
        "logistic.cdf": (S.logistic.cdf, scipy.stats.logistic.cdf, [-10.0, -30.0, 10.0, 0.5]),
        "norm.isf": (S.norm.isf, scipy.stats.norm.isf, [0.5, 0.1, 0.9, 1e-10]),
        "cauchy.isf": (S.cauchy.isf, scipy.stats.cauchy.isf, [0.5, 0.1, 0.9, 1e-10]),
        "logistic.isf": (S.logistic.isf, scipy.stats.logistic.isf, [0.5, 0.1, 0.9, 1e-10]),
        "expon.ppf": (S.expon.ppf, scipy.stats.expon.ppf, [-0.0, 0.0, 0.5, 0.9]),
        "pareto.logcdf": (
            lambda t: S.pareto.logcdf(t, 30.0),
            lambda x: scipy.stats.pareto.logcdf(x, 30.0),
            [2.0, 1.5, 3.0, 1.01],
        ),
        "pareto.cdf": (
            lambda t: S.pareto.cdf(t, np.inf),
            lambda x: scipy.stats.pareto.cdf(x, np.inf),
            [0.0, 1.0, 0.5, 0.25],
        ),
    }
    # pareto's log cdf is log(1 - exp(-u)) of u = b log x, whose own rounding it scales by u (~20
    # here): within 4 ulps of u's rounding, as many ulps as u in float32 (it gave 0 for -9.3e-10)
    wide = {"pareto.logcdf": 32}
    for dtype in (np.float32, np.float64):
        g = sg.Graph()
        with g:
            holders = {k: sg.placeholder((len(p),), sg.dtype(dtype)) for k, (_, _, p) in cases.items()}
            outs = {k: f(holders[k]) for k, (f, _, _) in cases.items()}
        with sg.Session(g) as sess:
            got = sess.run(outs, {holders[k]: np.array(p, dtype) for k, (_, _, p) in cases.items()})
        for key, (_, ref_fn, points) in cases.items():
            ref = ref_fn(np.array(points, dtype).astype(np.float64)).astype(dtype)
            ulps = wide.get(key, 4) if dtype == np.float32 else 4
            assert np.all(np.abs(got[key] - ref) <= ulps * np.abs(np.spacing(ref))), (
                key,
                dtype,
                got[key],
                ref,
            )
            assert np.array_equal(np.signbit(got[key]), np.signbit(ref)), (key, dtype, got[key], ref)
