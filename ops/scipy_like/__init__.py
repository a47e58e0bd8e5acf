"""sg.scipy: scipy's names and semantics where graphs need them (ops layer).

sg.scipy.optimize needs gradients, so it lives above transforms (train/scipy_optimize.py);
the package's __init__ hangs it here, where users look for it.

The namespaces load on first use (PEP 562 ``__getattr__``): no op is defined
here (each lowers to the primitives' OpDefs, registered elsewhere), so a
program that never touches sg.scipy does not pay for its forty modules at
import.
"""

from ..._lazy import on_first_use

__all__ = ["cluster", "fft", "integrate", "interpolate", "linalg", "ndimage", "signal", "spatial", "special",
           "stats"]  # fmt: skip


__getattr__, __dir__ = on_first_use(__name__, {name: (f".{name}", None) for name in __all__})
