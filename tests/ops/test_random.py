"""sg.random: threefry test vectors, bit equality with jax.random, statistics, reproducibility."""

import functools
import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

import stablegraph as sg

R, J = sg.random, jax.random


@pytest.fixture(autouse=True)
def _jax_defaults():
    """jax as a user sees it by default (other test files switch x64 on globally):
    32-bit defaults and the partitionable threefry (jax's default since 0.5), which
    sg.random follows."""
    with jax.enable_x64(False), jax.threefry_partitionable(True):
        yield


def _slot(t, i):
    return sg.ops.shape.reshape(sg.ops.slicing.slice(t, (i,), (i + 1,)), ())


def test_threefry_known_answers():
    # Random123's published known-answer vectors for threefry2x32 with 20 rounds.
    vectors = [
        ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
        ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
        ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
    ]
    g = sg.Graph()
    with g:
        k = sg.placeholder((3, 2), sg.uint32, name="k")
        c = sg.placeholder((3, 2), sg.uint32, name="c")
        cols = [
            sg.ops.shape.reshape(sg.ops.slicing.slice(t, (0, j), (3, j + 1)), (3,))
            for t in (k, c)
            for j in (0, 1)
        ]
        # The key words are scalars: hash each row with its own key.
        outs = []
        for i in range(3):
            k1, k2 = (_slot(col, i) for col in cols[:2])
            x1, x2 = (_slot(col, i) for col in cols[2:])
            outs.append(R.threefry2x32(k1, k2, x1, x2))
    keys = np.array([v[0] for v in vectors], np.uint32)
    ctrs = np.array([v[1] for v in vectors], np.uint32)
    with sg.Session(g) as sess:
        got = sess.run(outs, {k: keys, c: ctrs})
    for (_, _, want), (a, b) in zip(vectors, got):
        assert (int(a), int(b)) == want


def _build_draws(k, lo, hi, logits):
    return dict(
        key0=R.PRNGKey(0), key_neg=R.PRNGKey(-1), key_big=R.PRNGKey(2**40 + 7), key_t=R.PRNGKey(sg.constant(np.int64(2**33 + 3))),
        key_t32=R.PRNGKey(sg.constant(np.int32(-5))),
        split=R.split(k), split5=R.split(k, 5), fold=R.fold_in(k, 7),
        bits=R.bits(k, (3, 5)), bits0=R.bits(k), bits8=R.bits(k, (7,), sg.uint8),
        bits64=R.bits(k, (4,), sg.uint64),
        uniform=R.uniform(k, (1000,)),
        uniform_bcast=R.uniform(k, (3, 4), minval=lo, maxval=4.0), uniform0=R.uniform(k),
        uniform16=R.uniform(k, (50,), sg.float16), uniform_bf16=R.uniform(k, (50,), sg.bfloat16),
        uniform64=R.uniform(k, (50,), sg.float64),
        normal=R.normal(k, (2000,)), normal16=R.normal(k, (100,), sg.float16),
        normal64=R.normal(k, (500,), sg.float64),
        truncated=R.truncated_normal(k, lo, hi, (3, 200)), truncated_inf=R.truncated_normal(k, -np.inf, 0.5, (300,)),
        bernoulli=R.bernoulli(k, 0.3, (500,)), bernoulli_p=R.bernoulli(k, np.array([0.1, 0.9], np.float32)),
        randint=R.randint(k, (500,), -5, 17), randint8=R.randint(k, (100,), 0, 256, sg.uint8),
        randint64=R.randint(k, (10,), 0, 10**12, sg.int64),
        categorical=R.categorical(k, logits, shape=(50, 2)), categorical0=R.categorical(k, logits, axis=0),
        gumbel=R.gumbel(k, (100,)),
        permutation=R.permutation(k, 10), permutation2=R.permutation(k, np.arange(12, dtype=np.int32).reshape(4, 3)),
        choice=R.choice(k, 10, (5,)), choice_norep=R.choice(k, 10, (5,), replace=False),
        choice_p=R.choice(k, 5, (20,), p=np.array([0.1, 0.2, 0.3, 0.2, 0.2], np.float32)),
        choice_axis=R.choice(k, np.arange(20, dtype=np.int32).reshape(4, 5), (2, 3), axis=1),
    )  # fmt: skip


