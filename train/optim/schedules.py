"""Learning-rate schedules: callables ``step -> value`` with optax's formulas (train layer).

A schedule takes the update number (the global step at the start of a run,
0 for the first update) and gives the learning rate. Called on a Tensor
(``sg.global_step()``) it builds graph ops and returns a float32 Tensor;
called on a Python int it returns a Python float, handy for plotting or
checking a schedule before training:

    lr = sg.optim.warmup(sg.optim.cosine_decay(1e-3, steps=2000), warmup_steps=100)
    lr(0), lr(100), lr(sg.global_step())
"""

from __future__ import annotations

import math

from ...graph import Tensor, dtypes, library_call
from ...graph.library import returns
from ...ops import numpy_like as snp
from . import checks

__all__ = [
    "constant", "constant_schedule", "exponential_decay", "cosine_decay", "linear_decay",
    "linear_schedule", "warmup", "warmup_cosine_decay",
]  # fmt: skip


class Schedule:
    """A learning-rate schedule: ``schedule(step)`` for an int32 Tensor or a Python int.

    On a Tensor it is one library call (graph/calls.py) named after the
    schedule (``cosine_decay``).
    """

    def __init__(self, fn, description: str):
        self._fn = fn
        self._description = description
        self.name = description.partition("(")[0]

    def __call__(self, step):
        if isinstance(step, Tensor):
            with library_call(self.name, "learning_rate") as call:
                lr = self._fn(step.astype(dtypes.float32), _graph_math)
                returns(call, lr)
            return lr
        return float(self._fn(float(step), _python_math))

    def __repr__(self) -> str:
        return f"<schedule {self._description}>"


class _Math:
    """The few functions schedules need, for Tensors or for Python floats."""

    def __init__(self, minimum, maximum, cos, floor, where):
        self.minimum, self.maximum, self.cos, self.floor, self.where = minimum, maximum, cos, floor, where


_graph_math = _Math(snp.minimum, snp.maximum, snp.cos, snp.floor, snp.where)
_python_math = _Math(min, max, math.cos, math.floor, lambda c, a, b: a if c else b)


def _as_schedule(value) -> Schedule:
    return value if isinstance(value, Schedule) else constant(value) if _is_number(value) else _wrap(value)


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _wrap(fn) -> Schedule:
    if not callable(fn):
        raise checks.type_error(
            f"a schedule is a number or a callable step -> value, got {type(fn).__name__}"
        )

    def call(step, m):
        return fn(step)

    return Schedule(call, getattr(fn, "__name__", "callable"))


def _positive(name: str, steps) -> int:
    return checks.count(name, steps)


def _float(name: str, value) -> float:
    return checks.number(name, value)


def constant(value: float) -> Schedule:
    """The same value at every step: ``constant(1e-3)(k) == 1e-3``."""
    value = _float("constant value", value)
    return Schedule(lambda step, m: step * 0.0 + value, f"constant({value})")


constant_schedule = constant


def exponential_decay(value: float, steps: int, decay_rate: float, staircase: bool = False) -> Schedule:
    """``value * decay_rate ** (step / steps)``; with ``staircase`` the exponent is floored.

    Arguments in optax's order: ``exponential_decay(0.1, 1000, 0.5)`` halves the rate every 1000 steps.
    """
    steps = _positive("exponential_decay: steps", steps)
    value, decay_rate = (
        _float("exponential_decay: value", value),
        _float("exponential_decay: decay_rate", decay_rate),
    )

    def fn(step, m):
        p = step / steps
        return value * decay_rate ** (m.floor(p) if staircase else p)

    return Schedule(
        fn, f"exponential_decay({value}, steps={steps}, decay_rate={decay_rate}, staircase={staircase})"
    )


def cosine_decay(value: float, steps: int, alpha: float = 0.0) -> Schedule:
    """Half a cosine from ``value`` down to ``alpha * value`` over ``steps``, then flat.

    ``value * ((1 - alpha) * (1 + cos(pi * min(step, steps) / steps)) / 2 + alpha)``
    (optax's cosine_decay_schedule).
    """
    steps = _positive("cosine_decay: steps", steps)
    value, alpha = _float("cosine_decay: value", value), _float("cosine_decay: alpha", alpha)

    def fn(step, m):
        frac = m.minimum(step, float(steps)) / steps
        decayed = (1.0 - alpha) * 0.5 * (1.0 + m.cos(math.pi * frac))
        return value * (decayed + alpha if alpha else decayed)  # + 0.0 changes nothing: not built

    return Schedule(fn, f"cosine_decay({value}, steps={steps}, alpha={alpha})")


def linear_decay(value: float, steps: int, end: float = 0.0) -> Schedule:
    """A straight line from ``value`` at step 0 to ``end`` at ``steps``, then flat at ``end``."""
    steps = _positive("linear_decay: steps", steps)
    value, end = _float("linear_decay: value", value), _float("linear_decay: end", end)

    def fn(step, m):
        return value + (end - value) * (m.minimum(m.maximum(step, 0.0), float(steps)) / steps)

    return Schedule(fn, f"linear_decay({value}, steps={steps}, end={end})")


linear_schedule = linear_decay


def warmup(schedule, warmup_steps: int, start: float = 0.0) -> Schedule:
    """Ramp linearly from ``start`` to ``schedule(0)`` over ``warmup_steps``, then follow
    ``schedule`` shifted by ``warmup_steps`` (``schedule`` may be a number: a constant).

    ``warmup(cosine_decay(1e-3, 1000), 100)`` gives 0 at step 0, 1e-3 at step 100
    and ``cosine_decay(1e-3, 1000)(k - 100)`` after.
    """
    warmup_steps = _positive("warmup: warmup_steps", warmup_steps)
    after = _as_schedule(schedule)
    start = _float("warmup: start", start)

    def fn(step, m):
        if m is _python_math:
            if step < warmup_steps:
                return start + (after(0) - start) * step / warmup_steps
            return after(int(step) - warmup_steps)
        peak = after._fn(step * 0.0, m)
        ramp = start + (peak - start) * (m.maximum(step, 0.0) / warmup_steps)
        return m.where(step < warmup_steps, ramp, after._fn(step - warmup_steps, m))

    return Schedule(fn, f"warmup({after!r}, warmup_steps={warmup_steps}, start={start})")


def warmup_cosine_decay(peak: float, warmup_steps: int, steps: int, end: float = 0.0) -> Schedule:
    """Linear warmup from 0 to ``peak`` over ``warmup_steps``, then a cosine down to ``end``
    at ``steps`` (counted from step 0, warmup included), as optax's warmup_cosine_decay_schedule."""
    warmup_steps = _positive("warmup_cosine_decay: warmup_steps", warmup_steps)
    steps = checks.count("warmup_cosine_decay: steps", steps)
    if steps <= warmup_steps:
        raise checks.error(
            f"warmup_cosine_decay: steps ({steps}) must be above warmup_steps ({warmup_steps}): "
            "steps counts from step 0, warmup included"
        )
    peak, end = _float("warmup_cosine_decay: peak", peak), _float("warmup_cosine_decay: end", end)
    alpha = end / peak if peak else 0.0
    return warmup(cosine_decay(peak, steps - warmup_steps, alpha=alpha), warmup_steps, start=0.0)
