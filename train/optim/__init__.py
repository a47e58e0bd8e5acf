"""sg.optim: optimizers, schedules and clipping as graph ops (train layer).

    opt = sg.optim.adam(sg.optim.cosine_decay(1e-3, steps=2000))
    train = opt.minimize(loss)          # one train op: every trainable variable + global_step
    l, _ = sess.run([loss, train], {x: xb, y: yb})

Optimizers follow optax's math; their state is non-trainable Variables named
under each variable (``fc1/kernel/adam/mu``). Schedules map the global step
(at the start of the run) to a learning rate.
"""

from .base import Optimizer
from .clipping import clip_by_global_norm, global_norm
from .optimizers import adagrad, adam, adamw, momentum, rmsprop, sgd
from .schedules import (
    Schedule,
    constant,
    constant_schedule,
    cosine_decay,
    exponential_decay,
    linear_decay,
    linear_schedule,
    warmup,
    warmup_cosine_decay,
)

__all__ = [
    "Optimizer", "Schedule", "sgd", "momentum", "adam", "adamw", "rmsprop", "adagrad",
    "constant", "constant_schedule", "exponential_decay", "cosine_decay", "linear_decay", "linear_schedule",
    "warmup", "warmup_cosine_decay", "clip_by_global_norm", "global_norm",
]  # fmt: skip
