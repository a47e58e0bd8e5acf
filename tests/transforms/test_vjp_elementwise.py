"""vjp rules of the elementwise and compare families against jax.vjp (ops/primitives/elementwise.py, compare.py).

Each test builds every case into one graph, runs it once and compares each
cotangent with jax's (float64 and complex128, random cotangents); second order
goes through sg.grad of sg.grad.
"""

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import stablegraph as sg
from stablegraph.ops.primitives import compare as cmp
from stablegraph.ops.primitives import elementwise as ew
from stablegraph.ops.primitives.registry import bind

RNG = np.random.default_rng(0)
SHAPE = (3, 4)


pytestmark = pytest.mark.usefixtures("jax_x64")  # the jax oracle computes in float64 here


def normal():
    return RNG.normal(size=SHAPE)


def positive():
    return RNG.uniform(0.2, 3.0, size=SHAPE)


def away_from_zero():
    return RNG.choice([-1.0, 1.0], size=SHAPE) * RNG.uniform(0.3, 2.0, size=SHAPE)


def away_from_halves():
    """Values whose round/floor/ceil are locally constant."""
    return RNG.integers(-4, 4, size=SHAPE) + RNG.uniform(0.1, 0.4, size=SHAPE)


def complex_normal():
    return RNG.normal(size=SHAPE) + 1j * RNG.normal(size=SHAPE)


def cotangent_like(value):
    value = np.asarray(value)
    if value.dtype.kind == "c":
        return complex_normal().astype(value.dtype).reshape(value.shape)
    return RNG.normal(size=value.shape).astype(value.dtype)


def prim(op):
    return lambda *xs: bind(op, *xs)


def compare_with_jax(cases, symbolic: bool = False, rtol=1e-9, atol=1e-12):
    """cases: name -> (sg_fn, jax_fn, primals). Builds every vjp into one graph, runs it once."""
    g = sg.Graph()
    feeds, fetch, wants = {}, {}, {}
    with g:
        for name, (sg_fn, jax_fn, primals) in cases.items():
            phs = []
            for i, p in enumerate(primals):
                shape = ("batch",) + p.shape[1:] if symbolic and p.ndim else p.shape
                phs.append(sg.placeholder(shape, sg.dtype(p.dtype), name=f"{name}_{i}"))
                feeds[phs[-1]] = p
            out, vjp_fn = sg.vjp(sg_fn, *phs)
            want_out, jax_vjp = jax.vjp(jax_fn, *primals)
            ct = cotangent_like(want_out)
            ct_ph = sg.placeholder(("batch",) + ct.shape[1:] if symbolic else ct.shape, sg.dtype(ct.dtype))
            feeds[ct_ph] = ct
            fetch[name] = (out, vjp_fn(ct_ph))
            wants[name] = (want_out, jax_vjp(ct))
    with sg.Session(g) as sess:
        got = sess.run(fetch, feeds)
    for name in cases:
        (out, cts), (want_out, want_cts) = got[name], wants[name]
        np.testing.assert_allclose(out, want_out, rtol=rtol, atol=atol, err_msg=f"{name} value")
        assert len(cts) == len(want_cts)
        for i, (c, w) in enumerate(zip(cts, want_cts)):
            assert c.dtype == w.dtype, (name, i, c.dtype, w.dtype)
            np.testing.assert_allclose(c, w, rtol=rtol, atol=atol, err_msg=f"{name} cotangent {i}")


UNARY_CASES = [
    (ew.neg, lax.neg, normal),
    (ew.abs_, lax.abs, away_from_zero),
    (ew.sign, lax.sign, away_from_zero),
    (ew.floor, lax.floor, away_from_halves),
    (ew.ceil, lax.ceil, away_from_halves),
    (ew.round_, lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), away_from_halves),
    (ew.exp, lax.exp, normal),
    (ew.expm1, lax.expm1, normal),
    (ew.log, lax.log, positive),
    (ew.log1p, lax.log1p, lambda: RNG.uniform(-0.8, 3.0, size=SHAPE)),
    (ew.sqrt, lax.sqrt, positive),
    (ew.rsqrt, lax.rsqrt, positive),
    (ew.cbrt, lax.cbrt, away_from_zero),
    (ew.sin, lax.sin, normal),
    (ew.cos, lax.cos, normal),
    (ew.tan, lax.tan, lambda: RNG.uniform(-1.3, 1.3, size=SHAPE)),
    (ew.tanh, lax.tanh, normal),
    (ew.logistic, lax.logistic, normal),
    (ew.erf, lax.erf, normal),
]


def ties(x):
    """y drawn like x, equal to it in a few places (max/min split ties)."""
    y = normal()
    y.flat[::3] = x.flat[::3]
    return y


