"""TF1's functional spellings in sg.nn: conv2d, embedding_lookup, the keyword-only cross entropies and
dropout with a keep_prob placeholder; checked against jax and numpy."""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp


def _here(offset: int = 1) -> str:
    return f"test_tf1_functions.py:{sys._getframe(1).f_lineno + offset}"


# -- conv2d ------------------------------------------------------------------------------
CONV_CASES = [
    # (input shape, filter shape, strides, padding, data_format, dilations)
    ((2, 7, 6, 3), (3, 3, 3, 4), [1, 1, 1, 1], "SAME", "NHWC", 1),
    ((2, 7, 6, 3), (3, 2, 3, 4), 2, "VALID", "NHWC", 1),
    ((1, 8, 8, 2), (2, 2, 2, 3), [1, 2, 3, 1], "SAME", "NHWC", [1, 1, 1, 1]),
    ((1, 9, 9, 2), (3, 3, 2, 2), 1, "SAME", "NHWC", 2),
    ((2, 5, 6, 3), (3, 3, 3, 2), [2, 1], [[0, 0], [1, 2], [0, 1], [0, 0]], "NHWC", 1),
    ((2, 3, 6, 5), (3, 3, 3, 4), [1, 1, 2, 1], "SAME", "NCHW", [1, 1, 1, 2]),
    ((1, 6, 6, 4), (3, 3, 2, 6), 1, "VALID", "NHWC", 1),  # grouped: 4 channels, in-channels 2
]


def _jax_conv(x, w, strides, padding, data_format, dilations):
    h, wd = data_format.index("H"), data_format.index("W")

    def pair(v):
        v = [v] * 2 if isinstance(v, int) else list(v)
        return tuple(v) if len(v) == 2 else (v[h], v[wd])

    if not isinstance(padding, str):
        padding = [tuple(padding[h]), tuple(padding[wd])]
    groups = x.shape[data_format.index("C")] // w.shape[2]
    return jax.lax.conv_general_dilated(
        x, w, pair(strides), padding, rhs_dilation=pair(dilations),
        dimension_numbers=(data_format, "HWIO", data_format), feature_group_count=groups,
        precision=jax.lax.Precision.HIGHEST,
    )  # fmt: skip


def test_conv2d_matches_jax_values_and_gradients():
    rng = np.random.default_rng(0)
    data = [
        (rng.normal(size=xs).astype(np.float32), rng.normal(size=ws).astype(np.float32))
        for xs, ws, *_ in CONV_CASES
    ]
    g = sg.Graph()
    fetches = []
    with g:
        for (x, w), (_, _, strides, padding, fmt, dil) in zip(data, CONV_CASES):
            xt, wt = sg.constant(x), sg.constant(w)
            y = sg.nn.conv2d(xt, wt, strides, padding, data_format=fmt, dilations=dil)
            r = sg.constant(np.cos(np.arange(np.prod(y.shape), dtype=np.float32)).reshape(y.shape))
            fetches.append((y, *sg.gradients(snp.sum(y * r), [xt, wt])))
        named = sg.nn.conv2d(
            sg.constant(data[0][0]), filters=sg.constant(data[0][1]), strides=1, padding="SAME"
        )
    with sg.Session(g) as sess:
        got, got_named = sess.run([fetches, named])
    for (x, w), case, (y, gx, gw) in zip(data, CONV_CASES, got):
        strides, padding, fmt, dil = case[2:]
        want = _jax_conv(x, w, strides, padding, fmt, dil)
        np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4, err_msg=str(case))
        r = np.cos(np.arange(want.size, dtype=np.float32)).reshape(want.shape)

        def loss(a, b, case=case, r=r):
            return jnp.sum(_jax_conv(a, b, *case[2:]) * r)

        jgx, jgw = jax.grad(loss, (0, 1))(x, w)
        np.testing.assert_allclose(gx, jgx, rtol=1e-4, atol=1e-3, err_msg=str(case))
        np.testing.assert_allclose(gw, jgw, rtol=1e-4, atol=1e-3, err_msg=str(case))
    np.testing.assert_allclose(got_named, got[0][0], rtol=1e-6)


