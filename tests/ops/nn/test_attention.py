"""sg.nn.dot_product_attention against jax.nn.dot_product_attention (values and gradients; GQA, bias,
masks, causal, windows, lengths, residual); multi_head_attention and embedding from read-back Variables."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg

jax.config.update("jax_platforms", "cpu")

RNG = np.random.default_rng(6)
B, T, S, N, K, H = 2, 5, 7, 4, 2, 8
Q = RNG.normal(size=(B, T, N, H)).astype(np.float32)
KEY = RNG.normal(size=(B, S, N, H)).astype(np.float32)
VAL = RNG.normal(size=(B, S, N, H)).astype(np.float32)
KG = KEY[:, :, :K].copy()  # grouped query attention: 2 key/value heads for 4 query heads
VG = VAL[:, :, :K].copy()
BIAS = RNG.normal(size=(B, N, T, S)).astype(np.float32)
BIAS1 = RNG.normal(size=(1, 1, T, S)).astype(np.float32)
MASK = RNG.random((B, 1, T, S)) < 0.7
MASK[..., 0] = True
QLEN = np.array([3, 5], np.int32)
KVLEN = np.array([7, 4], np.int32)
W = RNG.normal(size=(B, T, N, H)).astype(np.float32)
QB, KB = Q.astype(jnp.bfloat16), KG.astype(jnp.bfloat16)  # bfloat16: logits and softmax in float32


def _cases(attn, q, k, v, kg, vg, bias, bias1, mask, qlen, kvlen):
    return {
        "plain": attn(q, k, v),
        "causal_self": attn(q, q, q, is_causal=True),
        "gqa": attn(q, kg, vg),
        "gqa_bias_mask": attn(q, kg, vg, bias, mask, is_causal=True),
        "bias1_scale_window": attn(q, k, v, bias1, scale=0.3, local_window_size=(1, 2)),
        "lengths": attn(q, kg, vg, query_seq_lengths=qlen, key_value_seq_lengths=kvlen),
        "three_d_window": attn(q[0], k[0], v[0], local_window_size=1),
        "residual": attn(q, kg, vg, mask=mask, return_residual=True),
    }


def _grad_case(attn):
    def loss(q, kg, vg, bias):
        return (attn(q, kg, vg, bias, is_causal=True) * W).sum()

    return loss


@pytest.fixture(scope="module")
def results():
    g = sg.Graph()
    with g:
        q = sg.placeholder(("batch", "seq", N, H), sg.float32, name="q")
        names = ("k", "v", "kg", "vg", "bias", "bias1", "mask", "qlen", "kvlen")
        arrays = (KEY, VAL, KG, VG, BIAS, BIAS1, MASK, QLEN, KVLEN)
        phs = [sg.placeholder(a.shape, sg.dtype(a.dtype), name=n) for n, a in zip(names, arrays)]
        out = _cases(sg.nn.dot_product_attention, sg.constant(Q), *phs)
        out["symbolic"] = sg.nn.dot_product_attention(q, q, q, is_causal=True)
        out["bf16"] = sg.nn.dot_product_attention(
            sg.constant(QB), sg.constant(KB), sg.constant(KB), is_causal=True
        )
        qc = sg.constant(Q)
        loss = _grad_case(sg.nn.dot_product_attention)(qc, phs[2], phs[3], phs[4])
        out["grads"] = sg.gradients(loss, [qc, phs[2], phs[3], phs[4]])
        symbolic_type = out["symbolic"].type
    with sg.Session(g) as sess:
        got = sess.run(out, {q: Q, **dict(zip(phs, arrays))})
    return got, symbolic_type


@pytest.fixture(scope="module")
def oracle():
    def all_cases(*arrays):
        out = _cases(jax.nn.dot_product_attention, Q, *arrays)
        out["symbolic"] = jax.nn.dot_product_attention(Q, Q, Q, is_causal=True)
        out["bf16"] = jax.nn.dot_product_attention(QB, KB, KB, is_causal=True)
        out["grads"] = jax.grad(_grad_case(jax.nn.dot_product_attention), (0, 1, 2, 3))(Q, *arrays[2:5])
        return out

    with jax.enable_x64(False):
        out = jax.jit(all_cases)(KEY, VAL, KG, VG, BIAS, BIAS1, MASK, QLEN, KVLEN)
        return jax.tree.map(np.asarray, out)


CASES = ["plain", "causal_self", "gqa", "gqa_bias_mask", "bias1_scale_window", "lengths", "three_d_window",
         "symbolic"]  # fmt: skip


@pytest.mark.parametrize("name", CASES)
def test_attention_matches_jax(results, oracle, name):
    got, _ = results
    assert got[name].shape == oracle[name].shape
    np.testing.assert_allclose(got[name], oracle[name], rtol=1e-5, atol=2e-6, err_msg=name)


def test_residual_and_gradients_match_jax(results, oracle):
    got, symbolic_type = results
    assert str(symbolic_type) == "f32[batch,seq,4,8]"
    assert got["bf16"].dtype == jnp.bfloat16
    np.testing.assert_allclose(got["bf16"].astype(np.float32), oracle["bf16"].astype(np.float32), atol=1e-2)
    for mine, theirs in zip(got["residual"], oracle["residual"]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=2e-6)
    for mine, theirs, what in zip(got["grads"], oracle["grads"], ("q", "k", "v", "bias")):
        np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-5, err_msg=what)


def test_attention_errors():
    with sg.Graph():
        q = sg.placeholder((1, 2, 3, 4), sg.float32, name="q")
        k = sg.placeholder((1, 2, 2, 4), sg.float32, name="k")
        with pytest.raises(sg.GraphError, match="multiple of key/value heads"):
            sg.nn.dot_product_attention(q, k, k)
        with pytest.raises(sg.GraphError, match="one floating dtype"):
            sg.nn.dot_product_attention(q, q, q.astype(sg.float16))


# -- layers -------------------------------------------------------------------------------------
X = RNG.normal(size=(B, T, 12)).astype(np.float32)
CTX = RNG.normal(size=(B, S, 6)).astype(np.float32)
IDS = np.array([[0, 3, 3, 9], [9, 1, -1, 5]], np.int32)  # -1: the last row, as jnp.take
WE = RNG.normal(size=(2, 4, 16)).astype(np.float32)


FAN_SHAPES = []


def _drawn(key, shape, dtype=sg.float32):
    """Numpy draws, noting the shape asked for."""
    FAN_SHAPES.append(tuple(shape))
    return sg.constant(RNG.normal(size=shape).astype(np.float32))


_drawn.uses_key = False


@pytest.fixture(scope="module")
def layers():
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", T, 12), sg.float32, name="x")
        ctx = sg.placeholder((B, S, 6), sg.float32, name="ctx")
        ids = sg.placeholder(IDS.shape, sg.int32, name="ids")
        out = {  # numpy draws for the kernels: a random init program is costly to compile
            "self": sg.nn.multi_head_attention(
                x, num_heads=3, is_causal=True, kernel_init=_drawn, bias_init=_drawn, name="attn"
            ),
            "cross": sg.nn.multi_head_attention(
                sg.constant(X),
                ctx,
                2,
                qkv_features=8,
                out_features=5,
                mask=sg.constant(MASK),
                use_bias=False,
                kernel_init=_drawn,
                name="cross",
            ),
            "embed": sg.nn.embedding(ids, 10, 16, name="emb"),
            "big": sg.nn.embedding(ids, 1000, 64, name="big"),
        }
        out["d_table"] = sg.gradients((out["embed"] * WE).sum(), [g.tensor("emb/embedding")])[0]
    with sg.Session(g, seed=3) as sess:
        got = sess.run(out, {x: X, ctx: CTX, ids: IDS})
        params = {v.var_name: sess.get(v) for v in g.variables}
    return got, params


@jax.jit
def _mha_both(p):
    return _mha(p, "attn", X, X, is_causal=True), _mha(p, "cross", X, CTX, mask=MASK, use_bias=False)


def _mha(p, name, xq, xkv, mask=None, is_causal=False, use_bias=True):
    def proj(x, which):
        y = jnp.einsum("btf,fnh->btnh", x, p[f"{name}/{which}/kernel"])
        return y + p[f"{name}/{which}/bias"] if use_bias else y

    enc = jax.nn.dot_product_attention(proj(xq, "query"), proj(xkv, "key"), proj(xkv, "value"),
                                       mask=mask, is_causal=is_causal)  # fmt: skip
    y = jnp.einsum("btnh,nho->bto", enc, p[f"{name}/out/kernel"])
    return y + p[f"{name}/out/bias"] if use_bias else y


def test_multi_head_attention_matches_flax_math(layers):
    got, p = layers
    assert p["attn/query/kernel"].shape == (12, 3, 4) and p["attn/out/kernel"].shape == (3, 4, 12)
    assert p["cross/key/kernel"].shape == (6, 2, 4) and p["cross/out/kernel"].shape == (2, 4, 5)
    assert "cross/out/bias" not in p
    with jax.enable_x64(False):
        want_self, want_cross = _mha_both({k: v for k, v in p.items() if k.startswith(("attn/", "cross/"))})
    np.testing.assert_allclose(got["self"], want_self, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got["cross"], want_cross, rtol=1e-4, atol=1e-5)
    # kernel initializers see flax's 2-d (fan_in, fan_out) shapes; biases their own
    assert FAN_SHAPES == [(12, 12), (3, 4)] * 3 + [(12, 12), (12,)] + [(12, 8), (6, 8), (6, 8), (8, 5)]


def test_multi_head_attention_kernels_default_to_lecun_normal():
    g = sg.Graph()
    with g:
        sg.nn.multi_head_attention(sg.placeholder((2, 3, 4), sg.float32, name="x"), num_heads=2, name="a")
    inits = {c.name: c.fn for c in g.calls if c.name.endswith("kernel/init")}
    assert inits == {f"a/{k}/kernel/init": "lecun_normal" for k in ("query", "key", "value", "out")}


def test_embedding_looks_up_rows_and_scatters_gradients(layers):
    got, p = layers
    table = p["emb/embedding"]
    assert table.shape == (10, 16)
    np.testing.assert_array_equal(got["embed"], table[IDS])
    want = np.zeros_like(table)
    np.add.at(want, IDS, WE)
    np.testing.assert_allclose(got["d_table"], want, rtol=1e-6, atol=1e-6)
    assert abs(p["big/embedding"].std() * np.sqrt(64) - 1) < 0.05  # flax: variance 1 / features
