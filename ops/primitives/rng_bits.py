"""XLA's own generators: rng_bit_generator (stateless, from a key) and rng_uniform (stateful),
as jax.lax's primitives of those names (ops layer).

rng_bit_generator takes a key of four uint32 (or two uint64) words and returns the next key and
random bits from the algorithm named (XLA's default, Threefry or Philox): the values are XLA's
own, so they equal jax.lax.rng_bit_generator's for the same key and algorithm. A uint32[4] key
is bitcast to the uint64[2] state XLA wants and back, as jax does. rng_uniform draws from XLA's
stateful stablehlo.rng: each run of a program may give other values, as in jax.
"""

from __future__ import annotations

import numpy as np

from ...graph import STATEFUL, Attrs, DTypeAttr, GraphError, OpDef, ShapeAttr, TensorType, dtypes
from . import hlo, prims
from .registry import bind, lookup

ALGORITHMS = ("DEFAULT", "THREE_FRY", "PHILOX")
BIT_DTYPES = ("uint8", "uint16", "uint32", "uint64")


# -- rng_bit_generator ------------------------------------------------------------
class RngBitGeneratorAttrs(Attrs):
    shape: ShapeAttr
    dtype: DTypeAttr
    algorithm: str  # one of ALGORITHMS


def _rng_bit_generator_infer(attrs: RngBitGeneratorAttrs, key: TensorType):
    if (key.shape, key.dtype.name) not in (((4,), "uint32"), ((2,), "uint64")):
        raise GraphError(f"rng_bit_generator wants a uint32[4] or uint64[2] key, got {key}")
    if attrs.dtype.name not in BIT_DTYPES:
        raise GraphError(f"rng_bit_generator wants an unsigned dtype {BIT_DTYPES}, got {attrs.dtype.name}")
    if attrs.algorithm not in ALGORITHMS:
        raise GraphError(f"rng_bit_generator's algorithm is one of {ALGORITHMS}, got {attrs.algorithm!r}")
    return key, TensorType(attrs.shape, attrs.dtype)


def _rng_bit_generator_lower(ctx, attrs: RngBitGeneratorAttrs, key):
    key_ty = ctx.in_types[0]
    state_ty = hlo.tensor_type(TensorType((2,), dtypes.uint64))
    if key_ty.dtype is dtypes.uint32:  # two uint32 words per uint64 of XLA's state, as jax packs them
        pairs = hlo.sh.reshape(hlo.tensor_type(TensorType((2, 2), dtypes.uint32)), key)
        key = hlo.sh.bitcast_convert(state_ty, pairs)
    algorithm = hlo.sh.RngAlgorithmAttr.get(attrs.algorithm)
    state, bits = hlo.sh.rng_bit_generator(state_ty, hlo.tensor_type(ctx.out_types[1]), algorithm, key)
    if key_ty.dtype is dtypes.uint32:
        pairs = hlo.sh.bitcast_convert(hlo.tensor_type(TensorType((2, 2), dtypes.uint32)), state)
        state = hlo.sh.reshape(hlo.tensor_type(key_ty), pairs)
    return [state, bits]


def _rng_bit_generator_batch(ctx, attrs: RngBitGeneratorAttrs, xs, bdims):
    # One generator per lane, as a loop over the keys would run (jax's rule reads only the first
    # key and draws one block for all lanes, which a loop does not).
    (keys,), (b,) = xs, bdims
    lanes = ctx.size
    if not isinstance(lanes, int):
        raise GraphError(f"rng_bit_generator under vectorize wants a static batch size, got {lanes}")
    keys = prims.transpose(keys, (b, *(i for i in range(keys.ndim) if i != b)))
    width = keys.shape[1]
    new_keys, bits = [], []
    for i in range(lanes):
        key = bind(lookup("slice"), keys, start_indices=(i, 0), limit_shape=(i + 1, width), strides=(1, 1))
        state, out = bind(rng_bit_generator_op, prims.reshape(key, (width,)), attrs=attrs)
        new_keys.append(prims.reshape(state, (1, width)))
        bits.append(prims.reshape(out, (1, *attrs.shape)))
    return [prims.concatenate(new_keys, 0), prims.concatenate(bits, 0)], [0, 0]


rng_bit_generator_op = OpDef(
    "rng_bit_generator",
    _rng_bit_generator_infer,
    _rng_bit_generator_lower,
    attrs=RngBitGeneratorAttrs,
    batch=_rng_bit_generator_batch,
    reasons={
        "vjp": "its outputs are integers (random bits): no gradient",
        "fold": "numpy has none of XLA's generators",
    },
    doc="Random bits and the next key from a uint32[4] key (XLA's, Threefry or Philox); "
    "stablehlo.rng_bit_generator.",
)


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm: str = "DEFAULT"):
    """``(new_key, bits)``: random ``bits`` of ``shape`` and unsigned ``dtype`` from ``key`` (a
    uint32[4] or uint64[2] Tensor) by ``algorithm`` ("DEFAULT", "THREE_FRY" or "PHILOX"), and
    the key to draw the next bits with. Equal to jax.lax.rng_bit_generator's for the same key.
    Lowers to ``stablehlo.rng_bit_generator``."""
    return bind(rng_bit_generator_op, key, shape=tuple(shape), dtype=dtype, algorithm=algorithm)


# -- rng_uniform ------------------------------------------------------------------
class RngUniformAttrs(Attrs):
    shape: ShapeAttr


def _rng_uniform_infer(attrs: RngUniformAttrs, a: TensorType, b: TensorType):
    if a.dtype is not b.dtype or a.shape != () or b.shape != ():
        raise GraphError(f"rng_uniform wants two scalars of one dtype, got {a} and {b}")
    if a.dtype.kind not in "fiu":
        raise GraphError(f"rng_uniform wants a real numeric dtype, got {a}")
    return TensorType(attrs.shape, a.dtype)


def _rng_uniform_lower(ctx, attrs: RngUniformAttrs, a, b):
    shape = hlo.constant(np.asarray(ctx.out_types[0].shape, np.int64), dtypes.int64)
    return hlo.sh.rng(a, b, shape, hlo.sh.RngDistributionAttr.get("UNIFORM"))


rng_uniform_op = OpDef(
    "rng_uniform",
    _rng_uniform_infer,
    _rng_uniform_lower,
    attrs=RngUniformAttrs,
    traits=STATEFUL,
    reasons={
        "vjp": "a random draw from XLA's hidden state: jax defines no gradient for it either",
        "batch": "a draw from XLA's hidden state has no lanes to keep apart (jax does not batch it either)",
        "fold": "its values come from XLA's generator state",
    },
    doc="Uniform values in [a, b) of a shape from XLA's stateful generator; stablehlo.rng.",
)


def rng_uniform(a, b, shape):
    """Values uniform in [a, b) of ``shape`` (a, b: scalars of one dtype) from XLA's stateful
    generator: not reproducible between runs, as in jax. Lowers to ``stablehlo.rng``."""
    return bind(rng_uniform_op, a, b, shape=tuple(shape))
