"""sg.lax's array helpers (ops/lax_arrays.py, lax_scans.py) against jax.lax: values at random
points and at ties, infinities, NaN, empty and length-1 axes, gradients against jax.grad, and
vectorize against a loop; all cases of a test in one graph and one run."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
import stablegraph.lax as slax
import stablegraph.numpy as snp
import stablegraph.test_util  # noqa: F401

RNG = np.random.default_rng(26)


def _both(fn, *arrays, x64=False):
    """fn(sg.lax, sg.numpy, *placeholders) in one graph and one run, and fn(jax.lax, jnp, *arrays)."""
    g = sg.Graph()
    with g:
        phs = [sg.placeholder(a.shape, sg.dtype(a.dtype)) for a in arrays]
        out = fn(slax, snp, *phs)
    with sg.Session(g) as sess:
        got = sess.run(out, dict(zip(phs, arrays)))
    with jax.enable_x64(x64):
        want = jax.tree.map(np.asarray, jax.jit(lambda *a: fn(jax.lax, jnp, *a))(*arrays))
    return got, want


def _assert_equal_trees(got, want, rtol=0.0, atol=0.0):
    got_leaves, want_leaves = jax.tree.leaves(got), jax.tree.leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for k, (a, b) in enumerate(zip(got_leaves, want_leaves)):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype, (k, a.shape, a.dtype, b.shape, b.dtype)
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"output {k}", equal_nan=True)


def test_shapes_stacking_splitting_and_taking_match_jax():
    x = RNG.normal(size=(4, 3, 5)).astype(np.float32)
    v = RNG.normal(size=(3,)).astype(np.float32)
    idx0 = np.array([0, 3, 3, 1], np.int32)
    idx2 = np.array([4, 0, 2, 4], np.int32)
    upd = RNG.normal(size=(4, 5)).astype(np.float32)

    def cases(lax, np_, x, v, i0, i2, u):
        return {
            "like": lax.broadcast_like(v, x[0].T),
            "rank": lax.broadcast_to_rank(v, 3),
            "rank_same": lax.broadcast_to_rank(x, 2),
            "collapse": lax.collapse(x, 1),
            "collapse_mid": lax.collapse(x, 0, 2),
            "collapse_one": lax.collapse(x, 1, 2),
            "stack": lax.stack([x[0], x[1], x[2]], axis=1),
            "unstack": lax.unstack(x, axis=2),
            "split": lax.split(x, [0, 2, 3], axis=2)[1:],
            "split_empty": lax.split(x, [0, 5], axis=2)[0],
            "tile": lax.tile(x[:, :, :2], (1, 2, 3)),
            "empty": lax.empty((2, 0, 3), np_.float32),
            "take": lax.index_take(x, (i0, i2), (0, 2)),
            "take_one": lax.index_take(x, (i0,), (0,)),
            "update_index": lax.dynamic_update_index_in_dim(x, u, 1, 1),
            "update_negative": lax.dynamic_update_index_in_dim(x, u[:, None, :], -1, 1),
            "update_clamped": lax.dynamic_update_index_in_dim(x, u, 7, 1),
        }

    got, want = _both(cases, x, v, idx0, idx2, upd)
    assert set(got) == set(want)
    _assert_equal_trees(got, want)
    assert slax.broadcast_shapes((3, 1), (1, 4), (4,)) == jax.lax.broadcast_shapes((3, 1), (1, 4), (4,))
    assert slax.dtype(np.float64(1.0)).np == np.float64 and slax.dtype(np.int8(1)).np == np.int8


def test_xor_reductions_match_numpy_and_jax():
    ints = RNG.integers(-(2**31), 2**31, size=(5, 7), dtype=np.int64).astype(np.int32)
    bools = RNG.random((5, 7)) < 0.5
    uints = RNG.integers(0, 2**63, size=(3, 4), dtype=np.uint64)

    def cases(lax, np_, i, b, u):
        return [
            lax.reduce_xor(i, (0,)),
            lax.reduce_xor(i, (0, 1)),
            lax.reduce_xor(b, (1,)),
            lax.reduce_xor(u, (1,)),
        ]

    got, want = _both(cases, ints, bools, uints, x64=True)
    _assert_equal_trees(got, want)
    np.testing.assert_array_equal(got[1], np.bitwise_xor.reduce(ints.ravel()))
    np.testing.assert_array_equal(got[2], np.logical_xor.reduce(bools, axis=1))


def test_top_k_by_value_matches_jax_at_ties():
    x = RNG.normal(size=(4, 9)).astype(np.float32)
    x[0] = [1, 3, 3, 0, 3, -1, 1, 0, 2]  # ties: jax gives them in index order
    x[1, 4] = np.inf
    x[1, 5] = -np.inf
    x[2] = -0.0
    ints = RNG.integers(-3, 3, size=(6, 5)).astype(np.int32)

    def cases(lax, np_, x):
        return [
            lax.approx_max_k(x, 3),
            lax.approx_min_k(x, 4),
            lax.approx_max_k(x, 2, reduction_dimension=0),
            lax.approx_min_k(x, 1, reduction_dimension=0),
        ]

    got, want = _both(cases, x)
    _assert_equal_trees(got, want)
    # jax takes floating operands only; integers here are checked against numpy's stable sorts
    (top_v, top_i), (low_v, low_i) = sg.test_util.run_graph(
        lambda n: [slax.approx_max_k(n, 5), slax.approx_min_k(n, 3, reduction_dimension=0)], ints
    )
    want_top = np.argsort(-ints, axis=1, kind="stable")
    want_low = np.argsort(ints, axis=0, kind="stable")[:3]
    np.testing.assert_array_equal(top_i, want_top)
    np.testing.assert_array_equal(top_v, np.take_along_axis(ints, want_top, 1))
    np.testing.assert_array_equal(low_i, want_low)
    np.testing.assert_array_equal(low_v, np.take_along_axis(ints, want_low, 0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cumlogsumexp_and_associative_scan_match_jax(dtype):
    n = 13
    x = RNG.normal(size=(3, n)).astype(dtype) * 30
    x[0, :4] = [-np.inf, -np.inf, 0.0, 700.0 if dtype == np.float64 else 80.0]
    x[1, 5] = np.nan
    a = RNG.normal(size=(n, 2)).astype(dtype)
    b = RNG.normal(size=(n, 2)).astype(dtype)

    def affine(lax, np_):  # (a, b) pairs compose as x -> a x + b: associative, not commutative
        return lambda p, q: (q[0] * p[0], q[0] * p[1] + q[1])

    def cases(lax, np_, x, a, b):
        out = {
            "cls": lax.cumlogsumexp(x, axis=1),
            "cls_rev": lax.cumlogsumexp(x, axis=1, reverse=True),
            "cls_axis0": lax.cumlogsumexp(x[:, :2], axis=0),
            "cls_one": lax.cumlogsumexp(x[:, :1], axis=1),
            "sum": lax.associative_scan(lambda p, q: p + q, x, axis=1),
            "max_rev": lax.associative_scan(np_.maximum, x, reverse=True, axis=1),
        }
        for length in (1, 2, 5, 8, 13):
            out[f"affine{length}"] = lax.associative_scan(affine(lax, np_), (a[:length], b[:length]))
            out[f"affine_rev{length}"] = lax.associative_scan(
                affine(lax, np_), (a[:length], b[:length]), reverse=True
            )
        return out

    got, want = _both(cases, x, a, b, x64=dtype == np.float64)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    _assert_equal_trees(got, want, rtol=tol, atol=tol)
    # an independent oracle too: numpy's running logaddexp and the affine maps composed in a loop
    np.testing.assert_allclose(got["cls"][2], np.logaddexp.accumulate(x[2].astype(np.float64)), rtol=tol)
    ca, cb = a[0].astype(np.float64), b[0].astype(np.float64)
    for k in range(1, n):
        ca, cb = a[k] * ca, a[k] * cb + b[k]
    np.testing.assert_allclose(got["affine13"][0][-1], ca, rtol=tol * 10)
    np.testing.assert_allclose(got["affine13"][1][-1], cb, rtol=tol * 10, atol=tol)


def test_gradients_and_vectorize_through_the_scans_match_jax():
    x = RNG.normal(size=(6, 7)).astype(np.float32)
    x[0, 2] = x[0, 3]  # a tie inside the running maximum
    w = RNG.normal(size=(7,)).astype(np.float32)

    def loss(lax, np_, x):
        return (
            (lax.cumlogsumexp(x, axis=1) * w).sum()
            + (lax.associative_scan(np_.maximum, x, axis=1) * w).sum()
            + lax.approx_max_k(x, 2)[0].sum()
        )

    g = sg.Graph()
    with g:
        xp = sg.placeholder(x.shape, sg.float32)
        grad = sg.grad(lambda v: loss(slax, snp, v))(xp)
        per_row = sg.vectorize(lambda row: slax.cumlogsumexp(row))(xp)
    with sg.Session(g) as sess:
        got_grad, got_rows = sess.run([grad, per_row], {xp: x})
    want_grad = jax.grad(lambda v: loss(jax.lax, jnp, v))(x)
    np.testing.assert_allclose(got_grad, want_grad, rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(got_rows, np.stack([np.logaddexp.accumulate(r) for r in x]), rtol=2e-6)


def test_shape_arithmetic_matches_jax():
    dn = ("NHWC", "HWIO", "NHWC")
    assert slax.conv_general_permutations(dn) == jax.lax.conv_general_permutations(dn)
    for strides, padding in (((1, 1), "SAME"), ((2, 3), "VALID"), ((2, 2), ((1, 0), (2, 1)))):
        lhs, rhs = (2, 11, 9, 3), (3, 2, 3, 5)
        assert slax.conv_general_shape_tuple(lhs, rhs, strides, padding, dn) == tuple(
            jax.lax.conv_general_shape_tuple(lhs, rhs, strides, padding, dn)
        )
        assert slax.conv_transpose_shape_tuple(lhs, rhs, strides, padding, dn) == tuple(
            jax.lax.conv_transpose_shape_tuple(lhs, rhs, strides, padding, dn)
        )
    pads = ((1, 2), (0, 0))
    assert slax.conv_shape_tuple((2, 3, 10, 8), (4, 3, 3, 2), (2, 1), pads) == tuple(
        jax.lax.conv_shape_tuple((2, 3, 10, 8), (4, 3, 3, 2), (2, 1), pads)
    )
    assert slax.reduce_window_shape_tuple((7, 9), (2, 3), (2, 1), ((0, 1), (1, 1)), (1, 2), (2, 1)) == tuple(
        jax.lax.reduce_window_shape_tuple((7, 9), (2, 3), (2, 1), ((0, 1), (1, 1)), (1, 2), (2, 1))
    )


def test_bad_arguments_are_graph_errors_at_the_users_line():
    g = sg.Graph()
    with g:
        x = sg.placeholder((4, 5), sg.float32)
        with pytest.raises(sg.GraphError, match=r"sizes \[2, 2\] must be >= 0 and sum to dim 1") as split:
            slax.split(x, [2, 2], axis=1)
        with pytest.raises(sg.GraphError, match="one count per dim") as tile:
            slax.tile(x, (2,))
        with pytest.raises(sg.GraphError, match="k = 6 must be in") as top:
            slax.approx_max_k(x, 6)
        with pytest.raises(sg.GraphError, match="structure of elems"):
            slax.associative_scan(lambda p, q: (p, q), x)
    for info in (split, tile, top):
        assert "test_lax_arrays.py" in str(info.value)


def test_mulhi_matches_python_integers_at_the_range_ends():
    dts = (np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64)
    inputs = []
    for dt in dts:
        info = np.iinfo(dt)
        x = RNG.integers(info.min, info.max, size=40, dtype=dt, endpoint=True)
        y = RNG.integers(info.min, info.max, size=40, dtype=dt, endpoint=True)
        x[:5] = [info.min, info.max, 0, info.min, info.max]
        y[:5] = [info.min, info.max, info.max, info.max, info.min if info.min < 0 else 1]
        inputs += [x, y]
    got = sg.test_util.run_graph(lambda *xy: [slax.mulhi(a, b) for a, b in zip(xy[::2], xy[1::2])], *inputs)
    for dt, x, y, out in zip(dts, inputs[::2], inputs[1::2], got):
        bits = np.dtype(dt).itemsize * 8
        high = [((int(a) * int(b)) >> bits) % (1 << bits) for a, b in zip(x, y)]
        if np.iinfo(dt).min < 0:
            high = [h - (1 << bits) if h >= 1 << (bits - 1) else h for h in high]
        np.testing.assert_array_equal(out, np.array(high, dtype=dt), err_msg=np.dtype(dt).name)


def test_scatter_sub_precision_and_sharding_constraint_match_jax():
    x = RNG.normal(size=(5, 3)).astype(np.float32)
    w = RNG.normal(size=(3, 4)).astype(np.float32)
    idx = np.array([[0], [3], [0]], np.int32)
    upd = RNG.normal(size=(3, 3)).astype(np.float32)
    dn = jax.lax.ScatterDimensionNumbers((1,), (0,), (0,))

    def cases(lax, np_, x, w, i, u):
        return [
            lax.scatter_sub(x, i, u, dn),
            lax.dot_general(x, w, (((1,), (0,)), ((), ())), precision=lax.Precision.HIGHEST),
            # values pass through unchanged (jax's needs a mesh in context for a bare spec)
            lax.with_sharding_constraint({"a": x * 2, "b": [w]}, sg.PartitionSpec())
            if lax is slax
            else {"a": x * 2, "b": [w]},
        ]

    got, want = _both(cases, x, w, idx, upd)
    _assert_equal_trees(got, want, rtol=1e-6, atol=1e-6)
    mesh = sg.make_mesh((2, 2), ("data", "model"))
    g = sg.Graph()
    with g:
        xp = sg.placeholder((4, 6), sg.float32)
        out = slax.with_sharding_constraint(
            (xp + 1, xp * 2),
            (sg.NamedSharding(mesh, sg.PartitionSpec("data")), sg.PartitionSpec(None, "model")),
        )
    value = np.arange(24, dtype=np.float32).reshape(4, 6)
    with sg.Session(g, mesh=mesh) as sess:
        got = sess.run(out, {xp: value})
        text = sess.lower(out, {xp: value})
    np.testing.assert_array_equal(got[0], value + 1)
    np.testing.assert_array_equal(got[1], value * 2)
    assert '[{"data"}, {}]' in text and '[{}, {"model"}]' in text