def _jax_draws(k, lo, hi, logits):
    return _jax_wide(k) | _jax_narrow(k, lo, hi, logits)


def _jax_wide(k):
    with jax.enable_x64():
        wide = dict(
            key_big=J.PRNGKey(2**40 + 7), key_t=J.PRNGKey(np.int64(2**33 + 3)),
            bits64=J.bits(k, (4,), jnp.uint64), uniform64=J.uniform(k, (50,), jnp.float64),
            normal64=J.normal(k, (500,), jnp.float64), randint64=J.randint(k, (10,), 0, 10**12, jnp.int64),
        )  # fmt: skip
    return wide


@jax.jit
def _jax_narrow(k, lo, hi, logits):
    return dict(
        key0=J.PRNGKey(0), key_neg=J.PRNGKey(-1), key_t32=J.PRNGKey(np.int32(-5)),
        split=J.split(k), split5=J.split(k, 5), fold=J.fold_in(k, 7),
        bits=J.bits(k, (3, 5)), bits0=J.bits(k), bits8=J.bits(k, (7,), jnp.uint8),
        uniform=J.uniform(k, (1000,)),
        uniform_bcast=J.uniform(k, (3, 4), minval=lo, maxval=4.0), uniform0=J.uniform(k),
        uniform16=J.uniform(k, (50,), jnp.float16), uniform_bf16=J.uniform(k, (50,), jnp.bfloat16),
        normal=J.normal(k, (2000,)), normal16=J.normal(k, (100,), jnp.float16),
        truncated=J.truncated_normal(k, lo, hi, (3, 200)), truncated_inf=J.truncated_normal(k, -np.inf, 0.5, (300,)),
        bernoulli=J.bernoulli(k, 0.3, (500,)), bernoulli_p=J.bernoulli(k, np.array([0.1, 0.9], np.float32)),
        randint=J.randint(k, (500,), -5, 17), randint8=J.randint(k, (100,), 0, 256, jnp.uint8),
        categorical=J.categorical(k, logits, shape=(50, 2)), categorical0=J.categorical(k, logits, axis=0),
        gumbel=J.gumbel(k, (100,)),
        permutation=J.permutation(k, 10), permutation2=J.permutation(k, jnp.arange(12).reshape(4, 3)),
        choice=J.choice(k, 10, (5,)), choice_norep=J.choice(k, 10, (5,), replace=False),
        choice_p=J.choice(k, 5, (20,), p=jnp.array([0.1, 0.2, 0.3, 0.2, 0.2])),
        choice_axis=J.choice(k, jnp.arange(20).reshape(4, 5), (2, 3), axis=1),
    )  # fmt: skip


def test_bit_equal_to_jax():
    lo = np.array([[-1.5], [0.0], [1.0]], np.float32)
    hi = np.array([[2.0], [0.5], [3.0]], np.float32)
    logits = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32))
    g = sg.Graph()
    with g:
        k = sg.placeholder((2,), sg.uint32, name="k")
        plo = sg.placeholder((3, 1), sg.float32, name="lo")
        phi = sg.placeholder((3, 1), sg.float32, name="hi")
        plogits = sg.placeholder((2, 3), sg.float32, name="logits")
        draws = _build_draws(k, plo, phi, plogits)
    jk = J.PRNGKey(2024)
    with sg.Session(g) as sess:
        got = sess.run(draws, {k: np.asarray(jk), plo: lo, phi: hi, plogits: logits})
    want = _jax_draws(jk, lo, hi, logits)
    assert set(want) == set(got)
    for name, w in want.items():
        w = np.asarray(w)
        assert got[name].shape == w.shape, name
        np.testing.assert_array_equal(got[name].astype(w.dtype), w, err_msg=name)
        assert got[name].dtype == w.dtype or name in ("permutation2", "choice_axis"), name


