"""sg.data.prefetch: a Dataset's next batches checked and copied to a Session's devices on a
background thread, handed to ``sess.run`` as a feed source.

A producer thread iterates the dataset, converts each batch's fields for their
placeholders (the Session's feed rules) and puts them on the devices as each
placeholder's sharding says (Session.feed_placer); a queue of ``depth`` blocks
sits between it and the consumer. A block is one batch, or ``steps`` batches
stacked when the consumer asks for ``next_feeds(steps)``: the producer makes
blocks of the size asked last, and a block of another size is taken apart on
the host and stacked anew, so no batch is ever skipped or handed out twice.
``position`` is the dataset position after the last batch handed out (the
next one NOT handed out), which is what a checkpoint saves: batches still in
the queue are made again after a resume.

The thread stops on ``close()``, at the end of a ``with`` block, when the
Prefetch is collected, or at interpreter exit. An exception in the dataset
(its generator or map function) reaches the consumer on its next call, after
the batches made before it, as an ExecutionError whose ``__cause__`` is the
original; a batch that does not fit its placeholder is a FeedError naming
the dataset field and the placeholder.
"""

from __future__ import annotations

import atexit
import itertools
import numbers
import queue
import threading
import time
import weakref
from collections import deque
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from ..graph import ExecutionError, FeedError, Tensor, located, user_location
from .batching import error
from .dataset import Dataset

__all__ = ["Prefetch", "prefetch"]

_WHOLE = object()  # the field of a dataset whose elements are single arrays


class _Batch(NamedTuple):
    values: list  # converted numpy values, one per placeholder
    position: dict  # the dataset position after this batch


class _Block(NamedTuple):
    batches: list  # of _Batch
    steps: int | None  # what they were made for: None (one batch) or a stack of ``steps``
    device: list | None  # the block on the devices, one array per placeholder (None: not placed)


class _Failed(NamedTuple):
    error: BaseException
    from_dataset: bool  # raised by the dataset (wrap it) rather than by the feed checks


_END = object()


def prefetch(data: Dataset, sess, feeds_map, depth: int = 2, position: Mapping | None = None) -> Prefetch:
    """A feed source for ``sess.run`` that copies ``data``'s next ``depth`` batches to the devices
    on a background thread.

    ``feeds_map`` maps the dataset's fields to placeholders (``{"x": x, "y": y}``;
    a list of placeholders for tuple elements, one placeholder for array elements).
    ``position`` resumes from a saved ``feed.position``.

        feed = sg.data.prefetch(data, sess, {"x": x, "y": y}, depth=2)
        losses, _ = sess.run([loss, train], feed, steps=100)
        saved = feed.position                       # the next batch not yet handed out
    """
    return Prefetch(data, sess, feeds_map, depth, position)


