"""The producer thread of sg.data.prefetch: iterates a dataset, converts and checks each batch for
its placeholders (Session.feed_placer), puts blocks of them on the devices and queues them.

A block is ``steps`` batches stacked (gathered at once when the dataset is
batches of rows: DatasetIterator.next_stack), or, for single steps, batches
each placed by itself as a run takes it (FeedPlacer.put_rows: on the devices,
or host arrays on one CPU device): one batch, or for a dataset of batches of
rows a run of them gathered, converted and checked at once (``rows``, up to
ROWS_MAX batches or ROW_BLOCK_BYTES of data), so that the thread's per-batch
Python work, which holds the GIL the runs need, is a few operations. The queue carries
blocks, then at most one Failed (a FeedError, or what the dataset raised)
or END. The producer holds no reference to its Prefetch, so a Prefetch
nobody holds is collected and its finalizer stops this thread; an exit hook
stops the rest before the runtime goes away.
"""

from __future__ import annotations

import atexit
import queue
import threading
import weakref
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from ..graph import FeedError, Tensor, located

WHOLE = object()  # the field of a dataset whose elements are single arrays


# single-step blocks of a dataset of batches of rows: at most this many batches, this many bytes
ROWS_MAX = 32
ROW_BLOCK_BYTES = 4 << 20


class Batch(NamedTuple):
    values: list  # converted numpy values, one per placeholder
    position: dict  # the dataset position after this batch
    placed: list | None = None  # the values on the devices (a single-step block's), else None


class Block(NamedTuple):
    batches: list  # of Batch
    steps: int | None  # what they were made for: None (single steps, each batch placed) or ``steps``
    device: list | None  # a stack of ``steps`` on the devices, one array per placeholder (else None)


class Failed(NamedTuple):
    error: BaseException
    from_dataset: bool  # raised by the dataset (wrap it) rather than by the feed checks


END = object()


def stacked(values: list, field, tensor: Tensor, steps: int, where) -> np.ndarray:
    shapes = {v.shape for v in values}
    if len(shapes) > 1:
        raise FeedError(
            located(
                f"steps={steps} stacks {steps} batches, but dataset field {label(field)} for placeholder "
                f"{tensor.name} has batches of shapes {sorted(shapes)}: batch with drop_remainder=True",
                where,
            )
        )
    return np.stack(values)


def label(field) -> str:
    return "(the whole element)" if field is WHOLE else repr(field)


class Producer:
    """The thread's side: iterates, converts, places and queues blocks; holds no Prefetch, so a
    Prefetch nobody holds is collected and its finalizer stops this."""

    def __init__(self, iterator, placer, fields: list, depth: int, where):
        self.iterator, self.placer, self.fields, self.where = iterator, placer, fields, where
        self.queue: queue.Queue = queue.Queue(depth)
        self.stop = threading.Event()
        self.steps: int | None = None  # the consumer's last ask: the size of the blocks to make
        self.realign: int | None = None  # the size of one block to make next (Prefetch.next_feeds)
        self.thread: threading.Thread | None = None
        self.rows = 1  # batches per single-step block of rows (set from the first one's size)

    def run(self) -> None:
        while not self.stop.is_set():
            steps, realign = self.steps, self.realign
            if realign is not None:
                steps, self.realign = realign, None
            block, failed, ended = self._make(steps)
            if block is not None and not self._put(block):
                return
            if failed is not None or ended:
                self._put(failed if failed is not None else END)
                return

    def _make(self, steps: int | None) -> tuple:
        """(the next block or None, a Failed or None, whether the data ended). A failure comes
        after the batches made before it, which the block holds."""
        try:  # a dataset of batches of rows: a block of them in one gather
            gathered = self.iterator.next_stack(self.rows if steps is None else steps)
            if gathered is not None:
                if steps is None:
                    return Block(self._convert_rows(*gathered), None, None), None, False
                batches, device = self._convert_stacked(*gathered)
                return Block(batches, steps, device), None, False
        except FeedError as e:
            return None, Failed(e, False), False
        except BaseException as e:
            return None, Failed(e, True), False
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
                failed = Failed(e, True)
                break
            try:
                batches.append(Batch(self._convert(element), self.iterator.position))
            except FeedError as e:
                failed = Failed(e, False)
        device = None
        if len(batches) == want and failed is None:
            try:
                device = self._place(batches, steps)
            except FeedError:
                device = None  # batches of different shapes: the consumer stacks and reports them
            except BaseException as e:
                failed = Failed(e, True)
        if steps is None and device is not None:  # one batch, placed: handed to its run as it is
            batches, device = [batches[0]._replace(placed=device)], None
        return (Block(batches, steps, device) if batches else None), failed, ended

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
            fields = ", ".join(f"{label(f)} -> {t.name}" for f, (t, _) in zip(self.fields, fed))
            raise FeedError(located(f"sg.data.prefetch (fields {fields}): {e}", self.where)) from None

    def _convert_stacked(self, block, positions: list) -> tuple[list, list]:
        """(its batches, its values on the devices) of a block that ``next_stack`` gathered."""
        fed = self._converted_block(block)
        values = [v for _, v in fed]
        batches = [Batch([v[i] for v in values], p) for i, p in enumerate(positions)]
        return batches, [self.placer.put(t, v, True) for t, v in fed]

    def _convert_rows(self, block, positions: list) -> list:
        """The batches of a single-step block that ``next_stack`` gathered, each placed by itself
        (converted and checked once for the block); sizes the next block from this one's bytes."""
        fed = self._converted_block(block)
        values = [v for _, v in fed]
        per_batch = sum(v.nbytes for v in values) // max(len(positions), 1)
        self.rows = max(1, min(ROWS_MAX, ROW_BLOCK_BYTES // max(per_batch, 1)))
        placed = self.placer.put_rows(values)
        if self.placer.host_rows:  # the rows a run takes are the converted rows themselves
            return [Batch(rows, p, rows) for rows, p in zip(placed, positions)]
        return [Batch([v[i] for v in values], p, placed[i]) for i, p in enumerate(positions)]

    def _converted_block(self, block) -> list:
        """[(placeholder, its stacked values converted)] of a gathered block, its batches checked."""
        placer, fed = self.placer, []
        for field, t in zip(self.fields, placer.tensors):
            value = self._field(block, field, t)
            try:
                fed.append((t, placer.convert(t, value, stacked=True)))
            except FeedError as e:
                raise self._error(field, t, e) from None
        self._check([(t, v[0]) for t, v in fed])
        return fed

    def _field(self, element, field, t: Tensor):
        if field is WHOLE:
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
                f"sg.data.prefetch: dataset field {label(field)} -> placeholder {t.name}: {e}", self.where
            )
        )

    def _place(self, batches: list, steps: int | None) -> list:
        placer = self.placer
        if steps is None:
            return placer.place_single(batches[0].values)
        return [
            placer.put(t, stacked([b.values[i] for b in batches], field, t, steps, self.where), True)
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


def track(producer: Producer) -> None:
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
