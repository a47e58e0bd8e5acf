"""sg.numpy's extra elementwise functions (ops/numpy_like/arith.py) against numpy, over
float32, float64 and integer dtypes, each dtype's cases in one graph."""

import numpy as np
import pytest

from stablegraph import numpy as snp

R = np.random.default_rng(7)
SPECIAL = np.array([0.0, -0.0, 1.5, -2.5, 0.5, -0.5, 3.7, -3.7, np.inf, -np.inf, np.nan, 1e-9])

FLOAT_CASES = {
    "trunc": lambda xp, x, y: xp.trunc(x),
    "rint": lambda xp, x, y: xp.rint(x),
    "fabs": lambda xp, x, y: xp.fabs(x),
    "positive": lambda xp, x, y: xp.positive(x),
    "pow": lambda xp, x, y: xp.pow(xp.abs(x), 1.5),
    "atan2": lambda xp, x, y: xp.atan2(x, y),
    "divmod": lambda xp, x, y: xp.divmod(y * 7, y * 0.5 + 0.25),
    "modf": lambda xp, x, y: xp.modf(x),
    "isclose": lambda xp, x, y: xp.isclose(x, y + 1e-7, rtol=1e-3),
    "isclose_nan": lambda xp, x, y: xp.isclose(x, x, equal_nan=True),
    "isclose_self": lambda xp, x, y: xp.isclose(x, x),
    "allclose": lambda xp, x, y: xp.allclose(y, y * (1 + 1e-7)),
    "allclose_no": lambda xp, x, y: xp.allclose(x, y),
    "array_equal": lambda xp, x, y: xp.array_equal(y, y + 0),
    "array_equal_nan": lambda xp, x, y: xp.array_equal(x, x, equal_nan=True),
    "array_equal_nan_no": lambda xp, x, y: xp.array_equal(x, x),
    "array_equal_shape": lambda xp, x, y: xp.array_equal(x, x[:3]),
    "array_equiv": lambda xp, x, y: xp.array_equiv(y[:1], xp.stack([y[:1], y[:1]])),
    "array_equiv_no": lambda xp, x, y: xp.array_equiv(y[:2], y[:3]),
    "isposinf": lambda xp, x, y: xp.isposinf(x),
    "isneginf": lambda xp, x, y: xp.isneginf(x),
    "nan_to_num": lambda xp, x, y: xp.nan_to_num(x),
    "nan_to_num_args": lambda xp, x, y: xp.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0),
    "round_neg": lambda xp, x, y: xp.round(y * 1000, -2),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_functions_against_numpy(run, dtype, check_table):
    x = SPECIAL.astype(dtype)
    y = R.normal(size=x.shape).astype(dtype) * 3
    check_table(run, FLOAT_CASES, (x, y), rtol=1e-6)


INT_CASES = {
    "trunc": lambda xp, a, b: xp.trunc(a),
    "rint": lambda xp, a, b: xp.rint(a),
    "fabs": lambda xp, a, b: xp.fabs(a),
    "gcd": lambda xp, a, b: xp.gcd(a, b),
    "lcm": lambda xp, a, b: xp.lcm(a, b),
    "gcd_scalar": lambda xp, a, b: xp.gcd(a, 6),
    "divmod": lambda xp, a, b: xp.divmod(a, xp.where(b == 0, 1, b).astype(a.dtype)),
    "bitwise_invert": lambda xp, a, b: xp.bitwise_invert(a),
    "bitwise_left_shift": lambda xp, a, b: xp.bitwise_left_shift(a, 2),
    "bitwise_right_shift": lambda xp, a, b: xp.bitwise_right_shift(a, 1),
    "isclose": lambda xp, a, b: xp.isclose(a, b),
    "array_equal": lambda xp, a, b: xp.array_equal(a, a),
    "isposinf": lambda xp, a, b: xp.isposinf(a),
    "nan_to_num": lambda xp, a, b: xp.nan_to_num(a),
    "round_neg": lambda xp, a, b: xp.round(a, -1),
    "packbits": lambda xp, a, b: xp.packbits(a > 0),
    "packbits_axis": lambda xp, a, b: xp.packbits(xp.reshape(a, (2, -1)) > 0, axis=1, bitorder="little"),
}


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.int64])
def test_integer_functions_against_numpy(run, dtype, check_table):
    a = np.array([12, -18, 0, 7, 35, -49, 64, 1, 0, 13], dtype)
    b = np.array([8, 12, 5, 0, 21, 14, -48, 1, 0, 26], dtype)
    check_table(run, INT_CASES, (a, b), rtol=0)


def test_round_integers_to_negative_decimals(run, check_table):
    a = np.array([1234, -1250, 1350, 1349, -1351, 50, 150, 250, -150, 7, 99999], np.int32)
    cases = {f"round{d}": (lambda xp, a, d=d: xp.round(a, d)) for d in (-1, -2, -3, -6, -10, 0, 2)}
    cases["around_int8"] = lambda xp, a: xp.around(a.astype(xp.int8), -1)
    check_table(run, cases, (a,), rtol=0)


def test_unpackbits_and_round_trip(run, check_table):
    u = np.array([[0, 255, 170], [1, 128, 77]], np.uint8)
    cases = {
        "flat": lambda xp, u: xp.unpackbits(u),
        "axis1": lambda xp, u: xp.unpackbits(u, axis=1),
        "axis0_little": lambda xp, u: xp.unpackbits(u, axis=0, bitorder="little"),
        "count": lambda xp, u: xp.unpackbits(u, axis=1, count=5),
        "count_neg": lambda xp, u: xp.unpackbits(u, count=-3),
        "count_long": lambda xp, u: xp.unpackbits(u, axis=1, count=30),
        "round_trip": lambda xp, u: xp.packbits(xp.unpackbits(u, axis=1), axis=1),
    }
    check_table(run, cases, (u,), rtol=0)


def test_errors_name_the_function():
    import stablegraph as sg

    with sg.Graph():
        x = sg.placeholder((3,), sg.float32)
        with pytest.raises(sg.GraphError, match="gcd wants integer"):
            snp.gcd(x, x)
        with pytest.raises(sg.GraphError, match="fabs is not defined for complex"):
            snp.fabs(x.astype(sg.complex64))
