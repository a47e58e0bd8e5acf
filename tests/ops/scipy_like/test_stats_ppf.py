"""sg.scipy.stats ppf/isf of t, gamma, chi2, beta, poisson, binom against scipy.stats.

Every case is built into one graph and run in one session (each quantile is a loop over an
incomplete gamma / beta function, which XLA takes most of a second to compile): float64 and
float32 values on a q grid with its ends, out-of-range q and nan, broadcast against parameter
arrays (with an invalid parameter among them), cdf(ppf(q)) = q, and the implicit gradients.
"""

import numpy as np
from scipy import stats as st

import stablegraph as sg

S = sg.scipy.stats

# q as a column, against parameter rows: (len(_Q), number of parameter values)
_Q = np.array([-0.1, 0.0, 1e-6, 1e-3, 0.05, 0.3, 0.5, 0.77, 0.99, 1 - 1e-6, 1.0, 1.1, np.nan]).reshape(-1, 1)
_PARAMS = {
    # name: (shape parameter rows (the last one invalid), loc/scale kwargs)
    "t": ((np.array([1.5, 4.0, 30.0, -1.0]),), dict(loc=0.5, scale=1.5)),
    "gamma": ((np.array([0.5, 2.0, 9.0, 0.0]),), dict(loc=-1.0, scale=2.0)),
    "chi2": ((np.array([1.0, 4.0, 11.0, -2.0]),), {}),
    "beta": ((np.array([0.5, 2.0, 5.0, 1.0]), np.array([3.0, 1.5, 0.7, -1.0])), dict(loc=2.0, scale=3.0)),
    "poisson": ((np.array([0.3, 3.0, 50.0, -1.0]),), dict(loc=1)),
    "binom": ((np.array([30.0, 10.0, 5.0, 4.5]), np.array([0.2, 0.9, 0.5, 0.5])), {}),
}
_CONTINUOUS = ["t", "gamma", "chi2", "beta"]
# what is checked in each dtype (each quantile costs about half a second of compile): chi2 is
# gamma's search with scale 2, so float64 ppf only; float32 checks the search's step counts
_METHODS = {
    np.float64: {"t": ["ppf", "isf"], "gamma": ["ppf", "isf"], "chi2": ["ppf"], "beta": ["ppf", "isf"],
                 "poisson": ["ppf"], "binom": ["ppf"]},
    np.float32: {"t": ["ppf"], "gamma": ["ppf"], "beta": ["ppf"], "poisson": ["ppf"], "binom": ["ppf"]},
}  # fmt: skip
# float64: the incomplete gamma / beta functions' own accuracy; float32: a few ulps of z, and of
# the quantile's sensitivity to the rounding of q near its ends
_TOL = {np.float64: dict(rtol=1e-12, atol=1e-15), np.float32: dict(rtol=2e-5, atol=1e-6)}

# gradient check: gamma.ppf at (q, a), against 1/pdf and scipy's central differences in a
_GQ = np.array([0.01, 0.3, 0.8])
_GA = np.array([0.5, 2.0, 7.0])


def _feed(dtype, name):
    return sg.placeholder(_Q.shape, sg.dtype(dtype), name=name)


def _build():
    g = sg.Graph()
    feeds, outs = {}, {}
    with g:
        for dtype in (np.float64, np.float32):
            dn = np.dtype(dtype).name
            q = _feed(dtype, f"q_{dn}")
            feeds[q] = _Q.astype(dtype)
            for name, methods in _METHODS[dtype].items():
                params, kw = _PARAMS[name]
                args = [p.astype(dtype) for p in params]
                for method in methods:
                    outs[dn, name, method] = getattr(getattr(S, name), method)(q, *args, **kw)
        # cdf(ppf(q)) = q, by keyword arguments as scipy allows
        q = _feed(np.float64, "q_roundtrip")
        feeds[q] = _Q
        outs["roundtrip"] = S.beta.cdf(S.beta.ppf(q, a=0.5, b=3.0, scale=0.5), a=0.5, b=3.0, scale=0.5)
        # gradients: d ppf / dq = 1 / pdf, d ppf / da by the implicit function theorem
        gq, ga = (sg.placeholder((3,), sg.float64, name=n) for n in ("gq", "ga"))
        feeds.update({gq: _GQ, ga: _GA})

        def total(q, a):
            return sg.numpy.sum(S.gamma.ppf(q, a, 0.0, 2.0))

        outs["grad"] = sg.grad(total, argnums=(0, 1))(gq, ga)
    with sg.Session(g) as sess:
        return sess.run(outs, feeds)


