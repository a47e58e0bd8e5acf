"""Lowering to StableHLO, the PJRT glue, and the Session (backend layer)."""

from ..sharding import set_device_provider
from . import pjrt
from .program import Compiled, Lowered
from .session import Session

set_device_provider(pjrt.devices)  # sg.devices / sg.make_mesh take their devices from PJRT clients

__all__ = ["Session", "Lowered", "Compiled"]
