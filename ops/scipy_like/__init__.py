"""sg.scipy: scipy's names and semantics where graphs need them (ops layer)."""

from . import linalg, optimize, special, stats

__all__ = ["linalg", "optimize", "special", "stats"]
