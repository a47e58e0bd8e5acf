"""sg.random's typed keys (sg.random.key, KeyArray, key<fry>): bit equality with jax.random.key,
conversions both ways, Session fetch and feed, vectorize, and the errors for what is no key."""

import jax
import numpy as np
import pytest

import stablegraph as sg

R, J = sg.random, jax.random


@pytest.fixture(autouse=True)
def _jax_defaults():
    with jax.enable_x64(False), jax.threefry_partitionable(True):
        yield


SEEDS = [7, -1]  # -1: the words [0, 2**32 - 1]


def _build(seed):
    k = R.key(seed)
    k1, k2 = R.split(k)
    ks = R.split(k, 3)
    return dict(
        data=R.key_data(k),
        ks=ks,
        k1=k1,
        fold=R.fold_in(k, 7),
        fold0=R.fold_in(ks[2], 0),
        grid=R.split(k2, (2, 3)),
        normal=R.normal(k1, (5,)),
        uniform=R.uniform(k2, (2, 3), minval=-2.0, maxval=3.0),
        bits=R.bits(ks[1], (4,)),
        bits8=R.bits(k, (3,), sg.uint8),
        randint=R.randint(k, (6,), -5, 10),
        randint_edge=R.randint(k1, (4,), 3, 4),
        unif_scalar=R.uniform(k, dtype=sg.float16),
        bern=R.bernoulli(k2, 0.3, (5,)),
    )


@jax.jit
def _jax(seed):
    k = J.key(seed)
    k1, k2 = J.split(k)
    ks = J.split(k, 3)
    return dict(
        data=J.key_data(k),
        ks=ks,
        k1=k1,
        fold=J.fold_in(k, 7),
        fold0=J.fold_in(ks[2], 0),
        grid=J.split(k2, (2, 3)),
        normal=J.normal(k1, (5,)),
        uniform=J.uniform(k2, (2, 3), minval=-2.0, maxval=3.0),
        bits=J.bits(ks[1], (4,)),
        bits8=J.bits(k, (3,), np.uint8),
        randint=J.randint(k, (6,), -5, 10),
        randint_edge=J.randint(k1, (4,), 3, 4),
        unif_scalar=J.uniform(k, dtype=np.float16),
        bern=J.bernoulli(k2, 0.3, (5,)),
    )


def test_typed_keys_draw_what_jax_typed_keys_draw():
    g = sg.Graph()
    with g:
        built = [_build(s) for s in SEEDS]
    with sg.Session(g) as sess:
        got = sess.run(built)
    for seed, out in zip(SEEDS, got):
        want = _jax(np.uint32(seed % 2**32))  # one compile for every seed
        for name, w in want.items():
            o = out[name]
            if isinstance(o, R.KeyArray):  # a fetched typed key: a host KeyArray of the same shape
                assert o.dtype == R.key_dtype() and str(o.dtype) == "key<fry>"
                assert o.shape == w.shape, name
                np.testing.assert_array_equal(R.key_data(o), J.key_data(w), err_msg=f"{seed} {name}")
            else:
                np.testing.assert_array_equal(o, np.asarray(w), err_msg=f"{seed} {name}")


def test_raw_and_typed_keys_convert_both_ways_and_draw_alike():
    g = sg.Graph()
    with g:
        raw = R.PRNGKey(9)
        typed = R.wrap_key_data(raw)
        back = R.key_data(typed)
        same = [R.normal(raw, (4,)), R.normal(typed, (4,)), R.normal(R.key(9), (4,))]
        raw_split, typed_split = R.split(raw, 2), R.split(typed, 2)
        host = R.wrap_key_data(np.array([[1, 2], [3, 4]], np.uint32))
        from_host = R.uniform(host[1], (2,))
        assert isinstance(raw_split, sg.Tensor) and isinstance(typed_split, R.KeyArray)
        assert typed.shape == () and typed.ndim == 0 and typed_split.shape == (2,) and len(typed_split) == 2
        assert R.key_impl(typed) == R.key_impl(raw) == "threefry2x32"
        assert R.clone(typed) is typed and R.key_dtype("threefry2x32") == typed.dtype
        assert R.PRNGKey(9).type == sg.TensorType((2,), sg.uint32)
    with sg.Session(g) as sess:
        r, b, s, rs, ts, fh = sess.run([raw, back, same, raw_split, typed_split, from_host])
    np.testing.assert_array_equal(r, J.PRNGKey(9))
    np.testing.assert_array_equal(b, r)
    np.testing.assert_array_equal(s[0], s[1])
    np.testing.assert_array_equal(s[1], s[2])
    np.testing.assert_array_equal(R.key_data(ts), rs)
    np.testing.assert_array_equal(fh, J.uniform(J.wrap_key_data(np.array([3, 4], np.uint32)), (2,)))
    # a host KeyArray (what a fetch gives) feeds a uint32[..., 2] placeholder, or the typed key over it
    g2 = sg.Graph()
    with g2:
        words = sg.placeholder((2,), sg.uint32, name="words")
        typed_words = R.wrap_key_data(words)
        draw = R.normal(typed_words, (3,))
    with sg.Session(g2) as sess:
        fed = sess.run(draw, {words: ts[0]})
        by_key = [sess.run(draw, {typed_words: ts[1]}) for _ in range(2)]  # the typed key as the feed's key
    np.testing.assert_array_equal(fed, J.normal(J.split(J.key(9))[0], (3,)))
    for got in by_key:
        np.testing.assert_array_equal(got, J.normal(J.split(J.key(9))[1], (3,)))


