"""sg.nn.scaled_matmul, scaled_dot_general and get_scaled_dot_general_config (jax's block-scaled
mxfp8/nvfp4 matmuls, which jax runs on Blackwell GPUs only) against the numbers jax's own
quantizer gives on the CPU (jax._src.cudnn.scaled_matmul_stablehlo.quantize, test-only) and
numpy's float64 einsum of the dequantized operands; edges: all-zero blocks, ties of the 4-bit
rounding, values past the data type's range; the straight-through gradient; errors."""

import functools
import importlib

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from jax._src.cudnn import scaled_matmul_stablehlo as jax_scaled

import stablegraph as sg

ours_module = importlib.import_module(
    "stablegraph.ops.nn.scaled_matmul"
)  # (sg.nn's function shadows the name)

F8, E8M0, F4 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e8m0fnu, ml_dtypes.float4_e2m1fn


def _deq(q, scales, block):
    return np.asarray(q, np.float64) * np.repeat(np.asarray(scales, np.float64), block, axis=-1)


@functools.cache
def _jax_quantizer(mode, global_scale):
    cfg = jax.nn.get_scaled_dot_general_config(
        mode, None if global_scale is None else np.float32([global_scale])
    )
    return jax.jit(lambda x: jax_scaled.quantize(x, cfg)), cfg


def _jax_quantized(x3, mode, global_scale=None):
    """x (B, M, K) as jax's quantizer leaves it, scaled back: float64."""
    gs = None if global_scale is None else float(np.asarray(global_scale).ravel()[0])
    quantize, cfg = _jax_quantizer(mode, gs)
    q, s = quantize(jnp.asarray(x3))
    out = _deq(np.asarray(q.astype(np.float32)), np.asarray(s.astype(np.float32)), cfg.block_size)
    return out * (1.0 if global_scale is None else float(np.asarray(global_scale).ravel()[0]))


def test_scaled_matmul_is_the_dequantized_einsum():
    rng = np.random.default_rng(0)
    a8 = rng.normal(size=(2, 3, 64)).astype(F8)
    b8 = rng.normal(size=(2, 4, 64)).astype(F8)
    sa = (2.0 ** rng.integers(-4, 4, size=(2, 3, 2))).astype(E8M0)
    sb = (2.0 ** rng.integers(-4, 4, size=(2, 4, 2))).astype(E8M0)
    a4 = rng.uniform(-6, 6, size=(1, 2, 32)).astype(F4)
    b4 = rng.uniform(-6, 6, size=(1, 3, 32)).astype(F4)
    s4a = rng.uniform(0.1, 4, size=(1, 2, 2)).astype(F8)
    s4b = rng.uniform(0.1, 4, size=(1, 3, 2)).astype(F8)
    g = sg.Graph()
    with g:
        out = dict(
            mx=sg.nn.scaled_matmul(a8, b8, sa, sb),
            mx_tensor=sg.nn.scaled_matmul(
                sg.constant(a8), sg.constant(b8), sa, sb, preferred_element_type=sg.bfloat16
            ),
            nv=sg.nn.scaled_matmul(a4, b4, s4a, s4b),
            block64=sg.nn.scaled_matmul(a8, b8, sa[..., :1], sb[..., :1]),
        )
    with sg.Session(g) as sess:
        r = sess.run(out)
    want_mx = np.einsum("bmk,bnk->bmn", _deq(a8.astype(np.float32), sa.astype(np.float32), 32),
                        _deq(b8.astype(np.float32), sb.astype(np.float32), 32))  # fmt: skip
    np.testing.assert_allclose(r["mx"], want_mx, rtol=1e-6)
    assert r["mx"].dtype == np.float32 and r["mx_tensor"].dtype == ml_dtypes.bfloat16
    np.testing.assert_allclose(r["mx_tensor"].astype(np.float32), want_mx, rtol=1e-2)
    want_nv = np.einsum("bmk,bnk->bmn", _deq(a4.astype(np.float32), s4a.astype(np.float32), 16),
                        _deq(b4.astype(np.float32), s4b.astype(np.float32), 16))  # fmt: skip
    np.testing.assert_allclose(r["nv"], want_nv, rtol=1e-6)
    want64 = np.einsum("bmk,bnk->bmn", _deq(a8.astype(np.float32), sa[..., :1].astype(np.float32), 64),
                       _deq(b8.astype(np.float32), sb[..., :1].astype(np.float32), 64))  # fmt: skip
    np.testing.assert_allclose(r["block64"], want64, rtol=1e-6)


