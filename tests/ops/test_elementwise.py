"""Every elementwise primitive against numpy, over several dtypes, from one graph per dtype."""

import inspect

import numpy as np
import pytest
import scipy.special

import stablegraph as sg
from stablegraph.ops.primitives import elementwise as ew
from stablegraph.ops.primitives.registry import bind

RNG = np.random.default_rng(0)
SHAPE = (3, 4)


def normal(dt):
    return RNG.normal(size=SHAPE).astype(dt)


def positive(dt):
    return RNG.uniform(0.1, 3.0, size=SHAPE).astype(dt)


def above_minus_one(dt):
    return RNG.uniform(-0.9, 3.0, size=SHAPE).astype(dt)


def inside_unit(dt):
    return np.linspace(-0.99, 0.99, np.prod(SHAPE)).reshape(SHAPE).astype(dt)


def ints(dt):
    info = np.iinfo(dt)
    return RNG.integers(max(info.min, -50), min(info.max, 50), size=SHAPE).astype(dt)


def nonzero_ints(dt):
    x = ints(dt)
    return np.where(x == 0, 1, x).astype(dt)


def bools(dt):
    return RNG.random(SHAPE) < 0.5


def specials(dt):
    x = normal(dt)
    x.flat[:3] = [np.inf, -np.inf, np.nan]
    return x


def trunc_div(a, b):
    return (np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))).astype(a.dtype)


def logical_shift(a, b):
    bits = a.dtype.itemsize * 8
    u = a.view(f"uint{bits}")
    return (u >> b.view(f"uint{bits}")).view(a.dtype)


FLOATS = [np.float32, np.float64]
SIGNED = [np.int32, np.int64, np.int8]
UNSIGNED = [np.uint8, np.uint32]

# (op, numpy reference, dtypes, input makers per operand)
UNARY_CASES = [
    (ew.neg, np.negative, FLOATS + SIGNED, normal),
    (ew.abs_, np.abs, FLOATS + SIGNED, normal),
    (ew.sign, np.sign, FLOATS + SIGNED, normal),
    (ew.floor, np.floor, FLOATS, normal),
    (ew.ceil, np.ceil, FLOATS, normal),
    (ew.round_, np.round, FLOATS, lambda dt: (normal(dt) * 4).round() / 2),  # exact halves: to even
    (ew.exp, np.exp, FLOATS, normal),
    (ew.expm1, np.expm1, FLOATS, normal),
    (ew.log, np.log, FLOATS, positive),
    (ew.log1p, np.log1p, FLOATS, above_minus_one),
    (ew.sqrt, np.sqrt, FLOATS, positive),
    (ew.rsqrt, lambda x: 1 / np.sqrt(x), FLOATS, positive),
    (ew.cbrt, np.cbrt, FLOATS, normal),
    (ew.sin, np.sin, FLOATS, normal),
    (ew.cos, np.cos, FLOATS, normal),
    (ew.tan, np.tan, FLOATS, normal),
    (ew.tanh, np.tanh, FLOATS, normal),
    (ew.logistic, scipy.special.expit, FLOATS, normal),
    (ew.erf, scipy.special.erf, FLOATS, normal),
    (ew.erf_inv, scipy.special.erfinv, FLOATS, inside_unit),
    (ew.is_finite, np.isfinite, FLOATS, specials),
    (ew.not_, np.logical_not, [np.bool_], bools),
    (ew.not_, np.invert, SIGNED + UNSIGNED, ints),
]
BINARY_CASES = [
    (ew.add, np.add, FLOATS + SIGNED + UNSIGNED, normal, normal),
    (ew.sub, np.subtract, FLOATS + SIGNED, normal, normal),
    (ew.mul, np.multiply, FLOATS + SIGNED + UNSIGNED, normal, normal),
    (ew.div, np.divide, FLOATS, normal, positive),
    (ew.div, trunc_div, SIGNED, ints, nonzero_ints),
    (ew.rem, np.fmod, FLOATS, normal, positive),
    (ew.rem, np.fmod, SIGNED, ints, nonzero_ints),
    (ew.pow_, np.power, FLOATS, positive, normal),
    (ew.max_, np.maximum, FLOATS + SIGNED + UNSIGNED, normal, normal),
    (ew.min_, np.minimum, FLOATS + SIGNED + UNSIGNED, normal, normal),
    (ew.atan2, np.arctan2, FLOATS, normal, normal),
    (ew.and_, np.logical_and, [np.bool_], bools, bools),
    (ew.or_, np.logical_or, [np.bool_], bools, bools),
    (ew.xor, np.logical_xor, [np.bool_], bools, bools),
    (ew.and_, np.bitwise_and, SIGNED + UNSIGNED, ints, ints),
    (ew.or_, np.bitwise_or, SIGNED + UNSIGNED, ints, ints),
    (ew.xor, np.bitwise_xor, SIGNED + UNSIGNED, ints, ints),
    (ew.shift_left, np.left_shift, [np.int32, np.uint32], ints, lambda dt: RNG.integers(0, 8, SHAPE).astype(dt)),
    (ew.shift_right_arithmetic, np.right_shift, [np.int32, np.int64], ints,
     lambda dt: RNG.integers(0, 8, SHAPE).astype(dt)),
    (ew.shift_right_logical, logical_shift, [np.int32, np.uint8], ints,
     lambda dt: RNG.integers(0, 8, SHAPE).astype(dt)),
]  # fmt: skip


