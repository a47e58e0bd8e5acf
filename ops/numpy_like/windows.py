"""Window functions for signal processing: bartlett, blackman, hamming, hanning, kaiser (ops layer).

Each is a formula of n = 0..M-1 built from iota, so M must be a static int.
"""

from __future__ import annotations

import numpy as np

from ...graph import dtypes
from ..primitives.constants import iota
from . import math_ufuncs
from .core import error
from .creation import ones, zeros
from .ufuncs import absolute, cos, multiply, sqrt, subtract, true_divide

_DT = dtypes.float32


def _ramp(M: int, what: str):
    if not isinstance(M, int | np.integer):
        raise error(f"{what} wants a static int length, got {M!r}")
    return iota(_DT, (int(M),))


def _trivial(M: int):
    return zeros((0,), _DT) if M < 1 else ones((1,), _DT)


def bartlett(M: int):
    """The triangular window 1 - |2n/(M-1) - 1|."""
    n = _ramp(M, "bartlett")
    if M < 2:
        return _trivial(M)
    return subtract(1.0, absolute(subtract(multiply(n, 2.0 / (M - 1)), 1.0)))


def _cosine_sum(M: int, coefficients, what: str):
    n = _ramp(M, what)
    if M < 2:
        return _trivial(M)
    out = None
    for k, a in enumerate(coefficients):
        term = multiply(cos(multiply(n, 2.0 * np.pi * k / (M - 1))), a) if k else a
        out = term if out is None else out + term
    return out


def hanning(M: int):
    """The Hann window 0.5 - 0.5 cos(2 pi n / (M-1))."""
    return _cosine_sum(M, (0.5, -0.5), "hanning")


def hamming(M: int):
    """The Hamming window 0.54 - 0.46 cos(2 pi n / (M-1))."""
    return _cosine_sum(M, (0.54, -0.46), "hamming")


def blackman(M: int):
    """The Blackman window 0.42 - 0.5 cos(2 pi n/(M-1)) + 0.08 cos(4 pi n/(M-1))."""
    return _cosine_sum(M, (0.42, -0.5, 0.08), "blackman")


def kaiser(M: int, beta):
    """The Kaiser window I0(beta sqrt(1 - (2n/(M-1) - 1)^2)) / I0(beta)."""
    n = _ramp(M, "kaiser")
    if M < 2:
        return _trivial(M)
    t = subtract(multiply(n, 2.0 / (M - 1)), 1.0)
    arg = multiply(sqrt(subtract(1.0, multiply(t, t))), beta)
    i0 = math_ufuncs.i0
    return true_divide(i0(arg), i0(np.float32(beta)))


__all__ = ["bartlett", "blackman", "hamming", "hanning", "kaiser"]
