"""Elementwise functions with closed-form partial derivatives (ops layer, a custom_vjp helper).

Where a function's value is a where-spliced or cancelling formula, its own chain rule gives 0, nan
or rounding noise at the edges (x log y at x = 0, 1 - sigmoid, x / (1 + |x|) far out). Here the
value and the partials are written separately; the partials are ordinary graph expressions of the
arguments, so they differentiate again (second derivatives come from their chain rule).
"""

from __future__ import annotations

from .. import numpy_like as snp
from ..custom_vjp import custom_vjp


def with_partials(name: str, value, partials):
    """``value(*xs)`` whose derivative in ``xs[i]`` is ``partials(*xs)[i]``. The arguments must
    have one shape (broadcast them first): each partial multiplies the output cotangent."""
    f = custom_vjp(value)
    f.__name__ = name

    def fwd(*xs):
        return value(*xs), xs

    def bwd(xs, g):
        return tuple(snp.multiply(g, d) for d in partials(*xs))

    f.defvjp(fwd, bwd)
    return f


__all__ = ["with_partials"]
