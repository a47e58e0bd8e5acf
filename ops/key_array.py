"""Typed PRNG keys: KeyArray and its dtype key<fry> (sg.random, ops layer).

jax has two spellings of a key: the raw uint32[..., 2] array of
``jax.random.PRNGKey`` and the typed key array of ``jax.random.key``, whose
dtype is ``key<fry>`` and whose shape leaves the two words out (one key:
shape ``()``; a batch of n keys: ``(n,)``). Here a typed key is a KeyArray: a
thin wrapper over the raw uint32[..., 2] data, a Tensor while building a graph
and a numpy array once a Session has fetched it. The graph itself only ever
holds the uint32 data (nodes, listings and lowering are untouched); the
wrapper is a nest of one leaf (graph/tree.register_node), so Session.run
fetches it back as a KeyArray and vectorize, grad and library calls pass it
through. Indexing and iterating act on the key dimensions, as jax's do.
"""

from __future__ import annotations

import numpy as np

from ..graph import Tensor
from ..graph.tree import register_node

# impl name -> (short name in the dtype, words per key); jax's threefry2x32 is the one built here.
KEY_IMPLS = {"threefry2x32": ("fry", 2)}


class KeyDType:
    """The dtype of a typed key array, spelled as jax spells it: ``key<fry>``."""

    __slots__ = ("impl",)

    def __init__(self, impl: str = "threefry2x32"):
        self.impl = impl

    @property
    def name(self) -> str:
        return f"key<{KEY_IMPLS[self.impl][0]}>"

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        return isinstance(other, KeyDType) and other.impl == self.impl

    def __hash__(self) -> int:
        return hash(("KeyDType", self.impl))


class KeyArray:
    """A typed array of PRNG keys: ``data`` is uint32[*shape, 2] (a Tensor in a graph, a
    numpy array when fetched), ``impl`` the generator's name ("threefry2x32")."""

    __slots__ = ("data", "impl")

    def __init__(self, data, impl: str = "threefry2x32"):
        self.data = data
        self.impl = impl

    @property
    def dtype(self) -> KeyDType:
        return KeyDType(self.impl)

    @property
    def shape(self) -> tuple:
        return tuple(self.data.shape[:-1])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a single key (shape ())")
        return self.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getitem__(self, index) -> KeyArray:
        index = index if isinstance(index, tuple) else (index,)
        return KeyArray(self.data[(*index, slice(None))], self.impl)

    def reshape(self, *shape) -> KeyArray:
        """The same keys in another key shape."""
        shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], tuple | list) else shape
        return KeyArray(self.data.reshape((*shape, self.data.shape[-1])), self.impl)

    def __array__(self, dtype=None, copy=None):
        """The raw words of a fetched key array (what a uint32[..., 2] placeholder takes as a feed)."""
        if isinstance(self.data, Tensor):
            raise TypeError("a KeyArray of the graph has no value until a Session runs it")
        return np.asarray(self.data, dtype)

    def __repr__(self) -> str:
        where = f" tensor {self.data.name}" if isinstance(self.data, Tensor) else f"\n{self.data}"
        return f"KeyArray({self.shape}, dtype={self.dtype}) overlaying:{where}"


def raw(key):
    """A typed key's uint32 data; anything else as it is."""
    return key.data if isinstance(key, KeyArray) else key


register_node(KeyArray, lambda k: (k.data,), lambda parts: KeyArray(parts[0]))

__all__ = ["KeyArray", "KeyDType"]
