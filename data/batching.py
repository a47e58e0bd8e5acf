"""sg.data's simple helpers: numpy batching for training loops, a seeded train/test split, digits.

A training loop feeds numpy batches to ``sess.run``; this module makes them
without a framework's data pipeline: ``batches`` walks arrays that share a
first dimension (a single array, or a tuple/list/dict of them) in batches
for some epochs, optionally shuffled by a seeded permutation per epoch, and
can show a tqdm progress bar whose postfix carries the metrics the loop logs.

    for xb, yb in (it := sg.data.batches((X, Y), 128, shuffle=True, epochs=20, progress=True)):
        loss = sess.run([train_op, loss_t], {x: xb, y: yb})[1]
        it.log(loss=loss)
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..graph import GraphError, located, user_location

__all__ = ["Batches", "batches", "split", "load_digits"]


def error(message: str) -> GraphError:
    """Bad arguments are GraphErrors (ValueErrors too) at the user's line."""
    return GraphError(located(message, user_location()))


def _array(value, what: str, label: str) -> np.ndarray:
    try:
        return np.asarray(value)
    except GraphError:
        raise
    except (ValueError, TypeError) as e:  # ragged nested lists, mostly
        raise error(f"{what}: {label} is not a rectangular array ({e})") from None


def structure(arrays, what: str):
    """(keys, arrays as numpy, rebuild) for a single array or a tuple/list/dict of arrays."""
    if isinstance(arrays, dict):
        keys = list(arrays)
        labels = [repr(k) for k in keys]
        values = [_array(arrays[k], what, label) for k, label in zip(keys, labels)]

        def rebuild(parts):
            return dict(zip(keys, parts))

    elif isinstance(arrays, tuple | list):
        kind = type(arrays)
        labels = [f"[{i}]" for i in range(len(arrays))]
        values = [_array(a, what, label) for a, label in zip(arrays, labels)]

        def rebuild(parts):
            return kind(parts)

    else:
        labels = ["the array"]
        values = [_array(arrays, what, labels[0])]

        def rebuild(parts):
            return parts[0]

    if not values:
        raise error(f"{what}: no arrays given")
    for label, a in zip(labels, values):
        if a.ndim == 0:
            raise error(f"{what}: {label} is a scalar; arrays need a first (sample) dimension")
    lengths = [len(a) for a in values]
    if len(set(lengths)) > 1:
        listed = ", ".join(f"{label} has {n}" for label, n in zip(labels, lengths))
        raise error(f"{what}: the arrays differ in length along the first axis: {listed}")
    return values, lengths[0], rebuild


def _tqdm():
    """tqdm's notebook bar where ipywidgets can draw it, else the console bar (stderr)."""
    import importlib.util
    import sys

    if "ipykernel" in sys.modules and importlib.util.find_spec("ipywidgets") is not None:
        from tqdm.auto import tqdm
    else:
        from tqdm.std import tqdm
    return tqdm


def _take(values, index, rebuild):
    return rebuild([a[index] for a in values])


