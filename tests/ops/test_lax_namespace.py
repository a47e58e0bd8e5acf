"""sg.lax: JAX's lax names, and lax programs that port by changing the import give jax's values."""

import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
import stablegraph.lax as slax
import stablegraph.numpy as snp

RNG = np.random.default_rng(11)


NAMES = """
conv_general_dilated conv conv_transpose conv_with_general_padding conv_dimension_numbers
ConvDimensionNumbers padtype_to_pads reduce_window dynamic_slice dynamic_update_slice
dynamic_slice_in_dim dynamic_update_slice_in_dim dynamic_index_in_dim gather scatter scatter_add
scatter_mul scatter_min scatter_max GatherDimensionNumbers ScatterDimensionNumbers GatherScatterMode
select select_n clamp convert_element_type bitcast_convert_type broadcast broadcast_in_dim reshape
transpose squeeze expand_dims rev pad concatenate slice slice_in_dim index_in_dim dot dot_general
batch_matmul top_k cumsum cumprod cummax cummin sort sort_key_val iota broadcasted_iota reduce_precision
reduce reduce_sum reduce_max reduce_min reduce_prod reduce_and reduce_or argmax argmin add sub mul div
rem pow integer_pow max min neg abs sign floor ceil round RoundingMethod exp exp2 expm1 log log1p sqrt
rsqrt cbrt sin cos tan tanh logistic erf erf_inv atan2 bitwise_and bitwise_or bitwise_xor bitwise_not
shift_left shift_right_arithmetic shift_right_logical eq ne lt le gt ge is_finite square reciprocal cond
switch while_loop fori_loop scan map stop_gradient full full_like asin acos atan sinh cosh asinh acosh
atanh lgamma digamma erfc igamma igammac betainc bessel_i0e bessel_i1e polygamma zeta nextafter
population_count clz real imag complex conj fft FftType linalg psum pmean pmax pmin all_gather psum_scatter
ppermute all_to_all axis_index
""".split()


def test_lax_names_exist_and_are_jax_lax_names():
    missing = [n for n in NAMES if not hasattr(slax, n)]
    assert not missing, f"sg.lax lacks {missing}"
    not_jax = [n for n in NAMES if not hasattr(jax.lax, n)]
    assert not not_jax, f"not jax.lax names: {not_jax}"
    assert set(NAMES) <= set(slax.__all__)


def _run(fn, *arrays):
    """fn(sg.lax, sg.numpy, *placeholders) in one graph and one run, and fn(jax.lax, jnp, *arrays)."""
    g = sg.Graph()
    with g:
        phs = [sg.placeholder(a.shape, sg.dtype(a.dtype)) for a in arrays]
        out = fn(slax, snp, *phs)
    with sg.Session(g) as sess:
        got = sess.run(out, dict(zip(phs, arrays)))
    return got, jax.jit(lambda *a: fn(jax.lax, jnp, *a))(*arrays)


def _assert_close(got, want, rtol=2e-6, atol=1e-6):
    for k, (g, w) in enumerate(zip(jax.tree.leaves(got), jax.tree.leaves(want))):
        w = np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (k, g.shape, g.dtype, w.shape, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"output {k}")


def test_elementwise_names_match_jax():
    # a sample per kind of adapter (the primitives themselves are tested in their families' files)
    unary = ["neg", "abs", "sign", "floor", "ceil", "round", "exp", "exp2", "log1p", "sin", "tanh",
             "logistic", "atan", "square", "is_finite"]  # fmt: skip
    binary = ["add", "sub", "mul", "div", "rem", "max", "min", "atan2", "eq", "ne", "lt", "le", "gt", "ge"]
    x = (RNG.normal(size=(3, 4)) * 3).astype(np.float32)
    x[0, :3] = [2.5, -2.5, 0.5]  # halves: away from zero by default, to even on request
    y = RNG.normal(size=(3, 4)).astype(np.float32) + 4.0
    i, j = RNG.integers(-50, 50, size=(2, 6)).astype(np.int32)

    def fn(L, np_, x, y, i, j):
        pos = L.abs(y)
        return (
            [getattr(L, n)(x) for n in unary],
            [getattr(L, n)(x, y) for n in binary],
            [L.log(pos), L.sqrt(pos), L.rsqrt(pos), L.reciprocal(pos), L.lgamma(pos), L.pow(pos, x)],
            [L.round(x, L.RoundingMethod.TO_NEAREST_EVEN), L.integer_pow(x, 3), L.integer_pow(pos, -2),
             L.integer_pow(x, 0), L.add(x, 1.5), L.max(x, 0.0), L.pow(pos, 2)],
            [L.bitwise_and(i, j), L.bitwise_or(i, j), L.bitwise_xor(i, j), L.bitwise_not(i), L.rem(i, j | 1),
             L.div(i, j | 1), L.shift_left(i, 3), L.shift_right_arithmetic(i, 2), L.shift_right_logical(i, 2),
             L.population_count(i), L.clz(i)],
        )  # fmt: skip

    got, want = _run(fn, x, y, i, j)
    _assert_close(got, want, rtol=5e-6, atol=2e-6)