def test_conv2d_takes_a_none_batch_placeholder_and_a_variable_filter():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 5, 5, 1)).astype(np.float32)
    w0 = rng.normal(size=(5, 5, 1, 2)).astype(np.float32) * 0.1
    g = sg.Graph()
    with g:
        xs = sg.placeholder((None, 5, 5, 1), name="x")
        w = sg.Variable(initial_value=w0, name="W_conv1")
        b = sg.Variable(initial_value=np.full(2, 0.1, np.float32), name="b_conv1")
        h = sg.nn.relu(sg.nn.conv2d(xs, w, strides=[1, 1, 1, 1], padding="SAME") + b)
    with sg.Session(g) as sess:
        got = sess.run(h, {xs: x})
    want = np.maximum(np.asarray(_jax_conv(x, w0, 1, "SAME", "NHWC", 1)) + 0.1, 0)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "call, says",
    [
        (lambda x, w: sg.nn.conv2d(x, w, [1, 2, 2, 2], "SAME"), "must be 1 at the batch and channel dims"),
        (lambda x, w: sg.nn.conv2d(x, w, 1, "FULL"), "'SAME', 'VALID' or explicit pairs"),
        (lambda x, w: sg.nn.conv2d(x, w, 1, [[1, 1], [0, 0], [0, 0], [0, 0]]), "(0, 0) at the batch"),
        (lambda x, w: sg.nn.conv2d(x, w, 1, "SAME", data_format="NCDHW"), "data_format 'NHWC' or 'NCHW'"),
        (lambda x, w: sg.nn.conv2d(x, w[:, :, :2], 1, "SAME"), "multiple of the filter's in-channels 2"),
        (lambda x, w: sg.nn.conv2d(x, w, [1, 2, 3], "SAME"), "1, 2 or 4 ints"),
        (lambda x, w: sg.nn.conv2d(x, w, padding="SAME"), "wants strides and padding"),
        (lambda x, w: sg.nn.conv2d(x, filter=w, filters=w, strides=1, padding="SAME"), "exactly once"),
    ],
)
def test_conv2d_argument_errors_name_the_users_line(call, says):
    g = sg.Graph()
    with g:
        x = sg.placeholder((1, 4, 4, 3), name="x")
        w = sg.placeholder((2, 2, 3, 2), name="w")
        with pytest.raises(sg.GraphError) as info:
            call(x, w)
    msg = str(info.value)
    assert f"test_tf1_functions.py:{call.__code__.co_firstlineno}" in msg and says in msg, msg


# -- embedding_lookup ----------------------------------------------------------------------
def _shards(table: np.ndarray, n: int, strategy: str) -> list[np.ndarray]:
    """TF1's split of a table's rows into n shards."""
    if strategy == "mod":
        return [table[k::n] for k in range(n)]
    sizes = [len(table) // n + (k < len(table) % n) for k in range(n)]
    return np.split(table, np.cumsum(sizes)[:-1])


def test_embedding_lookup_of_a_table_and_of_shards_matches_numpy_with_gradients():
    rng = np.random.default_rng(2)
    table = rng.normal(size=(11, 4)).astype(np.float32)
    ids = np.array([[0, 10, 3], [3, 7, 5]], np.int64)
    r = rng.normal(size=(2, 3, 4)).astype(np.float32)
    g = sg.Graph()
    with g:
        i = sg.placeholder((None, 3), sg.int64, name="ids")
        t = sg.Variable(initial_value=table, name="table")
        plain = sg.nn.embedding_lookup(t, i)
        (grad,) = sg.gradients(snp.sum(plain * r), [t])
        sharded = {
            (n, s): sg.nn.embedding_lookup([sg.constant(p) for p in _shards(table, n, s)], i, partition_strategy=s)
            for n in (2, 3) for s in ("mod", "div")
        }  # fmt: skip
        clipped = sg.nn.embedding_lookup(t, i, max_norm=1.5)
        int32_ids = sg.nn.embedding_lookup(t, sg.constant(ids.astype(np.int32)))
    with sg.Session(g) as sess:
        got, got_grad, got_sharded, got_clipped, got32 = sess.run(
            [plain, grad, sharded, clipped, int32_ids], {i: ids}
        )
    np.testing.assert_array_equal(got, table[ids])
    np.testing.assert_array_equal(got32, table[ids])
    want_grad = np.zeros_like(table)
    np.add.at(want_grad, ids.reshape(-1), r.reshape(-1, 4))
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-6)
    for key, value in got_sharded.items():
        np.testing.assert_array_equal(value, table[ids], err_msg=str(key))
    norms = np.linalg.norm(table[ids], axis=-1, keepdims=True)
    np.testing.assert_allclose(got_clipped, table[ids] * np.minimum(1, 1.5 / norms), rtol=1e-6)


