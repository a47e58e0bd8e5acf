"""Structural ops the backend turns into program arguments: placeholder, parameter.

A ``placeholder`` is a graph input fed by ``Session.run``; a ``parameter`` is
a Function's input. Neither has a lowering rule: the lowering makes each one
an argument of ``main`` (or of a region).

Sharding annotations live here too, as plain data the graph can hold: a spec
is a tuple with one entry per leading dim, each None (replicated), a mesh
axis name, or a tuple of names (sharded over their product). They name mesh
axes only; a Session binds them to its mesh (sharding/ has PartitionSpec).
A placeholder or Variable given ``sharding=`` gets the ``Sharded*Attrs``
variant of its attributes, so unannotated graphs list and serialize as before.
"""

from __future__ import annotations

from typing import Annotated

import numpy as np
from pydantic import PlainSerializer, PlainValidator

from .attrs import DTypeAttr, ShapeAttr
from .dims import check_shape
from .dtypes import DType, float32
from .dtypes import dtype as as_dtype
from .errors import GraphError, located
from .graph import current_graph
from .location import user_location
from .opdef import FEED, LAYOUT, PARAMETER, Attrs, OpDef
from .tensor import Tensor
from .types import TensorType
from .variables import VariableAttrs

SpecEntry = None | str | tuple[str, ...]


def spec_entries(spec) -> tuple[SpecEntry, ...]:
    """A sharding spec (PartitionSpec, tuple or list) as a plain tuple of entries.

    Each entry is None, an axis name, or a tuple of names; an axis named twice
    is an error (a dim cannot be split twice over one axis).
    """
    if isinstance(spec, str) or spec is None:
        raise GraphError(f"a sharding spec is a PartitionSpec or a tuple of axis names, got {spec!r}")
    out = []
    for entry in spec:
        if isinstance(entry, list | tuple):
            if not all(isinstance(a, str) for a in entry):
                raise GraphError(
                    f"sharding spec {tuple(spec)!r}: a tuple entry holds axis names, got {entry!r}"
                )
            entry = tuple(entry)
        elif entry is not None and not isinstance(entry, str):
            raise GraphError(
                f"sharding spec {tuple(spec)!r}: entries are None, an axis name or a tuple of names, "
                f"got {entry!r}"
            )
        out.append(entry)
    names = [a for e in out for a in spec_axes(e)]
    if len(set(names)) < len(names):
        twice = next(a for a in names if names.count(a) > 1)
        raise GraphError(f"sharding spec {tuple(out)!r} uses mesh axis {twice!r} twice")
    return tuple(out)


def spec_axes(entry: SpecEntry) -> tuple[str, ...]:
    """The mesh axes one spec entry shards over."""
    return () if entry is None else (entry,) if isinstance(entry, str) else entry


def _spec_out(spec) -> list:
    return [list(e) if isinstance(e, tuple) else e for e in spec]


SpecAttr = Annotated[tuple, PlainValidator(spec_entries), PlainSerializer(_spec_out)]


def check_spec(spec, shape, what: str) -> tuple[SpecEntry, ...]:
    """``spec`` normalized for a value of ``shape``; GraphError at the user's line if it has too many entries."""
    entries = spec_entries(spec)
    if len(entries) > len(shape):
        raise GraphError(
            located(
                f"{what}: sharding {entries!r} has {len(entries)} entries for a value of rank {len(shape)}",
                user_location(),
            )
        )
    return entries


class InputAttrs(Attrs):
    shape: ShapeAttr
    dtype: DTypeAttr


class ShardedInputAttrs(InputAttrs):
    sharding: SpecAttr


class ShardedVariableAttrs(VariableAttrs):
    sharding: SpecAttr


SHARDED_ATTRS = {InputAttrs: ShardedInputAttrs, VariableAttrs: ShardedVariableAttrs}


def sharding_of(node) -> tuple[SpecEntry, ...] | None:
    """The sharding spec a node of a LAYOUT op (placeholder, variable, sharding_constraint) was
    declared with (None: unannotated)."""
    return getattr(node.attrs, "sharding", None)


def _input_infer(attrs: InputAttrs) -> TensorType:
    return TensorType(attrs.shape, attrs.dtype)


_LEAF = "an input: values flow in from outside the graph"
placeholder_op = OpDef(
    "placeholder",
    _input_infer,
    attrs=InputAttrs,
    reasons={"lower": "becomes an argument of main", "vjp": _LEAF, "batch": _LEAF},
    traits=LAYOUT | FEED,
    doc="A graph input fed by Session.run.",
)
parameter_op = OpDef(
    "parameter",
    _input_infer,
    attrs=InputAttrs,
    reasons={"lower": "becomes an argument of its Function", "vjp": _LEAF, "batch": _LEAF},
    traits=PARAMETER,
    doc="An input of a Function.",
)


def placeholder(*args, shape=None, dtype=None, name: str | None = None, sharding=None) -> Tensor:
    """A graph input to feed in ``Session.run``: ``sg.placeholder(("batch", 3), sg.float32)``.

    Positional arguments are ``(shape, dtype, name, sharding)``, or TF1's
    ``(dtype, shape, name)`` when the first one is a dtype (a DType, a numpy
    dtype or type, a name such as ``"int32"``), so ``sg.placeholder(sg.float32,
    shape=[None, 784])`` works as in TF1. The shape defaults to ``()`` and the
    dtype to float32. Dims may be ints, symbol names (equal names mean equal
    sizes) or None (a fresh anonymous symbol). ``sharding=sg.PartitionSpec("data",
    None)`` splits the fed value over the Session's mesh (ignored without a mesh).
    """
    given = _placeholder_arguments(args, dict(shape=shape, dtype=dtype, name=name, sharding=sharding))
    shape = check_shape(() if given["shape"] is None else given["shape"])
    dtype, name, sharding = given["dtype"] or float32, given["name"], given["sharding"]
    if sharding is None:
        attrs = InputAttrs(shape=shape, dtype=as_dtype(dtype))
    else:
        spec = check_spec(sharding, shape, f"placeholder {name or 'placeholder'}")
        attrs = ShardedInputAttrs(shape=shape, dtype=as_dtype(dtype), sharding=spec)
    return current_graph().add_node(placeholder_op, (), attrs, name=name or "placeholder").output


def _placeholder_arguments(args: tuple, given: dict) -> dict:
    """``given`` (the keywords) with the positional arguments put in their places: ours, or TF1's
    order (dtype first); an argument given twice is an error."""
    if len(args) > 4:
        raise GraphError(
            located(f"placeholder takes at most 4 positional arguments, got {len(args)}", user_location())
        )
    order = (
        ("dtype", "shape", "name")
        if args and _is_dtype_like(args[0])
        else ("shape", "dtype", "name", "sharding")
    )
    if len(args) > len(order):
        raise GraphError(
            located(
                f"placeholder(dtype, shape, name) takes 3 positional arguments, got {len(args)}",
                user_location(),
            )
        )
    for key, value in zip(order, args, strict=False):
        if given[key] is not None:
            raise GraphError(
                located(f"placeholder got {key} twice: positionally and as {key}=", user_location())
            )
        given[key] = value
    return given


def _is_dtype_like(value) -> bool:
    """Whether a placeholder's first argument names a dtype (TF1's order) rather than a shape."""
    if isinstance(value, DType | np.dtype) or any(value is t for t in (bool, int, float, complex)):
        return True
    if isinstance(value, type) and issubclass(value, np.generic):
        return True
    return isinstance(value, str) and _is_dtype_name(value)


def _is_dtype_name(s: str) -> bool:
    try:
        as_dtype(s)
    except Exception:
        return False
    return True
