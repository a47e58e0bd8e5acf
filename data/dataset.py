"""sg.data.Dataset: a small input pipeline whose order is reproducible and resumable.

A Dataset describes a stream of elements (a dict, tuple or array of numpy
values) and never holds an iteration itself: ``from_arrays`` or
``from_generator`` makes one, ``shuffle``, ``batch``, ``repeat``, ``map`` and
``take`` return new ones, and iterating runs the chain from its start.

Every stage yields each element together with its *state after* it: a small
JSON-able dict from which the stage resumes exactly at the next element. A
stage with its own counter wraps its upstream's state (``repeat``: the epoch
and the state inside it); a one-to-one stage passes its upstream's state on.
So ``data.iterator(position=...)`` resumes where a saved ``.position``
points, and a checkpoint stores that dict as JSON.

Order: stages of a pass get the pass's *epoch key* (the counters of the
``repeat`` stages around them, outermost first); a shuffle draws its order from
``np.random.default_rng([seed, *key])``, so each epoch of a repeat has its own
permutation and iterating the dataset again repeats the same order. Arrays
and a full-permutation shuffle of them are *indexed*: a batch over them is one
fancy index per field and resuming is a jump to a row. A generator, a
buffer shuffle and what follows a ``map`` are resumed by replaying their pass
from its start and skipping what was handed out (cheap for arrays, one pass
of work at most for the rest).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator, Mapping

import numpy as np

from .batching import error, structure
from .iterator import DatasetIterator

__all__ = ["Dataset", "DatasetIterator"]


def _count(value, what: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise error(f"{what} must be an integer >= {low}, got {value!r}")
    return int(value)


class Dataset:
    """A reproducible, resumable stream of elements: ``Dataset.from_arrays({"x": X, "y": Y})``.

    Chain ``shuffle(buffer_size=None, seed=0)``, ``batch(n, drop_remainder=False)``,
    ``repeat(count=None)``, ``map(fn)`` and ``take(n)``; iterate it (each pass
    starts over, in the same order) or take ``iterator(position=...)`` to
    resume at a saved ``.position``.

        data = sg.data.Dataset.from_arrays({"x": X, "y": Y}).shuffle(seed=0).batch(128).repeat()
        it = data.iterator()
        first = next(it); saved = it.position          # JSON-able
        again = next(data.iterator(position=saved))    # the batch after ``first``
    """

    _indexed = False  # rows with random access (see _Indexed)

    def __init__(self, upstream: Dataset | None, describe: str):
        self._upstream = upstream
        self._describe = describe

    # -- making datasets ----------------------------------------------------------
    @staticmethod
    def from_arrays(arrays) -> Dataset:
        """The rows of ``arrays`` (an array, or a dict/tuple/list of arrays with one first dimension).

        Each element is one row, structured as ``arrays`` (a dict of rows for a dict);
        ``batch`` stacks them back into batches.
        """
        return _Arrays(arrays)

    @staticmethod
    def from_generator(fn: Callable, args: tuple = (), length: int | None = None) -> Dataset:
        """The elements ``fn(*args)`` yields (dicts, tuples or arrays); ``fn`` is called anew
        for every pass (each epoch of a ``repeat``, each iteration) and must yield the same
        stream each time, since resuming replays it up to the saved position. ``length``
        (optional) is how many elements one pass yields, for ``len()``."""
        if not callable(fn):
            raise error(f"Dataset.from_generator takes a function returning an iterable, got {fn!r}")
        if length is not None:
            length = _count(length, "Dataset.from_generator's length")
        return _Generator(fn, tuple(args), length)

    # -- transformations ------------------------------------------------------------
    def shuffle(self, buffer_size: int | None = None, seed: int = 0) -> Dataset:
        """Shuffled, anew in every epoch of an enclosing ``repeat``, reproducibly from ``seed``.

        Without ``buffer_size``, a full permutation of the rows per epoch
        (``np.random.default_rng([seed, *epochs]).permutation(n)``); this needs
        rows with random access (``from_arrays``, optionally ``take``n). With
        ``buffer_size``, TF's buffer shuffle: each element out is drawn from a
        buffer of the next ``buffer_size`` elements (any dataset).
        """
        seed = _count(seed, "Dataset.shuffle's seed")
        if buffer_size is None:
            if not self._indexed:
                raise error(
                    f"Dataset.shuffle() without buffer_size permutes all rows, which needs arrays "
                    f"(Dataset.from_arrays); {self._describe} has no random access: give buffer_size=N"
                )
            return _Permuted(self, seed)
        return _BufferShuffle(self, _count(buffer_size, "Dataset.shuffle's buffer_size", 1), seed)

    def batch(self, batch_size: int, drop_remainder: bool = False) -> Dataset:
        """Elements stacked ``batch_size`` at a time (each field along a new first axis); a
        pass's last short batch is kept, or dropped with ``drop_remainder=True``."""
        return _Batch(self, _count(batch_size, "Dataset.batch's batch_size", 1), bool(drop_remainder))

    def repeat(self, count: int | None = None) -> Dataset:
        """The dataset ``count`` times (forever with None), each time as a new epoch: a shuffle
        inside draws a new order. A dataset with no elements repeated forever stays empty."""
        return _Repeat(self, None if count is None else _count(count, "Dataset.repeat's count"))

    def map(self, fn: Callable) -> Dataset:
        """``fn(element)`` for every element (after ``batch``: a function of the batch dict).
        ``fn`` runs in Python, on the prefetch thread when prefetched; it must be a pure
        function of the element, since resuming may replay it."""
        if not callable(fn):
            raise error(f"Dataset.map takes a function of an element, got {fn!r}")
        return _Map(self, fn)

    def take(self, count: int) -> Dataset:
        """The first ``count`` elements (of each epoch when a ``repeat`` encloses it)."""
        count = _count(count, "Dataset.take's count")
        return _TakeRows(self, count) if self._indexed else _Take(self, count)

    # -- iterating --------------------------------------------------------------------
    def iterator(self, position: Mapping | None = None) -> DatasetIterator:
        """An iterator over the elements from ``position`` (a ``.position`` saved from an
        iterator of this same dataset; None: the start). Its ``.position`` is always the
        position of the next element it will yield."""
        state = None
        if position is not None:
            if not isinstance(position, Mapping) or set(position) != {"dataset", "state"}:
                raise error(
                    f"a dataset position is a dict saved from an iterator's .position, got {position!r}"
                )
            if position["dataset"] != self._describe:
                raise error(
                    f"this position was saved from another dataset: {position['dataset']}, "
                    f"not {self._describe}"
                )
            state = position["state"]
        source = self._rows_source()
        if source is None:
            return DatasetIterator(self._describe, state, elements=self._run(state, ()))
        # batches of rows: gathered by the iterator, so that next_stack can gather many at once
        return DatasetIterator(self._describe, state, rows=self._run_rows(state, ()), gather=source.gather)

    def __iter__(self) -> Iterator:
        return self.iterator()

    @property
    def length(self) -> int | float | None:
        """Elements in one iteration: an int, ``math.inf`` (repeated forever), or None (unknown)."""
        return self._length()

    def __len__(self) -> int:
        n = self._length()
        if n is None or n == math.inf:
            why = "infinite (repeat())" if n == math.inf else "unknown (a generator without length=)"
            raise TypeError(f"the length of {self._describe} is {why}")
        return int(n)

    def __repr__(self) -> str:
        return f"<Dataset {self._describe}>"

    # -- the stage protocol -----------------------------------------------------------------
    def _run(self, state, key: tuple) -> Iterator[tuple]:
        """(element, state after it) from ``state`` (None: the pass's start) in epoch ``key``."""
        raise NotImplementedError

    def _length(self) -> int | float | None:
        return self._upstream._length()

    def _rows_source(self) -> _Indexed | None:
        """For a dataset of batches of rows (a batch of indexed rows, repeated or not): the rows
        that ``_run_rows``' indices pick from; else None."""
        return None

    def _run_rows(self, state, key: tuple) -> Iterator[tuple]:
        """As ``_run``, with each batch as the indices of its rows (``_rows_source`` not None)."""
        raise NotImplementedError


