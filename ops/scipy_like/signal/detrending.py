"""sg.scipy.signal.detrend: remove the mean or a least-squares line per piece (ops layer).

The line through each piece between breakpoints is written in closed form
(mean plus slope times the centred index), so the result is exact for
length-1 pieces (slope 0) and differentiable everywhere.
"""

from __future__ import annotations

import numpy as np

from ....graph import library
from ... import numpy_like as snp
from ...numpy_like.core import error, normalize_axis
from ..inexact import as_inexact


def _line_removed(piece):
    """``piece`` (time on axis 0) minus its least-squares line."""
    m = piece.shape[0]
    t = np.arange(m, dtype=np.float64) - (m - 1) / 2.0
    centred = piece - snp.mean(piece, axis=0, keepdims=True)
    if m < 2:
        return centred
    shape = (m,) + (1,) * (piece.ndim - 1)
    tt = snp.asarray(t.reshape(shape), snp.real(piece).dtype)
    slope = snp.sum(tt * centred, axis=0, keepdims=True) / float(np.sum(t * t))
    return centred - tt * slope


@library()
def detrend(data, axis: int = -1, type: str = "linear", bp=0, overwrite_data=None):  # noqa: A002
    """``data`` less its trend along ``axis`` (scipy.signal.detrend).

    ``type``: 'constant' (or 'c') removes the mean; 'linear' (or 'l') removes a
    least-squares line fitted on each piece between the breakpoints ``bp``
    (indices along ``axis``). ``overwrite_data`` is accepted and ignored:
    graphs do not write in place.
    """
    del overwrite_data
    kind = {"c": "constant", "l": "linear"}.get(type, type)
    if kind not in ("constant", "linear"):
        raise error(f"detrend wants type 'linear' or 'constant', got {type!r}")
    (x,) = as_inexact(data)
    ax = normalize_axis(axis, x.ndim)
    if kind == "constant":
        return x - snp.mean(x, axis=ax, keepdims=True)
    n = x.shape[ax]
    if not isinstance(n, int):
        raise error(f"detrend 'linear' wants a static length along axis {ax}, got {x.type}")
    bps = np.sort(np.unique(np.r_[0, np.asarray(bp, dtype=np.int64).ravel(), n]))
    if bps[0] < 0 or bps[-1] > n:
        raise error(f"detrend wants breakpoints in [0, {n}] (the length along axis {ax}), got {bp!r}")
    moved = snp.moveaxis(x, ax, 0)
    pieces = [_line_removed(moved[int(a) : int(b)]) for a, b in zip(bps[:-1], bps[1:]) if b > a]
    if not pieces:
        return x
    out = pieces[0] if len(pieces) == 1 else snp.concatenate(pieces, axis=0)
    return snp.moveaxis(out, 0, ax)


__all__ = ["detrend"]
