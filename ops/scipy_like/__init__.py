"""sg.scipy: scipy's names and semantics where graphs need them (ops layer).

sg.scipy.optimize needs gradients, so it lives above transforms (train/scipy_optimize.py);
the package's __init__ hangs it here, where users look for it.
"""

from . import cluster, fft, integrate, interpolate, linalg, ndimage, signal, spatial, special, stats

__all__ = ["cluster", "fft", "integrate", "interpolate", "linalg", "ndimage", "signal", "spatial", "special",
           "stats"]  # fmt: skip
