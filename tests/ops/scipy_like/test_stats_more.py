"""sg.scipy.stats' geom ... wrapcauchy and mode/rankdata/sem against scipy.stats (float64, float32), and
gradients of some log densities against jax.grad.

Where jax.scipy.stats answers otherwise than scipy, sg follows scipy (as the rest of sg.scipy.stats):
- invalid parameters give nan, where jax gives -inf or the unguarded formula's value (geom p = 0 or
  p > 1, nbinom n <= 0 or p = 0 or p > 1, pareto b <= 0, gennorm beta = 0, betabinom non-integer n);
- a non-integer k has mass 0 (logpmf -inf), where jax's geom/nbinom/betabinom interpolate;
- vonmises kappa = 0 is the uniform density on the circle, where jax gives nan;
- gumbel_r/gumbel_l.ppf at q = 0 and 1 give -inf and inf, where jax gives nan.
The rows below cover each of these cases; jax.scipy.stats' signatures are kept (gennorm, vonmises and
wrapcauchy take no loc or scale).
"""

import jax
import jax.scipy.stats as jst
import mpmath
import numpy as np
import pytest
from scipy import stats as st

import stablegraph as sg

S = sg.scipy.stats

_K = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0])
_X = np.linspace(-4.0, 7.0, 12)
_Q = np.array([0.0, 1e-3, 0.3, 0.5, 0.9, 1.0, 1.2])
_ANGLES = np.array([-10.0, -3.0, -0.5, 0.0, 1.0, 3.0, 6.0, 6.5, 10.0])
_CONT = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]


def _col(*values):
    return np.array(values).reshape(-1, 1)


def _cases():
    """(label, distribution, methods, args, kwargs); the first argument is fed, the others are constants."""
    x3 = np.array([[1, 2, 3], [0, 0, 6], [1, 1, 3], [1.5, 1.5, 3], [-1, 4, 3], [2, 2, 2]], float)
    return [
        ("geom", "geom", ["logpmf", "pmf"], (_K, _col(0.3, 1.0, 0.0, 1.5)), {}),
        ("geom.loc", "geom", ["logpmf"], (_K, 0.6), dict(loc=2.0)),
        (
            "nbinom",
            "nbinom",
            ["logpmf", "pmf"],
            (_K, _col(2.5, 0.0, 3.0, 3.0, 7.0), _col(0.4, 0.4, 1.0, 1.2, 0.0)),
            {},
        ),
        (
            "betabinom",
            "betabinom",
            ["logpmf", "pmf"],
            (_K, _col(5.0, 5.5, 0.0, 8.0, 5.0), _col(2.0, 2.0, 2.0, 0.5, 0.0), _col(3.0, 3.0, 3.0, 0.7, 1.0)),
            {},
        ),
        ("betabinom.loc", "betabinom", ["logpmf"], (_K, 4.0, 1.5, 2.5), dict(loc=1.0)),
        ("multinomial", "multinomial", ["logpmf", "pmf"], (x3, 6.0, np.array([0.2, 0.3, 0.5])), {}),
        ("multinomial.p0", "multinomial", ["logpmf"], (x3, 6.0, np.array([0.0, 0.5, 0.5])), {}),
        (
            "multinomial.n",
            "multinomial",
            ["logpmf"],
            (x3, _col(6.0, 5.0, -1.0), np.array([0.2, 0.3, 0.5])),
            {},
        ),
        ("multinomial.badp", "multinomial", ["logpmf"], (x3, 6.0, np.array([-0.2, 0.7, 0.5])), {}),
        ("gumbel_r", "gumbel_r", _CONT, (_X,), dict(loc=_col(0.5, -1.0, 0.0), scale=_col(2.0, 0.7, -1.0))),
        ("gumbel_l", "gumbel_l", _CONT, (_X,), dict(loc=_col(0.5, -1.0, 0.0), scale=_col(2.0, 0.7, -1.0))),
        ("gumbel_r.q", "gumbel_r", ["ppf"], (_Q,), dict(loc=0.5, scale=_col(2.0, 0.5, 0.0))),
        ("gumbel_l.q", "gumbel_l", ["ppf"], (_Q,), dict(loc=0.5, scale=_col(2.0, 0.5, 0.0))),
        (
            "pareto",
            "pareto",
            _CONT,
            (np.linspace(0.0, 9.0, 10), _col(2.5, 0.7, -1.0, 3.0)),
            dict(loc=_col(0.0, 1.0, 0.0, -1.0), scale=_col(1.5, 2.0, 1.0, 0.0)),
        ),  # fmt: skip
        ("pareto.q", "pareto", ["ppf"], (_Q, _col(2.0, 0.5, -1.0)), dict(loc=0.5, scale=2.0)),
        (
            "truncnorm",
            "truncnorm",
            _CONT,
            (
                np.linspace(-3.0, 12.0, 16),
                _col(-1.0, 2.0, 5.0, -np.inf, 0.5, -30.0),
                _col(1.5, 1.0, 10.0, 0.5, np.inf, -8.0),
            ),
            {},
        ),  # fmt: skip
        (
            "truncnorm.ls",
            "truncnorm",
            _CONT,
            (np.linspace(-3.0, 12.0, 16), -1.0, 1.5),
            dict(loc=_col(0.5, 3.0), scale=_col(2.0, 4.0)),
        ),  # fmt: skip
        ("gennorm", "gennorm", ["logpdf", "pdf", "cdf"], (_X, _col(1.5, 0.0, -1.0, 0.5, 3.0, 1.0)), {}),
        ("vonmises", "vonmises", ["logpdf", "pdf"], (_ANGLES, _col(0.0, 2.0, 50.0, -1.0, 0.01)), {}),
        ("wrapcauchy", "wrapcauchy", ["logpdf", "pdf"], (_ANGLES, _col(0.0, 0.5, 1.0, -0.1, 0.9, 0.01)), {}),
    ]


