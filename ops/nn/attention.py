"""Scaled dot-product attention with jax.nn's signature, and a multi-head attention layer (sg.nn, ops layer).

``dot_product_attention`` follows jax.nn.dot_product_attention: (B, T, N, H)
queries against (B, S, K, H) keys and values (or the same without B), grouped
query attention when K divides N (each group of N // K query heads shares one
key/value head), logits in at least float32, masked logits set to a large
negative number (not -inf, so a fully masked row stays finite), the softmax in
float32 (float64 inputs keep float64 throughout; jax drops to float32 there).
Queries are reshaped to (B, T, K, G, H) so the grouped heads need no copies
of the keys.

``multi_head_attention`` is flax.linen.MultiHeadDotProductAttention: query,
key and value projections (``<name>/query/kernel`` of (features, heads,
head_dim), ...), attention, and an output projection (``<name>/out/kernel``
of (heads, head_dim, out_features)).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ...graph import Tensor, dtypes, library, name_scope
from ...graph.library import returns
from .. import numpy_like as snp
from ..numpy_like.core import asarray, error
from ..primitives import elementwise
from ..primitives.dot_general import dot_general
from ..state import Variable
from . import initializers
from .activations import softmax
from .reuse import layer_call

__all__ = ["dot_product_attention", "multi_head_attention"]


def _four_d(t: Tensor, what: str) -> Tensor:
    if t.ndim > 4:
        raise error(f"dot_product_attention wants a {what} of rank <= 4, got {t.type}")
    return snp.reshape(t, (1,) * (4 - t.ndim) + tuple(t.shape)) if t.ndim < 4 else t


def _grouped(t: Tensor, heads: int, groups: int, what: str) -> Tensor:
    """A (b, n, t, s) bias or mask as (b, K, G, t, s), n being 1 or all N = K * G heads."""
    b, n, tq, s = t.shape
    if n == 1:
        return snp.expand_dims(t, 1)
    if n != heads * groups:
        raise error(f"dot_product_attention wants a {what} with 1 or {heads * groups} heads, got {t.type}")
    return snp.reshape(t, (b, heads, groups, tq, s))


def _positions(size) -> Tensor:
    return snp.arange(size, dtype=dtypes.int32)


def _mask(mask, is_causal, q_lengths, kv_lengths, window, shape) -> Tensor | None:
    """Every masking rule combined into one bool Tensor broadcasting to (B, K, G, T, S), or None."""
    _, tq, s = shape
    rows, cols = _positions(tq)[:, None], _positions(s)[None, :]
    parts = [] if mask is None else [mask]
    if is_causal:
        parts.append(rows >= cols)
    if window is not None:
        left, right = window
        parts.append((rows <= cols + left) & (rows >= cols - right))
    if q_lengths is not None:
        parts.append((_positions(tq)[None, :] < q_lengths[:, None])[:, None, None, :, None])
    if kv_lengths is not None:
        parts.append((_positions(s)[None, :] < kv_lengths[:, None])[:, None, None, None, :])
    if not parts:
        return None
    combined = parts[0]
    for p in parts[1:]:
        combined = combined & p
    return combined


def _lengths(lengths, what: str):
    if lengths is None:
        return None
    lengths = asarray(lengths)
    if lengths.dtype.kind not in "iu" or lengths.ndim != 1:
        raise error(f"dot_product_attention wants {what} as ints of shape (B,), got {lengths.type}")
    return lengths


def _window(size):
    if size is None:
        return None
    if isinstance(size, numbers.Integral):
        return int(size), int(size)
    left, right = size
    return int(left), int(right)


@library()
def dot_product_attention(
    query,
    key,
    value,
    bias=None,
    mask=None,
    *,
    scale=None,
    is_causal: bool = False,
    query_seq_lengths=None,
    key_value_seq_lengths=None,
    local_window_size=None,
    implementation=None,
    return_residual: bool = False,
):
    """softmax(scale * Q K^T + bias, masked) V per head, as jax.nn.dot_product_attention.

    query (B, T, N, H) or (T, N, H); key and value (B, S, K, H) or (S, K, H),
    N a multiple of K (grouped query attention). ``bias`` and ``mask`` (bools,
    True = attend) broadcast to (B, N, T, S). ``scale`` defaults to
    1 / sqrt(H); ``is_causal`` lets query i see keys j <= i;
    ``local_window_size`` (left, right) or an int limits i to
    [i - left, i + right]; ``query_seq_lengths`` / ``key_value_seq_lengths``
    (int (B,)) mask padding (padded query rows give 0). ``return_residual``
    also returns the logsumexp of the logits, (B, T, N).
    ``y = sg.nn.dot_product_attention(q, k, v, is_causal=True)``
    """
    if implementation not in (None, "xla"):
        raise error(f"dot_product_attention: implementation {implementation!r} is not available; use None")
    q_in, key, value = asarray(query), asarray(key), asarray(value)
    if not (q_in.dtype is key.dtype is value.dtype) or not q_in.dtype.is_floating:
        raise error(
            f"dot_product_attention wants query, key and value of one floating dtype, "
            f"got {q_in.type}, {key.type}, {value.type}"
        )
    q, k, v = (_four_d(t, what) for t, what in ((q_in, "query"), (key, "key"), (value, "value")))
    batch, s, kv_heads, h = k.shape
    if tuple(v.shape) != tuple(k.shape) or q.shape[0] != batch or q.shape[3] != h:
        raise error(
            f"dot_product_attention wants query (B, T, N, H), key and value (B, S, K, H), "
            f"got {q_in.type}, {key.type}, {value.type}"
        )
    _, tq, heads, _ = q.shape
    if not isinstance(heads, int) or not isinstance(kv_heads, int) or heads % kv_heads:
        raise error(
            f"dot_product_attention wants query heads a multiple of key/value heads, got {heads} and {kv_heads}"
        )
    groups = heads // kv_heads
    logits_dtype = dtypes.float64 if q.dtype is dtypes.float64 else dtypes.float32
    scale = 1.0 / math.sqrt(h) if scale is None else scale

    flat = groups == 1  # no group axis: (B, N, T, S) logits, which XLA lays out better
    g_ax = "" if flat else "g"
    qg = q if flat else snp.reshape(q, (batch, tq, kv_heads, groups, h))
    logits = (
        snp.einsum(f"btk{g_ax}h,bskh->bk{g_ax}ts", qg.astype(logits_dtype), k.astype(logits_dtype)) * scale
    )
    if bias is not None:
        grouped_bias = _grouped(_four_d(asarray(bias), "bias"), kv_heads, groups, "bias").astype(logits_dtype)
        logits = logits + (snp.squeeze(grouped_bias, 2) if flat else grouped_bias)
    if mask is not None:
        mask = asarray(mask)
        if mask.dtype is not dtypes.bool_:
            raise error(f"dot_product_attention wants a bool mask, got {mask.type}")
        mask = _grouped(_four_d(mask, "mask"), kv_heads, groups, "mask")
    q_lengths = _lengths(query_seq_lengths, "query_seq_lengths")
    kv_lengths = _lengths(key_value_seq_lengths, "key_value_seq_lengths")
    keep = _mask(mask, is_causal, q_lengths, kv_lengths, _window(local_window_size), (batch, tq, s))
    if keep is not None:
        large_negative = -0.7 * float(min(np.finfo(logits_dtype.np).max, np.finfo(np.float32).max))
        if flat and keep.ndim == 5:
            keep = snp.squeeze(keep, 2)
        logits = snp.where(keep, logits, large_negative)
    probs = softmax(logits.astype(dtypes.float32) if logits_dtype is dtypes.float32 else logits, axis=-1)
    encoded = snp.einsum(f"bk{g_ax}ts,bskh->btk{g_ax}h", probs.astype(v.dtype), v)
    encoded = snp.reshape(encoded, (batch, tq, heads, h))
    if q_lengths is not None:
        encoded = encoded * (_positions(tq)[None, :] < q_lengths[:, None])[:, :, None, None].astype(v.dtype)
    encoded = snp.reshape(encoded, q_in.shape)
    if not return_residual:
        return encoded
    top = elementwise.stop_gradient(snp.max(logits, axis=-1, keepdims=True))
    lse = snp.squeeze(snp.log(snp.sum(snp.exp(logits - top), axis=-1, keepdims=True)) + top, -1)
    lse = snp.swapaxes(lse, 1, 2) if flat else snp.transpose(lse, (0, 3, 1, 2))
    lse = snp.reshape(lse, (batch, tq, heads)).astype(v.dtype)
    return encoded, elementwise.stop_gradient(snp.reshape(lse, q_in.shape[:-1]))


def _flat_init(init, fan_shape: tuple):
    """``init`` applied to the 2-d (fan_in, fan_out) shape, reshaped to the kernel's (as flax's DenseGeneral)."""

    def kernel_init(key, shape, dtype=dtypes.float32):
        return snp.reshape(asarray(init(key, fan_shape, dtype)), shape)

    kernel_init.uses_key = getattr(init, "uses_key", True)
    kernel_init.__name__ = getattr(init, "__name__", "initializer")
    return kernel_init


def _project(x, heads, head_dim, use_bias, kernel_init, bias_init, scope: str) -> Tensor:
    """x (..., F) -> (..., heads, head_dim) with Variables ``<scope>/kernel`` and ``<scope>/bias``."""
    features = x.shape[-1]
    with name_scope(scope):
        init = _flat_init(kernel_init, (features, heads * head_dim))
        kernel = Variable(init, (features, heads, head_dim), x.dtype, name="kernel")
        y = dot_general(x, kernel, ((x.ndim - 1,), (0,)))
        if use_bias:
            y = y + Variable(bias_init, (heads, head_dim), x.dtype, name="bias")
    return y


def multi_head_attention(
    inputs_q,
    inputs_kv=None,
    num_heads: int | None = None,
    *,
    qkv_features: int | None = None,
    out_features: int | None = None,
    mask=None,
    is_causal: bool = False,
    use_bias: bool = True,
    kernel_init=None,
    bias_init=initializers.zeros,
    name: str = "attention",
    reuse=None,
) -> Tensor:
    """Multi-head dot-product attention (flax.linen.MultiHeadDotProductAttention) as one layer.

    ``inputs_q`` (B, T, F) or (T, F); ``inputs_kv`` (B, S, F') attends from the
    queries to it (default: self-attention on ``inputs_q``). ``qkv_features``
    (default F) splits into ``num_heads`` heads; ``out_features`` defaults to
    F. ``mask`` (bools, True = attend) broadcasts to (B, num_heads, T, S).
    Kernels default to lecun_normal over (fan_in, fan_out), as flax. ``reuse=True`` shares the
    variables of the layer ``name`` made before (as dense).
    ``y = sg.nn.multi_head_attention(x, num_heads=8, is_causal=True, name="attn1")``
    """
    q_in = asarray(inputs_q)
    kv_in = q_in if inputs_kv is None else asarray(inputs_kv)
    if not q_in.dtype.is_floating:
        q_in = q_in.astype(dtypes.float32)
    if kv_in.dtype is not q_in.dtype:
        kv_in = kv_in.astype(q_in.dtype)
    for t, what in ((q_in, "inputs_q"), (kv_in, "inputs_kv")):
        if t.ndim not in (2, 3) or not isinstance(t.shape[-1], int):
            raise error(
                f"multi_head_attention wants {what} of shape (B, T, F) or (T, F), F static, got {t.type}"
            )
    if not isinstance(num_heads, numbers.Integral) or num_heads < 1:
        raise error(f"multi_head_attention wants a positive int num_heads, got {num_heads!r}")
    qkv_features = q_in.shape[-1] if qkv_features is None else int(qkv_features)
    out_features = q_in.shape[-1] if out_features is None else int(out_features)
    if qkv_features % num_heads:
        raise error(
            f"multi_head_attention: qkv_features {qkv_features} is not a multiple of num_heads {num_heads}"
        )
    head_dim = qkv_features // num_heads
    kernel_init = initializers.lecun_normal() if kernel_init is None else kernel_init
    with layer_call("multi_head_attention", name, reuse) as call:
        args = (num_heads, head_dim, use_bias, kernel_init, bias_init)
        q = _project(q_in, *args, "query")
        k = _project(kv_in, *args, "key")
        v = _project(kv_in, *args, "value")
        encoded = dot_product_attention(q, k, v, mask=mask, is_causal=is_causal)
        with name_scope("out"):
            init = _flat_init(kernel_init, (qkv_features, out_features))
            kernel = Variable(init, (num_heads, head_dim, out_features), q_in.dtype, name="kernel")
            y = dot_general(encoded, kernel, ((encoded.ndim - 2, encoded.ndim - 1), (0, 1)))
            if use_bias:
                y = y + Variable(bias_init, (out_features,), q_in.dtype, name="bias")
        returns(call, y)
    return y