BINARY_CASES = [
    (ew.add, lax.add, normal, normal),
    (ew.sub, lax.sub, normal, normal),
    (ew.mul, lax.mul, normal, normal),
    (ew.div, lax.div, normal, away_from_zero),
    (ew.rem, lax.rem, lambda: RNG.uniform(-6, 6, size=SHAPE), away_from_zero),
    (ew.pow_, lax.pow, positive, normal),
    (ew.max_, lax.max, normal, ties),
    (ew.min_, lax.min, normal, ties),
    (ew.atan2, lax.atan2, normal, away_from_zero),
]


def float_cases():
    cases = {op.name: (prim(op), jax_fn, [make()]) for op, jax_fn, make in UNARY_CASES}
    for op, jax_fn, make_x, make_y in BINARY_CASES:
        x = make_x()
        cases[op.name] = (prim(op), jax_fn, [x, make_y(x) if make_y is ties else make_y()])
    return cases


def test_float_rules_match_jax():
    compare_with_jax(float_cases())


def test_rules_on_symbolic_batch_dims():
    x, y, ct_scale = normal(), positive(), normal()
    cases = {
        "tanh_mul": (lambda a, b: ew.apply(ew.mul, ew.apply(ew.tanh, a), b), lambda a, b: jnp.tanh(a) * b, [x, y]),
        "pow": (prim(ew.pow_), lax.pow, [y, ct_scale]),
        "max": (prim(ew.max_), lax.max, [x, ties(x)]),
    }  # fmt: skip
    compare_with_jax(cases, symbolic=True)


def test_complex_rules_match_jax():
    unary = [ew.neg, ew.exp, ew.expm1, ew.log, ew.log1p, ew.sqrt, ew.rsqrt, ew.sin, ew.cos, ew.tan, ew.tanh]
    jax_unary = [lax.neg, lax.exp, lax.expm1, lax.log, lax.log1p, lax.sqrt, lax.rsqrt, lax.sin, lax.cos, lax.tan,
                 lax.tanh]  # fmt: skip
    cases = {op.name: (prim(op), f, [complex_normal()]) for op, f in zip(unary, jax_unary)}
    for op, f in [
        (ew.add, lax.add),
        (ew.sub, lax.sub),
        (ew.mul, lax.mul),
        (ew.div, lax.div),
        (ew.pow_, lax.pow),
    ]:
        cases[op.name] = (prim(op), f, [complex_normal(), complex_normal()])
    z = complex_normal()
    z.flat[0] = 0  # abs: JAX gives 0 at 0
    cases["abs"] = (prim(ew.abs_), lax.abs, [z])
    cases["select"] = (lambda a, b: cmp.select(cmp.compare(a, b, "NE"), a, b),
                       lambda a, b: lax.select(a != b, a, b), [complex_normal(), complex_normal()])  # fmt: skip
    cases["to_real"] = (lambda a: cmp.convert(a, sg.float64), lambda a: jnp.real(a), [complex_normal()])
    cases["to_complex"] = (lambda a: cmp.convert(a, sg.complex128),
                           lambda a: lax.convert_element_type(a, jnp.complex128), [normal()])  # fmt: skip
    compare_with_jax(cases)


def clamp_broadcasting_bounds(lo, x, hi):
    """lax.clamp with the scalar bounds broadcast first (jax's own clamp jvp rejects scalar bounds)."""
    return lax.clamp(jnp.broadcast_to(lo, x.shape), x, jnp.broadcast_to(hi, x.shape))


def test_compare_family_rules_match_jax():
    x = RNG.integers(-3, 4, size=SHAPE).astype(np.float64)  # many exact ties with the bounds
    x[0] += RNG.uniform(-0.4, 0.4, size=SHAPE[1])
    lo, hi = np.full(SHAPE, -1.0), np.full(SHAPE, 1.0)
    lo[2, :2], hi[2, :2] = 2.0, 0.0  # lo > hi: the result is hi
    a, b = normal(), normal()
    cases = {
        "select": (lambda p, q: cmp.select(cmp.compare(p, q, "GT"), ew.apply(ew.exp, p), q),
                   lambda p, q: lax.select(p > q, jnp.exp(p), q), [a, b]),
        "select_scalar_pred": (lambda p, q, s: cmp.select(cmp.compare(s, sg.constant(np.float64(0)),
                                                                       "GT"), p, q),
                               lambda p, q, s: jnp.where(s > 0, p, q), [a, b, np.asarray(0.5)]),
        "clamp": (cmp.clamp, lax.clamp, [lo, x, hi]),
        "clamp_scalar_bounds": (cmp.clamp, clamp_broadcasting_bounds, [np.asarray(-1.0), x, np.asarray(1.0)]),
        "f64_to_f32": (lambda p: cmp.convert(p, sg.float32), lambda p: p.astype(jnp.float32), [a]),
        "f32_to_f64": (lambda p: cmp.convert(p, sg.float64), lambda p: p.astype(jnp.float64),
                       [a.astype(np.float32)]),
        "f64_to_i32_and_back": (lambda p: ew.apply(ew.mul, p, cmp.convert(cmp.convert(p, sg.int32), sg.float64)),
                                lambda p: p * p.astype(jnp.int32).astype(jnp.float64), [3 * a]),
        "stop_gradient": (lambda p, q: ew.apply(ew.mul, p, sg.stop_gradient(ew.apply(ew.mul, p, q))),
                          lambda p, q: p * lax.stop_gradient(p * q), [a, b]),
    }  # fmt: skip
    compare_with_jax(cases, rtol=1e-6)


