"""What needs gradients to exist (train layer, above backend and transforms): sg.optim's
optimizers, schedules and clipping, sg.scipy.optimize's minimize, and sg.train.Loop, the
managed training loop (checkpoints, TensorBoard, resume). They import sg.gradients directly,
so the layer contract sees every dependency."""

from . import optim, scipy_optimize
from .loop import Loop
from .loop_hooks import EarlyStopping

__all__ = ["optim", "scipy_optimize", "Loop", "EarlyStopping"]
