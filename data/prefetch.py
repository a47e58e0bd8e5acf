"""sg.data.prefetch: a Dataset's next batches checked and copied to a Session's devices on a
background thread, handed to ``sess.run`` as a feed source.

A producer thread iterates the dataset, converts each batch's fields for their
placeholders (the Session's feed rules) and puts them on the devices as each
placeholder's sharding says (Session.feed_placer); a queue of ``depth`` blocks
sits between it and the consumer. A block is ``steps`` batches stacked when the
consumer asks for ``next_feeds(steps)``, else batches placed one by one (a run
of them gathered at once from a dataset of batches of rows: producer.py): the producer makes
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

import itertools
import numbers
import queue
import threading
import time
import weakref
from collections import deque
from collections.abc import Mapping

from ..graph import ExecutionError, FeedError, Tensor, located, user_location
from .batching import error
from .dataset import Dataset
from .producer import END, WHOLE, Block, Failed, Producer, stacked, track

__all__ = ["Prefetch", "prefetch"]


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
        self._realigning = False  # a block topping them up to whole asks is on its way
        self._failure: Failed | None = None
        self._ended = False
        self._closed = False
        self._producer = Producer(iterator, placer, fields, int(depth), where)
        self._thread = threading.Thread(target=self._producer.run, name="sg.data.prefetch", daemon=True)
        self._producer.thread = self._thread
        track(self._producer)
        self._finalizer = weakref.finalize(self, self._producer.shutdown)
        self._thread.start()

    # -- the feed-source protocol ----------------------------------------------------
    def next_feeds(self, steps: int | None = None) -> dict:
        """{placeholder: value} for the next batch, or the next ``steps`` batches stacked, on the
        devices."""
        feeds = self._next(steps)
        placer = self._producer.placer
        if steps is None and placer.host_rows:
            return dict(zip(self.tensors, placer.on_devices(list(feeds.values()))))
        return feeds

    def run_feeds(self, steps: int | None = None) -> dict:
        """What ``sess.run`` takes from this source (it asks this rather than ``next_feeds``): the
        same batches, but a single batch for a Session on one CPU device as the converted,
        checked host arrays, which the run's dispatch copies for less than a put here costs
        (backend/device_feeds.py, ``host_rows``)."""
        pending = self._pending
        if steps is None and pending and not self._closed:  # the common single step, inline
            batch = pending[0]
            if batch.placed is not None:
                pending.popleft()
                self._producer.steps = None
                self.position = batch.position
                return dict(zip(self.tensors, batch.placed))
        return self._next(steps)

    def _next(self, steps: int | None) -> dict:
        """{placeholder: value as a run takes it} for the next batch or ``steps`` batches stacked."""
        if self._closed:
            raise FeedError(located("this sg.data.prefetch is closed", user_location()))
        if steps is not None and (
            isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 1
        ):
            raise FeedError(located(f"next_feeds wants steps >= 1 or None, got {steps!r}", user_location()))
        self._producer.steps = steps
        pending = self._pending
        if not pending and self._failure is None and not self._ended:
            block = self._take_block()
            if block is not None:
                if block.device is not None and block.steps == steps:  # made as asked, on the devices
                    self.position = block.batches[-1].position
                    return dict(zip(self.tensors, block.device))
                pending.extend(block.batches)
        if steps is None and pending and pending[0].placed is not None:  # a single step's, placed
            batch = pending.popleft()
            self.position = batch.position
            return dict(zip(self.tensors, batch.placed))
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
        self._realign(steps)
        return feeds

    def _realign(self, steps: int | None) -> None:
        """Batches left over from blocks of another size (those made before the first
        ``next_feeds(k)``) would make every later ask take a block apart and stack it anew on the
        host: ask the producer for one block that tops them up to a multiple of ``steps``. Where
        they came out whole before that block was begun (blocks already queued filled them up), the
        ask is taken back: the top-up would take them apart again."""
        left = len(self._pending) % steps if steps else 0
        if not left:
            if self._realigning:
                self._producer.realign = None
            self._realigning = False
        elif not self._realigning:
            self._realigning = True
            self._producer.realign = steps - left

    def __next__(self) -> dict:
        return self.next_feeds(None)

    def __iter__(self) -> Prefetch:
        return self

    def _take_block(self) -> Block | None:
        """The producer's next block (timing the wait as a stall); None after recording the end
        or a failure."""
        producer = self._producer
        try:
            item = producer.queue.get_nowait()
        except queue.Empty:
            start = time.perf_counter()
            item = self._wait(producer)
            self.stall_seconds += time.perf_counter() - start
        if item is END:
            self._ended = True
            return None
        if isinstance(item, Failed):
            self._failure = item
            return None
        return item

    def _wait(self, producer):
        while True:
            try:
                return producer.queue.get(timeout=0.5)
            except queue.Empty:
                if not self._thread.is_alive() and producer.queue.empty():
                    return Failed(ExecutionError("the sg.data.prefetch thread stopped"), False)

    def _raise_failure(self):
        failed = self._failure
        if not failed.from_dataset:
            raise type(failed.error)(str(failed.error)) from None
        e = failed.error
        after = self._pending[-1].position if self._pending else self.position
        raise ExecutionError(
            located(
                f"sg.data.prefetch: the dataset raised {type(e).__name__}: {e} while making the batch "
                f"after position {after['state']}",
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
                stacked([b.values[i] for b in batches], field, t, steps, producer.where)
                for i, (field, t) in enumerate(zip(self.fields, self.tensors))
            ]
        placer = producer.placer
        if steps is None:
            return dict(zip(self.tensors, placer.place_single(values)))
        return {t: placer.put(t, v, True) for t, v in zip(self.tensors, values)}

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
        return [WHOLE], [feeds_map]
    raise error(
        "sg.data.prefetch's feeds_map maps dataset fields to placeholders ({'x': x, 'y': y}), "
        f"got {type(feeds_map).__name__}"
    )
