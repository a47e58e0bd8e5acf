"""Structural ops the backend turns into program arguments: placeholder, parameter.

A ``placeholder`` is a graph input fed by ``Session.run``; a ``parameter`` is
a Function's input. Neither has a lowering rule: the lowering makes each one
an argument of ``main`` (or of a region).
"""

from __future__ import annotations

from .attrs import DTypeAttr, ShapeAttr
from .dims import check_shape
from .dtypes import DType, float32
from .dtypes import dtype as as_dtype
from .graph import current_graph
from .opdef import Attrs, OpDef
from .tensor import Tensor
from .types import TensorType


class InputAttrs(Attrs):
    shape: ShapeAttr
    dtype: DTypeAttr


def _input_infer(attrs: InputAttrs) -> TensorType:
    return TensorType(attrs.shape, attrs.dtype)


_LEAF = "an input: values flow in from outside the graph"
placeholder_op = OpDef(
    "placeholder",
    _input_infer,
    attrs=InputAttrs,
    reasons={"lower": "becomes an argument of main", "vjp": _LEAF, "batch": _LEAF},
    doc="A graph input fed by Session.run.",
)
parameter_op = OpDef(
    "parameter",
    _input_infer,
    attrs=InputAttrs,
    reasons={"lower": "becomes an argument of its Function", "vjp": _LEAF, "batch": _LEAF},
    doc="An input of a Function.",
)


def placeholder(shape=(), dtype=float32, name: str | None = None) -> Tensor:
    """A graph input to feed in ``Session.run``: ``sg.placeholder(("batch", 3), sg.float32)``.

    Dims may be ints, symbol names (equal names mean equal sizes) or None
    (a fresh anonymous symbol). TF1's argument order (dtype first) also works.
    """
    if isinstance(shape, DType) or (isinstance(shape, str) and _is_dtype_name(shape)):
        shape, dtype = (dtype if dtype is not float32 else ()), shape
    attrs = InputAttrs(shape=check_shape(shape), dtype=as_dtype(dtype))
    return current_graph().add_node(placeholder_op, (), attrs, name=name or "placeholder").output


def _is_dtype_name(s: str) -> bool:
    try:
        as_dtype(s)
    except Exception:
        return False
    return True
