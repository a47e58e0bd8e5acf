"""The windows sg.scipy.signal's spectral functions take by name (ops layer).

scipy.signal.get_window's periodic ('fftbins') windows for the names below,
computed with numpy when the graph is built (their length is static); any
other window is passed as an array. scipy is not a runtime dependency, so
the formulas are written here.
"""

from __future__ import annotations

import numpy as np

from ...numpy_like.core import error


def _cosine_sum(n: int, coefficients) -> np.ndarray:
    t = 2 * np.pi * np.arange(n) / n
    return sum(((-1) ** k) * c * np.cos(k * t) for k, c in enumerate(coefficients))


def _triangle(n: int, bartlett: bool) -> np.ndarray:
    m = n + 1  # periodic: the symmetric window one longer, its last point dropped
    k = np.arange(m)
    if bartlett:
        w = 1 - np.abs(2 * k / (m - 1) - 1) if m > 1 else np.ones(1)
    else:
        half = (m + 1) // 2 if m % 2 else m // 2
        j = np.arange(1, half + 1)
        up = (2 * j - 1) / m if m % 2 == 0 else 2 * j / (m + 1)
        w = np.concatenate([up, up[::-1][m % 2 :]])
    return w[:n]


def _tukey(n: int, alpha: float) -> np.ndarray:
    m = n + 1
    if alpha <= 0:
        return np.ones(n)
    if alpha >= 1:
        return _cosine_sum(n, (0.5, 0.5))
    k = np.arange(m)
    width = int(np.floor(alpha * (m - 1) / 2.0))
    w = np.ones(m)
    lo, hi = k[: width + 1], k[m - width - 1 :]
    w[: width + 1] = 0.5 * (1 + np.cos(np.pi * (-1 + 2.0 * lo / alpha / (m - 1))))
    w[m - width - 1 :] = 0.5 * (1 + np.cos(np.pi * (-2.0 / alpha + 1 + 2.0 * hi / alpha / (m - 1))))
    return w[:n]


_NAMED = {
    "hann": lambda n: _cosine_sum(n, (0.5, 0.5)),
    "hamming": lambda n: _cosine_sum(n, (0.54, 0.46)),
    "blackman": lambda n: _cosine_sum(n, (0.42, 0.50, 0.08)),
    "boxcar": np.ones,
    "bartlett": lambda n: _triangle(n, True),
    "triang": lambda n: _triangle(n, False),
    "cosine": lambda n: np.sin(np.pi * (np.arange(n) + 0.5) / (n + 1)),
}
_ALIASES = {"hanning": "hann", "han": "hann", "hamm": "hamming", "ham": "hamming", "black": "blackman",
            "blk": "blackman", "box": "boxcar", "ones": "boxcar", "rect": "boxcar", "rectangular": "boxcar",
            "bart": "bartlett", "brt": "bartlett", "tri": "triang", "triangle": "triang", "halfcosine": "cosine"}  # fmt: skip


def get_window(window, nperseg: int) -> np.ndarray:
    """The periodic window ``window`` (a name, or ('tukey', alpha)) of length ``nperseg``, as float64."""
    if nperseg == 1:
        return np.ones(1)
    if isinstance(window, tuple):
        if len(window) == 2 and window[0] in ("tukey", "tuk"):
            return _tukey(nperseg, float(window[1]))
        raise error(
            f"windows with parameters: only ('tukey', alpha) is built in, got {window!r}; pass an array"
        )
    name = _ALIASES.get(window, window)
    if name not in _NAMED:
        raise error(f"unknown window {window!r}: the names are {sorted(_NAMED)} and ('tukey', alpha); "
                    "pass any other window as an array")  # fmt: skip
    return np.asarray(_NAMED[name](nperseg), dtype=np.float64)


def triage(window, nperseg, length: int, fn: str) -> tuple[np.ndarray, int]:
    """scipy's window and segment length: a named window is ``nperseg`` long (256 if None, at most
    ``length``); an array window gives the length itself."""
    if isinstance(window, (str, tuple)):
        n = 256 if nperseg is None else int(nperseg)
        if n < 1:
            raise error(f"{fn} wants a positive nperseg, got {nperseg}")
        return get_window(window, min(n, length) if length > 0 else n), (min(n, length) if length > 0 else n)
    if not isinstance(window, (list, np.ndarray)):
        raise error(
            f"{fn} wants the window as a name or a numpy array (its length is static), got {window!r}"
        )
    win = np.asarray(window, dtype=np.float64)
    if win.ndim != 1:
        raise error(f"{fn} wants a 1-d window, got shape {win.shape}")
    if length < win.size:
        raise error(f"{fn}: the window ({win.size}) is longer than the signal ({length})")
    if nperseg is not None and int(nperseg) != win.size:
        raise error(f"{fn}: nperseg={nperseg} differs from the window's length {win.size}")
    return win, win.size


__all__ = ["get_window", "triage"]