_A = np.array([[3.0, 1, 2, 1, 7, 2], [2, 2, 3, 3, 3, 0], [5, 4, 4, 5, 4, 5], [1, 1, 1, 1, 1, 1]])
_NAN_A = np.array([[3.0, 1, 2, 1], [2, np.nan, 3, 3]])
_RANKS = ["average", "min", "max", "dense", "ordinal"]


def _summaries(a, nan_a):
    """(label, sg value, scipy value) of mode/rankdata/sem for fed ``a`` and ``nan_a``."""
    x, xn = np.asarray(_A), np.asarray(_NAN_A)
    rows = []
    for axis, keepdims in [(0, False), (1, False), (None, False), (1, True), (0, True), (None, True)]:
        m, w = S.mode(a, axis=axis, keepdims=keepdims), st.mode(x, axis=axis, keepdims=keepdims)
        rows += [
            (f"mode.{axis}.{keepdims}", m.mode, w.mode),
            (f"mode.count.{axis}.{keepdims}", m.count, w.count),
        ]
        rows.append(
            (
                f"sem.{axis}.{keepdims}",
                S.sem(a, axis=axis, keepdims=keepdims),
                st.sem(x, axis, keepdims=keepdims),
            )
        )
    rows.append(("mode.nan", S.mode(nan_a, axis=1).mode, st.mode(xn, axis=1).mode))
    rows.append(("sem.ddof0", S.sem(a, axis=1, ddof=0), st.sem(x, axis=1, ddof=0)))
    rows.append(("sem.omit", S.sem(nan_a, axis=1, nan_policy="omit"), st.sem(xn, axis=1, nan_policy="omit")))
    for method in _RANKS:
        for axis in (None, 0, 1):
            rows.append(
                (f"rank.{method}.{axis}", S.rankdata(a, method, axis=axis), st.rankdata(x, method, axis=axis))
            )
        rows.append(
            (f"rank.nan.{method}", S.rankdata(nan_a, method, axis=1), st.rankdata(xn, method, axis=1))
        )
    return rows


