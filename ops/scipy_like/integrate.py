"""sg.scipy.integrate: trapezoid, the trapezoidal rule (ops layer)."""

from __future__ import annotations

from ...graph import library
from .. import numpy_like as snp
from ..numpy_like.core import error, normalize_axis
from .inexact import as_inexact


def _cut(x, ax: int, start: int, stop: int):
    index = [slice(None)] * x.ndim
    index[ax] = slice(start, stop)
    return x[tuple(index)]


@library()
def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    """The integral of ``y`` along ``axis`` by the trapezoidal rule (scipy.integrate.trapezoid).

    Sample points ``x`` (1-d along ``axis``, or an array broadcasting with
    ``y``) or a constant spacing ``dx``. Fewer than two samples integrate to 0.
    """
    (t,) = as_inexact(y)
    if t.ndim == 0:
        raise error(f"trapezoid wants an array of at least 1 dimension, got {t.type}")
    ax = normalize_axis(axis, t.ndim)
    n = t.shape[ax]
    mid = (_cut(t, ax, 1, n) + _cut(t, ax, 0, n - 1)) * 0.5
    if x is None:
        return snp.sum(mid, axis=ax) * dx
    (xs,) = as_inexact(x)
    if xs.ndim == 1:
        if xs.shape[0] != n:
            raise error(f"trapezoid wants x of length {n} (y's axis {ax}), got {xs.type}")
        d = snp.reshape(snp.diff(xs), tuple(-1 if i == ax else 1 for i in range(t.ndim)))
    else:
        if xs.ndim != t.ndim:
            raise error(f"trapezoid wants x 1-d or of y's rank, got {xs.type} and {t.type}")
        d = snp.diff(xs, axis=ax)
    return snp.sum(mid * d, axis=ax)


__all__ = ["trapezoid"]