def _want(dtype, name, method):
    params, kw = _PARAMS[name]
    q = _Q.astype(dtype).astype(np.float64)  # the rounded q the graph saw
    with np.errstate(all="ignore"):
        return getattr(getattr(st, name), method)(q, *params, **kw)


def test_ppf_isf_against_scipy():
    got = _build()
    for key, value in got.items():
        if not isinstance(key, tuple):
            continue
        dn, name, method = key
        dtype = np.dtype(dn).type
        want = _want(dtype, name, method)
        assert value.dtype == dtype and value.shape == want.shape, key
        if name in _CONTINUOUS:
            np.testing.assert_allclose(value, want, **_TOL[dtype], err_msg=str(key))
        else:
            np.testing.assert_array_equal(value, want, err_msg=str(key))

    # the ends and invalid values, explicitly (also covered above)
    t = got["float64", "t", "ppf"]
    assert np.all(t[1, :3] == -np.inf) and np.all(t[10, :3] == np.inf)
    assert np.isnan(t[[0, 11, 12], :]).all() and np.isnan(t[:, 3]).all()
    gam = got["float64", "gamma", "ppf"]
    assert np.all(gam[1, :3] == -1.0) and np.all(gam[10, :3] == np.inf)  # loc, loc + scale * inf
    assert np.all(got["float64", "gamma", "isf"][1, :3] == np.inf)
    beta = got["float64", "beta", "ppf"]
    assert np.all(beta[1, :3] == 2.0) and np.all(beta[10, :3] == 5.0)  # loc, loc + scale
    pois = got["float64", "poisson", "ppf"]
    assert np.all(pois[1, :3] == 0.0) and np.all(pois[10, :3] == np.inf)  # loc - 1
    binom = got["float64", "binom", "ppf"]
    assert np.array_equal(binom[1, :3], [-1.0, -1.0, -1.0]) and np.array_equal(
        binom[10, :3], [30.0, 10.0, 5.0]
    )

    inside = (_Q > 0) & (_Q < 1)
    np.testing.assert_allclose(got["roundtrip"][inside], _Q[inside], rtol=1e-13, atol=0)

    dq, da = got["grad"]
    np.testing.assert_allclose(
        dq, 1.0 / st.gamma.pdf(st.gamma.ppf(_GQ, _GA, scale=2.0), _GA, scale=2.0), rtol=1e-9
    )
    h = 1e-6
    fd = (st.gamma.ppf(_GQ, _GA + h, scale=2.0) - st.gamma.ppf(_GQ, _GA - h, scale=2.0)) / (2 * h)
    np.testing.assert_allclose(da, fd, rtol=1e-6)


def test_t_far_tails_at_a_large_df_keep_their_digits():
    """At a large df the t's tail probability is small long before z^2 reaches df: taken as 1 less
    the center's probability there, t.ppf(1 - 1e-12, 650) was 6e-7 off.
    scipy's quantiles and probabilities agree with 40-digit mpmath at these points."""
    q = np.array([1e-12, 1e-10, 1e-8, 1e-4, 0.3, 0.9, 1 - 1e-8, 1 - 1e-10, 1 - 1e-12]).reshape(-1, 1)
    df = np.array([[30.0, 200.0, 649.608347045467, 7197.0]])
    z = np.array([-8.0, -5.0, -2.5, -1e-3, 1e-3, 0.5, 2.5, 5.0, 8.0]).reshape(-1, 1)
    g = sg.Graph()
    with g:
        pq, pdf, pz = (sg.placeholder(a.shape, sg.float64) for a in (q, df, z))
        fetches = [S.t.ppf(pq, pdf), S.t.isf(pq, pdf), S.t.cdf(pz, pdf), S.t.sf(pz, pdf)]
    with sg.Session(g) as sess:
        ppf, isf, cdf, sf = sess.run(fetches, {pq: q, pdf: df, pz: z})
    np.testing.assert_allclose(ppf, st.t.ppf(q, df), rtol=2e-14)
    np.testing.assert_allclose(isf, st.t.isf(q, df), rtol=2e-14)
    # past z^2 = 6 the tail form's argument df / (df + z^2), rounded, costs about df eps / 10
    np.testing.assert_allclose(cdf, st.t.cdf(z, df), rtol=5e-13)
    np.testing.assert_allclose(sf, st.t.sf(z, df), rtol=5e-13)
    assert abs(ppf[-1, 2] - 7.173449045115162) < 4e-15 * 7.2  # 40-digit mpmath