def _run(dtype):
    g = sg.Graph()
    feeds, outs = {}, {}
    rows = _cases()
    with g:
        for label, name, methods, args, kwargs in rows:
            x = sg.placeholder(np.shape(args[0]), sg.dtype(dtype), name=label.replace(".", "_"))
            feeds[x] = np.asarray(args[0], dtype)
            rest = [np.asarray(a, dtype) if isinstance(a, np.ndarray) else a for a in args[1:]]
            kw = {k: np.asarray(v, dtype) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
            for m in methods:
                outs[label, m] = getattr(getattr(S, name), m)(x, *rest, **kw)
        a = sg.placeholder(_A.shape, sg.dtype(dtype), name="a")
        nan_a = sg.placeholder(_NAN_A.shape, sg.dtype(dtype), name="nan_a")
        feeds[a], feeds[nan_a] = _A.astype(dtype), _NAN_A.astype(dtype)
        summaries = _summaries(a, nan_a)
        for label, value, _ in summaries:
            outs[label] = value
        ints = sg.placeholder(_A.shape, sg.int32, name="ints")
        feeds[ints] = _A.astype(np.int32)
        outs["int.mode"] = S.mode(ints, axis=1)
        outs["int.rank"] = S.rankdata(ints, "average", axis=1)
    with sg.Session(g) as sess:
        got = sess.run(outs, feeds)
    return rows, summaries, got


@pytest.mark.parametrize("dtype, rtol, atol", [(np.float64, 1e-12, 1e-14), (np.float32, 1e-4, 1e-6)])
def test_against_scipy(dtype, rtol, atol):
    rows, summaries, got = _run(dtype)
    with np.errstate(all="ignore"):
        for label, name, methods, args, kwargs in rows:
            for m in methods:
                want = np.asarray(getattr(getattr(st, name), m)(*args, **kwargs))
                out, msg = got[label, m], f"{label}.{m}"
                assert out.dtype == dtype, msg
                assert out.shape == want.shape, msg
                if dtype == np.float32 and not m.startswith(("log", "ppf")):
                    # XLA's CPU float32 exp(select(constant predicate, nan, y)) returns garbage where the
                    # predicate holds (jaxlib 0.10.2; jax.jit of the same jnp code does it too), so the nan
                    # of an invalid constant parameter is checked through the log functions only (pmf, pdf, cdf, sf are exps)
                    out, want = np.where(np.isnan(want), np.nan, out), want
                ok = np.isfinite(want)
                np.testing.assert_array_equal(np.isnan(out), np.isnan(want), err_msg=msg)
                np.testing.assert_array_equal(out[~ok], want[~ok], err_msg=msg)
                # gammaln/betaln differences, incomplete gamma (gennorm.cdf), i0e: not quite 1 ulp
                tol = rtol * (1000 if name in ("nbinom", "betabinom", "multinomial", "gennorm") else 100)
                if dtype == np.float32 and m.startswith("log"):
                    tol = max(tol, 1e-3)  # the log of a float32 probability near 1
                np.testing.assert_allclose(out[ok], want[ok], rtol=tol, atol=atol * 100, err_msg=msg)
    for label, _, want in summaries:
        out, want = got[label], np.asarray(want)
        assert out.shape == want.shape, label
        if label.startswith("mode.count"):
            assert out.dtype == np.int32, label
        else:
            assert out.dtype == dtype, label
        np.testing.assert_allclose(out, want, rtol=10 * rtol, err_msg=label)
    mode = got["int.mode"]
    assert mode.mode.dtype == np.int32 and mode.count.dtype == np.int32
    np.testing.assert_array_equal(mode.mode, st.mode(_A.astype(np.int32), axis=1).mode)
    assert got["int.rank"].dtype == np.float32  # integers rank in float32, as jax's
    np.testing.assert_array_equal(got["int.rank"], st.rankdata(_A, axis=1))


def test_bad_arguments():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float64)
        with pytest.raises(Exception, match="method"):
            S.rankdata(x, "bogus")
        with pytest.raises(Exception, match="nan_policy"):
            S.mode(x, nan_policy="omit")
        with pytest.raises(Exception, match="categories"):
            S.multinomial.logpmf(np.ones((2, 3)), 3.0, np.ones(4) / 4)


# (name, sg function, jax function, arguments): the gradient is taken with respect to every argument
_GRADS = [
    (
        "truncnorm",
        S.truncnorm.logpdf,
        jst.truncnorm.logpdf,
        (np.array([-0.5, 0.3, 1.2]), -1.0, 1.5, 0.2, 1.3),
    ),
    ("pareto", S.pareto.logpdf, jst.pareto.logpdf, (np.array([2.0, 3.5, 9.0]), 2.5, 0.3, 1.5)),
    ("vonmises", S.vonmises.logpdf, jst.vonmises.logpdf, (np.array([-1.0, 0.3, 2.5]), 1.7)),
    ("gennorm", S.gennorm.logpdf, jst.gennorm.logpdf, (np.array([-1.0, 0.3, 2.5]), 1.5)),
]


