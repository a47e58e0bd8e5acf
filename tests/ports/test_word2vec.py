"""TF1's word2vec_basic tutorial, ported as a TF1 user writes it: skip-gram batches fed to ``None``
batch placeholders with ``feed_dict=``, ``sg.nn.embedding_lookup``, ``sg.nn.nce_loss`` drawing from
``sg.random.log_uniform_candidate_sampler``, plain gradient descent's ``minimize``, and the
normalized-embedding similarity. A tiny Zipfian corpus; the full softmax loss must fall. The
sampled pieces of one run (TF1's log-uniform probabilities and expected counts, the NCE and
sampled-softmax losses) are recomputed in numpy with TF1's formulas."""

from __future__ import annotations

import collections
import math

import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp

VOCABULARY, EMBEDDING, BATCH, NUM_SAMPLED, SKIP_WINDOW, NUM_SKIPS = 40, 8, 16, 6, 1, 2


def corpus(n=2000):
    """Word ids, most frequent first; word w is followed by w + 1 half the time."""
    rng = np.random.default_rng(0)
    data = [0]
    for _ in range(n):
        follow = rng.random() < 0.5
        data.append((data[-1] + 1) % VOCABULARY if follow else min(int(rng.zipf(1.3)) - 1, VOCABULARY - 1))
    return data


