"""sg.scipy.signal: jax.scipy.signal's functions with scipy.signal's semantics (ops layer).

Convolutions (convolution.py), detrend (detrending.py) and the windowed-FFT
functions (spectral.py, windows by name from windows.py). Each is a library
call: one line in listings.
"""

from .convolution import convolve, convolve2d, correlate, correlate2d, fftconvolve
from .detrending import detrend
from .spectral import csd, istft, stft, welch

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "csd", "detrend", "fftconvolve", "istft",
           "stft", "welch"]  # fmt: skip
