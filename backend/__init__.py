"""Lowering to StableHLO, the PJRT glue, and the Session (backend layer)."""

from .program import Compiled, Lowered
from .session import Session

__all__ = ["Session", "Lowered", "Compiled"]
