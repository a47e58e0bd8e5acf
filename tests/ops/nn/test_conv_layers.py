"""sg.nn.conv and conv_transpose (flax.linen.Conv / ConvTranspose) against jax.lax on the read-back kernels,
padding words (SAME, VALID, CIRCULAR, CAUSAL, ints, pairs) written out as flax does in the oracle."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg

jax.config.update("jax_platforms", "cpu")

RNG = np.random.default_rng(7)
IMG = RNG.normal(size=(2, 7, 6, 4)).astype(np.float32)
SEQ = RNG.normal(size=(2, 9, 3)).astype(np.float32)
VOL = RNG.normal(size=(1, 4, 5, 3, 2)).astype(np.float32)
SMALL = RNG.normal(size=(2, 3, 4, 3)).astype(np.float32)
DRAWS = np.random.default_rng(99)


def drawn(key, shape, dtype=sg.float32):
    """A test initializer: normal draws made by numpy (no random program to compile), new ones each call."""
    return sg.constant(DRAWS.normal(size=shape).astype(np.float32))


drawn.uses_key = False

# name: (input, layer, features, kernel_size, keyword arguments)
CONV = {
    "same": ("img", 5, (3, 3), {"bias_init": drawn}),
    "valid_strided_dilated": ("img", 3, (2, 3), {"strides": (2, 1), "padding": "VALID", "kernel_dilation": (1, 2),
                                                 "use_bias": False}),
    "causal": ("seq", 4, (3,), {"padding": "CAUSAL", "kernel_dilation": 2}),
    "circular": ("img", 2, (3, 4), {"padding": "CIRCULAR", "bias_init": drawn}),
    "input_dilated": ("img", 2, (3, 3), {"input_dilation": 2, "strides": 2, "padding": [(1, 2), (2, 0)]}),
    "grouped": ("img", 6, (1, 2), {"feature_group_count": 2, "padding": 1}),
    "pairs": ("seq", 2, (4,), {"padding": [(2, 1)], "strides": 3}),
    "three_d": ("vol", 3, (2, 2, 2), {"padding": "SAME_LOWER"}),
    "unbatched": ("img0", 2, (3, 3), {"padding": "VALID"}),
    "two_batch_dims": ("img2", 2, (2, 2), {"strides": 2}),
}  # fmt: skip
TRANSPOSE = {
    "t_same": ("small", 3, (3, 3), {"strides": (2, 2), "bias_init": drawn}),
    "t_valid": ("small", 2, (3, 2), {"strides": (2, 3), "padding": "VALID", "kernel_dilation": (2, 1)}),
    "t_circular": ("small", 2, (4, 3), {"strides": (2, 1), "padding": "CIRCULAR"}),
    "t_circular_tk": ("small", 2, (3, 4), {"strides": (2, 2), "padding": "CIRCULAR", "transpose_kernel": True}),
    "t_kernel": ("small", 2, (3, 3), {"strides": 2, "transpose_kernel": True, "use_bias": False}),
    "t_pairs": ("seq", 2, (3,), {"strides": 2, "padding": [(1, 2)]}),
    "t_unbatched": ("seq0", 2, (2,), {"strides": 3, "padding": "VALID"}),
}  # fmt: skip
INPUTS = {
    "img": IMG,
    "seq": SEQ,
    "vol": VOL,
    "small": SMALL,
    "img0": IMG[0],
    "img2": IMG[:, None],
    "seq0": SEQ[0],
}


@pytest.fixture(scope="module")
def built():
    g = sg.Graph()
    with g:
        img = sg.placeholder(("batch", 7, 6, 4), sg.float32, name="img")
        phs = {k: sg.constant(v) for k, v in INPUTS.items() if k != "img"}
        phs["img"] = img
        out = {}
        # random initializers make a costly init program: one layer keeps lecun_normal, the rest are drawn
        for name, (src, features, kernel, kw) in CONV.items():
            init = None if name == "same" else drawn
            out[name] = sg.nn.conv(phs[src], features, kernel_size=kernel, name=name, kernel_init=init, **kw)
        for name, (src, features, kernel, kw) in TRANSPOSE.items():
            out[name] = sg.nn.conv_transpose(phs[src], features, kernel, name=name, kernel_init=drawn, **kw)
        out["d_same"] = sg.gradients((out["same"] ** 2).sum(), [img, g.tensor("same/kernel")])
        types = {k: str(v.type) for k, v in out.items() if k != "d_same"}
    with sg.Session(g, seed=4) as sess:
        got = sess.run(out, {img: IMG})
        params = {v.var_name: sess.get(v) for v in g.variables}
    return got, params, types


def _pairs(padding, n):
    if isinstance(padding, str):
        return padding
    if isinstance(padding, int):
        return [(padding, padding)] * n
    return [tuple(p) for p in padding]


def _spec(n):
    letters = "HWD"[:n] if n <= 3 else None
    return ("N" + letters + "C", letters + "IO", "N" + letters + "C")


def _flax_conv(x, kernel, bias, kernel_size, strides=1, padding="SAME", input_dilation=1, kernel_dilation=1,
               feature_group_count=1, **_):  # fmt: skip
    n = len(kernel_size)
    lead = x.shape[: x.ndim - n - 1]  # flax flattens the batch dims into one (adds one when there is none)
    x = x.reshape((-1, *x.shape[len(lead) :]))
    ints = lambda v: (v,) * n if isinstance(v, int) else tuple(v)  # noqa: E731
    dil = ints(kernel_dilation)
    if padding == "CIRCULAR":
        windows = [(k - 1) * d + 1 for k, d in zip(kernel_size, dil)]
        x = jnp.pad(x, [(0, 0)] + [((w - 1) // 2, w // 2) for w in windows] + [(0, 0)], mode="wrap")
        padding = "VALID"
    elif padding == "CAUSAL":
        x = jnp.pad(x, [(0, 0), (dil[0] * (kernel_size[0] - 1), 0), (0, 0)])
        padding = "VALID"
    y = jax.lax.conv_general_dilated(
        x, kernel, ints(strides), _pairs(padding, n), lhs_dilation=ints(input_dilation), rhs_dilation=dil,
        dimension_numbers=_spec(n), feature_group_count=feature_group_count,
    )  # fmt: skip
    y = y if bias is None else y + bias
    return y.reshape(lead + y.shape[1:])


def _flax_conv_transpose(x, kernel, bias, kernel_size, strides=1, padding="SAME", kernel_dilation=1,
                         transpose_kernel=False, **_):  # fmt: skip
    n = len(kernel_size)
    lead = x.shape[: x.ndim - n - 1]
    x = x.reshape((-1, *x.shape[len(lead) :]))
    ints = lambda v: (v,) * n if isinstance(v, int) else tuple(v)  # noqa: E731
    strides = ints(strides)
    y = jax.lax.conv_transpose(
        x, kernel, strides, "VALID" if padding == "CIRCULAR" else _pairs(padding, n),
        rhs_dilation=ints(kernel_dilation), dimension_numbers=_spec(n), transpose_kernel=transpose_kernel,
    )  # fmt: skip
    if padding == "CIRCULAR":
        periods = [d * s for d, s in zip(x.shape[1:-1], strides)]
        diffs = [-(yd - p) % (2 * p) for yd, p in zip(y.shape[1:-1], periods)]
        pads = [(d // 2, (d + 1) // 2) if transpose_kernel else ((d + 1) // 2, d // 2) for d in diffs]
        y = jnp.pad(y, [(0, 0)] + pads + [(0, 0)])
        for i in range(1, y.ndim - 1):
            y = y.reshape(y.shape[:i] + (-1, periods[i - 1]) + y.shape[i + 1 :]).sum(axis=i)
    y = y if bias is None else y + bias
    return y.reshape(lead + y.shape[1:])


@pytest.fixture(scope="module")
def oracle(built):
    _, p, _ = built

    @jax.jit
    def all_cases(p):
        out = {}
        for table, fn in ((CONV, _flax_conv), (TRANSPOSE, _flax_conv_transpose)):
            for name, (src, _, kernel, kw) in table.items():
                out[name] = fn(INPUTS[src], p[f"{name}/kernel"], p.get(f"{name}/bias"), kernel, **kw)
        same = lambda x, k: jnp.sum(_flax_conv(x, k, p["same/bias"], (3, 3)) ** 2)  # noqa: E731
        out["d_same"] = jax.grad(same, (0, 1))(IMG, p["same/kernel"])
        return out

    with jax.enable_x64(False):
        return jax.tree.map(np.asarray, all_cases(p))


@pytest.mark.parametrize("name", [*CONV, *TRANSPOSE])
def test_conv_layers_match_jax(built, oracle, name):
    got, _, _ = built
    assert got[name].shape == oracle[name].shape, name
    np.testing.assert_allclose(got[name], oracle[name], rtol=1e-4, atol=1e-4, err_msg=name)


def test_kernel_shapes_types_and_gradients(built, oracle):
    got, p, types = built
    assert p["same/kernel"].shape == (3, 3, 4, 5) and p["same/bias"].shape == (5,)
    assert p["grouped/kernel"].shape == (1, 2, 2, 6)
    assert p["t_kernel/kernel"].shape == (3, 3, 2, 3)  # transpose_kernel: (..., features, in_features)
    assert "valid_strided_dilated/bias" not in p
    assert types["same"] == "f32[batch,7,6,5]" and types["t_same"] == "f32[2,6,8,3]"
    assert 0.6 < p["same/kernel"].std() * np.sqrt(36) < 1.4  # lecun_normal: variance 1 / fan_in
    for mine, theirs in zip(got["d_same"], oracle["d_same"]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-3)


def test_conv_errors():
    with sg.Graph():
        x = sg.placeholder((2, 5, 5, 3), sg.float32, name="x")
        with pytest.raises(sg.GraphError, match="kernel_size as a tuple"):
            sg.nn.conv(x, 4, 3)
        with pytest.raises(sg.GraphError, match="feature_group_count"):
            sg.nn.conv(x, 4, (3, 3), feature_group_count=2)
        with pytest.raises(sg.GraphError, match="CAUSAL padding is for 1-d"):
            sg.nn.conv(x, 4, (3, 3), padding="CAUSAL")
        with pytest.raises(sg.GraphError, match="spatial dims"):
            sg.nn.conv(x, 4, (3, 3, 3, 3))
