"""Sampled losses over many classes, as TF1's tf.nn has them for word2vec (sg.nn, ops layer).

``nce_loss`` (noise-contrastive estimation) and ``sampled_softmax_loss``
score each example against its ``num_true`` true classes and
``num_sampled`` classes drawn for the whole batch (by default from
``sg.random.log_uniform_candidate_sampler`` with ``unique=True``; see that
module for the randomness), instead of against all ``num_classes``. For
inputs h (batch, dim), class weights W (num_classes, dim) and biases b:

    logit(c) = h . W[c] + b[c] - log(expected count of c)

for the true classes and the candidates, where subtracting the log of the
expected count (TF1's ``subtract_log_q``) corrects for how often the
sampler proposes c. With ``remove_accidental_hits`` a candidate that is one
of the example's true classes gets the most negative finite logit, so it
counts as neither. The true classes get label 1 / num_true, the candidates
0; ``nce_loss`` sums the sigmoid cross entropies of those logits per
example, ``sampled_softmax_loss`` takes their softmax cross entropy. Both
return one loss per example (shape (batch,)); gradients flow into the
weights, biases and inputs, not into the sampled values. ``weights`` and
``biases`` may be lists of shards (``partition_strategy``, as
``embedding_lookup``).
"""

from __future__ import annotations

import numpy as np

from ...graph import Tensor, library
from ...graph.dims import unify
from .. import numpy_like as snp
from ..numpy_like.core import asarray, error
from ..primitives.dot_general import dot_general
from ..primitives.elementwise import stop_gradient
from ..primitives.ensure_shape import ensure_shape
from ..random.candidates import log_uniform_candidate_sampler
from .cross_entropies import (
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits_v2,
)
from .embedding import embedding_lookup

__all__ = ["nce_loss", "sampled_softmax_loss"]


def _sampled_logits(
    who, weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
    remove_accidental_hits, partition_strategy, seed, key,
) -> tuple[Tensor, Tensor]:  # fmt: skip
    """The logits (batch, num_true + num_sampled) of the true classes then the candidates, and their
    labels (1 / num_true for the true classes, 0 for the candidates)."""
    inputs, labels = asarray(inputs), asarray(labels)
    if not inputs.dtype.is_floating or inputs.ndim != 2:
        raise error(f"{who} wants float inputs of shape (batch, dim), got {inputs.type}")
    if labels.dtype.kind not in "iu":
        raise error(f"{who} wants integer labels (batch, num_true), got {labels.type}")
    if labels.ndim == 1 and num_true == 1:
        labels = snp.expand_dims(labels, 1)
    if labels.ndim != 2 or labels.shape[1] != num_true:
        raise error(f"{who} wants labels of shape (batch, num_true={num_true}), got {labels.type}")
    batch = unify(inputs.shape[0], labels.shape[0])
    if batch is None:
        raise error(f"{who} wants inputs and labels of one batch size, got {inputs.type} and {labels.type}")
    inputs = ensure_shape(inputs, (batch, inputs.shape[1]))  # None batch dims of both are one size
    labels = ensure_shape(labels.astype("int64"), (batch, num_true))
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(
            labels, num_true, num_sampled, True, num_classes, seed=seed, key=key
        )
    try:
        sampled, true_expected, sampled_expected = (stop_gradient(asarray(v)) for v in sampled_values)
    except (TypeError, ValueError):
        raise error(
            f"{who} wants sampled_values as (sampled_candidates, true_expected_count, "
            f"sampled_expected_count), got {sampled_values!r}"
        ) from None
    dt = inputs.dtype
    flat = snp.reshape(labels, (-1,))
    true_w = embedding_lookup(weights, flat, partition_strategy)  # (batch * num_true, dim)
    sampled_w = embedding_lookup(weights, sampled, partition_strategy)  # (num_sampled, dim)
    true_b = embedding_lookup(biases, flat, partition_strategy)
    sampled_b = embedding_lookup(biases, sampled, partition_strategy)
    true_w = snp.reshape(true_w.astype(dt), (-1, num_true, inputs.shape[1]))
    true_logits = snp.sum(inputs[:, None, :] * true_w, axis=-1) + snp.reshape(
        true_b.astype(dt), (-1, num_true)
    )
    sampled_logits = dot_general(inputs, sampled_w.astype(dt), ((1,), (1,))) + sampled_b.astype(dt)
    if remove_accidental_hits:
        hits = snp.any(labels[:, :, None] == sampled.astype("int64")[None, None, :], axis=1)
        sampled_logits = sampled_logits + snp.where(hits, float(-np.finfo(dt.np).max), 0.0).astype(dt)
    true_logits = true_logits - snp.log(true_expected).astype(dt)
    sampled_logits = sampled_logits - snp.log(sampled_expected).astype(dt)
    logits = snp.concatenate([true_logits, sampled_logits], axis=1)
    targets = snp.concatenate(
        [snp.full_like(true_logits, 1.0 / num_true), snp.zeros_like(sampled_logits)], axis=1
    )
    return logits, stop_gradient(targets)


@library(named=True)
def nce_loss(
    weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
    remove_accidental_hits=False, partition_strategy="mod", name="nce_loss", *, seed=None, key=None,
) -> Tensor:  # fmt: skip
    """Noise-contrastive estimation loss per example (TF1's tf.nn.nce_loss): shape (batch,).

    ``weights`` (num_classes, dim) and ``biases`` (num_classes,) are the output
    layer, ``labels`` int (batch, num_true), ``inputs`` (batch, dim);
    ``num_sampled`` candidates out of ``num_classes`` (see the module
    docstring for the logits). The loss is
    ``sum_j sigmoid_cross_entropy_with_logits(labels=t_j, logits=l_j)`` over the
    true classes and candidates. ``sampled_values`` gives the candidates
    (a sampler's triple) instead of drawing them; ``seed``/``key`` as
    ``sg.random.log_uniform_candidate_sampler``.
    ``loss = snp.mean(sg.nn.nce_loss(nce_w, nce_b, train_labels, embed, 64, vocabulary_size))``
    """
    logits, targets = _sampled_logits(
        "nce_loss", weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
        remove_accidental_hits, partition_strategy, seed, key,
    )  # fmt: skip
    return snp.sum(sigmoid_cross_entropy_with_logits(labels=targets, logits=logits), axis=1)


@library(named=True)
def sampled_softmax_loss(
    weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
    remove_accidental_hits=True, partition_strategy="mod", name="sampled_softmax_loss", seed=None, *, key=None,
) -> Tensor:  # fmt: skip
    """Sampled softmax cross entropy per example (TF1's tf.nn.sampled_softmax_loss): shape (batch,).

    Arguments as ``nce_loss``; the loss is the softmax cross entropy of the
    true classes (labels 1 / num_true) against themselves and the candidates,
    an estimate of the full softmax loss over ``num_classes`` for training
    (evaluate with the full softmax). Accidental hits are removed by default.
    """
    logits, targets = _sampled_logits(
        "sampled_softmax_loss", weights, biases, labels, inputs, num_sampled, num_classes, num_true,
        sampled_values, remove_accidental_hits, partition_strategy, seed, key,
    )  # fmt: skip
    return softmax_cross_entropy_with_logits_v2(labels=targets, logits=logits)
