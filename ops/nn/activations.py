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
from .. import numpy_like as snp
from ..numpy_like.core import asarray, error, normalize_axis, promote, result_dtype
from ..primitives import elementwise
from ..scipy_like.log1mexp import log1mexp as log1mexp_of
from ..scipy_like.partials import with_partials

__all__ = [
    "celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "identity",
    "leaky_relu", "log1mexp", "log_sigmoid", "log_softmax", "logmeanexp", "mish", "one_hot", "relu", "relu6",
    "selu", "sigmoid", "silu", "soft_sign", "softmax", "softplus", "softsign", "sparse_plus", "sparse_sigmoid",
    "squareplus", "swish", "tanh",
]  # fmt: skip


def _same_float(x: Tensor, p):
    """x and a parameter (a number or a Tensor) as Tensors of one float dtype and shape."""
    dt = result_dtype(x, p)
    x, p = promote(x, p, dtype=dt if dt.is_inexact else x.dtype)
    return x, p


def _floating(x) -> Tensor:
    """``x`` as a Tensor of a floating dtype (integers become float32, as jax.nn does)."""
    x = asarray(x)
    return x if x.dtype.is_inexact else x.astype(dtypes.float32)


def _nan_kept(x) -> Tensor:
    """0 where x is a number, x (nan) where it is nan, with no gradient: the value a piecewise
    constant branch takes, so nan passes through it and its gradient stays 0 (as jax's)."""
    return snp.where(snp.isnan(x), elementwise.stop_gradient(x), 0)


@library()
def relu(x) -> Tensor:
    """max(x, 0); the gradient at 0 (and at nan) is 0 and NaN stays NaN. ``sg.nn.relu(h)``"""
    x = asarray(x)
    return snp.where(x > 0, x, _nan_kept(x))


@library()
def relu6(x) -> Tensor:
    """min(max(x, 0), 6); the gradient is 0 outside (0, 6) and at nan."""
    x = asarray(x)
    return snp.where((x > 0) & (x < 6), x, snp.where(x >= 6, 6, _nan_kept(x)))


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
    from ..scipy_like.special import erfc  # noqa: PLC0415  (sg.scipy.special loads on first use)

    # Phi(x) as erfc(-x / sqrt 2) / 2: 1 + erf(x / sqrt 2) cancels to 0 for x below -5
    return 0.5 * x * erfc(x * -math.sqrt(0.5))


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
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, numbers.Integral):
        return int(axis)
    return tuple(int(a) for a in axis)


def _where_mask(where):
    """``where`` as a bool Tensor (or None)."""
    if where is None:
        return None
    where = asarray(where)
    if where.dtype is not dtypes.bool_:
        where = where.astype(dtypes.bool_)
    return where


@library()
def softmax(x, axis=-1, where=None) -> Tensor:
    """exp(x) / sum(exp(x)) over ``axis`` (an int, a tuple or None for all), shifted by the max.

    ``where`` (bools broadcasting against x) picks the entries that take
    part; the others give 0, as in jax.nn.softmax.
    """
    x = _floating(x)
    axes = _axes(axis, x.ndim)
    where = _where_mask(where)
    if where is not None:
        x = snp.where(where, x, -np.inf)
    e = snp.exp(x - _max_shift(x, axes))
    result = e / snp.sum(e, axis=axes, keepdims=True)
    return result if where is None else snp.where(where, result, 0.0)


@library()
def log_softmax(x, axis=-1, where=None) -> Tensor:
    """x - logsumexp(x) over ``axis``, exact for logits like 1e3.

    The max is subtracted first (and held constant for autodiff), so the
    result keeps the precision of the shifted logits, not of their size.
    ``where`` picks the entries that take part; the others give -inf.
    """
    x = _floating(x)
    axes = _axes(axis, x.ndim)
    where = _where_mask(where)
    if where is not None:
        x = snp.where(where, x, -np.inf)
    shifted = x - _max_shift(x, axes)
    result = shifted - snp.log(snp.sum(snp.exp(shifted), axis=axes, keepdims=True))
    return result if where is None else snp.where(where, result, -np.inf)


def _max_shift(x: Tensor, axes) -> Tensor:
    """The max over ``axes``, kept out of the gradient: a slice with +inf (or all -inf) becomes
    nan, as in jax and scipy (inf - inf)."""
    return elementwise.stop_gradient(snp.max(x, axis=axes, keepdims=True))