def _argnums(name, args):
    """every argument"""
    return tuple(range(len(args)))


@jax.jit
def _jax_grads(all_args):
    return [
        jax.grad(lambda *a, f=jfn: f(*a).sum(), argnums=_argnums(name, args))(*args)
        for (name, _, jfn, _), args in zip(_GRADS, all_args)
    ]


def test_gradients_match_jax():
    g = sg.Graph()
    feeds, outs = {}, {}
    with g:
        for name, fn, _, args in _GRADS:
            phs = [sg.placeholder(np.shape(a), sg.float64, name=f"{name}_{i}") for i, a in enumerate(args)]
            feeds.update({p: np.asarray(a, np.float64) for p, a in zip(phs, args)})
            outs[name] = sg.grad(lambda *a, f=fn: sg.numpy.sum(f(*a)), argnums=_argnums(name, args))(*phs)
    with sg.Session(g) as sess:
        got = sess.run(outs, feeds)
    with jax.enable_x64():
        wants = _jax_grads([[np.asarray(a, np.float64) for a in args] for _, _, _, args in _GRADS])
    for (name, _, _, _), want in zip(_GRADS, wants):
        for i, (gv, wv) in enumerate(zip(got[name], want)):
            np.testing.assert_allclose(gv, np.asarray(wv), rtol=1e-10, atol=1e-12, err_msg=f"{name} arg {i}")


def test_gumbel_log_tails_past_the_underflow():
    """gumbel_r.logsf(z) = log(1 - exp(-exp(-z))) (gumbel_l.logcdf at -z) is about -z far out; it was
    log 0 = -inf from z = 745 on, where exp(-z) underflows (scipy's too). Against 50-digit mpmath."""
    z = np.array([-3.0, 0.5, 18.0, 18.5, 40.0, 700.0, 745.5, 1e4, 1e300, np.inf])
    g = sg.Graph()
    with g:
        pz = sg.placeholder(z.shape, sg.float64)
        fetches = [S.gumbel_r.logsf(pz), S.gumbel_l.logcdf(-pz), S.gumbel_r.logsf(pz * 0.25, scale=0.25)]
    with sg.Session(g) as sess:
        right, left, scaled = sess.run(fetches, {pz: z})
    mpmath.mp.dps = 50
    want = [float(mpmath.log(-mpmath.expm1(-mpmath.exp(-mpmath.mpf(v))))) for v in z[:-1]] + [-np.inf]
    for got in (right, left, scaled):
        np.testing.assert_allclose(got, want, rtol=4e-16)


def test_log_probabilities_near_one_and_the_beta_sf_near_zero():
    """logcdf and logsf of t and beta near probability 1 are log1p of the other tail (log of the
    probability itself was 0 for t.logcdf(50, 3) = -8.8e-6 ... -1.1e-30 at 1e10); beta.sf at a small
    x is 1 - cdf while the cdf is below 0.9 (I_{1-x}(b, a) had lost x's last digits in 1 - x: 5e-8
    off at (3.8e-12, 0.057, 334), 4e-6 at (5.2e-13, 0.013, 385)). Oracles: scipy's sf and cdf, whose
    logs are log1p(-other tail) here, and 50-digit mpmath for the beta sf."""
    z = np.array([-1e10, -50.0, -5.0, 0.5, 5.0, 50.0, 1e10])
    x = np.array([1e-12, 1e-6, 0.3, 0.999, 1 - 1e-12])
    sx, sa, sb = (
        np.array([3.796733242600972e-12, 5.214087569259215e-13]),
        np.array([0.0567, 0.0132]),
        np.array([334.15, 385.31]),
    )
    g = sg.Graph()
    with g:
        pz, px, psx, psa, psb = (sg.placeholder(v.shape, sg.float64) for v in (z, x, sx, sa, sb))
        fetches = [
            S.t.logcdf(pz, 3.0),
            S.t.logsf(pz, 3.0),
            S.beta.logcdf(px, 2.0, 3.0),
            S.beta.logsf(px, 2.0, 3.0),
        ]
        fetches.append(S.beta.sf(psx, psa, psb))
    with sg.Session(g) as sess:
        t_lcdf, t_lsf, b_lcdf, b_lsf, b_sf = sess.run(fetches, {pz: z, px: x, psx: sx, psa: sa, psb: sb})
    np.testing.assert_allclose(t_lcdf[3:], np.log1p(-st.t.sf(z[3:], 3.0)), rtol=1e-14)
    np.testing.assert_allclose(t_lsf[:3], np.log1p(-st.t.cdf(z[:3], 3.0)), rtol=1e-14)
    np.testing.assert_allclose(b_lcdf[2:], np.log1p(-st.beta.sf(x[2:], 2.0, 3.0)), rtol=1e-14)
    np.testing.assert_allclose(b_lsf[:3], np.log1p(-st.beta.cdf(x[:3], 2.0, 3.0)), rtol=1e-14)
    mpmath.mp.dps = 50
    want = [float(1 - mpmath.betainc(a, b, 0, v, regularized=True)) for v, a, b in zip(sx, sa, sb)]
    np.testing.assert_allclose(b_sf, want, rtol=1e-14)