class Batches:
    """The tutorial's generate_batch: a sliding window, ``num_skips`` context words per center word."""

    def __init__(self, data):
        self.data, self.index, self.rng = data, 0, np.random.default_rng(1)

    def __call__(self, batch_size, num_skips, skip_window):
        batch = np.ndarray(shape=(batch_size,), dtype=np.int32)
        labels = np.ndarray(shape=(batch_size, 1), dtype=np.int32)
        span = 2 * skip_window + 1
        buffer = collections.deque(maxlen=span)
        for _ in range(span):
            buffer.append(self.data[self.index])
            self.index = (self.index + 1) % len(self.data)
        for i in range(batch_size // num_skips):
            targets = [w for w in range(span) if w != skip_window]
            for j, target in enumerate(self.rng.choice(targets, num_skips, replace=False)):
                batch[i * num_skips + j] = buffer[skip_window]
                labels[i * num_skips + j, 0] = buffer[target]
            buffer.append(self.data[self.index])
            self.index = (self.index + 1) % len(self.data)
        return batch, labels


def log_uniform(c):
    """TF1's log-uniform (Zipfian) class probabilities over [0, VOCABULARY)."""
    return (np.log(c + 2.0) - np.log(c + 1.0)) / np.log(VOCABULARY + 1.0)


def sampled_logits(embed, w, b, labels, sampled, true_ec, sampled_ec, remove_hits):
    true_logits = (embed * w[labels[:, 0]]).sum(-1, keepdims=True) + b[labels]
    logits = embed @ w[sampled].T + b[sampled]
    if remove_hits:
        logits = logits + np.where(labels == sampled[None, :], -np.finfo(np.float32).max, 0.0)
    x = np.concatenate([true_logits - np.log(true_ec), logits - np.log(sampled_ec)[None, :]], axis=1)
    z = np.concatenate([np.ones_like(true_logits), np.zeros_like(logits)], axis=1)
    return x.astype(np.float64), z


def test_word2vec_trains_and_its_sampled_pieces_follow_tf1s_formulas():
    batches = Batches(corpus())
    valid_examples = np.array([0, 1, 2, 3])
    graph = sg.Graph()
    with graph:
        train_inputs = sg.placeholder(sg.int32, shape=[None])
        train_labels = sg.placeholder(sg.int32, shape=[None, 1])
        valid_dataset = sg.constant(valid_examples, dtype=sg.int32)
        with sg.name_scope("embeddings"):
            embeddings = sg.Variable(
                sg.random.uniform(sg.random.PRNGKey(1), [VOCABULARY, EMBEDDING], minval=-1.0, maxval=1.0)
            )
            embed = sg.nn.embedding_lookup(embeddings, train_inputs)
        with sg.name_scope("weights"):
            nce_weights = sg.Variable(
                sg.nn.initializers.truncated_normal(1.0 / math.sqrt(EMBEDDING)), [VOCABULARY, EMBEDDING]
            )
        with sg.name_scope("biases"):
            nce_biases = sg.Variable(snp.zeros([VOCABULARY]))
        with sg.name_scope("loss"):
            loss = snp.mean(
                sg.nn.nce_loss(
                    weights=nce_weights,
                    biases=nce_biases,
                    labels=train_labels,
                    inputs=embed,
                    num_sampled=NUM_SAMPLED,
                    num_classes=VOCABULARY,
                )  # fmt: skip
            )
        with sg.name_scope("optimizer"):
            optimizer = sg.optim.sgd(1.0).minimize(loss)
        norm = snp.sqrt(snp.sum(snp.square(embeddings), 1, keepdims=True))
        normalized_embeddings = embeddings / norm
        valid_embeddings = sg.nn.embedding_lookup(normalized_embeddings, valid_dataset)
        similarity = snp.matmul(valid_embeddings, normalized_embeddings.T)
        # evaluation: the full softmax loss, and the sampled losses on candidates we can see
        full_loss = snp.mean(
            sg.nn.sparse_softmax_cross_entropy_with_logits(
                labels=train_labels[:, 0], logits=embed @ nce_weights.T + nce_biases
            )
        )
        sampled = sg.random.log_uniform_candidate_sampler(
            true_classes=train_labels, num_true=1, num_sampled=NUM_SAMPLED, unique=True, range_max=VOCABULARY
        )
        common = dict(weights=nce_weights, biases=nce_biases, labels=train_labels, inputs=embed,
                      num_sampled=NUM_SAMPLED, num_classes=VOCABULARY, sampled_values=sampled)  # fmt: skip
        checked = {
            "sampled": sampled,
            "nce": sg.nn.nce_loss(**common),
            "softmax": sg.nn.sampled_softmax_loss(**common),
            "embed": embed, "w": nce_weights, "b": nce_biases, "full": full_loss, "similarity": similarity,
        }  # fmt: skip

    eval_inputs, eval_labels = batches(64, NUM_SKIPS, SKIP_WINDOW)
    evaluate = {train_inputs: eval_inputs, train_labels: eval_labels}
    with sg.Session(graph, seed=0) as session:
        before = session.run(checked, feed_dict=evaluate)
        losses = []
        for _ in range(60):
            batch_inputs, batch_labels = batches(BATCH, NUM_SKIPS, SKIP_WINDOW)
            feed_dict = {train_inputs: batch_inputs, train_labels: batch_labels}
            _, loss_val = session.run([optimizer, loss], feed_dict=feed_dict)
            losses.append(loss_val)
        after = session.run(checked, feed_dict=evaluate)
        assert session.stats.compiles == 3  # initialization, the train step, the evaluation

    assert after["full"] < before["full"] - 0.2 and np.mean(losses[-10:]) < np.mean(losses[:10]) - 1.0
    assert after["similarity"].shape == (4, VOCABULARY)
    np.testing.assert_allclose(np.diag(after["similarity"][:, :4]), 1.0, rtol=1e-5)

    for run in (before, after):
        candidates, true_ec, sampled_ec = run["sampled"]
        assert candidates.dtype == np.int64 and len(set(candidates)) == NUM_SAMPLED  # unique=True
        assert ((0 <= candidates) & (candidates < VOCABULARY)).all()
        # unique sampling, TF1's expected counts: p * num_sampled when the first num_sampled draws were
        # distinct, else 1 - (1 - p)**tries for a class of probability p after `tries` draws
        p, p_true = log_uniform(candidates.astype(np.float64)), log_uniform(eval_labels.astype(np.float64))
        if np.allclose(sampled_ec, p * NUM_SAMPLED, rtol=1e-5):
            np.testing.assert_allclose(true_ec, p_true * NUM_SAMPLED, rtol=1e-5)
        else:
            tries = round(np.log1p(-sampled_ec[0].astype(np.float64)) / np.log1p(-p[0]))
            assert NUM_SAMPLED < tries < 1000
            np.testing.assert_allclose(sampled_ec, -np.expm1(tries * np.log1p(-p)), rtol=1e-5)
            np.testing.assert_allclose(true_ec, -np.expm1(tries * np.log1p(-p_true)), rtol=1e-5)
        # TF1's nce_loss: summed sigmoid cross entropies; sampled_softmax_loss: softmax cross entropy,
        # accidental hits removed
        x, z = sampled_logits(
            run["embed"], run["w"], run["b"], eval_labels, candidates, true_ec, sampled_ec, False
        )
        nce = (np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))).sum(1)
        np.testing.assert_allclose(run["nce"], nce, rtol=2e-5, atol=1e-5)
        x, z = sampled_logits(
            run["embed"], run["w"], run["b"], eval_labels, candidates, true_ec, sampled_ec, True
        )
        shifted = x - x.max(1, keepdims=True)
        softmax = -(z * (shifted - np.log(np.exp(shifted).sum(1, keepdims=True)))).sum(1)
        np.testing.assert_allclose(run["softmax"], softmax, rtol=2e-5, atol=1e-5)
