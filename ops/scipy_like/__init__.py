"""sg.scipy: scipy's names and semantics where graphs need them (ops layer).

sg.scipy.optimize needs gradients, so it lives above transforms (train/scipy_optimize.py);
the package's __init__ hangs it here, where users look for it.
"""

from . import linalg, special, stats

__all__ = ["linalg", "special", "stats"]
