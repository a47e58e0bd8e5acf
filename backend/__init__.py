"""Lowering to StableHLO, the PJRT glue, and the Session (backend layer)."""

from .session import Compiled, Lowered, Session

__all__ = ["Session", "Lowered", "Compiled"]
