"""What needs gradients to exist (train layer, above backend and transforms): sg.optim's
optimizers, schedules and clipping, sg.scipy.optimize's minimize, and sg.train.Loop, the
managed training loop (checkpoints, TensorBoard, resume). They import sg.gradients directly,
so the layer contract sees every dependency."""

import importlib

from . import optim, scipy_optimize

__all__ = ["optim", "scipy_optimize", "Loop", "EarlyStopping"]

# the managed loop (with its TensorBoard writer and input pipelines) loads on first use (PEP 562)
_ON_FIRST_USE = {"Loop": "loop", "EarlyStopping": "loop_hooks"}


def __getattr__(name: str):
    """Imports the module of ``Loop`` or ``EarlyStopping`` when first read."""
    if name not in _ON_FIRST_USE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_ON_FIRST_USE[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The loaded names and those loaded on first use."""
    return sorted(set(globals()) | set(_ON_FIRST_USE))
