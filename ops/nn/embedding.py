"""The embedding layer: a table of vectors looked up by integer ids (sg.nn, ops layer).

Like flax.linen.Embed: one Variable ``<name>/embedding`` of shape
(num_embeddings, features), initialized as flax does (normal with variance
1 / features); the lookup is a gather, so its gradient is a scatter-add
into the rows the ids picked.
"""

from __future__ import annotations

import numbers

from ...graph import Tensor, dtypes, library_call
from ...graph.library import returns
from .. import numpy_like as snp
from ..numpy_like.core import asarray, error
from ..state import Variable
from . import initializers

__all__ = ["embedding"]


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
) -> Tensor:
    """Rows of a learned (num_embeddings, features) table picked by ``ids``: shape ids.shape + (features,).

    ``ids`` are ints in [0, num_embeddings); as in flax (jnp.take), a negative id
    counts from the end and an id out of range gives a row of NaN. ``embedding_init`` defaults to flax's
    ``variance_scaling(1.0, "fan_in", "normal", out_axis=0)``.
    ``tokens = sg.nn.embedding(ids, 32000, 512, name="embed")``
    """
    ids = asarray(ids)
    if ids.dtype.kind not in "iu":
        raise error(f"embedding wants integer ids, got {ids.type}")
    num_embeddings = _positive(num_embeddings, "num_embeddings")
    features = _positive(features, "features")
    if embedding_init is None:
        embedding_init = initializers.variance_scaling(1.0, "fan_in", "normal", out_axis=0)
    with library_call("embedding", name) as call:
        table = Variable(embedding_init, (num_embeddings, features), dtype, name="embedding")
        y = snp.take(table, ids, axis=0)
        returns(call, y)
    return y
