"""Lowering to StableHLO, the PJRT glue, and the Session (backend layer)."""

from ..sharding import set_device_provider
from . import pjrt
from .export_file import ExportError
from .exported import Exported, Signature
from .loading import export, load_exported
from .program import Compiled, Lowered
from .session import Session

set_device_provider(pjrt.devices)  # sg.devices / sg.make_mesh take their devices from PJRT clients

__all__ = [
    "Session",
    "Lowered",
    "Compiled",
    "Exported",
    "ExportError",
    "Signature",
    "export",
    "load_exported",
]