def test_statistics():
    n = 20_000
    logits = np.array([0.5, -1.0, 2.0, 0.0], np.float32)
    g = sg.Graph()
    with g:
        k = R.key(7)
        ks = R.split(k, 9)
        d = dict(
            u=R.uniform(ks[0], (n,)), n=R.normal(ks[1], (n,)), n64=R.normal(ks[2], (n,), sg.float64),
            t=R.truncated_normal(ks[3], -1.0, 2.0, (n,)), b=R.bernoulli(ks[4], 0.3, (n,)),
            r=R.randint(ks[5], (n,), 3, 10), c=R.categorical(ks[6], logits, shape=(n,)),
            p=R.permutation(ks[7], 1000), ch=R.choice(ks[8], 4, (n,), p=np.array([0.1, 0.2, 0.3, 0.4], np.float32)),
        )  # fmt: skip
    with sg.Session(g) as sess:
        r = sess.run(d)
    alpha = 1e-3
    assert abs(r["u"].mean() - 0.5) < 0.01 and abs(r["u"].var() - 1 / 12) < 0.005
    assert r["u"].min() >= 0 and r["u"].max() < 1
    assert stats.kstest(r["u"], "uniform").pvalue > alpha
    for name in ("n", "n64"):
        assert abs(r[name].mean()) < 0.03 and abs(r[name].var() - 1) < 0.04, name
        assert stats.kstest(r[name], "norm").pvalue > alpha, name
    tn = stats.truncnorm(-1.0, 2.0)
    assert r["t"].min() > -1.0 and r["t"].max() < 2.0
    assert abs(r["t"].mean() - tn.mean()) < 0.02 and abs(r["t"].var() - tn.var()) < 0.03
    assert stats.kstest(r["t"], tn.cdf).pvalue > alpha
    assert r["b"].dtype == np.bool_ and abs(r["b"].mean() - 0.3) < 0.015
    counts = np.bincount(r["r"] - 3, minlength=7)
    assert r["r"].min() == 3 and r["r"].max() == 9 and counts.size == 7
    assert stats.chisquare(counts).pvalue > alpha
    softmax = np.exp(logits.astype(np.float64)) / np.exp(logits.astype(np.float64)).sum()
    assert stats.chisquare(np.bincount(r["c"], minlength=4), softmax * n).pvalue > alpha
    assert (
        stats.chisquare(np.bincount(r["ch"], minlength=4), np.array([0.1, 0.2, 0.3, 0.4]) * n).pvalue > alpha
    )
    np.testing.assert_array_equal(np.sort(r["p"]), np.arange(1000))
    assert not np.array_equal(r["p"], np.arange(1000))


def test_gamma_family():
    # Not bit-equal to jax (its rejection loop is per element): tested in distribution.
    n = 10_000
    g = sg.Graph()
    with g:
        ks = R.split(R.key(11), 4)
        d = dict(
            lg=R.loggamma(ks[0], np.array([0.01, 0.3, 2.5], np.float32), (n, 3)), g=R.gamma(ks[1], 4.0, (n,)),
            b=R.beta(ks[2], 2.0, 0.5, (n,)), dr=R.dirichlet(ks[3], np.array([1.0, 2.0, 3.0], np.float32), (n,)),
        )  # fmt: skip
    with sg.Session(g) as sess:
        r = sess.run(d)
    alpha = 1e-3
    assert r["lg"].dtype == np.float32 and np.isfinite(r["lg"]).all()
    for i, a in enumerate((0.01, 0.3, 2.5)):
        assert stats.kstest(np.exp(r["lg"][:, i].astype(np.float64)), stats.gamma(a).cdf).pvalue > alpha, a
    assert stats.kstest(r["g"], stats.gamma(4.0).cdf).pvalue > alpha
    assert stats.kstest(r["b"], stats.beta(2.0, 0.5).cdf).pvalue > alpha
    assert r["dr"].shape == (n, 3)
    np.testing.assert_allclose(r["dr"].sum(axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(r["dr"].mean(axis=0), np.array([1, 2, 3]) / 6, atol=0.01)
    assert stats.kstest(r["dr"][:, 2], stats.beta(3.0, 3.0).cdf).pvalue > alpha  # a Dirichlet marginal


def _program():
    g = sg.Graph()
    with g:
        k1, k2 = R.split(R.key(123))
        out = [R.normal(k1, (8,)), R.uniform(R.fold_in(k2, 5), (2, 3))]
    return g, out


def test_reproducible_across_sessions_and_devices():
    g, out = _program()
    with sg.Session(g) as s1, sg.Session(g) as s2, sg.Session(g, devices=2) as s3:
        a, b, c = s1.run(out), s2.run(out), s3.run(out)
    g2, out2 = _program()  # a second graph built the same way
    with sg.Session(g2) as s4:
        d = s4.run(out2)
    for x, y, z, w in zip(a, b, c, d):
        np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(x, z)
        np.testing.assert_array_equal(x, w)


def test_symbolic_shapes():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 16), sg.float32, name="x")
        m = sg.placeholder((3, "n"), sg.float32, name="m")
        k1, k2 = R.split(R.key(0))
        out = dict(
            noise=R.normal(k1, ("batch", 16)), shifted=x + R.normal(k1, x.shape),
            u=R.uniform(k2, m.shape), bits=R.bits(k2, ("n", "batch")),
        )  # fmt: skip
    with sg.Session(g) as sess:
        for b, n in ((2, 5), (5, 3)):
            xs = np.ones((b, 16), np.float32)
            r = sess.run(out, {x: xs, m: np.zeros((3, n), np.float32)})
            want = _jax_symbolic(b, n)
            np.testing.assert_array_equal(r["noise"], want["noise"])
            # (x + noise may fuse into one rounding step: equal to 1 ulp)
            np.testing.assert_allclose(r["shifted"], xs + np.asarray(want["noise"]), atol=2.5e-7)
            np.testing.assert_array_equal(r["u"], want["u"])
            np.testing.assert_array_equal(r["bits"], want["bits"])


