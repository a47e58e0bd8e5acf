"""Argument checks of sg.optim's factories: typed errors at the user's line (train layer).

Hyperparameters (rates, betas, step counts, norms) are checked when the
optimizer, schedule or clipping is made, so a wrong one is a GraphError at
the line that passed it, not a NaN many steps later. A value of the wrong
kind (a string, a Tensor where a number must be known now) is a
GraphTypeError, which is also a TypeError.
"""

from __future__ import annotations

import math
import numbers

from ...graph import GraphError, located, user_location
from ...graph.errors import GraphTypeError

__all__ = ["error", "type_error", "number", "count"]


def error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def type_error(message: str) -> GraphTypeError:
    return GraphTypeError(located(message, user_location()))


def _spelled(value) -> str:
    return f"{type(value).__name__} {value!r:.40}"


def number(name: str, value, low: float | None = None, high: float | None = None, *, low_open=False,
           high_open=True) -> float:  # fmt: skip
    """``value`` as a finite float in the range, else an error naming ``name`` and the range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise type_error(f"{name} must be a number, got {_spelled(value)}")
    x = float(value)
    below = low is not None and (x < low or (low_open and x == low))
    above = high is not None and (x > high or (high_open and x == high))
    if not math.isfinite(x) or below or above:
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        span = (
            f"{'(' if low_open or low is None else '['}{lo}, {hi}{')' if high_open or high is None else ']'}"
        )
        raise error(f"{name} must be a finite number in {span}, got {value!r}")
    return x


def count(name: str, value, low: int = 1) -> int:
    """``value`` as an int >= ``low`` (a number of steps), else an error naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise type_error(f"{name} must be an int >= {low}, got {_spelled(value)}")
    if value < low:
        raise error(f"{name} must be an int >= {low}, got {value!r}")
    return int(value)