class Prefetch:
    """A Dataset's batches, prefetched to a Session's devices: pass it as ``sess.run``'s feeds.

    ``next_feeds(steps)`` hands out the next batch ({placeholder: device array})
    or, with ``steps=k``, the next k stacked along a new first axis; ``next(feed)``
    is ``next_feeds(None)``. ``stall_seconds`` is the time the consumer waited
    for data; ``position`` the dataset position of the next batch not handed
    out. Raises StopIteration when fewer batches than asked for are left (they
    stay, for a smaller ask). Close it, or use it as a context manager.
    """

    def __init__(self, data: Dataset, sess, feeds_map, depth: int = 2, position: Mapping | None = None):
        where = user_location()
        if not isinstance(data, Dataset):
            raise error(f"sg.data.prefetch takes an sg.data.Dataset, got {type(data).__name__}")
        if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 1:
            raise error(f"sg.data.prefetch's depth must be an integer >= 1, got {depth!r}")
        fields, keys = _fields(feeds_map)
        placer = sess.feed_placer(keys)
        self.tensors: list[Tensor] = placer.tensors
        twice = [t.name for i, t in enumerate(self.tensors) if any(t is u for u in self.tensors[:i])]
        if twice:
            raise FeedError(located(f"sg.data.prefetch: placeholder {twice[0]} is fed by two fields", where))
        self.fields = fields
        iterator = data.iterator(position)
        self.position = iterator.position
        self.stall_seconds = 0.0
        self._pending: deque = deque()  # batches taken out of a block but not handed out yet
        self._failure: _Failed | None = None
        self._ended = False
        self._closed = False
        self._producer = _Producer(iterator, placer, fields, int(depth), where)
        self._thread = threading.Thread(target=self._producer.run, name="sg.data.prefetch", daemon=True)
        self._producer.thread = self._thread
        _track(self._producer)
        self._finalizer = weakref.finalize(self, self._producer.shutdown)
        self._thread.start()

    # -- the feed-source protocol ----------------------------------------------------
    def next_feeds(self, steps: int | None = None) -> dict:
        """{placeholder: value} for the next batch, or the next ``steps`` batches stacked."""
        if self._closed:
            raise FeedError(located("this sg.data.prefetch is closed", user_location()))
        if steps is not None and (
            isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 1
        ):
            raise FeedError(located(f"next_feeds wants steps >= 1 or None, got {steps!r}", user_location()))
        self._producer.steps = steps
        if not self._pending and self._failure is None and not self._ended:
            block = self._take_block()
            if block is not None:
                if block.device is not None and block.steps == steps:  # made as asked, on the devices
                    self.position = block.batches[-1].position
                    return dict(zip(self.tensors, block.device))
                self._pending.extend(block.batches)
        want = 1 if steps is None else steps
        while len(self._pending) < want:
            if self._failure is not None:
                self._raise_failure()
            if self._ended:
                raise StopIteration
            block = self._take_block()
            if block is not None:
                self._pending.extend(block.batches)
        batches = list(itertools.islice(self._pending, want))
        feeds = self._place(batches, steps)  # (a FeedError here hands out nothing)
        for _ in range(want):
            self._pending.popleft()
        self.position = batches[-1].position
        return feeds

    def __next__(self) -> dict:
        return self.next_feeds(None)

    def __iter__(self) -> Prefetch:
        return self

    def _take_block(self) -> _Block | None:
        """The producer's next block (timing the wait as a stall); None after recording the end
        or a failure."""
        producer = self._producer
        try:
            item = producer.queue.get_nowait()
        except queue.Empty:
            start = time.perf_counter()
            item = self._wait(producer)
            self.stall_seconds += time.perf_counter() - start
        if item is _END:
            self._ended = True
            return None
        if isinstance(item, _Failed):
            self._failure = item
            return None
        return item

    def _wait(self, producer):
        while True:
            try:
                return producer.queue.get(timeout=0.5)
            except queue.Empty:
                if not self._thread.is_alive() and producer.queue.empty():
                    return _Failed(ExecutionError("the sg.data.prefetch thread stopped"), False)

    def _raise_failure(self):
        failed = self._failure
        if not failed.from_dataset:
            raise type(failed.error)(str(failed.error)) from None
        e = failed.error
        raise ExecutionError(
            located(
                f"sg.data.prefetch: the dataset raised {type(e).__name__}: {e} while making the batch "
                f"after position {self.position['state'] if not self._pending else self._pending[-1].position['state']}",
                self._producer.where,
            )
        ) from e

    def _place(self, batches: list, steps: int | None) -> dict:
        """Batches taken from blocks of another size, stacked if asked and put on the devices."""
        producer = self._producer
        if steps is None:
            values = batches[0].values
        else:
            values = [
                _stacked([b.values[i] for b in batches], field, t, steps, producer.where)
                for i, (field, t) in enumerate(zip(self.fields, self.tensors))
            ]
        placer = producer.placer
        return {t: placer.put(t, v, steps is not None) for t, v in zip(self.tensors, values)}

    # -- shutting down -------------------------------------------------------------------
    def close(self) -> None:
        """Stop the thread and drop the prefetched batches (``position`` stays where it is)."""
        if not self._closed:
            self._closed = True
            self._finalizer()
            self._thread.join(timeout=5.0)
            self._pending.clear()

    def __enter__(self) -> Prefetch:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"at {self.position['state']}"
        return f"<sg.data.prefetch of {len(self.tensors)} placeholders, {state}, stalled {self.stall_seconds:.3f} s>"


