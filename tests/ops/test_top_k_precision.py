"""top_k and reduce_precision against jax.lax, in values and gradients."""

import inspect
from contextlib import contextmanager

import jax
import ml_dtypes
import numpy as np
import pytest

import stablegraph as sg
from stablegraph.ops.primitives.precision import reduce_precision
from stablegraph.ops.primitives.top_k import top_k

RNG = np.random.default_rng(5)


@contextmanager
def jax_x64():
    """jax computes in 64 bits inside (its switch is global: put back after)."""
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", before)


# (shape, k, axis, dtype)
TOP_K = [
    ((7,), 3, -1, np.float32),
    ((4, 9), 9, -1, np.float32),
    ((4, 9), 0, 1, np.float32),
    ((3, 5, 6), 2, 1, np.float64),
    ((6, 4), 4, 0, np.float32),
    ((5, 8), 3, -1, np.int32),
    ((2, 10), 5, -1, np.uint8),
]


def _data(shape, dt):
    if np.issubdtype(dt, np.integer):  # small integers: ties
        return RNG.integers(0, 5, size=shape).astype(dt)
    x = RNG.normal(size=shape).astype(dt)
    x.flat[1] = x.flat[0]  # a tie
    return x


def test_values_and_indices_match_jax_with_ties(run):
    xs = [_data(s, dt) for s, _, _, dt in TOP_K]
    got = run(lambda *ps: [top_k(p, k, axis) for p, (_, k, axis, _) in zip(ps, TOP_K)], *xs)
    with jax_x64():
        wants = jax.jit(lambda vs: [jax.lax.top_k(v, k, axis=a) for v, (_, k, a, _) in zip(vs, TOP_K)])(xs)
    for x, (shape, k, axis, dt), (values, indices), (want_v, want_i) in zip(xs, TOP_K, got, wants):
        msg = f"{shape} k={k} axis={axis} {dt.__name__}"
        assert values.dtype == x.dtype and indices.dtype == np.int32, msg
        np.testing.assert_array_equal(values, np.asarray(want_v, x.dtype), err_msg=msg)
        np.testing.assert_array_equal(indices, want_i, err_msg=msg)


def test_gradient_scatters_the_cotangent_to_the_indices_like_jax():
    cases = [((7,), 3, -1), ((3, 6), 4, -1), ((5, 3), 2, 0)]
    xs = [RNG.normal(size=s).astype(np.float32) for s, _, _ in cases]
    weights = [
        RNG.normal(size=jax.lax.top_k(x, k, axis=a)[0].shape).astype(np.float32)
        for x, (_, k, a) in zip(xs, cases)
    ]
    g = sg.Graph()
    with g:
        ps = [sg.placeholder(x.shape, sg.float32) for x in xs]
        grads = [
            sg.grad(lambda t, k=k, a=a, w=w: (top_k(t, k, a)[0] * w).sum())(p)
            for p, (_, k, a), w in zip(ps, cases, weights)
        ]
    with sg.Session(g) as sess:
        got = sess.run(grads, dict(zip(ps, xs)))

    def loss(vs):
        return sum((jax.lax.top_k(v, k, axis=a)[0] * w).sum() for v, (_, k, a), w in zip(vs, cases, weights))

    wants = jax.jit(jax.grad(loss))(xs)
    for x, (_, k, a), gr, want in zip(xs, cases, got, wants):
        np.testing.assert_allclose(gr, want, rtol=1e-6, err_msg=f"{x.shape} k={k} axis={a}")


def test_top_k_errors_name_the_op_and_this_line():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3, 4), sg.float32)
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            top_k(x, 5)
        assert "top_k wants 0 <= k <= 4 (the size of axis 1), got k=5 for f32[3,4]" in str(e.value)
        assert f"test_top_k_precision.py:{line}" in str(e.value)
        with pytest.raises(sg.GraphError, match="top_k wants a real numeric dtype"):
            top_k(sg.placeholder((3,), sg.complex64), 1)
        with pytest.raises(sg.GraphError, match="top_k wants an operand of rank >= 1"):
            top_k(sg.placeholder((), sg.float32), 1)


# (exponent_bits, mantissa_bits)
FORMATS = [(8, 7), (5, 10), (4, 3), (5, 2), (11, 52), (8, 23), (2, 0), (6, 1)]


def test_reduce_precision_matches_jax_on_float32_float64_and_bfloat16(run):
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 3e38, 65504.0, 65520.0, 1.0 + 2**-8])
    x32 = np.concatenate([RNG.normal(size=40) * 10.0 ** RNG.integers(-8, 8, size=40), specials]).astype(
        np.float32
    )
    x64 = x32.astype(np.float64) * (1 + 1e-9)
    xbf = x32.astype(ml_dtypes.bfloat16)
    cases = [(x, e, m) for x in ("x32", "x64") for e, m in FORMATS] + [("xbf", 5, 2), ("xbf", 8, 3)]
    arrays = {"x32": x32, "x64": x64, "xbf": xbf}
    names = list(arrays)
    got = run(lambda *ps: [reduce_precision(ps[names.index(x)], e, m) for x, e, m in cases], *arrays.values())
    with jax_x64():
        wants = jax.jit(lambda a: [jax.lax.reduce_precision(a[x], e, m) for x, e, m in cases])(arrays)
        for (x, e, m), g, want in zip(cases, got, wants):
            want = np.asarray(want)
            assert g.dtype == arrays[x].dtype, (x, e, m)
            # compared as float32: numpy's NaN equality does not see bfloat16 NaNs
            np.testing.assert_array_equal(
                g.astype(np.float32), want.astype(np.float32), err_msg=f"{x} {e} {m}"
            )


def test_reduce_precision_takes_a_dtype_and_rounds_the_gradient_like_jax(run):
    x = RNG.normal(size=(3, 4)).astype(np.float32) * 100
    got = run(
        lambda p: [
            reduce_precision(p, sg.bfloat16),
            reduce_precision(p, dtype=sg.float16),
            sg.grad(lambda t: (reduce_precision(t, 4, 3) * t).sum())(p),
        ],
        x,
    )
    np.testing.assert_array_equal(got[0], jax.lax.reduce_precision(x, 8, 7))
    np.testing.assert_array_equal(got[1], jax.lax.reduce_precision(x, 5, 10))
    want = jax.grad(lambda t: (jax.lax.reduce_precision(t, 4, 3) * t).sum())(x)
    np.testing.assert_allclose(got[2], want, rtol=1e-6)


def test_reduce_precision_errors():
    g = sg.Graph()
    with g:
        with pytest.raises(sg.GraphError, match=r"reduce_precision wants a floating dtype, got i32\[3\]"):
            reduce_precision(sg.placeholder((3,), sg.int32), 5, 2)
        with pytest.raises(
            sg.GraphError, match="reduce_precision wants exponent_bits >= 1 and mantissa_bits >= 0"
        ):
            reduce_precision(sg.placeholder((3,), sg.float32), 0, 2)
        with pytest.raises(sg.GraphError, match="wants a floating dtype to name the format, got int8"):
            reduce_precision(sg.placeholder((3,), sg.float32), sg.int8)
