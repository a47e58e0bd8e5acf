"""Lowering to StableHLO, the PJRT glue, and the Session (backend layer)."""

import importlib

from ..sharding import set_device_provider
from . import pjrt
from .program import Compiled, Lowered
from .session import Session

set_device_provider(pjrt.devices)  # sg.devices / sg.make_mesh take their devices from PJRT clients

# export and loading (and the flatbuffer writer behind them) load on first use (PEP 562): a
# training process seldom needs them
_ON_FIRST_USE = {
    "ExportError": "export_file",
    "Exported": "exported",
    "Signature": "exported",
    "export": "loading",
    "load_exported": "loading",
}


def __getattr__(name: str):
    """Imports the module that defines ``name`` of ``_ON_FIRST_USE`` when first read."""
    if name not in _ON_FIRST_USE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_ON_FIRST_USE[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The loaded names and those loaded on first use."""
    return sorted(set(globals()) | set(_ON_FIRST_USE))


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