class _Indexed(Dataset):
    """Rows with random access: ``order(key)`` (the source rows of a pass, None for 0..size-1),
    ``size`` and ``gather(index)`` (an int, a slice or an int array of source rows)."""

    _indexed = True
    size: int

    def order(self, key: tuple) -> np.ndarray | None:
        raise NotImplementedError

    def gather(self, index):
        return self._upstream.gather(index)

    def _run(self, state, key):
        order = self.order(key)
        for i in range(0 if state is None else state["row"], self.size):
            yield self.gather(i if order is None else int(order[i])), {"row": i + 1}

    def _length(self) -> int:
        return self.size


class _Arrays(_Indexed):
    def __init__(self, arrays):
        self._values, self.size, self._rebuild = structure(arrays, "Dataset.from_arrays")
        names = [f"{k}: " for k in arrays] if isinstance(arrays, Mapping) else [""] * len(self._values)
        fields = ", ".join(f"{k}{a.dtype}{list(a.shape[1:])}" for k, a in zip(names, self._values))
        super().__init__(None, f"from_arrays({self.size} rows: {fields})")

    def order(self, key):
        return None

    def gather(self, index):
        return self._rebuild([a[index] for a in self._values])


class _Permuted(_Indexed):
    def __init__(self, upstream: _Indexed, seed: int):
        super().__init__(upstream, f"{upstream._describe}.shuffle(seed={seed})")
        self.size, self._seed = upstream.size, seed

    def order(self, key):
        perm = np.random.default_rng([self._seed, *key]).permutation(self.size)
        inner = self._upstream.order(key)
        return perm if inner is None else inner[perm]


