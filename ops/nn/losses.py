"""Loss functions with optax's names and conventions (sg.nn, ops layer).

Every loss is per example (or elementwise) unless its docstring says
otherwise; reduce it with ``.mean()``. Each is a library call (graph/calls.py). The cross entropies work from
log-probabilities (logsumexp, log_sigmoid), so logits in the thousands give
finite values and exact gradients.
"""

from __future__ import annotations

from ...graph import Tensor, library
from .. import numpy_like as snp
from ..numpy_like.core import asarray, error
from .activations import _floating, _shift, log_sigmoid, log_softmax, sigmoid

__all__ = [
    "cosine_distance", "cosine_similarity", "hinge_loss", "huber_loss", "kl_divergence",
    "kl_divergence_with_log_targets", "l2_loss", "mse", "sigmoid_binary_cross_entropy", "sigmoid_focal_loss",
    "softmax_cross_entropy", "softmax_cross_entropy_with_integer_labels", "squared_error",
]  # fmt: skip


@library()
def softmax_cross_entropy_with_integer_labels(logits, labels) -> Tensor:
    """-log softmax(logits)[label] per example; classes on the last axis of ``logits``.

    ``labels`` are ints of ``logits.shape[:-1]``; the result has that shape.
    ``loss = sg.nn.softmax_cross_entropy_with_integer_labels(logits, y).mean()``
    """
    logits, labels = _floating(logits), asarray(labels)
    if labels.dtype.kind not in "iu":
        raise error(f"softmax_cross_entropy_with_integer_labels wants integer labels, got {labels.type}")
    if logits.ndim < 1 or tuple(labels.shape) != tuple(logits.shape[:-1]):
        raise error(
            f"softmax_cross_entropy_with_integer_labels wants labels of shape logits.shape[:-1], "
            f"got logits {logits.type} and labels {labels.type}"
        )
    shifted = logits - _shift(logits, -1)  # the loss keeps the precision of the shifted logits
    classes = snp.arange(logits.shape[-1], dtype=labels.dtype)
    picked = snp.sum(snp.where(snp.expand_dims(labels, -1) == classes, shifted, 0.0), axis=-1)
    return snp.log(snp.sum(snp.exp(shifted), axis=-1)) - picked


@library()
def softmax_cross_entropy(logits, labels) -> Tensor:
    """-sum(labels * log_softmax(logits)) over the last axis, per example.

    ``labels`` are probabilities (e.g. one-hot) of ``logits``' shape; a zero
    label contributes 0 even where its logit is -inf.
    """
    logits, labels = _floating(logits), _floating(labels)
    log_p = log_softmax(logits, axis=-1)
    return -snp.sum(snp.where(labels == 0, 0.0, labels * log_p), axis=-1)


@library()
def sigmoid_binary_cross_entropy(logits, labels) -> Tensor:
    """Elementwise -[y log sigmoid(x) + (1 - y) log sigmoid(-x)] for logits x and labels y in [0, 1]."""
    logits, labels = _floating(logits), _floating(labels)
    return -labels * log_sigmoid(logits) - (1.0 - labels) * log_sigmoid(-logits)


def _errors(predictions, targets) -> Tensor:
    predictions = _floating(predictions)
    return predictions if targets is None else predictions - targets


@library()
def squared_error(predictions, targets=None) -> Tensor:
    """Elementwise (predictions - targets)**2 (targets default to 0)."""
    e = _errors(predictions, targets)
    return e * e


@library()
def l2_loss(predictions, targets=None) -> Tensor:
    """Elementwise 0.5 * (predictions - targets)**2."""
    return 0.5 * squared_error(predictions, targets)


@library()
def mse(predictions, targets=None) -> Tensor:
    """The mean squared error over all elements: a scalar. ``loss = sg.nn.mse(y_hat, y)``"""
    return snp.mean(squared_error(predictions, targets))


@library()
def huber_loss(predictions, targets=None, delta=1.0) -> Tensor:
    """Elementwise Huber loss: 0.5 e**2 for |e| <= delta, delta * (|e| - 0.5 delta) beyond."""
    size = snp.abs(_errors(predictions, targets))
    inside = snp.minimum(size, delta)
    return 0.5 * inside * inside + delta * (size - inside)


def _safe_norm(x: Tensor, min_norm, axis) -> Tensor:
    """max(||x||, min_norm) over ``axis`` (kept), with a finite gradient where x is 0."""
    squares = snp.sum(x * x, axis=axis, keepdims=True)
    small = squares <= min_norm * min_norm
    return snp.where(small, min_norm, snp.sqrt(snp.where(small, 1.0, squares)))


@library()
def cosine_similarity(predictions, targets, epsilon=0.0, axis=-1) -> Tensor:
    """The cosine of the angle between ``predictions`` and ``targets`` along ``axis``, per example.

    Each is divided by max(its norm, ``epsilon``) first, as optax does.
    """
    predictions, targets = _floating(predictions), _floating(targets)
    unit_p = predictions / _safe_norm(predictions, epsilon, axis)
    unit_t = targets / _safe_norm(targets, epsilon, axis)
    return snp.sum(unit_p * unit_t, axis=axis)


@library()
def cosine_distance(predictions, targets, epsilon=0.0, axis=-1) -> Tensor:
    """1 - cosine_similarity(predictions, targets), per example."""
    return 1.0 - cosine_similarity(predictions, targets, epsilon, axis)


@library()
def kl_divergence(log_predictions, targets, axis=-1) -> Tensor:
    """KL(targets || predictions) = sum(targets * (log targets - log_predictions)) over ``axis``.

    ``log_predictions`` are log-probabilities, ``targets`` probabilities; a
    zero target contributes 0 (as optax).
    """
    log_predictions, targets = _floating(log_predictions), _floating(targets)
    zero = targets == 0
    log_targets = snp.where(zero, 0.0, snp.log(snp.where(zero, 1.0, targets)))
    return snp.sum(targets * (log_targets - log_predictions), axis=axis)


@library()
def kl_divergence_with_log_targets(log_predictions, log_targets, axis=-1) -> Tensor:
    """KL divergence with both sides as log-probabilities: sum(exp(log_t) * (log_t - log_p))."""
    log_predictions, log_targets = _floating(log_predictions), _floating(log_targets)
    return snp.sum(snp.exp(log_targets) * (log_targets - log_predictions), axis=axis)


@library()
def hinge_loss(predictor_outputs, targets) -> Tensor:
    """Elementwise max(0, 1 - predictor_outputs * targets) for targets in {-1, 1}."""
    predictor_outputs = _floating(predictor_outputs)
    return snp.maximum(0.0, 1.0 - predictor_outputs * targets)


@library()
def sigmoid_focal_loss(logits, labels, alpha=None, gamma=2.0) -> Tensor:
    """Elementwise focal loss (optax): sigmoid cross entropy times (1 - p_t)**gamma.

    p_t = p y + (1 - p)(1 - y) with p = sigmoid(logits); ``alpha`` (if given)
    weighs positives by alpha and negatives by 1 - alpha.
    """
    logits, labels = _floating(logits), _floating(labels)
    p = sigmoid(logits)
    p_t = p * labels + (1.0 - p) * (1.0 - labels)
    loss = sigmoid_binary_cross_entropy(logits, labels) * snp.power(1.0 - p_t, gamma)
    if alpha is None or alpha < 0:  # optax's default alpha=-1 also means unweighted
        return loss
    return (alpha * labels + (1.0 - alpha) * (1.0 - labels)) * loss
