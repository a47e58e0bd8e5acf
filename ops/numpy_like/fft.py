"""snp.fft: numpy.fft's names over the fft primitive (ops layer).

numpy's signatures: ``n``/``axis`` for one axis, ``s``/``axes`` for several,
``norm`` in "backward" (default), "ortho" or "forward". Each transform pads
or crops its axes to the requested sizes, moves them to the end (the
primitive works on trailing axes), applies the primitive over groups of at
most 3 axes and moves them back. Real input to a complex transform becomes
complex first (float32 -> complex64, float64 -> complex128; integers as
sg.numpy's float rule says). Results are complex64 for 32-bit input, as in
jax.numpy.fft, not always complex128 as in numpy.
"""

from __future__ import annotations

import math

import numpy as np

from ...graph import Tensor, dtypes
from ..primitives import ad_util as ad
from ..primitives import complex_parts, constants, prims, slicing
from ..primitives import fft as fft_prim
from ..primitives.compare import convert
from .core import asarray, error, normalize_axes

_NORMS = ("backward", "ortho", "forward")
_SWAPPED = {"backward": "forward", "ortho": "ortho", "forward": "backward"}
_GROUP = 3  # the primitive transforms at most 3 trailing axes at once


def _float_dtype(dt: dtypes.DType) -> dtypes.DType:
    if dt.name in ("float32", "float64"):
        return dt
    if dt.is_complex:
        raise error(f"this transform wants real input, got {dt.name}")
    return dtypes.float64 if dt.bits == 64 else dtypes.float32


def _complex_dtype(dt: dtypes.DType) -> dtypes.DType:
    if dt.is_complex:
        return dt
    return complex_parts.complex_dtype(_float_dtype(dt))


def _as_complex(a):
    x = asarray(a)
    return convert(x, _complex_dtype(x.dtype))


def _as_real(a):
    x = asarray(a)
    return convert(x, _float_dtype(x.dtype))


def _resized(x, axis: int, n: int):
    """x padded with zeros or cropped to ``n`` elements along ``axis``."""
    size = x.shape[axis]
    if not isinstance(size, int):
        raise error(f"fft wants static sizes along the transformed axes, got {x.type}")
    if n < 1:
        raise error(f"fft wants sizes >= 1, got {n}")
    if n == size:
        return x
    high = [0] * x.ndim
    high[axis] = n - size  # a negative pad crops
    return prims.pad(x, constants.constant(0, x.dtype), [0] * x.ndim, high)


def _check_norm(norm) -> str:
    norm = "backward" if norm is None else norm
    if norm not in _NORMS:
        raise error(f"fft norm must be one of {_NORMS} or None, got {norm!r}")
    return norm


def _scaled(x, norm: str, n: int, inverse: bool):
    """Apply numpy's ``norm`` on top of the primitive's own 1/n on inverse transforms."""
    if inverse:  # the wanted scale of an inverse times the n the primitive divides by
        factor = {"backward": 1.0, "ortho": math.sqrt(n), "forward": float(n)}[norm]
    else:
        factor = {"backward": 1.0, "ortho": 1 / math.sqrt(n), "forward": 1 / n}[norm]
    return x if factor == 1.0 else ad.scale(x, factor)


def _over_axes(x, axes, fn):
    """``fn`` applied with ``axes`` moved to the end (in that order), then moved back."""
    others = [d for d in range(x.ndim) if d not in axes]
    perm = others + list(axes)
    inverse = [perm.index(d) for d in range(x.ndim)]
    return prims.transpose(fn(prims.transpose(x, perm)), inverse)


def _groups(axes) -> list[tuple[int, ...]]:
    """``axes`` in groups of at most 3, the last group holding the last axis."""
    axes = tuple(axes)
    cut = len(axes) % _GROUP or _GROUP
    rest, last = axes[: len(axes) - cut], axes[len(axes) - cut :]
    first_groups = [rest[i : i + _GROUP] for i in range(0, len(rest), _GROUP)] if rest else []
    return [*first_groups, last] if last else first_groups


def _complex_n(x, axes, kind: str):
    """FFT or IFFT over ``axes`` (any number)."""
    for group in _groups(axes):
        lengths = tuple(x.shape[a] for a in group)
        x = _over_axes(x, group, lambda t, lengths=lengths: fft_prim.fft(t, kind, lengths))
    return x


def _axes_and_sizes(x, s, axes, what: str):
    if axes is None:
        axes = tuple(range(x.ndim)) if s is None else tuple(range(x.ndim - len(s), x.ndim))
    axes = normalize_axes(axes, x.ndim)
    if s is not None and len(s) != len(axes):
        raise error(f"{what}: s and axes must have the same length, got {s} and {axes}")
    if not axes:
        raise error(f"{what} wants at least one axis")
    return axes, s


# -- complex to complex --------------------------------------------------------
def fftn(a, s=None, axes=None, norm=None):
    """The n-dimensional DFT over ``axes`` (default: all, or the last len(s)), sizes ``s``."""
    norm, x = _check_norm(norm), _as_complex(a)
    axes, s = _axes_and_sizes(x, s, axes, "fftn")
    for ax, n in zip(axes, s or ()):
        x = _resized(x, ax, int(n))
    return _scaled(_complex_n(x, axes, "FFT"), norm, math.prod(x.shape[a] for a in axes), inverse=False)


def ifftn(a, s=None, axes=None, norm=None):
    """The inverse of fftn (scaled by 1/n with norm="backward")."""
    norm, x = _check_norm(norm), _as_complex(a)
    axes, s = _axes_and_sizes(x, s, axes, "ifftn")
    for ax, n in zip(axes, s or ()):
        x = _resized(x, ax, int(n))
    return _scaled(_complex_n(x, axes, "IFFT"), norm, math.prod(x.shape[a] for a in axes), inverse=True)