class _Take(Dataset):
    def __init__(self, upstream: Dataset, count: int):
        super().__init__(upstream, f"{upstream._describe}.take({count})")
        self._count = count

    def _run(self, state, key):
        taken, inner = (0, None) if state is None else (state["taken"], state["in"])
        if taken >= self._count:
            return
        for element, after in self._upstream._run(inner, key):
            taken += 1
            yield element, {"taken": taken, "in": after}
            if taken >= self._count:  # never pulls an element past the last one taken
                return

    def _length(self):
        n = self._upstream._length()
        return self._count if n is None else min(n, self._count)


class _TakeRows(_Indexed):
    """``take`` of rows: still indexed, so batches of it stay one fancy index each."""

    def __init__(self, upstream: _Indexed, count: int):
        super().__init__(upstream, f"{upstream._describe}.take({count})")
        self.size = min(count, upstream.size)

    def order(self, key):
        inner = self._upstream.order(key)
        return None if inner is None else inner[: self.size]


class _Generator(Dataset):
    def __init__(self, fn, args: tuple, length: int | None):
        super().__init__(None, f"from_generator({getattr(fn, '__qualname__', repr(fn))})")
        self._fn, self._args, self._n = fn, args, length

    def _run(self, state, key):
        skip = 0 if state is None else state["count"]
        for i, element in enumerate(self._fn(*self._args)):
            if i >= skip:
                yield _as_numpy(element), {"count": i + 1}

    def _length(self):
        return self._n


def _as_numpy(element):
    """A generator's element with numpy leaves (a dict, tuple or list of them, or one)."""
    if isinstance(element, Mapping):
        return {k: np.asarray(v) for k, v in element.items()}
    if isinstance(element, tuple | list):
        return type(element)(np.asarray(v) for v in element)
    return np.asarray(element)


class _BufferShuffle(Dataset):
    def __init__(self, upstream: Dataset, buffer_size: int, seed: int):
        super().__init__(upstream, f"{upstream._describe}.shuffle({buffer_size}, seed={seed})")
        self._buffer_size, self._seed = buffer_size, seed

    def _run(self, state, key):
        skip = 0 if state is None else state["out"]
        for i, element in enumerate(self._shuffled(key)):
            if i >= skip:
                yield element, {"out": i + 1}

    def _shuffled(self, key):
        rng = np.random.default_rng([self._seed, *key])
        buffer: list = []
        for element, _ in self._upstream._run(None, key):
            if len(buffer) < self._buffer_size:
                buffer.append(element)
                continue
            j = int(rng.integers(self._buffer_size))
            out, buffer[j] = buffer[j], element
            yield out
        for j in rng.permutation(len(buffer)):
            yield buffer[j]


