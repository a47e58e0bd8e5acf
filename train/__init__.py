"""What needs gradients to exist (train layer, above backend and transforms): sg.optim's
optimizers, schedules and clipping, sg.scipy.optimize's minimize, and sg.train.Loop, the
managed training loop (checkpoints, TensorBoard, resume). They import sg.gradients directly,
so the layer contract sees every dependency."""

from .._lazy import on_first_use
from . import optim, scipy_optimize

__all__ = ["optim", "scipy_optimize", "Loop", "EarlyStopping"]

# the managed loop (with its TensorBoard writer and input pipelines) loads on first use (PEP 562)
_ON_FIRST_USE = {"Loop": "loop", "EarlyStopping": "loop_hooks"}


__getattr__, __dir__ = on_first_use(
    __name__, {name: (f".{module}", name) for name, module in _ON_FIRST_USE.items()}
)
