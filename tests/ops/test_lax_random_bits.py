"""sg.lax's generators and sample gradients (ops/lax_random.py, primitives/rng_bits.py) and
scatter_apply (lax_scatter_apply.py) against jax.lax: bits equal for every algorithm, dtype and
key kind, one generator per lane under vectorize (a loop over keys), random_gamma_grad at random
and edge points in float32 and float64, scatter_apply with repeated, unique and dropped indices."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
import stablegraph.lax as slax
import stablegraph.numpy as snp
from stablegraph.test_util import line_of

RNG = np.random.default_rng(26)
HERE = __file__


def test_rng_bit_generator_gives_jaxs_bits_and_keys():
    key = np.array([1, 2, 3, 4], np.uint32)
    keys = RNG.integers(0, 2**32, size=(3, 4), dtype=np.uint64).astype(np.uint32)
    algorithms = list(slax.RandomAlgorithm)
    g = sg.Graph()
    with g:
        k = sg.placeholder((4,), sg.uint32)
        ks = sg.placeholder((3, 4), sg.uint32)
        outs = {
            **{a.name: slax.rng_bit_generator(k, (2, 3), algorithm=a) for a in algorithms},
            **{
                np.dtype(d).name: slax.rng_bit_generator(k, (5,), d) for d in (np.uint8, np.uint16, np.uint64)
            },
            "empty": slax.rng_bit_generator(k, (0, 2)),
            "chained": slax.rng_bit_generator(slax.rng_bit_generator(k, (1,))[0], (4,), algorithm=2),
            "u64_key": slax.rng_bit_generator(snp.array([7, 9], snp.uint64), (3,), algorithm=1),
            "lanes": sg.vectorize(lambda kk: slax.rng_bit_generator(kk, (2,), algorithm=1))(ks),
        }
    with sg.Session(g) as sess:
        got = sess.run(outs, {k: key, ks: keys})

    def theirs(key, keys):
        lax = jax.lax
        out = {
            **{
                a.name: lax.rng_bit_generator(key, (2, 3), algorithm=lax.RandomAlgorithm(a))
                for a in algorithms
            },
            **{
                np.dtype(d).name: lax.rng_bit_generator(key, (5,), d)
                for d in (np.uint8, np.uint16, np.uint64)
            },
            "empty": lax.rng_bit_generator(key, (0, 2)),
            "chained": lax.rng_bit_generator(lax.rng_bit_generator(key, (1,))[0], (4,), algorithm=2),
            "u64_key": lax.rng_bit_generator(jnp.array([7, 9], jnp.uint64), (3,), algorithm=1),
        }
        return out, [lax.rng_bit_generator(keys[i], (2,), algorithm=1) for i in range(3)]  # one per key

    with jax.enable_x64(True):
        want, loop = jax.tree.map(np.asarray, jax.jit(theirs)(key, keys))
    want["lanes"] = tuple(np.stack(parts) for parts in zip(*loop))
    for name, (new_key, bits) in want.items():
        assert got[name][1].dtype == bits.dtype and got[name][1].shape == bits.shape, name
        np.testing.assert_array_equal(got[name][0], new_key, err_msg=name)
        np.testing.assert_array_equal(got[name][1], bits, err_msg=name)
    with g, pytest.raises(sg.GraphError, match="unsupported dtype int32") as e:
        slax.rng_bit_generator(k, (2,), np.int32)  # a signed dtype
    assert f"test_lax_random_bits.py:{line_of(HERE, '# a signed dtype')}" in str(e.value)
    with g, pytest.raises(sg.GraphError, match=r"uint32\[4\] or uint64\[2\] key"):
        slax.rng_bit_generator(ks, (2,))


def test_rng_uniform_draws_in_its_range():
    got = sg.test_util.run_graph(
        lambda lo, hi: (slax.rng_uniform(lo, hi, (1000,)), slax.rng_uniform(7, 9, (3, 0)),
                        slax.rng_uniform(snp.int32(-3), snp.int32(4), (500,))),
        np.float32(-2.0), np.float32(3.0),
    )  # fmt: skip
    u, empty, ints = got
    assert u.dtype == np.float32 and u.shape == (1000,) and empty.shape == (3, 0)
    assert (u >= -2).all() and (u < 3).all() and 0 < u.std() and abs(u.mean() - 0.5) < 0.3
    assert ints.dtype == np.int32 and set(np.unique(ints)) == set(range(-3, 4))


def test_random_gamma_grad_matches_jax_in_float32_and_float64():
    a = np.concatenate(
        [RNG.uniform(0.05, 30, 60), [0.5, 1, 1, 2, 0, -1, np.nan, 1, 3, 1e-3, 100, 5, 2, np.inf]]
    )
    x = np.concatenate([RNG.gamma(a[:60]), [0, 0, 1e-30, 50, 1, 1, 1, np.nan, 200, 1e-5, 90, 4.9, -1, 1]])
    # at large a the density underflows and jax's series is off (signatures_lax.DIFFERENCES): these
    # points are checked against central differences of log P instead (_by_log_differences)
    big_a, big_x = np.array([100.0, 1000.0, 1e4, 1e4]), np.array([1.0, 1.0, 1.0, 0.5])
    a32, x32 = a.astype(np.float32), x.astype(np.float32)
    got = sg.test_util.run_graph(
        lambda p, q, p32, q32: (slax.random_gamma_grad(p, q), slax.random_gamma_grad(p32, q32)),
        np.concatenate([a, big_a]), np.concatenate([x, big_x]), a32, x32,
    )  # fmt: skip
    with jax.enable_x64(True):  # one float64 reference (of the float32 points too): one compile
        want = np.asarray(
            jax.jit(jax.lax.random_gamma_grad)(np.concatenate([a, a32]), np.concatenate([x, x32]))
        )
    assert [g.dtype for g in got] == [np.float64, np.float32]
    np.testing.assert_allclose(got[0][: a.size], want[: a.size], rtol=1e-10, equal_nan=True)
    np.testing.assert_allclose(got[1], want[a.size :].astype(np.float32), rtol=2e-6, equal_nan=True)
    by_differences = [_by_log_differences(p, q) for p, q in zip(big_a, big_x)]
    np.testing.assert_allclose(got[0][a.size :], by_differences, rtol=1e-7)
    # the implicit derivative holds the CDF fixed: P(a + h, x + h * dx/da) == P(a, x)
    from scipy import special  # noqa: PLC0415

    h, first = 1e-6, slice(0, 60)
    shifted = special.gammainc(a[first] + h, x[first] + h * got[0][first])
    np.testing.assert_allclose(shifted, special.gammainc(a[first], x[first]), atol=1e-9)
    with sg.Graph():  # a Python number takes the Tensor operand's dtype, as jax's weak types do
        assert slax.random_gamma_grad(sg.placeholder((3,), sg.float32), 1.0).dtype is sg.float32


def _by_log_differences(a: float, x: float, h: float = 1e-3) -> float:
    """-(dP/da) / f from a central difference of log P(a, x), P summed as f (x/a) S in log space."""

    def log_p(a):
        term = total = 1.0
        n = 0
        while term > 1e-18 * total:
            n += 1
            term *= x / (a + n)
            total += term
        return (a - 1) * math.log(x) - x - math.lgamma(a) + math.log(x / a) + math.log(total), total

    slope = (log_p(a + h)[0] - log_p(a - h)[0]) / (2 * h)
    return -slope * (x / a) * log_p(a)[1]


def test_scatter_apply_applies_once_per_update():
    operand = np.array([0.0, 1.0, 2.0, 3.0, 4.0], np.float32)
    table = RNG.normal(size=(4, 3)).astype(np.float32)
    idx = np.array([[1], [3], [1]], np.int32)
    rows = np.array([[2], [0], [2], [2]], np.int32)

    def cases(lax, np_, x, t, i, r):
        dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                         scatter_dims_to_operand_dims=(0,))  # fmt: skip
        rows_dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                              scatter_dims_to_operand_dims=(0,))  # fmt: skip
        return {
            "repeated": lax.scatter_apply(x, i, np_.sin, dn, update_shape=(3,)),
            "unique": lax.scatter_apply(x, i[:2], np_.exp, dn, update_shape=(2,), unique_indices=True),
            "dropped": lax.scatter_apply(x, i + 3, lambda v: v * 2, dn, update_shape=(3,), mode="drop"),
            "clipped": lax.scatter_apply(x, i + 3, lambda v: v * 2, dn, update_shape=(3,), mode="clip"),
            "rows_thrice": lax.scatter_apply(t, r, lambda v: v + 1, rows_dn, update_shape=(4, 3)),
            "none": lax.scatter_apply(x, i[:0], np_.sin, dn, update_shape=(0,)),
        }

    g = sg.Graph()
    with g:
        phs = [sg.placeholder(v.shape, sg.dtype(v.dtype)) for v in (operand, table, idx, rows)]
        out = cases(slax, snp, *phs)
        lanes = sg.placeholder((3, 5), sg.float32)
        out["lanes"] = sg.vectorize(
            lambda v: slax.scatter_apply(v, phs[2], snp.sin, _dn(), update_shape=(3,))
        )(lanes)
    stacked = np.stack([operand, operand + 1, -operand])
    with sg.Session(g) as sess:
        got = sess.run(out, {**dict(zip(phs, (operand, table, idx, rows))), lanes: stacked})
    want = jax.jit(lambda *v: cases(jax.lax, jnp, *v))(operand, table, idx, rows)
    want["lanes"] = np.stack(
        [jax.lax.scatter_apply(v, idx, jnp.sin, _dn(jax.lax), update_shape=(3,)) for v in stacked]
    )
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-6, err_msg=name)
    np.testing.assert_allclose(
        got["rows_thrice"][2], table[2] + 3, rtol=1e-6
    )  # three updates, three applications
    with g, pytest.raises(sg.GraphError, match="keep the operand's type") as e:
        slax.scatter_apply(phs[0], phs[2], snp.sum, _dn(), update_shape=(3,))  # not elementwise
    assert f"test_lax_random_bits.py:{line_of(HERE, '# not elementwise')}" in str(e.value)


def _dn(lax=slax):
    return lax.ScatterDimensionNumbers(
        update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
    )