class _Batch(Dataset):
    def __init__(self, upstream: Dataset, size: int, drop: bool):
        drop_text = ", drop_remainder=True" if drop else ""
        super().__init__(upstream, f"{upstream._describe}.batch({size}{drop_text})")
        self._size, self._drop = size, drop

    def _run(self, state, key):
        if self._upstream._indexed:
            gather = self._upstream.gather
            for index, after in self._run_rows(state, key):
                yield gather(index), after
            return
        elements: list = []
        for element, after in self._upstream._run(state, key):
            elements.append(element)
            if len(elements) == self._size:
                yield _stack(elements, self._describe), after
                elements = []
        if elements and not self._drop:
            yield _stack(elements, self._describe), after

    def _rows_source(self):
        return self._upstream if self._upstream._indexed else None

    def _run_rows(self, state, key):
        """Each batch's rows: a slice when unshuffled (a gather of views), else an int array."""
        up: _Indexed = self._upstream
        order, n, size = up.order(key), up.size, self._size
        stop = n - n % size if self._drop else n
        for start in range(0 if state is None else state["row"], stop, size):
            end = min(start + size, n)
            yield (slice(start, end) if order is None else order[start:end]), {"row": end}

    def _length(self):
        n = self._upstream._length()
        if n is None or n == math.inf:
            return n
        return n // self._size if self._drop else -(-n // self._size)


def _stack(elements: list, describe: str):
    """Elements of one structure stacked field by field along a new first axis."""
    first = elements[0]
    if isinstance(first, Mapping):
        return {k: _stack_field([e[k] for e in elements], repr(k), describe) for k in first}
    if isinstance(first, tuple | list):
        return type(first)(
            _stack_field([e[i] for e in elements], f"[{i}]", describe) for i in range(len(first))
        )
    return _stack_field(elements, "the element", describe)


def _stack_field(values: list, label: str, describe: str) -> np.ndarray:
    try:
        return np.stack(values)
    except ValueError:
        shapes = sorted({np.shape(v) for v in values})
        raise error(
            f"{describe}: cannot stack field {label}: its elements have different shapes {shapes}"
        ) from None


class _Repeat(Dataset):
    def __init__(self, upstream: Dataset, count: int | None):
        super().__init__(upstream, f"{upstream._describe}.repeat({'' if count is None else count})")
        self._count = count

    def _run(self, state, key):
        return self._epochs(self._upstream._run, state, key)

    def _rows_source(self):
        return self._upstream._rows_source()

    def _run_rows(self, state, key):
        return self._epochs(self._upstream._run_rows, state, key)

    def _epochs(self, run, state, key):
        """``run`` (the upstream's ``_run`` or ``_run_rows``) once per epoch, from ``state``."""
        epoch, inner = (0, None) if state is None else (state["epoch"], state["in"])
        while self._count is None or epoch < self._count:
            empty = inner is None
            for element, after in run(inner, (*key, epoch)):
                empty = False
                yield element, {"epoch": epoch, "in": after}
            if empty and self._count is None:
                return  # an empty pass: forever would hang
            epoch, inner = epoch + 1, None

    def _length(self):
        n = self._upstream._length()
        if self._count is None:
            return 0 if n == 0 else math.inf
        return None if n is None else n * self._count


class _Map(Dataset):
    def __init__(self, upstream: Dataset, fn):
        super().__init__(upstream, f"{upstream._describe}.map({getattr(fn, '__qualname__', 'fn')})")
        self._fn = fn

    def _run(self, state, key):
        fn = self._fn
        for element, after in self._upstream._run(state, key):
            yield fn(element), after
