"""module_call: one node that runs a StableHLO module of another program (ops layer).

sg.from_jax and sg.import_jax_exported put a function that jax exported
into a graph as one ``module_call`` node. Its attributes hold the module's
text (its @main may be shape-polymorphic: ``tensor<?x4xf32>``), the
declared argument and result types (symbolic dims as our Dims, so inference
binds them from the operands' types like a Function call), and two more
module calls exported with it: ``vjp_call`` (main(primals..., cotangents...)
-> the primals' cotangents, jax's ``Exported.vjp()``) and ``batched_call``
(the function vectorized over a new leading axis of every argument, exported
with a symbolic size). The gradient and the vectorized form are module calls
too, so transforms compose without asking what the module is; one level of
each is exported, and a rule that would need a deeper one says so.

Lowering refines the module's shapes to the operands' static ones with
jaxlib's shape refinement (hlo.call_module) and copies its functions into the
program under symbols prefixed by a hash of the module and types, so a module
called twice with the same types is defined once.
"""

from __future__ import annotations

import hashlib
from typing import Annotated

import numpy as np
from pydantic import PlainSerializer, PlainValidator

from ...graph import (
    Attrs,
    CompileError,
    GraphError,
    OpDef,
    ShapeAttr,
    Tensor,
    TensorType,
    dims,
    dtypes,
    located,
)
from ...graph.attrs import DTypeAttr
from ...graph.function import bind_symbols
from . import ad_util as ad
from . import hlo
from .batching import batch_size, batched_at
from .registry import bind_node


class ModuleText(str):
    """A module's StableHLO text; listings show its size, not the text."""

    def __repr__(self) -> str:
        return f"<stablehlo, {len(self)} chars>"


def _module_text(v) -> ModuleText:
    if not isinstance(v, str):
        raise ValueError(f"a module is StableHLO text, got {type(v).__name__}")
    return ModuleText(v)


ModuleTextAttr = Annotated[ModuleText, PlainValidator(_module_text), PlainSerializer(str)]


class ModuleCallAttrs(Attrs):
    name: str  # the function's name, for listings
    module: ModuleTextAttr  # StableHLO text; @main takes the arguments at ``kept`` (in order)
    in_shapes: tuple[ShapeAttr, ...]
    in_dtypes: tuple[DTypeAttr, ...]
    out_shapes: tuple[ShapeAttr, ...]
    out_dtypes: tuple[DTypeAttr, ...]
    kept: tuple[int, ...]  # the arguments @main takes (jax drops unused ones)
    platforms: tuple[str, ...] = ("cpu",)
    vjp_call: ModuleCallAttrs | None = None
    batched_call: ModuleCallAttrs | None = None
    batched_args: tuple[int, ...] | None = None  # the arguments batched_call takes batched (None: all)

    def __str__(self) -> str:
        return f"<module_call {self.name}>"

    @property
    def in_types(self) -> list[TensorType]:
        return [TensorType(s, d) for s, d in zip(self.in_shapes, self.in_dtypes)]

    @property
    def out_types(self) -> list[TensorType]:
        return [TensorType(s, d) for s, d in zip(self.out_shapes, self.out_dtypes)]


def _module_call_infer(attrs: ModuleCallAttrs, *xs: TensorType) -> tuple[TensorType, ...]:
    if len(xs) != len(attrs.in_shapes):
        raise GraphError(f"module_call {attrs.name} takes {len(attrs.in_shapes)} arguments, got {len(xs)}")
    subst = bind_symbols(attrs.in_types, xs, f"module_call {attrs.name}")
    return tuple(
        TensorType(tuple(dims.substitute(d, subst) for d in t.shape), t.dtype) for t in attrs.out_types
    )


