"""sg.scipy.linalg's special matrices against scipy.linalg (float64 values, exact integers for the
inverses) and jax.scipy.linalg (batched inputs, gradients), with vectorize against a loop; the
cases of each test share one graph and one run."""

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import numpy as np
import pytest
import scipy.linalg as sl

import stablegraph as sg
from stablegraph.test_util import run_graph

L = sg.scipy.linalg
RNG = np.random.default_rng(260)


def test_matrices_of_an_arrays_entries_match_scipy():
    c = RNG.normal(size=6)
    r = RNG.normal(size=4)
    z = RNG.normal(size=3) + 1j * RNG.normal(size=3)
    one = np.array([2.5])
    cases = [
        ("toeplitz", (c, r)), ("toeplitz", (c,)), ("toeplitz", (one, r)), ("circulant", (c,)),
        ("circulant", (one,)), ("hankel", (c, r)), ("hankel", (c,)), ("hankel", (one,)), ("companion", (c,)),
        ("companion", (c[:2],)), ("leslie", (c[:4], r[:3])), ("fiedler", (c,)),
        ("fiedler", (one,)), *(("fiedler_companion", (c[:k],)) for k in range(2, 7)),
    ]  # fmt: skip
    arrays = [a for _, args in cases for a in args]

    def build(*phs):
        it = iter(phs)
        return [getattr(L, name)(*(next(it) for _ in args)) for name, args in cases]

    got = run_graph(build, *arrays)
    for (name, args), value in zip(cases, got):
        np.testing.assert_allclose(value, getattr(sl, name)(*args), rtol=1e-13, atol=1e-15, err_msg=name)
    complex_got = run_graph(lambda v: [L.toeplitz(v), L.circulant(v), L.hankel(v, v[::-1])], z)
    for value, want in zip(complex_got, [sl.toeplitz(z), sl.circulant(z), sl.hankel(z, z[::-1])]):
        np.testing.assert_allclose(value, want, rtol=1e-13)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolution_matrix_is_numpys_convolve(mode):
    a = RNG.normal(size=5)
    vs = [RNG.normal(size=n) for n in (1, 3, 5, 8)]
    got = run_graph(lambda x: [L.convolution_matrix(x, len(v), mode) for v in vs], a)
    for m, v in zip(got, vs):
        np.testing.assert_allclose(
            m, sl.convolution_matrix(a, len(v), mode), rtol=1e-14, err_msg=f"n={len(v)}"
        )
        np.testing.assert_allclose(m @ v, np.convolve(a, v, mode), rtol=1e-12, atol=1e-14)


def test_matrices_of_a_size_are_exact_in_jaxs_dtypes():
    g = sg.Graph()
    sizes = (0, 1, 2, 5, 9)
    with g:
        out = {
            n: [L.hilbert(n), L.invhilbert(n), L.pascal(n), L.pascal(n, "lower"), L.pascal(n, "upper"),
                L.invpascal(n), L.invpascal(n, "lower"), L.invpascal(n, "upper"), L.helmert(max(n, 1)), L.helmert(max(n, 1), full=True),
                L.dft(n), L.dft(n, "sqrtn"), L.dft(n, "n")]
            for n in sizes
        }  # fmt: skip
        out["hadamard"] = [L.hadamard(1), L.hadamard(2), L.hadamard(16)]
        out["float64"] = [L.invhilbert(9, dtype=sg.float64), L.invpascal(9, dtype=sg.float64)]
    with sg.Session(g) as sess:
        got = sess.run(out)
    for n in sizes:
        want = [sl.hilbert(n), sl.invhilbert(n, exact=True), sl.pascal(n), sl.pascal(n, "lower"), sl.pascal(n, "upper"),
                sl.invpascal(n), sl.invpascal(n, "lower"), sl.invpascal(n, "upper"), sl.helmert(max(n, 1)),
                sl.helmert(max(n, 1), full=True), sl.dft(n), sl.dft(n, "sqrtn"), sl.dft(n, "n")]  # fmt: skip
        for k, (value, w) in enumerate(zip(got[n], want)):
            w = np.asarray(w, dtype=np.complex128 if k >= 10 else np.float64)
            assert value.dtype == (np.complex64 if k >= 10 else np.float32), (n, k, value.dtype)
            np.testing.assert_allclose(
                value, w.astype(value.dtype), rtol=1e-6, atol=1e-6, err_msg=f"n={n} case {k}"
            )
    for value, n in zip(got["hadamard"], (1, 2, 16)):
        assert value.dtype == np.int32
        np.testing.assert_array_equal(value, sl.hadamard(n))
    # exact integers: scipy's exact inverses, not jax's float32 arithmetic (0.9999995 for 1)
    np.testing.assert_array_equal(got["float64"][0], sl.invhilbert(9, exact=True).astype(np.float64))
    np.testing.assert_array_equal(got["float64"][1], sl.invpascal(9, exact=True).astype(np.float64))
    np.testing.assert_array_equal(got[5][5], sl.invpascal(5, exact=True).astype(np.float32))


