"""sg.numpy elementwise functions: numpy values, broadcasting, promotion, symbolic dims."""

import inspect

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import stablegraph as sg
from stablegraph import numpy as snp

RNG = np.random.default_rng(3)

BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power", "maximum",
          "minimum", "arctan2", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
          "logical_and", "logical_or", "logical_xor", "fmod"]  # fmt: skip
UNARY = ["exp", "expm1", "log", "log1p", "sqrt", "cbrt", "sin", "cos", "tan", "tanh", "negative", "sign",
         "floor", "ceil", "round", "absolute", "square", "reciprocal", "isfinite", "isnan", "isinf",
         "logical_not"]  # fmt: skip


def test_float_functions_against_numpy(run):
    a = RNG.uniform(0.5, 3, size=(4, 1, 3)).astype(np.float32)
    b = RNG.uniform(0.5, 3, size=(2, 3)).astype(np.float32) * RNG.choice([-1, 1], size=(2, 3)).astype(
        np.float32
    )
    got = run(
        lambda x, y: {**{f: getattr(snp, f)(x, y) for f in BINARY}, **{f: getattr(snp, f)(y) for f in UNARY}},
        a,
        b,
    )
    for f in BINARY:
        want = getattr(np, f)(a, b)
        np.testing.assert_allclose(got[f], want, rtol=2e-5, err_msg=f)
        assert got[f].shape == (4, 2, 3)
    for f in UNARY:
        with np.errstate(all="ignore"):
            want = getattr(np, f)(b)
        np.testing.assert_allclose(got[f], want, rtol=2e-5, err_msg=f)


def test_float64_log1p_is_within_2_ulps_where_xla_is_not_and_its_slope_is_1_over_1_plus_x(run):
    """XLA's float64 log1p (jax's too) is up to 127 ulps off on [-0.4143, -0.353]: against decimal
    log(1 + x), around that window, its ends, and the special points; the slope against 1 / (1 + x)."""
    from decimal import Decimal, localcontext  # noqa: PLC0415

    x = np.concatenate([np.linspace(-0.45, -0.3, 3001), [-0.42, -0.34, -0.0, 0.0, -1.0, -1.5, 1e-300, np.inf,
                        np.nan, 5e-324, -0.5, 1e300]])  # fmt: skip
    got, slope = run(lambda t: (snp.log1p(t), sg.grad(lambda v: snp.sum(snp.log1p(v)))(t)), x)
    with localcontext() as ctx, np.errstate(all="ignore"):
        ctx.prec = 40
        want = np.array([float((1 + Decimal(v)).ln()) if 1e-10 < abs(v) < 1 else np.log1p(v) for v in x])
        ulps = np.abs(got - want) / np.spacing(np.abs(want))
    finite = np.isfinite(want)
    assert np.max(ulps[finite]) <= 2, x[finite][np.argmax(ulps[finite])]
    np.testing.assert_array_equal(got[~finite], want[~finite])
    assert np.signbit(got[x == 0]).tolist() == np.signbit(x[x == 0]).tolist()
    inside = np.abs(x) < 0.5
    np.testing.assert_allclose(slope[inside], 1 / (1 + x[inside]), rtol=1e-15)


def test_integer_division_and_remainder_follow_numpy_signs(run):
    a = np.array([7, -7, 7, -7, 0, 5], np.int32)
    b = np.array([2, 2, -2, -2, 3, -5], np.int32)
    got = run(lambda x, y: [x // y, x % y, snp.fmod(x, y), x / y, x**2], a, b)
    np.testing.assert_array_equal(got[0], a // b)
    np.testing.assert_array_equal(got[1], a % b)
    np.testing.assert_array_equal(got[2], np.fmod(a, b))
    np.testing.assert_allclose(got[3], a / b, rtol=1e-6)
    assert got[3].dtype == np.float32  # int / int is a float32 (no silent x64)
    np.testing.assert_array_equal(got[4], a**2)
    assert got[4].dtype == np.int32


def test_bitwise_and_shifts(run):
    a = RNG.integers(-100, 100, size=8).astype(np.int32)
    u = RNG.integers(0, 200, size=8).astype(np.uint8)
    got = run(lambda x, y: [x & 12, x | 3, x ^ x, ~x, x << 2, x >> 1, y >> 2, ~y], a, u)
    want = [a & 12, a | 3, a ^ a, ~a, a << 2, a >> 1, u >> 2, ~u]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        assert g.dtype == w.dtype


def test_promotion_with_weak_scalars_and_mixed_dtypes(run):
    f16 = np.ones(3, np.float16)
    i8 = np.ones(3, np.int8)
    u32 = np.ones(3, np.uint32)
    got = run(lambda h, i, u: [h * 2, h + 1.5, i + 1, i * 2.0, i + u, h + i, u + 1, i > 0.5], f16, i8, u32)
    assert [g.dtype for g in got] == [np.float16, np.float16, np.int8, np.float32, np.int64, np.float16,
                                       np.uint32, np.bool_]  # fmt: skip


def test_where_clip_and_comparison_operators(run):
    x = RNG.normal(size=(3, 4)).astype(np.float32)
    got = run(
        lambda p: [snp.where(p > 0, p, 0.0), snp.where(p > 0, 1, -1), (p >= 0) & (p < 1), -p, abs(p)], x
    )
    np.testing.assert_array_equal(got[0], np.where(x > 0, x, 0))
    np.testing.assert_array_equal(got[1], np.where(x > 0, 1, -1))
    assert got[1].dtype == np.int32
    np.testing.assert_array_equal(got[2], (x >= 0) & (x < 1))
    np.testing.assert_array_equal(got[3], -x)
    np.testing.assert_array_equal(got[4], np.abs(x))


def test_symbolic_batch_broadcasting(run):
    x = RNG.normal(size=(5, 3)).astype(np.float32)
    b = RNG.normal(size=(3,)).astype(np.float32)
    got = run(lambda p, q: [p + q, p * 2, snp.maximum(p, q)], x, b, symbolic={0: ("batch", 3)})
    np.testing.assert_allclose(got[0], x + b)
    np.testing.assert_allclose(got[2], np.maximum(x, b))


def test_known_broadcast_mismatch_is_a_graph_error_with_this_line():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32)
        y = sg.placeholder((4,), sg.float32)
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            x + y
    msg = str(e.value)
    assert "cannot broadcast shapes (batch, 3) and (4,)" in msg and f"test_ufuncs.py:{line}" in msg


@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
    dt=st.sampled_from([np.float32, np.int32, np.float64]),
    data=st.data(),
)
def test_broadcasting_binary_ops_match_numpy(shapes, dt, data):
    a = data.draw(hnp.arrays(dt, shapes.input_shapes[0], elements=st.integers(-5, 5)))
    b = data.draw(hnp.arrays(dt, shapes.input_shapes[1], elements=st.integers(1, 5)))
    g = sg.Graph()
    with g:
        x, y = sg.placeholder(a.shape, sg.dtype(dt)), sg.placeholder(b.shape, sg.dtype(dt))
        outs = [x + y, x * y, snp.maximum(x, y), x - y, snp.where(x > y, x, y), x // y]
    with sg.Session(g) as sess:
        got = sess.run(outs, {x: a, y: b})
    for g_, w in zip(got, [a + b, a * b, np.maximum(a, b), a - b, np.where(a > b, a, b), a // b]):
        assert g_.shape == w.shape
        np.testing.assert_allclose(g_, w, rtol=1e-6)
