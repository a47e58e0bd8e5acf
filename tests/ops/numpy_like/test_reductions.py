"""sg.numpy reductions with axis and keepdims against numpy."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import stablegraph as sg
from stablegraph import numpy as snp

RNG = np.random.default_rng(4)
FUNCS = ["sum", "mean", "var", "std", "max", "min", "prod", "all", "any"]
AXES = [None, 0, 1, -1, (0, 2), (1, 2)]


def test_every_reduction_axis_and_keepdims(run):
    x = RNG.uniform(-2, 2, size=(2, 3, 4)).astype(np.float32)
    cases = [(f, ax, kd) for f in FUNCS for ax in AXES for kd in (False, True)]
    got = run(lambda p: [getattr(snp, f)(p, axis=ax, keepdims=kd) for f, ax, kd in cases], x)
    for (f, ax, kd), g in zip(cases, got):
        want = getattr(np, f)(x, axis=ax, keepdims=kd)
        assert g.shape == np.shape(want), (f, ax, kd)
        np.testing.assert_allclose(g, want, rtol=2e-5, atol=1e-6, err_msg=f"{f} {ax} {kd}")


def test_methods_and_integer_dtypes(run):
    i = RNG.integers(-5, 5, size=(3, 4)).astype(np.int8)
    b = RNG.random((3, 4)) < 0.5
    got = run(
        lambda p, q: [p.sum(), p.sum(axis=0), p.mean(), p.max(axis=1), q.sum(), snp.var(p, ddof=1), p.prod()],
        i,
        b,
    )
    assert got[0] == i.sum() and got[0].dtype == np.int32  # small ints sum in int32 (like jax)
    np.testing.assert_array_equal(got[1], i.sum(axis=0))
    assert got[2].dtype == np.float32 and np.isclose(got[2], i.mean())
    np.testing.assert_array_equal(got[3], i.max(axis=1))
    assert got[4] == b.sum() and got[4].dtype == np.int32
    np.testing.assert_allclose(got[5], np.var(i, ddof=1), rtol=1e-5)


def test_mean_and_var_over_a_symbolic_batch(run):
    x = RNG.normal(size=(6, 3)).astype(np.float32)
    got = run(
        lambda p: [p.mean(axis=0), snp.var(p), snp.std(p, axis=0, keepdims=True)],
        x,
        symbolic={0: ("batch", 3)},
    )
    np.testing.assert_allclose(got[0], x.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(got[1], x.var(), rtol=1e-5)
    np.testing.assert_allclose(got[2], x.std(axis=0, keepdims=True), rtol=1e-5)


@given(
    arr=hnp.arrays(
        np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), elements=st.floats(-10, 10)
    ),
    data=st.data(),
)
def test_random_axes(arr, data):
    axis = data.draw(st.none() | st.integers(-arr.ndim, arr.ndim - 1))
    g = sg.Graph()
    with g:
        x = sg.placeholder(arr.shape, sg.float64)
        outs = [snp.sum(x, axis=axis), snp.mean(x, axis=axis), snp.max(x, axis=axis, keepdims=True)]
    with sg.Session(g) as sess:
        got = sess.run(outs, {x: arr})
    for g_, w in zip(got, [arr.sum(axis=axis), arr.mean(axis=axis), arr.max(axis=axis, keepdims=True)]):
        np.testing.assert_allclose(g_, w, rtol=1e-12, atol=1e-12)