def test_pow_at_zero():
    """d/dx x**y is 0 where y == 0 (jax's lax.pow gives NaN at 0**0, jnp.power(x, 0) gives 0);
    d/dy is 0 where x == 0, as in JAX."""
    x = np.array([0.0, 0.0, 0.0, 2.0, 0.0])
    y = np.array([0.0, 1.0, 2.0, 0.0, 0.5])
    got = _run_vjp(prim(ew.pow_), [x, y], np.ones(5))
    np.testing.assert_array_equal(got[0], [0.0, 1.0, 0.0, 0.0, np.inf])
    np.testing.assert_allclose(got[1], [0.0, 0.0, 0.0, np.log(2.0), 0.0])


def _run_vjp(fn, primals, ct):
    g = sg.Graph()
    with g:
        phs = [sg.placeholder(p.shape, sg.dtype(p.dtype)) for p in primals]
        _, vjp_fn = sg.vjp(fn, *phs)
        ct_ph = sg.placeholder(ct.shape, sg.dtype(ct.dtype))
        cts = vjp_fn(ct_ph)
    with sg.Session(g) as sess:
        return sess.run(cts, {**dict(zip(phs, primals)), ct_ph: ct})


SECOND_ORDER_UNARY = [
    (ew.tanh, jnp.tanh, [-1.3, 0.2, 0.9]),
    (ew.exp, jnp.exp, [-1.0, 0.5]),
    (ew.logistic, jax.nn.sigmoid, [-2.0, 0.3]),
    (ew.erf, lax.erf, [-0.7, 0.4]),
    (ew.log, jnp.log, [0.5, 2.0]),
    (ew.sqrt, jnp.sqrt, [0.5, 2.0]),
    (ew.sin, jnp.sin, [0.3, 2.0]),
    (ew.abs_, jnp.abs, [-0.5, 2.0]),
]
SECOND_ORDER_BINARY = [
    (ew.mul, lax.mul, [(0.5, -1.5), (2.0, 3.0)]),
    (ew.div, lax.div, [(0.5, -1.5), (2.0, 3.0)]),
    (ew.pow_, lax.pow, [(0.5, -1.5), (2.0, 3.0)]),
    (ew.atan2, lax.atan2, [(0.5, -1.5)]),
    (ew.max_, lax.max, [(0.5, -1.5), (1.0, 1.0)]),
]


def test_second_order_matches_jax():
    g = sg.Graph()
    fetch, wants = {}, {}
    with g:

        def scalar(v):
            return sg.constant(np.float64(v))

        for op, jax_fn, points in SECOND_ORDER_UNARY:
            for p in points:
                fetch[op.name, p] = sg.grad(sg.grad(prim(op)))(scalar(p))
                wants[op.name, p] = jax.grad(jax.grad(jax_fn))(p)
        for op, jax_fn, points in SECOND_ORDER_BINARY:
            for p in points:
                hessian = [sg.grad(sg.grad(prim(op), argnums=i), argnums=(0, 1)) for i in (0, 1)]
                fetch[op.name, p] = [h(scalar(p[0]), scalar(p[1])) for h in hessian]
                wants[op.name, p] = jax.hessian(jax_fn, argnums=(0, 1))(*p)
    with sg.Session(g) as sess:
        got = sess.run(fetch)
    for key, want in wants.items():
        np.testing.assert_allclose(
            np.asarray(got[key], np.float64), np.asarray(want), rtol=1e-9, err_msg=str(key)
        )


