"""DatasetIterator: one iteration over an sg.data.Dataset, with the JSON-able position of its next
element (see dataset.py for how stages yield their states).

A dataset of batches of rows (a batch of arrays' rows, repeated or not) is
iterated as the rows of each batch, gathered when the batch is handed out, so
``next_stack(k)`` can hand out k batches gathered at once (what a prefetch
thread does for ``steps=k``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

import numpy as np

__all__ = ["DatasetIterator"]


class DatasetIterator:
    """An iteration over a Dataset (``data.iterator(position)``); ``.position`` is the JSON-able
    position of the next element."""

    def __init__(self, describe: str, state, elements=None, rows=None, gather=None):
        """Made by ``Dataset.iterator``: ``elements`` yields (element, state after it); a dataset
        of batches of rows gives ``rows`` instead, yielding (the rows of a batch, state after
        it), and ``gather``, which turns rows into an element."""
        self.describe = describe
        self.position = {"dataset": describe, "state": state}
        self._elements, self._rows, self._gather = elements, rows, gather
        self._pulled: deque = deque()  # (rows, state after) pulled by next_stack but not handed out

    def __iter__(self) -> DatasetIterator:
        return self

    def __next__(self):
        if self._rows is None:
            element, after = next(self._elements)
        else:
            index, after = self._pulled.popleft() if self._pulled else next(self._rows)
            element = self._gather(index)
        self.position = {"dataset": self.describe, "state": after}
        return element

    def next_stack(self, count: int) -> tuple | None:
        """The next ``count`` batches stacked along a new first axis, gathered at once, and the
        position after each; None (nothing consumed) unless the dataset is batches of rows with
        ``count`` batches of one size left."""
        if self._rows is None:
            return None
        pulled = list(self._pulled)
        self._pulled.clear()
        for index, after in self._rows:
            pulled.append((index, after))
            if len(pulled) >= count:
                break
        rows = [np.arange(i.start, i.stop) if isinstance(i, slice) else i for i, _ in pulled[:count]]
        if len(pulled) < count or len({len(r) for r in rows}) > 1:
            self._pulled.extend(pulled)
            return None
        self._pulled.extend(pulled[count:])
        block = _split_rows(self._gather(np.concatenate(rows)), count)
        describe = self.describe
        positions = [{"dataset": describe, "state": after} for _, after in pulled[:count]]
        self.position = positions[-1]
        return block, positions

    def __repr__(self) -> str:
        return f"<DatasetIterator of {self.describe} at {self.position['state']}>"


def _split_rows(element, count: int):
    """A gather of ``count`` batches' rows with each field reshaped to (count, batch, ...)."""
    if isinstance(element, Mapping):
        return {k: _split_rows(v, count) for k, v in element.items()}
    if isinstance(element, tuple | list):
        return type(element)(_split_rows(v, count) for v in element)
    return element.reshape(count, -1, *element.shape[1:])