def test_batches_gradients_and_vectorize_match_jax():
    c = RNG.normal(size=(3, 5)).astype(np.float32)
    r = RNG.normal(size=(3, 4)).astype(np.float32)

    def loss(lin, c, r):
        return sum(
            (m * k).sum()
            for k, m in enumerate(
                [lin.toeplitz(c, r), lin.circulant(c),
                 lin.hankel(c, r), lin.companion(c), lin.fiedler(c), lin.fiedler_companion(c), lin.leslie(c[:, :4], r[:, :3]),
                 lin.convolution_matrix(c, 3, "same")],
                start=1,
            )
        )  # fmt: skip

    g = sg.Graph()
    with g:
        cp, rp = sg.placeholder(c.shape, sg.float32), sg.placeholder(r.shape, sg.float32)
        batched = [
            L.toeplitz(cp, rp),
            L.circulant(cp),
            L.hankel(cp, rp),
            L.companion(cp),
            L.fiedler_companion(cp),
        ]
        grads = sg.grad(lambda u, v: loss(L, u, v), argnums=(0, 1))(cp, rp)
        mapped = sg.vectorize(lambda u, v: L.toeplitz(u, v) @ L.circulant(u)[:, :4].T)(cp, rp)
    with sg.Session(g) as sess:
        got_batched, got_grads, got_mapped = sess.run([batched, grads, mapped], {cp: c, rp: r})
    want_batched = jax.jit(
        lambda c, r: [
            jsl.toeplitz(c, r),
            jsl.circulant(c),
            jsl.hankel(c, r),
            jsl.companion(c),
            jsl.fiedler_companion(c),
        ]
    )(c, r)
    for k, (value, want) in enumerate(zip(got_batched, want_batched)):
        np.testing.assert_allclose(value, np.asarray(want), rtol=1e-6, atol=1e-6, err_msg=f"batched {k}")
    want_grads = jax.jit(jax.grad(lambda u, v: loss(jsl, u, v), argnums=(0, 1)))(
        jnp.asarray(c), jnp.asarray(r)
    )
    for value, want in zip(got_grads, want_grads):
        np.testing.assert_allclose(value, np.asarray(want), rtol=2e-5, atol=2e-5)
    loop = np.stack([sl.toeplitz(c[i], r[i]) @ sl.circulant(c[i])[:, :4].T for i in range(3)])
    np.testing.assert_allclose(got_mapped, loop, rtol=1e-5, atol=1e-5)


def test_bad_arguments_are_graph_errors_at_the_users_line():
    g = sg.Graph()
    with g:
        x = sg.placeholder((4,), sg.float32)
        with pytest.raises(sg.GraphError, match="power of 2") as info:
            L.hadamard(6)
        assert "test_special_matrices.py" in str(info.value)
        with pytest.raises(sg.GraphError, match="len\\(s\\) == len\\(f\\) - 1"):
            L.leslie(x, x)
        with pytest.raises(sg.GraphError, match="2 or more entries"):
            L.leslie(x[:1], x[:0])
        with pytest.raises(sg.GraphError, match="mode must be"):
            L.convolution_matrix(x, 3, "wrap")
        with pytest.raises(sg.GraphError, match="n >= 1"):
            L.helmert(0)
        with pytest.raises(sg.GraphError, match="kind must be"):
            L.pascal(3, "diagonal")
