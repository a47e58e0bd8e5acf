"""Primitives about how a program is staged: platform_index (which platform's branch runs) and
dce_sink (a value kept although nothing reads it), as jax.lax's platform_dependent and dce_sink
use them (ops layer).

platform_index is the int32 position of the platform the Session lowers for among lists of
platform names, fixed when the program is lowered (a constant XLA folds), so
sg.lax.platform_dependent can choose a branch with sg.switch and every rule of switch (gradients,
vectorize) applies. dce_sink is an effect with no outputs: the graph keeps the node and what it
reads wherever that is computed; it lowers to nothing, like jax's without prevent_mlir_dce.
"""

from __future__ import annotations

import itertools

from ...graph import EFFECT, ZERO_DERIVATIVE, Attrs, GraphError, OpDef, TensorType, dtypes, located
from . import hlo
from .registry import bind, bind_node


# -- platform_index ----------------------------------------------------------------
class PlatformIndexAttrs(Attrs):
    platforms: tuple[tuple[str, ...], ...]  # per branch, the platform names it serves
    has_default: bool  # a branch after these runs on any other platform


def _platform_index_infer(attrs: PlatformIndexAttrs) -> TensorType:
    return TensorType((), dtypes.int32)


def matches(name: str, platform: str) -> bool:
    """Whether a user's platform name (jax's spelling: cpu, cuda, rocm, tpu) means ``platform``, the
    Session's (PJRT calls an NVIDIA GPU "cuda" or "gpu"; a rocm branch runs on no platform here)."""
    name = name.lower()
    return name == platform or (name == "cuda" and platform == "gpu")


def _platform_index_lower(ctx, attrs: PlatformIndexAttrs):
    index = next((i for i, names in enumerate(attrs.platforms) if any(matches(n, ctx.platform) for n in names)),
                 len(attrs.platforms) if attrs.has_default else None)  # fmt: skip
    if index is None:
        listed = sorted({n for names in attrs.platforms for n in names})
        message = (
            f"platform_dependent has no branch for platform {ctx.platform!r} (it has {listed}, no default)"
        )
        raise GraphError(located(message, ctx.node.location, ctx.node.name))
    return hlo.constant(index, dtypes.int32)


platform_index_op = OpDef(
    "platform_index",
    _platform_index_infer,
    _platform_index_lower,
    attrs=PlatformIndexAttrs,
    traits=ZERO_DERIVATIVE,
    reasons={
        "vjp": "it has no operands",
        "batch": "it has no operands, so vectorize copies it",
        "fold": "its value is fixed only when the Session lowers the program for its platform",
    },
    doc="The int32 position of the platform the program is lowered for among lists of names; a constant.",
)


def platform_index(platforms, has_default: bool):
    """The index of the branch serving the Session's platform (``len(platforms)``: the default)."""
    return bind(platform_index_op, platforms=tuple(tuple(p) for p in platforms), has_default=has_default)


# -- dce_sink ----------------------------------------------------------------------
_keys = itertools.count()


class DceSinkAttrs(Attrs):
    prevent_mlir_dce: bool = False
    key: int  # shared by the copies of one sink (the forward's and a vjp's recomputation)
    recomputed: bool = False

    def effect_key(self) -> int:
        return self.key


def _dce_sink_infer(attrs: DceSinkAttrs, x: TensorType) -> tuple:
    return ()


def _dce_sink_lower(ctx, attrs: DceSinkAttrs, x) -> list:
    return []  # kept in the graph; in the program XLA may drop what nothing reads, as in jax


def _dce_sink_vjp(ctx, attrs, xs, ys, cts):
    return [None]


def _dce_sink_jvp(ctx, attrs, xs, ys, tangents):
    return []


def _dce_sink_batch(ctx, attrs: DceSinkAttrs, xs, bdims):
    bind_node(dce_sink_op, list(xs), attrs)
    return [], []


dce_sink_op = OpDef(
    "dce_sink",
    _dce_sink_infer,
    _dce_sink_lower,
    attrs=DceSinkAttrs,
    vjp=_dce_sink_vjp,
    jvp=_dce_sink_jvp,
    batch=_dce_sink_batch,
    traits=EFFECT | ZERO_DERIVATIVE,
    doc="Marks a value as used, so dead-code elimination keeps what computes it; lowers to nothing.",
)


def dce_sink(x, prevent_mlir_dce: bool = False) -> None:
    """Keep ``x``'s computation in the graph although nothing reads it (a dce_sink node)."""
    bind_node(dce_sink_op, [x], DceSinkAttrs(prevent_mlir_dce=prevent_mlir_dce, key=next(_keys)))
