"""Activation functions with jax.nn's names and semantics (sg.nn, ops layer).

Each is a few numpy-like ops on Tensors; those of more than one primitive
are library calls (graph/calls.py), one line in a listing. The ones that could overflow
(softplus, log_sigmoid, softmax, log_softmax) are written in shifted forms
so that their values and gradients stay finite for logits in the thousands;
the piecewise ones (relu, relu6) pass NaN through and have gradient 0 at
their kinks, as jax's do.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ...graph import Tensor, dtypes, library
from .. import elementwise
from .. import numpy_like as snp
from ..numpy_like.core import asarray, error, normalize_axis

__all__ = [
    "elu", "gelu", "leaky_relu", "log_sigmoid", "log_softmax", "one_hot", "relu", "relu6", "sigmoid",
    "silu", "softmax", "softplus", "swish", "tanh",
]  # fmt: skip


def _floating(x) -> Tensor:
    """``x`` as a Tensor of a floating dtype (integers become float32, as jax.nn does)."""
    x = asarray(x)
    return x if x.dtype.is_inexact else x.astype(dtypes.float32)


@library()
def relu(x) -> Tensor:
    """max(x, 0); the gradient at 0 is 0 and NaN stays NaN. ``sg.nn.relu(h)``"""
    x = asarray(x)
    return snp.where(x <= 0, 0, x)


@library()
def relu6(x) -> Tensor:
    """min(max(x, 0), 6); the gradient is 0 outside (0, 6)."""
    x = asarray(x)
    return snp.where(x <= 0, 0, snp.where(x >= 6, 6, x))


def sigmoid(x) -> Tensor:
    """1 / (1 + exp(-x))."""
    return snp.sigmoid(x)


def tanh(x) -> Tensor:
    """The hyperbolic tangent."""
    return snp.tanh(x)


@library()
def softplus(x) -> Tensor:
    """log(1 + exp(x)), as max(x, 0) + log1p(exp(-|x|)): no overflow for large x.

    Both pieces are spelled with where, so the gradient is sigmoid(x) at 0 too.
    """
    x = _floating(x)
    positive = x > 0
    return snp.where(positive, x, 0) + snp.log1p(snp.exp(snp.where(positive, -x, x)))


@library()
def log_sigmoid(x) -> Tensor:
    """log(sigmoid(x)) = -softplus(-x), finite for very negative x."""
    return -softplus(-_floating(x))


@library()
def silu(x) -> Tensor:
    """x * sigmoid(x) (also called swish)."""
    x = _floating(x)
    return x * snp.sigmoid(x)


swish = silu

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_CUBIC = 0.044715


@library()
def gelu(x, approximate: bool = True) -> Tensor:
    """The Gaussian error linear unit x * Phi(x).

    ``approximate=True`` (the default, as in jax) uses the tanh form
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x**3)))``; ``False`` the exact
    ``0.5 x (1 + erf(x / sqrt(2)))``.
    """
    x = _floating(x)
    if approximate:
        inner = _SQRT_2_OVER_PI * (x + _GELU_CUBIC * (x * x * x))
        return 0.5 * x * (1.0 + snp.tanh(inner))
    return 0.5 * x * (1.0 + snp.erf(x * (1.0 / math.sqrt(2.0))))


@library()
def elu(x, alpha=1.0) -> Tensor:
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    x = _floating(x)
    positive = x > 0
    # expm1 sees only the non-positive side, so a large x cannot make inf * 0 in the gradient.
    return snp.where(positive, x, alpha * snp.expm1(snp.where(positive, 0.0, x)))


@library()
def leaky_relu(x, negative_slope=0.01) -> Tensor:
    """x for x >= 0, negative_slope * x otherwise."""
    x = _floating(x)
    return snp.where(x >= 0, x, negative_slope * x)


def _axes(axis, ndim: int):
    if isinstance(axis, numbers.Integral):
        return int(axis)
    return tuple(int(a) for a in axis)


@library()
def softmax(x, axis=-1) -> Tensor:
    """exp(x) / sum(exp(x)) over ``axis`` (an int or a tuple), shifted by the max for stability."""
    x = _floating(x)
    axes = _axes(axis, x.ndim)
    e = snp.exp(x - _shift(x, axes))
    return e / snp.sum(e, axis=axes, keepdims=True)


@library()
def log_softmax(x, axis=-1) -> Tensor:
    """x - logsumexp(x) over ``axis``, exact for logits like 1e3.

    The max is subtracted first (and held constant for autodiff), so the
    result keeps the precision of the shifted logits, not of their size.
    """
    x = _floating(x)
    axes = _axes(axis, x.ndim)
    shifted = x - _shift(x, axes)
    return shifted - snp.log(snp.sum(snp.exp(shifted), axis=axes, keepdims=True))


def _shift(x: Tensor, axes) -> Tensor:
    """The max over ``axes`` (0 where it is infinite), kept out of the gradient."""
    top = snp.max(x, axis=axes, keepdims=True)
    return elementwise.stop_gradient(snp.where(snp.isfinite(top), top, 0.0))


@library()
def one_hot(labels, num_classes: int, dtype=dtypes.float32, axis=-1) -> Tensor:
    """``labels`` encoded as one-hot vectors of length ``num_classes`` along a new ``axis``.

    Labels outside ``[0, num_classes)`` give all-zero vectors (as jax.nn.one_hot).
    ``sg.nn.one_hot(y, 10)`` turns int labels of shape (batch,) into (batch, 10).
    """
    labels = asarray(labels)
    if not isinstance(num_classes, numbers.Integral) or isinstance(num_classes, bool) or num_classes < 0:
        raise error(f"one_hot wants a non-negative int num_classes, got {num_classes!r}")
    axis = normalize_axis(int(axis), labels.ndim + 1)
    classes_shape = [1] * (labels.ndim + 1)
    classes_shape[axis] = int(num_classes)
    if labels.dtype.kind == "b" or (
        labels.dtype.kind in "iu" and num_classes - 1 > np.iinfo(labels.dtype.np).max
    ):
        labels = labels.astype(dtypes.int32 if num_classes <= 2**31 else dtypes.int64)
    classes = np.arange(int(num_classes)).astype(labels.dtype.np).reshape(classes_shape)
    hit = snp.expand_dims(labels, axis) == asarray(classes)
    return hit.astype(dtypes.dtype(dtype))
