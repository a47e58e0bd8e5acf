"""The fft primitive: FFT, IFFT, RFFT and IRFFT over the trailing axes (ops layer).

``fft(x, fft_type, fft_length)`` transforms the last ``len(fft_length)``
(1 to 3) axes, as stablehlo.fft does; the leading axes are batch axes, so
the batch rule only has to keep the vectorized axis out of the trailing
ones. The inverse transforms scale by ``1 / prod(fft_length)`` (XLA's, and
numpy's "backward", convention). sg.numpy.fft adds numpy's axes, sizes and
norms on top.

Types: FFT and IFFT map complex to complex of one shape; RFFT maps float32
(float64) to complex64 (complex128), the last axis n becoming n // 2 + 1;
IRFFT maps that back, the last axis n // 2 + 1 becoming n.

The op is linear, so forward mode applies it to tangents; its vjp is its
transpose, as in JAX: the DFT matrix is symmetric, so FFT and IFFT are their
own transposes; RFFT's transpose pads the cotangent to n terms, applies the
FFT and keeps the real part; IRFFT's transpose is an RFFT of the cotangent
with the mirrored terms (all but the first and, for even n, the last)
doubled, scaled by 1 / prod(n) and conjugated (JAX's complex convention).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from ...graph import LINEAR, Attrs, GraphError, OpDef, Tensor, TensorType, dtypes, located, user_location
from ...graph.dims import is_symbolic
from . import ad_util as ad
from . import batching, constants, hlo, prims
from .registry import bind, lookup

FFT_TYPES = ("FFT", "IFFT", "RFFT", "IRFFT")
_COMPLEX_OF = {"float32": dtypes.complex64, "float64": dtypes.complex128}
_REAL_OF = {"complex64": dtypes.float32, "complex128": dtypes.float64}


class FftAttrs(Attrs):
    fft_type: Literal["FFT", "IFFT", "RFFT", "IRFFT"]
    fft_length: tuple[int, ...]


def _fft_infer(attrs: FftAttrs, x: TensorType) -> TensorType:
    kind, lengths = attrs.fft_type, attrs.fft_length
    k = len(lengths)
    if not 1 <= k <= 3 or any(n < 1 for n in lengths):
        raise GraphError(f"fft wants 1 to 3 positive fft_length entries, got {lengths}")
    if x.ndim < k:
        raise GraphError(f"fft over {k} axes wants an operand of rank >= {k}, got {x}")
    trailing = tuple(x.shape[x.ndim - k :])
    if any(is_symbolic(d) for d in trailing):
        raise GraphError(f"fft wants static sizes along the transformed axes, got {x}")
    if kind == "RFFT":
        if x.dtype.name not in _COMPLEX_OF:
            raise GraphError(f"fft RFFT wants a float32 or float64 operand, got {x}")
        want_in, out_last, out_dt = lengths, lengths[-1] // 2 + 1, _COMPLEX_OF[x.dtype.name]
    elif x.dtype.name not in _REAL_OF:
        raise GraphError(f"fft {kind} wants a complex64 or complex128 operand, got {x}")
    elif kind == "IRFFT":
        want_in = (*lengths[:-1], lengths[-1] // 2 + 1)
        out_last, out_dt = lengths[-1], _REAL_OF[x.dtype.name]
    else:
        want_in, out_last, out_dt = lengths, lengths[-1], x.dtype
    if trailing != tuple(want_in):
        raise GraphError(f"fft {kind} with fft_length {lengths} wants trailing dims {want_in}, got {x}")
    return TensorType((*x.shape[:-1], out_last), out_dt)


def _fft_lower(ctx, attrs: FftAttrs, x):
    kind = hlo.sh.FftTypeAttr.get(attrs.fft_type)
    return hlo.sh.fft(x, kind, list(attrs.fft_length), results=[hlo.tensor_type(ctx.out_types[0])])


def _fft_vjp(ctx, attrs: FftAttrs, xs, ys, cts):
    ct, lengths = cts[0], attrs.fft_length
    if attrs.fft_type in ("FFT", "IFFT"):
        return [fft(ct, attrs.fft_type, lengths)]
    if attrs.fft_type == "RFFT":
        return [_rfft_transpose(ct, lengths)]
    return [_irfft_transpose(ct, lengths)]


def _rfft_transpose(ct: Tensor, lengths) -> Tensor:
    """The transpose of ``x -> FFT(complex(x))[..., :n // 2 + 1]``: pad, FFT, real part."""
    n = lengths[-1]
    low, high = [0] * ct.ndim, [0] * ct.ndim
    high[-1] = n - ct.shape[-1]
    full = prims.pad(ct, constants.constant(0, ct.dtype), low, high) if high[-1] else ct
    return bind(lookup("real"), fft(full, "FFT", lengths))


def _irfft_transpose(ct: Tensor, lengths) -> Tensor:
    n, half = lengths[-1], lengths[-1] // 2 + 1
    spectrum = fft(ct, "RFFT", lengths)
    # each term but the first (and the last of an even n) stands for itself and its mirror image
    weights = np.full(half, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    weights /= math.prod(lengths)
    w = constants.constant(weights.astype(spectrum.dtype.np))
    w = prims.broadcast_in_dim(w, spectrum.shape, (spectrum.ndim - 1,))
    return bind(lookup("conj"), ad.mul(spectrum, w))


def _fft_batch(ctx, attrs: FftAttrs, xs, bdims):
    (x,), (b,) = xs, bdims
    if b >= x.ndim - len(attrs.fft_length):  # the batch axis sits among the transformed ones
        x, b = batching.moveaxis(x, b, 0), 0
    return [bind(fft_op, x, attrs=attrs)], [b]


fft_op = OpDef(
    "fft",
    _fft_infer,
    _fft_lower,
    attrs=FftAttrs,
    vjp=_fft_vjp,
    batch=_fft_batch,
    traits=LINEAR,
    doc="discrete Fourier transforms (FFT, IFFT, RFFT, IRFFT) over the 1-3 trailing axes; stablehlo.fft",
)


def fft(x: Tensor, fft_type: str, fft_length) -> Tensor:
    """A discrete Fourier transform of ``x`` over its last ``len(fft_length)`` axes (1 to 3).

    ``fft_type`` is "FFT" (complex -> complex), "IFFT" (its inverse, scaled by
    1 / prod(fft_length)), "RFFT" (real -> the n // 2 + 1 non-negative
    frequencies of the last axis) or "IRFFT" (back to n real values). As
    ``jax.lax.fft``; lowers to stablehlo.fft.

    Example: ``fft(x, "FFT", (8,))`` is ``np.fft.fft(x)`` for x of shape (..., 8).
    """
    lengths = tuple(fft_length)
    if any(is_symbolic(n) for n in lengths):
        raise GraphError(located(
            f"fft {fft_type} wants static sizes along the transformed axes (XLA's fft takes its lengths as "
            f"numbers), got fft_length {lengths} for {x.type}", user_location()))  # fmt: skip
    return bind(fft_op, x, fft_type=fft_type, fft_length=tuple(int(n) for n in lengths))


__all__ = ["fft", "FFT_TYPES"]
