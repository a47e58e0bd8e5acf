"""sg.train.Loop: a managed training loop (TF1's MonitoredTrainingSession habit, without its boilerplate).

    loop = sg.train.Loop(g, train, data=data, feeds={"x": x, "y": y}, logdir="runs/exp2",
                         checkpoint_every=500, keep=3, log_every=50, steps=5000,
                         metrics={"loss": loss, "acc": acc})
    loop.run()

The loop owns a Session (``loop.session``) and feeds it from an
``sg.data.Dataset`` through ``sg.data.prefetch`` (the next batches already on
the devices), ``steps_per_run`` steps per ``sess.run`` call (one compiled loop
over stacked batches). ``steps`` is the total: ``run`` resumes from the newest
checkpoint in ``logdir`` (variables, which hold the optimizer slots, Generator
keys and global_step, plus the data set's position: loop_files.py) and runs
what is left, so a loop killed by SIGKILL or Ctrl-C loses at most the steps
since its last checkpoint. Every ``log_every`` steps the metrics' means go to
TensorBoard (sg.summary.FileWriter in ``logdir``) and to the tqdm bar.
A nan or an infinity in a metric stops the loop with the report of
``Session.find_nonfinite`` for the step that made it: the loop goes back to
its last checkpoint, replays the steps before that one, and searches it.
Hooks (loop_hooks.py) see each step, each log and each checkpoint.
"""

from __future__ import annotations

import numbers
import os
import time
from collections.abc import Mapping

import numpy as np

from ..backend.feeds import resolve
from ..backend.session import Session
from ..data import Dataset, prefetch
from ..graph import ExecutionError, FeedError, GraphError, located, user_location
from ..summary import FileWriter
from . import loop_files
from .loop_hooks import HOOK_METHODS, CallbackHook

__all__ = ["Loop"]


def _error(message: str, where=None) -> GraphError:
    """A GraphError at ``where`` (default: the user's line calling the library)."""
    return GraphError(located(message, where or user_location()))


