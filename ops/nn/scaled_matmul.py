"""Block-scaled (microscaling) matmuls as jax.nn: scaled_matmul, scaled_dot_general and
get_scaled_dot_general_config (ops layer).

jax runs these through cuDNN on Blackwell GPUs only; here they are composites that compute the
same numbers anywhere: each block of ``block_size`` values along the contracted dim shares one
scale, the operands are dequantized (values times their block's scale, in float32) and
contracted with one dot_general. scaled_dot_general quantizes its float inputs first, as jax's
does: per block, scale = amax / max(data type), rounded up to a power of two (mxfp8: an e8m0
scale) or stored as float8_e4m3fn (nvfp4, after dividing by the global scale), then the values
divided by the scale, clipped and rounded to the data type (float8_e4m3fn, or float4_e2m1fn,
which is rounded here in float32 arithmetic since the IR has no 4-bit type). Its gradient is
straight-through, as jax's: the dot's gradient with the quantized other operand (the cotangent
itself is not quantized), zero where nvfp4 clipped an input. Scales and data given as numpy
arrays of ml_dtypes' float8_e8m0fnu or float4_e2m1fn (types the IR lacks) become float32 on the
host, exactly.
"""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np

from ...graph import Tensor, dtypes, library
from .. import numpy_like as snp
from ..numpy_like.core import asarray, error
from ..primitives.compare import bitcast_convert, convert
from ..primitives.dot_general import dot_general
from ..primitives.elementwise import stop_gradient


@dataclasses.dataclass
class BlockScaleConfig:
    """How scaled_dot_general quantizes one operand (jax's BlockScaleConfig): ``mode`` "mxfp8"
    or "nvfp4", values per scale, the data and scale types, nvfp4's global scale."""

    mode: str
    block_size: int
    data_type: object
    scale_type: object
    global_scale: object
    infer_only: bool


def get_scaled_dot_general_config(mode, global_scale=None) -> BlockScaleConfig:
    """The quantization config of ``mode``: "mxfp8" (float8_e4m3fn data, e8m0 power-of-two
    scales per 32 values) or "nvfp4" (float4_e2m1fn data, float8_e4m3fn scales per 16 values,
    and a float32 ``global_scale``, default 1)."""
    if mode == "nvfp4":
        scale = np.ones((1,), np.float32) if global_scale is None else global_scale
        return BlockScaleConfig("nvfp4", 16, ml_dtypes.float4_e2m1fn, ml_dtypes.float8_e4m3fn, scale, False)
    if mode == "mxfp8":
        return BlockScaleConfig("mxfp8", 32, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e8m0fnu, None, False)
    raise error(f"get_scaled_dot_general_config: mode is 'mxfp8' or 'nvfp4', got {mode!r}")


def _as_f32(x, who: str) -> Tensor:
    """An operand as float32: ml_dtypes' narrow types (numpy) exactly, on the host."""
    if not isinstance(x, Tensor):
        arr = np.asarray(x)
        if arr.dtype.kind not in "fiu" and arr.dtype.name not in ("float8_e8m0fnu", "float4_e2m1fn"):
            if not arr.dtype.name.startswith("float"):
                raise error(f"{who} wants real operands, got {arr.dtype}")
        return asarray(arr.astype(np.float32))
    if x.dtype.kind not in "fiu":
        raise error(f"{who} wants real operands, got {x.type}")
    return convert(x, dtypes.float32)


def _matmul_3d(a: Tensor, b: Tensor, out_dtype) -> Tensor:
    """(B, M, K) x (B, N, K) -> (B, M, N), in float32, as ``out_dtype``."""
    return convert(dot_general(a, b, ((2,), (2,)), ((0,), (0,))), out_dtype)