def test_shapes_selection_and_types_match_jax():
    x = RNG.normal(size=(4, 3, 5)).astype(np.float32)
    v = RNG.normal(size=(5,)).astype(np.float32)
    which = np.array([[0, 2, 1, 1, 0]] * 4, np.int32)

    def fn(L, np_, x, v, which):
        s = L.index_in_dim(x, 1, axis=1, keepdims=False)
        return [
            L.pad(x, 0.5, [(1, 2, 0), (0, -1, 1), (2, 0, 2)]),
            L.slice(x, (1, 0, 1), (4, 3, 5), (2, 1, 3)),
            L.slice_in_dim(x, 1, -1, 2, axis=2),
            L.index_in_dim(x, -1, axis=0),
            s,
            L.broadcast(v, (2, 3)),
            L.broadcast_in_dim(v, (3, 5, 2), (1,)),
            L.reshape(x, (5, 12), dimensions=(2, 0, 1)),
            L.transpose(x, (1, 2, 0)),
            L.squeeze(L.expand_dims(v, (0, 2)), (0,)),
            L.rev(x, (0, 2)),
            L.concatenate([x, x[:2]], 0),
            L.select(L.gt(s, 0.0), s, L.neg(s)),
            L.select_n(L.gt(s, 0.0), s, L.square(s)),
            L.select_n(which, s, L.neg(s), L.mul(s, 2.0)),
            L.clamp(-0.5, x, 0.5),
            L.convert_element_type(x, jnp.int32),
            L.bitcast_convert_type(v, jnp.int32),
            L.iota(jnp.int32, 6),
            L.broadcasted_iota(jnp.float32, (2, 3), 1),
            L.full((2, 2), 3.0),
            L.full_like(v, 7, jnp.int32),
        ]

    got, want = _run(fn, x, v, which)
    _assert_close(got, want)


def test_dynamic_slicing_with_tensor_and_negative_starts_matches_jax():
    x = RNG.normal(size=(5, 6)).astype(np.float32)
    u = RNG.normal(size=(2, 3)).astype(np.float32)
    starts = np.array([1, -4], np.int32)
    i = np.int32(-2)

    def fn(L, np_, x, u, starts, i):
        return [
            L.dynamic_slice(x, starts, (2, 3)),
            L.dynamic_slice(x, (i, 1), (2, 2)),
            L.dynamic_slice(x, (3, -2), (2, 2)),
            L.dynamic_update_slice(x, u, starts),
            L.dynamic_slice_in_dim(x, i, 2, axis=1),
            L.dynamic_update_slice_in_dim(x, u, i, axis=0),
            L.dynamic_index_in_dim(x, i, 0, keepdims=False),
            L.dynamic_index_in_dim(x, 1, axis=1),
        ]

    got, want = _run(fn, x, u, starts, i)
    _assert_close(got, want)


def test_gather_and_scatter_with_dimension_numbers_and_modes_match_jax():
    x = RNG.normal(size=(5, 4)).astype(np.float32)
    rows = np.array([[0], [3], [7], [-1], [4]], np.int32)  # two out of range
    updates = RNG.normal(size=(5, 4)).astype(np.float32)

    def fn(L, np_, x, rows, updates):
        gdn = L.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
        sdn = L.ScatterDimensionNumbers(
            update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
        )
        window_gdn = L.GatherDimensionNumbers(
            offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0,)
        )
        return [
            L.gather(x, rows, gdn, (1, 4)),
            L.gather(x, rows, gdn, (1, 4), mode="clip"),
            L.gather(x, rows, gdn, (1, 4), mode=L.GatherScatterMode.FILL_OR_DROP, fill_value=-1.0),
            L.gather(x, rows, gdn, (1, 4), mode="fill"),
            L.gather(x, rows, window_gdn, (2, 3)),
            L.scatter_add(x, rows, updates, sdn),
            L.scatter(x, rows, updates, sdn, mode="clip"),
            L.scatter_mul(x, rows, updates, sdn),
            L.scatter_min(x, rows, updates, sdn),
            L.scatter_max(x, rows, updates, sdn, mode=L.GatherScatterMode.CLIP),
        ]

    got, want = _run(fn, x, rows, updates)
    _assert_close(got, want)