def test_vectorize_over_typed_key_batches_matches_jax_vmap():
    g = sg.Graph()
    with g:
        ks = R.split(R.key(3), 4)
        normals = sg.vectorize(lambda k: R.normal(k, (2,)))(ks)
        uniforms = sg.vectorize(lambda k: R.uniform(k, (2,)))(ks)
        splits = sg.vectorize(lambda k: R.split(k))(ks)
        folded = sg.vectorize(lambda k, i: R.fold_in(k, i))(ks, sg.constant(np.arange(4, dtype=np.int32)))
        rows = [R.normal(k, (2,)) for k in ks]  # iterating a key array: one key per row
    with sg.Session(g) as sess:
        n, u, sp, f, rw = sess.run([normals, uniforms, splits, folded, rows])
    jks = J.split(J.key(3), 4)
    np.testing.assert_array_equal(u, jax.vmap(lambda k: J.uniform(k, (2,)))(jks))
    # the same uniforms; XLA's batched erf_inv may round one ulp off jax's
    np.testing.assert_allclose(n, jax.vmap(lambda k: J.normal(k, (2,)))(jks), rtol=3e-7, atol=0)
    for k, row in zip(jks, rw):
        np.testing.assert_array_equal(row, J.normal(k, (2,)))
    assert sp.shape == (4, 2)
    np.testing.assert_array_equal(R.key_data(sp), J.key_data(jax.vmap(J.split)(jks)))
    np.testing.assert_array_equal(R.key_data(f), J.key_data(jax.vmap(J.fold_in)(jks, np.arange(4))))


def test_what_is_no_key_or_not_one_key_is_a_clear_error():
    g = sg.Graph()
    with g:
        ks = R.split(R.key(0), 3)
        with pytest.raises(sg.GraphError, match=r"single key, got a key array of shape \(3,\) \(key<fry>\)"):
            R.normal(ks, (2,))
        with pytest.raises(sg.GraphError, match="impl 'rbg' is not built here"):
            R.key(0, impl="rbg")
        with pytest.raises(
            sg.GraphError, match=r"key_data wants typed keys.*f32\[3\]|key_data wants typed keys"
        ):
            R.key_data(sg.constant(np.zeros(3, np.float32)))
        with pytest.raises(sg.GraphError, match="wrap_key_data wants uint32 words"):
            R.wrap_key_data(np.zeros(2, np.int32))
        with pytest.raises(sg.GraphError, match="2 words in the last dim"):
            R.wrap_key_data(np.zeros((2, 3), np.uint32))
        with pytest.raises(TypeError):
            len(R.key(1))
        with pytest.raises(TypeError, match="no value until a Session"):
            np.asarray(R.key(1))


def test_typed_keys_ride_through_scan_and_cond():
    g = sg.Graph()
    with g:

        def body(k, _):
            k, sub = R.split(k)
            return k, R.normal(sub, (2,))

        last, ys = sg.scan(body, R.key(5), None, length=3)
        picked = sg.cond(sg.constant(True), lambda k: R.fold_in(k, 1), lambda k: k, R.key(2))
    with sg.Session(g) as sess:
        got_last, got_ys, got_picked = sess.run([last, ys, picked])

    def jax_body(k, _):
        k, sub = J.split(k)
        return k, J.normal(sub, (2,))

    want_last, want_ys = jax.lax.scan(jax_body, J.key(5), None, length=3)
    assert isinstance(got_last, R.KeyArray) and isinstance(got_picked, R.KeyArray)
    np.testing.assert_array_equal(R.key_data(got_last), J.key_data(want_last))
    np.testing.assert_array_equal(got_ys, want_ys)
    np.testing.assert_array_equal(R.key_data(got_picked), J.key_data(J.fold_in(J.key(2), 1)))
