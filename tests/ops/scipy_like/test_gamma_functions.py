"""sg.scipy.special's gamma family and Box-Cox transforms (gamma_functions.py) against scipy.special
in float64 at random points and at poles, zeros, infinities and nan; derivatives against jax at
regular points and against closed forms where jax's are not defined (Box-Cox at lambda = 0)."""

import jax
import jax.scipy.special as jss
import numpy as np
import pytest
import scipy.special as ss

import stablegraph as sg
from stablegraph.test_util import run_graph

sp = sg.scipy.special
RNG = np.random.default_rng(2611)
EDGES = np.array(
    [-3.0, -2.5, -2.0, -1.0, -0.5, -0.0, 0.0, 1e-300, 0.5, 1.0, 2.0, 3.5, 170.5, np.inf, -np.inf, np.nan]
)


def test_values_match_scipy_at_edges_and_random_points():
    x = np.concatenate([EDGES, RNG.uniform(-20, 30, 40)])
    n = np.array([0.0, 1, 2, 5, 10, 3.5, 50, 1e3, np.inf, -1, 0, 2, 7])
    k = np.array([0.0, 1, 3, 2, 3, 2, 25, 3, 2, 1, -1, 5, 0])
    z = np.array([1.0, 2, -1.5, 0, -2, -3, 3, 0.5, 4.25, -2, 0, -4])
    m = np.array([2.0, 0, 2, 3, 1, 2, -1, -0.5, 1.5, 0, -3, 3])
    bx = np.concatenate([[0.0, 0.5, 1.0, 2.0, np.inf, 0.0, 3.0, 3.0, -1.0], RNG.uniform(0, 10, 12)])
    lb = np.concatenate([[1.0, 0.0, -2.0, 0.5, 2.0, -1.0, 1e-12, -1e-7, 1.0], RNG.uniform(-3, 3, 12)])

    def build(x, n, k, z, m, bx, lb):
        return {
            "gammasgn": sp.gammasgn(x), "loggamma": sp.loggamma(x), "factorial": sp.factorial(x),
            "comb": sp.comb(n, k), "comb_rep": sp.comb(n, k, repetition=True), "poch": sp.poch(z, m),
            "boxcox": sp.boxcox(bx, lb), "boxcox1p": sp.boxcox1p(bx, lb),
        }  # fmt: skip

    got = run_graph(build, x, n, k, z, m, bx, lb)
    rep_n = np.where(n >= 1, n, np.nan)  # scipy's repetition does not mask N < 1: compare where it is defined
    want = {
        "gammasgn": ss.gammasgn(x), "loggamma": ss.loggamma(x), "factorial": ss.factorial(x),
        "comb": ss.comb(n, k), "comb_rep": ss.comb(rep_n, k, repetition=True), "poch": ss.poch(z, m),
        "boxcox": ss.boxcox(bx, lb), "boxcox1p": ss.boxcox1p(bx, lb),
    }  # fmt: skip
    for name, value in got.items():
        w = want[name]
        keep = ~np.isnan(w) if name == "comb_rep" else np.ones(w.shape, bool)
        np.testing.assert_allclose(value[keep], w[keep], rtol=1e-12, atol=1e-300, err_msg=name)
    assert np.signbit(got["gammasgn"][5]) and got["loggamma"][5] == np.inf  # -0: Gamma(-0) = -inf
    assert np.isnan(got["factorial"][-1 - 40]) and got["comb"][8] == np.inf  # factorial(nan); C(inf, 2)
    # with repetition and N < 1 there are no combinations (jax's convention), but one of none (k == 0, N >= 0)
    below = n < 1
    np.testing.assert_array_equal(got["comb_rep"][below], np.where((k == 0) & (n >= 0), 1.0, 0.0)[below])


def test_bernoulli_numbers_and_factorial_exact():
    g = sg.Graph()
    with g:
        b = sp.bernoulli(20)
        with pytest.raises(sg.GraphError, match=r"exact=True\) is not offered") as info:
            sp.factorial(3.0, exact=True)
        with pytest.raises(sg.GraphError, match="int n >= 0"):
            sp.bernoulli(-1)
    assert "test_gamma_functions.py" in str(info.value)
    with sg.Session(g) as sess:
        got = sess.run(b)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, ss.bernoulli(20).astype(np.float32))


def test_derivatives_match_jax_and_the_closed_forms():
    x = RNG.uniform(0.5, 6, 8)
    n = RNG.uniform(5, 9, 8)
    k = RNG.uniform(0.5, 4, 8)
    z = RNG.uniform(0.5, 4, 8)
    m = RNG.uniform(-0.4, 3, 8)
    lam = RNG.uniform(-2, 2, 8)

    def total(ns, x, n, k, z, m, lam):  # factorial and comb's repetition share these lgamma paths
        return (
            ns.loggamma(x) + ns.comb(n, k) + ns.poch(z, m) + ns.boxcox(x, lam) + ns.boxcox1p(x, lam)
        ).sum()

    args = (x, n, k, z, m, lam)
    got = run_graph(lambda *a: sg.grad(lambda *b: total(sp, *b), argnums=tuple(range(6)))(*a), *args)
    with jax.enable_x64(True):
        want = jax.jit(jax.grad(lambda *b: total(jss, *b), argnums=tuple(range(6))))(*args)
    for k_, (value, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(value, np.asarray(w), rtol=1e-9, err_msg=f"argument {k_}")
    # at lambda = 0, d/dlambda of (x**lambda - 1) / lambda is log(x)**2 / 2 (jax's where gives 0)
    xs = np.array([0.5, 2.0, 10.0])
    slopes = run_graph(
        lambda v, lz: sg.grad(lambda a: (sp.boxcox(v, a) + sp.boxcox1p(v, a)).sum())(lz), xs, np.zeros(3)
    )
    np.testing.assert_allclose(slopes, np.log(xs) ** 2 / 2 + np.log1p(xs) ** 2 / 2, rtol=1e-12)


def test_vectorize_matches_a_loop():
    z = RNG.uniform(-3, 3, (4, 5))
    m = RNG.uniform(-1, 2, (4, 5))
    got = run_graph(
        lambda a, b: sg.vectorize(lambda u, v: sp.poch(u, v) + sp.boxcox1p(sp.gammasgn(u) * u * u, v))(a, b),
        z,
        m,
    )
    loop = np.stack(
        [ss.poch(z[i], m[i]) + ss.boxcox1p(ss.gammasgn(z[i]) * z[i] ** 2, m[i]) for i in range(4)]
    )
    np.testing.assert_allclose(got, loop, rtol=1e-10, equal_nan=True)