def test_contractions_reductions_sorting_and_windows_match_jax():
    a = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    b = RNG.normal(size=(2, 4, 5)).astype(np.float32)
    m = RNG.normal(size=(4,)).astype(np.float32)
    keys = RNG.integers(0, 4, size=(3, 6)).astype(np.int32)

    def fn(L, np_, a, b, m, keys):
        vals = L.convert_element_type(keys, jnp.float32) * 0.5 + L.broadcasted_iota(jnp.float32, (3, 6), 1)
        return [
            L.dot(a[0], b[0]),
            L.dot(m, b[1]),
            L.dot(m, m),
            L.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
            L.dot_general(a, b, (((2,), (1,)), ((0,), (0,))), preferred_element_type=jnp.float32),
            L.batch_matmul(a, b),
            L.reduce_sum(a, (0, 2)), L.reduce_max(a, (1,)), L.reduce_min(a, (2,)), L.reduce_prod(a, (0,)),
            L.argmax(a, 1, jnp.int32), L.argmin(a, 2, jnp.int32),
            L.reduce(a, 0.0, L.add, (0, 2)), L.reduce(a, 2.0, L.max, (1,)), L.reduce(a, 1.0, L.mul, (2,)),
            L.reduce(keys, 3, L.bitwise_or, (1,)), L.reduce(keys, -1, L.bitwise_and, (0,)),
            L.cumsum(a, 1), L.cumprod(a, 2, reverse=True), L.cummax(a, 0), L.cummin(a, 2, reverse=True),
            L.sort(a, 1), L.sort_key_val(keys, vals), L.sort((keys, vals), num_keys=1),
            L.top_k(a, 2), L.top_k(b, 1, axis=1),
            L.reduce_precision(a, 5, 2),
            L.reduce_window(a, 0.0, L.add, (1, 2, 2), (1, 1, 2), "SAME"),
            L.reduce_window(a, -jnp.inf, L.max, (2, 2, 1), (1, 1, 1), ((0, 0), (1, 0), (0, 0))),
            L.reduce_window(a, 0.0, L.max, (1, 2, 2), (1, 1, 1), "VALID", (1, 2, 1), (1, 1, 2)),
            L.reduce_window(a, jnp.inf, L.min, (1, 3, 1), (1, 1, 1), "SAME"),
            L.reduce_window(a, 1.0, L.min, (1, 3, 1)),
        ]  # fmt: skip

    got, want = _run(fn, a, b, m, keys)
    _assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_reduce_window_accepts_numpy_computations_and_names_the_supported_ones():
    a = RNG.normal(size=(4, 6)).astype(np.float32)
    g = sg.Graph()
    with g:
        p = sg.placeholder(a.shape, sg.float32)
        outs = [
            slax.reduce_window(p, -np.inf, snp.maximum, (2, 2), (2, 2), "VALID"),
            slax.reduce_window(p, sg.constant(np.float32(1.0)), snp.add, (3, 1), (1, 1), "SAME"),
            slax.reduce(p, np.float32(0.0), snp.add, (1,)),  # sg.numpy.add is a ufunc object
        ]
        with pytest.raises(sg.GraphError) as e:
            line = inspect.currentframe().f_lineno + 1
            slax.reduce_window(p, 1.0, slax.mul, (2, 2), (1, 1), "VALID")
        assert "sg.lax.reduce_window supports the computations sg.lax.add, sg.lax.max, sg.lax.min" in str(
            e.value
        )
        assert f"test_lax_namespace.py:{line}" in str(e.value)
        with pytest.raises(sg.GraphError, match="wants init_value as a number or a scalar constant"):
            slax.reduce_window(p, p[0, 0], slax.add, (2, 2), (1, 1), "VALID")
    with sg.Session(g) as sess:
        got = sess.run(outs, {p: a})
    np.testing.assert_array_equal(
        got[0], jax.lax.reduce_window(a, -np.inf, jax.lax.max, (2, 2), (2, 2), "VALID")
    )
    want = jax.lax.reduce_window(a, np.float32(1.0), jax.lax.add, (3, 1), (1, 1), "SAME")
    np.testing.assert_allclose(got[1], want, rtol=1e-6)
    np.testing.assert_allclose(got[2], a.sum(1), rtol=1e-6)