def _fields(feeds_map) -> tuple[list, list]:
    """(dataset fields, placeholders) from prefetch's ``feeds_map``."""
    if isinstance(feeds_map, Mapping):
        if not feeds_map:
            raise error("sg.data.prefetch's feeds_map is empty: map dataset fields to placeholders")
        return list(feeds_map), list(feeds_map.values())
    if isinstance(feeds_map, tuple | list):
        return list(range(len(feeds_map))), list(feeds_map)
    if isinstance(feeds_map, Tensor | str):
        return [_WHOLE], [feeds_map]
    raise error(
        "sg.data.prefetch's feeds_map maps dataset fields to placeholders ({'x': x, 'y': y}), "
        f"got {type(feeds_map).__name__}"
    )


def _stacked(values: list, field, tensor: Tensor, steps: int, where) -> np.ndarray:
    shapes = {v.shape for v in values}
    if len(shapes) > 1:
        raise FeedError(
            located(
                f"steps={steps} stacks {steps} batches, but dataset field {_label(field)} for placeholder "
                f"{tensor.name} has batches of shapes {sorted(shapes)}: batch with drop_remainder=True",
                where,
            )
        )
    return np.stack(values)


def _label(field) -> str:
    return "(the whole element)" if field is _WHOLE else repr(field)


