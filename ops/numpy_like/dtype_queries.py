"""Questions about dtypes, shapes and Python values: isdtype, issubdtype, can_cast, isscalar,
iterable, ndim, shape, size (ops layer).

All answer when the graph is built (plain Python values); a Tensor's dtype and
shape are known then. dtypes are compared through numpy's type hierarchy, with
bfloat16 and the float8 types counted as floating.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...graph import Tensor, dtypes
from ...graph.dims import prod
from .core import error

_KINDS = {
    "bool": "b",
    "signed integer": "i",
    "unsigned integer": "u",
    "integral": "iu",
    "real floating": "f",
    "complex floating": "c",
    "numeric": "iufc",
}


def _dtype_of(x) -> dtypes.DType | None:
    if isinstance(x, Tensor):
        return x.dtype
    try:
        return dtypes.dtype(x)
    except Exception:  # noqa: BLE001  (not one of ours: numpy's abstract classes such as np.floating)
        return None


def isdtype(dtype, kind) -> bool:
    """True when ``dtype`` is of ``kind``: a dtype, one of the array API's kind names ('bool',
    'signed integer', 'unsigned integer', 'integral', 'real floating', 'complex floating',
    'numeric'), or a tuple of those."""
    dt = _dtype_of(dtype)
    if dt is None:
        raise error(f"isdtype wants a dtype, got {dtype!r}")
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, str):
            if k not in _KINDS:
                raise error(f"isdtype does not know the kind {k!r}; kinds are {sorted(_KINDS)}")
            if dt.kind in _KINDS[k]:
                return True
        elif _dtype_of(k) is dt:
            return True
    return False


_ABSTRACT_FLOATS = (np.floating, np.inexact, np.number, np.generic)


def issubdtype(arg1, arg2) -> bool:
    """numpy's issubdtype, for our dtypes too (bfloat16 and float8 are np.floating here)."""
    dt = _dtype_of(arg1)
    if dt is not None and dt.kind == "f" and dt.np.kind == "V" and arg2 in _ABSTRACT_FLOATS:
        return True
    one = dt.np if dt is not None else arg1
    other = _dtype_of(arg2)
    return bool(np.issubdtype(one, other.np if other is not None and not isinstance(arg2, type) else arg2))


def can_cast(from_, to, casting: str = "safe") -> bool:
    """Whether ``from_`` (a dtype or a Tensor) converts to ``to`` under numpy's ``casting`` rule."""
    src, dst = _dtype_of(from_), _dtype_of(to)
    if src is None or dst is None:
        raise error(f"can_cast wants dtypes or Tensors, got {from_!r} and {to!r}")
    if casting == "safe" and src is not dst and dtypes.promote_types(src, dst) is not dst:
        return False
    return bool(np.can_cast(src.np, dst.np, casting)) if "V" not in (src.np.kind, dst.np.kind) else True


def isscalar(element) -> bool:
    """True for Python and numpy scalars and for 0-d Tensors (as jax.numpy counts 0-d arrays)."""
    if isinstance(element, Tensor):
        return element.ndim == 0
    return isinstance(element, numbers.Number | np.generic | str | bytes)


def iterable(y) -> bool:
    """True when ``y`` can be iterated: sequences, and Tensors of rank >= 1."""
    if isinstance(y, Tensor):
        return y.ndim > 0
    try:
        iter(y)
    except TypeError:
        return False
    return True


def ndim(a) -> int:
    """The rank of ``a``."""
    return a.ndim if isinstance(a, Tensor) else np.ndim(a)


def shape(a) -> tuple:
    """The shape of ``a`` (symbolic dims included)."""
    return tuple(a.shape) if isinstance(a, Tensor) else np.shape(a)


def size(a, axis=None):
    """The number of elements of ``a`` (along ``axis`` if given)."""
    if isinstance(a, Tensor):
        if axis is None:
            return prod(a.shape)
        return a.shape[axis]
    return np.size(a, axis)


__all__ = ["can_cast", "isdtype", "isscalar", "issubdtype", "iterable", "ndim", "shape", "size"]
