"""What needs gradients to exist (train layer, above backend and transforms): sg.optim's
optimizers, schedules and clipping, and sg.scipy.optimize's minimize. They import
sg.gradients directly, so the layer contract sees every dependency."""

from . import optim, scipy_optimize

__all__ = ["optim", "scipy_optimize"]
