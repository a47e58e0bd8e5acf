"""The ensure_shape primitive: a value with a shape it is taken to have, checked when run (ops layer).

Broadcasting unifies an anonymous dim (a ``None`` of the user's) with the
dim it meets (graph/dims.py ``unify``): ``x + y`` on placeholders of
``(None, 4)`` each is ``(_d0, 4)``, and y reaches the add through
``ensure_shape(y, (_d0, 4))``, which turns its ``(_d1, 4)`` into
``(_d0, 4)``. The node is an identity whose type records the assumption,
so every rule downstream sees equal shapes, gradients flow back through a
second ensure_shape, and the assumption is checked where the program is
lowered: once the Session has bound the symbols from the feeds, sizes that
differ are a FeedError at the line that unified them, naming the fed
inputs the two dims come from. As TF1's ``tf.ensure_shape``, users may also
state an assumption themselves: ``sg.ensure_shape(x, (None, 10))``.
"""

from __future__ import annotations

from ...graph import (
    LINEAR,
    Attrs,
    FeedError,
    GraphError,
    OpDef,
    ShapeAttr,
    Tensor,
    TensorType,
    located,
    user_location,
)
from ...graph.dims import check_dim, difference, evaluate, shape_str, symbols
from ...graph.structural import parameter_op, placeholder_op
from . import batching
from .registry import bind


class EnsureShapeAttrs(Attrs):
    shape: ShapeAttr


def _ensure_shape_infer(attrs: EnsureShapeAttrs, x: TensorType) -> TensorType:
    shape = attrs.shape
    if len(shape) != x.ndim:
        raise GraphError(f"ensure_shape wants a shape of rank {x.ndim} for {x}, got {shape_str(shape)}")
    for i, (d, want) in enumerate(zip(x.shape, shape)):
        if difference(d, want) not in (0, None):
            raise GraphError(
                f"ensure_shape: {x} cannot have shape {shape_str(shape)}: dim {i} is {d}, not {want}"
            )
    return TensorType(shape, x.dtype)


def _ensure_shape_lower(ctx, attrs: EnsureShapeAttrs, x):
    have, want = ctx.in_types[0].shape, ctx.out_types[0].shape
    if have != want:
        raise FeedError(located(_disagreement(ctx, have, want), ctx.node.location, ctx.node.name))
    return x


def _disagreement(ctx, have: tuple, want: tuple) -> str:
    """What the feeds made of the dims this node took to be equal, and which inputs they came from."""
    node = ctx.node
    declared, target = node.inputs[0].type.shape, node.attrs.shape
    i = next(i for i, (h, w) in enumerate(zip(have, want)) if h != w)
    sides = [_spelled_dim(declared[i], have[i], node.graph, ctx.bindings),
             _spelled_dim(target[i], want[i], node.graph, ctx.bindings)]  # fmt: skip
    return (
        f"the feeds disagree on dims this line took to be one size: {sides[0]}, but {sides[1]}; "
        "feed sizes that agree (None dims that meet in an op, e.g. broadcast together, are one size)"
    )


def _spelled_dim(d, size: int, graph, bindings) -> str:
    """``_d1 = 5 (dim 0 of y, fed (5, 10))``: a dim, its size, and the fed inputs its symbols come from."""
    origins = []
    for sym in symbols(d):
        for n in graph.nodes:
            if n.op is not placeholder_op and n.op is not parameter_op:
                continue
            shape = n.out_types[0].shape
            if sym in shape:
                fed = tuple(_value(s, bindings) for s in shape)
                origins.append(f"dim {shape.index(sym)} of {n.name} {shape_str(shape)}, fed {shape_str(fed)}")
                break
    return f"{d} = {size}" + (f" ({'; '.join(origins)})" if origins else "")


def _value(d, bindings):
    try:
        return evaluate(d, bindings)
    except KeyError:
        return "?"


def _ensure_shape_vjp(ctx, attrs: EnsureShapeAttrs, xs, ys, cts):
    return [None if cts[0] is None else ensure_shape(cts[0], xs[0].shape)]


def _ensure_shape_batch(ctx, attrs: EnsureShapeAttrs, xs, bdims):
    (x,), (b,) = xs, bdims
    shape = attrs.shape if b is None else batching.inserted(attrs.shape, b, ctx.size)
    return [ensure_shape(x, shape)], [b]


ensure_shape_op = OpDef(
    "ensure_shape",
    _ensure_shape_infer,
    _ensure_shape_lower,
    attrs=EnsureShapeAttrs,
    vjp=_ensure_shape_vjp,
    batch=_ensure_shape_batch,
    traits=LINEAR,
    doc="x itself, with a shape whose dims it is taken to have (anonymous dims unified); checked when run.",
)


def ensure_shape(x: Tensor, shape) -> Tensor:
    """``x`` with type ``shape``, checked when the program runs (TF1's tf.ensure_shape).

    ``shape`` has x's rank; a None entry keeps x's dim. Dims that cannot be
    equal at build time (3 and 4, ``n`` and ``n + 1``) are a GraphError; the
    rest are assumed here and checked once the Session binds the symbols, a
    FeedError if the feeds disagree. Broadcasting uses it to unify anonymous
    dims; use it to tell stablegraph that two named sizes agree.
    ``y = sg.ensure_shape(y, x.shape)``
    """
    if not isinstance(shape, list | tuple) or len(shape) != x.ndim:
        raise GraphError(
            located(f"ensure_shape wants a shape (a tuple of dims) of rank {x.ndim} for {x.type}, got {shape!r}",
                    user_location())
        )  # fmt: skip
    try:
        shape = tuple(d if w is None else check_dim(w) for d, w in zip(x.shape, shape))
    except GraphError as e:
        raise GraphError(located(f"ensure_shape: {e}", user_location())) from None
    if shape == tuple(x.shape):
        return x
    return bind(ensure_shape_op, x, shape=shape)