def test_jvp_by_double_vjp_matches_jax():
    cases = [(ew.tanh, lax.tanh, normal), (ew.abs_, lax.abs, away_from_zero), (ew.div, lax.div, positive),
             (ew.max_, lax.max, normal), (ew.pow_, lax.pow, positive)]  # fmt: skip
    g = sg.Graph()
    fetch, wants = {}, {}
    with g:
        for op, jax_fn, make in cases:
            n = 1 if op in ew.UNARY else 2
            primals, tangents = [make() for _ in range(n)], [normal() for _ in range(n)]
            fetch[op.name] = sg.jvp(
                prim(op), [sg.constant(p) for p in primals], [sg.constant(t) for t in tangents]
            )
            wants[op.name] = jax.jvp(jax_fn, primals, tangents)
    with sg.Session(g) as sess:
        got = sess.run(fetch)
    for name, (out, tangent_out) in wants.items():
        np.testing.assert_allclose(got[name][0], out, rtol=1e-12, err_msg=name)
        np.testing.assert_allclose(got[name][1], tangent_out, rtol=1e-9, err_msg=name)


def test_stop_gradient_is_identity_and_blocks_gradients():
    x = normal()
    g = sg.Graph()
    with g:
        p = sg.placeholder(SHAPE, sg.float64)
        ints = sg.placeholder(SHAPE, sg.int32)
        held = sg.stop_gradient(p)
        _, vjp_fn = sg.vjp(lambda a: ew.apply(ew.exp, sg.stop_gradient(a)), p)
        blocked = vjp_fn(sg.constant(np.ones(SHAPE)))[0]
        half = sg.grad(lambda a: ew.apply(ew.mul, a, sg.stop_gradient(a)))(
            cmp.convert(sg.constant(3.0), sg.float64)
        )
        fetch = (held, sg.stop_gradient(ints), sg.stop_gradient(2.5), blocked, half)
    with sg.Session(g) as sess:
        got = sess.run(fetch, {p: x, ints: np.arange(12, dtype=np.int32).reshape(SHAPE)})
    np.testing.assert_array_equal(got[0], x)
    np.testing.assert_array_equal(got[1], np.arange(12).reshape(SHAPE))
    assert got[2] == np.float32(2.5)
    np.testing.assert_array_equal(got[3], np.zeros(SHAPE))
    assert got[4] == 3.0  # d/da a * const(a) = const(a)


def test_ops_without_gradients_explain_why():
    assert ew.is_finite.vjp is None and "bool output" in ew.is_finite.reasons["vjp"]
    assert cmp.compare_op.vjp is None and "bool output" in cmp.compare_op.reasons["vjp"]
    for op in (
        ew.not_,
        ew.and_,
        ew.or_,
        ew.xor,
        ew.shift_left,
        ew.shift_right_arithmetic,
        ew.shift_right_logical,
    ):
        assert op.vjp is None and "integer" in op.reasons["vjp"], op.name


def test_differentiating_an_int_placeholder_names_it():
    g = sg.Graph()
    with g:
        line = inspect.currentframe().f_lineno + 1
        count = sg.placeholder((3,), sg.int32, name="count")
        with pytest.raises(sg.GraphError) as e:
            sg.vjp(lambda c: ew.apply(ew.neg, c), count)
    message = str(e.value)
    assert "count" in message and "i32[3]" in message, message
    assert f"test_vjp_elementwise.py:{line}" in message, message


def test_pow_second_derivatives_at_exponent_zero():
    """x**0 is 1 for every x, so d2/dx2 is 0, also at tiny x where y (y - 1) x**(y-2) is 0 * inf
    (NaN before; jax's too); d2/dxdy = x**-1 (d/dy of y x**(y-1)) and d2/dy2 = log(x)^2 stay."""
    x = np.array([2.2250738585072014e-308, 1e-200, 1e-160, 0.5, 3.0, 1e300])
    y = np.zeros_like(x)
    g = sg.Graph()
    with g:
        px, py = sg.placeholder(x.shape, sg.float64), sg.placeholder(y.shape, sg.float64)

        def total(a, b):
            return sg.numpy.sum(ew.apply(ew.pow_, a, b))

        def slope_total(i):  # elementwise: the slopes of the summed slope are the Hessian's diagonals
            return lambda a, b: sg.numpy.sum(sg.grad(total, argnums=i)(a, b))

        rows = [sg.grad(slope_total(i), argnums=(0, 1))(px, py) for i in (0, 1)]
    with sg.Session(g) as sess:
        (xx, xy), (yx, yy) = sess.run(rows, {px: x, py: y})
    np.testing.assert_array_equal(xx, 0.0)
    np.testing.assert_allclose(xy, 1.0 / x, rtol=1e-15)
    np.testing.assert_allclose(yx, 1.0 / x, rtol=1e-15)
    np.testing.assert_allclose(yy, np.log(x) ** 2, rtol=1e-15)
