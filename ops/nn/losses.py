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
from .activations import _floating, _shift, log_sigmoid, log_softmax

__all__ = [
    "huber_loss", "l2_loss", "mse", "sigmoid_binary_cross_entropy", "softmax_cross_entropy",
    "softmax_cross_entropy_with_integer_labels", "squared_error",
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
