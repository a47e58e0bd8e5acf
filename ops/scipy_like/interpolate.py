"""sg.scipy.interpolate: RegularGridInterpolator, interpolation on a rectilinear grid (ops layer).

As jax.scipy.interpolate.RegularGridInterpolator: methods 'linear' and
'nearest', points outside the grid get ``fill_value`` (None extrapolates
from the edge cells). The grid's axes are found with searchsorted, the
2^ndim cell corners are gathered and weighted, so the result is
differentiable in the values and in the query points.
"""

from __future__ import annotations

import itertools

import numpy as np

from ...graph import Tensor, dtypes
from .. import numpy_like as snp
from ..numpy_like.core import error
from .inexact import inexact_dtype

_METHODS = ("linear", "nearest")


class RegularGridInterpolator:
    """Interpolate ``values`` (shape (n1, ..., nd, ...)) given on the grid ``points`` (d 1-d
    strictly ascending arrays of lengths n1..nd), as scipy.interpolate.RegularGridInterpolator.

    ``interp(xi)`` takes query points of shape (..., d) (or a tuple of d
    arrays that broadcast) and returns shape (...) + values.shape[d:].
    ``bounds_error=True`` is not available (it would need the values at build
    time); out-of-grid points read ``fill_value`` (nan by default).
    """

    def __init__(self, points, values, method: str = "linear", bounds_error: bool = False, fill_value=np.nan):
        if method not in _METHODS:
            raise error(f"RegularGridInterpolator wants method in {_METHODS}, got {method!r}")
        if bounds_error:
            raise error("RegularGridInterpolator: bounds_error=True needs the query values while the graph is "
                        "built; use fill_value (nan by default) to mark points outside the grid")  # fmt: skip
        self.method = method
        self.bounds_error = bounds_error
        self.fill_value = fill_value
        vals = snp.asarray(values)
        dt = inexact_dtype(vals, *points)  # float64 grid points make the result float64, as jax's promotion
        self.values = snp.asarray(vals, dt)
        if len(points) > self.values.ndim:
            raise error(f"RegularGridInterpolator: {len(points)} grid axes but values are {self.values.type}")
        self.grid = []
        for i, p in enumerate(points):
            if not isinstance(p, Tensor):
                arr = np.asarray(p)
                if arr.ndim != 1 or (arr.size > 1 and not np.all(np.diff(arr) > 0)):
                    raise error(f"RegularGridInterpolator wants strictly ascending 1-d points on axis {i}")
            g = snp.asarray(p, snp.real(self.values).dtype)
            if g.ndim != 1 or g.shape[0] != self.values.shape[i]:
                raise error(f"RegularGridInterpolator: points[{i}] is {g.type}, values' axis {i} has "
                            f"{self.values.shape[i]} entries")  # fmt: skip
            self.grid.append(g)

    def _queries(self, xi):
        d = len(self.grid)
        if isinstance(xi, (tuple, list)) and len(xi) == d and not np.isscalar(xi[0]):
            parts = [snp.asarray(c) for c in xi]
            return snp.broadcast_arrays(*parts) if parts else []
        q = snp.asarray(xi)
        if q.ndim == 0 or q.shape[-1] != d:
            raise error(f"RegularGridInterpolator wants query points of shape (..., {d}), got {q.type}")
        return [q[..., i] for i in range(d)]

    def __call__(self, xi, method: str | None = None):
        """The interpolated values at ``xi`` (method defaults to the one given at construction)."""
        method = self.method if method is None else method
        if method not in _METHODS:
            raise error(f"RegularGridInterpolator wants method in {_METHODS}, got {method!r}")
        real = snp.real(self.values).dtype
        coords = [snp.asarray(c, real) for c in self._queries(xi)]
        cells, outside = [], None
        for g, c in zip(self.grid, coords):
            n = g.shape[0]
            i = snp.clip(snp.searchsorted(g, c) - 1, 0, max(n - 2, 0))
            lo = snp.take(g, i)
            hi = snp.take(g, snp.minimum(i + 1, n - 1))
            span = hi - lo
            t = (c - lo) / snp.where(span == 0, snp.ones_like(span), span)
            cells.append((snp.asarray(i, dtypes.int32), t, n))
            off = snp.logical_or(c < g[0], c > g[n - 1])
            outside = off if outside is None else snp.logical_or(outside, off)
        extra = self.values.ndim - len(self.grid)
        if method == "nearest":
            index = tuple(snp.where(t <= 0.5, i, snp.minimum(i + 1, n - 1)) for i, t, n in cells)
            out = self.values[index]
        else:
            out = None
            for corner in itertools.product((0, 1), repeat=len(cells)):
                index = tuple(snp.minimum(i + k, n - 1) for (i, _, n), k in zip(cells, corner))
                weight = None
                for (_, t, _), k in zip(cells, corner):
                    w = t if k else 1.0 - t
                    weight = w if weight is None else weight * w
                term = self.values[index] * snp.reshape(weight, tuple(weight.shape) + (1,) * extra)
                out = term if out is None else out + term
        if self.fill_value is not None and outside is not None:
            mask = snp.reshape(outside, tuple(outside.shape) + (1,) * extra)
            out = snp.where(mask, snp.asarray(self.fill_value, out.dtype), out)
        return out


__all__ = ["RegularGridInterpolator"]
