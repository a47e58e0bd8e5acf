"""Embeddings: a table of vectors looked up by integer ids (sg.nn, ops layer).

``embedding`` is a layer like flax.linen.Embed: one Variable
``<name>/embedding`` of shape (num_embeddings, features), initialized as
flax does (normal with variance 1 / features). ``embedding_lookup`` is
TF1's function on a table the caller made (or a list of shards of one).
Either lookup is a gather, so its gradient is a scatter-add into the rows
the ids picked.
"""

from __future__ import annotations

import numbers
from contextlib import nullcontext

import numpy as np

from ...graph import Tensor, dtypes, name_scope
from ...graph.library import returns
from .. import numpy_like as snp
from ..numpy_like.core import asarray, error
from ..state import Variable
from . import initializers
from .reuse import layer_call

__all__ = ["embedding", "embedding_lookup"]


def _positive(value, what: str) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        raise error(f"embedding wants a positive int {what}, got {value!r}")
    return int(value)


def embedding(
    ids,
    num_embeddings: int,
    features: int,
    name: str = "embedding",
    embedding_init=None,
    dtype=dtypes.float32,
    reuse=None,
) -> Tensor:
    """Rows of a learned (num_embeddings, features) table picked by ``ids``: shape ids.shape + (features,).

    ``ids`` are ints in [0, num_embeddings); as in flax (jnp.take), a negative id
    counts from the end and an id out of range gives a row of NaN. ``embedding_init`` defaults to flax's
    ``variance_scaling(1.0, "fan_in", "normal", out_axis=0)``. ``reuse=True`` shares the table of
    the layer ``name`` made before (as dense).
    ``tokens = sg.nn.embedding(ids, 32000, 512, name="embed")``
    """
    ids = asarray(ids)
    if ids.dtype.kind not in "iu":
        raise error(f"embedding wants integer ids, got {ids.type}")
    num_embeddings = _positive(num_embeddings, "num_embeddings")
    features = _positive(features, "features")
    if embedding_init is None:
        embedding_init = initializers.variance_scaling(1.0, "fan_in", "normal", out_axis=0)
    with layer_call("embedding", name, reuse) as call:
        table = Variable(embedding_init, (num_embeddings, features), dtype, name="embedding")
        y = snp.take(table, ids, axis=0)
        returns(call, y)
    return y


def embedding_lookup(
    params, ids, partition_strategy: str = "mod", name=None, validate_indices=True, max_norm=None
):
    """Rows of ``params`` picked by ``ids`` (TF1's tf.nn.embedding_lookup): shape ids.shape + params.shape[1:].

    ``params`` is a table (num_rows, ...) or a list of shards of one, split
    along rows as TF1 splits them: ``partition_strategy="mod"`` puts id i in
    shard i % n at row i // n, ``"div"`` gives each shard a contiguous run of
    ids (the first ones one row longer when the rows do not divide evenly).
    ``max_norm`` rescales each looked-up row whose L2 norm exceeds it to that
    norm. An id out of range gives a row of NaN (as ``sg.numpy.take``; TF1
    raises on CPU); ``validate_indices`` is accepted and ignored, as in TF1.
    ``embed = sg.nn.embedding_lookup(embeddings, train_inputs)``
    """
    ids = asarray(ids)
    if ids.dtype.kind not in "iu":
        raise error(f"embedding_lookup wants integer ids, got {ids.type}")
    shards = [asarray(p) for p in params] if isinstance(params, list | tuple) else [asarray(params)]
    if not shards:
        raise error("embedding_lookup wants a table or a non-empty list of shards, got an empty list")
    with name_scope(name) if name else nullcontext():
        table, ids = _joined(shards, ids, partition_strategy)
        rows = snp.take(table, ids, axis=0)
        if max_norm is not None:
            rows = _clip_rows(rows, ids.ndim, max_norm)
    return rows


def _joined(shards: list, ids: Tensor, strategy: str) -> tuple[Tensor, Tensor]:
    """One table of the shards' rows, and ``ids`` as rows of it."""
    first = shards[0]
    for s in shards:
        if s.ndim < 1 or tuple(s.shape[1:]) != tuple(first.shape[1:]) or s.dtype is not first.dtype:
            raise error(
                "embedding_lookup wants shards of one dtype and the same shape after the rows, "
                f"got {', '.join(str(t.type) for t in shards)}"
            )
    if len(shards) == 1:
        return first, ids
    if strategy not in ("mod", "div"):
        raise error(f"embedding_lookup wants partition_strategy 'mod' or 'div', got {strategy!r}")
    sizes = [s.shape[0] for s in shards]
    if not all(isinstance(n, int) for n in sizes):
        raise error(f"embedding_lookup wants shards with static row counts, got {sizes}")
    table = snp.concatenate(shards, axis=0)
    if strategy == "div":
        return table, ids
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(ids.dtype.np)
    n = len(shards)
    return table, snp.take(asarray(starts), ids % n, axis=0) + ids // n


def _clip_rows(rows: Tensor, id_dims: int, max_norm) -> Tensor:
    """Each row (the dims after the ids') scaled down to L2 norm ``max_norm`` where it is longer."""
    axes = tuple(range(id_dims, rows.ndim))
    norm = snp.sqrt(snp.sum(rows * rows, axis=axes, keepdims=True))
    scale = snp.where(norm > max_norm, max_norm / snp.where(norm > max_norm, norm, 1.0), 1.0)
    return rows * scale