def _cases():
    for op, ref, dts, *makers in UNARY_CASES + BINARY_CASES:
        for dt in dts:
            if makers[0] in (normal, positive, above_minus_one, inside_unit, specials) and not np.issubdtype(
                dt, np.floating
            ):
                makers = [ints] * len(makers)
            yield op, ref, dt, [m(dt) for m in makers]


def test_every_elementwise_primitive_against_numpy(run):
    cases = list(_cases())
    flat_inputs = [a for *_, args in cases for a in args]

    def build(*phs):
        outs, it = [], iter(phs)
        for op, _, _, args in cases:
            outs.append(bind(op, *[next(it) for _ in args]))
        return outs

    results = run(build, *flat_inputs)
    for (op, ref, dt, args), got in zip(cases, results):
        with np.errstate(all="ignore"):
            want = ref(*args)
        assert got.dtype == np.asarray(want).dtype, (op.name, dt)
        tol = 1e-5 if dt == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=f"{op.name} {np.dtype(dt).name}")


def test_low_precision_floats(run):
    x = RNG.normal(size=SHAPE).astype(np.float32)
    for dt in (sg.float16, sg.bfloat16):
        got = run(lambda p: [bind(ew.tanh, p), bind(ew.add, p, p), bind(ew.exp, p)], x.astype(dt.np))
        ref = [np.tanh(x), x + x, np.exp(x)]
        for g_, r in zip(got, ref):
            assert g_.dtype == dt.np
            np.testing.assert_allclose(g_.astype(np.float32), r, rtol=2e-2, atol=2e-2)


def test_complex_arithmetic(run):
    a = (RNG.normal(size=4) + 1j * RNG.normal(size=4)).astype(np.complex64)
    b = (RNG.normal(size=4) + 1j * RNG.normal(size=4)).astype(np.complex64)
    got = run(lambda x, y: [bind(ew.mul, x, y), bind(ew.div, x, y), bind(ew.exp, x)], a, b)
    for g_, r in zip(got, [a * b, a / b, np.exp(a)]):
        np.testing.assert_allclose(g_, r, rtol=1e-5)


def test_binary_primitives_are_strict_and_errors_point_here():
    g = sg.Graph()
    with g:
        x = sg.placeholder((2, 3), sg.float32)
        y = sg.placeholder((3,), sg.float32)
        i = sg.placeholder((2, 3), sg.int32)
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            bind(ew.add, x, y)
        assert "add wants operands of equal shape and dtype, got f32[2,3] and f32[3]" in str(e.value)
        assert f"test_elementwise.py:{line}" in str(e.value) and "(node add)" in str(e.value)
        with pytest.raises(sg.GraphError, match="exp wants a floating dtype, got i32\\[2,3\\]"):
            bind(ew.exp, i)
        with pytest.raises(sg.GraphError, match="and wants a bool or integer dtype, got f32"):
            bind(ew.and_, x, x)


def test_logistic_slopes_keep_their_digits_where_the_value_rounds_to_one(run):
    """d/dx logistic = y (1 - y): with 1 - y computed as 1 - y it is 0 once y rounds to 1 (x > 17.3
    in float32, 36.7 in float64), where the slope is about e**-x. Against y(x) y(-x) and its
    derivative y(x) y(-x) (y(-x) - y(x)) in float64 (scipy's expit keeps the tails), at both
    tails, at +-0 and at +-1."""
    for dt, tol in ((np.float32, 2e-6), (np.float64, 1e-13)):
        # out to where the slope is still a normal number (XLA's CPU flushes subnormals)
        x = np.array([-700.0, -80.0, -40.0, -17.5, -1.0, -0.0, 0.0, 1.0, 17.5, 40.0, 80.0, 700.0], dt)
        if dt == np.float32:
            x = x[np.abs(x) < 100]

        def slopes(p):
            (d1,) = sg.gradients(sg.numpy.sum(bind(ew.logistic, p)), [p])
            (d2,) = sg.gradients(sg.numpy.sum(d1), [p])
            return [d1, d2]

        d1, d2 = run(slopes, x)
        up, down = scipy.special.expit(x.astype(np.float64)), scipy.special.expit(-x.astype(np.float64))
        want1, want2 = up * down, up * down * (down - up)
        np.testing.assert_allclose(d1, want1.astype(dt), rtol=tol, atol=0, err_msg=np.dtype(dt).name)
        np.testing.assert_allclose(d2, want2.astype(dt), rtol=50 * tol, atol=0, err_msg=np.dtype(dt).name)
