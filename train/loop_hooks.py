"""What a managed loop (sg.train.Loop) calls as it trains: the hook protocol and EarlyStopping.

A hook is any object with some of these methods (each optional):

- ``on_step(loop, step, values)``: after every step, ``values`` {metric: that step's value};
- ``on_log(loop, step, means)``: at every ``log_every`` step, the metrics' means since the last log;
- ``on_checkpoint(loop, step, path)``: after a checkpoint was written;
- ``on_end(loop)``: when ``run`` returns (not when it raises);
- ``state_dict()`` and ``load_state_dict(state)``: a hook with state (EarlyStopping's best value
  and patience count) gives it as JSON-able values; the loop stores it in each checkpoint's JSON
  and hands it back when it resumes from that checkpoint, so a resumed loop stops where an
  uninterrupted one would.

A hook stops the loop with ``loop.stop()``; the loop stops after the run in
flight (with ``steps_per_run`` > 1, the rest of that block still runs).
"""

from __future__ import annotations

import math

from ..graph import GraphError, located, user_location

HOOK_METHODS = ("on_step", "on_log", "on_checkpoint", "on_end")


class CallbackHook:
    """One function as a hook: ``Loop(on_step=f)`` makes ``CallbackHook("on_step", f)``."""

    def __init__(self, method: str, fn):
        if not callable(fn):
            raise GraphError(
                located(f"sg.train.Loop's {method}= is a function, got {type(fn).__name__}", user_location())
            )
        setattr(self, method, fn)


class EarlyStopping:
    """Stop the loop when ``metric``'s logged mean has not improved for ``patience`` logs.

    ``mode`` "min" (a loss) or "max" (an accuracy); an improvement beats the best so
    far by more than ``min_delta``. ``best`` and ``best_step`` say where it was best.

        loop = sg.train.Loop(..., metrics={"loss": loss}, hooks=[sg.train.EarlyStopping("loss", patience=3)])
    """

    def __init__(self, metric: str = "loss", patience: int = 5, min_delta: float = 0.0, mode: str = "min"):
        if mode not in ("min", "max"):
            raise GraphError(
                located(f"EarlyStopping's mode is 'min' or 'max', got {mode!r}", user_location())
            )
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 1:
            raise GraphError(
                located(f"EarlyStopping's patience is an int >= 1, got {patience!r}", user_location())
            )
        self.metric, self.patience, self.min_delta, self.mode = metric, patience, float(min_delta), mode
        self.best = math.inf if mode == "min" else -math.inf
        self.best_step: int | None = None
        self.stopped_at: int | None = None
        self._waited = 0

    def on_log(self, loop, step: int, means: dict) -> None:
        """Compare the logged mean with the best so far; stop the loop after ``patience`` without a gain."""
        if self.metric not in means:
            raise GraphError(
                f"EarlyStopping watches {self.metric!r}, which is not among the loop's metrics {sorted(means)}"
            )
        value = float(means[self.metric])
        better = (
            value < self.best - self.min_delta if self.mode == "min" else value > self.best + self.min_delta
        )
        if better:
            self.best, self.best_step, self._waited = value, step, 0
            return
        self._waited += 1
        if self._waited >= self.patience:
            self.stopped_at = step
            loop.stop()

    def state_dict(self) -> dict:
        """What a resumed loop needs to go on counting: the best mean, its step and the logs since."""
        return {
            "best": self.best,
            "best_step": self.best_step,
            "waited": self._waited,
            "stopped_at": self.stopped_at,
        }

    def load_state_dict(self, state: dict) -> None:
        """Take up the counts ``state_dict`` gave (from a checkpoint's JSON)."""
        self.best, self.best_step = float(state["best"]), state["best_step"]
        self._waited, self.stopped_at = int(state["waited"]), state["stopped_at"]

    def __repr__(self) -> str:
        return f"<EarlyStopping {self.metric} {self.mode}, patience {self.patience}, best {self.best:.6g}>"