class Batches:
    """Batches of arrays over several epochs; iterate it, ``len()`` it, ``log()`` metrics to its bar.

    ``len(b)`` is the number of batches over all epochs, ``b.steps_per_epoch``
    those of one epoch, ``b.epoch`` the epoch being iterated (0-based) and
    ``b.step`` the batches given so far. Iterating again starts over with
    the same order (the permutations come from ``seed``).
    """

    def __init__(
        self,
        arrays,
        batch_size: int,
        shuffle: bool = False,
        epochs: int = 1,
        drop_last: bool = False,
        seed: int = 0,
        progress: bool = False,
        desc: str | None = None,
    ):
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or batch_size < 1:
            raise error(f"batches: batch_size must be a positive integer, got {batch_size!r}")
        if isinstance(epochs, bool) or not isinstance(epochs, numbers.Integral) or epochs < 0:
            raise error(f"batches: epochs must be a non-negative integer, got {epochs!r}")
        self._values, self.num_samples, self._rebuild = structure(arrays, "batches")
        self.batch_size = int(batch_size)
        self.shuffle = bool(shuffle)
        self.epochs = int(epochs)
        self.drop_last = bool(drop_last)
        self.seed = seed
        self.progress = bool(progress)
        self.desc = desc
        n, bs = self.num_samples, self.batch_size
        self.steps_per_epoch = n // bs if self.drop_last else -(-n // bs)
        self.epoch = 0
        self.step = 0
        self.metrics: dict = {}
        self._bar = None

    def __len__(self) -> int:
        return self.steps_per_epoch * self.epochs

    def __iter__(self):
        return self._generate()

    def _generate(self):
        self.epoch, self.step, self.metrics = 0, 0, {}
        self._close_bar()  # a previous iteration left unfinished
        bar = None
        if self.progress:
            bar = self._bar = _tqdm()(total=len(self), desc=self.desc, unit="batch", dynamic_ncols=True)
        rng = np.random.default_rng(self.seed)
        n, bs = self.num_samples, self.batch_size
        stop = self.steps_per_epoch * bs
        try:
            for epoch in range(self.epochs):
                self.epoch = epoch
                if bar is not None and self.epochs > 1:
                    prefix = f"{self.desc} " if self.desc else ""
                    bar.set_description(f"{prefix}epoch {epoch + 1}/{self.epochs}", refresh=False)
                order = rng.permutation(n) if self.shuffle else None
                for start in range(0, stop, bs):
                    end = min(start + bs, n)
                    index = slice(start, end) if order is None else order[start:end]
                    batch = _take(self._values, index, self._rebuild)
                    self.step += 1
                    yield batch
                    if bar is not None:
                        bar.update(1)
        finally:
            if bar is not None:
                bar.close()
                if self._bar is bar:
                    self._bar = None

    def log(self, **metrics) -> None:
        """Show ``metrics`` (e.g. ``loss=0.31, acc=0.97``) on the progress bar; kept in ``.metrics``.

        Numbers, numpy scalars and one-element arrays are shown as numbers;
        without a bar this only records them.
        """
        for name, value in metrics.items():
            if isinstance(value, np.ndarray) and value.size == 1:
                value = value.item()
            elif isinstance(value, np.generic):
                value = value.item()
            self.metrics[name] = value
        if self._bar is not None:
            self._bar.set_postfix(self.metrics, refresh=False)

    def close(self) -> None:
        """Close the progress bar now (iteration ending or breaking off closes it too)."""
        self._close_bar()

    def _close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __repr__(self) -> str:
        return (
            f"<Batches {self.num_samples} samples, batch {self.batch_size}, "
            f"{self.steps_per_epoch} per epoch x {self.epochs} epochs>"
        )


def batches(
    arrays,
    batch_size: int,
    shuffle: bool = False,
    epochs: int = 1,
    drop_last: bool = False,
    seed: int = 0,
    progress: bool = False,
    desc: str | None = None,
) -> Batches:
    """Batches of ``arrays`` (an array, or a tuple/list/dict of arrays with one first dimension).

    Each batch has the structure of ``arrays``. With ``shuffle`` every epoch
    takes a new permutation from ``np.random.default_rng(seed)`` (so runs
    repeat); ``drop_last`` drops a final short batch; ``progress`` shows a
    tqdm bar, and ``.log(loss=...)`` puts metrics on it.

        for xb, yb in sg.data.batches((X, Y), 128, shuffle=True, epochs=20, progress=True): ...
    """
    return Batches(arrays, batch_size, shuffle, epochs, drop_last, seed, progress, desc)


def split(arrays, fraction: float = 0.2, seed: int = 0):
    """``(train, test)``: a seeded shuffle of ``arrays`` with ``ceil(fraction * n)`` samples in test.

    Both parts have the structure of ``arrays``.

        (x_train, y_train), (x_test, y_test) = sg.data.split((X, y), 0.2)
    """
    if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) or not 0 <= fraction <= 1:
        raise error(f"split: fraction must be a number between 0 and 1, got {fraction!r}")
    values, n, rebuild = structure(arrays, "split")
    n_test = math.ceil(fraction * n)
    order = np.random.default_rng(seed).permutation(n)
    return _take(values, order[n_test:], rebuild), _take(values, order[:n_test], rebuild)


def load_digits():
    """``(X, y)``: scikit-learn's bundled 8x8 digits, X float32 (1797, 64) in [0, 1], y int32 labels 0-9.

    No download: the data ship with scikit-learn.
    """
    from sklearn.datasets import load_digits as _sklearn_digits

    digits = _sklearn_digits()
    return (digits.data / 16.0).astype(np.float32), digits.target.astype(np.int32)
