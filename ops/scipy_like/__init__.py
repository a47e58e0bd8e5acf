"""sg.scipy: scipy's names and semantics where graphs need them (ops layer)."""

from . import special

__all__ = ["special"]