@library()
def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=dtypes.float32) -> Tensor:
    """``einsum('BMK,BNK->BMN', lhs * repeat(lhs_scales), rhs * repeat(rhs_scales))``: each scale
    covers K // K_s consecutive values of K (the block size is inferred), as jax.nn.scaled_matmul."""
    a, b = _as_f32(lhs, "scaled_matmul"), _as_f32(rhs, "scaled_matmul")
    sa, sb = _as_f32(lhs_scales, "scaled_matmul"), _as_f32(rhs_scales, "scaled_matmul")
    shapes = f"lhs {a.type}, rhs {b.type}, lhs_scales {sa.type}, rhs_scales {sb.type}"
    if not all(t.ndim == 3 for t in (a, b, sa, sb)):
        raise error(f"scaled_matmul wants 3-d operands and scales (B, M, K), (B, N, K); got {shapes}")
    (ba, m, k), (bb, n, kb) = a.shape, b.shape
    if k != kb or ba != bb:
        raise error(f"scaled_matmul wants lhs and rhs of one batch B and contracted K; got {shapes}")
    if (
        sa.shape[0] != ba
        or sb.shape[0] != ba
        or sa.shape[2] != sb.shape[2]
        or sa.shape[1] != m
        or sb.shape[1] != n
    ):
        raise error(
            f"scaled_matmul wants scales (B, M, K_s) and (B, N, K_s) beside the operands; got {shapes}"
        )
    if sa.shape[2] == 0 or k % sa.shape[2]:
        raise error(
            f"scaled_matmul wants K ({k}) a multiple of the scales' K_s ({sa.shape[2]}); got {shapes}"
        )
    block = k // sa.shape[2]
    a = a * snp.repeat(sa, block, axis=-1)
    b = b * snp.repeat(sb, block, axis=-1)
    return _matmul_3d(a, b, dtypes.dtype(preferred_element_type))


# -- quantization ----------------------------------------------------------------------------------
def _e8m0_scale(amax_over_max: Tensor) -> Tensor:
    """The power of two at or above ``amax_over_max`` (float32 >= 0) that jax's e8m0 cast gives;
    a zero block gets 2**-127 (e8m0's smallest value: it has no zero)."""
    bits = bitcast_convert(amax_over_max, dtypes.uint32)
    exp = bits >> np.uint32(23)
    mant = bits & np.uint32(0x7FFFFF)
    round_up = (
        (mant > np.uint32(0))
        & (exp != np.uint32(0xFE))
        & ~((exp == np.uint32(0)) & (mant <= np.uint32(0x400000)))
    )
    exp = snp.where(round_up, exp + np.uint32(1), exp) & np.uint32(0xFF)
    scale = bitcast_convert(exp << np.uint32(23), dtypes.float32)
    return snp.where(scale == 0, np.float32(2.0**-127), scale)


def _round_e2m1(x: Tensor) -> Tensor:
    """``x`` (float32, |x| <= 6) rounded to the nearest float4_e2m1fn value, ties to even."""
    mag = snp.abs(x)
    step = snp.where(mag < 2, np.float32(0.5), snp.where(mag < 4, np.float32(1.0), np.float32(2.0)))
    return snp.sign(x) * snp.round(mag / step) * step


