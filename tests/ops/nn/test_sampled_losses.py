"""sg.nn.nce_loss and sg.nn.sampled_softmax_loss (TF1's): the losses recomputed in numpy from the
sampled candidates the run used, with TF1's formulas, and their gradients against jax."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

V, DIM, B, T, S = 30, 4, 5, 2, 10
FLT_MAX = float(np.finfo(np.float32).max)


def _logits(xp, w, b, labels, h, sampled, true_ec, sampled_ec, remove_hits):
    """TF1's sampled logits and labels, in numpy (xp=np) or jax.numpy (xp=jnp)."""
    num_true = labels.shape[1]
    true_logits = (h[:, None, :] * w[labels]).sum(-1) + b[labels]
    sampled_logits = h @ w[sampled].T + b[sampled]
    if remove_hits:
        hits = (labels[:, :, None] == sampled[None, None, :]).any(axis=1)
        sampled_logits = sampled_logits + xp.where(hits, -FLT_MAX, 0.0)
    true_logits = true_logits - xp.log(true_ec)
    sampled_logits = sampled_logits - xp.log(sampled_ec)
    logits = xp.concatenate([true_logits, sampled_logits], axis=1)
    targets = xp.concatenate(
        [xp.full(true_logits.shape, 1.0 / num_true), xp.zeros(sampled_logits.shape)], axis=1
    )
    return logits, targets


def _nce(xp, *args):
    x, z = _logits(xp, *args)
    return (xp.maximum(x, 0) - x * z + xp.log1p(xp.exp(-xp.abs(x)))).sum(axis=1)


def _sampled_softmax(xp, *args):
    x, z = _logits(xp, *args)
    shifted = x - x.max(axis=1, keepdims=True)
    log_p = shifted - xp.log(xp.exp(shifted).sum(axis=1, keepdims=True))
    return -(z * log_p).sum(axis=1)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return {
        "w": rng.normal(size=(V, DIM)).astype(np.float32),
        "b": rng.normal(size=V).astype(np.float32) * 0.1,
        "labels": np.array([[0, 3], [1, 1], [2, 17], [5, 0], [29, 4]], np.int64),
        "h": rng.normal(size=(B, DIM)).astype(np.float32),
    }


def test_losses_and_gradients_match_tf1s_formulas_on_the_run_candidates(data):
    g = sg.Graph()
    with g:
        w = sg.Variable(initial_value=data["w"], name="nce_w")
        b = sg.Variable(initial_value=data["b"], name="nce_b")
        labels = sg.placeholder((None, T), sg.int64, name="labels")
        h = sg.placeholder((None, DIM), name="h")
        sampled = sg.random.log_uniform_candidate_sampler(labels, T, S, True, V, key=sg.random.key(7))
        losses = {
            ("nce", False): sg.nn.nce_loss(w, b, labels, h, S, V, num_true=T, sampled_values=sampled),
            ("nce", True): sg.nn.nce_loss(
                w, b, labels, h, S, V, num_true=T, sampled_values=sampled, remove_accidental_hits=True
            ),
            ("softmax", True): sg.nn.sampled_softmax_loss(w, b, labels, h, S, V, num_true=T, sampled_values=sampled),
            ("softmax", False): sg.nn.sampled_softmax_loss(
                weights=w, biases=b, labels=labels, inputs=h, num_sampled=S, num_classes=V, num_true=T,
                sampled_values=sampled, remove_accidental_hits=False,
            ),
        }  # fmt: skip
        r = np.arange(1.0, B + 1, dtype=np.float32)
        grads = {k: sg.gradients(snp.sum(loss * r), [w, b, h]) for k, loss in losses.items()}
    with sg.Session(g) as sess:
        got, got_grads, candidates = sess.run(
            [losses, grads, list(sampled)], {labels: data["labels"], h: data["h"]}
        )
    cand, true_ec, sampled_ec = candidates
    hits = (data["labels"][:, :, None] == cand[None, None, :]).any(axis=1)
    assert hits.any(), "the key should give accidental hits for this test to mean something"
    args = (data["w"], data["b"], data["labels"], data["h"], cand, true_ec, sampled_ec)
    for (kind, remove), value in got.items():
        fn = _nce if kind == "nce" else _sampled_softmax
        want = fn(np, *(a.astype(np.float64) if a.dtype == np.float32 else a for a in args), remove)
        assert value.shape == (B,)
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-5, err_msg=f"{kind} {remove}")

        def total(w_, b_, h_, fn=fn, remove=remove):
            return jnp.sum(fn(jnp, w_, b_, jnp.asarray(args[2]), h_, *map(jnp.asarray, args[4:]), remove) * r)

        want_grads = jax.grad(total, (0, 1, 2))(*map(jnp.asarray, (data["w"], data["b"], data["h"])))
        for name, have, want in zip("wbh", got_grads[(kind, remove)], want_grads):
            np.testing.assert_allclose(have, want, rtol=1e-4, atol=1e-5, err_msg=f"d{name} {kind} {remove}")


