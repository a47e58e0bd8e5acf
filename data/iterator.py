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

from .batching import error

__all__ = ["DatasetIterator"]


class DatasetIterator:
    """An iteration over a Dataset; ``.position`` is the JSON-able position of the next element."""

    def __init__(self, dataset, position: Mapping | None = None):
        self.dataset = dataset
        state = None
        if position is not None:
            if not isinstance(position, Mapping) or set(position) != {"dataset", "state"}:
                raise error(
                    f"a dataset position is a dict saved from an iterator's .position, got {position!r}"
                )
            if position["dataset"] != dataset._describe:
                raise error(
                    f"this position was saved from another dataset: {position['dataset']}, "
                    f"not {dataset._describe}"
                )
            state = position["state"]
        self.position = {"dataset": dataset._describe, "state": state}
        source = dataset._rows_source()
        if source is None:
            self._elements, self._rows = dataset._run(state, ()), None
        else:  # batches of rows: gathered here, so that next_stack can gather many at once
            self._elements, self._rows, self._gather = None, dataset._run_rows(state, ()), source.gather
        self._pulled: deque = deque()  # (rows, state after) pulled by next_stack but not handed out

    def __iter__(self) -> DatasetIterator:
        return self

    def __next__(self):
        if self._rows is None:
            element, after = next(self._elements)
        else:
            index, after = self._pulled.popleft() if self._pulled else next(self._rows)
            element = self._gather(index)
        self.position = {"dataset": self.dataset._describe, "state": after}
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
        describe = self.dataset._describe
        positions = [{"dataset": describe, "state": after} for _, after in pulled[:count]]
        self.position = positions[-1]
        return block, positions

    def __repr__(self) -> str:
        return f"<DatasetIterator of {self.dataset._describe} at {self.position['state']}>"


def _split_rows(element, count: int):
    """A gather of ``count`` batches' rows with each field reshaped to (count, batch, ...)."""
    if isinstance(element, Mapping):
        return {k: _split_rows(v, count) for k, v in element.items()}
    if isinstance(element, tuple | list):
        return type(element)(_split_rows(v, count) for v in element)
    return element.reshape(count, -1, *element.shape[1:])
