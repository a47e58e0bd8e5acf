"""Lowering to StableHLO, the PJRT glue, and the Session (backend layer)."""

from .._lazy import on_first_use
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


__getattr__, __dir__ = on_first_use(
    __name__, {name: (f".{module}", name) for name, module in _ON_FIRST_USE.items()}
)

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
