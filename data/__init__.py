"""sg.data: input pipelines for training loops (a layer above backend, beside train).

``Dataset`` (dataset.py) is a reproducible, resumable stream of batches;
``prefetch`` (prefetch.py) copies its next batches to a Session's devices on
a background thread; ``batches``, ``split`` and ``load_digits``
(batching.py) are the simple numpy helpers.
"""

from .batching import Batches, batches, load_digits, split
from .dataset import Dataset, DatasetIterator
from .prefetch import Prefetch, prefetch

__all__ = ["Batches", "batches", "split", "load_digits", "Dataset", "DatasetIterator", "Prefetch", "prefetch"]