def _shift(x: Tensor, axes) -> Tensor:
    """The max over ``axes`` (0 where it is infinite), kept out of the gradient."""
    top = snp.max(x, axis=axes, keepdims=True)
    return elementwise.stop_gradient(snp.where(snp.isfinite(top), top, 0.0))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@library()
def selu(x) -> Tensor:
    """Scaled ELU: scale * elu(x, alpha) with the self-normalizing constants (1.0507..., 1.6733...)."""
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


# (k - 1) / k!, k = 2 .. 17: expm1(r) - r e^r = -sum_k (k - 1) r^k / k!, for |r| < 1/2
_CELU_SERIES = tuple((k - 1) / math.factorial(k) for k in range(2, 18))


def _celu_partials(x, alpha):
    # e^r and expm1(r) - r e^r with r = min(x, 0) / alpha; where e^r underflows (x far below 0,
    # or alpha -> 0+) they are 0 and -1, with the inputs of r swapped for harmless ones so that
    # no 0 * inf reaches the second derivatives; near r = 0 the second partial is a series
    z = snp.where(x > 0, 0.0, x)  # nan stays nan
    dead = z / alpha < float(np.log(np.finfo(x.dtype.np).tiny))
    r = snp.where(dead, 0.0, z) / snp.where(dead, 1.0, alpha)
    er = snp.where(dead, 0.0, snp.exp(r))
    series = _CELU_SERIES[-1]
    for c in _CELU_SERIES[-2::-1]:
        series = series * r + c
    direct = snp.expm1(r) - r * er
    d_alpha = snp.where(snp.abs(r) < 0.5, -(r * r) * series, direct)
    return snp.where(x > 0, 1.0, er), snp.where(dead, -1.0, d_alpha)


_celu = with_partials(
    "celu",
    lambda x, alpha: snp.maximum(x, 0.0) + alpha * snp.expm1(snp.minimum(x, 0.0) / alpha),
    _celu_partials,
)


@library()
def celu(x, alpha=1.0) -> Tensor:
    """Continuously differentiable ELU: max(x, 0) + alpha * expm1(min(x, 0) / alpha).

    Its partials are written out: e^r and expm1(r) - r e^r with r = min(x, 0) / alpha (the chain
    rule through x / alpha loses the second term where alpha**2 underflows).
    """
    x = _floating(x)
    return _celu(*_same_float(x, alpha))


@library()
def glu(x, axis=-1) -> Tensor:
    """Gated linear unit: the first half of ``axis`` times sigmoid of the second half.

    ``axis`` must have a static even size; the result has half of it.
    """
    x = _floating(x)
    axis = normalize_axis(int(axis), x.ndim)
    size = x.shape[axis]
    if not isinstance(size, int) or size % 2:
        raise error(f"glu wants an even static size along axis {axis}, got {x.type}")
    first, second = snp.split(x, 2, axis=axis)
    return first * snp.sigmoid(second)


@library()
def mish(x) -> Tensor:
    """x * tanh(softplus(x))."""
    x = _floating(x)
    return x * snp.tanh(softplus(x))


@library()
def hard_sigmoid(x) -> Tensor:
    """relu6(x + 3) / 6: 0 below -3, 1 above 3, linear between."""
    return relu6(_floating(x) + 3.0) / 6.0