def test_float32_arguments_whose_intermediates_left_float32():
    """float32 t.ppf/isf far out at a small df (the search's z^2 overflowed past |z| = 1.8e19: 1000
    times too small), gennorm.cdf at a large beta (|x|^beta underflowed: 1/2 for 0.49947), and
    bernoulli.logcdf at a tiny p (log of 1 - p rounded to 1: 0 for -1.5e-9) and its ppf at q = 1
    (0 where 1 - p rounds to 1; scipy's 1), beta/poisson/binom quantiles searched on a float32 cdf.
    Against scipy at the float32 values, in float64."""
    q = np.array([3.09e-9, 0.99835, 0.3, 1e-12], np.float32)
    df = np.array([0.3724, 0.1132, 3.0, 0.5], np.float32)
    x = np.array([-1.0215e-3, 2.0919e-3, 0.5, -1.2], np.float32)
    beta = np.array([16.31, 18.54, 2.0, 8.0], np.float32)
    p = np.array([1.5e-9, 1.16e-8, 0.3, 0.99], np.float32)
    g = sg.Graph()
    with g:
        pq, pdf, px, pb, pp = (sg.placeholder(v.shape, sg.float32) for v in (q, df, x, beta, p))
        fetches = [S.t.ppf(pq, pdf), S.t.isf(pq, pdf), S.gennorm.cdf(px, pb), S.bernoulli.logcdf(0.0, pp)]
        fetches.append(S.bernoulli.ppf(1.0, pp))
        fetches += [S.beta.ppf(pq, 0.0626, 449.5), S.poisson.ppf(pq, 439.5), S.binom.ppf(pq, 1800.0, 0.4234)]
    with sg.Session(g) as sess:
        ppf, isf, cdf, logcdf, top, beta_q, poisson_q, binom_q = sess.run(
            fetches, {pq: q, pdf: df, px: x, pb: beta, pp: p}
        )
    wide = [v.astype(np.float64) for v in (q, df, x, beta, p)]
    np.testing.assert_allclose(ppf, st.t.ppf(wide[0], wide[1]), rtol=2e-6)
    np.testing.assert_allclose(isf, st.t.isf(wide[0], wide[1]), rtol=2e-6)
    np.testing.assert_allclose(cdf, st.gennorm.cdf(wide[2], wide[3]), rtol=2e-6)
    np.testing.assert_allclose(logcdf, np.log1p(-wide[4]), rtol=2e-6)
    np.testing.assert_array_equal(top, [1.0, 1.0, 1.0, 1.0])
    # the search's float32 cdf: flat at a small shape (beta: 6e-3 off), unable to tell q = 1 - 6e-8
    # from 1 (poisson, binom: 553 and 889 for 555 and 891)
    np.testing.assert_allclose(beta_q, st.beta.ppf(wide[0], 0.0626, 449.5), rtol=2e-6, atol=1e-37)
    np.testing.assert_array_equal(poisson_q, st.poisson.ppf(wide[0], 439.5))
    np.testing.assert_array_equal(binom_q, st.binom.ppf(wide[0], 1800, 0.4234))
    near_one = np.array([0.99999994], np.float32)
    with sg.Session(g) as sess:
        _, _, _, _, _, _, poisson_top, binom_top = sess.run(
            fetches, {pq: np.repeat(near_one, 4), pdf: df, px: x, pb: beta, pp: p}
        )
    wide_one = near_one.astype(np.float64)
    np.testing.assert_array_equal(poisson_top, np.repeat(st.poisson.ppf(wide_one, 439.5), 4))
    np.testing.assert_array_equal(binom_top, np.repeat(st.binom.ppf(wide_one, 1800, 0.4234), 4))