# -- cross entropies --------------------------------------------------------------------------
def _log_softmax(z, axis=-1):
    z = z - z.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def test_keyword_cross_entropies_match_numpy_and_jax_gradients():
    rng = np.random.default_rng(3)
    logits = rng.normal(size=(4, 5)).astype(np.float32) * 3
    logits[0, 0] = 60.0  # large logits stay finite
    labels = rng.dirichlet(np.ones(5), size=4).astype(np.float32)
    ints = np.array([0, 4, 2, 2], np.int32)
    g = sg.Graph()
    with g:
        z = sg.placeholder((None, 5), name="logits")
        y = sg.placeholder((None, 5), name="labels")  # another None batch dim: the two unify
        k = sg.placeholder((None,), sg.int32, name="k")
        v1 = sg.nn.softmax_cross_entropy_with_logits(labels=y, logits=z)
        v2 = sg.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=z)
        on_axis0 = sg.nn.softmax_cross_entropy_with_logits(
            labels=snp.transpose(y), logits=snp.transpose(z), axis=0
        )
        old_dim = sg.nn.softmax_cross_entropy_with_logits(
            labels=snp.transpose(y), logits=snp.transpose(z), dim=0
        )
        sparse = sg.nn.sparse_softmax_cross_entropy_with_logits(labels=k, logits=z)
        sigmoid = sg.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=z)
        grads_v1 = sg.gradients(snp.sum(v1 * snp.arange(4.0)), [z, y])
        grads_v2 = sg.gradients(snp.sum(v2 * snp.arange(4.0)), [z, y])
    with sg.Session(g) as sess:
        got = sess.run(
            [v1, v2, on_axis0, old_dim, sparse, sigmoid, grads_v1, grads_v2], {z: logits, y: labels, k: ints}
        )
    got_v1, got_v2, got_axis0, got_dim, got_sparse, got_sigmoid, (gz1, gy1), (gz2, gy2) = got
    want = -(labels * _log_softmax(logits.astype(np.float64))).sum(-1)
    for value in (got_v1, got_v2, got_axis0, got_dim):
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        got_sparse, -_log_softmax(logits.astype(np.float64))[np.arange(4), ints], rtol=1e-5, atol=1e-6
    )
    x = logits.astype(np.float64)
    want_sigmoid = np.maximum(x, 0) - x * labels + np.log1p(np.exp(-np.abs(x)))
    np.testing.assert_allclose(got_sigmoid, want_sigmoid, rtol=1e-5, atol=1e-6)

    def jax_loss(zz, yy):
        return jnp.sum(-jnp.sum(yy * jax.nn.log_softmax(zz), -1) * jnp.arange(4.0))

    jz, jy = jax.grad(jax_loss, (0, 1))(logits, labels)
    np.testing.assert_allclose(gz1, jz, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gz2, jz, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(gy1, np.zeros_like(labels))  # v1: no gradient into the labels
    np.testing.assert_allclose(gy2, jy, rtol=1e-5, atol=1e-5)


def test_cross_entropies_refuse_positional_arguments():
    g = sg.Graph()
    with g:
        z = sg.placeholder((2, 3), name="z")
        with pytest.raises(sg.GraphError) as info:
            sg.nn.softmax_cross_entropy_with_logits(z, z)
        where = _here(-1)
        with pytest.raises(sg.GraphError, match="wants both labels= and logits="):
            sg.nn.sigmoid_cross_entropy_with_logits(logits=z)
    assert str(info.value).startswith(where) and "keywords only" in str(info.value)


# -- dropout with a keep_prob placeholder ---------------------------------------------------
def test_dropout_with_a_keep_prob_placeholder_as_tf1_programs_write_it():
    x = np.linspace(1.0, 2.0, 20000, dtype=np.float32)
    g = sg.Graph()
    with g:
        xs = sg.placeholder((None,), name="x")
        keep_prob = sg.placeholder((), sg.float32, name="keep_prob")
        by_rate = sg.nn.dropout(xs, rate=1 - keep_prob, training=True)
        by_keep = sg.nn.dropout(xs, keep_prob=keep_prob, training=True)
        positional = sg.nn.dropout(xs, 1.0 - keep_prob, training=True)
        (grad,) = sg.gradients(snp.sum(by_rate), [xs])
        shaped = sg.nn.dropout(snp.ones((100, 200)), keep_prob=0.5, noise_shape=(100, 1), training=True)
    with sg.Session(g) as sess:
        kept_all = sess.run([by_rate, by_keep, positional], {xs: x, keep_prob: 1.0})
        halves, got_grad, got_shaped = sess.run(
            [[by_rate, by_keep, positional], grad, shaped], {xs: x, keep_prob: 0.5}
        )
        quarter = sess.run(by_keep, {xs: x, keep_prob: 0.25})
    for out in kept_all:
        np.testing.assert_array_equal(out, x)
    for out in halves:
        kept = out != 0
        np.testing.assert_allclose(out[kept], 2 * x[kept], rtol=1e-6)
        assert abs(kept.mean() - 0.5) < 0.02  # 20000 draws: 7 standard deviations
    kept = quarter != 0
    np.testing.assert_allclose(quarter[kept], 4 * x[kept], rtol=1e-6)
    assert abs(kept.mean() - 0.25) < 0.02
    np.testing.assert_allclose(got_grad, np.where(halves[0] != 0, 2.0, 0.0))  # d/dx of the kept x / keep_prob
    rows = got_shaped != 0
    assert np.all(rows.all(axis=1) | ~rows.any(axis=1))  # one mask entry per row (noise_shape)


@pytest.mark.parametrize(
    "call, says",
    [
        (lambda x, p: sg.nn.dropout(x, rate=0.5, keep_prob=0.5), "both rate and keep_prob"),
        (lambda x, p: sg.nn.dropout(x, keep_prob=0.0), "keep_prob in (0, 1]"),
        (lambda x, p: sg.nn.dropout(x, rate=snp.ones(2)), "float scalar Tensor"),
        (lambda x, p: sg.nn.dropout(x, keep_prob=p.astype(sg.int32)), "float scalar Tensor"),
        (lambda x, p: sg.nn.dropout(x, 0.5, noise_shape=(3,)), "noise_shape"),
    ],
)
def test_dropout_rate_errors_name_the_users_line(call, says):
    g = sg.Graph()
    with g:
        x = sg.placeholder((4,), name="x")
        p = sg.placeholder((), name="p")
        with pytest.raises(sg.GraphError) as info:
            call(x, p)
    msg = str(info.value)
    assert f"test_tf1_functions.py:{call.__code__.co_firstlineno}" in msg and says in msg, msg


# -- pools with TF1's ksize ---------------------------------------------------------------------
def test_pools_take_tf1s_full_rank_ksize_and_strides():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 5, 6, 3)).astype(np.float32)
    g = sg.Graph()
    with g:
        xs = sg.constant(x)
        tf1 = [
            sg.nn.max_pool(xs, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME"),
            sg.nn.max_pool(xs, [1, 3, 2, 1], [1, 1, 2, 1], "VALID"),
            sg.nn.avg_pool(xs, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID"),
        ]
        with pytest.raises(sg.GraphError) as info:
            sg.nn.max_pool(xs, ksize=[2, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
        where = _here(-1)
    with sg.Session(g) as sess:
        got = sess.run(tf1)
    full = [((1, 2, 2, 1), (1, 2, 2, 1), "SAME"), ((1, 3, 2, 1), (1, 1, 2, 1), "VALID")]
    for have, (k, s, pad) in zip(got, full):
        want = jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, k, s, pad)
        np.testing.assert_array_equal(have, want)
    want_avg = jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4
    np.testing.assert_allclose(got[2], want_avg, rtol=1e-6)
    assert str(info.value).startswith(where) and "ksize" in str(info.value)