def _platform_index(ctx, attrs: ModuleCallAttrs) -> int:
    """Where the platform the program is lowered for stands in the module's platforms (jax spells
    NVIDIA GPUs "cuda"); a CompileError at the node when it is not among them."""
    names = [("gpu" if p == "cuda" else p) for p in attrs.platforms]
    here = "gpu" if ctx.platform == "cuda" else ctx.platform
    if here not in names:
        node = ctx.node
        raise CompileError(
            located(
                f"module_call {attrs.name} was exported for {', '.join(attrs.platforms)}, not {ctx.platform}",
                node.location,
                node.name,
            )
        )
    return names.index(here)


def _module_call_lower(ctx, attrs: ModuleCallAttrs, *values):
    index = _platform_index(ctx, attrs)
    args = [values[i] for i in attrs.kept]
    if len(attrs.platforms) > 1:  # a multi-platform module's @main takes the platform's index first
        args.insert(0, hlo.constant(np.int32(index), dtypes.int32))
    result_types = [hlo.tensor_type(t) for t in ctx.out_types]
    signature = "|".join(str(t) for t in (*ctx.in_types, *ctx.out_types))
    key = "sg_module_" + hashlib.sha256((attrs.module + signature + ctx.platform).encode()).hexdigest()[:16]
    try:
        return hlo.call_module(attrs.module, key, args, result_types)
    except ValueError as e:
        types = ", ".join(str(t) for t in ctx.in_types)
        node = ctx.node
        raise CompileError(
            located(f"module_call {attrs.name} does not run on ({types}): {e}", node.location, node.name)
        ) from None


def _at_node(ctx, message: str) -> str:
    """``message`` at the call's node: its user line (a derived call's is the line of the call it
    derives from) and name."""
    node = ctx.node
    return message if node is None else located(message, node.location, node.name)


def _module_call_vjp(ctx, attrs: ModuleCallAttrs, xs, ys, cts):
    if attrs.vjp_call is None:
        raise GraphError(_at_node(ctx,
            f"module_call {attrs.name} has no exported vjp (exported without vjp=True, a vjp's own vjp, or a "
            "function jax could not differentiate): its gradient is not available"))  # fmt: skip
    cts = [ad.zeros_like(y) if ct is None else ct for y, ct in zip(ys, cts)]
    grads = module_call(attrs.vjp_call, [*xs, *cts])
    return [g if ad.is_differentiable(x) else None for x, g in zip(xs, grads)]


def _module_call_batch(ctx, attrs: ModuleCallAttrs, xs, bdims):
    if attrs.batched_call is None:
        raise GraphError(_at_node(ctx,
            f"module_call {attrs.name} has no exported batched form (vectorizing it twice, or a function jax "
            "could not vmap): it cannot be vectorized"))  # fmt: skip
    size = batch_size(xs, bdims)
    batched = range(len(xs)) if attrs.batched_args is None else attrs.batched_args
    shared = [k for k, b in enumerate(bdims) if b is not None and k not in batched]
    if shared:
        raise GraphError(
            f"module_call {attrs.name}'s batched form takes argument {shared[0]} unbatched (an exported "
            "variable): vectorizing over it is not exported"
        )
    args = [batched_at(x, b, size) if k in batched else x for k, (x, b) in enumerate(zip(xs, bdims))]
    outs = module_call(attrs.batched_call, args)
    return outs, [0] * len(outs)


module_call_op = OpDef(
    "module_call",
    _module_call_infer,
    _module_call_lower,
    attrs=ModuleCallAttrs,
    vjp=_module_call_vjp,
    batch=_module_call_batch,
    reasons={
        "jvp": "forward mode comes from the exported vjp by transposition",
        "fold": "the module runs only when compiled",
    },
    doc="A call of an exported StableHLO module (jax.export's); its functions are inlined into the program.",
)


def module_call(attrs: ModuleCallAttrs, args) -> list[Tensor]:
    """The results of running the module ``attrs`` describes on ``args`` (Tensors), one node."""
    return list(bind_node(module_call_op, list(args), attrs, name=attrs.name).outputs)


__all__ = ["ModuleCallAttrs", "module_call", "module_call_op"]