@functools.partial(jax.jit, static_argnums=(0, 1))
def _jax_symbolic(b, n):
    k1, k2 = J.split(J.PRNGKey(0))
    return dict(noise=J.normal(k1, (b, 16)), u=J.uniform(k2, (3, n)), bits=J.bits(k2, (n, b)))


def test_errors():
    g = sg.Graph()
    here = __file__.rsplit("/", 1)[-1]
    with g:
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            R.normal(sg.constant(np.zeros(2, np.int32)), (3,))
        assert f"{here}:{line}" in str(e.value) and "uint32[2]" in str(e.value)
        with pytest.raises(
            sg.GraphError, match=rf"{here}:\d+.*uniform wants a real floating dtype, got int32"
        ):
            R.uniform(R.key(0), (3,), sg.int32)
        x = sg.placeholder(("n",), sg.float32)
        with pytest.raises(sg.GraphError, match=rf"{here}:\d+.*permutation wants a static size"):
            R.permutation(R.key(0), x)
        with pytest.raises(sg.GraphError, match=rf"{here}:\d+.*key wants an integer seed"):
            R.key(1.5)
        with pytest.raises(sg.GraphError, match=rf"{here}:\d+.*choice cannot take 5 samples from 3"):
            R.choice(R.key(0), 3, (5,), replace=False)


def test_gradients_reach_parameters_not_the_bits():
    # Reparameterized draws: gradients flow to minval/maxval, bounds and means, as in jax.
    g = sg.Graph()
    with g:
        m = sg.placeholder((), sg.float32, name="m")
        mu = sg.placeholder((3,), sg.float32, name="mu")
        k = R.key(0)
        u = R.uniform(k, (5,), maxval=m)
        z = mu + 2.0 * R.normal(k, (3,))
        t = R.truncated_normal(k, -m, m, (4,))
        loss = sg.numpy.sum(u) + sg.numpy.sum(z * z) + sg.numpy.sum(t)
        grads = sg.gradients(loss, [m, mu])
    with sg.Session(g) as sess:
        got = sess.run(grads, {m: np.float32(2.0), mu: np.ones(3, np.float32)})
    jk = J.PRNGKey(0)

    def jloss(m, mu):
        u = J.uniform(jk, (5,), maxval=m)
        z = mu + 2.0 * J.normal(jk, (3,))
        return jnp.sum(u) + jnp.sum(z * z) + jnp.sum(J.truncated_normal(jk, -m, m, (4,)))

    want = jax.grad(jloss, (0, 1))(np.float32(2.0), np.ones(3, np.float32))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5)