def _quantize(x: Tensor, config: BlockScaleConfig) -> tuple[Tensor, Tensor]:
    """(B, M, K) float32 -> (the values rounded to the data type, times nothing yet; the block
    scales (B, M, K // block_size)), both float32."""
    bsz = int(config.block_size)
    b, m, k = x.shape
    if k < bsz or k % bsz:
        raise error(f"scaled_dot_general: the contracted size {k} is not a multiple of the block size {bsz}")
    blocks = snp.reshape(x, (b, m, k // bsz, bsz))
    top = float(ml_dtypes.finfo(config.data_type).max)
    if config.mode == "nvfp4":
        blocks = blocks / _global(config)
    amax = snp.max(snp.abs(blocks), axis=-1, keepdims=True) / np.float32(top)
    if config.mode == "mxfp8":
        scales = _e8m0_scale(amax)
        # an all-zero block: 2**-127 is subnormal, which XLA's CPU flushes to zero (jax gets 0/0 = nan there)
        scaled = snp.where(amax == 0, np.float32(0.0), blocks / snp.where(amax == 0, np.float32(1.0), scales))
    elif config.mode == "nvfp4":
        scale_max = float(ml_dtypes.finfo(config.scale_type).max)
        scales = convert(convert(snp.clip(amax, 0.0, scale_max), dtypes.float8_e4m3fn), dtypes.float32)
        scaled = snp.where(
            scales == 0, np.float32(0.0), blocks / snp.where(scales == 0, np.float32(1.0), scales)
        )
    else:
        raise error(f"scaled_dot_general: mode is 'mxfp8' or 'nvfp4', got {config.mode!r}")
    clipped = snp.clip(scaled, -top, top)
    if config.data_type == ml_dtypes.float4_e2m1fn:
        q = _round_e2m1(clipped)
    else:
        q = convert(convert(clipped, dtypes.dtype(np.dtype(config.data_type))), dtypes.float32)
    return snp.reshape(q, (b, m, k)), snp.reshape(scales, (b, m, k // bsz))


def _global(config: BlockScaleConfig) -> Tensor:
    return snp.reshape(convert(asarray(config.global_scale), dtypes.float32), ())


def _to_3d(x: Tensor, contract, batch) -> tuple[Tensor, tuple]:
    """``x`` transposed to (batch, kept, contracted) dims, each group in ``x``'s own order (as
    jax's), and flattened to (B, M, K)."""
    order = _order(x.ndim, contract, batch)
    batch, kept, contract = (
        order[: len(batch)],
        order[len(batch) : x.ndim - len(contract)],
        order[x.ndim - len(contract) :],
    )
    t = snp.transpose(x, order)
    sizes = [int(np.prod([x.shape[d] for d in g], dtype=np.int64)) for g in (batch, kept, contract)]
    return snp.reshape(t, tuple(sizes)), tuple(x.shape[d] for d in kept)


def _order(ndim: int, contract, batch) -> list[int]:
    kept = [d for d in range(ndim) if d not in contract and d not in batch]
    return [*sorted(batch), *kept, *sorted(contract)]


def _dequantized(x: Tensor, contract, batch, config: BlockScaleConfig) -> Tensor:
    """``x`` as scaled_dot_general's forward sees it: quantized along ``contract`` and scaled back."""
    x3, _ = _to_3d(x, contract, batch)
    q, scales = _quantize(x3, config)
    deq = q * snp.repeat(scales, int(config.block_size), axis=-1)
    if config.mode == "nvfp4":
        deq = deq * _global(config)
    order = _order(x.ndim, contract, batch)
    shaped = snp.reshape(deq, tuple(x.shape[d] for d in order))
    return snp.transpose(shaped, tuple(int(i) for i in np.argsort(order)))


@library()
def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=dtypes.float32, configs=None,
                       implementation=None) -> Tensor:  # fmt: skip
    """lax.dot_general of ``lhs`` and ``rhs`` quantized per ``configs`` ([lhs, rhs, gradient]
    BlockScaleConfigs from get_scaled_dot_general_config; None: a plain dot_general), as
    jax.nn.scaled_dot_general. ``implementation`` is ignored (jax deprecated it)."""
    del implementation
    x, y = asarray(lhs), asarray(rhs)
    (lc, rc), (lb, rb) = dimension_numbers
    lc, rc, lb, rb = (
        tuple(int(d) for d in (g if isinstance(g, tuple | list) else (g,))) for g in (lc, rc, lb, rb)
    )
    out_dt = dtypes.dtype(preferred_element_type)
    if configs is None:
        return convert(dot_general(x, y, (lc, rc), (lb, rb)), out_dt)
    if out_dt.name not in ("float32", "bfloat16", "float16"):
        raise error(
            f"scaled_dot_general's preferred_element_type is float32, bfloat16 or float16, got {out_dt.name}"
        )
    if len(configs) < 2:
        raise error(f"scaled_dot_general wants configs for lhs, rhs (and the gradient), got {len(configs)}")
    if not (x.dtype.kind == "f" and y.dtype.kind == "f"):
        raise error(f"scaled_dot_general wants float operands, got {x.type} and {y.type}")
    xf, yf = convert(x, dtypes.float32), convert(y, dtypes.float32)
    xq = _dequantized(xf, lc, lb, configs[0])
    yq = _dequantized(yf, rc, rb, configs[1])
    # straight through: the forward uses the quantized values, gradients flow as to the inputs
    xs = xf + stop_gradient(xq - xf)
    ys = yf + stop_gradient(yq - yf)
    for cfg, v, s in ((configs[0], xf, "x"), (configs[1], yf, "y")):
        if cfg.mode == "nvfp4":  # inputs nvfp4 clipped get no gradient (jax's zero-out)
            top = float(ml_dtypes.finfo(cfg.data_type).max) * float(ml_dtypes.finfo(cfg.scale_type).max)
            keep = snp.abs(v) <= _global(cfg) * np.float32(top)
            masked = snp.where(keep, v, stop_gradient(v))
            if s == "x":
                xs = masked + stop_gradient(xq - xf)
            else:
                ys = masked + stop_gradient(yq - yf)
    return convert(dot_general(xs, ys, (lc, rc), (lb, rb)), out_dt)


__all__ = ["BlockScaleConfig", "get_scaled_dot_general_config", "scaled_dot_general", "scaled_matmul"]