def _count(value, what: str, low: int, where, allow_none: bool = True) -> int | None:
    """``value`` as an int >= ``low`` (or None where allowed), else a GraphError at the user's line."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise _error(
            f"sg.train.Loop's {what} is an int >= {low}{' or None' if allow_none else ''}, got {value!r}",
            where,
        )
    return int(value)


class Loop:
    """Trains ``train`` (a train op, or a list of ops to run each step) of graph ``g`` on ``data``.

    ``data``: an sg.data.Dataset (repeat() it for more than one epoch); ``feeds`` maps its
    fields to placeholders, as for ``sg.data.prefetch``. ``steps``: the total number of steps
    (None: until the data ends or a hook stops it). ``metrics`` {name: scalar Tensor} are
    fetched every step, logged every ``log_every`` steps (means since the last log) to
    TensorBoard and the progress bar. ``logdir``: checkpoints and event files (None: neither).
    ``checkpoint_every`` steps and/or ``checkpoint_secs`` seconds, keeping the newest ``keep``;
    with a logdir the step ``run`` ends at is always saved.
    ``steps_per_run``: steps per ``sess.run`` call (default: ``log_every``; 1 runs single
    steps); blocks end at log and checkpoint steps. ``mesh``, ``seed``: the Session's.
    ``prefetch``: how many blocks of batches wait on the devices. ``hooks``: objects with
    ``on_step``/``on_log``/``on_checkpoint``/``on_end`` (see sg.train.EarlyStopping);
    ``on_step=``/``on_checkpoint=`` take one function each. ``progress``: show a tqdm bar.
    """

    def __init__(
        self, graph, train, data, feeds, *, logdir=None, steps: int | None = None,
        metrics: Mapping | None = None, checkpoint_every: int | None = None,
        checkpoint_secs: float | None = None, keep: int = 3, log_every: int | None = 50,
        steps_per_run: int | None = None, mesh=None, seed: int = 0, prefetch: int = 2,
        hooks=(), on_step=None, on_checkpoint=None, progress: bool = True,
    ):  # fmt: skip
        where = user_location()
        if not isinstance(data, Dataset):
            raise _error(
                f"sg.train.Loop's data is an sg.data.Dataset (sg.data.Dataset.from_arrays(...)), "
                f"got {type(data).__name__}",
                where,
            )
        self.steps = _count(steps, "steps", 0, where)
        self.log_every = _count(log_every, "log_every", 1, where)
        self.checkpoint_every = _count(checkpoint_every, "checkpoint_every", 1, where)
        self.keep = _count(keep, "keep", 0, where, allow_none=False)
        self.steps_per_run = _count(steps_per_run, "steps_per_run", 1, where) or self.log_every or 1
        self.prefetch_depth = _count(prefetch, "prefetch", 1, where, allow_none=False)
        if checkpoint_secs is not None and not (
            isinstance(checkpoint_secs, numbers.Real)
            and not isinstance(checkpoint_secs, bool)
            and checkpoint_secs > 0
        ):
            raise _error(
                f"sg.train.Loop's checkpoint_secs is a number > 0 or None, got {checkpoint_secs!r}", where
            )
        if logdir is None and (checkpoint_every or checkpoint_secs):
            raise _error("sg.train.Loop checkpoints into its logdir: give logdir= to checkpoint", where)
        self.checkpoint_secs = checkpoint_secs
        self.logdir = None if logdir is None else os.fspath(logdir)
        self.data, self.feeds, self.graph = data, feeds, graph
        self.session = Session(graph, mesh=mesh, seed=seed)
        self.metrics = {str(k): resolve(graph, v) for k, v in dict(metrics or {}).items()}
        for name, t in self.metrics.items():
            if t.ndim != 0:
                raise _error(
                    f"sg.train.Loop's metric {name!r} ({t.name}) is {t.type}: metrics are scalars", where
                )
        train_ops = list(train) if isinstance(train, list | tuple) else [train]
        self._train = [resolve(graph, t) for t in train_ops]
        self._fetches = [*self.metrics.values(), *self._train]
        self.hooks = list(hooks)
        if on_step is not None:
            self.hooks.append(CallbackHook("on_step", on_step))
        if on_checkpoint is not None:
            self.hooks.append(CallbackHook("on_checkpoint", on_checkpoint))
        for h in self.hooks:
            if not any(callable(getattr(h, m, None)) for m in HOOK_METHODS):
                raise _error(
                    f"sg.train.Loop's hook {h!r} has none of the methods {', '.join(HOOK_METHODS)}", where
                )
        self.progress = bool(progress)
        self.step = 0  # steps done (restored by run from the newest checkpoint)
        self.position = None  # the data set's position of the next batch
        self.history: list[tuple[int, dict]] = []  # (step, metric means) per log
        self.nonfinite = None  # the NonfiniteReport when a nan stopped the loop
        self.writer: FileWriter | None = None
        self._where = where
        self._stop = False
        self._origin: tuple[int, dict | None, str | None] = (0, None, None)  # where a replay can start
        self._resumed = False
        self._interrupted = False  # Ctrl-C came inside a sess.run: variables and step may disagree

    # -- the public surface ------------------------------------------------------------
    def stop(self) -> None:
        """Ask the loop to stop after the run in flight (hooks call this)."""
        self._stop = True

    @property
    def should_stop(self) -> bool:
        """Whether ``stop()`` was asked for since ``run`` began."""
        return self._stop

    def run(self) -> dict:
        """Train until ``steps`` steps are done (counting those of the checkpoint it resumes from),
        the data ends or a hook stops it; returns the last logged metric means."""
        self._stop = False
        if self._interrupted:
            self._go_back()
        self._resume()
        if self.writer is None and self.logdir is not None:
            self.writer = FileWriter(self.logdir, graph=self.graph if not self._resumed else None)
            # TensorBoard takes a later "start" as a restart: it drops what a killed run logged
            # after the checkpoint resumed from (those steps are logged again)
            self.writer.add_session_log("start", self.step + 1 if self._resumed else 0)
        bar = self._bar()
        feed = prefetch(
            self.data, self.session, self.feeds, depth=self.prefetch_depth, position=self.position
        )
        try:
            self._train_loop(feed, bar)
        except KeyboardInterrupt:
            if not self._interrupted:  # between runs the variables are those of self.step: keep them
                self._checkpoint()
            raise
        finally:
            feed.close()
            if bar is not None:
                bar.close()
            if self.writer is not None:
                self.writer.flush()
        for h in self.hooks:
            if callable(getattr(h, "on_end", None)):
                h.on_end(self)
        return self.history[-1][1] if self.history else {}

    def close(self) -> None:
        """Close the event file and the Session."""
        if self.writer is not None:
            self.writer.close()
        self.session.close()

    def __enter__(self) -> Loop:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        total = "?" if self.steps is None else self.steps
        return f"<sg.train.Loop at step {self.step}/{total}, logdir {self.logdir!r}>"

    # -- resuming ------------------------------------------------------------------------
    def _resume(self) -> None:
        """Take up the newest complete checkpoint of ``logdir`` (once per Loop)."""
        if self._resumed or self.logdir is None or self.step:
            return
        found = loop_files.newest(self.logdir)
        if found is None:
            return
        step, path, meta = found
        self.session.restore(path)
        self.step, self.position = step, meta.get("data_position")
        self._origin = (step, self.position, path)
        self._load_hook_states(meta)
        self._resumed = True

    def _go_back(self) -> None:
        """After Ctrl-C inside a run: take up the newest checkpoint again, or the initial values
        when the loop has saved none (without a logdir, a GraphError: nothing to go back to)."""
        if self.logdir is None:
            raise _error(
                f"this sg.train.Loop was interrupted inside a run at step {self.step}: its variables may "
                "hold that run's steps or not, and it has no logdir to go back to a checkpoint; make a "
                "new Loop (loop.session still holds the variables to evaluate or save)"
            )
        found = loop_files.newest(self.logdir)
        if found is None:
            self.session.initialize()
            self.step, self.position, self._origin = 0, None, (0, None, None)
        else:
            step, path, meta = found
            self.session.restore(path)
            self.step, self.position = step, meta.get("data_position")
            self._origin = (step, self.position, path)
            self._load_hook_states(meta)
        self._interrupted = False

    def _hook_states(self) -> dict:
        """{position and class of a hook: its state} for the hooks that keep one (a checkpoint's JSON)."""
        return {
            f"{i}:{type(h).__name__}": h.state_dict()
            for i, h in enumerate(self.hooks)
            if callable(getattr(h, "state_dict", None))
        }

    def _load_hook_states(self, meta: dict) -> None:
        """Give each hook the state the checkpoint stored for it (matched by position and class)."""
        states = meta.get("hooks", {})
        for i, h in enumerate(self.hooks):
            key = f"{i}:{type(h).__name__}"
            if key in states and callable(getattr(h, "load_state_dict", None)):
                h.load_state_dict(states[key])

    # -- training ------------------------------------------------------------------------
    def _train_loop(self, feed, bar) -> None:
        """Runs, checks, counts, logs and checkpoints until the total, the data's end or a stop."""
        sums: dict[str, float] = dict.fromkeys(self.metrics, 0.0)
        counted = 0
        started, last_saved_at = time.perf_counter(), time.monotonic()
        single = self.steps_per_run == 1  # single steps to the end (the data set is ending)
        singles = 0  # single steps to run before blocks again (batches that do not stack)
        while not self._stop and (self.steps is None or self.step < self.steps):
            k = self._block_size(single or singles > 0)
            one = single or singles > 0
            try:
                out = self.session.run(self._fetches, feed, steps=None if one else k)
            except StopIteration:  # fewer batches left than asked: single steps take the rest
                if one:
                    break
                single = True
                continue
            except FeedError:
                if one:
                    raise
                singles = k  # batches of two sizes (an epoch's last, short one) cannot be stacked:
                continue  # the prefetch handed out none of them; take them one by one
            except KeyboardInterrupt:
                # The run may have ended, may still run on a worker (backend/interrupt.py: XLA
                # cannot cancel it) or may never have started: the next run() goes back to the
                # newest checkpoint rather than guess which.
                self._interrupted = True
                raise
            if singles:
                singles -= 1
            values = {name: np.asarray(v)[None] if one else np.asarray(v)
                      for name, v in zip(self.metrics, out)}  # fmt: skip
            bad = _first_nonfinite(values)
            if bad is not None:
                self._stop_on_nonfinite(self.step + bad + 1)
            first = self.step
            self.step += k
            self.position = feed.position
            for name, v in values.items():
                sums[name] += float(v.sum(dtype=np.float64))
            counted += k
            if bar is not None:
                bar.update(k)
            log_due = bool(self.log_every) and self.step % self.log_every == 0
            try:
                if any(callable(getattr(h, "on_step", None)) for h in self.hooks):
                    for i in range(k):
                        self._call("on_step", first + i + 1, {name: v[i] for name, v in values.items()})
            except KeyboardInterrupt:  # Ctrl-C in a hook: log what is due before run() checkpoints
                if log_due:
                    self._log(sums, counted, started, feed, bar)
                raise
            if log_due:
                self._log(sums, counted, started, feed, bar)
                sums, counted, started = dict.fromkeys(self.metrics, 0.0), 0, time.perf_counter()
            due = self.checkpoint_every and self.step % self.checkpoint_every == 0
            due = due or (self.checkpoint_secs and time.monotonic() - last_saved_at >= self.checkpoint_secs)
            if due:
                self._checkpoint()
                last_saved_at = time.monotonic()
        if counted and self.log_every:
            self._log(sums, counted, started, feed, bar)
        if self.logdir is not None:  # the end is always saved, so a larger total resumes from it
            self._checkpoint()

    def _block_size(self, single: bool) -> int:
        """Steps of the next run: ``steps_per_run``, ending at the next log, checkpoint and the end."""
        if single:
            return 1
        k = self.steps_per_run
        for every in (self.log_every, self.checkpoint_every):
            if every:
                k = min(k, every - self.step % every)
        if self.steps is not None:
            k = min(k, self.steps - self.step)
        return k

    def _call(self, method: str, *args) -> None:
        """Call ``method`` of every hook that has it, in the order the hooks were given."""
        for h in self.hooks:
            fn = getattr(h, method, None)
            if callable(fn):
                fn(self, *args)

    def _log(self, sums: dict, counted: int, started: float, feed, bar) -> None:
        """The metrics' means since the last log to the history, TensorBoard, the bar and on_log hooks."""
        means = {name: total / counted for name, total in sums.items()}
        self.history.append((self.step, means))
        if self.writer is not None:
            extra = {"loop/steps_per_second": counted / max(time.perf_counter() - started, 1e-9),
                     "loop/data_stall_seconds": feed.stall_seconds}  # fmt: skip
            self.writer.scalars({**means, **extra}, step=self.step)
        if bar is not None:
            bar.set_postfix({name: f"{v:.4g}" for name, v in means.items()}, refresh=False)
        self._call("on_log", self.step, means)

    def _bar(self):
        """A tqdm bar over the total (None with progress=False)."""
        if not self.progress:
            return None
        import importlib.util
        import sys

        if "ipykernel" in sys.modules and importlib.util.find_spec("ipywidgets") is not None:
            from tqdm.auto import tqdm  # a notebook's widget bar
        else:
            from tqdm.std import tqdm  # the console's, on stderr

        return tqdm(total=self.steps, initial=self.step, desc="train", unit="step", dynamic_ncols=True)

    # -- checkpoints ------------------------------------------------------------------------
    def _checkpoint(self) -> str | None:
        """Save the variables and the data position at ``self.step`` (once per step)."""
        if self.logdir is None or self._origin[0] == self.step and self._origin[2] is not None:
            return None
        path = self.session.save(loop_files.prefix(self.logdir), step=self.step, keep=0)
        meta = {"step": self.step, "checkpoint": os.path.basename(path), "data_position": self.position,
                "time": time.time(), "steps": self.steps, "hooks": self._hook_states()}  # fmt: skip
        loop_files.write_meta(self.logdir, self.step, meta)
        loop_files.prune(self.logdir, self.keep)
        self._origin = (self.step, self.position, path)
        if self.writer is not None:
            self.writer.flush()
        self._call("on_checkpoint", self.step, path)
        return path

    # -- a nan or an infinity --------------------------------------------------------------
    def _stop_on_nonfinite(self, bad_step: int) -> None:
        """Replay up to the step before ``bad_step`` from the last checkpoint (or the initial values),
        search that step for the first non-finite node, and raise an ExecutionError with the report.
        The Session is left holding the variables of the step before the bad one."""
        origin_step, origin_position, origin_path = self._origin
        sess = self.session
        if origin_path is not None:
            sess.restore(origin_path)
        else:
            sess.initialize()
        batches = self.data.iterator(origin_position)
        for _ in range(bad_step - 1 - origin_step):
            sess.run(self._fetches, self._feed_of(next(batches)))
        self.step, self.position = bad_step - 1, batches.position
        report = sess.find_nonfinite(self._fetches, self._feed_of(next(batches)))
        self.nonfinite = report
        self._stop = True
        names = ", ".join(self.metrics)
        raise ExecutionError(
            located(f"sg.train.Loop stopped at step {bad_step}: a metric ({names}) is nan or infinite; "
                    f"the loop's Session holds the variables of step {bad_step - 1}\n{report}", self._where)
        )  # fmt: skip

    def _feed_of(self, element) -> dict:
        """{placeholder: value} for one data set element, as ``feeds`` maps its fields."""
        if isinstance(self.feeds, Mapping):
            return {t: element[field] for field, t in self.feeds.items()}
        if isinstance(self.feeds, list | tuple):
            return dict(zip(self.feeds, element))
        return {self.feeds: element}


def _first_nonfinite(values: dict) -> int | None:
    """The index (within the block) of the first step whose floating metric is nan or infinite."""
    first = None
    for v in values.values():
        if v.dtype.kind in "fc":
            flat = v.reshape(v.shape[0], -1)
            bad = np.flatnonzero(~np.isfinite(flat).all(axis=1))
            if bad.size:
                first = int(bad[0]) if first is None else min(first, int(bad[0]))
    return first