class _Producer:
    """The thread's side: iterates, converts, places and queues blocks; holds no Prefetch, so a
    Prefetch nobody holds is collected and its finalizer stops this."""

    def __init__(self, iterator, placer, fields: list, depth: int, where):
        self.iterator, self.placer, self.fields, self.where = iterator, placer, fields, where
        self.queue: queue.Queue = queue.Queue(depth)
        self.stop = threading.Event()
        self.steps: int | None = None  # the consumer's last ask: the size of the blocks to make
        self.thread: threading.Thread | None = None

    def run(self) -> None:
        while not self.stop.is_set():
            steps = self.steps
            block, failed, ended = self._make(steps)
            if block is not None and not self._put(block):
                return
            if failed is not None or ended:
                self._put(failed if failed is not None else _END)
                return

    def _make(self, steps: int | None) -> tuple:
        """(the next block or None, a _Failed or None, whether the data ended). A failure comes
        after the batches made before it, which the block holds."""
        try:  # a dataset of batches of rows: a block of them in one gather
            stacked = None if steps is None else self.iterator.next_stack(steps)
            if stacked is not None:
                batches, device = self._convert_stacked(*stacked)
                return _Block(batches, steps, device), None, False
        except FeedError as e:
            return None, _Failed(e, False), False
        except BaseException as e:
            return None, _Failed(e, True), False
        want = 1 if steps is None else steps
        batches: list = []
        failed, ended = None, False
        while len(batches) < want and failed is None:
            try:
                element = next(self.iterator)
            except StopIteration:
                ended = True
                break
            except BaseException as e:  # the dataset's own error: the consumer wraps it
                failed = _Failed(e, True)
                break
            try:
                batches.append(_Batch(self._convert(element), self.iterator.position))
            except FeedError as e:
                failed = _Failed(e, False)
        device = None
        if len(batches) == want and failed is None:
            try:
                device = self._place(batches, steps)
            except FeedError:
                device = None  # batches of different shapes: the consumer stacks and reports them
            except BaseException as e:
                failed = _Failed(e, True)
        return (_Block(batches, steps, device) if batches else None), failed, ended

    def _convert(self, element) -> list:
        """The element's fields as numpy values of their placeholders, checked as a run would."""
        fed = []
        for field, t in zip(self.fields, self.placer.tensors):
            value = self._field(element, field, t)
            try:
                fed.append((t, self.placer.convert(t, value)))
            except FeedError as e:
                raise self._error(field, t, e) from None
        self._check(fed)
        return [arr for _, arr in fed]

    def _check(self, fed: list) -> None:
        """FeedError naming the field unless the converted batch fits its placeholders."""
        try:
            self.placer.check(fed)  # (one cached look-up for a shape signature seen before)
        except FeedError as e:
            for field, one in zip(self.fields, fed):  # name the field when one alone is wrong
                try:
                    self.placer.check([one])
                except FeedError as alone:
                    raise self._error(field, one[0], alone) from None
            fields = ", ".join(f"{_label(f)} -> {t.name}" for f, (t, _) in zip(self.fields, fed))
            raise FeedError(located(f"sg.data.prefetch (fields {fields}): {e}", self.where)) from None

    def _convert_stacked(self, block, positions: list) -> tuple[list, list]:
        """(its batches, its values on the devices) of a block that ``next_stack`` gathered."""
        placer, fed = self.placer, []
        for field, t in zip(self.fields, placer.tensors):
            value = self._field(block, field, t)
            try:
                fed.append((t, placer.convert(t, value, stacked=True)))
            except FeedError as e:
                raise self._error(field, t, e) from None
        self._check([(t, v[0]) for t, v in fed])
        values = [v for _, v in fed]
        batches = [_Batch([v[i] for v in values], p) for i, p in enumerate(positions)]
        return batches, [placer.put(t, v, True) for t, v in fed]

    def _field(self, element, field, t: Tensor):
        if field is _WHOLE:
            return element
        try:
            return element[field]
        except (KeyError, IndexError, TypeError):
            if isinstance(element, Mapping):
                have = f"its fields are {', '.join(repr(k) for k in element)}"
            elif isinstance(element, tuple | list):
                have = f"it is a {type(element).__name__} of {len(element)}"
            else:
                have = f"it is a {type(element).__name__}, not a dict"
            raise FeedError(
                located(
                    f"sg.data.prefetch: the dataset's elements have no field {field!r} for placeholder "
                    f"{t.name} ({have})",
                    self.where,
                )
            ) from None

    def _error(self, field, t: Tensor, e: FeedError) -> FeedError:
        return FeedError(
            located(
                f"sg.data.prefetch: dataset field {_label(field)} -> placeholder {t.name}: {e}", self.where
            )
        )

    def _place(self, batches: list, steps: int | None) -> list:
        placer = self.placer
        if steps is None:
            return [placer.put(t, v) for t, v in zip(placer.tensors, batches[0].values)]
        return [
            placer.put(t, _stacked([b.values[i] for b in batches], field, t, steps, self.where), True)
            for i, (field, t) in enumerate(zip(self.fields, placer.tensors))
        ]

    def _put(self, item) -> bool:
        """Queue ``item`` (blocking while full); False once stopped. ``shutdown`` empties the queue,
        so a put blocked at that moment finishes and the loop sees the stop."""
        if self.stop.is_set():
            return False
        self.queue.put(item)
        return not self.stop.is_set()

    def shutdown(self) -> None:
        """Stop making blocks and free the queued ones (called from any thread)."""
        self.stop.set()
        while True:
            try:
                self.queue.get_nowait()
            except queue.Empty:
                return


_live: weakref.WeakSet = weakref.WeakSet()
_exit_hook = threading.Lock()  # held once the hook is registered


def _track(producer: _Producer) -> None:
    """Remember a running producer for the exit hook, registered with the first one: atexit runs
    hooks newest first, so this one runs before the hooks of modules loaded before it (the
    runtime's among them)."""
    _live.add(producer)
    if _exit_hook.acquire(blocking=False):
        atexit.register(_stop_all)


def _stop_all() -> None:
    """At interpreter exit, stop every prefetch thread before the runtime goes away."""
    for producer in list(_live):
        producer.shutdown()
    for producer in list(_live):
        if producer.thread is not None:
            producer.thread.join(timeout=0.5)