@library()
def hard_silu(x) -> Tensor:
    """x * hard_sigmoid(x) (also called hard_swish)."""
    x = _floating(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


@library()
def hard_tanh(x) -> Tensor:
    """x clipped to [-1, 1]; the gradient is 0 outside (-1, 1)."""
    x = _floating(x)
    return snp.where(x > 1, 1.0, snp.where(x < -1, -1.0, x))


def _soft_sign_slope(x):
    q = snp.abs(x) + 1.0
    return (1.0 / (q * q),)


_soft_sign = with_partials("soft_sign", lambda x: x / (snp.abs(x) + 1.0), _soft_sign_slope)


@library()
def soft_sign(x) -> Tensor:
    """x / (|x| + 1), with derivative 1 / (|x| + 1)**2 (the quotient rule's two terms cancel)."""
    return _soft_sign(_floating(x))


softsign = soft_sign


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


def identity(x) -> Tensor:
    """``x`` itself (as a Tensor): the no-op activation."""
    return asarray(x)


def _squareplus_root(x, b):
    """sqrt(x^2 + b), as |x| sqrt(1 + b / x / x) past |x| = 2**60 where x^2 would soon overflow."""
    big = snp.abs(x) > 2.0**60
    xb = snp.where(big, x, 2.0**61)
    root = snp.where(big, snp.abs(xb) * snp.sqrt(1.0 + b / xb / xb), snp.sqrt(snp.where(big, 0.0, x * x) + b))
    return snp.where((b == np.inf) & ~snp.isnan(x), np.inf, root)


def _squareplus_partials(x, b):
    # d/dx = (1 + x / h) / 2. Where x^2 > b it cancels below 0, so there it is b / (2 h (h - x)),
    # and above 0 x / h is written 1 / sqrt(1 + b / x^2), whose own derivative b / h^3 does not
    # cancel; where x^2 <= b, |x / h| <= 1/sqrt(2) and the plain form is exact
    h = _squareplus_root(x, b)
    far = (x * x > b) & snp.isfinite(x)
    xf = snp.where(far, x, 2.0)
    ratio = snp.where(far, snp.sign(xf) / snp.sqrt(1.0 + b / xf / xf), x / h)
    low = far & (x < 0) & snp.isfinite(h)
    # 0.5 outside the divisions: XLA rewrites (a / b) / (2 c) into a / (2 b c), which overflows
    by_low = 0.5 * ((b / h) / snp.where(low, h - x, 1.0))
    return snp.where(low, by_low, (1.0 + ratio) / 2.0), 0.25 / h


def _squareplus_value(x, b):
    # below 0, (x + h) / 2 = b / (2 (h - x)) does not cancel; far out (x^2 > b) it is
    # b / (2 |x|) / (1 + sqrt(1 + b / x^2)), which cannot overflow either (b / (4 |x|) at x = -max)
    h = _squareplus_root(x, b)
    negative = (x < 0) & snp.isfinite(h) & (b != 0)
    far = negative & (x * x > b)
    xf = snp.where(far, x, -2.0)
    by_far = 0.5 * ((b / -xf) / (1.0 + snp.sqrt(1.0 + b / xf / xf)))
    by_near = b / (2.0 * snp.where(negative, h - x, 1.0))
    return snp.where(far, by_far, snp.where(negative, by_near, (x + h) / 2.0))


_squareplus = with_partials("squareplus", _squareplus_value, _squareplus_partials)


@library()
def squareplus(x, b=4) -> Tensor:
    """(x + sqrt(x^2 + b)) / 2: a smooth relu built from a square root.

    The root cannot overflow (|x| sqrt(1 + b / x / x) far out), and the derivatives are written
    in forms that do not cancel, so both stay right up to the largest float.
    """
    return _squareplus(*_same_float(_floating(x), b))


@library()
def sparse_plus(x) -> Tensor:
    """0 below -1, (x + 1)^2 / 4 on [-1, 1], x above 1: a softplus with compact curvature."""
    x = _floating(x)
    return snp.where(x <= -1.0, 0.0, snp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4.0))


@library()
def sparse_sigmoid(x) -> Tensor:
    """(x + 1) / 2 clipped to [0, 1]: the derivative of sparse_plus."""
    return snp.clip((_floating(x) + 1.0) / 2.0, 0.0, 1.0)


@library()
def log1mexp(x) -> Tensor:
    """log(1 - exp(-x)) for x > 0, accurate at both ends (log1p of -exp(-x) for large x,
    log of -expm1(-x) for small); derivative 1 / expm1(x)."""
    return log1mexp_of(_floating(x))


@library()
def logmeanexp(x, axis=None, where=None, keepdims: bool = False) -> Tensor:
    """log(mean(exp(x))) over ``axis`` (of the entries ``where`` selects), shifted by the max."""
    x = _floating(x)
    axes = _axes(axis, x.ndim)
    mask = _where_mask(where)
    if mask is None:
        mask = snp.ones(x.shape, dtype=dtypes.bool_)
    masked = snp.where(mask, x, -np.inf)
    top = snp.max(masked, axis=axes, keepdims=True)
    top = elementwise.stop_gradient(snp.where(snp.isfinite(top), top, 0.0))
    total = snp.sum(snp.where(mask, snp.exp(x - top), 0.0), axis=axes, keepdims=True)
    count = snp.sum(mask.astype(x.dtype), axis=axes, keepdims=True)
    out = snp.log(total) + top - snp.log(count)
    return out if keepdims else snp.squeeze(out, axis=axes)
