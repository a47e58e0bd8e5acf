"""Histograms: histogram_bin_edges, histogram, histogram2d, histogramdd (ops layer).

Bin edges come from a static count and range (or the data's min and max, computed
in the graph) or are given; every sample finds its bin with searchsorted and
the counts are a scatter-add, so the shapes stay static.
"""

from __future__ import annotations

import numpy as np

from ...graph import Tensor, dtypes
from ..primitives.compare import convert
from .core import asarray, error
from .creation import linspace, zeros
from .manipulation import clip, ravel, reshape, stack
from .reductions import max as reduce_max
from .reductions import min as reduce_min
from .reductions import sum as reduce_sum
from .set_ops import searchsorted
from .ufuncs import add, equal, greater, less, logical_or, multiply, subtract, true_divide, where


def _float(dt):
    return dt if dt.is_inexact else dtypes.float32


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """The edges of ``bins`` equal bins over ``range`` (the data's min to max by default), or
    ``bins`` itself when it is an array of edges."""
    x = ravel(asarray(a))
    dt = _float(x.dtype)
    if not isinstance(bins, int | np.integer):
        edges = asarray(bins)
        if edges.ndim != 1:
            raise error(f"histogram wants an int bin count or 1-d edges, got {edges.type}")
        return convert(edges, dt) if not edges.dtype.is_inexact else edges
    if bins < 1:
        raise error(f"histogram wants a positive bin count, got {bins}")
    if range is not None:
        lo, hi = (asarray(v, dt) for v in range)
    else:
        lo, hi = convert(reduce_min(x), dt), convert(reduce_max(x), dt)
    same = equal(lo, hi)  # numpy widens an empty range to +-0.5
    lo, hi = where(same, subtract(lo, 0.5), lo), where(same, add(hi, 0.5), hi)
    return linspace(lo, hi, int(bins) + 1, dtype=dt)


def _bin_index(x, edges):
    """Each sample's bin (the last bin closed on the right); len(edges) - 1 for samples outside."""
    n_bins = edges.shape[0] - 1
    i = subtract(searchsorted(edges, x, side="right"), 1)
    i = where(equal(x, edges[-1]), n_bins - 1, i)
    outside = logical_or(less(x, edges[0]), greater(x, edges[-1]))
    return where(outside, n_bins, clip(i, 0, n_bins))


def histogram(a, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """(counts, edges): how many samples (or how much weight) fall in each bin; ``density``
    normalizes to a probability density."""
    x = ravel(asarray(a))
    edges = histogram_bin_edges(x, bins, range)
    idx = _bin_index(convert(x, edges.dtype), edges)
    n_bins = edges.shape[0] - 1
    w = asarray(1, edges.dtype) if weights is None else ravel(asarray(weights, edges.dtype))
    counts = zeros((n_bins,), edges.dtype).at[idx].add(w)
    if density:
        widths = subtract(edges[1:], edges[:-1])
        counts = true_divide(true_divide(counts, reduce_sum(counts)), widths)
    return counts, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """(counts, edges per dim) of the N samples of D dims in ``sample`` (N, D)."""
    s = asarray(sample)
    if s.ndim != 2:
        raise error(f"histogramdd wants samples of shape (N, D), got {s.type}")
    d = s.shape[1]
    if isinstance(bins, int | np.integer) or isinstance(bins, Tensor):
        bins = [bins] * d
    if len(bins) != d:
        raise error(f"histogramdd got {len(bins)} bin specs for {d} dims")
    ranges = [None] * d if range is None else list(range)
    edges, flat, dropped, size = [], None, None, 1
    dt = _float(s.dtype)
    for k in np.arange(d)[::-1]:
        col = convert(s[:, int(k)], dt)
        e = histogram_bin_edges(col, bins[k], ranges[k])
        n_bins = e.shape[0] - 1
        idx = _bin_index(col, e)
        outside = equal(idx, n_bins)
        flat = idx if flat is None else add(multiply(idx, size), flat)
        dropped = outside if dropped is None else logical_or(dropped, outside)
        edges.insert(0, e)
        size *= n_bins
    flat = where(dropped, size, flat)  # outside some dim's bins: dropped by the scatter
    w = asarray(1, dt) if weights is None else ravel(asarray(weights, dt))
    counts = zeros((size,), dt).at[flat].add(w)
    counts = reshape(counts, tuple(e.shape[0] - 1 for e in edges))
    if density:
        counts = true_divide(counts, reduce_sum(counts))
        for k, e in enumerate(edges):
            widths = subtract(e[1:], e[:-1])
            counts = true_divide(counts, reshape(widths, tuple(-1 if j == k else 1 for j in np.arange(d))))
    return counts, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):  # noqa: A002
    """(counts, x edges, y edges) of the points (x[i], y[i])."""
    counts, edges = histogramdd(
        stack([ravel(asarray(x)), ravel(asarray(y))], axis=1), bins, range, weights, density
    )
    return counts, edges[0], edges[1]


__all__ = ["histogram", "histogram2d", "histogram_bin_edges", "histogramdd"]