def test_sharded_weights_give_the_same_losses(data):
    g = sg.Graph()
    with g:
        labels = sg.constant(data["labels"])
        h = sg.constant(data["h"])
        sampled = sg.random.log_uniform_candidate_sampler(labels, T, S, True, V, key=sg.random.key(1))
        whole = sg.nn.sampled_softmax_loss(
            data["w"], data["b"], labels, h, S, V, num_true=T, sampled_values=sampled
        )
        mod = sg.nn.sampled_softmax_loss(
            [data["w"][k::3] for k in range(3)], [data["b"][k::3] for k in range(3)], labels, h, S, V,
            num_true=T, sampled_values=sampled,
        )  # fmt: skip
        div = sg.nn.nce_loss(
            np.split(data["w"], [10, 20]), np.split(data["b"], [10, 20]), labels, h, S, V, num_true=T,
            sampled_values=sampled, partition_strategy="div",
        )  # fmt: skip
        plain_nce = sg.nn.nce_loss(data["w"], data["b"], labels, h, S, V, num_true=T, sampled_values=sampled)
    with sg.Session(g) as sess:
        got = sess.run([whole, mod, div, plain_nce])
    np.testing.assert_allclose(got[1], got[0], rtol=1e-6)
    np.testing.assert_allclose(got[2], got[3], rtol=1e-6)


def test_default_sampling_draws_from_the_log_uniform_sampler_each_run(data):
    g = sg.Graph()
    with g:
        labels = sg.placeholder((None, 1), sg.int64, name="labels")
        h = sg.placeholder((None, DIM), name="h")
        loss = sg.nn.nce_loss(data["w"], data["b"], labels, h, S, V)
        flat_labels = sg.placeholder((None,), sg.int64, name="flat")
        softmax = sg.nn.sampled_softmax_loss(data["w"], data["b"], flat_labels, h, S, V, seed=3)
    calls = {c.fn: c for c in g.calls}
    sampler = [c for c in g.calls if c.fn == "log_uniform_candidate_sampler"]
    assert calls["nce_loss"].name == "nce_loss" and len(sampler) == 2
    feeds = {labels: data["labels"][:, :1], h: data["h"], flat_labels: data["labels"][:, 0]}
    with sg.Session(g) as sess:
        first = sess.run([loss, softmax, list(sampler[0].outputs), list(sampler[1].outputs)], feeds)
        second = sess.run(list(sampler[0].outputs), feeds)
    got_nce, got_softmax, (cand, true_ec, sampled_ec), (cand2, true_ec2, sampled_ec2) = first
    assert not np.array_equal(cand, second[0])  # fresh candidates every run
    assert len(set(cand.tolist())) == S  # unique=True, as TF1's default
    args = (data["w"], data["b"], data["labels"][:, :1], data["h"])
    np.testing.assert_allclose(
        got_nce, _nce(np, *args, cand, true_ec, sampled_ec, False), rtol=1e-5, atol=1e-5
    )
    want = _sampled_softmax(np, *args, cand2, true_ec2, sampled_ec2, True)
    np.testing.assert_allclose(got_softmax, want, rtol=1e-5, atol=1e-5)


def test_word2vec_training_step_with_none_batches():
    """The shape of TF1's word2vec tutorial: ids and labels of an unknown batch size, an embedding
    lookup and nce_loss, trained by SGD."""
    rng = np.random.default_rng(2)
    g = sg.Graph()
    with g:
        train_inputs = sg.placeholder((None,), sg.int32, name="train_inputs")
        train_labels = sg.placeholder((None, 1), sg.int64, name="train_labels")
        embeddings = sg.Variable(
            initial_value=rng.uniform(-1, 1, (V, DIM)).astype(np.float32), name="embeddings"
        )
        nce_w = sg.Variable(initial_value=rng.normal(0, 0.5, (V, DIM)).astype(np.float32), name="nce_w")
        nce_b = sg.Variable(initial_value=np.zeros(V, np.float32), name="nce_b")
        embed = sg.nn.embedding_lookup(embeddings, train_inputs)
        loss = snp.mean(sg.nn.nce_loss(weights=nce_w, biases=nce_b, labels=train_labels, inputs=embed,
                                       num_sampled=6, num_classes=V))  # fmt: skip
        train = sg.optim.sgd(0.5).minimize(loss)
    ids = rng.integers(0, V, 16).astype(np.int32)
    feeds = {train_inputs: ids, train_labels: ((ids + 1) % V)[:, None].astype(np.int64)}
    with sg.Session(g) as sess:
        before = sess.get(embeddings)
        values = [sess.run([loss, train], feed_dict=feeds)[0] for _ in range(3)]
        after = sess.get(embeddings)
    assert np.all(np.isfinite(values))
    touched = np.unique(ids)
    assert not np.allclose(after[touched], before[touched])
    untouched = np.setdiff1d(np.arange(V), touched)
    np.testing.assert_array_equal(after[untouched], before[untouched])  # the lookup's gradient is sparse


@pytest.mark.parametrize(
    "call, says",
    [
        (lambda w, b, lab, h: sg.nn.nce_loss(w, b, lab, h, 4, V, num_true=2), "num_true=2"),
        (lambda w, b, lab, h: sg.nn.nce_loss(w, b, lab.astype(sg.float32), h, 4, V), "integer labels"),
        (lambda w, b, lab, h: sg.nn.nce_loss(w, b, lab, h[:, 0], 4, V), "shape (batch, dim)"),
        (
            lambda w, b, lab, h: sg.nn.sampled_softmax_loss(w, b, lab, h, 4, V, sampled_values=(1, 2)),
            "sampled_values",
        ),
    ],
)
def test_argument_errors_name_the_users_line(call, says):
    g = sg.Graph()
    with g:
        w, b = sg.placeholder((V, DIM), name="w"), sg.placeholder((V,), name="b")
        labels, h = sg.placeholder((3, 1), sg.int64, name="labels"), sg.placeholder((3, DIM), name="h")
        with pytest.raises(sg.GraphError) as info:
            call(w, b, labels, h)
    msg = str(info.value)
    assert f"test_sampled_losses.py:{call.__code__.co_firstlineno}" in msg and says in msg, msg
