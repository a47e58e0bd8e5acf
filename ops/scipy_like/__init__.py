"""sg.scipy: scipy's names and semantics where graphs need them (ops layer).

sg.scipy.optimize needs gradients, so it lives above transforms (train/scipy_optimize.py);
the package's __init__ hangs it here, where users look for it.

The namespaces load on first use (PEP 562 ``__getattr__``): no op is defined
here (each lowers to the primitives' OpDefs, registered elsewhere), so a
program that never touches sg.scipy does not pay for its forty modules at
import.
"""

import importlib

__all__ = ["cluster", "fft", "integrate", "interpolate", "linalg", "ndimage", "signal", "spatial", "special",
           "stats"]  # fmt: skip


def __getattr__(name: str):
    """Imports the namespace ``name`` on first access (the import also sets it as an attribute)."""
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The loaded names and the namespaces not loaded yet, as an eager package would list them."""
    return sorted(set(globals()) | set(__all__))
