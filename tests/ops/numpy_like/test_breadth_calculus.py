"""sg.numpy's differences, integrals, interpolation, convolution and polynomials against numpy
(ops/numpy_like/calculus.py, polynomial.py); each table is one graph."""

import numpy as np
import pytest

from stablegraph import numpy as snp

R = np.random.default_rng(5)

CALCULUS_CASES = {
    "diff": lambda xp, x, c, p, a, v: xp.diff(x),
    "diff_n2_axis0": lambda xp, x, c, p, a, v: xp.diff(x, 2, axis=0),
    "diff_pre_app": lambda xp, x, c, p, a, v: xp.diff(x, 2, axis=1, prepend=0.0, append=x[:, :1]),
    "diff_n0": lambda xp, x, c, p, a, v: xp.diff(x, 0),
    "diff_bool": lambda xp, x, c, p, a, v: xp.diff(x > 0),
    "ediff1d": lambda xp, x, c, p, a, v: xp.ediff1d(x, to_begin=[1.0, 2.0], to_end=5.0),
    "gradient": lambda xp, x, c, p, a, v: xp.gradient(x),
    "gradient_spacing": lambda xp, x, c, p, a, v: xp.gradient(x, 0.5, c),
    "gradient_axis": lambda xp, x, c, p, a, v: xp.gradient(x, 2.0, axis=1),
    "trapezoid": lambda xp, x, c, p, a, v: xp.trapezoid(x, dx=0.3),
    "trapezoid_x": lambda xp, x, c, p, a, v: xp.trapezoid(x, c),
    "trapezoid_axis0": lambda xp, x, c, p, a, v: xp.trapezoid(x, axis=0),
    "unwrap": lambda xp, x, c, p, a, v: xp.unwrap(p),
    "unwrap_period": lambda xp, x, c, p, a, v: xp.unwrap(p, period=4.0),
    "unwrap_discont": lambda xp, x, c, p, a, v: xp.unwrap(xp.stack([p, p * 0.5]), discont=4.0, axis=1),
    "interp": lambda xp, x, c, p, a, v: xp.interp(x, c - 3, c**2),
    "interp_left_right": lambda xp, x, c, p, a, v: xp.interp(x, c - 3, c**2, left=-1.0, right=9.0),
    "interp_period": lambda xp, x, c, p, a, v: xp.interp(x, c, c * c * 0.1, period=3.0),
    "convolve": lambda xp, x, c, p, a, v: xp.convolve(a, v),
    "convolve_same": lambda xp, x, c, p, a, v: xp.convolve(v, a, "same"),
    "convolve_valid": lambda xp, x, c, p, a, v: xp.convolve(a, v, "valid"),
    "correlate": lambda xp, x, c, p, a, v: xp.correlate(a, v),
    "correlate_full": lambda xp, x, c, p, a, v: xp.correlate(v, a, "full"),
    "correlate_same": lambda xp, x, c, p, a, v: xp.correlate(a, v, "same"),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_calculus_against_numpy(run, dtype, check_table):
    x = R.normal(size=(4, 6)).astype(dtype)
    c = np.cumsum(R.uniform(0.5, 1.5, 6)).astype(dtype)
    p = np.cumsum(R.uniform(-3, 3, 10)).astype(dtype)
    a = R.normal(size=5).astype(dtype)
    v = R.normal(size=3).astype(dtype)
    tol = 2e-5 if dtype == np.float32 else 1e-12
    check_table(run, CALCULUS_CASES, (x, c, p, a, v), rtol=tol, atol=tol)


def test_integer_convolution_and_differences(run, check_table):
    a = np.array([1, -2, 3, 4], np.int32)
    v = np.array([2, 0, -1], np.int32)
    cases = {
        "convolve": lambda xp, a, v: xp.convolve(a, v),
        "correlate": lambda xp, a, v: xp.correlate(a, v, "full"),
        "diff": lambda xp, a, v: xp.diff(a),
        "polymul": lambda xp, a, v: xp.polymul(a, v),
        "polyval": lambda xp, a, v: xp.polyval(a, v),
    }
    check_table(run, cases, (a, v), rtol=0)


POLY_CASES = {
    "polyval": lambda xp, p, q, x, xs, ys: xp.polyval(p, x),
    "polyval_list": lambda xp, p, q, x, xs, ys: xp.polyval([1.0, 0.0, -2.0], x),
    "polyadd": lambda xp, p, q, x, xs, ys: xp.polyadd(p, q),
    "polysub": lambda xp, p, q, x, xs, ys: xp.polysub(q, p),
    "polymul": lambda xp, p, q, x, xs, ys: xp.polymul(p, q),
    "polyder": lambda xp, p, q, x, xs, ys: xp.polyder(p),
    "polyder_2": lambda xp, p, q, x, xs, ys: xp.polyder(p, 2),
    "polyint": lambda xp, p, q, x, xs, ys: xp.polyint(p),
    "polyint_k": lambda xp, p, q, x, xs, ys: xp.polyint(p, 2, k=[1.0, 2.0]),
    "polydiv_q": lambda xp, p, q, x, xs, ys: xp.polydiv(p, q)[0],
    "polydiv_r": lambda xp, p, q, x, xs, ys: xp.polydiv(p, q)[1][
        -1:
    ],  # numpy trims the remainder's leading 0s
    "vander": lambda xp, p, q, x, xs, ys: xp.vander(p, 3),
    "vander_inc": lambda xp, p, q, x, xs, ys: xp.vander(q, increasing=True),
    "polyfit": lambda xp, p, q, x, xs, ys: xp.polyfit(xs, ys, 2),
    "polyfit_w": lambda xp, p, q, x, xs, ys: xp.polyfit(xs, ys, 1, w=xs * xs + 1),
    "polyfit_2d": lambda xp, p, q, x, xs, ys: xp.polyfit(xs, xp.stack([ys, ys * 2], 1), 3),
    "poly": lambda xp, p, q, x, xs, ys: xp.poly(q),
    "roots": lambda xp, p, q, x, xs, ys: xp.sort_complex(xp.roots(p)),
    "roots_of_poly": lambda xp, p, q, x, xs, ys: xp.sort_complex(
        xp.roots(xp.poly(np.array([0.5, -1.0, 2.0])))
    ),
}


def test_polynomials_against_numpy(run, check_table):
    p = np.array([2.0, -3.0, 0.5, 1.0], np.float32)
    q = np.array([1.0, 2.0], np.float32)
    x = R.normal(size=(3, 4)).astype(np.float32)
    xs = np.linspace(-1, 1, 9).astype(np.float32)
    ys = (3 * xs**2 - xs + 0.5 + 0.01 * R.normal(size=9)).astype(np.float32)
    check_table(run, POLY_CASES, (p, q, x, xs, ys), rtol=2e-4, atol=2e-4)


def test_complex_correlation_covariance_and_nan_to_num(run, check_table):
    a = (R.normal(size=5) + 1j * R.normal(size=5)).astype(np.complex64)
    v = (R.normal(size=3) + 1j * R.normal(size=3)).astype(np.complex64)
    m = (R.normal(size=(3, 6)) + 1j * R.normal(size=(3, 6))).astype(np.complex64)
    z = np.array([np.nan + 1j * np.inf, 1 - 1j * np.inf, 2 + 3j, np.nan], np.complex64)
    cases = {
        "correlate": lambda xp, a, v, m, z: xp.correlate(a, v),
        "correlate_full_swapped": lambda xp, a, v, m, z: xp.correlate(v, a, "full"),
        "correlate_same": lambda xp, a, v, m, z: xp.correlate(a, v, "same"),
        "correlate_same_swapped": lambda xp, a, v, m, z: xp.correlate(v, a, "same"),
        "convolve": lambda xp, a, v, m, z: xp.convolve(a, v),
        "cov": lambda xp, a, v, m, z: xp.cov(m),
        "corrcoef": lambda xp, a, v, m, z: xp.corrcoef(m),
        "vecmat": lambda xp, a, v, m, z: xp.vecmat(v, m[:, :4]) if xp is snp else np.conj(v) @ m[:, :4],
        "nan_to_num": lambda xp, a, v, m, z: xp.nan_to_num(z, posinf=7.0),
    }
    check_table(run, cases, (a, v, m, z), rtol=1e-4, atol=1e-5)
