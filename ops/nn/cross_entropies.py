"""TF1's cross entropies on logits, called with keywords only (sg.nn, ops layer).

``softmax_cross_entropy_with_logits(labels=..., logits=...)`` and its
friends, as tf.nn spells them: per-example (or, for the sigmoid one,
elementwise) losses, so ``loss = snp.mean(...)`` as in TF1 programs. Positional
arguments are refused, as TF1 refuses them (the order of labels and logits
is the classic mix-up). The math is losses.py's (optax's), which works from
log-probabilities, so large logits stay finite.
"""

from __future__ import annotations

from ...graph import Tensor, library
from ...graph.dims import unify
from .. import numpy_like as snp
from ..numpy_like.core import asarray, error, normalize_axis
from ..primitives.elementwise import stop_gradient
from ..primitives.ensure_shape import ensure_shape
from .activations import _floating
from .losses import (
    sigmoid_binary_cross_entropy,
    softmax_cross_entropy,
    softmax_cross_entropy_with_integer_labels,
)

__all__ = [
    "sigmoid_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "sparse_softmax_cross_entropy_with_logits",
]


def _keywords_only(who: str, args, labels, logits) -> None:
    if args:
        raise error(
            f"call {who} with keywords only: {who}(labels=..., logits=...), got {len(args)} positional"
        )
    if labels is None or logits is None:
        raise error(f"{who} wants both labels= and logits=")


def _same_rank(who: str, labels: Tensor, logits: Tensor) -> None:
    if labels.ndim != logits.ndim:
        raise error(f"{who} wants labels and logits of one shape, got {labels.type} and {logits.type}")


def _class_axis(who: str, logits: Tensor, axis, dim) -> int:
    if axis is not None and dim is not None and axis != dim:
        raise error(f"{who} got axis={axis} and dim={dim}: give one")
    chosen = axis if axis is not None else dim if dim is not None else -1
    if logits.ndim < 1:
        raise error(f"{who} wants logits with a class axis, got {logits.type}")
    return normalize_axis(int(chosen), logits.ndim, f"{who} axis")


def _softmax_xent(labels: Tensor, logits: Tensor, axis: int) -> Tensor:
    last = logits.ndim - 1
    if axis != last:
        labels, logits = snp.moveaxis(labels, axis, last), snp.moveaxis(logits, axis, last)
    return softmax_cross_entropy(logits, labels)


@library(named=True)
def softmax_cross_entropy_with_logits(
    *args, labels=None, logits=None, axis=None, dim=None, name=None
) -> Tensor:
    """-sum(labels * log_softmax(logits)) along ``axis`` (TF1's ``dim``; default -1): one loss per example.

    ``labels`` are probabilities of ``logits``' shape (each row sums to 1, e.g.
    one-hot). As TF1's (v1) function, no gradient flows into ``labels``; use
    ``softmax_cross_entropy_with_logits_v2`` for one that does.
    ``loss = snp.mean(sg.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y))``
    """
    who = "softmax_cross_entropy_with_logits"
    _keywords_only(who, args, labels, logits)
    logits, labels = _floating(logits), _floating(labels)
    _same_rank(who, labels, logits)
    return _softmax_xent(stop_gradient(labels), logits, _class_axis(who, logits, axis, dim))


@library(named=True)
def softmax_cross_entropy_with_logits_v2(
    *args, labels=None, logits=None, axis=None, dim=None, name=None
) -> Tensor:
    """As ``softmax_cross_entropy_with_logits``, with gradients into ``labels`` too (TF1.5+'s _v2)."""
    who = "softmax_cross_entropy_with_logits_v2"
    _keywords_only(who, args, labels, logits)
    logits, labels = _floating(logits), _floating(labels)
    _same_rank(who, labels, logits)
    return _softmax_xent(labels, logits, _class_axis(who, logits, axis, dim))


@library(named=True)
def sparse_softmax_cross_entropy_with_logits(*args, labels=None, logits=None, name=None) -> Tensor:
    """-log softmax(logits)[label] per example, for int ``labels`` of shape ``logits.shape[:-1]`` (TF1's).

    A label outside [0, classes) gives log(sum(exp(logits))) (no class picked);
    TF1 raises there on CPU.
    """
    who = "sparse_softmax_cross_entropy_with_logits"
    _keywords_only(who, args, labels, logits)
    logits, labels = _floating(logits), asarray(labels)
    if logits.ndim >= 1 and labels.ndim == logits.ndim - 1:
        batch = tuple(unify(a, b) for a, b in zip(labels.shape, logits.shape[:-1]))
        if None not in batch:  # None dims (TF1's unknown batch) of labels and logits are one size
            labels = ensure_shape(labels, batch)
            logits = ensure_shape(logits, (*batch, logits.shape[-1]))
    return softmax_cross_entropy_with_integer_labels(logits, labels)


@library(named=True)
def sigmoid_cross_entropy_with_logits(*args, labels=None, logits=None, name=None) -> Tensor:
    """Elementwise ``max(x, 0) - x * z + log(1 + exp(-|x|))`` for logits x and labels z (TF1's).

    The same as ``-z log sigmoid(x) - (1 - z) log sigmoid(-x)``, finite for any x.
    """
    who = "sigmoid_cross_entropy_with_logits"
    _keywords_only(who, args, labels, logits)
    logits, labels = _floating(logits), _floating(labels)
    _same_rank(who, labels, logits)
    return sigmoid_binary_cross_entropy(logits, labels)
