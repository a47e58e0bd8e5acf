"""Values that were silently wrong at special points, against jax and numpy as oracles:
logaddexp's gradient at a tie (JAX's Gaussian-process example never moved its hyperparameters),
integer // 0, % 0 and fmod(x, 0) (jax's values), an integer to a negative power (refused, as
numpy and jax do), and float floor division's signed zeros (numpy's)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

pytestmark = pytest.mark.usefixtures("jax_x64")

POINTS = np.array([0.0, -0.0, 1.0, -1.0, 3.0, 1e30, -1e30, np.inf, -np.inf, np.nan])
A, B = (g.ravel() for g in np.meshgrid(POINTS, POINTS))  # every pair, ties among them


def _same(ours, theirs, rtol):
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    finite = ~np.isnan(theirs)
    np.testing.assert_allclose(ours[finite], theirs[finite], rtol=rtol, atol=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_log_add_exp_values_and_derivatives_match_jax_at_every_pair(dtype):
    a, b = A.astype(dtype), B.astype(dtype)
    g = sg.Graph()
    fetches = {}
    with g:
        pa, pb = sg.placeholder((len(a),), dtype, name="a"), sg.placeholder((len(a),), dtype, name="b")
        for name, fn in (("logaddexp", snp.logaddexp), ("logaddexp2", snp.logaddexp2)):
            f = sg.function(fn, [sg.TensorType((), dtype)] * 2)
            fetches[name] = (
                sg.vmap(f)(pa, pb),
                sg.vmap(sg.grad(f, argnums=(0, 1)))(pa, pb),
                sg.vmap(sg.grad(sg.grad(f, argnums=0), argnums=(0, 1)))(pa, pb),
            )
    with sg.Session(g) as sess:
        got = sess.run(fetches, {pa: a, pb: b})
    rtol = 2e-6 if dtype == np.float32 else 1e-13
    for name, (value, grads, second) in got.items():
        jf = getattr(jnp, name)
        _same(value, jax.vmap(jf)(a, b), rtol)
        for ours, theirs in zip(grads, jax.vmap(jax.grad(jf, argnums=(0, 1)))(a, b)):
            _same(ours, theirs, rtol)
        for ours, theirs in zip(second, jax.vmap(jax.grad(jax.grad(jf), argnums=(0, 1)))(a, b)):
            _same(ours, theirs, 10 * rtol)
        tie = (a == b) & (np.abs(a) <= 3)  # (far out, x + log 2 rounds to x: jax's slope is 1 too)
        np.testing.assert_allclose(grads[0][tie], 0.5, rtol=rtol)  # was (0, 1)
        np.testing.assert_allclose(grads[1][tie], 0.5, rtol=rtol)


def test_softplus_as_logaddexp_moves_from_zero():
    g = sg.Graph()
    with g:
        log_scale = sg.placeholder((), sg.float32, name="log_scale")
        (slope,) = sg.gradients(snp.logaddexp(log_scale, 0.0), [log_scale])
    with sg.Session(g) as sess:
        assert sess.run(slope, {log_scale: 0.0}) == 0.5


def test_integer_division_by_zero_follows_jax():
    x = np.array([5, -5, 0, 7, -7], np.int32)
    y = np.array([0, 0, 0, 2, -2], np.int32)
    u = np.array([5, 0, 9], np.uint32)
    g = sg.Graph()
    with g:
        px, py = sg.placeholder((5,), sg.int32, name="x"), sg.placeholder((5,), sg.int32, name="y")
        pu = sg.placeholder((3,), sg.uint32, name="u")
        ours = [px // py, px % py, snp.fmod(px, py), *snp.divmod(px, py), pu // 0, pu % 0, snp.fmod(pu, 0)]
    with sg.Session(g) as sess:
        got = sess.run(ours, {px: x, py: y, pu: u})
    jx, jy, ju = jnp.asarray(x), jnp.asarray(y), jnp.asarray(u)
    theirs = [jx // jy, jx % jy, jnp.fmod(jx, jy), *jnp.divmod(jx, jy), ju // 0, ju % 0, jnp.fmod(ju, 0)]
    for o, t in zip(got, theirs):
        np.testing.assert_array_equal(o, np.asarray(t))
    np.testing.assert_array_equal(got[0][:3], [-2, -2, -1])
    np.testing.assert_array_equal(got[1][:3], [0, 0, 0])


def test_an_integer_to_a_negative_power_known_while_building_is_refused():
    with sg.Graph():
        x = sg.placeholder((3,), sg.int32, name="x")
        for exponent in (-1, np.int32(-2), np.array([1, -1, 2])):
            with pytest.raises(sg.GraphError, match="negative powers") as info:
                snp.power(x, exponent)
            assert "test_ties_and_zero_divisors.py:" in str(info.value)
        with pytest.raises(sg.GraphError, match="negative powers"):
            x**-3
        snp.power(x, 2), snp.power(x.astype(np.float32), -1)  # still fine


def test_float_floor_division_keeps_numpys_signed_zeros_and_remainders():
    x = np.array([-0.0, 0.0, 5.0, -5.0, 0.3, 1e30, -7.0, 7.0, 1.0, -1.0], np.float64)
    y = np.array([2.0, -2.0, 0.0, 0.0, 0.1, 3.0, 2.0, -0.0, np.inf, np.inf], np.float64)
    g = sg.Graph()
    with g:
        px, py = sg.placeholder((10,), sg.float64, name="x"), sg.placeholder((10,), sg.float64, name="y")
        ours = [px // py, px % py, *snp.divmod(px, py)]
    with sg.Session(g) as sess:
        got = sess.run(ours, {px: x, py: y})
    with np.errstate(all="ignore"):
        theirs = [np.floor_divide(x, y), np.remainder(x, y), *np.divmod(x, y)]
    for o, t in zip(got, theirs):
        np.testing.assert_array_equal(o, t)
        np.testing.assert_array_equal(np.signbit(o), np.signbit(t))


def test_integer_powers_with_exponents_fed_at_run_time():
    base = np.repeat(np.array([0, 1, -1, 2, -3], np.int32), 8)
    exponent = np.tile(np.array([0, 1, 2, 5, 31, 63, 64, 65], np.int32), 5)
    g = sg.Graph()
    with g:
        x, y = sg.placeholder((40,), sg.int32, name="x"), sg.placeholder((40,), sg.int32, name="y")
        got = x**y
    with sg.Session(g) as sess:
        got = sess.run(got, {x: base, y: exponent})
    np.testing.assert_array_equal(got, np.asarray(jnp.asarray(base) ** jnp.asarray(exponent)))
    small = exponent < 64  # below 64 the wrapped results are numpy's too
    np.testing.assert_array_equal(got[small], np.power(base[small], exponent[small]))
    np.testing.assert_array_equal(got[base == 0], np.where(exponent[base == 0] == 0, 1, 0))