def fft(a, n=None, axis=-1, norm=None):
    """The one-dimensional DFT along ``axis``, padded or cropped to ``n`` points."""
    return fftn(a, None if n is None else (n,), (axis,), norm)


def ifft(a, n=None, axis=-1, norm=None):
    """The inverse of fft."""
    return ifftn(a, None if n is None else (n,), (axis,), norm)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    return fftn(a, s, axes, norm)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    return ifftn(a, s, axes, norm)


# -- real to complex and back --------------------------------------------------
def rfftn(a, s=None, axes=None, norm=None):
    """The DFT of real input: the last axis keeps its n // 2 + 1 non-negative frequencies."""
    norm, x = _check_norm(norm), _as_real(a)
    axes, s = _axes_and_sizes(x, s, axes, "rfftn")
    for ax, n in zip(axes, s or ()):
        x = _resized(x, ax, int(n))
    total = math.prod(x.shape[a] for a in axes)
    *rest, last = _groups(axes)
    lengths = tuple(x.shape[a] for a in last)
    x = _over_axes(x, last, lambda t: fft_prim.fft(t, "RFFT", lengths))
    for group in reversed(rest):
        x = _complex_n(x, group, "FFT")
    return _scaled(x, norm, total, inverse=False)


def irfftn(a, s=None, axes=None, norm=None):
    """The inverse of rfftn: real output with ``s[-1]`` (default 2 (m - 1)) points on the last axis."""
    norm, x = _check_norm(norm), _as_complex(a)
    axes, s = _axes_and_sizes(x, s, axes, "irfftn")
    sizes = list(s) if s is not None else [x.shape[ax] for ax in axes[:-1]] + [2 * (x.shape[axes[-1]] - 1)]
    sizes = [int(n) for n in sizes]
    for ax, n in zip(axes[:-1], sizes[:-1]):
        x = _resized(x, ax, n)
    x = _resized(x, axes[-1], sizes[-1] // 2 + 1)
    *rest, last = _groups(axes)
    for group in rest:
        x = _complex_n(x, group, "IFFT")
    lengths = tuple(sizes[axes.index(a)] for a in last)
    x = _over_axes(x, last, lambda t: fft_prim.fft(t, "IRFFT", lengths))
    return _scaled(x, norm, math.prod(sizes), inverse=True)


def rfft(a, n=None, axis=-1, norm=None):
    return rfftn(a, None if n is None else (n,), (axis,), norm)


def irfft(a, n=None, axis=-1, norm=None):
    return irfftn(a, None if n is None else (n,), (axis,), norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    return rfftn(a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    return irfftn(a, s, axes, norm)


def hfft(a, n=None, axis=-1, norm=None):
    """The DFT of a signal with Hermitian symmetry, given by its first half: real output of n points."""
    x = _as_complex(a)
    return irfft(complex_parts.conj(x), n, axis, _SWAPPED[_check_norm(norm)])


def ihfft(a, n=None, axis=-1, norm=None):
    """The inverse of hfft: the first n // 2 + 1 terms of the inverse DFT of real input."""
    return complex_parts.conj(rfft(a, n, axis, _SWAPPED[_check_norm(norm)]))


# -- frequencies and shifts ----------------------------------------------------
def _frequencies(k: np.ndarray, n: int, d, dtype):
    dt = dtypes.float32 if dtype is None else dtypes.dtype(dtype)
    if not isinstance(d, Tensor):
        return constants.constant((k / (n * float(d))).astype(dt.np))
    spacing = convert(asarray(d), dt)
    if spacing.ndim:
        raise error(f"fftfreq wants a scalar sample spacing d, got {spacing.type}")
    freqs = constants.constant((k / n).astype(dt.np))
    return prims.div(freqs, prims.broadcast_in_dim(spacing, freqs.shape, ()))


def fftfreq(n: int, d=1.0, *, dtype=None):
    """The frequency of each fft term for n samples spaced d apart: [0, 1, ..., -2, -1] / (n d)."""
    n = int(n)
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return _frequencies(k, n, d, dtype)


def rfftfreq(n: int, d=1.0, *, dtype=None):
    """The frequencies of the rfft terms: [0, 1, ..., n // 2] / (n d)."""
    n = int(n)
    return _frequencies(np.arange(0, n // 2 + 1), n, d, dtype)


def _shift(x, axes, sign: int):
    x = asarray(x)
    axes = normalize_axes(axes, x.ndim) if axes is not None else tuple(range(x.ndim))
    if not axes:
        return x
    for a in axes:
        x = _roll(x, a, sign * (x.shape[a] // 2))
    return x


def _roll(x, axis: int, shift: int):
    n = x.shape[axis]
    if not isinstance(n, int):
        raise error(f"fftshift wants static sizes along its axes, got {x.type}")
    cut = (n - shift) % n if n else 0
    if cut == 0:
        return x
    start, stop = [0] * x.ndim, list(x.shape)
    head = slicing.slice(x, [*start[:axis], cut, *start[axis + 1 :]], stop)
    tail = slicing.slice(x, start, [*stop[:axis], cut, *stop[axis + 1 :]])
    return prims.concatenate([head, tail], axis)


def fftshift(x, axes=None):
    """Move the zero frequency to the middle (roll each axis by n // 2)."""
    return _shift(x, axes, 1)


def ifftshift(x, axes=None):
    """The inverse of fftshift."""
    return _shift(x, axes, -1)


__all__ = [
    "fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn",
    "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]  # fmt: skip
