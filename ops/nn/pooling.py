"""Pooling over the spatial dims of channels-last inputs, as flax.linen's pools (sg.nn, ops layer).

``max_pool``, ``min_pool`` and ``avg_pool`` take inputs (batch..., spatial...,
features) with one spatial dim per entry of ``window_shape`` (no batch dim
is fine too) and reduce windows with ops/primitives/windowed.py's ``window_reduce``
(stablehlo.reduce_window; its gradient is select_and_scatter for max/min).
``padding`` is "VALID", "SAME", "SAME_LOWER" or (lo, hi) pairs per spatial
dim; padding holds -inf for max (+inf for min) and 0 for avg, whose divisor
counts the padding (``count_include_pad=True``, flax's default) or only the
real entries. TF1's ``ksize``/``strides`` with one entry per input dim (1 at
the batch and channel dims of NHWC) work too.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ...graph import Tensor, dtypes, library
from ..numpy_like.core import asarray, error
from ..primitives.windowed import padding_pairs, window_reduce

__all__ = ["avg_pool", "max_pool", "min_pool"]


def _window(window_shape, window, who: str, ksize=None) -> tuple:
    given = [w for w in (window_shape, window, ksize) if w is not None]
    if len(given) != 1:
        raise error(f"{who} wants the window as window_shape (or window=, or TF1's ksize=), exactly once")
    shape = given[0]
    if isinstance(shape, numbers.Integral):
        raise error(f"{who} wants window_shape as a tuple (e.g. (2, 2)), got {shape!r}")
    shape = tuple(int(w) for w in shape)
    if not shape or any(w < 1 for w in shape):
        raise error(f"{who} wants a window_shape of positive ints, got {shape}")
    return shape


def _tf1_window(x, window: tuple, strides, who: str) -> tuple[tuple, tuple | None]:
    """TF1's ``ksize`` and ``strides`` (one entry per dim of an NHWC input, 1 at batch and channels)
    as the spatial window and strides; other windows pass as they are."""
    if len(window) != x.ndim:
        return window, strides
    strides = None if strides is None else tuple(int(s) for s in strides)
    for what, v in (("ksize", window), ("strides", strides)):
        if v is not None and (len(v) != x.ndim or v[0] != 1 or v[-1] != 1):
            raise error(
                f"{who} with TF1's {x.ndim}-entry ksize wants {what} [1, ..., 1] over (N, spatial, C), got {v}"
            )
    return window[1:-1], None if strides is None else strides[1:-1]


def _pool(x, kind: str, window: tuple, strides, padding, who: str) -> tuple[Tensor, tuple, tuple]:
    """``window_reduce`` over the spatial dims; also the full window and padding it used."""
    window, strides = _tf1_window(x, window, strides, who)
    n = len(window)
    if x.ndim < n + 1:
        raise error(
            f"{who} with a {n}-d window wants inputs (batch..., {n} spatial dims, features), got {x.type}"
        )
    strides = (1,) * n if strides is None else tuple(int(s) for s in strides)
    if len(strides) != n:
        raise error(f"{who} wants one stride per window dim ({n}), got {strides}")
    lead = x.ndim - n - 1
    spatial = x.shape[lead : lead + n]
    if isinstance(padding, str):
        pairs = padding_pairs(padding, spatial, window, strides)
    else:
        pairs = tuple((int(lo), int(hi)) for lo, hi in padding)
        if len(pairs) != n:
            raise error(f"{who} wants one (lo, hi) padding pair per window dim ({n}), got {padding!r}")
    full_window = (1,) * lead + window + (1,)
    full_pairs = ((0, 0),) * lead + pairs + ((0, 0),)
    y = window_reduce(x, kind, full_window, (1,) * lead + strides + (1,), full_pairs)
    return y, full_window, full_pairs


@library()
def max_pool(inputs, window_shape=None, strides=None, padding="VALID", *, window=None, ksize=None) -> Tensor:
    """The max over each window of the spatial dims (flax.linen.max_pool); strides default to 1.

    ``h = sg.nn.max_pool(h, (2, 2), strides=(2, 2))`` (or ``window=(2, 2)``) halves an NHWC image;
    so does TF1's spelling ``sg.nn.max_pool(h, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")``.
    """
    x = asarray(inputs)
    return _pool(x, "max", _window(window_shape, window, "max_pool", ksize), strides, padding, "max_pool")[0]


@library()
def min_pool(inputs, window_shape=None, strides=None, padding="VALID", *, window=None, ksize=None) -> Tensor:
    """The min over each window of the spatial dims (flax.linen.min_pool)."""
    x = asarray(inputs)
    return _pool(x, "min", _window(window_shape, window, "min_pool", ksize), strides, padding, "min_pool")[0]


@library()
def avg_pool(
    inputs,
    window_shape=None,
    strides=None,
    padding="VALID",
    count_include_pad: bool = True,
    *,
    window=None,
    ksize=None,
) -> Tensor:
    """The mean over each window of the spatial dims (flax.linen.avg_pool).

    ``count_include_pad=True`` divides every window by its full size;
    False divides by the number of real (unpadded) entries it covers.
    """
    x = asarray(inputs)
    if not x.dtype.is_floating:
        x = x.astype(dtypes.float32)
    shape, strides = _tf1_window(x, _window(window_shape, window, "avg_pool", ksize), strides, "avg_pool")
    total, full_window, full_pairs = _pool(x, "sum", shape, strides, padding, "avg_pool")
    if count_include_pad:
        return total / float(math.prod(shape))
    lead = x.ndim - len(shape) - 1
    spatial = tuple(x.shape[lead:-1])
    if not all(isinstance(d, int) for d in spatial):
        raise error(f"avg_pool with count_include_pad=False wants static spatial dims, got {x.type}")
    ones = asarray(np.ones((1,) * lead + spatial + (1,), x.dtype.np))
    strides_full = (
        (1,) * lead + ((1,) * len(shape) if strides is None else tuple(int(s) for s in strides)) + (1,)
    )
    counts = window_reduce(ones, "sum", full_window, strides_full, full_pairs)
    return total / counts