def test_scaled_dot_general_quantizes_as_jax():
    rng = np.random.default_rng(1)
    x = (rng.normal(size=(2, 3, 64)) * 5).astype(np.float32)
    y = rng.normal(size=(2, 5, 64)).astype(np.float32)
    x[0, 1, 3] = 3000.0  # past float8_e4m3fn's 448 before scaling: the block's scale takes it
    y[1, 2, :32] = 0.0  # an all-zero block
    xt = np.ascontiguousarray(np.transpose(x[0], (1, 0)))  # (64, 3): contracting dim first, no batch
    gs = np.array([0.5], np.float32)
    dims = (((2,), (2,)), ((0,), (0,)))
    g = sg.Graph()
    with g:
        mx = sg.nn.get_scaled_dot_general_config("mxfp8")
        nv = sg.nn.get_scaled_dot_general_config("nvfp4")
        nv_gs = sg.nn.get_scaled_dot_general_config("nvfp4", global_scale=gs)
        assert (mx.block_size, nv.block_size, mx.data_type, nv.scale_type) == (32, 16, F8, F8)
        out = dict(
            mx=sg.nn.scaled_dot_general(x, y, dims, configs=[mx, mx, mx]),
            nv=sg.nn.scaled_dot_general(x, y, dims, configs=[nv, nv, nv]),
            nv_gs=sg.nn.scaled_dot_general(x, y, dims, configs=[nv_gs, nv_gs, nv_gs]),
            nobatch=sg.nn.scaled_dot_general(xt, y[0], (((0,), (1,)), ((), ())), configs=[mx, mx, mx]),
            plain=sg.nn.scaled_dot_general(x, y, dims),
            half=sg.nn.scaled_dot_general(
                x, y, dims, preferred_element_type=sg.float16, configs=[mx, mx, mx]
            ),
        )
    with sg.Session(g) as sess:
        r = sess.run(out)
    with np.errstate(invalid="ignore"):
        # jax's CPU quantizer divides an all-zero mxfp8 block by a flushed-to-zero 2**-127 (nan):
        # that block's exact value is 0
        yq = np.nan_to_num(_jax_quantized(y, "mxfp8"))
    want = dict(
        mx=np.einsum("bmk,bnk->bmn", _jax_quantized(x, "mxfp8"), yq),
        nv=np.einsum("bmk,bnk->bmn", _jax_quantized(x, "nvfp4"), _jax_quantized(y, "nvfp4")),
        nv_gs=np.einsum("bmk,bnk->bmn", _jax_quantized(x, "nvfp4", gs), _jax_quantized(y, "nvfp4", gs)),
        nobatch=np.einsum("mk,nk->mn", _jax_quantized(x[:1], "mxfp8")[0], yq[0]),
        plain=np.einsum("bmk,bnk->bmn", x.astype(np.float64), y),
    )
    for name, w in want.items():
        np.testing.assert_allclose(r[name], w, rtol=2e-6, atol=1e-4, err_msg=name)
    assert r["half"].dtype == np.float16
    np.testing.assert_allclose(r["half"], want["mx"], rtol=2e-3, atol=1e-2)


def test_four_bit_rounding_matches_ml_dtypes_ties_included():
    grid = np.concatenate([np.linspace(-6, 6, 97), [0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, -0.0, -5.0, 0.1]])
    grid = grid.astype(np.float32)
    g = sg.Graph()
    with g:
        rounded = ours_module._round_e2m1(sg.constant(grid))
    with sg.Session(g) as sess:
        got = sess.run(rounded)
    np.testing.assert_array_equal(got, grid.astype(F4).astype(np.float32))


def test_gradient_is_straight_through_the_quantizer():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(1, 2, 32)).astype(np.float32)
    y = rng.normal(size=(1, 3, 32)).astype(np.float32)
    dims = (((2,), (2,)), ((0,), (0,)))
    g = sg.Graph()
    with g:
        mx = sg.nn.get_scaled_dot_general_config("mxfp8")
        X, Y = sg.constant(x), sg.constant(y)
        dx, dy = sg.gradients(
            sg.numpy.sum(sg.nn.scaled_dot_general(X, Y, dims, configs=[mx, mx, mx])), [X, Y]
        )
    with sg.Session(g) as sess:
        gx, gy = sess.run([dx, dy])
    ones = np.ones((1, 2, 3))
    np.testing.assert_allclose(gx, np.einsum("bmn,bnk->bmk", ones, _jax_quantized(y, "mxfp8")), rtol=1e-6)
    np.testing.assert_allclose(gy, np.einsum("bmn,bmk->bnk", ones, _jax_quantized(x, "mxfp8")), rtol=1e-6)


def test_bad_shapes_and_modes_are_clear_errors():
    with sg.Graph():
        a = np.ones((1, 2, 64), np.float32)
        with pytest.raises(sg.GraphError, match="3-d operands"):
            sg.nn.scaled_matmul(a[0], a[0], a[0], a[0])
        with pytest.raises(sg.GraphError, match="multiple of the scales"):
            sg.nn.scaled_matmul(a, a, np.ones((1, 2, 3), np.float32), np.ones((1, 2, 3), np.float32))
        with pytest.raises(sg.GraphError, match="mode is 'mxfp8' or 'nvfp4'"):
            sg.nn.get_scaled_dot_general_config("int8")
        mx = sg.nn.get_scaled_dot_general_config("mxfp8")
        with pytest.raises(sg.GraphError, match="not a multiple of the block size 32"):
            sg.nn.scaled_dot_general(
                a[..., :48], a[..., :48], (((2,), (2,)), ((0,), (0,))), configs=[mx, mx, mx]
            )
        with pytest.raises(sg.GraphError, match="float32, bfloat16 or float16"):
            sg.nn.scaled_dot_general(a, a, (((2,), (2,)), ((0,), (0,))), sg.float64, configs=[mx, mx, mx])
