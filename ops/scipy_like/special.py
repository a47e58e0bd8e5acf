"""sg.scipy.special: logsumexp, expit, logit, erf, xlogy (ops layer).

logit, xlogy and logsumexp are library calls (graph/calls.py). logsumexp carries its own vjp (the softmax weights), so its value and
gradient stay exact where exp would overflow or underflow.
"""

from __future__ import annotations

from ...graph import library
from ..custom_vjp import custom_vjp
from ..numpy_like import (
    asarray,
    erf,
    exp,
    isfinite,
    log,
    max,
    multiply,
    reshape,
    sigmoid,
    subtract,
    sum,
    true_divide,
    where,
)  # fmt: skip
from ..numpy_like.core import normalize_axes

expit = sigmoid


@library()
def logit(p):
    """log(p / (1 - p)), the inverse of expit."""
    return log(true_divide(p, subtract(1, p)))


@library()
def xlogy(x, y):
    """x * log(y), defined as 0 where x == 0 (also for y == 0)."""
    return where(asarray(x) == 0, 0.0, multiply(x, log(y)))


def _lse_keepdims(x, axes):
    shift = max(x, axis=axes, keepdims=True)
    shift = where(isfinite(shift), shift, 0.0)  # all -inf (or inf) slices: no shift
    return log(sum(exp(subtract(x, shift)), axis=axes, keepdims=True)) + shift


@library()
def logsumexp(a, axis=None, keepdims: bool = False):
    """log(sum(exp(a))) over ``axis``, computed with a max shift; its gradient is softmax(a)."""
    x = asarray(a)
    if not x.dtype.is_inexact:
        x = asarray(x, "float32")
    axes = normalize_axes(axis, x.ndim)
    out_shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape) if keepdims or i not in axes)

    def fwd(v):
        lse = _lse_keepdims(v, axes)
        return reshape(lse, out_shape), (v, lse)

    def bwd(residuals, g):
        v, lse = residuals
        return (multiply(reshape(g, lse.shape), exp(subtract(v, lse))),)

    f = custom_vjp(lambda v: fwd(v)[0])
    f.__name__ = "logsumexp"
    f.defvjp(fwd, bwd)
    return f(x)


__all__ = ["erf", "expit", "logit", "logsumexp", "xlogy"]