def test_gamma_density_of_a_large_shape_far_above_its_mode():
    """Stirling's form took (z / a)^a as (z^(a/2) / a^(a/2))^2 up to a = 250 and z = 700, but z^(a/2)
    overflows from z = 341 on at a = 243: gamma.pdf(540, 243) was inf for 2.2e-47 (found at
    gamma.pdf(9.8, 243, scale=0.018) = 1.1e-45). Against scipy, with chi2 (the same form halved)."""
    z = np.array([300.0, 341.0, 400.0, 540.0, 699.0, 0.5, 1e-6])
    a = np.array([243.0, 243.0, 243.0, 243.0, 250.0, 9.0, 100.0])
    g = sg.Graph()
    with g:
        pz, pa = sg.placeholder(z.shape, sg.float64), sg.placeholder(a.shape, sg.float64)
        fetches = [
            S.gamma.pdf(pz, pa),
            S.chi2.pdf(2.0 * pz, 2.0 * pa),
            S.gamma.pdf(pz * 0.018, pa, scale=0.018),
        ]
    with sg.Session(g) as sess:
        gamma, chi2, scaled = sess.run(fetches, {pz: z, pa: a})
    want = st.gamma.pdf(z, a)
    np.testing.assert_allclose(gamma, want, rtol=1e-12, atol=0)
    np.testing.assert_allclose(chi2, st.chi2.pdf(2 * z, 2 * a), rtol=1e-12, atol=0)
    np.testing.assert_allclose(scaled, st.gamma.pdf(z * 0.018, a, scale=0.018), rtol=1e-12, atol=0)


def test_discrete_log_probabilities_near_one():
    """poisson's and binom's logcdf and logsf near probability 1 are log1p of the other tail (the log
    of a float32 sf of 1 - 4.7e-6 was 1% off; in float64 log(cdf) at 1 - 1e-8 kept 8 digits).
    Against the log of scipy's smaller tail or log1p of it, in float32 and float64."""
    k = np.array([46.0, 2.0, 0.0, 150.0])
    mu = np.array([83.78385925292969, 0.0021, 0.5, 100.0])
    outs = {}
    for dtype in (sg.float32, sg.float64):
        g = sg.Graph()
        with g:
            pk, pm = sg.placeholder(k.shape, dtype), sg.placeholder(mu.shape, dtype)
            fetches = [
                S.poisson.logsf(pk, pm),
                S.poisson.logcdf(pk, pm),
                S.binom.logcdf(pk, 200.0, pm / 400.0),
            ]
        with sg.Session(g) as sess:
            outs[dtype] = sess.run(fetches, {pk: k, pm: mu})

    def log_of(tail, other):  # each from the smaller of the two tails
        return np.where(tail < 0.5, np.log(tail), np.log1p(-other))

    poisson_cdf, poisson_sf = st.poisson.cdf(k, mu), st.poisson.sf(k, mu)
    want = [
        log_of(poisson_sf, poisson_cdf),
        log_of(poisson_cdf, poisson_sf),
        log_of(st.binom.cdf(k, 200, mu / 400), st.binom.sf(k, 200, mu / 400)),
    ]
    for got, w in zip(outs[sg.float64], want):
        np.testing.assert_allclose(got, w, rtol=1e-13)
    for got, w in zip(outs[sg.float32], want):
        np.testing.assert_allclose(got, w, rtol=2e-6, atol=1e-44)  # -1.6e-50 is -0 in float32