def test_a_conv_pool_slice_program_ports_by_changing_the_import():
    # the same function body runs on jax.lax / jnp and on sg.lax / sg.numpy: values and gradients agree
    images = RNG.normal(size=(2, 8, 8, 3)).astype(np.float32)
    kernel = RNG.normal(size=(3, 3, 3, 4)).astype(np.float32) * 0.3
    start = np.int32(1)

    def program(L, np_, images, kernel, start):
        y = L.conv_general_dilated(images, kernel, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        y = L.max(y, 0.0)
        pooled = L.reduce_window(y, -jnp.inf, L.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        mean = L.reduce_window(y, 0.0, L.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9.0
        crop = L.dynamic_slice(pooled, (0, start, start, 0), (2, 2, 2, 4))

        def body(i, acc):
            return acc + L.dynamic_index_in_dim(crop, i, axis=3, keepdims=False)

        total = L.fori_loop(0, 4, body, L.full_like(crop[..., 0], 0.0))
        carry, ys = L.scan(lambda c, r: (c + L.reduce_sum(r, (0,)), L.tanh(r)), 0.0 * mean[0, 0], mean[0])
        return L.reduce_sum(total, (0, 1, 2)) + L.reduce_sum(carry, (0, 1)), ys

    got, want = _run(program, images, kernel, start)
    _assert_close(got, want, rtol=1e-4, atol=1e-4)

    g = sg.Graph()
    with g:
        i, k, s = (sg.placeholder(a.shape, sg.dtype(a.dtype)) for a in (images, kernel, start))
        grad = sg.grad(lambda kk: program(slax, snp, i, kk, s)[0])(k)
    with sg.Session(g) as sess:
        got_grad = sess.run(grad, {i: images, k: kernel, s: start})
    want_grad = jax.jit(jax.grad(lambda kk: program(jax.lax, jnp, images, kk, start)[0]))(kernel)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-4, atol=1e-4)


def test_complex_parts_and_fft_match_jax():
    x = (RNG.normal(size=(3, 8)) + 1j * RNG.normal(size=(3, 8))).astype(np.complex64)
    r = RNG.normal(size=(3, 8)).astype(np.float32)

    def fn(L, np_, x, r):
        return [
            L.real(x), L.imag(x), L.conj(x), L.complex(r, r),
            L.fft(x, L.FftType.FFT, (8,)), L.fft(x, "IFFT", (8,)), L.fft(r, L.FftType.RFFT, (8,)),
        ]  # fmt: skip

    got, want = _run(fn, x, r)
    _assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_errors_point_to_public_names():
    g = sg.Graph()
    with g:
        x = sg.placeholder((3,), sg.float32)
        with pytest.raises(sg.GraphError, match="sg.lax.dot wants rank-1 or rank-2 operands"):
            slax.dot(sg.placeholder((2, 2, 2), sg.float32), x)
        with pytest.raises(sg.GraphError, match="sg.lax.select_n with a bool which wants 2 cases, got 3"):
            slax.select_n(slax.gt(x, 0.0), x, x, x)
        with pytest.raises(sg.GraphError, match="sg.lax gather/scatter mode wants 'clip'"):
            slax.GatherScatterMode.from_any("wrap")


def test_linalg_follows_jax_lax_linalg_defaults_and_result_orders():
    a = RNG.normal(size=(2, 4, 4)).astype(np.float32)
    spd = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4, dtype=np.float32)
    lower_part = np.tril(spd)  # symmetrize_input reads both triangles: jax's default
    tall = RNG.normal(size=(5, 3)).astype(np.float32)
    b = RNG.normal(size=(2, 4, 3)).astype(np.float32)

    def fn(L, np_, spd, lower_part, tall, b):
        chol = L.linalg.cholesky(spd)
        v, w = L.linalg.eigh(spd)
        q, r = L.linalg.qr(tall)
        u, s, vh = L.linalg.svd(tall)
        lu, piv, perm = L.linalg.lu(tall)
        return [
            chol, L.linalg.cholesky(lower_part, symmetrize_input=False),
            L.linalg.triangular_solve(chol, b, left_side=True, lower=True),
            w, (v * w[..., None, :]) @ np_.swapaxes(v, -1, -2),
            q @ r, q.shape[-1] + 0 * r[0, 0], (u[:, :3] * s) @ vh, s, L.linalg.svd(tall, compute_uv=False),
            lu, piv, perm,
        ]  # fmt: skip

    got, want = _run(fn, spd, lower_part, tall, b)
    _assert_close(got, want, rtol=2e-4, atol=2e-4)
    g = sg.Graph()
    with g:
        x = sg.placeholder((3, 3), sg.float32)
        with pytest.raises(sg.GraphError, match="pass compute_left_eigenvectors=False"):
            slax.linalg.eig(x)
        with pytest.raises(sg.GraphError, match="sg.lax.linalg.qr has no pivoted QR"):
            slax.linalg.qr(x, pivoting=True)
