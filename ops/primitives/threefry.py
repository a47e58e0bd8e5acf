"""The threefry2x32 primitive: the Threefry-2x32 block cipher as one node (sg.random, ops layer).

Every random number in sg.random comes from this cipher (Salmon et al.,
"Parallel random numbers: as easy as 1, 2, 3", SC11; Random123's 20-round
threefry2x32_20). As one primitive a draw is a handful of nodes instead of
~100 unrolled rounds, and the lowering decides how XLA sees the rounds: one
private function per operand shape, holding the 20 rounds as straight-line
ops, called from each site. On CPU this compiled as fast as inlining the
rounds at each site and faster than a stablehlo.while over the 5 blocks for
programs with few draws (the demo's), and it keeps the StableHLO text short
when draws share a shape (see benchmarks/random_compile.py).
"""

from __future__ import annotations

import functools

from ...graph import GraphError, OpDef, Tensor, TensorType, dtypes
from . import batching, hlo, shape
from .registry import bind

_U32 = dtypes.uint32
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))  # the 4 rounds of even / odd blocks
_PARITY = 0x1BD11BDA  # Threefry's key-schedule constant
_BLOCKS = 5  # 5 blocks of 4 rounds, a key injection after each
sh = hlo.sh


# -- threefry2x32 ----------------------------------------------------------------
def _broadcasts_to(ty: TensorType, shape) -> bool:
    """Numpy broadcasting of ``ty`` to exactly ``shape`` (dims equal or 1, aligned right)."""
    if len(ty.shape) > len(shape):
        return False
    tail = shape[len(shape) - len(ty.shape) :]
    return all(d == 1 or d == t for d, t in zip(ty.shape, tail))


def _threefry2x32_infer(attrs, k1: TensorType, k2: TensorType, x1: TensorType, x2: TensorType):
    for name, ty in (("k1", k1), ("k2", k2), ("x1", x1), ("x2", x2)):
        if ty.dtype is not _U32:
            raise GraphError(f"threefry2x32 wants uint32 operands, got {name} of {ty}")
    if x1.shape != x2.shape:
        raise GraphError(f"threefry2x32 wants counters x1, x2 of one shape, got {x1} and {x2}")
    for name, ty in (("k1", k1), ("k2", k2)):
        if not _broadcasts_to(ty, x1.shape):
            raise GraphError(
                f"threefry2x32 wants key words that broadcast to the counters' shape {x1}, got {name} of {ty}"
            )
    return x1, x2


def _u32(value: int, shape):
    return hlo.full(shape, value, _U32)


def _broadcast(v, ty: TensorType, out: TensorType):
    """``v`` of concrete type ``ty`` broadcast (numpy rules) to the concrete type ``out``."""
    if tuple(ty.shape) == tuple(out.shape):
        return v
    offset = len(out.shape) - len(ty.shape)
    return sh.broadcast_in_dim(hlo.tensor_type(out), v, hlo.dense_i64(range(offset, len(out.shape))))


def _rounds(shape, k1, k2, x, y) -> list:
    """The 20 rounds on counters ``x, y`` of ``shape`` under key words ``k1, k2`` of that shape."""

    def rotl(v, r):
        return sh.or_(sh.shift_left(v, _u32(r, shape)), sh.shift_right_logical(v, _u32(32 - r, shape)))

    ks = (k1, k2, sh.xor(sh.xor(k1, k2), _u32(_PARITY, shape)))
    x, y = sh.add(x, ks[0]), sh.add(y, ks[1])
    for block in range(_BLOCKS):
        for r in _ROTATIONS[block % 2]:
            x = sh.add(x, y)
            y = sh.xor(x, rotl(y, r))
        x = sh.add(x, ks[(block + 1) % 3])
        y = sh.add(sh.add(y, ks[(block + 2) % 3]), _u32(block + 1, shape))
    return [x, y]


def _threefry2x32_lower(ctx, attrs, k1, k2, x1, x2):
    # One private function per counter shape: sites of one shape share its text.
    x_ty = ctx.in_types[2]
    k1, k2 = (_broadcast(k, ty, x_ty) for k, ty in zip((k1, k2), ctx.in_types[:2]))
    shape = tuple(x_ty.shape)
    name = "threefry2x32_" + ("x".join(map(str, shape)) or "scalar")
    types = [hlo.tensor_type(x_ty)] * 4
    return hlo.call_private(name, types, types[2:], functools.partial(_rounds, shape), [k1, k2, x1, x2])


def _threefry2x32_batch(ctx, attrs, xs, bdims):
    # The counters take one batch axis (broadcast if unbatched); each key word is lined up with
    # it under right-aligned broadcasting, so every lane sees exactly its own key and counters.
    k1, k2, x1, x2 = xs
    at = next((b for b in bdims[2:] if b is not None), 0)
    x1, x2 = (batching.batched_at(x, b, ctx.size, at) for x, b in zip((x1, x2), bdims[2:]))
    keys = [_key_along(k, b, x1.ndim - 1 - at) for k, b in zip((k1, k2), bdims[:2])]
    return list(bind(threefry2x32_op, *keys, x1, x2)), [at, at]


def _key_along(k: Tensor, bdim, after: int) -> Tensor:
    """Key word ``k`` (batched at ``bdim``, or None) shaped to broadcast to counters whose batch
    axis has ``after`` dims after it."""
    j = k.ndim - (bdim is not None) - after  # the axis of k that lines up with the batch axis
    if bdim is None:
        return k if j <= 0 else shape.reshape(k, (*k.shape[:j], 1, *k.shape[j:]))
    k = batching.moveaxis(k, bdim, max(j, 0))
    return k if j >= 0 else shape.reshape(k, (k.shape[0], *(1,) * -j, *k.shape[1:]))


threefry2x32_op = OpDef(
    "threefry2x32",
    _threefry2x32_infer,
    _threefry2x32_lower,
    batch=_threefry2x32_batch,
    reasons={
        "vjp": "integer op: no gradient",
        # sg.simplify folds single-output nodes only; XLA folds constant keys itself.
        "fold": "two outputs: not folded by sg.simplify",
    },
    doc="The Threefry-2x32 block cipher, 20 rounds; a call of a private func of straight-line rounds.",
)


def threefry2x32(k1, k2, x1, x2) -> tuple[Tensor, Tensor]:
    """Encrypt the counter pairs ``(x1, x2)`` under the key ``(k1, k2)`` with Threefry-2x32.

    All four are uint32 Tensors; ``x1, x2`` share one shape (symbols allowed)
    and the key words broadcast to it (usually they are scalars). Returns the
    two encrypted words, of the counters' shape: 20 rounds of ``x += y;
    y = rotl(y, r) ^ x`` with a key injection after every 4, as Random123's
    threefry2x32_20, so the words equal jax's ``threefry_2x32``. Lowers to a
    ``func.call`` of a private function holding the rounds (one per shape).

        a, b = sg.random.threefry2x32(k1, k2, hi, lo)
    """
    return bind(threefry2x32_op, k1, k2, x1, x2)


__all__ = ["threefry2x32", "threefry2x32_op"]
