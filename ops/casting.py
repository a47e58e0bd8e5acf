"""TF1's ``tf.cast`` (ops layer): a value converted to another dtype, as numpy's ``astype`` does."""

from __future__ import annotations

from ..graph import Tensor
from .numpy_like import astype
from .numpy_like.core import asarray


def cast(x, dtype, name: str | None = None) -> Tensor:
    """``x`` as ``dtype``: ``sg.cast(correct, sg.float32)`` (TF1's spelling of ``x.astype(dtype)``).

    Floats become integers by truncation toward zero, as in numpy and TF1; ``name`` is accepted
    for TF1's signature and names nothing (the conversion may be no node at all)."""
    return astype(asarray(x), dtype)
