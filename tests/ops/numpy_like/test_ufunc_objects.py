"""sg.numpy.ufunc and frompyfunc, and sg.numpy's ufunc objects (add, multiply, ...): __call__,
reduce, accumulate, at, outer and reduceat against numpy's own ufuncs (numpy.frompyfunc for a
Python function), at random points and edges (empty, nan, repeated indices, where masks)."""

import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg

snp = sg.numpy


def _py(a, b):
    return a * b + 1.0


def test_ufunc_methods_match_numpys():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 3)).astype(np.float32)
    x[1, 2] = np.nan
    mask = np.array([[True, False, True], [False, True, True]])
    nf = np.frompyfunc(_py, 2, 1)
    g = sg.Graph()
    with g:
        X = sg.constant(x)
        f = snp.frompyfunc(_py, 2, 1)
        got = dict(
            add_reduce=snp.add.reduce(X),
            add_all=snp.add.reduce(X, axis=None, keepdims=True),
            add_acc=snp.add.accumulate(X, axis=1),
            mul_outer=snp.multiply.outer(X[0], X[1]),
            add_at=snp.add.at(X[0], np.array([0, 0, 2]), 1.0, inplace=False),
            sub_at=snp.subtract.at(X[0], np.array([1, 1]), np.array([2.0, 3.0], np.float32), inplace=False),
            neg_at=snp.negative.at(X[0], np.array([1, 1, 0]), inplace=False),
            add_reduceat=snp.add.reduceat(np.arange(8.0, dtype=np.float32), np.array([0, 4, 1, 5, 7])),
            lae=snp.logaddexp.reduce(X, axis=1),
            xor=snp.bitwise_xor.reduce(np.array([3, 5, 6], np.int32)),
            add_where=snp.add.reduce(X, axis=1, where=np.array([True, False, True]), initial=10.0),
            empty_add=snp.add.reduce(np.zeros((0, 2), np.float32)),
            empty_acc=snp.add.accumulate(np.zeros(0, np.float32)),
            max_axes=snp.maximum.reduce(X[:, :2], axis=(0, 1)),
            f_call=f(X, 2.0),
            f_reduce=f.reduce(X, axis=1),
            f_acc=f.accumulate(X, axis=1),
            f_outer=f.outer(X[0], X[1]),
            f_at=f.at(X[0], np.array([2, 0, 2]), 3.0, inplace=False),
            f_reduceat=f.reduceat(X, np.array([0, 2, 1]), axis=1),
            f_where=f.reduce(X, axis=0, where=mask, initial=0.5),
            f_empty=snp.frompyfunc(_py, 2, 1, identity=2.0).reduce(np.zeros((0,), np.float32)),
            f_vmap=sg.vectorize(lambda row: f.reduce(row))(X),
        )
    with sg.Session(g) as sess:
        r = sess.run(got)

    def at(u, a, idx, *b):
        a = a.astype(object) if u is nf else a.copy()
        u.at(a, idx, *b)
        return a.astype(np.float32)

    with np.errstate(invalid="ignore"):  # logaddexp of nan
        lae = np.logaddexp.reduce(x, axis=1)
    want = dict(
        add_reduce=np.add.reduce(x),
        add_all=np.add.reduce(x, axis=None, keepdims=True),
        add_acc=np.add.accumulate(x, axis=1),
        mul_outer=np.multiply.outer(x[0], x[1]),
        add_at=at(np.add, x[0], [0, 0, 2], 1.0),
        sub_at=at(np.subtract, x[0], [1, 1], [2.0, 3.0]),
        neg_at=at(np.negative, x[0], [1, 1, 0]),
        add_reduceat=np.add.reduceat(np.arange(8.0), [0, 4, 1, 5, 7]),
        lae=lae,
        xor=np.bitwise_xor.reduce([3, 5, 6]),
        add_where=np.add.reduce(x, axis=1, where=[True, False, True], initial=10.0),
        empty_add=np.zeros(2),
        empty_acc=np.zeros(0),
        max_axes=np.maximum.reduce(x[:, :2], axis=(0, 1)),
        f_call=nf(x, 2.0),
        f_reduce=nf.reduce(x, axis=1),
        f_acc=nf.accumulate(x, axis=1),
        f_outer=nf.outer(x[0], x[1]),
        f_at=at(nf, x[0], [2, 0, 2], 3.0),
        f_reduceat=nf.reduceat(x, [0, 2, 1], axis=1),
        f_where=nf.reduce(x, axis=0, where=mask, initial=0.5),
        f_empty=2.0,
        f_vmap=nf.reduce(x, axis=1),
    )
    for name, w in want.items():
        np.testing.assert_allclose(r[name], np.asarray(w, np.float64), rtol=1e-6, err_msg=name)
        assert np.shape(r[name]) == np.shape(w), name


def test_ufunc_objects_are_jaxs_set_with_jaxs_identities():
    names = [n for n in dir(jnp) if isinstance(getattr(jnp, n), jnp.ufunc)]
    assert names
    for n in names:
        ours, theirs = getattr(snp, n), getattr(jnp, n)
        assert isinstance(ours, snp.ufunc), n
        assert (ours.nin, ours.nout) == (theirs.nin, theirs.nout), n
        assert ours.identity == theirs.identity or (ours.identity is None and theirs.identity is None), n


def test_ufunc_misuse_is_a_clear_error():
    g = sg.Graph()
    with g:
        f = snp.frompyfunc(_py, 2, 1)
        with pytest.raises(sg.GraphError, match="no identity"):
            f.reduce(np.zeros(0, np.float32))
        with pytest.raises(sg.GraphError, match="where= needs initial="):
            f.reduce(np.ones(3, np.float32), where=np.array([True, False, True]))
        with pytest.raises(sg.GraphError, match="inplace=False"):
            snp.add.at(np.ones(3, np.float32), np.array([0]), 1.0)
        with pytest.raises(sg.GraphError, match="nin=2, nout=1"):
            snp.negative.reduce(np.ones(3, np.float32))
        with pytest.raises(sg.GraphError, match="takes 2 arguments"):
            f(np.ones(3, np.float32))
