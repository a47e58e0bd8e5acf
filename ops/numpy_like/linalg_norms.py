"""Norms in numpy.linalg spelling: norm, vector_norm, matrix_norm, cond (ops layer).

Part of sg.numpy.linalg. norm is a library call (graph/calls.py). The
2-norm of vectors and the Frobenius norm have a custom vjp whose gradient at
0 is 0 rather than NaN; the spectral (2, -2) and nuclear norms go through svd.
"""

from __future__ import annotations

import math

from ...graph import library
from ..custom_vjp import custom_vjp
from .core import asarray, error, normalize_axes
from .linalg_decomp import svd
from .linalg_solve import inv
from .manipulation import expand_dims, moveaxis, reshape
from .reductions import max as reduce_max
from .reductions import min as reduce_min
from .reductions import sum as reduce_sum
from .ufuncs import absolute, equal, multiply, not_equal, power, sqrt, true_divide, where

_INF = float("inf")


def _ord(o):
    return {"inf": _INF, "-inf": -_INF}.get(o, o) if isinstance(o, str) else o


def _two_norm(x, axes, keepdims: bool):
    """sqrt(sum(|x|^2)) with a vjp that is x / norm, and 0 where the norm is 0 (not NaN)."""
    out_shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape) if keepdims or i not in axes)

    def fwd(v):
        mag = absolute(v) if v.dtype.is_complex else v
        n = sqrt(reduce_sum(multiply(mag, mag), axis=axes, keepdims=True))
        return n.reshape(out_shape), (v, n)

    def bwd(residuals, g):
        v, n = residuals
        safe = where(equal(n, 0), 1.0, n)
        return (where(equal(n, 0), 0.0, multiply(g.reshape(n.shape), true_divide(v, safe))),)

    f = custom_vjp(lambda v: fwd(v)[0])
    f.__name__ = "norm"
    f.defvjp(fwd, bwd)
    return f(x)


def _float(x):
    v = asarray(x)
    return v if v.dtype.is_inexact else asarray(v, "float32")


def _vector_norm(v, ord, axes, keepdims: bool):  # noqa: A002
    if ord in (None, 2):
        return _two_norm(v, axes, keepdims)
    mag = absolute(v)
    if ord == _INF:
        return reduce_max(mag, axis=axes, keepdims=keepdims)
    if ord == -_INF:
        return reduce_min(mag, axis=axes, keepdims=keepdims)
    if ord == 0:
        return reduce_sum(asarray(not_equal(mag, 0), mag.dtype), axis=axes, keepdims=keepdims)
    if ord == 1:
        return reduce_sum(mag, axis=axes, keepdims=keepdims)
    if isinstance(ord, str):
        raise error(f"norm of a vector does not take ord={ord!r}")
    p = asarray(ord, mag.dtype)
    return power(reduce_sum(power(mag, p), axis=axes, keepdims=keepdims), asarray(1.0 / ord, mag.dtype))


def _matrix_norm(v, ord, axes, keepdims: bool):  # noqa: A002
    r, c = axes
    if ord in (None, "fro"):
        return _two_norm(v, axes, keepdims)
    if ord in (2, -2, "nuc"):
        m = moveaxis(v, (r, c), (-2, -1))
        s = svd(m, compute_uv=False)
        out = reduce_sum(s, axis=-1) if ord == "nuc" else (reduce_max if ord == 2 else reduce_min)(s, axis=-1)
        if keepdims:
            out = expand_dims(expand_dims(out, min(r, c)), max(r, c))
        return out
    if ord in (1, -1, _INF, -_INF):
        summed, other = (r, c) if ord in (1, -1) else (c, r)
        sums = reduce_sum(absolute(v), axis=summed, keepdims=True)
        pick = reduce_max if ord > 0 else reduce_min
        out = pick(sums, axis=other, keepdims=True)
        return out if keepdims else reshape(out, tuple(d for i, d in enumerate(v.shape) if i not in axes))
    raise error(f"norm of a matrix takes ord None, 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got {ord!r}")


@library()
def norm(x, ord=None, axis=None, keepdims: bool = False):  # noqa: A002
    """Vector or matrix norm as numpy.linalg.norm.

    ``axis`` None: the 2-norm of the flattened array if ``ord`` is None, else
    x must be 1-d (a vector norm) or 2-d (a matrix norm). An int axis gives
    vector norms (ord None/2, 1, inf, -inf, 0, any p); a pair gives matrix
    norms (None/'fro', 'nuc', 1, -1, 2, -2, inf, -inf).
    """
    v, ord = _float(x), _ord(ord)  # noqa: A001
    if axis is None:
        if ord is None:
            axes = tuple(range(v.ndim))
            return _two_norm(v, axes, keepdims)
        if v.ndim not in (1, 2):
            raise error(f"norm with ord={ord!r} and axis=None wants a 1-d or 2-d array, got {v.type}")
        axes = tuple(range(v.ndim))
    else:
        axes = normalize_axes(axis, v.ndim)
    if len(axes) == 1:
        return _vector_norm(v, ord, axes, keepdims)
    if len(axes) == 2:
        return _matrix_norm(v, ord, axes, keepdims)
    raise error(f"norm wants one or two axes, got {axis!r}")


def vector_norm(x, axis=None, keepdims: bool = False, ord=2):  # noqa: A002
    """The vector norm over ``axis`` (None: all elements, as one vector), as numpy.linalg.vector_norm."""
    v, ord = _float(x), _ord(ord)  # noqa: A001
    if axis is None:
        flat = reshape(v, (math.prod(v.shape),))
        out = _vector_norm(flat, ord, (0,), False)
        return reshape(out, (1,) * v.ndim) if keepdims else out
    return _vector_norm(v, ord, normalize_axes(axis, v.ndim), keepdims)


def matrix_norm(x, keepdims: bool = False, ord="fro"):  # noqa: A002
    """The matrix norm over the last two axes, as numpy.linalg.matrix_norm."""
    v = _float(x)
    if v.ndim < 2:
        raise error(f"linalg.matrix_norm wants an array of rank >= 2, got {v.type}")
    return _matrix_norm(v, _ord(ord), (v.ndim - 2, v.ndim - 1), keepdims)


def cond(x, p=None):
    """Condition number: s_max / s_min for p None or 2 (s_min / s_max for -2), else norm(x, p) * norm(inv(x), p)."""
    v = _float(x)
    p = _ord(p)
    if p in (None, 2, -2):
        s = svd(v, compute_uv=False)
        big, small = reduce_max(s, axis=-1), reduce_min(s, axis=-1)
        return true_divide(small, big) if p == -2 else true_divide(big, small)
    axes = (-2, -1)
    return multiply(norm(v, p, axes), norm(inv(v), p, axes))
