"""TensorType: a shape of Dims plus a DType (graph layer)."""

from __future__ import annotations

from .dims import Dim, check_shape, evaluate, is_symbolic, symbols
from .dtypes import DType
from .dtypes import dtype as as_dtype


class TensorType:
    """The static type of a tensor: ``TensorType(("batch", 3), float32)``.

    Immutable and hashable; dims may be symbolic (see graph.dims).
    """

    __slots__ = ("shape", "dtype", "_hash")

    def __init__(self, shape, dtype):
        object.__setattr__(self, "shape", check_shape(shape))
        object.__setattr__(self, "dtype", as_dtype(dtype))
        object.__setattr__(self, "_hash", hash((self.shape, self.dtype.name)))

    def __setattr__(self, name, value):
        raise AttributeError("TensorType is immutable")

    def __eq__(self, other) -> bool:
        return isinstance(other, TensorType) and self.shape == other.shape and self.dtype is other.dtype

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self):
        return (TensorType, (self.shape, self.dtype.name))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def is_concrete(self) -> bool:
        return not any(is_symbolic(d) for d in self.shape)

    @property
    def symbols(self) -> set[str]:
        return {s for d in self.shape for s in symbols(d)}

    def evaluate(self, bindings: dict[str, int]) -> TensorType:
        """The concrete type under symbol bindings."""
        if self.is_concrete:
            return self
        return TensorType(tuple(evaluate(d, bindings) for d in self.shape), self.dtype)

    def with_shape(self, shape: tuple[Dim, ...]) -> TensorType:
        return TensorType(shape, self.dtype)

    def with_dtype(self, dt) -> TensorType:
        return TensorType(self.shape, dt)

    def __str__(self) -> str:
        return f"{self.dtype.short}[{','.join(str(d) for d in self.shape)}]"

    def __repr__(self) -> str:
        return f"TensorType({self.shape!r}, {self.dtype!r})"


__all__ = ["TensorType", "DType"]
